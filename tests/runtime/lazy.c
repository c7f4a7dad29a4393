/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lazy.c - the first use of sites after boot (storm_funcs.c's 64
 * functions, hooked as the case says).  Boot may keep a table's sites
 * as runs and make their records only when a call needs them (the
 * engine's image_sites); that call here is the first enable, made while
 * another thread runs the hooked functions.  What the listing says
 * before it must be what it says after, the enabled site aside; the
 * enabled function calls back, and toggling every site while the
 * callers run changes no result.  On x86, one site in the middle of
 * the table is first aimed one byte past its target (a call, or
 * after --finalize --prepatch its disabled form): boot must refuse that
 * one alone, though its bytes match the run's but for the
 * displacement.  Run by run.sh, also on a prepatched copy; prints
 * PASS/FAIL lines and exits 1 on a failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcount.h"
#include "storm.h"

const int mcount_no_autoboot = 1;

/* The table, as lds/mcount.lds gathers it. */
extern const uintptr_t __start_mcount_loc[], __stop_mcount_loc[];

static int failures;
static unsigned long calls_of[STORM_N];
static volatile int stop;
static volatile long wrong;
static int skip = -1;	/* the function whose site retarget_middle aimed */

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
			if (i != skip && storm_fn[i](x) != storm_value(i, x))
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

/*
 * x86: aim the site of the table's middle entry one byte past where its
 * call or disabled form reaches; its table entry, or 0 if there is no
 * such site here.
 */
static uintptr_t retarget_middle(void)
{
#if defined(__x86_64__) || defined(__i386__)
	size_t n = (size_t)(__stop_mcount_loc - __start_mcount_loc);
	uintptr_t at = n ? __start_mcount_loc[n / 2] : 0;
	uint8_t *p = (uint8_t *)at;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = at & ~(uintptr_t)(page - 1);
	unsigned off;
	int32_t rel;

	if (!at)
		return 0;
	off = p[0] == 0x67 ? 2 : 1;
	if (p[off - 1] != 0xe8 && p[off - 1] != 0xa9)
		return 0;
	if (mprotect((void *)lo, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC))
		return 0;
	memcpy(&rel, p + off, sizeof(rel));
	rel++;
	memcpy(p + off, &rel, sizeof(rel));
	mprotect((void *)lo, 2 * page, PROT_READ | PROT_EXEC);
	return at;
#else
	return 0;
#endif
}

/* The function whose bytes hold `at`: the nearest start at or below. */
static int function_at(uintptr_t at)
{
	int best = -1;

	for (int i = 0; i < STORM_N; i++) {
		uintptr_t f = (uintptr_t)storm_fn[i];

		if (f <= at && (best < 0 || f > (uintptr_t)storm_fn[best]))
			best = i;
	}
	return best;
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
	uintptr_t aimed = retarget_middle();
	size_t refused = aimed != 0;
	int r, one;
	unsigned long f;

	skip = aimed ? function_at(aimed) : -1;
	one = skip == 5 ? 6 : 5;	/* a function to enable alone */
	f = (unsigned long)storm_fn[one];

	check(mcount_boot() == MCOUNT_OK, "boot");
	mcount_get_counts(&c);
	n = mcount_site_count();
	check(n == STORM_N && c.refused == refused,
	      aimed ? "every hooked function has a site, the one aimed "
		      "elsewhere refused" :
		      "every hooked function has a site, none refused");
	if (n != STORM_N)
		return 1;
	check(list(before, n), "listing before the first use");
	for (size_t i = 0; i < n; i++) {
		nop += before[i].addr == aimed ?
		       before[i].state == MCOUNT_SITE_REFUSED :
		       before[i].state == MCOUNT_SITE_NOP &&
		       before[i].at >= before[i].addr && before[i].len > 0;
		if (i && before[i].addr <= before[i - 1].addr)
			nop = 0;
	}
	check(nop == n, "before the first use: every site disabled (the "
	      "one aimed elsewhere refused), in order");

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
		storm_fn[one](i);
	check(__atomic_load_n(&calls_of[one], __ATOMIC_RELAXED) >= 3,
	      "the enabled function calls back");
	check(mcount_disable(f) == MCOUNT_OK && mcount_verify() == 0,
	      "disabled again, every site as it should be");

	for (int round = 0; round < 200; round++) {
		r = round % 2 ? mcount_disable_all() : mcount_enable_all();
		if (r != (int)(STORM_N - refused)) {
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
