/* SPDX-License-Identifier: GPL-2.0-only */
/* somain.c - compiled without hooks: the program that loads the shared
 * case's library, whose runtime booted the library's table. */
#include <mcount.h>
#include <stdio.h>

int lib_entry(int n);

int main(void)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	printf("sites %zu patched %zu nops %zu refused %zu\n", c.sites,
	       c.patched, c.nops, c.refused);
	printf("lib_entry %d\n", lib_entry(3));
	return 0;
}
