/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - calls, total and self time per function (mctrace/stats.c),
 * as `report` shows them.
 */
#ifndef MCTRACE_STATS_H
#define MCTRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct func_stat {
	uint64_t func;		/* of trace.funcs */
	uint64_t calls;
	uint64_t total;		/* ns, of its outermost frames only */
	uint64_t self;		/* ns: less the calls it made itself */
};

enum stat_key { STAT_TOTAL, STAT_SELF, STAT_CALLS, STAT_NAME };

/*
 * The functions called in thread `th` (NULL: every thread), one each:
 * *out (free it) and how many.  A recursive function's total counts
 * each outermost frame once, as uftrace's report does; its self time
 * counts every frame's own.
 */
size_t stats_of(const struct trace *t, const struct thread *th,
		struct func_stat **out);
/* Sort by `key`: times and calls most first, names alphabetically. */
void stats_sort(const struct trace *t, struct func_stat *v, size_t n,
		enum stat_key key);
/* The key a name gives (uftrace's call and func too); -1 if none. */
int stat_key_of(const char *name);

#endif
