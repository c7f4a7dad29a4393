/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the threads' rings: their memory (with the shadow stack and
 * the unwind's fixes, which live and die with the ring), the list the
 * writer walks, and the word a thread wakes the writer by.  The traced
 * thread's side of a ring is ring.h's; the writer's, writer.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"

struct rec_thread *rec_threads;

/*
 * 1 once a nudge came since the writer last woke: a wake-up each.  The
 * writer sleeps on it (a futex) while it is 0.
 */
uint32_t rec_writer_nudged;

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct rec_thread *rec_thread_alloc(void)
{
	struct rec_thread *t = map(sizeof(*t));

	if (!t)
		return NULL;
	t->ring = map(rec_cfg.ring_events * sizeof(*t->ring));
	t->frames = map(REC_FRAMES_BYTES(rec_cfg.max_frames));
	t->fixes = map(2 * rec_cfg.max_frames * sizeof(*t->fixes));
	if (!t->ring || !t->frames || !t->fixes) {
		if (t->ring)
			munmap(t->ring, rec_cfg.ring_events * sizeof(*t->ring));
		if (t->frames)
			munmap(t->frames, REC_FRAMES_BYTES(rec_cfg.max_frames));
		munmap(t, sizeof(*t));
		return NULL;
	}
	/* the guard below the first frame (recorder.h) */
	t->frames->key = UINTPTR_MAX;
	t->frames++;
	t->mask = rec_cfg.ring_events - 1;
	t->mark = rec_cfg.ring_events / 2;
	t->max_frames = rec_cfg.max_frames;
	t->stuck_tail = UINT64_MAX;
	return t;
}

/*
 * The writer's, once thread `t` has written a sixteenth of its ring: the
 * rest of the ring's pages made in one call, rather than by a fault at
 * the thread's first write to each.  A fault costs the traced thread
 * several times what a page made in bulk costs (bench/RESULTS.md,
 * 6 December 2026), and a thread that writes that much goes round its
 * whole ring soon; one that records a few calls keeps only the pages
 * it wrote.  The thread may be writing meanwhile: a page it already
 * has stays as it is.  Without MADV_POPULATE_WRITE (Linux before 5.14)
 * the pages come by faults, as before.
 */
void rec_ring_populate(struct rec_thread *t)
{
	t->populated = true;
#ifdef MADV_POPULATE_WRITE
	(void)madvise(t->ring, (t->mask + 1) * sizeof(*t->ring),
		      MADV_POPULATE_WRITE);
#endif
}

void rec_thread_publish(struct rec_thread *t)
{
	t->next = __atomic_load_n(&rec_threads, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&rec_threads, &t->next, t, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void rec_thread_unmap(struct rec_thread *t)
{
	munmap(t->ring, (t->mask + 1) * sizeof(*t->ring));
	munmap(t->frames - 1, REC_FRAMES_BYTES(t->max_frames));
	munmap(t->fixes, 2 * t->max_frames * sizeof(*t->fixes));
	t->unmapped = true;
}

/*
 * A thread's ring passed its mark (ring.h), or the recording ends: the
 * writer stops sleeping.  Called from a traced thread, anywhere (a
 * signal handler too): at most one system call, not a cancellation
 * point, errno as it was.
 */
void rec_writer_nudge(void)
{
	int saved = errno;

	if (__atomic_exchange_n(&rec_writer_nudged, 1, __ATOMIC_ACQ_REL))
		return;
#ifdef SYS_futex
	(void)syscall(SYS_futex, &rec_writer_nudged, FUTEX_WAKE_PRIVATE, 1,
		      NULL, NULL, 0);
#endif
	errno = saved;
}

/*
 * Sleep `ns`, or until `*word` is woken while 0.  SYS_futex takes the
 * kernel's timespec of longs, which on a 32-bit target may not be
 * libc's struct timespec; and through syscall() it is no cancellation
 * point, which a traced thread must not meet inside the recorder.
 */
static void doze(uint32_t *word, uint64_t ns)
{
#ifdef SYS_futex
	struct { long tv_sec, tv_nsec; } ts = {
		(long)(ns / 1000000000u), (long)(ns % 1000000000u) };

	(void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
#else
	struct timespec ts = { (time_t)(ns / 1000000000u),
			       (long)(ns % 1000000000u) };

	(void)word;
	nanosleep(&ts, NULL);
#endif
}

/*
 * Sleep `ns`, or until a nudge (none since `rec_writer_nudged` was last
 * cleared); whether one came.
 */
bool rec_writer_nap(uint64_t ns)
{
	doze(&rec_writer_nudged, ns);
	return __atomic_load_n(&rec_writer_nudged, __ATOMIC_ACQUIRE) != 0;
}

/* Between two looks at a full ring, and how long with no room made. */
#define WAIT_STEP_NS 50000u
#define WAIT_MOST_NS 200000000u

/*
 * A call whose ring is full waits for the writer to drain it rather than
 * be lost: on a machine whose other cores are busy, the writer may not
 * run for longer than a hot loop takes to fill any ring.  The thread
 * wakes the writer and looks again every WAIT_STEP_NS.  It gives up,
 * the call lost, when the writer has made no room for WAIT_MOST_NS:
 * the writer may itself wait for a lock this thread holds (the
 * runtime's patching lock, the loader's, while the thread runs a
 * library's constructor).  Then it does not wait again until the
 * writer has moved (`stuck_tail`), so a writer stuck that way costs one
 * pause, not one a call.  No thread waits once the recording ends, or
 * with MCOUNT_TRACE_NOWAIT; the writer thread never does, for its own
 * ring (record.c).
 */
bool rec_ring_wait(struct rec_thread *t, uint64_t need)
{
	static uint32_t never;	/* nobody wakes it: a plain sleep */
	uint64_t tail = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE), still = 0;
	int saved = errno;

	if (rec_cfg.nowait || tail == t->stuck_tail)
		return false;
	while (t->mask + 1 - (t->head - tail) < need) {
		uint64_t now;

		if (still >= WAIT_MOST_NS ||
		    !__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE)) {
			t->stuck_tail = tail;
			errno = saved;
			return false;
		}
		rec_writer_nudge();
		doze(&never, WAIT_STEP_NS);
		now = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
		still = now == tail ? still + WAIT_STEP_NS : 0;
		tail = now;
	}
	t->tail_seen = tail;
	errno = saved;
	return true;
}
