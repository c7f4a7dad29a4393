/* SPDX-License-Identifier: MIT */
/*
 * record.c - the traced thread's side: entry and exit events into the
 * thread's ring, the shadow stack of replaced return addresses, and
 * what unwinds it other than a return (longjmp, exceptions, fork).
 *
 * Frames are told apart by where their return address lives (`slot`):
 * the stack grows down, so a frame pushed later has a lower slot.  A
 * slot above the top frame's at entry, or a return to a slot above it,
 * means the frames below were left without returning (longjmp): they
 * are popped, with an exit event each at that instant.  An entry at the
 * top frame's own slot is a tail call when the slot still leads to the
 * return trampoline (the callee nests in the caller, as uftrace shows
 * it, and both exit when it returns), else the frame there is gone too.
 *
 * Nothing here is traced, allocates on the hot path, or takes a lock;
 * a per-thread flag keeps a signal handler that runs traced code from
 * re-entering the recorder while it changes the thread's state (that
 * handler's calls are then not recorded, and not hijacked either).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

#define TLS __attribute__((tls_model("initial-exec")))

#ifdef REC_GPR_ONLY
const bool rec_gpr_only = true;
#else
const bool rec_gpr_only = false;
#endif

static _Thread_local struct rec_thread *self TLS;
static _Thread_local bool busy TLS;

struct rec_thread *rec_threads;
static pthread_key_t gone_key;

static void pop_below(struct rec_thread *t, uintptr_t *slot, bool at_too,
		      uint64_t ticks);

/*
 * The flag that keeps a signal handler out while the thread's state
 * changes.  The handler runs on this thread, so a compiler barrier is
 * all the ordering it needs.
 */
static inline void set_busy(bool on)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	busy = on;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The bounds of the calling thread's stack; all of memory if unknown. */
static void stack_bounds(struct rec_thread *t)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	t->stack_lo = 0;
	t->stack_hi = UINTPTR_MAX;
	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &lo, &size)) {
		t->stack_lo = (uintptr_t)lo;
		t->stack_hi = (uintptr_t)lo + size;
	}
	pthread_attr_destroy(&attr);
}

/* The calling thread's state, made and registered on its first call. */
static struct rec_thread *thread_new(void)
{
	struct rec_thread *t = map(sizeof(*t));

	if (!t)
		return NULL;
	t->ring = map(rec_cfg.ring_events * sizeof(*t->ring));
	t->frames = map(rec_cfg.max_frames * sizeof(*t->frames));
	if (!t->ring || !t->frames) {
		if (t->ring)
			munmap(t->ring, rec_cfg.ring_events * sizeof(*t->ring));
		munmap(t, sizeof(*t));
		return NULL;
	}
	t->mask = rec_cfg.ring_events - 1;
	t->max_frames = rec_cfg.max_frames;
	t->max_open = rec_cfg.depth && rec_cfg.depth < t->max_frames ?
		      rec_cfg.depth : t->max_frames;
	t->tid = (uint32_t)syscall(SYS_gettid);
	stack_bounds(t);
	t->next = __atomic_load_n(&rec_threads, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&rec_threads, &t->next, t, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	pthread_setspecific(gone_key, t);
	self = t;
	return t;
}

/*
 * pthread key destructor: the thread is exiting.  Frames still on its
 * shadow stack were left by pthread_exit: they end now.
 */
void rec_thread_gone(void *arg)
{
	struct rec_thread *t = arg;

	set_busy(true);
	pop_below(t, (uintptr_t *)UINTPTR_MAX, true, rec_ticks());
	set_busy(false);
	self = NULL;
	__atomic_store_n(&t->dead, true, __ATOMIC_RELEASE);
}

int rec_init_threads(void)
{
	return pthread_key_create(&gone_key, rec_thread_gone);
}

/* Free events in the ring, from `tail` only when the last look is short. */
static uint64_t ring_room(struct rec_thread *t, uint64_t need)
{
	uint64_t room = t->mask + 1 - (t->head - t->tail_seen);

	if (room >= need)
		return room;
	t->tail_seen = __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE);
	return t->mask + 1 - (t->head - t->tail_seen);
}

static void emit(struct rec_thread *t, unsigned kind, uintptr_t func,
		 uint64_t ticks)
{
	struct mct_event *e = &t->ring[t->head & t->mask];

	e->word = ticks << 2 | kind;
	e->func = func;
	__atomic_store_n(&t->head, t->head + 1, __ATOMIC_RELEASE);
}

