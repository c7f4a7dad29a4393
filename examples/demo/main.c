/* SPDX-License-Identifier: MIT */
/*
 * main.c - the runtime at work: count the hooks patched at start-up,
 * trace one function by name, then stop tracing it.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mcount.h>

#include "work.h"

static int traced;

/* Called from the trampoline; must not carry a hook of its own. */
MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	unsigned long off = 0;
	const char *fname = mcount_func_name(func, NULL);
	const char *cname = mcount_func_name(caller, &off);

	traced++;
	printf("  traced: %s (%#lx) called from %s+%#lx\n",
	       fname ? fname : "?", func, cname ? cname : "?", off);
}

static int must(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "demo: %s: %s\n", what, mcount_strerror(err));
		exit(1);
	}
	return err;
}

int main(void)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	printf("boot: %zu sites, %zu patched to NOPs, %zu refused\n",
	       c.sites, c.patched, c.refused);

	mcount_set_callback(on_call);
	must(mcount_enable_name("step"), "enable step");
	printf("tracing step():\n");
	printf("accumulate(3) = %d\n", accumulate(3));

	must(mcount_disable_name("step"), "disable step");
	traced = 0;
	printf("tracing off:\n");
	printf("accumulate(3) = %d, %d calls traced\n", accumulate(3), traced);
	return 0;
}
