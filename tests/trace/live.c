/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live.c - what is recorded changes while the program runs, through
 * the mcount(3) API (tests/trace/run.sh).  Recorded with nothing
 * enabled at start (mctrace record -N '*'), it turns functions on and
 * off itself; the trace must hold exactly the calls made while each
 * was on:
 *
 *   alpha  7 (5 calls before its enable are not recorded, 4 after its
 *            disable neither)
 *   beta   3 (7 before its enable by "live:beta" are not)
 *   gamma  whatever a second thread made while main toggled it 200
 *          times: the events still nest (check.py json)
 * Prints "alpha beta" as it expects them, for the suite to compare.
 *
 * `live at`: recorded with mctrace record -N '*' --at T1 -F 'alp*'
 * --at T2 -N '*', it calls alpha 5 times, waits until the recorder has
 * enabled alpha, calls it 7 times, waits until it is off again, calls
 * it 4 times: the trace must hold the 7 only.  Prints "alpha 7".
 *
 * `live unnamed`: built stripped, so that no function has a symbol,
 * and recorded with none enabled (mctrace record -F NOTHING), it
 * enables alpha's site itself, by its address, and calls alpha 5
 * times.  Where the recorder reads -pg prologues (aarch64, arm,
 * riscv64) it could not read this one (no symbol says where it
 * starts): the 5 calls are lost, "return address not found".
 * Elsewhere they are recorded.  Prints "alpha 5".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mcount.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
static volatile int stop;
static unsigned long spins;

NOINLINE int alpha(int x) { sink += x; return x + 1; }
NOINLINE int beta(int x) { sink -= x; return alpha(x) - 1; }
NOINLINE int gamma_(int x) { sink ^= x; return x; }

NOINLINE static void *spinner(void *arg)
{
	(void)arg;
	while (!stop) {
		gamma_(1);
		__atomic_add_fetch(&spins, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int site_state(const struct mcount_site_info *s, void *arg)
{
	(void)arg;
	if (s->at - (unsigned long)alpha < 16)
		return s->state == MCOUNT_SITE_ENABLED ? 1 : 2;
	return 0;
}

/* Wait (up to a minute) until alpha's site is on or off. */
static int wait_alpha(bool on)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 60000; i++) {
		if (mcount_for_each_site(site_state, NULL) == (on ? 1 : 2))
			return 0;
		nanosleep(&ms, NULL);
	}
	return 1;
}

static int at_mode(void)
{
	int bad = 0;

	for (int i = 0; i < 5; i++)
		alpha(i);
	bad |= wait_alpha(true);
	for (int i = 0; i < 7; i++)
		alpha(i);
	bad |= wait_alpha(false);
	for (int i = 0; i < 4; i++)
		alpha(i);
	printf("alpha 7\n");
	return bad;
}

/*
 * The site in alpha: the first at or after its start.  (Its name must
 * not match main's "alp*".)
 */
static int site_in_alpha(const struct mcount_site_info *s, void *arg)
{
	unsigned long *at = arg;

	if (s->at >= (unsigned long)alpha && s->at - (unsigned long)alpha < 64 &&
	    (!*at || s->at < *at))
		*at = s->at;
	return 0;
}

static int unnamed_mode(void)
{
	unsigned long at = 0;

	mcount_for_each_site(site_in_alpha, &at);
	if (!at || mcount_enable(at) != MCOUNT_OK) {
		fprintf(stderr, "live: cannot enable alpha's site\n");
		return 1;
	}
	for (int i = 0; i < 5; i++)
		alpha(i);
	printf("alpha 5\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int bad = 0;

	if (argc > 1 && !strcmp(argv[1], "at"))
		return at_mode();
	if (argc > 1 && !strcmp(argv[1], "unnamed"))
		return unnamed_mode();

	for (int i = 0; i < 5; i++)
		alpha(i);
	bad |= mcount_enable_glob("alp*") != 1;
	for (int i = 0; i < 7; i++)
		beta(i);	/* alpha recorded: 7 calls, inside beta */
	bad |= mcount_enable_name("live:beta") != MCOUNT_OK;
	bad |= mcount_disable_name("alpha") != MCOUNT_OK;
	for (int i = 0; i < 3; i++)
		beta(i);	/* beta recorded, alpha not */
	bad |= mcount_disable_glob("*") < 0;
	for (int i = 0; i < 4; i++)
		beta(i);
	pthread_create(&t, NULL, spinner, NULL);
	for (int i = 0; i < 200; i++) {
		unsigned long seen;

		bad |= mcount_enable_name("gamma_") != MCOUNT_OK;
		/* a few calls while it is on (the spinner's, on its thread) */
		seen = __atomic_load_n(&spins, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&spins, __ATOMIC_ACQUIRE) < seen + 2)
			sched_yield();
		bad |= mcount_disable_name("gamma_") != MCOUNT_OK;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("alpha 7 beta 3\n");
	return bad;
}
