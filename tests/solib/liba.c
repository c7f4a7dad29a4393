/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * liba.c - a C library linked at start-up.  sa_add is not inlined into
 * sa_twice: that call is the one the test traces (clang inlines it
 * otherwise, -fPIC or not).
 */
__attribute__((noinline)) int sa_add(int a, int b)
{
	return a + b;
}

int sa_twice(int a)
{
	return sa_add(a, a);
}
