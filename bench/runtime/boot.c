/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot.c - time mcount_boot() over a program with many hook sites.
 *
 * Linked with a generated file of small functions (gen.py); boot is
 * called explicitly so that only the patching pass is timed.
 */
#include <stdio.h>
#include <time.h>

#include "mcount.h"

const int mcount_no_autoboot = 1;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
	struct mcount_counts c;
	double t0 = now_ns();
	int err = mcount_boot();
	double t1 = now_ns();

	if (err) {
		fprintf(stderr, "boot: %s\n", mcount_strerror(err));
		return 1;
	}
	mcount_get_counts(&c);
	printf("sites %zu patched %zu refused %zu boot_ms %.2f ns_per_site %.1f\n",
	       c.sites, c.patched, c.refused, (t1 - t0) / 1e6,
	       (t1 - t0) / (double)(c.sites ? c.sites : 1));
	return c.refused != 0;
}
