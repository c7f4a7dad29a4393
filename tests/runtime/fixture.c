/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fixture.c - functions with entry hooks for the runtime test, built
 * with -pg [-mfentry].  Each is noinline/noclone so its hook stays at a
 * known function start and calls to it are real calls.
 */
#include "fixture.h"

#define FX FX_NOINLINE

FX int fx_traced(int x)
{
	return x * 3 + 1;
}

FX int fx_other(int x)
{
	return x - 7;
}

FX int fx_victim(int x)
{
	return x ^ 0x55;
}

FX static int fx_static(int x)
{
	return x * x;
}

/* Eight integer arguments: six in registers, two on the stack. */
FX long fx_many(long a, long b, long c, long d, long e, long f, long g,
		long h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

/* Vector-register arguments must survive the trampoline too. */
FX double fx_fp(double a, double b, double c, double d, double e,
		double f, double g, double h)
{
	return a - b + c * d - e / f + g * h;
}

FX int (*fx_static_ptr(void))(int)
{
	return fx_static;
}
