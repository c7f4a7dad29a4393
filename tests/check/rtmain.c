/* SPDX-License-Identifier: GPL-2.0-only */
/* rtmain.c - compiled without hooks: the program of the runtime cases,
 * which prints what the runtime's boot did with the table. */
#include <mcount.h>
#include <stdio.h>

int sum(int n);
int other(int x);

int main(void)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	printf("sites %zu patched %zu nops %zu refused %zu\n", c.sites,
	       c.patched, c.nops, c.refused);
	return sum(3) + other(1) > 0 ? 0 : 1;
}
