/* SPDX-License-Identifier: GPL-2.0-only */
/* two.c - two libraries, each with its own copy of libmcount.a. */
#include <stdio.h>

#include <mcount.h>

int two1_boot(void);
int two2_boot(void);

int main(void)
{
	int a = two1_boot(), b = two2_boot();

	printf("%s: the first copy in load order is the runtime (%d)\n",
	       a == MCOUNT_OK ? "PASS" : "FAIL", a);
	printf("%s: the second copy refuses to boot (%d)\n",
	       b == MCOUNT_EOTHER ? "PASS" : "FAIL", b);
	return a == MCOUNT_OK && b == MCOUNT_EOTHER ? 0 : 1;
}
