/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * info.c - mctrace info: what a trace is of (the recorder's MCT_INFO
 * blocks: program, command line, build id, start time) and what it
 * holds (duration, threads, processes, events, calls lost, size).
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

/* The value of the first `key` in the trace's MCT_INFO, or NULL. */
static const char *info_get(const struct trace *t, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; i < t->ninfo; i++)
		if (!strncmp(t->info[i].kv, key, n) && t->info[i].kv[n] == '=')
			return t->info[i].kv + n + 1;
	return NULL;
}

static void line(FILE *f, const char *what, const char *value)
{
	fprintf(f, "# %-14s: %s\n", what, value ? value : "not recorded");
}

/* Every arg= of the first process, joined by spaces. */
static void print_cmdline(const struct trace *t, FILE *f)
{
	const char *sep = "";
	uint32_t pid = t->ninfo ? t->info[0].pid : 0;

	fprintf(f, "# %-14s: ", "command line");
	for (size_t i = 0; i < t->ninfo; i++)
		if (t->info[i].pid == pid && !strncmp(t->info[i].kv, "arg=", 4)) {
			fprintf(f, "%s%s", sep, t->info[i].kv + 4);
			sep = " ";
		}
	fputs(*sep ? "\n" : "not recorded\n", f);
}

static void print_start(const struct trace *t, FILE *f)
{
	const char *ns = info_get(t, "start_ns");
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

/* The threads (tids), and the processes the MCT_INFO blocks name. */
static void print_tasks(const struct trace *t, FILE *f)
{
	size_t procs = 0;

	fprintf(f, "# %-14s: %zu\n", "threads", t->nthreads);
	fprintf(f, "# %-14s:", "tids");
	for (size_t k = 0; k < t->nthreads; k++)
		fprintf(f, " %u", t->threads[k].tid);
	fputc('\n', f);
	for (size_t i = 0; i < t->ninfo; i++)
		if (!strncmp(t->info[i].kv, "pid=", 4))
			procs++;
	fprintf(f, "# %-14s: ", "processes");
	if (!procs) {
		fprintf(f, "1 (pid %u)\n", t->pid);
		return;
	}
	fprintf(f, "%zu (pid", procs);
	for (size_t i = 0; i < t->ninfo; i++)
		if (!strncmp(t->info[i].kv, "pid=", 4))
			fprintf(f, " %s", t->info[i].kv + 4);
	fputs(")\n", f);
}

static void out_info(const struct trace *t, const char *path, FILE *f)
{
	uint64_t why[MCT_LOST_WHYS], lost = out_lost_calls(t, why);
	struct stat st;

	line(f, "program", info_get(t, "exe"));
	print_cmdline(t, f);
	line(f, "build id", info_get(t, "build_id"));
	print_start(t, f);
	print_span(t, f);
	print_tasks(t, f);
	fprintf(f, "# %-14s: %llu\n", "calls lost", (unsigned long long)lost);
	out_lost(t, f, "#   ");
	if (stat(path, &st) == 0)
		fprintf(f, "# %-14s: %lld bytes\n", "trace size",
			(long long)st.st_size);
}

static void info_help(FILE *f)
{
	fprintf(f,
"Usage: mctrace info [FILTERS] [FILE]\n"
"What the trace is of (program, command line, build id, start time) and\n"
"what it holds (duration, threads, processes, events, calls, calls lost,\n"
"size); \"not recorded\" for what the file does not say.\n"
"FILE is mctrace.data unless given.\n"
FILTER_HELP);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		FILTER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct filter flt = FILTER_INIT;
	const char *file;
	struct trace t;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, FILTER_SHORTOPTS "h", opts,
				NULL)) != -1) {
		if (c == 'h')
			return info_help(stdout), 0;
		if ((r = filter_option(&flt, c, optarg)) <= 0)
			return r ? 2 : filter_bad_option("info", argc, argv);
	}
	if (argc - optind > 1) {
		fprintf(stderr, "mctrace: info: %s: one FILE at most\n",
			argv[optind + 1]);
		return 2;
	}
	file = optind < argc ? argv[optind] : DEFAULT_FILE;
	if (filter_read(file, &flt, &t))
		return 1;
	out_info(&t, file, stdout);
	trace_free(&t);
	filter_free(&flt);
	return out_done(stdout, "stdout");
}
