/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot.c - time mcount_boot() over a program with many hook sites.
 *
 * Linked with a generated file of small functions (gen.py); boot is
 * called explicitly so that only the patching pass is timed: wall time,
 * this thread's CPU time (user and kernel: steadier than wall time on a
 * shared machine) and the minor faults it took.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "mcount.h"

const int mcount_no_autoboot = 1;

static double now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static long minor_faults(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

int main(void)
{
	struct mcount_counts c;
	long f0 = minor_faults();
	double t0 = now_ns(CLOCK_MONOTONIC);
	double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	int err = mcount_boot();
	double c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	double t1 = now_ns(CLOCK_MONOTONIC);
	long f1 = minor_faults();
	double n;

	if (err) {
		fprintf(stderr, "boot: %s\n", mcount_strerror(err));
		return 1;
	}
	mcount_get_counts(&c);
	n = c.sites ? c.sites : 1;
	printf("sites %zu patched %zu refused %zu boot_ms %.2f ns_per_site %.1f "
	       "cpu_ns_per_site %.1f faults %ld\n",
	       c.sites, c.patched, c.refused, (t1 - t0) / 1e6, (t1 - t0) / n,
	       (c1 - c0) / n, f1 - f0);
	return c.refused != 0;
}
