/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * storm.c - the toggle storm: worker threads call 64 hooked functions
 * (storm_funcs.c) and check every result, while two toggler threads
 * enable and disable them at random, one at a time and in batches, by
 * address, by name, by glob and all at once; a timer signal runs hooked
 * code on whichever thread it lands, callbacks included.
 *
 *   storm [seconds]   (default 2; STORM_SECONDS in the environment too)
 *
 * Each function has a state the togglers keep: OFF, ENABLING (set
 * before the enable call), ON (after it returned), DISABLING (before
 * the disable call), then OFF again once that returned; every change
 * bumps its generation.  A worker reads both before and after each
 * call.  If the generation did not move, the call ran wholly in one
 * state: OFF must give no callback, ON must give exactly one, naming
 * the function called.  A callback with the generation moved must
 * still name the function called.  Any other outcome, a wrong result,
 * or a crash fails the run.  Prints "N passed, M failed".
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <mcount.h>

#include "storm.h"

#define WORKERS 4
#define TOGGLERS 2

enum { OFF, ENABLING, ON, DISABLING };

static atomic_int state[STORM_N];
static atomic_ulong gen[STORM_N];
static atomic_bool stop;
static atomic_ulong calls, callbacks, toggles, sig_calls, nested_blocked;
static atomic_int failed;
static pthread_rwlock_t all_lock = PTHREAD_RWLOCK_INITIALIZER;

static _Thread_local unsigned long cb_func;
static _Thread_local int cb_count, cb_depth;

static void fail(const char *what, int i)
{
	if (atomic_fetch_add(&failed, 1) < 20)
		fprintf(stderr, "storm: %s (%s)\n", what,
			i >= 0 ? storm_name[i] : "-");
}

static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/*
 * The callback: note what it names, and call a hooked function itself
 * now and then: the per-thread guard must keep that from calling back.
 */
MCOUNT_NOTRACE static void on_entry(unsigned long func, unsigned long caller)
{
	(void)caller;
	atomic_fetch_add_explicit(&callbacks, 1, memory_order_relaxed);
	if (++cb_depth > 1)
		fail("callback re-entered on one thread", -1);
	cb_func = func;
	cb_count++;
	if ((func >> 4) % 7 == 0) {
		int saved = cb_count;

		if (storm_fn[5](2) != storm_value(5, 2))
			fail("wrong result inside the callback", 5);
		if (cb_count != saved)
			fail("hook inside the callback called back", 5);
		atomic_fetch_add_explicit(&nested_blocked, 1,
					  memory_order_relaxed);
	}
	cb_depth--;
}

/* A signal that runs hooked code on whatever thread it interrupts. */
MCOUNT_NOTRACE static void on_signal(int sig)
{
	int saved = cb_count;
	unsigned long saved_func = cb_func;

	(void)sig;
	if (storm_fn[9](3) != storm_value(9, 3))
		fail("wrong result in a signal handler", 9);
	/* the handler's own callback, if any, is not the interrupted call's */
	cb_count = saved;
	cb_func = saved_func;
	atomic_fetch_add_explicit(&sig_calls, 1, memory_order_relaxed);
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;

	while (!atomic_load(&stop)) {
		int i = (int)(next_rand(&seed) % STORM_N);
		long x = (long)(next_rand(&seed) % 1000);
		unsigned long g0, g1;
		int s0;
		long r;

		g0 = atomic_load(&gen[i]);
		s0 = atomic_load(&state[i]);
		cb_count = 0;
		cb_func = 0;
		r = storm_fn[i](x);
		g1 = atomic_load(&gen[i]);
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
		if (r != storm_value(i, x))
			fail("wrong result", i);
		if (cb_count > 1)
			fail("more than one callback for one call", i);
		if (cb_count && cb_func != (unsigned long)storm_fn[i])
			fail("callback names another function", i);
		if (g0 != g1)
			continue;
		if (s0 == OFF && cb_count)
			fail("callback while disabled the whole call", i);
		if (s0 == ON && !cb_count)
			fail("no callback while enabled the whole call", i);
	}
	return NULL;
}

static size_t refused_sites(void)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	return c.refused;
}

static void mark(int i, int st)
{
	atomic_store(&state[i], st);
	atomic_fetch_add(&gen[i], 1);
}

/* Turn the functions of `set` (STORM_N flags) on or off in one call. */
static void toggle_set(const char *set, bool on, int how, const char *glob)
{
	unsigned long funcs[STORM_N];
	size_t n = 0;
	int r = 0;

	for (int i = 0; i < STORM_N; i++)
		if (set[i]) {
			funcs[n++] = (unsigned long)storm_fn[i];
			if (on)
				mark(i, ENABLING);
			else
				mark(i, DISABLING);
		}
	if (!n)
		return;
	switch (how) {
	case 0:			/* one at a time, by address */
		for (int i = 0; i < STORM_N; i++)
			if (set[i] && (on ?
				       mcount_enable((unsigned long)storm_fn[i]) :
				       mcount_disable((unsigned long)storm_fn[i])))
				fail("enable/disable by address", i);
		break;
	case 1:			/* one at a time, by name */
		for (int i = 0; i < STORM_N; i++)
			if (set[i] && (on ? mcount_enable_name(storm_name[i]) :
				       mcount_disable_name(storm_name[i])))
				fail("enable/disable by name", i);
		break;
#ifndef STORM_SINGLE_ONLY
	case 2:			/* one batch of addresses */
		r = on ? mcount_enable_many(funcs, n) :
			 mcount_disable_many(funcs, n);
		if (r != (int)n)
			fail("batch by address", -1);
		break;
	case 3:			/* a glob */
		r = on ? mcount_enable_glob(glob) : mcount_disable_glob(glob);
		if (r != (int)n)
			fail("batch by glob", -1);
		break;
	case 4:			/* everything */
		/* (a sanitizer's constructors may have sites of their own) */
		r = on ? mcount_enable_all() : mcount_disable_all();
		if (r < STORM_N || (size_t)r != mcount_site_count() -
					  refused_sites())
			fail("enable/disable all", -1);
		break;
#endif
	}
	for (int i = 0; i < STORM_N; i++)
		if (set[i])
			mark(i, on ? ON : OFF);
	atomic_fetch_add_explicit(&toggles, n, memory_order_relaxed);
}

