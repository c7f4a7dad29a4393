/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vectors.c - floating-point arguments and returns, and a return in two
 * general registers, through recorded calls (tests/trace/run.sh's
 * vectors_check): what it prints must be what the untraced run prints.  A program of its own, so that a
 * backend whose frame reader refuses one of these functions (32-bit
 * ARM's, for now) still records prog.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
/* no hook at all, in every build of the suite (-pg and pads) */
#define NOHOOK __attribute__((noinline, no_instrument_function, \
			      patchable_function_entry(0, 0)))

/*
 * Floating-point arguments in %xmm0-7, varargs with their count in %al,
 * long double through the x87 stack: a recorder that let any of them
 * change would print other numbers than the untraced run.
 */
NOINLINE double fsum8(double a, double b, double c, double d, double e,
		      double f, double g, double h, int i, long j)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
	       i + j;
}

NOINLINE double vsum(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int k = 0; k < n; k++)
		s += (k + 1) * va_arg(ap, double);
	va_end(ap);
	return s;
}

NOINLINE long double ldmul(long double a, long double b) { return a * b; }

/*
 * Returned in two general registers (x86_64's %rax and %rdx, aarch64's
 * x0 and x1): the return trampoline must keep both.
 */
struct pair { long lo, hi; };
NOINLINE struct pair pair(long x)
{
	return (struct pair){ x * 3 + 1, x * 5 + 2 };
}

static double fresult[3];

/* Untraced: fsum8 is the thread's first traced call (its setup). */
NOHOOK static void *fthread(void *arg)
{
	double x = (double)(long)arg;

	fresult[(long)arg] = fsum8(x + .5, x + 1.25, x + 2.125, x + 3.0625,
				   x + 4.5, x + 5.25, x + 6.125, x + 7.0625,
				   (int)x, (long)x * 3);
	return NULL;
}

NOINLINE void vectors_test(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, fthread, (void *)i);
		pthread_join(t[i], NULL);
		printf("%.17g\n", fresult[i]);
	}
	printf("%.17g\n", fsum8(.1, .2, .3, .4, .5, .6, .7, .8, 9, 10));
	printf("%.17g\n", vsum(8, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5));
	printf("%.21Lg\n", ldmul(1.1L, 3.3L));
	struct pair p = pair(7);
	printf("%ld %ld\n", p.lo, p.hi);
}

int main(void)
{
	vectors_test();
	return 0;
}
