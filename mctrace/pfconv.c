/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pfconv.c - a trace converted to Perfetto's protobuf trace
 * (perfetto.c) as a stream: the reader walks the file block by block
 * (trace_stream) and each call's beginning and end goes out as it
 * comes, so that the memory used is the names and each thread's open
 * calls, whatever the length of the trace.
 *
 * A trace recorded with a minimum time (--min-time) leaves out calls
 * shorter than it, and what they called.  A call is held back while it
 * is open and younger than that; at any event of its thread later by
 * the minimum, it is long enough, and goes out with the calls around it
 * that are (they began before it); at its end, it goes out only if it
 * lasted the minimum.  What a call left out called is shorter still:
 * left out too, with no buffering.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "perfetto.h"
#include "trace.h"

struct held {
	uint64_t start;
	uint32_t func;
	char **values;		/* name, text, ... of what it captured */
	size_t nvalues, vcap;	/* names and texts, two a value */
};

/* A thread's open calls; the first `shown` of them have begun. */
struct pf_open_calls {
	struct held *call;
	size_t n, cap, shown;
};

struct pfconv {
	const struct trace *t;
	const char *out;	/* "-": stdout */
	bool regular;		/* out is a regular file (not /dev/null) */
	struct pf *w;
	FILE *f;
	uint64_t min_time;
	uint64_t origin;	/* the recording's clock at its ns 0 */
	struct pf_open_calls *threads;
};

/* The thread's open calls as old as the minimum at `ns`, begun. */
static void show_old(struct pfconv *c, size_t k, uint64_t ns)
{
	struct pf_open_calls *o = &c->threads[k];

	while (o->shown < o->n && ns - o->call[o->shown].start >= c->min_time) {
		const struct held *h = &o->call[o->shown++];

		pf_begin(c->w, k, c->origin + h->start,
			 h->func, trace_name(c->t, h->func));
	}
}

static void begin(void *ctx, size_t k, uint64_t ns, uint32_t func)
{
	struct pfconv *c = ctx;
	struct pf_open_calls *o = &c->threads[k];

	show_old(c, k, ns);
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->call = realloc(o->call, o->cap * sizeof(*o->call));
		if (!o->call) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
	}
	o->call[o->n++] = (struct held){ .start = ns, .func = func };
	show_old(c, k, ns);
}

static char *copy(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return d;
}

/* A value of the innermost open call, held until its end. */
static void value(void *ctx, size_t k, unsigned which, const char *text)
{
	struct pfconv *c = ctx;
	struct held *h = &c->threads[k].call[c->threads[k].n - 1];
	char name[16];

	if (h->nvalues + 2 > h->vcap) {
		h->vcap = h->vcap ? 2 * h->vcap : 8;
		h->values = realloc(h->values, h->vcap * sizeof(*h->values));
		if (!h->values) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
	}
	if (which)
		snprintf(name, sizeof(name), "arg%u", which);
	h->values[h->nvalues++] = copy(which ? name : "retval");
	h->values[h->nvalues++] = copy(text);
}

static void held_free(struct held *h)
{
	for (size_t i = 0; i < h->nvalues; i++)
		free(h->values[i]);
	free(h->values);
}

static void end(void *ctx, size_t k, uint64_t ns, bool exited)
{
	struct pfconv *c = ctx;
	struct pf_open_calls *o = &c->threads[k];
	struct held *h = &o->call[o->n - 1];

	(void)exited;	/* an open call ends where its thread's events do */
	show_old(c, k, ns);
	if (o->shown == o->n)
		pf_end_values(c->w, k, c->origin + ns,
			      (const char *const *)h->values, h->nvalues / 2);
	held_free(h);
	o->n--;
	if (o->shown > o->n)
		o->shown = o->n;
}

/*
 * Process t->procs[i] as its MCT_INFO gives it: its program and
 * arguments (pid alone when it has none); `args` is to be freed.
 */
static struct pf_process process_of(const struct trace *t, size_t i,
				     const char ***args)
{
	struct pf_process proc = { .pid = t->procs[i].pid,
				   .name = trace_proc_info(t, i, "exe", 0) };
	size_t n = 0;

	while (trace_proc_info(t, i, "arg", n))
		n++;
	*args = malloc((n + 1) * sizeof(**args));
	if (!*args) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	for (size_t a = 0; a < n; a++)
		(*args)[a] = trace_proc_info(t, i, "arg", a);
	proc.cmdline = *args;
	proc.ncmdline = n;
	return proc;
}

/*
 * Each process's track, then its threads (t->threads holds a process's
 * threads together, in the order of the processes).
 */
static void processes(struct pf *w, const struct trace *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const char **args;
		struct pf_process proc = process_of(t, i, &args);

		pf_process(w, &proc);
		free(args);
		for (; k < t->nthreads && t->threads[k].proc == i; k++)
			pf_thread(w, t->threads[k].pid, t->threads[k].tid);
	}
}

/*
 * After the reader's first pass, which found the file whole enough: the
 * output, the processes, room for the threads.  0, or -1 after saying
 * why.
 */
static int start(void *ctx, const struct trace *t)
{
	struct pfconv *c = ctx;
	struct stat st;

	if (strcmp(c->out, "-") && out_refuse_read_only(c->out))
		return -1;
	if (strcmp(c->out, "-") && !(c->f = fopen(c->out, "wb"))) {
		fprintf(stderr, "mctrace: %s: %s\n", c->out, strerror(errno));
		return -1;
	}
	c->regular = fstat(fileno(c->f), &st) == 0 && S_ISREG(st.st_mode);
	c->t = t;
	c->min_time = t->min_time;
	c->origin = t->clock_ns;
	c->threads = calloc(t->nthreads + 1, sizeof(*c->threads));
	if (!c->threads) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	c->w = pf_open(c->f);
	processes(c->w, t);
	return 0;
}

/* What is left: the writer's buffer, the file; 0, or -1 if a write failed. */
static int finish(struct pfconv *c)
{
	int err = c->w && pf_close(c->w) != 0;

	if (c->t)
		for (size_t k = 0; k < c->t->nthreads; k++) {
			for (size_t i = 0; i < c->threads[k].n; i++)
				held_free(&c->threads[k].call[i]);
			free(c->threads[k].call);
		}
	free(c->threads);
	if (c->f && c->f != stdout && fclose(c->f) != 0)
		err = 1;
	if (c->f == stdout && fflush(stdout) != 0)
		err = 1;
	return err ? -1 : 0;
}

int perfetto_convert(const char *in, const char *out, bool say_lost,
		     const struct trace_opts *ro)
{
	struct pfconv c = { .out = out, .f = strcmp(out, "-") ? NULL : stdout };
	struct trace_sink sink = { .ctx = &c, .start = start,
				   .begin = begin, .end = end,
				   .value = value };
	struct trace t;
	int err = trace_stream(in, &t, ro, &sink) != 0;

	if (!err && say_lost) {
		char prefix[4200];

		snprintf(prefix, sizeof(prefix), "mctrace: %s: ", in);
		out_lost(&t, stderr, prefix);
	}
	if (finish(&c) != 0 && c.f) {
		fprintf(stderr, "mctrace: %s: write error\n", out);
		err = 1;
	}
	/* no half-written trace left to be opened as if whole */
	if (err && c.f && c.f != stdout && c.regular)
		unlink(out);
	trace_free(&t);
	return err;
}
