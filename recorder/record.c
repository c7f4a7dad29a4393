/* SPDX-License-Identifier: MIT */
/*
 * record.c - the traced thread's side: entry and exit events into the
 * thread's ring, the shadow stack of replaced return addresses, and
 * what unwinds it other than a return (longjmp, exceptions, fork).
 *
 * Frames are told apart by their key, the stack pointer their function
 * returns with (recorder.h): the stack grows down, so a frame pushed
 * later has a lower key.  A key above the top frame's at entry, or a
 * return to a key above it, means the frames below were left without
 * returning (longjmp): they are popped, with an exit event each at that
 * instant.  An entry at the top frame's own key is a tail call when its
 * slot still leads to the return trampoline (the callee nests in the
 * caller, as uftrace shows it, and both exit when it returns), else the
 * frame there is gone too.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"
#include "ring.h"
#if defined(__x86_64__)
#include "x86_64/entry.h"	/* its offsets, checked here */
#elif defined(__aarch64__)
#include "aarch64/entry.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "riscv64/entry.h"
#endif

#ifdef REC_GPR_ONLY
const bool rec_gpr_only = true;
#else
const bool rec_gpr_only = false;
#endif

_Thread_local struct rec_tls rec_tls REC_TLS_MODEL;

static pthread_key_t gone_key;

static void pop_below(struct rec_thread *t, uintptr_t key, bool at_too,
		      uint64_t ticks);

/*
 * The flag that keeps a signal handler out while the thread's state
 * changes.  The handler runs on this thread, so a compiler barrier is
 * all the ordering it needs.
 */
static inline void set_busy(bool on)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec_tls.busy = on;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
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
	struct rec_thread *t = rec_thread_alloc();

	if (!t)
		return NULL;
	t->max_open = rec_cfg.depth && rec_cfg.depth < t->max_frames ?
		      rec_cfg.depth : t->max_frames;
	t->tid = (uint32_t)syscall(SYS_gettid);
	stack_bounds(t);
	rec_thread_publish(t);
	pthread_setspecific(gone_key, t);
	rec_tls.self = t;
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
	pop_below(t, UINTPTR_MAX, true, rec_ticks());
	set_busy(false);
	rec_tls.self = NULL;
	__atomic_store_n(&t->dead, true, __ATOMIC_RELEASE);
}

int rec_init_threads(void)
{
	return pthread_key_create(&gone_key, rec_thread_gone);
}

/*
 * Pop the frames whose key is below `key` (or at it, when `at_too`),
 * each with an exit event at `ticks`.
 */
static void pop_below(struct rec_thread *t, uintptr_t key, bool at_too,
		      uint64_t ticks)
{
	while (t->depth) {
		struct rec_frame *f = &t->frames[t->depth - 1];

		if (f->key > key || (f->key == key && !at_too))
			break;
		rec_ring_emit(t, MCT_EXIT, f->func, ticks);
		t->depth--;
	}
}

#ifdef REC_GPR_ONLY
/* rec_ring_wait in rec_keeping_vectors' shape: it calls into libc */
static struct rec_thread *wait_room_keeping(void)
{
	struct rec_thread *t = rec_tls.self;

	return rec_ring_wait(t, t->depth + 2) ? t : NULL;
}
#endif

/*
 * The ring is full: whether the writer made room for the entry.  Not
 * in the writer thread (a traced function it calls, a program's own
 * malloc): it would wait for itself.
 */
static bool wait_room(struct rec_thread *t)
{
	if (rec_tls.writer)
		return false;
#ifdef REC_GPR_ONLY
	(void)t;
	return rec_keeping_vectors(wait_room_keeping) != NULL;
#else
	return rec_ring_wait(t, t->depth + 2);
#endif
}

/*
 * rec_entry when the common case does not hold: the thread's first
 * call, another stack, a frame rec_arch_key cannot place, a tail call,
 * frames left by longjmp, the depth limit, a full ring or shadow stack.
 * Called busy; leaves not busy.
 */
