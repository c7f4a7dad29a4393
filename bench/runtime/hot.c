/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hot.c - calls per second of a small function, for comparing an
 * uninstrumented build with a -pg -mfentry build whose hook the runtime
 * has turned into a NOP (and one still calling the stub, before boot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int hot(int x)
{
	return x * 3 + 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000L;
	volatile int sink = 0;
	double t0 = now_s();

	for (long i = 0; i < n; i++)
		sink = hot(sink);
	double t1 = now_s();
	printf("calls %ld seconds %.3f mcalls_per_s %.1f\n", n, t1 - t0,
	       n / (t1 - t0) / 1e6);
	return 0;
}