/* Toggler t owns set a (t = 0) or b (t = 1); "all" locks both out. */
static void *toggler(void *arg)
{
	int t = (int)(uintptr_t)arg, base = t * STORM_HALF;
	unsigned seed = 4242u + (unsigned)t;
	char glob[32];

	while (!atomic_load(&stop)) {
		char set[STORM_N] = { 0 };
		unsigned op = next_rand(&seed) % 16;
		bool on = next_rand(&seed) % 2;
		int how;

#ifdef STORM_SINGLE_ONLY	/* a runtime without the batch calls */
		op = 1 + op % 2;
#endif
		if (op == 0 && t == 0) {	/* rarely: all, alone */
			memset(set, 1, sizeof(set));
			pthread_rwlock_wrlock(&all_lock);
			toggle_set(set, on, 4, NULL);
			pthread_rwlock_unlock(&all_lock);
			continue;
		}
		how = (int)(op % 4);
		if (how == 3) {
			snprintf(glob, sizeof(glob), "storm_%c_%u*",
				 'a' + t, next_rand(&seed) % 4);
			for (int i = 0; i < STORM_HALF; i++)
				set[base + i] = fnmatch(glob,
					storm_name[base + i], 0) == 0;
		} else {
			unsigned k = how == 2 ? 1 + next_rand(&seed) % 16 : 1;

			while (k--)
				set[base + next_rand(&seed) % STORM_HALF] = 1;
		}
		pthread_rwlock_rdlock(&all_lock);
		toggle_set(set, on, how, glob);
		pthread_rwlock_unlock(&all_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *env = getenv("STORM_SECONDS");
	double seconds = argc > 1 ? atof(argv[1]) : env ? atof(env) : 2;
	pthread_t w[WORKERS], tg[TOGGLERS];
	struct itimerval tick = { { 0, 2000 }, { 0, 2000 } };
	struct timespec nap = { 0, 10 * 1000 * 1000 }, now;
	double end;
	struct mcount_counts c;
	int checks = 0, bad = 0;

	if (!mcount_booted() || mcount_site_count() < STORM_N) {
		fprintf(stderr, "storm: not booted, or fewer than %d sites\n",
			STORM_N);
		return 2;
	}
	mcount_set_callback(on_entry);
	signal(SIGALRM, on_signal);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)i);
	for (long i = 0; i < TOGGLERS; i++)
		pthread_create(&tg[i], NULL, toggler, (void *)i);
	setitimer(ITIMER_REAL, &tick, NULL);
	/* the timer's signals cut sleeps short: sleep until the deadline */
	clock_gettime(CLOCK_MONOTONIC, &now);
	end = now.tv_sec + now.tv_nsec / 1e9 + seconds;
	while (now.tv_sec + now.tv_nsec / 1e9 < end) {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < TOGGLERS; i++)
		pthread_join(tg[i], NULL);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	memset(&tick, 0, sizeof(tick));
	setitimer(ITIMER_REAL, &tick, NULL);

#define CHECK(cond, what)						\
	do {								\
		checks++;						\
		if (cond) {						\
			printf("PASS: storm: %s\n", what);		\
		} else {						\
			printf("FAIL: storm: %s\n", what);		\
			bad++;						\
		}							\
	} while (0)
	printf("storm: %lu calls, %lu callbacks, %lu toggles, %lu signal "
	       "calls, %lu nested hooks held back, %.1f s\n",
	       atomic_load(&calls), atomic_load(&callbacks),
	       atomic_load(&toggles), atomic_load(&sig_calls),
	       atomic_load(&nested_blocked), seconds);
	CHECK(atomic_load(&failed) == 0,
	      "every result right, every callback in an enabled window");
	CHECK(atomic_load(&calls) > 0 && atomic_load(&callbacks) > 0 &&
	      atomic_load(&toggles) > 0, "calls, callbacks and toggles all ran");
#ifdef STORM_SINGLE_ONLY
	for (int i = 0; i < STORM_N; i++)
		mcount_disable((unsigned long)storm_fn[i]);
#else
	CHECK(mcount_disable_all() >= STORM_N, "disable all at the end");
#endif
	mcount_get_counts(&c);
	CHECK(c.enabled == 0 && mcount_verify() == 0,
	      "every site holds what the engine wrote (mcount_verify)");
	printf("%d passed, %d failed\n", checks - bad, bad);
	return bad ? 1 : 0;
}
