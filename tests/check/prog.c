/* SPDX-License-Identifier: GPL-2.0-only */
/* prog.c - traced code for the --check suite: a few functions, one of
 * them weak (strong.c overrides it). */
int strong_or_weak(int x);

__attribute__((noinline)) int twice(int x) { return 2 * x + 1; }
__attribute__((noinline)) int thrice(int x) { return 3 * x - twice(x); }
__attribute__((noinline, weak)) int strong_or_weak(int x) { return x ^ 0x55; }
__attribute__((noinline)) int sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += thrice(i) + strong_or_weak(i);
	return s;
}