static __attribute__((noinline)) void entry_slow(uintptr_t func,
						 uintptr_t *slot)
{
	struct rec_thread *t;
	uintptr_t ret, key;
	uint64_t now;
	bool copy;

#ifdef REC_GPR_ONLY
	/* libc may use the vector registers: the traced function's own */
	t = rec_tls.self ? rec_tls.self : rec_keeping_vectors(thread_new);
#else
	t = rec_tls.self ? rec_tls.self : thread_new();
#endif
	if (!t)
		goto out;
	if ((uintptr_t)slot < t->stack_lo || (uintptr_t)slot >= t->stack_hi) {
		t->lost[MCT_LOST_STACK]++;	/* sigaltstack, coroutine */
		goto out;
	}
	key = rec_arch_key(func, &slot, &copy);
	if (!key) {
		t->lost[MCT_LOST_FRAME]++;	/* its frame cannot be placed */
		goto out;
	}
	now = rec_ticks();
	ret = *slot;
	if (ret != (uintptr_t)&rec_return_tramp) {
		/* a frame at this key is gone too (longjmp, then a call) */
		pop_below(t, key, true, now);
	} else {
		/*
		 * A tail call from the function on top: its slot already
		 * leads to us.  This one nests in it, keeping our address
		 * as its return: both exits happen at its return.
		 */
		pop_below(t, key, false, now);
		if (!t->depth || t->frames[t->depth - 1].key != key)
			goto out;	/* not ours to follow: leave it */
	}
	if (rec_cfg.depth && t->depth >= rec_cfg.depth)
		goto out;
	if (t->depth >= t->max_frames) {
		t->lost[MCT_LOST_SHADOW]++;
		goto out;
	}
	rec_ring_mind_mark(t, t->depth + 2);
	if (rec_ring_room(t, t->depth + 2) < t->depth + 2 && !wait_room(t)) {
		t->lost[MCT_LOST_RING]++;
		goto out;
	}
	t->frames[t->depth++] = (struct rec_frame){
		.key = key, .slot = slot, .orig = ret, .func = func,
		.copy = copy };
	rec_ring_emit(t, MCT_ENTRY, func, now);
	*slot = (uintptr_t)&rec_return_tramp;
out:
	set_busy(false);
}

/*
 * The slot hook (runtime/platform.h): a traced function was entered.
 * `func` is the return address into it, which names it (format.h).
 *
 * The common case is checked first and done here without a call, so
 * that this stays a leaf that saves no registers where rec_arch_key is
 * inline (all but REC_ARCH_SITES): the thread is known, the slot is on
 * its stack and holds a real return address, the frame has a key below
 * the top frame's, and the ring, up to its mark (rec_ring_mind_mark),
 * has room for the entry, its exit and the exits of every open frame
 * (one compare with the room last seen).  Anything else goes to
 * entry_slow, from the slot it was given.
 */
REC_NOTRACE void rec_entry(uintptr_t func, uintptr_t *slot)
{
	struct rec_thread *t = rec_tls.self;
	uintptr_t *at = slot, key;
	struct rec_frame *f;
	size_t d;
	bool copy;

	if (__builtin_expect(rec_tls.busy || !__atomic_load_n(&rec_on,
						     __ATOMIC_RELAXED), 0))
		return;
	set_busy(true);
	if (__builtin_expect(!t || (uintptr_t)slot < t->stack_lo ||
			     (uintptr_t)slot >= t->stack_hi, 0))
		goto slow;
	d = t->depth;
	if (__builtin_expect(d >= t->max_open ||
			     t->head - t->tail_seen + d + 2 > t->mark, 0))
		goto slow;
	key = rec_arch_key(func, &at, &copy);
#ifdef REC_ARCH_SITES
	if (__builtin_expect(!key, 0))	/* else the key is never 0 */
		goto slow;
#endif
	f = &t->frames[d];
	if (__builtin_expect(f[-1].key <= key ||	/* the guard's: never */
			     *at == (uintptr_t)&rec_return_tramp, 0))
		goto slow;
	f->key = key;
	f->slot = at;
	f->orig = *at;
	f->func = func;
	f->restored = false;
	f->copy = copy;
	t->depth = d + 1;
	rec_ring_emit(t, MCT_ENTRY, func, rec_ticks());
	*at = (uintptr_t)&rec_return_tramp;
	set_busy(false);
	return;
slow:
	entry_slow(func, slot);
}

