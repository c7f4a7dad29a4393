/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * frames.c - functions whose frames are laid out every way the
 * compilers do it (tests/trace/run.sh): a small one, ones too big for
 * one stack adjustment (4 KiB, 64 KiB), one with alloca, nested, and
 * one with arguments on the stack, so that a backend that finds the
 * return address from the prologue (recorder/<arch>/frame.c) meets each
 * form.  Built with hooks for the recorder and with
 * -finstrument-functions for the counter, as prog.c.
 */
#include <alloca.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int small(int x) { sink += x; return x + 1; }

NOINLINE int big(int x)
{
	volatile char buf[5000];

	buf[x % 5000] = (char)x;
	return small(buf[x % 5000]) + buf[0];
}

NOINLINE int huge(int x)
{
	volatile char buf[70000];

	buf[x] = 1;
	return big(x) + buf[x];
}

NOINLINE int dyn(int n)
{
	volatile char *p = alloca((unsigned)n);

	p[0] = 1;
	return huge(n) + p[0];
}

/* Arguments on the stack: clang's Thumb-2 loads them with ldrd before
   the hook */
NOINLINE int stacked(int a, int b, int c, int d, int e, int f)
{
	sink += e * f;
	return small(a + b + c + d) + e - f;
}

int main(void)
{
	int s = 0;

	for (int i = 0; i < 10; i++)
		s += dyn(i + 16) + stacked(i, 1, 2, 3, i + 4, 5);
	printf("%d\n", s);
	return 0;
}
