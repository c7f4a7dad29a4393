/* SPDX-License-Identifier: GPL-2.0-only */
/* libdyn.c - the library the test dlopens and dlcloses again and again. */
int dyn_leaf(int x)
{
	return x * 3 + 1;
}

int dyn_call(int x)
{
	return dyn_leaf(x) - 1;
}
