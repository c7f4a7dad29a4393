/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the writer thread: it drains every thread's ring into the
 * trace file, so the traced threads never write a file themselves.  It
 * drives the two forms, each in a file of its own: the recorder's own
 * (compact.c) and Chrome's trace-event JSON (json.c), over the file's
 * buffer (out.c) and the functions' names (names.c).
 *
 * The thread wakes every millisecond while the rings are quiet, and
 * while they fill, when the fullest would hold a quarter of its room
 * (nap_ns).  That is a guess from the rate it saw last: a thread whose
 * ring passes half full wakes it at once (rec_writer_nudge, ring.c).  A
 * failed write is reported once (out.c); the rings are drained all the
 * same, so a full disk never blocks the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mcount.h>

#include "../runtime/client.h"
#include "attach.h"
#include "recorder.h"

static struct {
	bool json;
	bool stop;
	uint32_t pid;
	pthread_t thread;
	pthread_mutex_t lock;	/* held around each pass over the rings */
	struct rec_clock clock;	/* ticks and ns at the start, at the last
				   pass */
	uint64_t clock_written;	/* ns1 when the last MCT_CLOCK went out */
	unsigned passes;	/* over the rings, so far */
	/* what the writer cost (MCOUNT_TRACE_STATS) */
	uint64_t busy_passes, events;	/* passes that found events, events */
	uint64_t fullest;	/* the most events a ring held at a pass */
	uint64_t longest_pass_ns, longest_gap_ns;	/* wall, and between
							   two passes' starts */
	uint64_t thread_cpu_ns;	/* the writer thread's, at its end */
	uint64_t wakes;		/* naps a ring's mark cut short */
	uint64_t test_nap_ns;	/* MCOUNT_TRACE_TEST_NAP: every nap's */
} w = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The clock's ticks and CLOCK_MONOTONIC at one instant: ticks read on
 * both sides of the clock call, the tightest of a few tries.  A writer
 * preempted between two plain reads would pair ticks with a time
 * milliseconds later, and every timestamp converted through that pair
 * would be off by its share of the recording.
 */
static void clock_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = rec_ticks(), n = now_ns(), b = rec_ticks();

		if (i == 0 || (b >= a && b - a < best)) {
			best = b >= a ? b - a : UINT64_MAX;
			*ticks = a + (b >= a ? (b - a) / 2 : 0);
			*ns = n;
		}
	}
}

static void put_unload(uintptr_t lo, uintptr_t hi, uint64_t ticks)
{
	if (!w.json)
		rec_compact_unload(lo, hi, ticks);
}

static void put_events(struct rec_thread *t, const struct mct_event *e,
		       size_t n)
{
	if (w.json)
		rec_json_events(t, e, n, &w.clock);
	else
		rec_compact_events(t->tid, e, n);
}

static void put_lost(struct rec_thread *t)
{
	if (!w.json)
		rec_compact_lost(t);
}

/* A library came or went since the last look: the names' caches forget. */
static void caches_check(void)
{
	if (rec_names_check())
		rec_compact_forget();
}

/* Write out what thread `t` recorded since the last pass; how many. */
static uint64_t drain(struct rec_thread *t)
{
	uint64_t head, tail, size, n;

	if (t->unmapped)
		return 0;
	head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	caches_check();		/* after: a library these events ran in */
	tail = t->tail;
	size = t->mask + 1;
	n = head - tail;
	if (!t->populated && head >= size / 16)
		rec_ring_populate(t);
	while (tail != head) {
		uint64_t at = tail & t->mask;
		uint64_t k = head - tail < size - at ? head - tail : size - at;

		if (k > REC_BLOCK_EVENTS)
			k = REC_BLOCK_EVENTS;
		put_events(t, &t->ring[at], (size_t)k);
		tail += k;
		__atomic_store_n(&t->tail, tail, __ATOMIC_RELEASE);
	}
	put_lost(t);
	if (__atomic_load_n(&t->dead, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&t->head, __ATOMIC_ACQUIRE) == tail) {
		rec_thread_unmap(t);
		rec_json_thread_gone(t);
	}
	return n;
}

