/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output.c - what mctrace prints from a trace: the report, the function
 * graph, raw events, Chrome's trace-event JSON, folded stacks.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* ---- report -------------------------------------------------------------- */

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

/* Self time: the call's time minus that of the calls it made directly. */
static uint64_t self_time(const struct thread *th, size_t i)
{
	const struct call *c = &th->calls[i];
	uint64_t self = c->end - c->start;

	for (size_t k = i + 1; k < th->ncalls && th->calls[k].depth > c->depth;
	     k++) {
		uint64_t d = th->calls[k].end - th->calls[k].start;

		if (th->calls[k].depth == c->depth + 1)
			self = self > d ? self - d : 0;
	}
	return self;
}

static void print_time(FILE *f, uint64_t ns)
{
	if (ns < 10000)
		fprintf(f, "%8llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		fprintf(f, "%8.3f us", ns / 1e3);
	else if (ns < 10000000000ull)
		fprintf(f, "%8.3f ms", ns / 1e6);
	else
		fprintf(f, "%8.3f  s", ns / 1e9);
}

/* Every thread's lost calls by reason; their sum (MCT_LOST's). */
static uint64_t lost_calls(const struct trace *t, uint64_t why[MCT_LOST_WHYS])
{
	uint64_t lost = 0;

	memset(why, 0, MCT_LOST_WHYS * sizeof(*why));
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		uint64_t sum = 0;

		for (unsigned r = 0; r < MCT_LOST_WHYS; r++) {
			why[r] += th->lost_why[r];
			sum += th->lost_why[r];
		}
		/* (a file cut short between the two blocks) */
		lost += th->lost > sum ? th->lost : sum;
	}
	return lost;
}

void out_lost(const struct trace *t, FILE *f, const char *prefix)
{
	uint64_t why[MCT_LOST_WHYS], lost = lost_calls(t, why), told = 0;
	const char *sep = ": ";

	if (!lost)
		return;
	fprintf(f, "%s%llu calls not recorded", prefix,
		(unsigned long long)lost);
	for (unsigned r = 0; r < MCT_LOST_WHYS; r++)
		if (why[r]) {
			fprintf(f, "%s%llu %s", sep, (unsigned long long)why[r],
				mct_lost_why_text(r));
			sep = ", ";
			told += why[r];
		}
	/* an older recorder's file (no reasons), or a newer one's reasons */
	if (!told)
		fputs(" (the file does not say why)", f);
	else if (told < lost)
		fprintf(f, "%s%llu another reason", sep,
			(unsigned long long)(lost - told));
	fputc('\n', f);
}

static void print_lost(const struct trace *t, FILE *f)
{
	out_lost(t, f, "# ");
	if (t->bad_exits)
		fprintf(f, "# %zu exits that matched no entry\n", t->bad_exits);
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
			s->self += self_time(th, i);
		}
	}
	qsort(v, n, sizeof(*v), by_total);
	fprintf(f, "  Total time    Self time       Calls  Function\n");
	fprintf(f, "  ==========  ===========  ==========  ====================\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, " ");
		print_time(f, v[i].total);
		fprintf(f, "  ");
		print_time(f, v[i].self);
		fprintf(f, "  %10llu  %s\n", (unsigned long long)v[i].calls,
			trace_name(t, v[i].func));
	}
	print_lost(t, f);
	free(v);
}

/* ---- function graph ---------------------------------------------------- */

static void indent(FILE *f, uint32_t depth)
{
	for (uint32_t i = 0; i <= depth; i++)
		fputs("  ", f);
}

/*
 * ftrace's function_graph: a call with no recorded callee is one line
 * with its time; one with callees opens a brace, and its time is on the
 * line that closes it.
 */
