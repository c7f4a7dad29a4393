/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.h - a recorded trace, read into calls (mctrace/trace.c), and the
 * outputs made from it (output.c, flame.c).
 */
#ifndef MCTRACE_TRACE_H
#define MCTRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One call, in the order calls started within its thread. */
struct call {
	uint64_t func;
	uint64_t start, end;	/* ns since the recording began */
	uint32_t depth;		/* 0 for a thread's outermost calls */
	bool open;		/* no exit recorded: ended at the last event */
};

struct thread {
	uint32_t tid;
	uint64_t lost;		/* calls not recorded */
	struct call *calls;
	size_t ncalls, cap;
};

struct trace {
	uint32_t pid;
	uint64_t min_time;	/* from the file: calls shorter are left out */
	struct thread *threads;
	size_t nthreads;
	struct { uint64_t addr; char *name; } *names;
	size_t nnames;
	size_t bad_exits;	/* exits that matched no entry */
};

/* 0, or -1 after saying why on stderr. */
int trace_read(const char *path, struct trace *t);
void trace_free(struct trace *t);
/* The function's name, or its address in hex (a static buffer). */
const char *trace_name(const struct trace *t, uint64_t func);
/* Leave out calls (and what they called) shorter than `ns`. */
void trace_min_time(struct trace *t, uint64_t ns);

void out_report(const struct trace *t, FILE *f);
void out_graph(const struct trace *t, FILE *f);
void out_raw(const struct trace *t, FILE *f);
void out_chrome(const struct trace *t, FILE *f);
void out_folded(const struct trace *t, FILE *f);
void out_flame_svg(const struct trace *t, FILE *f, const char *title);

#endif