static __attribute__((noreturn, noinline)) void no_frame(uintptr_t sp)
{
	fprintf(stderr, "mcount: trace: return to stack pointer %p with no "
		"frame of it on the shadow stack\n", (void *)sp);
	abort();
}

/* The top frame returned at `now`: its exit event; its real return. */
static inline uintptr_t pop_top(struct rec_thread *t, uint64_t now)
{
	struct rec_frame *f = &t->frames[--t->depth];

	rec_ring_emit(t, MCT_EXIT, f->func, now);
	return f->orig;
}

/*
 * The frame that returned to stack pointer `sp`: the shallowest whose
 * key is at or below it (the frames above it were left by a longjmp;
 * its callers' keys are above `sp`), or the last frame of its key (a
 * tail call returns first).  Its key is below `sp` when the function
 * popped its own arguments (i386's `ret $4` for a struct returned in
 * memory).  t->depth if there is none.
 */
static size_t returned_frame(const struct rec_thread *t, uintptr_t sp)
{
	size_t i = t->depth;

	while (i > 0 && t->frames[i - 1].key <= sp)
		i--;
	if (i == t->depth)
		return i;
	while (i + 1 < t->depth && t->frames[i + 1].key == t->frames[i].key)
		i++;
	return i;
}

/*
 * rec_exit when the top frame did not return with its key: frames left
 * by longjmp end now, or the function popped its arguments.
 */
static __attribute__((noinline)) uintptr_t exit_slow(struct rec_thread *t,
						     uintptr_t sp,
						     uint64_t now, bool was_busy)
{
	uintptr_t orig;
	size_t i;

	if (!t || (i = returned_frame(t, sp)) == t->depth)
		no_frame(sp);
	pop_below(t, t->frames[i].key, false, now);
	orig = pop_top(t, now);
	set_busy(was_busy);
	return orig;
}

/*
 * From the return trampoline: a hijacked function returned, and the
 * stack pointer is now `sp`.  Returns where it really returns to.  The
 * frame is always found: its slot held our address, which only
 * rec_entry writes, after pushing it.  Usually it is the top one, and
 * returns with its key; frames above it were left by longjmp and end
 * now.
 */
REC_NOTRACE uintptr_t rec_exit(uintptr_t sp)
{
	struct rec_thread *t = rec_tls.self;
	bool was_busy = rec_tls.busy;
	uint64_t now;
	uintptr_t orig;

	set_busy(true);
	now = rec_ticks();
	if (__builtin_expect(!t || t->frames[t->depth - 1].key != sp, 0))
		return exit_slow(t, sp, now, was_busy);
	orig = pop_top(t, now);
	set_busy(was_busy);
	return orig;
}

/*
 * The real return address of frame `i`: its own, or for a frame a tail
 * call entered (same key, our address as its return), the one of the
 * first frame of that key.  Only the last frame of a key has a live
 * slot: the ones below it left their frames when they tail-called.
 */
static uintptr_t real_orig(const struct rec_thread *t, size_t i)
{
	while (i > 0 && t->frames[i - 1].key == t->frames[i].key)
		i--;
	return t->frames[i].orig;
}

static bool slot_is_live(const struct rec_thread *t, size_t i)
{
	return i + 1 == t->depth || t->frames[i + 1].key != t->frames[i].key;
}

/*
 * Frame `i` holds a copy of its return address (rec_arch_key): the word
 * its function returns through is somewhere in its frame, between the
 * next frame's key (or `lo`, for the last) and its own.  Each word there
 * that holds our address gets the real one, and is noted so that the
 * catch can put ours back.  (A stale copy in a dead part of the frame
 * may be found too: writing it is harmless.)
 */
