/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * calls.h - the reader's middle floor (calls.c): the names a file gives
 * settled into functions, and each thread's events into calls.  For
 * trace.c only.
 */
#ifndef MCTRACE_CALLS_H
#define MCTRACE_CALLS_H

#include "events.h"
#include "trace.h"

/*
 * Fill t->funcs from t->names and t->unloads, and each thread of `t`
 * with the calls of its events in `raws` (ticks to ns through `clk`,
 * an MCT_CLOCK's two pairs); C++ names shown as `demangle` says.
 */
void calls_build(struct trace *t, const struct raw *raws, size_t nraw,
		 const uint64_t clk[4], enum trace_demangle demangle);

/*
 * The same walk into another sink, a block of events at a time: start
 * settles the names (shown as `demangle` says) and takes the threads t
 * has now; then each block's
 * events of thread t->threads[k], in the file's order; end ends the
 * calls still open at their thread's last event, and frees the walk.
 */
struct calls_walk;
struct calls_walk *calls_walk_start(struct trace *t, const uint64_t clk[4],
				    enum trace_demangle demangle,
				    const struct trace_sink *sink);
void calls_walk_events(struct calls_walk *w, size_t k, const struct raw *r);
void calls_walk_end(struct calls_walk *w);

#endif
