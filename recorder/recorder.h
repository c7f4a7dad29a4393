/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - what the files of the recorder share.  Private to
 * recorder/.
 *
 * The recorder turns the runtime's entry hook into a trace: at entry
 * (rec_entry, through the engine's slot hook) it writes an entry event
 * into the thread's ring and swaps the function's return address for
 * the return trampoline (recorder/<arch>/return.S), keeping the real one
 * on the thread's shadow stack; the trampoline calls rec_exit, which
 * writes the exit event and gives the real address back.  A writer
 * thread (writer.c) drains every ring (ring.c) into the file.
 *
 * The files, each calling only files listed after it: wrap.c (the
 * library functions wrapped), attach.c (mctrace record -p's entry
 * points, attach.h), start.c (start, end, fork), writer.c (the
 * writer thread), compact.c and json.c (the two forms the writer
 * writes), names.c (the functions' names), record.c (the traced
 * thread's side), args.c (the arguments and return values captured),
 * filters.c (which functions are enabled), libs.c
 * (libraries loaded while recording), out.c (the file), ring.c and
 * ring.h (the threads' rings), config.c (the settings).
 *
 * A ring has one producer, its thread, and one consumer, the writer:
 * `head` is written only by the thread, `tail` only by the writer, each
 * published with release and read with acquire.  An entry is recorded
 * only when the ring has room for it, for its exit, and for the exits of
 * every frame already on the shadow stack, so an exit always has room
 * and every recorded entry gets its exit: a call that does not fit is
 * not recorded at all, and counted in `lost` by its reason.
 */
#ifndef REC_RECORDER_H
#define REC_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../runtime/client.h"
#include "format.h"

#define REC_HIDDEN __attribute__((visibility("hidden")))
#define REC_NOTRACE __attribute__((no_instrument_function))

struct rec_frame {
	uintptr_t key;		/* the stack pointer the function returns
				   with: orders and matches frames */
	uintptr_t *slot;	/* where the return address lives */
	uintptr_t orig;		/* the return address we replaced */
	uintptr_t func;
	bool restored;		/* orig written back (an unwind is on) */
	bool copy;		/* `slot` holds a copy the function does not
				   return through (rec_arch_key) */
	bool value;		/* returns through rec_return_value_tramp */
};

/* The bytes of a shadow stack of `n` frames, with its guard. */
#define REC_FRAMES_BYTES(n) (((n) + 1) * sizeof(struct rec_frame))

/* A word an unwind had the real return address written to (record.c). */
struct rec_fix {
	uintptr_t *at;
	uintptr_t orig;
};

/*
 * The thread's fields and the writer's sit on cache lines of their own,
 * so that the writer advancing `tail` does not take the line the
 * thread writes on every event; the thread reads `tail` only when the
 * room it last saw runs out (`tail_seen`).
 */
struct rec_thread {
	/* the thread's */
	struct mct_event *ring;
	uint64_t mask;		/* ring size - 1 (a power of two) */
	uint64_t mark;		/* half the ring: past it, the writer is
				   woken (rec_writer_nudge) */
	uint64_t head;		/* next event written */
	uint64_t tail_seen;	/* `tail` when the thread last read it */
	uint64_t lost[MCT_LOST_WHYS];	/* calls not recorded, by reason */
	size_t depth;
	size_t max_frames;
	size_t max_open;	/* max_frames, or the depth limit if lower */
	struct rec_frame *frames;	/* frames[-1] is a guard, whose key
					   (UINTPTR_MAX) is above every
					   entry's and no return's: the
					   first frame needs no test */
	struct rec_fix *fixes;	/* 2 * max_frames of them */
	size_t nfixes;
	uintptr_t stack_lo, stack_hi;
	uint32_t tid;
	bool dead;		/* thread gone: drain, then unmap */
	struct rec_thread *next;
	uint64_t stuck_tail;	/* `tail` when a wait for room gave up
				   (rec_ring_wait); UINT64_MAX: none */
	/* the writer's */
	uint64_t tail __attribute__((aligned(64)));	/* next event read */
	uint64_t lost_written[MCT_LOST_WHYS];	/* `lost` as last written */
	uint64_t json_last;	/* the last JSON timestamp (ns) */
	const char **json_names;	/* the names of its open JSON calls */
	size_t json_depth, json_cap;
	bool unmapped;
	bool populated;		/* the ring's pages made (rec_ring_populate) */
};

/*
 * The calling thread's own state, one initial-exec TLS block (record.c),
 * so that <arch>/entry.S reaches both fields from one offset.  `busy`
 * keeps a signal handler that runs traced code out of the recorder
 * while the thread's state changes (record.c).
 */
struct rec_tls {
	struct rec_thread *self;	/* NULL before its first call */
	bool busy;
	bool writer;	/* the writer thread: it never waits for room */
};
#define REC_TLS_MODEL __attribute__((tls_model("initial-exec")))
REC_HIDDEN extern _Thread_local struct rec_tls rec_tls REC_TLS_MODEL;

/* The shadow stack's frames, unless half the ring is fewer. */
#define REC_MAX_FRAMES 16384

/* The recording's settings, fixed at start (config.c). */
struct rec_config {
	const char *path;	/* MCOUNT_TRACE */
	bool json;		/* path ends in .json */
	size_t ring_events;	/* per thread, a power of two */
	size_t max_frames;	/* shadow stack depth */
	size_t depth;		/* record calls at most this deep (0: all) */
	uint64_t min_time_ns;	/* stored in the header for readers */
	bool stats;		/* MCOUNT_TRACE_STATS: the writer's cost at
				   the end, on stderr */
	bool nowait;		/* MCOUNT_TRACE_NOWAIT: a full ring loses
				   the call at once (rec_ring_wait) */
};

REC_HIDDEN extern struct rec_config rec_cfg;
REC_HIDDEN extern bool rec_on;

/* config.c */
/*
 * From now on the settings are read from `lines` ("NAME=VALUE\n"...,
 * an attach's, recorder/attach.h), not from the environment.  False if
 * there is no memory for a copy.
 */
REC_HIDDEN bool rec_config_set(const char *lines);
/* Setting `name`: the attach's, or else the environment's; NULL if unset. */
REC_HIDDEN const char *rec_getenv(const char *name);
/* The number in environment variable `name`; `dflt` if unset or bad. */
REC_HIDDEN size_t rec_env_size(const char *name, size_t dflt);
/* rec_cfg from the environment, recording into `path`. */
REC_HIDDEN void rec_config_read(const char *path);

/* ring.c: the threads' rings (their inline side: ring.h) */
REC_HIDDEN extern struct rec_thread *rec_threads;	/* newest first */
/* A thread's ring, shadow stack and fixes, sized by rec_cfg; NULL. */
REC_HIDDEN struct rec_thread *rec_thread_alloc(void);
REC_HIDDEN void rec_ring_populate(struct rec_thread *t);
/* `t` put on rec_threads, where the writer finds it. */
REC_HIDDEN void rec_thread_publish(struct rec_thread *t);
/* The writer, once a dead thread's ring is drained: its memory freed. */
REC_HIDDEN void rec_thread_unmap(struct rec_thread *t);
REC_HIDDEN void rec_writer_nudge(void);
REC_HIDDEN extern uint32_t rec_writer_nudged;
REC_HIDDEN bool rec_writer_nap(uint64_t ns);
/*
 * Thread `t`'s ring has no room for `need` events: wait for the writer
 * to make it.  False, the call to be lost, if it does not (ring.c).
 */
REC_HIDDEN bool rec_ring_wait(struct rec_thread *t, uint64_t need);

/* record.c */
REC_HIDDEN void rec_entry(uintptr_t func, uintptr_t *slot);
REC_HIDDEN uintptr_t rec_exit(uintptr_t sp);
REC_HIDDEN void rec_thread_gone(void *arg);
REC_HIDDEN void rec_unwind_begin(void);
REC_HIDDEN void rec_unwind_caught(uintptr_t sp);
REC_HIDDEN void rec_unwind_all(void);
REC_HIDDEN void rec_fork_child(void);
REC_HIDDEN void rec_close_frames(void);
REC_HIDDEN int rec_init_threads(void);

/*
 * args.c: the values captured (MCOUNT_TRACE_ARGS, mctrace record -A/-R).
 * A function's: its arguments, by their place in the ABI's integer
 * argument registers (`which`, from 1), and its return value, each in
 * a format (format.h's MCT_DATA).
 */
struct rec_arg {
	uint8_t which;
	char fmt;		/* d u x p c s */
	uint8_t bits;		/* 8 16 32 64 */
};
struct rec_args {
	struct rec_arg arg[MCT_DATA_MAX_ARGS];
	unsigned nargs;
	struct rec_arg ret;
	bool has_ret;
	unsigned events;	/* ring events its values take at most */
};
/*
 * This backend captures return values (REC_VALUE_CAPTURE), and the
 * arguments too (REC_ARGS_CAPTURE: its hooks hand the registers over).
 */
REC_HIDDEN extern const bool rec_values_capture, rec_args_capture;
/* Some function's values are captured: the recording enters by args. */
REC_HIDDEN extern bool rec_args_on;
/*
 * The settings read and the sites picked: false, having said why (a
 * spec the machine cannot capture, or a function whose hook does not
 * see its arguments).
 */
REC_HIDDEN bool rec_args_start(void);
/* What the function whose hook returns to `ret` captures, or NULL. */
REC_HIDDEN const struct rec_args *rec_args_of(uintptr_t ret);
REC_HIDDEN unsigned rec_args_ret_events(const struct rec_args *w);
/* Its argument events, from `regs` as the backend's hook saved them. */
REC_HIDDEN void rec_args_put(struct rec_thread *t, const struct rec_args *w,
			     const uintptr_t *regs);
REC_HIDDEN void rec_args_put_ret(struct rec_thread *t,
				 const struct rec_args *w, uintptr_t value);

/* start.c */
REC_HIDDEN void rec_finish(void);
/*
 * Start recording into `path`, which `open_trace` opens (with the
 * writer, rec_writer_start): 0, or -1 having said why on stderr.
 */
REC_HIDDEN int rec_begin(const char *path, int (*open_trace)(void));
/* The trace's path, as rec_begin was given it. */
REC_HIDDEN const char *rec_base_path(void);

/* globs.c: how a glob picks a function (-F, -N, -A, -R). */
typedef char *(*rec_demangler_fn)(const char *, char *, size_t *, int *);
/* A function's name as globs see it; demangled when first asked. */
struct rec_glob_name {
	const char *sym;		/* its symbol */
	rec_demangler_fn demangle;	/* NULL: symbols only */
	char *full, *simple;
	bool tried;
};
REC_HIDDEN bool rec_glob_picks(const char *glob, struct rec_glob_name *n);
REC_HIDDEN void rec_glob_name_free(struct rec_glob_name *n);
/*
 * The toolchain's demangler, libstdc++'s: the program's own, or else,
 * when one of the n `globs` (NULLs skipped) names a C++ scope (`::`),
 * the library loaded for it (a C++ program that needs no libstdc++ is
 * linked without it); NULL if there is none.
 */
REC_HIDDEN rec_demangler_fn rec_find_demangler(const char *const *globs,
					       size_t n);

/* filters.c */
REC_HIDDEN void rec_filters_read(void);
REC_HIDDEN bool rec_filters_enable(size_t *failed);
REC_HIDDEN void rec_filters_started(void);
REC_HIDDEN void rec_filters_fork_child(void);
/*
 * From the writer thread, never a traced one: the sets now due.  The ns
 * until the next one is, UINT64_MAX when none is left.
 */
REC_HIDDEN uint64_t rec_phases_due(void);
/*
 * The sites of loads not yet set, set to the filters in force; if
 * !wait, only when no other thread is doing so.
 */
REC_HIDDEN void rec_libs_settle(bool wait);

/* <arch>/return.S */
REC_HIDDEN void rec_return_tramp(void);

/*
 * <arch>/entry.S, where there is one (REC_FUSED_ENTRY): rec_entry's
 * common case in assembly, which the runtime's trampolines jump to
 * before they save anything (mc_rt_set_entry_takeover); anything else
 * goes on to rec_entry through the trampoline's general-register path.
 * It reads struct rec_thread, rec_frame and rec_tls by the offsets of
 * <arch>/entry.h, which record.c checks against these structs.  Taken
 * on x86_64 only when record.c is built REC_GPR_ONLY (rec_gpr_only).
 */
#if defined(__x86_64__) || defined(__aarch64__) || \
	(defined(__riscv) && __riscv_xlen == 64)
#define REC_FUSED_ENTRY 1
REC_HIDDEN void rec_fentry(void);	/* the fentry's or the pad's */
REC_HIDDEN void rec_mcount(void);
#endif
/*
 * x86_64's entries fall back to the trampolines' general-register path,
 * which calls rec_entry built REC_GPR_ONLY; the others' to the
 * trampolines' own, which saves the vector registers too.
 */
#if defined(__x86_64__)
#define REC_FUSED_NEEDS_GPR 1
#else
#define REC_FUSED_NEEDS_GPR 0
#endif

/*
 * Where the backend captures values (rec_args_capture): the slot hook
 * set in place of rec_entry when some function's are captured, which
 * finds the argument registers the trampoline saved and passes them to
 * rec_entry_regs (<arch>/entry.S), and the return trampoline of a
 * function whose return value is captured, which passes it to
 * rec_exit_value (<arch>/return.S).  On x86_64 the fused entries keep
 * the other functions' calls (rec_fentry_args, rec_mcount_args), which
 * tell the functions captured by a byte of rec_args_map.
 */
#if defined(__x86_64__)
#define REC_ARGS_CAPTURE 1
REC_HIDDEN void rec_fentry_args(void);
REC_HIDDEN void rec_mcount_args(void);
REC_HIDDEN extern uint8_t rec_args_map[];
#elif defined(__aarch64__)
/*
 * The trampolines keep a frame record: rec_entry_args passes x29 to
 * rec_entry_frame, which finds theirs, the registers above it.
 */
#define REC_ARGS_CAPTURE 1
REC_HIDDEN void rec_entry_frame(uintptr_t func, uintptr_t *slot,
				const uintptr_t *fp);
#elif defined(__riscv) || defined(__arm__) || defined(__powerpc64__) || \
	defined(__s390x__) || defined(__i386__)
/*
 * The others: record.c's rec_entry_args asks rec_arch_args for the
 * saved arguments of a function captured, from the slot the trampoline
 * passed (NULL: none; the frame is then recorded without values).
 * Where they are is the backend's (<arch>/frame.c where sites differ,
 * else args.c): a fixed way from the slot on arm, s390x and i386
 * (runtime/<arch>/backend.h's MC_RT_ARGS_FROM_SLOT; i386's are the
 * caller's stack words), by each site's form on riscv64, up the back
 * chain on ppc64le.  rec_arch_args_lost: why a site's cannot be read
 * (the function at `start`: its prologue may have written them before
 * the hook), or NULL; asked at start, so that -A refuses by name.
 */
#define REC_ARGS_CAPTURE 1
#define REC_ARGS_FROM_SLOT 1
struct mcount_site_info;
REC_HIDDEN const uintptr_t *rec_arch_args(uintptr_t func,
					  const uintptr_t *slot);
REC_HIDDEN const char *rec_arch_args_lost(const struct mcount_site_info *s,
					  uintptr_t start);
#endif
#ifdef REC_ARGS_CAPTURE
#define REC_VALUE_CAPTURE 1
#endif
#ifdef REC_VALUE_CAPTURE
REC_HIDDEN void rec_entry_args(uintptr_t func, uintptr_t *slot);
REC_HIDDEN void rec_return_value_tramp(void);
REC_HIDDEN void rec_entry_regs(uintptr_t func, uintptr_t *slot,
			       const uintptr_t *regs);
REC_HIDDEN uintptr_t rec_exit_value(uintptr_t sp, uintptr_t value);
#endif

/*
 * A frame's key: the stack pointer its function returns with, the value
 * the return trampoline passes rec_exit (0: the frame cannot be placed,
 * and is not followed).  A callee's key is below its caller's, a tail
 * call's equals its caller's.  The trampolines pass a slot
 * MC_RT_SLOT_FROM_SP bytes from that stack pointer (runtime/platform.h:
 * one word below on most, where x86's call pushed the return address;
 * the ABI's save slot on s390x and ppc64).  aarch64, arm and riscv64
 * keep the address where their -pg prologues put it, which
 * recorder/<arch>/frame.c finds: rec_arch_site reads each site's
 * prologue when recording starts (and says why, if it cannot),
 * rec_arch_key gives the key and moves *slot to the word the function
 * returns through.
 *
 * *copy says the slot may be only a copy of a return address that was
 * in a register (a pad's): the function saves the address we swap in
 * wherever its prologue does, so an unwind looks for it in the
 * function's frame (record.c).
 */
struct mcount_site_info;
#if defined(__aarch64__) || defined(__riscv) || defined(__arm__)
#define REC_ARCH_SITES 1
REC_HIDDEN uintptr_t rec_arch_key(uintptr_t func, uintptr_t **slot,
				  bool *copy);
REC_HIDDEN const char *rec_arch_site(const struct mcount_site_info *s,
				     uintptr_t start);

/* What frame.c keeps per site (sitekeys.c); its meaning is frame.c's. */
struct rec_site_key {
	uintptr_t ret;		/* the hook's return address; 0: free */
	int64_t slot_off, key_off;
	unsigned form;
	int32_t args_off;	/* where captured arguments are (riscv64) */
};
/*
 * sitekeys.c's table, open addressing: `ret`'s entry is the first of
 * v[(ret >> 1) * REC_SITE_HASH + i & mask], i = 0, 1, ..., whose ret is
 * `ret` (found) or 0 (none).  Read by <arch>/entry.S too.
 */
struct rec_site_table {
	size_t mask;		/* entries - 1, a power of two */
	size_t used;
	struct rec_site_key v[];
};
#define REC_SITE_HASH 0x9e3779b97f4a7c15u
REC_HIDDEN extern struct rec_site_table *rec_site_keys;
REC_HIDDEN bool rec_site_key_put(const struct rec_site_key *k);
REC_HIDDEN const struct rec_site_key *rec_site_key_get(uintptr_t ret);
#else
static inline uintptr_t rec_arch_key(uintptr_t func, uintptr_t **slot,
				     bool *copy)
{
	(void)func;
	*copy = false;
	return (uintptr_t)*slot - (uintptr_t)MC_RT_SLOT_FROM_SP;
}
#endif

/*
 * REC_GPR_ONLY (recorder.mk, per architecture): record.c is built for
 * general registers only, so rec_entry and rec_exit leave the vector and
 * x87 registers alone and the runtime may call rec_entry without saving
 * them (mc_rt_set_gpr_slot_hook); rec_gpr_only says which was built.
 * Then <arch>/return.S has rec_keeping_vectors, fn() with the vector
 * argument registers kept, for the one call into libc on that path.
 */
REC_HIDDEN extern const bool rec_gpr_only;
struct rec_thread;
REC_HIDDEN struct rec_thread *rec_keeping_vectors(struct rec_thread *(*fn)(void));

/*
 * The timestamp counter: rdtsc on x86, CNTVCT_EL0 on aarch64, the time
 * CSR on riscv64 (read as their entry.S reads it: the same clock on
 * every path), else CLOCK_MONOTONIC's ns.
 */
static inline uint64_t rec_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t ticks;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(ticks) : :
			 "memory");
	return ticks;
#elif defined(__riscv) && __riscv_xlen == 64
	uint64_t ticks;

	__asm__ volatile("rdtime %0" : "=r"(ticks));
	return ticks;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* writer.c */
REC_HIDDEN int rec_writer_start(const char *path, bool truncate);
REC_HIDDEN void rec_writer_stop(void);
REC_HIDDEN void rec_writer_fork_prepare(void);
REC_HIDDEN void rec_writer_fork_parent(void);
REC_HIDDEN void rec_writer_fork_child(void);

/* libs.c: libraries loaded and unloaded while recording */
struct rec_lib_name {
	const char *name;	/* NULL: no symbol there */
	uint64_t from, until;	/* the ticks the answer holds for */
	uintptr_t base;		/* where the library was mapped from */
};
/* `settle` (filters.c's rec_libs_settle) runs after the loader's work */
REC_HIDDEN void rec_libs_start(void (*settle)(bool wait));
REC_HIDDEN unsigned rec_libs_generation(void);
/*
 * What named `addr` at `ticks`: 1 and *out from the load that was there,
 * 0 if no library loaded or unloaded while recording ever held `addr`
 * (the runtime's symbols answer), -1 if one did but none then (unnamed).
 */
REC_HIDDEN int rec_lib_name(uintptr_t addr, uint64_t ticks,
			    struct rec_lib_name *out);
/* A load whose sites are yet to be set to the filters, marked set. */
REC_HIDDEN bool rec_lib_unset(uintptr_t *lo, uintptr_t *hi);
/* The unloads not yet written, each put; noted as written in `pass`. */
REC_HIDDEN void rec_libs_unloads(void (*put)(uintptr_t lo, uintptr_t hi,
					     uint64_t ticks), unsigned pass);
/*
 * The writer, at the end of its pass `pass` (every ring drained): free
 * the names of the loads whose unload an earlier pass wrote, but for
 * those whose names lie in text `in_use` says the writer still points
 * to.  How many were freed (its name caches must forget them).
 */
REC_HIDDEN unsigned rec_libs_release(unsigned pass,
				     bool (*in_use)(const char *lo,
						    const char *hi));
REC_HIDDEN void rec_libs_fork_child(void);

/*
 * out.c: the trace file and its buffer.  The file's words are
 * little-endian (format.h): a big-endian recorder swaps them on the way
 * out, the traced threads never do.
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static inline uint32_t rec_le32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t rec_le64(uint64_t v) { return __builtin_bswap64(v); }
#else
static inline uint32_t rec_le32(uint32_t v) { return v; }
static inline uint64_t rec_le64(uint64_t v) { return v; }
#endif
/* `path` truncated, or created new when !truncate: its fd, or -1. */
REC_HIDDEN int rec_out_open(const char *path, bool truncate);
REC_HIDDEN bool rec_out_is_open(void);
REC_HIDDEN void rec_out_put(const void *p, size_t n);
REC_HIDDEN void rec_out_words(const uint64_t *v, size_t n);
REC_HIDDEN void rec_out_text(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
REC_HIDDEN void rec_out_flush(void);
REC_HIDDEN void rec_out_close(void);	/* flushed */
REC_HIDDEN void rec_out_drop(void);	/* not flushed */

/*
 * Events encoded as one block (and given back to the thread) at a time:
 * the ring's room comes back in steps of 64 KiB, not of a whole backlog
 * (which lost calls at load, the ring staying full meanwhile).
 */
#define REC_BLOCK_EVENTS (64 * 1024 / sizeof(struct mct_event))
#define REC_SEEN_BITS 10	/* the writer's caches of names, by hash */

/*
 * names.c: the name of the function at an address.  rec_name_of: false
 * if it cannot be kept (no memory); *fresh the first time.
 */
REC_HIDDEN bool rec_name_of(uintptr_t addr, const char **name, bool *fresh);
/* What names an address of a library opened or closed while recording. */
struct rec_name_at {
	bool lib;		/* such an address; else rec_name_of's */
	bool fresh;		/* a name (from this load) not given before */
	const char *name;	/* NULL: unnamed */
	uint64_t from, until;	/* the ticks it holds for (0, 0: unknown) */
	uintptr_t base;		/* where the library was mapped from */
};
REC_HIDDEN void rec_lib_name_of(uintptr_t addr, uint64_t ticks,
				struct rec_name_at *at);
/* The name of the function at `addr` for an event at `ticks`. */
REC_HIDDEN const char *rec_name_at(uintptr_t addr, uint64_t ticks);
/* A library came or went since the last call: true, caches cleared. */
REC_HIDDEN bool rec_names_check(void);
/* rec_libs_release, and the caches of names it freed cleared. */
REC_HIDDEN void rec_names_release(unsigned pass,
				  bool (*in_use)(const char *lo,
						 const char *hi));
REC_HIDDEN void rec_names_fork_child(void);

/* The clock's ticks and CLOCK_MONOTONIC's ns at two instants. */
struct rec_clock {
	uint64_t t0, ns0;	/* at the start */
	uint64_t t1, ns1;	/* at the last pass */
};

/* compact.c: the recorder's own format */
REC_HIDDEN void rec_compact_header(uint32_t pid);
REC_HIDDEN void rec_compact_clock(const struct rec_clock *c);
REC_HIDDEN void rec_compact_unload(uintptr_t lo, uintptr_t hi,
				   uint64_t ticks);
REC_HIDDEN void rec_compact_lost(struct rec_thread *t);
REC_HIDDEN void rec_compact_events(uint32_t tid, const struct mct_event *e,
				   size_t n);
REC_HIDDEN void rec_compact_forget(void);
REC_HIDDEN void rec_compact_info(uint32_t pid, const char *info,
				 size_t len);

/*
 * info.c: the MCT_INFO strings of this process (format.h), `start_ticks`
 * its recording's first ticks; malloc'd, *len bytes, NULL if none.
 */
REC_HIDDEN char *rec_info(uint64_t start_ticks, size_t *len);

/* json.c: Chrome's trace-event JSON */
REC_HIDDEN void rec_json_start(uint32_t pid);
REC_HIDDEN void rec_json_events(struct rec_thread *t,
				const struct mct_event *e, size_t n,
				const struct rec_clock *c);
REC_HIDDEN void rec_json_end(uint64_t lost,
			     const uint64_t why[MCT_LOST_WHYS]);
REC_HIDDEN bool rec_json_names_in(const char *lo, const char *hi);
REC_HIDDEN void rec_json_thread_gone(struct rec_thread *t);
REC_HIDDEN void rec_json_fork_child(void);

#endif
