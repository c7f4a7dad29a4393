/* SPDX-License-Identifier: MIT */
/*
 * work.c - functions for the firmware to trace, in their own object so
 * that the image has more than one recorded table.  Compiled with hooks.
 *
 * noipa keeps GCC from inlining work_step or cloning it for known
 * arguments: every call must go through its one hooked entry.
 */
#include "work.h"

__attribute__((noipa)) int work_step(int x)
{
	return x * x + 1;
}

int work_run(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += work_step(i);
	return sum;
}

__attribute__((noipa)) int work_victim(int x)
{
	return x ^ 0x55;
}
