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
 * an MCT_CLOCK's two pairs); C++ names demangled if `demangle`.
 */
void calls_build(struct trace *t, const struct raw *raws, size_t nraw,
		 const uint64_t clk[4], bool demangle);

#endif
