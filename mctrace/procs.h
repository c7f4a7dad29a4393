/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procs.h - the processes of one trace (mctrace/procs.c): the first
 * process's blocks and each MCT_PROCESS block's trace (format.h), read
 * apart by trace.c, made one trace whose threads say their process.
 * For trace.c only.
 */
#ifndef MCTRACE_PROCS_H
#define MCTRACE_PROCS_H

#include "trace.h"

/* t->procs[0] made the file's first process, the owner of every thread. */
void procs_first(struct trace *t);
/*
 * `own`, read from an MCT_PROCESS block of process `pid`, made t's next
 * process (t frees it): its threads appended to t's, with their calls
 * if it has them, their functions made t's.
 */
void procs_add(struct trace *t, struct trace *own, uint32_t pid);
/*
 * Each process's times moved to the earliest process's start, which
 * becomes t->clock_ns: the calls t has now, and those a procs_sink
 * passes on later.
 */
void procs_align(struct trace *t);
/* The counts of what was read (blocks, events, losses) of them all. */
void procs_count(struct trace *t);

/*
 * The walk of process t->procs[proc]'s own trace into `to`, its
 * threads, times and functions made t's.  `sink` is what the walk is
 * given.
 */
struct procs_sink {
	struct trace_sink sink;
	struct trace *t;
	size_t proc;
	const struct trace_sink *to;
};
void procs_sink_init(struct procs_sink *s, struct trace *t, size_t proc,
		     const struct trace_sink *to);

#endif
