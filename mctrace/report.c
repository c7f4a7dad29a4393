/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.c - mctrace report: calls, total and self time per function.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"

struct stat {
	uint64_t func, calls, total, self;
};

static int by_total(const void *a, const void *b)
{
	const struct stat *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->func > y->func) - (x->func < y->func);
}

static int by_func(const void *a, const void *b)
{
	const struct stat *x = a, *y = b;

	return (x->func > y->func) - (x->func < y->func);
}

static struct stat *stat_of(struct stat *v, size_t n, uint64_t func)
{
	struct stat key = { .func = func };

	return bsearch(&key, v, n, sizeof(*v), by_func);
}

void out_report(const struct trace *t, FILE *f)
{
	struct stat *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < t->nthreads; k++)
		cap += t->threads[k].ncalls;
	v = calloc(cap ? cap : 1, sizeof(*v));
	for (size_t k = 0; k < t->nthreads; k++)
		for (size_t i = 0; i < t->threads[k].ncalls; i++)
			v[n++].func = t->threads[k].calls[i].func;
	qsort(v, n, sizeof(*v), by_func);
	cap = n;
	n = 0;
	for (size_t i = 0; i < cap; i++)
		if (!n || v[n - 1].func != v[i].func)
			v[n++] = (struct stat){ .func = v[i].func };
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];

		for (size_t i = 0; i < th->ncalls; i++) {
			struct stat *s = stat_of(v, n, th->calls[i].func);

			s->calls++;
			s->total += th->calls[i].end - th->calls[i].start;
			s->self += out_self_time(th, i);
		}
	}
	qsort(v, n, sizeof(*v), by_total);
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
	out_lost_footer(t, f);
	free(v);
}


int cmd_report(int argc, char **argv)
{
	struct trace_opts ro = { 0 };
	const char *file;
	int status = cli_view_args(argc, argv, 
		"Calls, total and self time per function, by total time.", &file, &ro);

	return status >= 0 ? status : out_file(file, "-", out_report, false, &ro);
}
