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

/*
 * Our return trampolines: the plain one, and where values are captured
 * the one of a function whose return value is (rec_exit_value).
 */
static inline bool is_tramp(uintptr_t addr)
{
#ifdef REC_VALUE_CAPTURE
	if (addr == (uintptr_t)&rec_return_value_tramp)
		return true;
#endif
	return addr == (uintptr_t)&rec_return_tramp;
}

/* The trampoline frame `f`'s slot led to. */
static inline uintptr_t tramp_of(const struct rec_frame *f)
{
#ifdef REC_VALUE_CAPTURE
	if (f->value)
		return (uintptr_t)&rec_return_value_tramp;
#else
	(void)f;
#endif
	return (uintptr_t)&rec_return_tramp;
}

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
/* The room wait_room waits for, where wait_room_keeping reads it. */
static _Thread_local uint64_t room_needed REC_TLS_MODEL;

/* rec_ring_wait in rec_keeping_vectors' shape: it calls into libc */
static struct rec_thread *wait_room_keeping(void)
{
	struct rec_thread *t = rec_tls.self;

	return rec_ring_wait(t, room_needed) ? t : NULL;
}
#endif

/*
 * The ring is full: whether the writer made room for the entry (`need`
 * events).  Not in the writer thread (a traced function it calls, a
 * program's own malloc): it would wait for itself.
 */
static bool wait_room(struct rec_thread *t, uint64_t need)
{
	if (rec_tls.writer)
		return false;
#ifdef REC_GPR_ONLY
	(void)t;
	room_needed = need;
	return rec_keeping_vectors(wait_room_keeping) != NULL;
#else
	return rec_ring_wait(t, need);
#endif
}

/* Room in the ring for `need` events, waited for; else a call lost. */
static bool room_for(struct rec_thread *t, uint64_t need)
{
	rec_ring_mind_mark(t, need);
	if (rec_ring_room(t, need) >= need || wait_room(t, need))
		return true;
	t->lost[MCT_LOST_RING]++;
	return false;
}

/*
 * rec_entry when the common case does not hold: the thread's first
 * call, another stack, a frame rec_arch_key cannot place, a tail call,
 * frames left by longjmp, the depth limit, a full ring or shadow stack;
 * and every call of a function whose values are captured (`w`, their
 * registers in `regs`), whose events must fit with its entry's.
 * Called busy; leaves not busy.
 */
static __attribute__((noinline)) void entry_slow(uintptr_t func,
						 uintptr_t *slot,
						 const struct rec_args *w,
						 const uintptr_t *regs)
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
	if (!is_tramp(ret)) {
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
	if (!room_for(t, t->depth + 2 + (w ? w->events : 0)))
		goto out;
	t->frames[t->depth++] = (struct rec_frame){
		.key = key, .slot = slot, .orig = ret, .func = func,
		.copy = copy, .value = w && w->has_ret };
	rec_ring_emit(t, MCT_ENTRY, func, now);
	if (w)
		rec_args_put(t, w, regs);
	*slot = tramp_of(&t->frames[t->depth - 1]);
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
			     is_tramp(*at), 0))
		goto slow;
	f->key = key;
	f->slot = at;
	f->orig = *at;
	f->func = func;
	f->restored = false;
	f->copy = copy;
	f->value = false;
	t->depth = d + 1;
	rec_ring_emit(t, MCT_ENTRY, func, rec_ticks());
	*at = (uintptr_t)&rec_return_tramp;
	set_busy(false);
	return;
slow:
	entry_slow(func, slot, NULL, NULL);
}

#ifdef REC_VALUE_CAPTURE
/*
 * The slot hook while some function's values are captured
 * (rec_entry_args passes the argument registers the trampoline saved):
 * the functions picked take entry_slow with them, the others rec_entry.
 */
REC_NOTRACE void rec_entry_regs(uintptr_t func, uintptr_t *slot,
				const uintptr_t *regs)
{
	const struct rec_args *w = rec_args_of(func);

	if (!w) {
		rec_entry(func, slot);
		return;
	}
	if (rec_tls.busy || !__atomic_load_n(&rec_on, __ATOMIC_RELAXED))
		return;
	set_busy(true);
	entry_slow(func, slot, w, regs);
}

#ifdef REC_ARGS_FROM_SLOT
/*
 * Where the save area lies a known way from the slot (rec_arch_args):
 * found for the functions captured only.  A site whose area cannot be
 * found (none is, if recording started) gets no values rather than
 * another frame's.
 */