static void restore_copy(struct rec_thread *t, size_t i, uintptr_t lo)
{
	uintptr_t orig = real_orig(t, i);
	uintptr_t *w = (uintptr_t *)(i + 1 < t->depth ?
				     t->frames[i + 1].key : lo);

	for (; (uintptr_t)w < t->frames[i].key; w++) {
		if (*w != (uintptr_t)&rec_return_tramp)
			continue;
		if (t->nfixes < 2 * t->max_frames)
			t->fixes[t->nfixes++] = (struct rec_fix){ w, orig };
		*w = orig;
	}
}

/*
 * An exception (or a forced unwind) starts: the unwinder must see every
 * frame's real return address, so they are written back; the frames
 * stay on the shadow stack until the catch says which are gone.
 */
REC_NOTRACE void rec_unwind_begin(void)
{
	struct rec_thread *t = rec_tls.self;
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0);

	if (!t)
		return;
	for (size_t i = 0; i < t->depth; i++) {
		struct rec_frame *f = &t->frames[i];

		if (!slot_is_live(t, i) || f->restored)
			continue;
		if (f->copy) {
			restore_copy(t, i, lo);
			f->restored = true;
		} else if (*f->slot == (uintptr_t)&rec_return_tramp) {
			*f->slot = real_orig(t, i);
			f->restored = true;
		}
	}
}

/*
 * Caught, with the catching function's stack pointer at `sp`: frames
 * whose function returns to it or below are gone (exit events now);
 * the rest get the trampoline back.
 */
REC_NOTRACE void rec_unwind_caught(uintptr_t sp)
{
	struct rec_thread *t = rec_tls.self;
	bool was_busy = rec_tls.busy;

	if (!t)
		return;
	set_busy(true);
	pop_below(t, sp, true, rec_ticks());
	for (size_t i = 0; i < t->depth; i++) {
		struct rec_frame *f = &t->frames[i];

		if (f->restored && !f->copy && *f->slot == real_orig(t, i))
			*f->slot = (uintptr_t)&rec_return_tramp;
		f->restored = false;
	}
	for (size_t k = 0; k < t->nfixes; k++) {
		struct rec_fix *x = &t->fixes[k];

		if ((uintptr_t)x->at >= sp && *x->at == x->orig)
			*x->at = (uintptr_t)&rec_return_tramp;
	}
	t->nfixes = 0;
	set_busy(was_busy);
}

/*
 * The thread leaves every frame (pthread_exit) or the recording ends in
 * it (exit, exec): real return addresses back, exit events for all.
 */
REC_NOTRACE void rec_unwind_all(void)
{
	struct rec_thread *t = rec_tls.self;
	bool was_busy = rec_tls.busy;

	if (!t)
		return;
	set_busy(true);
	rec_unwind_begin();
	pop_below(t, UINTPTR_MAX, true, rec_ticks());
	set_busy(was_busy);
}

/* Exit events for the calling thread's open frames, which stay hijacked. */
REC_NOTRACE void rec_close_frames(void)
{
	struct rec_thread *t = rec_tls.self;
	uint64_t now = rec_ticks();

	if (!t)
		return;
	for (size_t i = t->depth; i-- > 0;)
		if (rec_ring_room(t, 1))
			rec_ring_emit(t, MCT_EXIT, t->frames[i].func, now);
}

/*
 * In the child of fork: the other threads are not there, and the events
 * the parent had not written yet are the parent's.  The child's trace
 * starts with an entry for each frame it is inside.
 */
REC_NOTRACE void rec_fork_child(void)
{
	struct rec_thread *me = rec_tls.self;
	uint64_t now = rec_ticks();

	for (struct rec_thread *t = rec_threads; t; t = t->next)
		if (t != me) {
			t->tail = t->tail_seen = t->head;
			t->dead = true;
		}
	if (!me)
		return;
	me->tail = me->tail_seen = me->head;
	memset(me->lost, 0, sizeof(me->lost));
	memset(me->lost_written, 0, sizeof(me->lost_written));
	me->stuck_tail = UINT64_MAX;
	me->tid = (uint32_t)syscall(SYS_gettid);
	for (size_t i = 0; i < me->depth; i++)
		rec_ring_emit(me, MCT_ENTRY, me->frames[i].func, now);
}
