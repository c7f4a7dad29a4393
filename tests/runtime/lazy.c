/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lazy.c - the first use of sites after boot (storm_funcs.c's 64
 * functions, hooked as the case says).  Boot may keep a table's sites
 * as runs and make their records only when a call needs them (the
 * engine's image_sites); that call here is the first enable, made while
 * another thread runs the hooked functions.  What the listing says
 * before it must be what it says after, the enabled site aside; the
 * enabled function calls back, and toggling every site while the
 * callers run changes no result.  Run by run.sh; prints PASS/FAIL lines
 * and exits 1 on a failure.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mcount.h"
#include "storm.h"

const int mcount_no_autoboot = 1;

static int failures;
static unsigned long calls_of[STORM_N];
static volatile int stop;
static volatile long wrong;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

static void on_call(unsigned long func, unsigned long caller)
{
	(void)caller;
	for (int i = 0; i < STORM_N; i++)
		if (func == (unsigned long)storm_fn[i])
			__atomic_fetch_add(&calls_of[i], 1, __ATOMIC_RELAXED);
}

static void *caller(void *arg)
{
	(void)arg;
	for (long x = 0; !stop; x++)
		for (int i = 0; i < STORM_N; i++)
			if (storm_fn[i](x) != storm_value(i, x))
				wrong++;
	return NULL;
}

/* The listing, every site, in out[0, n); false if it cannot be read. */
static int list(struct mcount_site_info *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (mcount_site_get(i, &out[i]) != MCOUNT_OK)
			return 0;
	return 1;
}

static int same_site(const struct mcount_site_info *a,
		     const struct mcount_site_info *b)
{
	return a->addr == b->addr && a->at == b->at && a->len == b->len &&
	       a->style == b->style && a->state == b->state;
}

int main(void)
{
	static struct mcount_site_info before[STORM_N], after[STORM_N];
	struct mcount_counts c;
	pthread_t t;
	size_t n, same = 0, nop = 0, hit = STORM_N;
	unsigned long f = (unsigned long)storm_fn[5];
	int r;

	check(mcount_boot() == MCOUNT_OK, "boot");
	mcount_get_counts(&c);
	n = mcount_site_count();
	check(n == STORM_N && c.refused == 0,
	      "every hooked function has a site, none refused");
	if (n != STORM_N)
		return 1;
	check(list(before, n), "listing before the first use");
	for (size_t i = 0; i < n; i++) {
		nop += before[i].state == MCOUNT_SITE_NOP &&
		       before[i].at >= before[i].addr && before[i].len > 0;
		if (i && before[i].addr <= before[i - 1].addr)
			nop = 0;
	}
	check(nop == n, "before the first use: every site disabled, in order");

	mcount_set_callback(on_call);
	if (pthread_create(&t, NULL, caller, NULL) != 0) {
		check(0, "caller thread");
		return 1;
	}
	check(mcount_enable(f) == MCOUNT_OK,
	      "first enable, while a thread runs the hooked code");
	check(list(after, n), "listing after the first use");
	for (size_t i = 0; i < n; i++) {
		if (after[i].state == MCOUNT_SITE_ENABLED) {
			hit = i;
			continue;
		}
		same += same_site(&before[i], &after[i]);
	}
	check(same == n - 1 && hit < n && after[hit].func == f &&
	      after[hit].addr == before[hit].addr &&
	      after[hit].at == before[hit].at &&
	      after[hit].len == before[hit].len &&
	      after[hit].style == before[hit].style,
	      "the records made at first use say what the listing said");
	for (int i = 0; i < 3; i++)
		storm_fn[5](i);
	check(__atomic_load_n(&calls_of[5], __ATOMIC_RELAXED) >= 3,
	      "the enabled function calls back");
	check(mcount_disable(f) == MCOUNT_OK && mcount_verify() == 0,
	      "disabled again, every site as it should be");

	for (int round = 0; round < 200; round++) {
		r = round % 2 ? mcount_disable_all() : mcount_enable_all();
		if (r != STORM_N) {
			check(0, "toggling every site while the callers run");
			break;
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	check(wrong == 0, "no hooked function returned a wrong value");
	mcount_get_counts(&c);
	check(mcount_verify() == 0 && c.enabled == 0,
	      "after the toggling: every site disabled and verified");
	printf("%s\n", failures ? "lazy: FAILED" : "lazy: all passed");
	return failures != 0;
}
