/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.c - the read-time filters every reading command takes, as one
 * pass over the loaded trace: the commands then see only the calls
 * kept, each at the depth of its kept callers.
 *
 *   -F GLOB    the calls of matching functions, and all they call
 *   -N GLOB    not matching functions, nor anything they call
 *   --depth N  N levels, counted from the outermost call kept
 *   --tid T,.. those threads only
 *   --pid P,.. those processes' threads only
 *   --time-range A~B   calls that started between A and B after the
 *                      recording began (either end may be left out)
 *   --min-time T       calls that took at least T
 *
 * uftrace's habits: with -F, depth counts from the matching call, so
 * `-F mid --depth 1` shows mid's calls alone; -N wins over -F.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter.h"

static const char **push(const char **v, size_t *n, const char *s)
{
	v = realloc(v, (*n + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	v[(*n)++] = s;
	return v;
}

/* "12,34": ids appended to v[*n]; -1 if it is not such a list. */
static int parse_ids(uint32_t **v, size_t *n, const char *arg)
{
	const char *p = arg;

	while (*p) {
		char *end;
		unsigned long id;

		errno = 0;
		id = strtoul(p, &end, 10);
		if (errno || end == p || id > UINT32_MAX ||
		    (*end && *end != ','))
			return -1;
		*v = realloc(*v, (*n + 1) * sizeof(**v));
		if (!*v)
			return -1;
		(*v)[(*n)++] = (uint32_t)id;
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

/* "A~B", "A~", "~B": a time each, ns when no unit. */
static int parse_range(struct filter *f, const char *arg)
{
	const char *tilde = strchr(arg, '~');
	char lo[64];
	long long a = 0, b = -1;

	if (!tilde || (size_t)(tilde - arg) >= sizeof(lo))
		return -1;
	memcpy(lo, arg, (size_t)(tilde - arg));
	lo[tilde - arg] = '\0';
	if (lo[0] && (a = parse_time(lo)) < 0)
		return -1;
	if (tilde[1] && (b = parse_time(tilde + 1)) < 0)
		return -1;
	if (b >= 0 && b < a)
		return -1;
	f->from = (uint64_t)a;
	f->to = b < 0 ? UINT64_MAX : (uint64_t)b;
	return 0;
}

static int bad(const struct filter *f, const char *opt, const char *arg,
	       const char *what)
{
	fprintf(stderr, "mctrace %s: option '%s %s': %s\n", f->cmd, opt, arg,
		what);
	cli_try(f->cmd);
	return -1;
}

int filter_option(struct filter *f, int opt, const char *arg)
{
	long long v;
	char *end;

	switch (opt) {
	case 'F':
		f->only = push(f->only, &f->nonly, arg);
		return 1;
	case 'N':
		f->never = push(f->never, &f->nnever, arg);
		return 1;
	case 'D':
		errno = 0;
		v = strtoll(arg, &end, 10);
		if (errno || *end || end == arg || v < 1)
			return bad(f, "--depth", arg,
				   "not a depth (1 or more)");
		f->depth = (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
		return 1;
	case FILTER_TID:
		if (parse_ids(&f->tids, &f->ntids, arg))
			return bad(f, "--tid", arg,
				   "not a list of tids (12,34)");
		return 1;
	case FILTER_PID:
		if (parse_ids(&f->pids, &f->npids, arg))
			return bad(f, "--pid", arg,
				   "not a list of pids (12,34)");
		return 1;
	case 'r':
		if (parse_range(f, arg))
			return bad(f, "--time-range", arg,
				   "not a time range (1ms~2ms, 5us~, ~1s)");
		return 1;
	case 't':
		if ((v = parse_time(arg)) < 0)
			return bad(f, "--min-time", arg,
				   "not a time (10us, 1ms, ...)");
		f->min_time = (uint64_t)v;
		return 1;
	}
	return 0;
}

static bool any_match(const char **globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

static bool id_in(const uint32_t *ids, size_t n, uint32_t id)
{
	if (!n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool thread_wanted(const struct filter *f, const struct thread *th)
{
	return id_in(f->tids, f->ntids, th->tid) &&
	       id_in(f->pids, f->npids, th->pid);
}

/* What the filter knows of an open caller while its callees are read. */
struct open_call {
	uint32_t depth;		/* as recorded */
	bool kept, only, never;
};

/* Which globs each function's name matches: one fnmatch a function. */
enum { MATCH_ONLY = 1, MATCH_NEVER = 2 };

static uint8_t *match_funcs(const struct trace *t, const struct filter *f)
{
	uint8_t *m = calloc(t->nfuncs + 1, 1);

	if (!m) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < t->nfuncs; i++) {
		const char *name = trace_name(t, i);

		m[i] = (any_match(f->only, f->nonly, name) ? MATCH_ONLY : 0) |
		       (any_match(f->never, f->nnever, name) ? MATCH_NEVER : 0);
	}
	return m;
}

/* Whether the filter keeps call `c`, whose open callers are `up`. */
static bool keep_call(const struct filter *f, const uint8_t *match,
		      const struct call *c, struct open_call *me,
		      const struct open_call *up)
{
	me->never = (up && up->never) || (match[c->func] & MATCH_NEVER);
	me->only = !f->nonly || (up && up->only) ||
		   (match[c->func] & MATCH_ONLY);
	return me->only && !me->never && c->start >= f->from &&
	       c->start <= f->to && c->end - c->start >= f->min_time;
}

static void filter_thread(const struct filter *f, const uint8_t *match,
			  struct thread *th)
{
	struct open_call *stack = malloc((th->ncalls + 1) * sizeof(*stack));
	size_t n = 0, kept = 0, out = 0;

	if (!stack) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < th->ncalls; i++) {
		struct call c = th->calls[i];
		struct open_call *me;

		while (n && stack[n - 1].depth >= c.depth)
			kept -= stack[--n].kept;
		me = &stack[n];
		me->depth = c.depth;
		me->kept = keep_call(f, match, &c, me,
				     n ? &stack[n - 1] : NULL) &&
			   kept < f->depth;
		if (me->kept) {
			c.depth = (uint32_t)kept;
			th->calls[out++] = c;
		}
		kept += me->kept;
		n++;
	}
	th->ncalls = out;
	free(stack);
}

bool filter_active(const struct filter *f)
{
	return f->nonly || f->nnever || f->depth != UINT32_MAX || f->ntids ||
	       f->npids ||
	       f->from || f->to != UINT64_MAX || f->min_time;
}

void filter_apply(struct trace *t, const struct filter *f)
{
	size_t out = 0;
	uint8_t *match;

	if (!filter_active(f))
		return;
	match = match_funcs(t, f);
	for (size_t k = 0; k < t->nthreads; k++) {
		struct thread *th = &t->threads[k];

		if (!thread_wanted(f, th)) {
			thread_free(th);
			continue;
		}
		filter_thread(f, match, th);
		t->threads[out++] = *th;
	}
	t->nthreads = out;
	free(match);
}

void filter_free(struct filter *f)
{
	free(f->only);
	free(f->never);
	free(f->tids);
	free(f->pids);
	*f = (struct filter)FILTER_INIT(f->cmd);
}

/*
 * A --tid (`pids` false) or --pid the trace has no thread of: said, as
 * a typo would be.
 */
static bool ids_present(const char *path, const uint32_t *ids, size_t n,
			const struct trace *t, bool pids)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < t->nthreads && (pids ? t->threads[k].pid :
					   t->threads[k].tid) != ids[i])
			k++;
		if (k == t->nthreads) {
			fprintf(stderr, "mctrace: %s: --%s %u: no such %s in "
				"the trace (mctrace info lists them)\n", path,
				pids ? "pid" : "tid", ids[i],
				pids ? "process" : "thread");
			return false;
		}
	}
	return true;
}

int filter_read(const char *path, const struct trace_opts *ro,
		const struct filter *f, struct trace *t)
{
	static const struct trace_opts plain;

	if (trace_read_opts(path, t, ro ? ro : &plain) != 0)
		return -1;
	if (f && (!ids_present(path, f->tids, f->ntids, t, false) ||
		  !ids_present(path, f->pids, f->npids, t, true))) {
		trace_free(t);
		return -1;
	}
	if (f)
		filter_apply(t, f);
	return 0;
}

int filter_read_plain(const char *cmd, int argc, char **argv,
		      void (*help)(FILE *), struct filter *flt,
		      struct trace *t, const char **file)
{
	static const struct option opts[] = {
		FILTER_LONGOPTS,
		CLI_DEMANGLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts ro = { 0 };
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" FILTER_SHORTOPTS "h", opts,
				NULL)) != -1) {
		if (c == 'h')
			return help(stdout), 0;
		if ((r = cli_demangle_option(cmd, c, optarg, &ro))) {
			if (r < 0)
				return 2;
		} else if ((r = filter_option(flt, c, optarg)) <= 0) {
			return r ? 2 : cli_bad_option(cmd, c, argv);
		}
	}
	if ((r = cli_file_arg(cmd, argc, argv, file)))
		return r;
	return filter_read(*file, &ro, flt, t) ? 1 : -1;
}
