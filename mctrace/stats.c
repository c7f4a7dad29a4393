/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.c - calls, total and self time per function, from each thread's
 * calls walked once with a stack of the open ones.
 *
 * A recursive function's frames nest: adding every frame's time would
 * count the innermost ones again and again (recursion 1,000 deep would
 * report a thousand times the time spent).  A frame adds to its
 * function's total only when no frame of the same function is open
 * below it, as uftrace does.
 */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return p;
}

/* An open call: its function, depth, and time not spent in callees. */
struct frame {
	uint64_t func, self;
	uint32_t depth;
};

static void add_thread(const struct thread *th, struct func_stat *v,
		       uint32_t *open, struct frame *stack)
{
	size_t n = 0;

	for (size_t i = 0; i <= th->ncalls; i++) {
		const struct call *c = i < th->ncalls ? &th->calls[i] : NULL;

		while (n && (!c || stack[n - 1].depth >= c->depth)) {
			struct frame *f = &stack[--n];

			v[f->func].self += f->self;
			open[f->func]--;
		}
		if (!c)
			break;
		uint64_t d = c->end - c->start;

		if (n)
			stack[n - 1].self -= stack[n - 1].self > d ?
					     d : stack[n - 1].self;
		v[c->func].calls++;
		if (!open[c->func]++)
			v[c->func].total += d;
		stack[n++] = (struct frame){ c->func, d, c->depth };
	}
}

size_t stats_of(const struct trace *t, const struct thread *th,
		struct func_stat **out)
{
	struct func_stat *v = must(calloc(t->nfuncs + 1, sizeof(*v)));
	uint32_t *open = must(calloc(t->nfuncs + 1, sizeof(*open)));
	size_t most = 0, n = 0;

	for (size_t k = 0; k < t->nthreads; k++)
		if (t->threads[k].ncalls > most)
			most = t->threads[k].ncalls;
	struct frame *stack = must(malloc((most + 1) * sizeof(*stack)));

	for (size_t k = 0; k < t->nthreads; k++)
		if (!th || th == &t->threads[k])
			add_thread(&t->threads[k], v, open, stack);
	for (size_t f = 0; f < t->nfuncs; f++)
		if (v[f].calls) {
			v[n] = v[f];
			v[n++].func = f;
		}
	free(open);
	free(stack);
	*out = v;
	return n;
}

/* qsort has no context: the trace and key of the sort under way. */
static const struct trace *sort_trace;
static enum stat_key sort_key;

static int cmp_u64_down(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int by_key(const void *a, const void *b)
{
	const struct func_stat *x = a, *y = b;
	int c = 0;

	if (sort_key == STAT_TOTAL)
		c = cmp_u64_down(x->total, y->total);
	else if (sort_key == STAT_SELF)
		c = cmp_u64_down(x->self, y->self);
	else if (sort_key == STAT_CALLS)
		c = cmp_u64_down(x->calls, y->calls);
	if (!c) {
		char name[512];

		snprintf(name, sizeof(name), "%s",
			 trace_name(sort_trace, x->func));
		c = strcmp(name, trace_name(sort_trace, y->func));
	}
	return c ? c : (x->func > y->func) - (x->func < y->func);
}

void stats_sort(const struct trace *t, struct func_stat *v, size_t n,
		enum stat_key key)
{
	sort_trace = t;
	sort_key = key;
	if (n)
		qsort(v, n, sizeof(*v), by_key);
}

int stat_key_of(const char *name)
{
	static const struct { const char *name; enum stat_key key; } keys[] = {
		{ "total", STAT_TOTAL }, { "self", STAT_SELF },
		{ "calls", STAT_CALLS }, { "call", STAT_CALLS },
		{ "name", STAT_NAME }, { "func", STAT_NAME },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(name, keys[i].name))
			return (int)keys[i].key;
	return -1;
}