REC_NOTRACE void rec_entry_args(uintptr_t func, uintptr_t *slot)
{
	const uintptr_t *regs;

	if (!rec_args_of(func) || !(regs = rec_arch_args(func, slot))) {
		rec_entry(func, slot);
		return;
	}
	rec_entry_regs(func, slot, regs);
}
#endif

#ifdef __aarch64__
/*
 * From rec_entry_args: `fp` is x29 there, the trampoline's frame record
 * or the one of mc_rt_dispatch_slot below it, which leads to it.  The
 * trampoline's is the one whose x30 is `func`, with x0-x7 above it
 * (runtime/aarch64/trampoline.S); without it, no values.
 */
REC_NOTRACE void rec_entry_frame(uintptr_t func, uintptr_t *slot,
				 const uintptr_t *fp)
{
	for (int i = 0; i < 2 && fp; i++, fp = (const uintptr_t *)fp[0])
		if (fp[1] == func) {
			rec_entry_regs(func, slot, fp + 2);
			return;
		}
	rec_entry(func, slot);
}
#endif

/*
 * From rec_return_value_tramp: a function whose return value is
 * captured returned `value` to stack pointer `sp`.  Its value goes
 * before its exit while the ring has room for it and every open
 * frame's exit (else it is left out); then rec_exit.
 */
REC_NOTRACE uintptr_t rec_exit_value(uintptr_t sp, uintptr_t value)
{
	struct rec_thread *t = rec_tls.self;
	bool was_busy = rec_tls.busy;
	const struct rec_args *w;
	struct rec_frame *f;

	if (t && t->depth && (f = &t->frames[t->depth - 1])->key == sp &&
	    f->value && (w = rec_args_of(f->func)) && w->has_ret) {
		set_busy(true);
		if (rec_ring_room(t, t->depth + rec_args_ret_events(w)) >=
		    t->depth + rec_args_ret_events(w))
			rec_args_put_ret(t, w, value);
		set_busy(was_busy);
	}
	return rec_exit(sp);
}
#endif

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
 * The live thread whose stack holds `sp`, other than `t`, with a frame
 * that returned there; NULL if none.  Records are never freed (only
 * their rings and frames are unmapped, once dead), so the list can be
 * walked from any thread; the one running on that stack is alive, and
 * is the only one that changes its frames.
 */
static struct rec_thread *owner_of_stack(const struct rec_thread *t,
					 uintptr_t sp, size_t *frame)
{
	struct rec_thread *u = __atomic_load_n(&rec_threads, __ATOMIC_ACQUIRE);

	for (; u; u = u->next) {
		if (u == t || __atomic_load_n(&u->dead, __ATOMIC_ACQUIRE) ||
		    sp < u->stack_lo || sp > u->stack_hi)
			continue;
		*frame = returned_frame(u, sp);
		if (*frame < u->depth)
			return u;
	}
	return NULL;
}

/*
 * A thread's thread-local state is not its own: its hijacked return
 * has no frame in the record its TLS names, but its frame is in the
 * record of the thread whose stack it runs on.  An emulator can do this
 * (qemu-i386 7.2 reloads another thread's TLS after a signal handler,
 * tests/trace/tlsprobe.c).  The return is taken from that frame, so the
 * program goes on; said once, since the thread's later calls are not
 * recorded (its entries land on a record whose stack is not theirs,
 * and are counted lost there).
 */
static uint32_t lost_state_tid;

/* In rec_keeping_vectors' shape: fprintf may use any register. */
static struct rec_thread *say_lost_state(void)
{
	fprintf(stderr, "mcount: trace: thread %u returned with another "
		"thread's thread-local state (its TLS changed under it: an "
		"emulator's bug?): its frames are found by its stack, its "
		"later calls are not recorded\n", (unsigned)lost_state_tid);
	return NULL;
}

static struct rec_thread *lost_own_state(struct rec_thread *t, uintptr_t sp,
					 size_t *frame)
{
	static int said;	/* an int: riscv64 has no 1-byte swap */
	struct rec_thread *own = owner_of_stack(t, sp, frame);

	if (!own)
		no_frame(sp);
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
		lost_state_tid = own->tid;
#ifdef REC_GPR_ONLY
		(void)rec_keeping_vectors(say_lost_state);
#else
		(void)say_lost_state();
#endif
	}
	return own;
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

	if (!t || sp < t->stack_lo || sp > t->stack_hi ||
	    (i = returned_frame(t, sp)) == t->depth)
		t = lost_own_state(t, sp, &i);
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
		if (!is_tramp(*w))
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
		} else if (is_tramp(*f->slot)) {
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
			*f->slot = tramp_of(f);
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