/*
 * Pop the frames whose slot is below `slot` (or at it, when `at_too`),
 * each with an exit event at `ticks`.
 */
static void pop_below(struct rec_thread *t, uintptr_t *slot, bool at_too,
		      uint64_t ticks)
{
	while (t->depth) {
		struct rec_frame *f = &t->frames[t->depth - 1];

		if (f->slot > slot || (f->slot == slot && !at_too))
			break;
		emit(t, MCT_EXIT, f->func, ticks);
		t->depth--;
	}
}

/*
 * rec_entry when the common case does not hold: the thread's first
 * call, another stack, a tail call, frames left by longjmp, the depth
 * limit, a full ring or shadow stack.  Called busy; leaves not busy.
 */
static __attribute__((noinline)) void entry_slow(uintptr_t func,
						 uintptr_t *slot)
{
	struct rec_thread *t;
	uintptr_t ret;
	uint64_t now;

#ifdef REC_GPR_ONLY
	/* libc may use the vector registers: the traced function's own */
	t = self ? self : rec_keeping_vectors(thread_new);
#else
	t = self ? self : thread_new();
#endif
	if (!t)
		goto out;
	if ((uintptr_t)slot < t->stack_lo || (uintptr_t)slot >= t->stack_hi) {
		t->lost++;	/* another stack (sigaltstack, coroutine) */
		goto out;
	}
	now = rec_ticks();
	ret = *slot;
	if (ret != (uintptr_t)&rec_return_tramp) {
		/* a frame at this slot is gone too (longjmp, then a call) */
		pop_below(t, slot, true, now);
	} else {
		/*
		 * A tail call from the function on top: its slot already
		 * leads to us.  This one nests in it, keeping our address
		 * as its return: both exits happen at its return.
		 */
		pop_below(t, slot, false, now);
		if (!t->depth || t->frames[t->depth - 1].slot != slot)
			goto out;	/* not ours to follow: leave it */
	}
	if (rec_cfg.depth && t->depth >= rec_cfg.depth)
		goto out;
	if (t->depth >= t->max_frames || ring_room(t, t->depth + 2) < t->depth + 2) {
		t->lost++;
		goto out;
	}
	t->frames[t->depth++] = (struct rec_frame){
		.slot = slot, .orig = ret, .func = func };
	emit(t, MCT_ENTRY, func, now);
	*slot = (uintptr_t)&rec_return_tramp;
out:
	set_busy(false);
}

/*
 * The slot hook (runtime/platform.h): a traced function was entered.
 * `func` is the return address into it, which names it (format.h).
 *
 * The common case is checked first and done here without a call, so
 * that this stays a leaf that saves no registers: the thread is known,
 * the slot is on its stack and holds a real return address, it lies
 * below the top frame's, and the depth and the ring have room for the
 * entry, its exit and the exits of every open frame (one compare with
 * the room last seen).  Anything else goes to entry_slow.
 */
REC_NOTRACE void rec_entry(uintptr_t func, uintptr_t *slot)
{
	struct rec_thread *t = self;
	uintptr_t ret;
	size_t d;

	if (__builtin_expect(busy || !__atomic_load_n(&rec_on,
						     __ATOMIC_RELAXED), 0))
		return;
	set_busy(true);
	if (__builtin_expect(!t, 0))
		goto slow;
	d = t->depth;
	ret = *slot;
	if (__builtin_expect((uintptr_t)slot < t->stack_lo ||
			     (uintptr_t)slot >= t->stack_hi ||
			     ret == (uintptr_t)&rec_return_tramp ||
			     (d && t->frames[d - 1].slot <= slot) ||
			     d >= t->max_open ||
			     t->head - t->tail_seen + d + 2 > t->mask + 1, 0))
		goto slow;
	t->frames[d] = (struct rec_frame){
		.slot = slot, .orig = ret, .func = func };
	t->depth = d + 1;
	emit(t, MCT_ENTRY, func, rec_ticks());
	*slot = (uintptr_t)&rec_return_tramp;
	set_busy(false);
	return;
slow:
	entry_slow(func, slot);
}

static __attribute__((noreturn, noinline)) void no_frame(uintptr_t *slot)
{
	fprintf(stderr, "mcount: trace: return through %p with no "
		"frame of it on the shadow stack\n", (void *)slot);
	abort();
}

/* The top frame returned at `now`: its exit event; its real return. */
static inline uintptr_t pop_top(struct rec_thread *t, uint64_t now)
{
	struct rec_frame *f = &t->frames[--t->depth];

	emit(t, MCT_EXIT, f->func, now);
	return f->orig;
}

