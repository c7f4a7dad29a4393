/* SPDX-License-Identifier: MIT */
/*
 * work.c - a few ordinary functions, built with -pg -mfentry so each one
 * starts with a hook: one static, one called in a loop.
 */
#include "work.h"

/* noinline: an inlined function has no entry, hence no hook to see. */
__attribute__((noinline)) static int square(int x)
{
	return x * x;
}

__attribute__((noinline)) int step(int i)
{
	return square(i) + 1;
}

int accumulate(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += step(i);
	return sum;
}