static void put_clock(void)
{
	if (!w.json)
		rec_compact_clock(&w.clock);
	w.clock_written = w.clock.ns1;
}

/*
 * The names of libraries closed before the last pass: every ring has
 * been drained since, so no event to come ran in them (libs.c).
 */
static void release_names(void)
{
	rec_names_release(w.passes, rec_json_names_in);
}

/* The first MCT_CLOCK's instants this far apart at least; then this often. */
#define CLOCK_FIRST_NS 1000000u
#define CLOCK_EVERY_NS 1000000000u

/*
 * Whether an MCT_CLOCK is due (format.h), so that a trace cut short at
 * any byte keeps one: the first once the start and the last pass are
 * CLOCK_FIRST_NS apart, then whenever the span since the start has
 * doubled (each sharper than the one before), and at least every
 * CLOCK_EVERY_NS.  The one the start writes has two equal instants: it
 * converts nothing.
 */
static bool clock_due(void)
{
	uint64_t span = w.clock.ns1 - w.clock.ns0;
	uint64_t had = w.clock_written - w.clock.ns0;

	if (span < CLOCK_FIRST_NS)
		return false;
	return span >= 2 * had || w.clock.ns1 - w.clock_written >=
				  CLOCK_EVERY_NS;
}

/* Drain every ring; the most events one of them held. */
static uint64_t pass(void)
{
	uint64_t fullest = 0, all = 0;

	pthread_mutex_lock(&w.lock);
	w.passes++;
	clock_pair(&w.clock.t1, &w.clock.ns1);
	for (struct rec_thread *t = __atomic_load_n(&rec_threads,
						    __ATOMIC_ACQUIRE);
	     t; t = t->next) {
		uint64_t n = drain(t);

		all += n;
		if (n > fullest)
			fullest = n;
	}
	if (fullest > w.fullest)
		w.fullest = fullest;
	release_names();
	rec_libs_unloads(put_unload, w.passes);
	if (clock_due())
		put_clock();
	rec_out_flush();
	w.busy_passes += all != 0;
	w.events += all;
	pthread_mutex_unlock(&w.lock);
	return fullest;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * How long the writer sleeps after a pass that found `fullest` events in
 * one ring, `since` ns after the pass before: until that ring, filling
 * as fast, holds a quarter of its room.  The writer then reads lines
 * the traced thread wrote milliseconds ago, long gone from its cache,
 * in a few large passes: one that woke often would, with a CPU of its
 * own, chase the traced threads through their rings' newest lines, and
 * every call would pay for the lines moved between the two CPUs, and
 * the writer for each wake-up (bench/RESULTS.md).  A quarter leaves the
 * thread room to write four times as fast meanwhile.  At least 100 us,
 * and at most the time a thread writing an event every 4 ns takes to
 * fill half its ring (1 ms for smaller rings, as when all are empty):
 * a thread quiet for a while may start writing at full speed, and one
 * whose ring passes half full cuts the nap short anyway
 * (rec_ring_mind_mark, ring.h).  A ring found half full or more says
 * the writer is late: no sleep.
 */
static uint64_t nap_ns(uint64_t fullest, uint64_t since)
{
	uint64_t ring = rec_cfg.ring_events, most = ring * 2, ns;

	if (most < 1000000)
		most = 1000000;
	if (!fullest)
		return 1000000;
	if (fullest >= ring / 2)
		return 0;
	ns = (uint64_t)((double)since * (double)(ring / 4) / (double)fullest);
	if (ns < 100000)
		return 100000;
	return ns < most ? ns : most;
}

/* MCOUNT_TRACE_STATS: the longest gap between passes, and pass. */
static void note_times(uint64_t gap, uint64_t took)
{
	if (gap > w.longest_gap_ns)
		w.longest_gap_ns = gap;
	if (took > w.longest_pass_ns)
		w.longest_pass_ns = took;
}

static void *writer_main(void *arg)
{
	uint64_t last = now_ns();

	(void)arg;
	rec_tls.writer = true;
	while (!__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE)) {
		uint64_t fullest, ns, phase;

		phase = rec_phases_due();
		rec_libs_settle(false);	/* loaded not by our dlopen */
		/* before the pass: a ring past its mark in it wakes the nap */
		__atomic_store_n(&rec_writer_nudged, 0, __ATOMIC_RELEASE);
		fullest = pass();
		note_times(w.clock.ns1 - last, now_ns() - w.clock.ns1);
		ns = nap_ns(fullest, w.clock.ns1 - last);
		if (w.test_nap_ns)
			ns = w.test_nap_ns;
		if (ns > phase)	/* mctrace --at: on time */
			ns = phase;
		last = w.clock.ns1;
		if (ns && rec_writer_nap(ns) &&
		    !__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE))
			w.wakes++;	/* a ring's mark; not the end */
	}
	w.thread_cpu_ns = thread_cpu_ns();
	return NULL;
}