/* rec_exit when the frame is not the top one: frames left by longjmp. */
static __attribute__((noinline)) uintptr_t exit_slow(struct rec_thread *t,
						     uintptr_t *slot,
						     uint64_t now, bool was_busy)
{
	uintptr_t orig;

	if (!t)
		no_frame(slot);
	pop_below(t, slot, false, now);
	if (!t->depth || t->frames[t->depth - 1].slot != slot)
		no_frame(slot);
	orig = pop_top(t, now);
	set_busy(was_busy);
	return orig;
}

/*
 * From the return trampoline: a hijacked function returned, and the
 * stack pointer is now `sp`, just above its slot.  Returns where it
 * really returns to.  The frame is always found: its slot held our
 * address, which only rec_entry writes, after pushing it.  Usually it
 * is the top one; frames above it were left by longjmp and end now.
 */
REC_NOTRACE uintptr_t rec_exit(uintptr_t sp)
{
	struct rec_thread *t = self;
	uintptr_t *slot = (uintptr_t *)sp - 1;
	bool was_busy = busy;
	uint64_t now;
	uintptr_t orig;

	set_busy(true);
	now = rec_ticks();
	if (__builtin_expect(!t || !t->depth ||
			     t->frames[t->depth - 1].slot != slot, 0))
		return exit_slow(t, slot, now, was_busy);
	orig = pop_top(t, now);
	set_busy(was_busy);
	return orig;
}

/*
 * An exception (or a forced unwind) starts: the unwinder must see every
 * frame's real return address, so they are written back; the frames
 * stay on the shadow stack until the catch says which are gone.
 */
REC_NOTRACE void rec_unwind_begin(void)
{
	struct rec_thread *t = self;

	if (!t)
		return;
	for (size_t i = 0; i < t->depth; i++) {
		struct rec_frame *f = &t->frames[i];

		if (!f->restored &&
		    *f->slot == (uintptr_t)&rec_return_tramp) {
			*f->slot = f->orig;
			f->restored = true;
		}
	}
}

/*
 * Caught, with the catching function's stack pointer at `sp`: frames
 * below it are gone (exit events now); the rest get the trampoline back.
 */
REC_NOTRACE void rec_unwind_caught(uintptr_t sp)
{
	struct rec_thread *t = self;
	bool was_busy = busy;

	if (!t)
		return;
	set_busy(true);
	pop_below(t, (uintptr_t *)sp - 1, true, rec_ticks());
	for (size_t i = 0; i < t->depth; i++) {
		struct rec_frame *f = &t->frames[i];

		if (f->restored && *f->slot == f->orig) {
			*f->slot = (uintptr_t)&rec_return_tramp;
			f->restored = false;
		}
	}
	set_busy(was_busy);
}

/*
 * The thread leaves every frame (pthread_exit) or the recording ends in
 * it (exit, exec): real return addresses back, exit events for all.
 */
REC_NOTRACE void rec_unwind_all(void)
{
	struct rec_thread *t = self;
	bool was_busy = busy;

	if (!t)
		return;
	set_busy(true);
	rec_unwind_begin();
	pop_below(t, (uintptr_t *)UINTPTR_MAX, true, rec_ticks());
	set_busy(was_busy);
}

/* Exit events for the calling thread's open frames, which stay hijacked. */
REC_NOTRACE void rec_close_frames(void)
{
	struct rec_thread *t = self;
	uint64_t now = rec_ticks();

	if (!t)
		return;
	for (size_t i = t->depth; i-- > 0;)
		if (ring_room(t, 1))
			emit(t, MCT_EXIT, t->frames[i].func, now);
}

/*
 * In the child of fork: the other threads are not there, and the events
 * the parent had not written yet are the parent's.  The child's trace
 * starts with an entry for each frame it is inside.
 */
REC_NOTRACE void rec_fork_child(void)
{
	uint64_t now = rec_ticks();

	for (struct rec_thread *t = rec_threads; t; t = t->next)
		if (t != self) {
			t->tail = t->tail_seen = t->head;
			t->dead = true;
		}
	if (!self)
		return;
	self->tail = self->tail_seen = self->head;
	self->lost = self->lost_written = 0;
	self->tid = (uint32_t)syscall(SYS_gettid);
	for (size_t i = 0; i < self->depth; i++)
		emit(self, MCT_ENTRY, self->frames[i].func, now);
}
