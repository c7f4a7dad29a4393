/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * info.c - mctrace info: what a trace is of (the recorder's MCT_INFO
 * blocks: program, command line, build id, start time) and what it
 * holds (duration, events, threads, the processes, calls lost, size,
 * and what could not be read).
 * A fact the file does not hold is said to be "not recorded", never
 * guessed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "filter.h"
#include "output.h"

static void line(FILE *f, const char *what, const char *value)
{
	fprintf(f, "# %-14s: %s\n", what, value ? value : "not recorded");
}

/* Every arg= of process `proc`, joined by spaces; false if none. */
static bool put_args(const struct trace *t, size_t proc, FILE *f)
{
	const char *arg;
	size_t n = 0;

	while ((arg = trace_proc_info(t, proc, "arg", n)))
		fprintf(f, "%s%s", n++ ? " " : "", arg);
	return n;
}

static void print_cmdline(const struct trace *t, FILE *f)
{
	fprintf(f, "# %-14s: ", "command line");
	fputs(put_args(t, 0, f) ? "\n" : "not recorded\n", f);
}

static void print_start(const struct trace *t, FILE *f)
{
	const char *ns = trace_info(t, "start_ns", 0);
	char when[64];
	struct tm tm;
	time_t s;

	if (!ns) {
		line(f, "start time", NULL);
		return;
	}
	s = (time_t)(strtoull(ns, NULL, 10) / 1000000000);
	if (!gmtime_r(&s, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm)) {
		line(f, "start time", ns);
		return;
	}
	line(f, "start time", when);
}

/* First entry to last exit, over the threads; the calls, the events. */
static void print_span(const struct trace *t, FILE *f)
{
	uint64_t first = UINT64_MAX, last = 0, calls = 0;

	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];

		for (size_t i = 0; i < th->ncalls; i++) {
			if (th->calls[i].start < first)
				first = th->calls[i].start;
			if (th->calls[i].end > last)
				last = th->calls[i].end;
		}
		calls += th->ncalls;
	}
	fprintf(f, "# %-14s: ", "duration");
	if (calls) {
		out_time(f, last - first);
		fputs(" (first call to last return)\n", f);
	} else {
		fputs("no calls\n", f);
	}
	fprintf(f, "# %-14s: %llu\n", "events", (unsigned long long)t->events);
	fprintf(f, "# %-14s: %llu\n", "calls", (unsigned long long)calls);
}

/* Process `i`: its pid and parent's, then `more`. */
static void print_pid(const struct trace *t, size_t i, FILE *f,
		      const char *more)
{
	const char *pid = trace_proc_info(t, i, "pid", 0);
	const char *ppid = trace_proc_info(t, i, "ppid", 0);

	fputs("pid ", f);
	if (pid)
		fprintf(f, "%s", pid);
	else
		fprintf(f, "%u", i < t->nprocs ? t->procs[i].pid : t->pid);
	if (ppid)
		fprintf(f, ", parent %s", ppid);
	fputs(more, f);
}

/*
 * One line a process after the first (a recording of a process tree,
 * format.h's MCT_PROCESS): pid, parent, threads, calls, command line.
 */
static void print_procs(const struct trace *t, FILE *f)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		size_t threads = 0, calls = 0;

		for (size_t k = 0; k < t->nthreads; k++)
			if (t->threads[k].proc == i) {
				threads++;
				calls += t->threads[k].ncalls;
			}
		fprintf(f, "#   %-12s: ", i ? "other" : "first");
		print_pid(t, i, f, "; ");
		fprintf(f, "%zu thread%s, %zu calls: ", threads,
			threads == 1 ? "" : "s", calls);
		if (!put_args(t, i, f))
			fputs("command line not recorded", f);
		fputc('\n', f);
	}
}

/* The threads (tids) and the processes. */
static void print_tasks(const struct trace *t, FILE *f)
{
	fprintf(f, "# %-14s: %zu\n", "threads", t->nthreads);
	fprintf(f, "# %-14s:", "tids");
	for (size_t k = 0; k < t->nthreads; k++)
		fprintf(f, " %u", t->threads[k].tid);
	fputc('\n', f);
	if (t->nprocs > 1) {
		fprintf(f, "# %-14s: %zu\n", "processes", t->nprocs);
		print_procs(t, f);
		return;
	}
	fprintf(f, "# %-14s: 1 (", "processes");
	print_pid(t, 0, f, ")\n");
}

/* What the file held that could not be read. */
static void print_unread(const struct trace *t, FILE *f)
{
	fprintf(f, "# %-14s: %zu\n", "blocks read", t->blocks);
	if (t->cut_bytes)
		fprintf(f, "# %-14s: %llu bytes at the end\n", "cut short",
			(unsigned long long)t->cut_bytes);
	if (t->missing_bytes)
		fprintf(f, "# %-14s: %llu bytes past the file's end\n",
			"missing", (unsigned long long)t->missing_bytes);
	if (t->damaged)
		fprintf(f, "# %-14s: %zu stretches, %llu bytes skipped\n",
			"damaged", t->damaged,
			(unsigned long long)t->damaged_bytes);
}

static void out_info(const struct trace *t, const char *path, FILE *f)
{
	uint64_t why[MCT_LOST_WHYS], lost = out_lost_calls(t, why);
	struct stat st;

	line(f, "program", trace_info(t, "exe", 0));
	print_cmdline(t, f);
	line(f, "build id", trace_info(t, "build_id", 0));
	print_start(t, f);
	line(f, "clock", trace_info(t, "clock", 0));
	print_span(t, f);
	print_tasks(t, f);
	fprintf(f, "# %-14s: %llu\n", "calls lost", (unsigned long long)lost);
	out_lost(t, f, "#   ");
	if (stat(path, &st) == 0)
		fprintf(f, "# %-14s: %lld bytes\n", "trace size",
			(long long)st.st_size);
	print_unread(t, f);
}

static void info_help(FILE *f)
{
	fprintf(f,
"Usage: mctrace info [FILTERS] [FILE]\n"
"What the trace is of (program, command line, build id, start time, the\n"
"counter its times were read from) and what it holds (duration, events,\n"
"calls, threads, processes (one line each, when the program started\n"
"others), calls lost, size, blocks read, what was cut short or damaged);\n"
"\"not recorded\" for what the file does not say.\n"
"FILE is mctrace.data unless given.\n"
CLI_NO_DEMANGLE_HELP
FILTER_HELP);
}

int cmd_info(int argc, char **argv)
{
	struct filter flt = FILTER_INIT("info");
	const char *file;
	struct trace t;
	int r = filter_read_plain("info", argc, argv, info_help, &flt, &t, &file);

	if (r >= 0)
		return r;
	out_info(&t, file, stdout);
	trace_free(&t);
	filter_free(&flt);
	return out_done(stdout, "stdout");
}