void out_graph(const struct trace *t, FILE *f)
{
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		size_t *open = malloc((th->ncalls + 1) * sizeof(*open)), n = 0;

		fprintf(f, "# pid %u, tid %u: %zu calls\n", t->pid, th->tid,
			th->ncalls);
		fprintf(f, "#   DURATION    |  FUNCTION\n");
		for (size_t i = 0; i <= th->ncalls; i++) {
			uint32_t depth = i < th->ncalls ? th->calls[i].depth : 0;

			while (n && th->calls[open[n - 1]].depth >= depth) {
				const struct call *c = &th->calls[open[--n]];

				fputs(" ", f);
				print_time(f, c->end - c->start);
				fputs(" |", f);
				indent(f, c->depth);
				fprintf(f, "} /* %s */\n", trace_name(t, c->func));
				if (i == th->ncalls && !n)
					break;
			}
			if (i == th->ncalls)
				break;
			const struct call *c = &th->calls[i];
			bool leaf = i + 1 == th->ncalls ||
				    th->calls[i + 1].depth <= c->depth;

			if (leaf) {
				fputs(" ", f);
				print_time(f, c->end - c->start);
				fputs(" |", f);
			} else {
				fputs("             |", f);
				open[n++] = i;
			}
			indent(f, c->depth);
			fprintf(f, "%s()%s\n", trace_name(t, c->func),
				leaf ? ";" : " {");
		}
		free(open);
		fputs("\n", f);
	}
	print_lost(t, f);
}

/*
 * One line an event, in each thread's order: tid, ns, E (entry) or X
 * (exit), depth, name.  For tests and scripts.
 */
void out_raw(const struct trace *t, FILE *f)
{
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		size_t *open = malloc((th->ncalls + 1) * sizeof(*open)), n = 0;

		for (size_t i = 0; i <= th->ncalls; i++) {
			uint32_t depth = i < th->ncalls ? th->calls[i].depth : 0;

			while (n && (i == th->ncalls ||
				     th->calls[open[n - 1]].depth >= depth)) {
				const struct call *c = &th->calls[open[--n]];

				fprintf(f, "%u %llu X %u %s\n", th->tid,
					(unsigned long long)c->end, c->depth,
					trace_name(t, c->func));
			}
			if (i == th->ncalls)
				break;
			fprintf(f, "%u %llu E %u %s\n", th->tid,
				(unsigned long long)th->calls[i].start,
				th->calls[i].depth,
				trace_name(t, th->calls[i].func));
			open[n++] = i;
		}
		free(open);
	}
}

/* ---- Chrome trace-event JSON --------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Complete ("X") events, ts and dur in microseconds. */
void out_chrome(const struct trace *t, FILE *f)
{
	uint64_t why[MCT_LOST_WHYS], lost = lost_calls(t, why);
	bool first = true;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];

		for (size_t i = 0; i < th->ncalls; i++) {
			const struct call *c = &th->calls[i];
			uint64_t d = c->end - c->start;

			fprintf(f, "%s{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
				"\"ts\":%llu.%03u,\"dur\":%llu.%03u,\"name\":",
				first ? "" : ",\n", t->pid, th->tid,
				(unsigned long long)(c->start / 1000),
				(unsigned)(c->start % 1000),
				(unsigned long long)(d / 1000),
				(unsigned)(d % 1000));
			json_string(f, trace_name(t, c->func));
			fputc('}', f);
			first = false;
		}
	}
	fprintf(f, "%s{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":"
		"\"process_name\",\"args\":{\"name\":\"pid %u\"}}\n],\n"
		"\"otherData\":{\"lost_calls\":\"%llu\"", first ? "" : ",\n",
		t->pid, t->pid, (unsigned long long)lost);
	for (unsigned r = 0; r < MCT_LOST_WHYS; r++)
		fprintf(f, ",\"%s\":\"%llu\"", mct_lost_why_key(r),
			(unsigned long long)why[r]);
	fprintf(f, "}}\n");
}

/* ---- folded stacks ------------------------------------------------------- */

/*
 * Brendan Gregg's folded format: one line a call, its stack joined by
 * ';', then its self time in ns (flamegraph.pl and speedscope read it;
 * lines of one stack add up).
 */
void out_folded(const struct trace *t, FILE *f)
{
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		size_t *path = malloc((th->ncalls + 1) * sizeof(*path));

		for (size_t i = 0; i < th->ncalls; i++) {
			const struct call *c = &th->calls[i];

			path[c->depth] = i;
			for (uint32_t d = 0; d <= c->depth; d++)
				fprintf(f, "%s%s", d ? ";" : "",
					trace_name(t, th->calls[path[d]].func));
			fprintf(f, " %llu\n",
				(unsigned long long)self_time(th, i));
		}
		free(path);
	}
}
