/* SPDX-License-Identifier: GPL-2.0-only */
/* liba.c - a C library linked at start-up. */
int sa_add(int a, int b)
{
	return a + b;
}

int sa_twice(int a)
{
	return sa_add(a, a);
}
