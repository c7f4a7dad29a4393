/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * other.c - one more hooked function, recorded in the kernel's form
 * (one __mcount_loc piece per object) and linked beside --per-section
 * objects with no script: test_link.py's mixed case, which the runtime
 * and --check must refuse rather than boot one table of the two.
 */
int other(int x)
{
	return x * 7;
}
