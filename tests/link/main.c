/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c - compiled without hooks: boots the table (the runtime's
 * constructor has), checks every site again, and prints what the
 * runtime did, for test_link.py to compare with objdump.
 */
#include <mcount.h>
#include <stdio.h>

int accumulate(int n);

int main(void)
{
	struct mcount_counts c;
	int changed = mcount_verify();

	mcount_get_counts(&c);
	printf("sites %zu patched %zu nops %zu refused %zu verify %d\n",
	       c.sites, c.patched, c.nops, c.refused, changed);
	return accumulate(4) == 38 ? 0 : 1;
}
