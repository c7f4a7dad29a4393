/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.c - `mctrace replay`: every call, in the order the threads made
 * them, interleaved by time, as uftrace replay shows them: the time of
 * the line's event (from the recording's start), the call's duration,
 * its thread (pid/tid in a trace of several processes), and the
 * function nested by depth.  A call with no
 * recorded callee is one line; one with callees opens a brace at its
 * entry and closes it, with its duration, at its exit.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "output.h"

/* Where one thread's lines are: its next call, and the calls open. */
struct cursor {
	const struct thread *th;
	size_t next;		/* index of the next call to enter */
	size_t *open, nopen;	/* indices of the calls entered, not left */
	uint64_t at;		/* the time of its next line */
	bool leaving;		/* which is the exit of the innermost open */
	bool pids;		/* the trace has several processes */
};

/* The time of the cursor's next line; false when it has none. */
static bool cursor_next(struct cursor *c)
{
	const struct thread *th = c->th;

	if (c->nopen && (c->next == th->ncalls ||
			 th->calls[c->open[c->nopen - 1]].depth >=
			 th->calls[c->next].depth)) {
		c->at = th->calls[c->open[c->nopen - 1]].end;
		c->leaving = true;
		return true;
	}
	if (c->next == th->ncalls)
		return false;
	c->at = th->calls[c->next].start;
	c->leaving = false;
	return true;
}

static bool is_leaf(const struct thread *th, size_t i)
{
	return i + 1 == th->ncalls || th->calls[i + 1].depth <= th->calls[i].depth;
}

static void print_head(FILE *f, uint64_t at, const uint64_t *dur,
		       const struct cursor *c, uint32_t depth)
{
	fprintf(f, "%6llu.%09llu ", (unsigned long long)(at / 1000000000),
		(unsigned long long)(at % 1000000000));
	if (dur)
		out_time(f, *dur);
	else
		fputs("           ", f);
	if (c->pids)
		fprintf(f, " [%6u/%6u] | ", c->th->pid, c->th->tid);
	else
		fprintf(f, " [%6u] | ", c->th->tid);
	for (uint32_t i = 0; i < depth; i++)
		fputs("  ", f);
}

/*
 * A call's arguments captured (-A), as uftrace shows them:
 * func(1, "abc"); nothing between the parentheses if none.
 */
static void print_args(FILE *f, const struct thread *th, const struct call *k)
{
	bool first = true;

	for (const struct call_value *v = call_values(th, k); v;
	     v = call_value_next(th, v)) {
		if (!v->which)
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", v->text);
		first = false;
	}
}

/* Its return value captured (-R): " = 42", or nothing (false). */
static bool print_retval(FILE *f, const struct thread *th,
			 const struct call *k)
{
	for (const struct call_value *v = call_values(th, k); v;
	     v = call_value_next(th, v))
		if (!v->which) {
			fprintf(f, " = %s", v->text);
			return true;
		}
	return false;
}

/* Print the cursor's next line and step past it. */
static void cursor_print(const struct trace *t, struct cursor *c, FILE *f)
{
	const struct thread *th = c->th;

	if (c->leaving) {
		const struct call *k = &th->calls[c->open[--c->nopen]];
		uint64_t d = k->end - k->start;

		print_head(f, k->end, &d, c, k->depth);
		fputs("}", f);
		fprintf(f, "%s /* %s */\n", print_retval(f, th, k) ? ";" : "",
			trace_name(t, k->func));
		return;
	}
	const struct call *k = &th->calls[c->next];
	uint64_t d = k->end - k->start;

	print_head(f, k->start, is_leaf(th, c->next) ? &d : NULL, c,
		   k->depth);
	fprintf(f, "%s(", trace_name(t, k->func));
	print_args(f, th, k);
	if (is_leaf(th, c->next)) {
		fputs(")", f);
		print_retval(f, th, k);
		fputs(";\n", f);
	} else {
		fputs(") {\n", f);
		c->open[c->nopen++] = c->next;
	}
	c->next++;
}

/* A min-heap of cursors by the time of their next line, then thread. */
static bool before(const struct cursor *a, const struct cursor *b)
{
	return a->at != b->at ? a->at < b->at : a->th < b->th;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(h[l], h[m]))
			m = l;
		if (l + 1 < n && before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cursor *x = h[i];

		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

void out_replay(const struct trace *t, FILE *f)
{
	struct cursor *cur = calloc(t->nthreads + 1, sizeof(*cur));
	struct cursor **heap = calloc(t->nthreads + 1, sizeof(*heap));
	size_t n = 0;

	if (!cur || !heap) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	fprintf(f, t->nprocs > 1 ?
		"#      TIMESTAMP    DURATION     PID/TID       FUNCTION\n" :
		"#      TIMESTAMP    DURATION      TID    FUNCTION\n");
	for (size_t k = 0; k < t->nthreads; k++) {
		cur[k].th = &t->threads[k];
		cur[k].pids = t->nprocs > 1;
		cur[k].open = malloc((t->threads[k].ncalls + 1) * sizeof(size_t));
		if (!cur[k].open) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		if (cursor_next(&cur[k]))
			heap[n++] = &cur[k];
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(heap, n, i);
	while (n) {
		cursor_print(t, heap[0], f);
		if (!cursor_next(heap[0]))
			heap[0] = heap[--n];
		sift_down(heap, n, 0);
	}
	for (size_t k = 0; k < t->nthreads; k++)
		free(cur[k].open);
	free(cur);
	free(heap);
	out_lost_footer(t, f);
}

static void replay_help(FILE *f)
{
	fprintf(f,
"Usage: mctrace replay [FILTERS] [FILE]\n"
"Every call, threads interleaved by time: the time of the line's event\n"
"(seconds from the recording's start), the call's duration, its thread\n"
"(PID/TID when the trace holds several processes), the function nested\n"
"by depth (one line for a call with no callee; one at its entry and one\n"
"at its exit for a call with callees).\n"
"FILE is mctrace.data unless given.\n"
CLI_NO_DEMANGLE_HELP
FILTER_HELP);
}

int cmd_replay(int argc, char **argv)
{
	struct filter flt = FILTER_INIT("replay");
	const char *file;
	struct trace t;
	int r = filter_read_plain("replay", argc, argv, replay_help, &flt, &t, &file);

	if (r >= 0)
		return r;
	out_replay(&t, stdout);
	trace_free(&t);
	filter_free(&flt);
	return out_done(stdout, "stdout");
}