/* Every thread's lost calls by reason; their sum. */
static uint64_t sum_lost(uint64_t why[MCT_LOST_WHYS])
{
	uint64_t lost = 0;

	memset(why, 0, MCT_LOST_WHYS * sizeof(*why));
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		for (unsigned k = 0; k < MCT_LOST_WHYS; k++) {
			why[k] += t->lost[k];
			lost += t->lost[k];
		}
	return lost;
}

/* "mcount: trace: 9 calls not recorded: 5 buffers full, 4 ..." */
static void say_lost(uint64_t lost, const uint64_t why[MCT_LOST_WHYS])
{
	const char *sep = ": ";

	if (!lost)
		return;
	fprintf(stderr, "mcount: trace: %llu calls not recorded",
		(unsigned long long)lost);
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		if (why[k]) {
			fprintf(stderr, "%s%llu %s", sep,
				(unsigned long long)why[k],
				mct_lost_why_text(k));
			sep = ", ";
		}
	fputc('\n', stderr);
}

/*
 * What would have kept the calls an option can keep: a larger ring for
 * buffers full (and for a shadow stack that half the ring held short),
 * or a thread that waits for room (ring.c).
 */
static void say_remedy(const uint64_t why[MCT_LOST_WHYS])
{
	if (why[MCT_LOST_RING])
		fprintf(stderr, "mcount: trace: buffers full: %sa larger ring "
			"keeps them (mctrace record --bufsize EVENTS, or "
			"MCOUNT_TRACE_BUFSIZE; now %zu)\n",
			rec_cfg.nowait ? "waiting for room (MCOUNT_TRACE_NOWAIT "
					 "unset) or " : "",
			rec_cfg.ring_events);
	if (why[MCT_LOST_SHADOW] && rec_cfg.max_frames < REC_MAX_FRAMES)
		fprintf(stderr, "mcount: trace: shadow stack full: a larger "
			"ring holds a deeper one (mctrace record --bufsize "
			"EVENTS, or MCOUNT_TRACE_BUFSIZE; now %zu frames)\n",
			rec_cfg.max_frames);
}

/* What the recording is of (info.c), in the recorder's own form. */
static void put_info(void)
{
	size_t len = 0;
	char *info = rec_info(w.clock.t0, &len);

	if (info)
		rec_compact_info(w.pid, info, len);
	free(info);
}

/*
 * MCOUNT_TRACE_TEST_NAP=NS, for tests: the writer sleeps NS after every
 * pass, whatever it guessed, as one kept off its CPU would, so that only
 * a ring's mark wakes it in time.  0 (unset): its own guess.
 */
static uint64_t test_nap_ns(void)
{
	const char *v = getenv("MCOUNT_TRACE_TEST_NAP");

	return v ? strtoull(v, NULL, 10) : 0;
}

/*
 * Open `path` (truncated, or created new when !truncate) and start the
 * writer thread.  0, or -1 with errno.
 */
