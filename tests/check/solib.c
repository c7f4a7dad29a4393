/* SPDX-License-Identifier: GPL-2.0-only */
/* solib.c - the shared object's own entry point, linked after prog.c
 * and strong.c; lib_rare is cold, so ld puts it in .text.unlikely,
 * before them: the linked table is not in address order. */
int sum(int n);
int other(int x);

__attribute__((noinline, cold)) int lib_rare(int x) { return x * 11; }

int lib_entry(int n)
{
	return sum(n) + other(n) + (n < 0 ? lib_rare(n) : 0);
}
