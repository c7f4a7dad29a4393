/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.h - the read-time filters of every reading command
 * (mctrace/filter.c): parsed from the command's options, applied once
 * to the loaded trace.
 */
#ifndef MCTRACE_FILTER_H
#define MCTRACE_FILTER_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct filter {
	const char *cmd;		/* the command, for its errors */
	const char **only, **never;	/* -F, -N globs */
	size_t nonly, nnever;
	uint32_t depth;			/* --depth; UINT32_MAX: none */
	uint32_t *tids;			/* --tid */
	size_t ntids;
	uint32_t *pids;			/* --pid */
	size_t npids;
	uint64_t from, to;		/* --time-range, ns from the start */
	uint64_t min_time;		/* --min-time, ns */
};

#define FILTER_INIT(command) \
	{ .cmd = command, .depth = UINT32_MAX, .to = UINT64_MAX }

/*
 * getopt codes of the filters' options: their short ones, and --tid's
 * and --pid's.
 */
#define FILTER_TID 0x1f1d
#define FILTER_PID 0x1f1e
#define FILTER_SHORTOPTS "F:N:D:r:t:"
#define FILTER_LONGOPTS \
	{ "filter", required_argument, NULL, 'F' }, \
	{ "notrace", required_argument, NULL, 'N' }, \
	{ "depth", required_argument, NULL, 'D' }, \
	{ "tid", required_argument, NULL, FILTER_TID }, \
	{ "pid", required_argument, NULL, FILTER_PID }, \
	{ "time-range", required_argument, NULL, 'r' }, \
	{ "min-time", required_argument, NULL, 't' }, \
	{ "time-filter", required_argument, NULL, 't' }
#define NFILTER_OPTS 8		/* FILTER_LONGOPTS' options */
/* The same, for a command's --help. */
#define FILTER_HELP \
"Filters (read time; every reading command):\n" \
"  -F, --filter GLOB      calls of matching functions and what they call\n" \
"  -N, --notrace GLOB     not matching functions, nor what they call\n" \
"  -D, --depth N          N levels (from the -F match, with -F)\n" \
"      --tid TID[,TID]    these threads only\n" \
"      --pid PID[,PID]    these processes' threads only\n" \
"  -r, --time-range A~B   calls started from A to B after the start\n" \
"  -t, --min-time T       calls that took T or longer\n" \
"  T, A and B take a unit: ns (the default), us, ms or s.\n"

/*
 * Take a filter's option `opt` (a getopt code) with its argument: 1 if
 * it was one, 0 if not, -1 after an error naming it and the help.
 */
int filter_option(struct filter *f, int opt, const char *arg);
bool filter_active(const struct filter *f);
/* Leave in `t` only the calls `f` keeps, at the depth of kept callers. */
void filter_apply(struct trace *t, const struct filter *f);
void filter_free(struct filter *f);
/*
 * trace_read_opts (`ro` NULL: the defaults), then filter_apply (`f`
 * NULL: none): 0, or -1 after saying why (a --tid the trace lacks too).
 */
int filter_read(const char *path, const struct trace_opts *ro,
		const struct filter *f, struct trace *t);

/*
 * A reading command with no options of its own (replay, info): its
 * options taken (the filters, --demangle, --help, which `help` prints),
 * its FILE read into `t` and filtered.  -1 to go on, `t` and `flt` then
 * to be freed; else the command's exit status (0 after --help).
 */
int filter_read_plain(const char *cmd, int argc, char **argv,
		      void (*help)(FILE *), struct filter *flt,
		      struct trace *t, const char **file);

#endif
