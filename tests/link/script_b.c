/* SPDX-License-Identifier: GPL-2.0-only */
/* script_b.c: see script_a.c. */
int more_init_data __attribute__((section(".init.data.more"))) = 9;

__attribute__((noinline)) int b_one(int x)
{
	return x - 1;
}

__attribute__((noinline)) int b_two(int x)
{
	return x * 3;
}

/* Nothing calls it: --gc-sections must drop it and its entry. */
__attribute__((noinline)) int unused(int x)
{
	return x * 5;
}

/* The hook the calls go to; compiled with the rest, not traced. */
__attribute__((no_instrument_function)) void __fentry__(void)
{
}
