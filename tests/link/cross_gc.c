/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cross_gc.c - the --gc-sections case on every architecture: two live
 * functions, one dead, each in its own section (-ffunction-sections),
 * linked freestanding with the cross linkers (test_link.py, "cross").
 */
__attribute__((noinline)) int live_one(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int live_two(int x)
{
	return live_one(x) ^ 5;
}

__attribute__((noinline)) int dead_code(int x)
{
	return x * x + 7;
}

volatile int sink;

void _start(void)
{
	sink = live_two(sink);
	for (;;)
		;
}
