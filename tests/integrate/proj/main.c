/* SPDX-License-Identifier: GPL-2.0-only */
/* A three-file program: prints how many hook sites the runtime found
 * and patched at start-up, and whether tracing one function works. */
#include <stdio.h>

#include <mcount.h>

int twice(int x);
int thrice(int x);

static int calls;

MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	(void)func;
	(void)caller;
	calls++;
}

int main(void)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	mcount_set_callback(on_call);
	if (mcount_enable_name("thrice"))
		calls = -1;	/* not found: no table, or no site in it */
	int r = twice(2) + thrice(3);
	printf("sites=%zu patched=%zu refused=%zu traced=%d result=%d\n",
	       c.sites, c.patched, c.refused, calls, r);
	return 0;
}