int rec_writer_start(const char *path, bool truncate)
{
	sigset_t all, old;
	int err;

	static bool before;

	if (rec_out_open(path, truncate) < 0)
		return -1;
	/* a file after another (attach.c): every name is new to it */
	if (before) {
		rec_names_fork_child();
		rec_compact_forget();
		rec_json_fork_child();
	}
	before = true;
	w.json = rec_cfg.json;
	w.stop = false;
	w.busy_passes = w.events = w.thread_cpu_ns = 0;
	w.fullest = w.longest_pass_ns = w.longest_gap_ns = w.wakes = 0;
	w.test_nap_ns = test_nap_ns();
	w.pid = (uint32_t)getpid();
	clock_pair(&w.clock.t0, &w.clock.ns0);
	w.clock.t1 = w.clock.t0;
	w.clock.ns1 = w.clock.ns0;
	w.clock_written = 0;
	if (w.json) {
		rec_json_start(w.pid);
	} else {
		rec_compact_header(w.pid);
		put_info();
		put_clock();
	}
	/* the program's signals are the program's: none for the writer */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		rec_out_drop();
		errno = err;
		return -1;
	}
	/* told apart from the program's own (mctrace record -p's stop) */
	pthread_setname_np(w.thread, MC_ATTACH_WRITER_NAME);
	return 0;
}

/*
 * MCOUNT_TRACE_STATS: what the writer cost, apart from the traced
 * threads (a process's CPU time holds both): the writer thread's CPU
 * time, and the last pass's, which the exiting thread runs.
 */
static void report_stats(uint64_t last_pass_ns)
{
	if (!rec_cfg.stats)
		return;
	fprintf(stderr, "mcount: trace: writer thread CPU %llu ns, "
		"last pass %llu ns, %llu passes, %llu events\n",
		(unsigned long long)w.thread_cpu_ns,
		(unsigned long long)last_pass_ns,
		(unsigned long long)w.busy_passes, (unsigned long long)w.events);
	fprintf(stderr, "mcount: trace: fullest ring %llu of %zu events, "
		"longest pass %llu ns, longest gap between passes %llu ns, "
		"%llu naps cut short by a ring past half full\n",
		(unsigned long long)w.fullest, rec_cfg.ring_events,
		(unsigned long long)w.longest_pass_ns,
		(unsigned long long)w.longest_gap_ns,
		(unsigned long long)w.wakes);
}

/* Stop the thread, write what is left and the trailer, close. */
void rec_writer_stop(void)
{
	uint64_t lost, why[MCT_LOST_WHYS], last_pass_ns;

	if (!rec_out_is_open())
		return;
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	__atomic_store_n(&rec_writer_nudged, 0, __ATOMIC_RELEASE);
	rec_writer_nudge();	/* out of its nap now */
	pthread_join(w.thread, NULL);
	last_pass_ns = thread_cpu_ns();
	pass();
	last_pass_ns = thread_cpu_ns() - last_pass_ns;
	report_stats(last_pass_ns);
	pthread_mutex_lock(&w.lock);
	lost = sum_lost(why);
	say_lost(lost, why);
	say_remedy(why);
	if (w.json) {
		rec_json_end(lost, why);
	} else {
		for (struct rec_thread *t = rec_threads; t; t = t->next)
			put_lost(t);
		put_clock();
	}
	rec_out_close();
	pthread_mutex_unlock(&w.lock);
}

/* fork: no pass may be half done in the child. */
void rec_writer_fork_prepare(void)
{
	pthread_mutex_lock(&w.lock);
}

void rec_writer_fork_parent(void)
{
	pthread_mutex_unlock(&w.lock);
}

/*
 * In the child: the parent's writer thread and file are not ours (the
 * file is closed without a trailer); start() opens the child's own.
 */
void rec_writer_fork_child(void)
{
	pthread_mutex_init(&w.lock, NULL);
	rec_out_drop();
	rec_names_fork_child();
	rec_compact_forget();
	rec_json_fork_child();
}
