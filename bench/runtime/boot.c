/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot.c - time mcount_boot() over a program with many hook sites.
 *
 * Linked with a generated file of small functions (gen.py); boot is
 * called explicitly so that only the patching pass is timed: wall time,
 * this thread's CPU time (user and kernel: steadier than wall time on a
 * shared machine) and the minor faults it took.  Then the same for the
 * first call that needs every site's record (mcount_verify: the runtime
 * may make them then rather than at boot).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mcount.h"

const int mcount_no_autoboot = 1;

static double now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/*
 * Private pages mapped, in 4 KiB: resident less file-backed (statm).
 * A text page written becomes one (copy on write), as does each page of
 * new memory, a huge page's 512 included: the pages a fresh machine's
 * host must back, which the fault count alone does not tell (one fault
 * maps a whole huge page).
 */
static long anon_pages(void)
{
	long size = 0, resident = 0, shared = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld %ld", &size, &resident, &shared) != 3)
			resident = shared = 0;
		fclose(f);
	}
	return (resident - shared) * (sysconf(_SC_PAGESIZE) / 4096);
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
	long a0 = anon_pages();
	long f0 = minor_faults();
	double t0 = now_ns(CLOCK_MONOTONIC);
	double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	int err = mcount_boot();
	double c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	double t1 = now_ns(CLOCK_MONOTONIC);
	long f1 = minor_faults();
	long a1 = anon_pages();
	double u0, u1;
	long g0, g1, a2;
	int verified;
	double n;

	if (err) {
		fprintf(stderr, "boot: %s\n", mcount_strerror(err));
		return 1;
	}
	g0 = minor_faults();
	u0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	verified = mcount_verify();
	u1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	g1 = minor_faults();
	a2 = anon_pages();
	mcount_get_counts(&c);
	n = c.sites ? c.sites : 1;
	printf("sites %zu patched %zu refused %zu boot_ms %.2f ns_per_site %.1f "
	       "cpu_ns_per_site %.1f faults %ld first_use_cpu_ns_per_site %.1f "
	       "first_use_faults %ld fresh_pages %ld first_use_fresh_pages %ld\n",
	       c.sites, c.patched, c.refused, (t1 - t0) / 1e6, (t1 - t0) / n,
	       (c1 - c0) / n, f1 - f0, (u1 - u0) / n, g1 - g0, a1 - a0, a2 - a1);
	if (verified != 0)
		fprintf(stderr, "boot: verify: %d\n", verified);
	return c.refused != 0 || verified != 0;
}
