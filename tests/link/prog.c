/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prog.c - the C program of check-link, compiled with hooks and
 * -ffunction-sections: every function in a section of its own, so that
 * --gc-sections can drop dead_code() (nothing calls it) and, with it,
 * its table entry.  The static functions and the one in a named section
 * are there so that the table has pieces of more than one shape.
 */
int step(int x);
int accumulate(int n);
int dead_code(int x);

static int square(int x)
{
	return x * x;
}

__attribute__((noinline)) static int twice(int x)
{
	return square(x) + square(x + 1);
}

__attribute__((noinline, section(".text.hot.step"))) int step(int x)
{
	return twice(x) - x;
}

int accumulate(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += step(i);
	return sum;
}

/* Never called: --gc-sections must take its hook and its entry away. */
int dead_code(int x)
{
	return x * 31 + accumulate(x);
}
