/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lazy_enomem.c - the first use of sites after boot when the platform
 * has no storage for their records: with the address space capped
 * (RLIMIT_AS) after boot, the first call that needs the records
 * (mcount_verify, then mcount_enable) must return MCOUNT_ENOMEM and
 * change nothing; with the cap lifted, the same calls work.  A boot
 * that made its records already answers 0 to the verify and fails
 * here.  Native only (run.sh): under qemu-user the cap would bound the
 * emulator's own mappings.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mcount.h"

const int mcount_no_autoboot = 1;

long many_000(long x);

static int failures;
static unsigned long called;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

static void on_call(unsigned long func, unsigned long caller)
{
	(void)caller;
	called += func == (unsigned long)many_000;
}

/* The address space in use now, in bytes (statm's first field). */
static unsigned long address_space(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (unsigned long)sysconf(_SC_PAGESIZE);
}

int main(void)
{
	struct rlimit was, cap;
	struct mcount_counts c;
	struct mcount_site_info s;
	int verified, enabled;

	check(mcount_boot() == MCOUNT_OK, "boot");
	mcount_get_counts(&c);
	check(c.sites >= 6000 && c.refused == 0, "6,000 sites, none refused");
	mcount_set_callback(on_call);
	if (getrlimit(RLIMIT_AS, &was) != 0 || address_space() == 0) {
		check(0, "read the address space and its limit");
		return 1;
	}
	cap = was;
	cap.rlim_cur = address_space() + 16 * 1024;
	check(setrlimit(RLIMIT_AS, &cap) == 0, "cap the address space");
	verified = mcount_verify();
	enabled = mcount_enable((unsigned long)many_000);
	setrlimit(RLIMIT_AS, &was);
	printf("capped: verify %d, enable %d\n", verified, enabled);
	check(verified == MCOUNT_ENOMEM && enabled == MCOUNT_ENOMEM,
	      "no storage for the records: the first use says MCOUNT_ENOMEM");
	many_000(1);
	mcount_get_counts(&c);
	check(called == 0 && c.enabled == 0 &&
	      mcount_site_get(0, &s) == MCOUNT_OK &&
	      s.state == MCOUNT_SITE_NOP,
	      "and nothing changed: no site enabled, none calls back");
	check(mcount_verify() == 0 &&
	      mcount_enable((unsigned long)many_000) == MCOUNT_OK,
	      "with storage again: verify and enable work");
	many_000(1);
	check(called == 1, "the enabled function calls back");
	printf("%s\n", failures ? "lazy_enomem: FAILED" : "lazy_enomem: all passed");
	return failures != 0;
}
