/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.c - mctrace report: calls, total and self time per function
 * (stats.c), sorted by -s KEY; one table a thread (--threads); or the
 * change from this trace to another (--diff OTHER), function by name.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "output.h"
#include "stats.h"

static void print_stats(const struct trace *t, const struct thread *th,
			enum stat_key key, FILE *f)
{
	struct func_stat *v;
	size_t n = stats_of(t, th, &v);

	stats_sort(t, v, n, key);
	fprintf(f, "  Total time    Self time       Calls  Function\n");
	fprintf(f, "  ==========  ===========  ==========  ====================\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, " ");
		out_time(f, v[i].total);
		fprintf(f, "  ");
		out_time(f, v[i].self);
		fprintf(f, "  %10llu  %s\n", (unsigned long long)v[i].calls,
			trace_name(t, v[i].func));
	}
	free(v);
}

/* One function's figures in both traces, by name. */
struct change {
	char *name;
	uint64_t calls[2], total[2], self[2];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->name,
		      ((const struct change *)b)->name);
}

/* Append trace `t`'s figures as side `s` to `v` (n of them). */
static struct change *changes_add(struct change *v, size_t *n,
				  const struct trace *t, int s)
{
	struct func_stat *st;
	size_t m = stats_of(t, NULL, &st);

	v = realloc(v, (*n + m + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < m; i++) {
		struct change *c = &v[(*n)++];

		memset(c, 0, sizeof(*c));
		c->name = strdup(trace_name(t, st[i].func));
		if (!c->name) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		c->calls[s] = st[i].calls;
		c->total[s] = st[i].total;
		c->self[s] = st[i].self;
	}
	free(st);
	return v;
}

/* One entry a name: the sums of those of the name; how many are left. */
static size_t changes_merge(struct change *v, size_t n)
{
	size_t out = 0;

	if (n)
		qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 0; i < n; i++) {
		struct change *c = out ? &v[out - 1] : NULL;

		if (!c || by_name(c, &v[i])) {
			v[out++] = v[i];
			continue;
		}
		for (int s = 0; s < 2; s++) {
			c->calls[s] += v[i].calls[s];
			c->total[s] += v[i].total[s];
			c->self[s] += v[i].self[s];
		}
		free(v[i].name);
	}
	return out;
}

/* A change of time, signed, in out_time's width and units. */
static void out_signed_time(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char sign = ns < 0 ? '-' : '+', buf[40];

	if (a < 10000)
		snprintf(buf, sizeof(buf), "%c%llu ns", sign,
			 (unsigned long long)a);
	else if (a < 10000000)
		snprintf(buf, sizeof(buf), "%c%.3f us", sign, a / 1e3);
	else if (a < 10000000000ull)
		snprintf(buf, sizeof(buf), "%c%.3f ms", sign, a / 1e6);
	else
		snprintf(buf, sizeof(buf), "%c%.3f  s", sign, a / 1e9);
	fprintf(f, "%11s", buf);
}

static int64_t delta(const uint64_t v[2])
{
	return (int64_t)(v[1] - v[0]);
}

/* qsort has no context: the key of the sort under way. */
static enum stat_key change_key;

static int by_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	int64_t dx = 0, dy = 0;

	if (change_key == STAT_TOTAL)
		dx = delta(x->total), dy = delta(y->total);
	else if (change_key == STAT_SELF)
		dx = delta(x->self), dy = delta(y->self);
	else if (change_key == STAT_CALLS)
		dx = delta(x->calls), dy = delta(y->calls);
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Every function of either trace: base figures, then the change. */
static void print_diff(const struct trace *a, const struct trace *b,
		       enum stat_key key, FILE *f)
{
	struct change *v = NULL;
	size_t n = 0;

