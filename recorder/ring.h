/* SPDX-License-Identifier: MIT */
/*
 * ring.h - a thread's ring, the traced thread's side: room, the mark
 * that wakes the writer, and an event written.  Inline, for they are
 * on every call's path (record.c); the rest of the ring is ring.c's.
 * The protocol is recorder.h's: `head` is the thread's, `tail` the
 * writer's.
 */
#ifndef REC_RING_H
#define REC_RING_H

#include "recorder.h"

/* Free events in the ring, from `tail` only when the last look is short. */
static inline uint64_t rec_ring_room(struct rec_thread *t, uint64_t need)
{
	uint64_t room = t->mask + 1 - (t->head - t->tail_seen);

	if (room >= need)
		return room;
	t->tail_seen = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
	return t->mask + 1 - (t->head - t->tail_seen);
}

#ifdef REC_GPR_ONLY
/* rec_writer_nudge in rec_keeping_vectors' shape: libc's syscall() */
static inline struct rec_thread *rec_ring_nudge(void)
{
	rec_writer_nudge();
	return NULL;
}
#endif

/*
 * The writer sleeps on a guess of how fast the rings fill, which a
 * thread that starts calling at full speed after a quiet spell (or a
 * writer kept off its CPU) proves wrong: a ring past half full with
 * `need` more events wakes it.  `tail` is read again when the events
 * since the last look reach the mark, so the fast path needs no more
 * than its compare with the room it last saw.
 */
static inline void rec_ring_mind_mark(struct rec_thread *t, uint64_t need)
{
	if (t->head - t->tail_seen + need <= t->mark)
		return;
	t->tail_seen = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
	if (t->head - t->tail_seen + need <= t->mark ||
	    __atomic_load_n(&rec_writer_nudged, __ATOMIC_RELAXED))
		return;
#ifdef REC_GPR_ONLY
	rec_keeping_vectors(rec_ring_nudge);
#else
	rec_writer_nudge();
#endif
}

/* An event of another kind than an entry or exit (MCT_DATA's). */
static inline void rec_ring_put(struct rec_thread *t, uint64_t word,
				uint64_t value)
{
	struct mct_event *e = &t->ring[t->head & t->mask];

	e->word = word;
	e->func = value;
	__atomic_store_n(&t->head, t->head + 1, __ATOMIC_RELEASE);
}

static inline void rec_ring_emit(struct rec_thread *t, unsigned kind,
				 uintptr_t func, uint64_t ticks)
{
	struct mct_event *e = &t->ring[t->head & t->mask];

	e->word = ticks << 2 | kind;
	e->func = func;
	__atomic_store_n(&t->head, t->head + 1, __ATOMIC_RELEASE);
}

#endif
