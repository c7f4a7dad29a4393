/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output.h - the forms mctrace writes a trace in, one a file (report.c,
 * replay.c, raw.c, chrome.c, folded.c, flame.c), and what they share
 * (output.c).
 */
#ifndef MCTRACE_OUTPUT_H
#define MCTRACE_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

/* A form: write the whole of `t` into `f`. */
typedef void out_writer(const struct trace *t, FILE *f);

/*
 * Read the trace `in` and write it with `write` into `out` ("-":
 * stdout); `say_lost` says the lost calls on stderr (the report and the
 * replay show them; the dumps' forms have no room for them but Chrome's
 * otherData); `ro` says how to read.  0, or 1 after saying why.
 */
int out_file(const char *in, const char *out, out_writer *write,
	     bool say_lost, const struct trace_opts *ro);

/* 0 when everything written to `f` went out, else 1 after saying so. */
int out_done(FILE *f, const char *name);
struct filter;
/* The same, with the trace filtered by `flt` (NULL: none) first. */
int out_file_filtered(const char *in, const char *out, out_writer *write,
		      bool say_lost, const struct trace_opts *ro,
		      const struct filter *flt);
/*
 * 1 after saying why, when `path` is an existing regular file that may
 * not be written (no write bit, or not ours to write); else 0.
 */
int out_refuse_read_only(const char *path);

/* A duration in a fixed width of 11, in the unit that suits it. */
void out_time(FILE *f, uint64_t ns);
/* Self time: the call's time minus that of the calls it made directly. */
uint64_t out_self_time(const struct thread *th, size_t i);
/* Every thread's lost calls by reason; their sum (MCT_LOST's). */
uint64_t out_lost_calls(const struct trace *t, uint64_t why[MCT_LOST_WHYS]);
/*
 * The calls not recorded, in sum and by reason, as one line after
 * `prefix`; nothing if none were lost.
 */
void out_lost(const struct trace *t, FILE *f, const char *prefix);
/* The lost calls and unmatched exits, as "# " comment lines. */
void out_lost_footer(const struct trace *t, FILE *f);
/*
 * The "# " line over thread k's table (report, graph --threads): its
 * tid and calls; in a trace of several processes, its pid too, after a
 * line naming its process above its process's first thread.
 */
void out_thread_head(const struct trace *t, size_t k, FILE *f);

/* Every call, the threads interleaved by time (replay.c). */
void out_replay(const struct trace *t, FILE *f);
void out_raw(const struct trace *t, FILE *f);
void out_chrome(const struct trace *t, FILE *f);
void out_folded(const struct trace *t, FILE *f);
void out_flame_svg(const struct trace *t, FILE *f, const char *title);

#endif