	v = changes_add(v, &n, a, 0);
	v = changes_add(v, &n, b, 1);
	n = changes_merge(v, n);
	change_key = key;
	if (n)
		qsort(v, n, sizeof(*v), by_change);
	fprintf(f, "  Total time   Total diff       Calls  Calls diff  Function\n");
	fprintf(f, "  ==========  ===========  ==========  ==========  ====================\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, " ");
		out_time(f, v[i].total[0]);
		fprintf(f, "  ");
		out_signed_time(f, delta(v[i].total));
		fprintf(f, "  %10llu  %+10lld  %s\n",
			(unsigned long long)v[i].calls[0],
			(long long)delta(v[i].calls), v[i].name);
		free(v[i].name);
	}
	free(v);
}

static void report_help(FILE *f)
{
	fprintf(f,
"Usage: mctrace report [-s KEY] [--threads | --diff OTHER] [FILTERS] [FILE]\n"
"Calls, total and self time per function.  A recursive function's total\n"
"counts each outermost frame once.\n"
"  -s, --sort KEY   total (the default), self, calls (or call), name (or func)\n"
"      --threads    one table a thread (under its process)\n"
"      --diff OTHER each function's figures in FILE and their change in\n"
"                   OTHER (another trace, filtered alike), by name\n"
"FILE is mctrace.data unless given.\n"
CLI_NO_DEMANGLE_HELP
FILTER_HELP);
}

struct report_opts {
	int key;
	bool threads;
	const char *other;
};

/* The report's own options; 0, or an exit status. */
static int report_option(struct report_opts *o, int c, const char *arg)
{
	if (c == 's') {
		o->key = stat_key_of(arg);
		if (o->key < 0) {
			fprintf(stderr, "mctrace report: option '-s %s': not a "
				"sort key (total, self, calls, name)\n", arg);
			return cli_try("report");
		}
	} else if (c == 'T') {
		o->threads = true;
	} else if (c == 'd') {
		o->other = arg;
	}
	return 0;
}

static int report_write(const struct report_opts *o, struct trace *t,
			const struct trace_opts *ro, const struct filter *flt)
{
	struct trace other;

	if (o->other) {
		if (filter_read(o->other, ro, flt, &other))
			return 1;
		print_diff(t, &other, (enum stat_key)o->key, stdout);
		out_lost_footer(t, stdout);
		trace_free(&other);
		return 0;
	}
	for (size_t k = 0; o->threads && k < t->nthreads; k++) {
		out_thread_head(t, k, stdout);
		print_stats(t, &t->threads[k], (enum stat_key)o->key, stdout);
	}
	if (!o->threads)
		print_stats(t, NULL, (enum stat_key)o->key, stdout);
	out_lost_footer(t, stdout);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		FILTER_LONGOPTS,
		{ "sort", required_argument, NULL, 's' },
		{ "threads", no_argument, NULL, 'T' },
		{ "diff", required_argument, NULL, 'd' },
		CLI_DEMANGLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { STAT_TOTAL, false, NULL };
	struct filter flt = FILTER_INIT("report");
	struct trace_opts ro = { 0 };
	struct trace t;
	const char *file;
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" FILTER_SHORTOPTS "s:h", opts,
				NULL)) != -1) {
		if (c == 'h')
			return report_help(stdout), 0;
		if ((r = cli_demangle_option("report", c, optarg, &ro))) {
			if (r < 0)
				return 2;
		} else if (c == 's' || c == 'T' || c == 'd') {
			if ((r = report_option(&o, c, optarg)))
				return r;
		} else if ((r = filter_option(&flt, c, optarg)) <= 0) {
			return r ? 2 : cli_bad_option("report", c, argv);
		}
	}
	if ((r = cli_file_arg("report", argc, argv, &file)))
		return r;
	if (o.threads && o.other) {
		fprintf(stderr, "mctrace report: --threads and --diff: one "
			"or the other\n");
		return cli_try("report");
	}
	if (filter_read(file, &ro, &flt, &t))
		return 1;
	r = report_write(&o, &t, &ro, &flt);
	trace_free(&t);
	filter_free(&flt);
	return r ? r : out_done(stdout, "stdout");
}
