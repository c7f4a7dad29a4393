/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.h - a recorded trace, read into calls (mctrace/trace.c): the one
 * reader every command and output shares.
 */
#ifndef MCTRACE_TRACE_H
#define MCTRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../recorder/format.h"

/* One call, in the order calls started within its thread. */
struct call {
	uint32_t func;		/* its function: an index of trace.funcs */
	uint32_t values;	/* its first value captured (-A/-R) + 1 in
				   its thread's values; 0: none */
	uint64_t start, end;	/* ns since the recording began */
	uint32_t depth;		/* 0 for a thread's outermost calls */
	bool open;		/* no exit recorded: ended at the last event */
};

struct thread {
	uint32_t tid;
	uint32_t pid;		/* of its process */
	uint32_t proc;		/* its process: an index of trace.procs */
	uint64_t lost;		/* calls not recorded (MCT_LOST) */
	uint64_t lost_why[MCT_LOST_WHYS];	/* of them, by reason */
	struct call *calls;
	size_t ncalls, cap;
	/* the values its calls captured (mctrace record -A/-R) */
	struct call_value *values;
	size_t nvalues, vcap;
};

/*
 * A value a call captured, as text (values.c): its arguments in the
 * order they were recorded, then its return value.
 */
struct call_value {
	char *text;
	uint32_t next;		/* the call's next value + 1; 0: none */
	uint8_t which;		/* 0: its return value; n: its nth argument */
};

/*
 * A process of the recording: the first one (the file's own blocks),
 * then those of its MCT_PROCESS blocks (format.h), each read as a trace
 * of its own (`own`: its names and functions, which the whole trace's
 * funcs point into) whose threads and calls went to the whole trace.
 */
struct trace_proc {
	uint32_t pid;
	const char *info;	/* its MCT_INFO payload (trace_info) */
	size_t info_bytes;
	struct trace *own;	/* NULL for the first */
	uint64_t clock_ns;	/* its CLOCK_MONOTONIC at its ns 0 */
	uint64_t shift;		/* ns its times moved, to the common start */
	size_t first_thread;	/* where its threads went in the whole */
	uint32_t *func_map;	/* own's funcs to the whole trace's */
	size_t nmapped, map_cap;
};

struct trace {
	uint32_t pid;		/* the first process's */
	uint64_t min_time;	/* from the file: calls shorter are left out */
	struct thread *threads;
	size_t nthreads, threads_cap;
	/*
	 * The file's names, by address then time: each names its address
	 * for the entries from `from` to `until` (ticks; format.h); `base`
	 * is its library's, for an MCT_NAME_AT (else 0).
	 */
	struct trace_name {
		uint64_t addr, from, until, base;
		char *name;
		uint32_t func;		/* its index in funcs */
	} *names;
	size_t nnames;
	struct { uint64_t lo, hi, at; } *unloads;	/* MCT_UNLOAD */
	size_t nunloads;
	/*
	 * The functions calls name: an address and the name it had when
	 * called (NULL: none known), one entry per pair, so that the
	 * functions of two libraries opened in turn at one address are two;
	 * a library opened while recording is one function per name and
	 * offset in it, wherever each of its loads was.  A C++ name is
	 * demangled as trace_opts.demangle says: `name` is then
	 * `demangled`, which the trace owns.  Shown simple, two functions
	 * can have one name (a template's instances, overloads): the
	 * names of the later ones then give the first one's function, and
	 * their own get no calls.
	 */
	struct {
		uint64_t addr;
		const char *name;
		char *demangled;
	} *funcs;
	size_t nfuncs, funcs_cap;
	size_t bad_exits;	/* exits that matched no entry */
	/*
	 * The first MCT_INFO block's payload: "key=value" strings, each
	 * ended by a NUL (trace_info); NULL when the file has none.
	 */
	char *info;
	size_t info_bytes;
	/* What the file held and what could not be read of it. */
	size_t blocks;		/* whole blocks read */
	uint64_t cut_bytes;	/* at the end, of a block cut short */
	uint64_t missing_bytes;	/* an MCT_PROCESS cut short: the bytes its
				   block gives past the file's end */
	size_t damaged;		/* stretches of damaged blocks skipped */
	uint64_t damaged_bytes;	/* in them */
	uint64_t events;	/* entries and exits made calls */
	uint64_t clock_ns;	/* CLOCK_MONOTONIC at ns 0 (0: unknown) */
	/* Its processes, the first one's first (procs.c). */
	struct trace_proc *procs;
	size_t nprocs;
};

/*
 * What a trace read as a stream (trace_stream) goes into: `start` once
 * the trace's names, threads and lost calls are known (0, or -1 after
 * saying why, which ends the reading); then each call's beginning, in
 * the order of the file, of the thread t->threads[k], and its end:
 * `exited` false for the calls still open at the end of the file,
 * ended at their thread's last event.
 */
struct trace_sink {
	void *ctx;
	int (*start)(void *ctx, const struct trace *t);
	void (*begin)(void *ctx, size_t k, uint64_t ns, uint32_t func);
	void (*end)(void *ctx, size_t k, uint64_t ns, bool exited);
	/*
	 * Optional: a value the innermost open call of thread k captured
	 * (-A/-R), after its beginning (its arguments) or before its end
	 * (its return value, `which` 0); `text` until the next call.
	 */
	void (*value)(void *ctx, size_t k, unsigned which, const char *text);
};

/* How C++ names are shown: the name alone, demangled whole, as is. */
enum trace_demangle {
	TRACE_DEMANGLE_SIMPLE,
	TRACE_DEMANGLE_FULL,
	TRACE_DEMANGLE_NO,
};

/* How to read a trace; all zero is trace_read's way. */
struct trace_opts {
	bool no_events;		/* skip the events: no calls (quick) */
	enum trace_demangle demangle;
};

/*
 * Read the trace at `path` into `t`: 0, or -1 after a one-line reason
 * on stderr (no file, a directory, not a trace, another version).  A
 * file cut short or with damaged blocks is read for every whole block,
 * the loss said on stderr, and is 0.
 */
int trace_read(const char *path, struct trace *t);
int trace_read_opts(const char *path, struct trace *t,
		    const struct trace_opts *o);
/*
 * Read `path` into `sink` a block of events at a time, in memory that
 * does not grow with the file (but for a pipe, read whole): `t` gets
 * what trace_read_opts gives but the calls (o->no_events: no calls to
 * the sink either).  0, or -1 after saying why on
 * stderr; `t` is to be freed (trace_free) either way.
 */
int trace_stream(const char *path, struct trace *t,
		 const struct trace_opts *o, const struct trace_sink *sink);
/* The value of the nth (from 0) `key` in the MCT_INFO block, or NULL. */
const char *trace_info(const struct trace *t, const char *key, size_t nth);
/* The same of process t->procs[proc]. */
const char *trace_proc_info(const struct trace *t, size_t proc,
			    const char *key, size_t nth);
void trace_free(struct trace *t);
/* A thread's calls and values freed (the thread itself is the trace's). */
void thread_free(struct thread *th);
/* The first value call `c` of thread `th` captured, or NULL; the next. */
const struct call_value *call_values(const struct thread *th,
				     const struct call *c);
const struct call_value *call_value_next(const struct thread *th,
					 const struct call_value *v);
/* A call's function's name, or its address in hex (a static buffer). */
const char *trace_name(const struct trace *t, uint64_t func);
/* Leave out calls (and what they called) shorter than `ns`. */
void trace_min_time(struct trace *t, uint64_t ns);

#endif
