/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * calls.c - a trace's events made calls.
 *
 * Events are matched per thread with a stack: an entry opens a call, an
 * exit closes the innermost open one, whose function must have the
 * exit's tag (a mismatch is counted, never trusted).  Timestamps are the
 * clock's ticks, converted to ns through one MCT_CLOCK block.  The walk
 * goes a block of events at a time (calls_walk_*), carrying only each
 * thread's open calls from one to the next, into a sink: the loader's
 * keeps the calls (calls_build); a stream's writes them out as they
 * come (trace_stream).
 *
 * A call is named by the name its address had at its entry's ticks
 * (MCT_NAME from the start, MCT_NAME_AT from a library's load, both
 * ended by an MCT_UNLOAD over the address), and gets the function of
 * that address and name (trace.funcs).
 *
 * C++ names are demangled by the toolchain's own demangler, libstdc++'s
 * __cxa_demangle (the Itanium C++ ABI's, which clang's code uses too),
 * once per function, so that every output shows them alike; by default
 * cut to the name alone (recorder/demangle.c, as the recorder's filters
 * match them), and then one function a name, as uftrace counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "../recorder/demangle.h"
#include "values.h"

static int by_addr_from(const void *a, const void *b)
{
	const struct trace_name *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr > y->addr ? 1 : -1;
	if (x->from != y->from)
		return x->from > y->from ? 1 : -1;
	/* a library's name copied at its close wins over the lazy one */
	return (x->base > y->base) - (x->base < y->base);
}

static uint32_t func_add(struct trace *t, uint64_t addr, const char *name)
{
	t->funcs = grow(t->funcs, &t->funcs_cap, t->nfuncs + 1,
			sizeof(*t->funcs));
	t->funcs[t->nfuncs].addr = addr;
	t->funcs[t->nfuncs].name = name;
	t->funcs[t->nfuncs].demangled = NULL;
	return (uint32_t)t->nfuncs++;
}

static int by_name_offset(const void *a, const void *b)
{
	const struct trace_name *x = *(struct trace_name *const *)a;
	const struct trace_name *y = *(struct trace_name *const *)b;
	uint64_t ox = x->addr - x->base, oy = y->addr - y->base;
	int c = strcmp(x->name, y->name);

	return c ? c : (ox > oy) - (ox < oy);
}

/* The ends of the names: the first unload over each after its start. */
static void names_end(struct trace *t)
{
	for (size_t i = 0; i < t->nnames; i++) {
		struct trace_name *n = &t->names[i];

		n->until = UINT64_MAX;
		for (size_t u = 0; u < t->nunloads; u++)
			if (n->addr >= t->unloads[u].lo &&
			    n->addr < t->unloads[u].hi &&
			    t->unloads[u].at > n->from &&
			    t->unloads[u].at < n->until)
				n->until = t->unloads[u].at;
	}
}

/*
 * Sort the names, end them, and give each (address, name) a function;
 * the names of libraries opened while recording are one function per
 * (name, offset in the library).
 */
static void names_settle(struct trace *t)
{
	struct trace_name **lib = xmalloc((t->nnames + 1) * sizeof(*lib));
	size_t nlib = 0;

	if (t->nnames)	/* qsort may not be given NULL */
		qsort(t->names, t->nnames, sizeof(*t->names), by_addr_from);
	names_end(t);
	for (size_t i = 0; i < t->nnames; i++) {
		struct trace_name *n = &t->names[i];

		if (n->base)
			lib[nlib++] = n;
		else if (i && n[-1].addr == n->addr && !n[-1].base &&
			 !strcmp(n[-1].name, n->name))
			n->func = n[-1].func;
		else
			n->func = func_add(t, n->addr,
					   n->name[0] ? n->name : NULL);
	}
	qsort(lib, nlib, sizeof(*lib), by_name_offset);
	for (size_t i = 0; i < nlib; i++)
		lib[i]->func = i && !by_name_offset(&lib[i - 1], &lib[i]) ?
			lib[i - 1]->func :
			func_add(t, lib[i]->addr,
				 lib[i]->name[0] ? lib[i]->name : NULL);
	free(lib);
}

/* Functions of addresses no name is in force for, by address. */
struct unnamed {
	uint64_t *addr;		/* open addressing; 0 is empty */
	uint32_t *func;
	size_t cap, n;
};

static uint32_t unnamed_func(struct trace *t, struct unnamed *u,
			     uint64_t addr)
{
	size_t h;

	if (2 * (u->n + 1) > u->cap) {
		struct unnamed v = { .cap = u->cap ? 2 * u->cap : 256 };

		v.addr = calloc(v.cap, sizeof(*v.addr));
		v.func = calloc(v.cap, sizeof(*v.func));
		if (!v.addr || !v.func) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < u->cap; i++) {
			if (!u->addr[i])
				continue;
			for (h = (u->addr[i] >> 2) & (v.cap - 1); v.addr[h];
			     h = (h + 1) & (v.cap - 1))
				;
			v.addr[h] = u->addr[i];
			v.func[h] = u->func[i];
		}
		v.n = u->n;
		free(u->addr);
		free(u->func);
		*u = v;
	}
	for (h = (addr >> 2) & (u->cap - 1); u->addr[h] && u->addr[h] != addr;
	     h = (h + 1) & (u->cap - 1))
		;
	if (!u->addr[h]) {
		u->addr[h] = addr;
		u->func[h] = func_add(t, addr, NULL);
		u->n++;
	}
	return u->func[h];
}

/* The function of a call entered at `addr` at `ticks`. */
static uint32_t func_of(struct trace *t, struct unnamed *u, uint64_t addr,
			uint64_t ticks)
{
	size_t lo = 0, hi = t->nnames;

	/* the last name of addr from at or before ticks */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct trace_name *n = &t->names[mid];

		if (n->addr < addr || (n->addr == addr && n->from <= ticks))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && t->names[lo - 1].addr == addr &&
	    ticks < t->names[lo - 1].until)
		return t->names[lo - 1].func;
	return unnamed_func(t, u, addr);
}

/*
 * A thread's place in the walk, from block to block: the addresses of
 * its open calls (their exits' tags are checked against them), and the
 * time of its last event (times never go back within a thread).
 */
struct walk_thread {
	uint64_t *addr;
	size_t depth, cap;
	uint64_t last;
	struct value_text value;	/* one being made (values.h) */
};

struct calls_walk {
	struct trace *t;
	const struct trace_sink *sink;
	struct walk_thread *th;		/* one per t->threads at the start */
	size_t nthreads;
	uint64_t ticks0;		/* the clock's first instant */
	double ratio;			/* ns per tick */
	struct unnamed u;
};

/*
 * The C++ ABI's demangler, exported by libstdc++ with C linkage (cxxabi.h
 * declares it for C++ only): a malloc'ed name, or NULL with *status < 0.
 */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

/* A C++ function's name as `how` shows it: malloc'ed, or NULL. */
static char *demangled(const char *name, enum trace_demangle how)
{
	int status;
	char *full = __cxa_demangle(name, NULL, NULL, &status), *simple;

	if (!full || how == TRACE_DEMANGLE_FULL)
		return full;
	simple = rec_demangle_simple(full);
	free(full);
	return simple;
}

struct named {
	const char *name;
	uint32_t func;
};

static int by_name_then_func(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->func > y->func) - (x->func < y->func);
}

/*
 * Shown by name alone, a template's instances and a function's
 * overloads are one name: one function, the first of them, whose
 * figures are the sum, as uftrace's are.  Only C++ names are merged: two
 * C functions of one name (static ones, in two objects) stay two.
 */
static void merge_same_names(struct trace *t)
{
	struct named *cxx = xmalloc((t->nfuncs + 1) * sizeof(*cxx));
	uint32_t *same = xmalloc((t->nfuncs + 1) * sizeof(*same));
	size_t n = 0;

	for (size_t i = 0; i < t->nfuncs; i++) {
		same[i] = (uint32_t)i;
		if (t->funcs[i].demangled)
			cxx[n++] = (struct named){ t->funcs[i].name,
						   (uint32_t)i };
	}
	qsort(cxx, n, sizeof(*cxx), by_name_then_func);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(cxx[i].name, cxx[i - 1].name))
			same[cxx[i].func] = same[cxx[i - 1].func];
	for (size_t i = 0; i < t->nnames; i++)
		t->names[i].func = same[t->names[i].func];
	free(same);
	free(cxx);
}

/* Each function's name demangled as `how` says, where it is a C++ one. */
static void demangle_names(struct trace *t, enum trace_demangle how)
{
	if (how == TRACE_DEMANGLE_NO)
		return;
	for (size_t i = 0; i < t->nfuncs; i++) {
		const char *name = t->funcs[i].name;

		if (!name || strncmp(name, "_Z", 2))
			continue;
		t->funcs[i].demangled = demangled(name, how);
		if (t->funcs[i].demangled)
			t->funcs[i].name = t->funcs[i].demangled;
	}
	if (how == TRACE_DEMANGLE_SIMPLE)
		merge_same_names(t);
}

struct calls_walk *calls_walk_start(struct trace *t, const uint64_t clk[4],
				    enum trace_demangle demangle,
				    const struct trace_sink *sink)
{
	struct calls_walk *w = xmalloc(sizeof(*w));

	*w = (struct calls_walk){ .t = t, .sink = sink, .ticks0 = clk[0],
		.nthreads = t->nthreads, .ratio = clk[2] > clk[0] ?
		(double)(clk[3] - clk[1]) / (double)(clk[2] - clk[0]) : 1.0 };
	t->clock_ns = clk[2] > clk[0] ? clk[1] : 0;
	names_settle(t);
	/* the functions of no name, found later, need none */
	demangle_names(t, demangle);
	w->th = xmalloc((t->nthreads + 1) * sizeof(*w->th));
	memset(w->th, 0, (t->nthreads + 1) * sizeof(*w->th));
	return w;
}

static uint64_t ns_of(const struct calls_walk *w, struct walk_thread *wt,
		      uint64_t ticks)
{
	double at = ticks > w->ticks0 ?
		(double)(ticks - w->ticks0) * w->ratio : 0;
	/* a made-up clock's ratio can take ticks past 64 bits of ns */
	uint64_t ns = at < 0x1p64 ? (uint64_t)at : UINT64_MAX;

	if (ns < wt->last)
		ns = wt->last;
	return wt->last = ns;
}

/* Thread k's value just made, to its innermost open call, if any. */
static void value_out(struct calls_walk *w, size_t k)
{
	const struct walk_thread *wt = &w->th[k];

	if (wt->depth && w->sink->value)
		w->sink->value(w->sink->ctx, k, wt->value.which,
			       wt->value.text);
}

void calls_walk_events(struct calls_walk *w, size_t k, const struct raw *r)
{
	struct walk_thread *wt = &w->th[k];
	const struct trace_sink *s = w->sink;

	w->t->events += r->n;
	for (size_t i = 0; i < r->n; i++) {
		const struct mct_event *e = &r->ev[i];
		uint64_t ticks = MCT_TICKS(e->word), ns;

		if (MCT_KIND(e->word) == MCT_DATA) {
			w->t->events--;
			if (value_feed(&wt->value, e))
				value_out(w, k);
			continue;
		}
		if (value_end(&wt->value))
			value_out(w, k);
		ns = ns_of(w, wt, ticks);
		if (MCT_KIND(e->word) == MCT_ENTRY) {
			wt->addr = grow(wt->addr, &wt->cap, wt->depth + 1,
					sizeof(*wt->addr));
			wt->addr[wt->depth++] = e->func;
			s->begin(s->ctx, k, ns, func_of(w->t, &w->u, e->func,
							ticks));
		} else if (wt->depth &&
			   mct_exit_tag(wt->addr[wt->depth - 1]) == e->func) {
			wt->depth--;
			s->end(s->ctx, k, ns, true);
		} else {
			w->t->bad_exits++;
		}
	}
}

void calls_walk_end(struct calls_walk *w)
{
	for (size_t k = 0; k < w->nthreads; k++) {
		struct walk_thread *wt = &w->th[k];

		if (value_end(&wt->value))
			value_out(w, k);
		while (wt->depth) {
			wt->depth--;
			w->sink->end(w->sink->ctx, k, wt->last, false);
		}
		free(wt->addr);
		value_free(&wt->value);
	}
	free(w->th);
	free(w->u.addr);
	free(w->u.func);
	free(w);
}

/* The loader's sink: the calls in memory, each thread's open ones stacked. */
struct load {
	struct trace *t;
	struct { size_t *call, depth, cap; } *open;
};

static void load_begin(void *ctx, size_t k, uint64_t ns, uint32_t func)
{
	struct load *l = ctx;
	struct thread *th = &l->t->threads[k];

	th->calls = grow(th->calls, &th->cap, th->ncalls + 1,
			 sizeof(*th->calls));
	th->calls[th->ncalls] = (struct call){ .func = func, .start = ns,
		.end = ns, .depth = (uint32_t)l->open[k].depth, .open = true };
	l->open[k].call = grow(l->open[k].call, &l->open[k].cap,
			       l->open[k].depth + 1, sizeof(size_t));
	l->open[k].call[l->open[k].depth++] = th->ncalls++;
}

static void load_end(void *ctx, size_t k, uint64_t ns, bool exited)
{
	struct load *l = ctx;
	struct call *c = &l->t->threads[k].calls[
		l->open[k].call[--l->open[k].depth]];

	c->end = ns;
	c->open = !exited;
}

/* A value of the innermost open call, at the end of its list. */
static void load_value(void *ctx, size_t k, unsigned which, const char *text)
{
	struct load *l = ctx;
	struct thread *th = &l->t->threads[k];
	uint32_t *link = &th->calls[l->open[k].call[l->open[k].depth - 1]]
		.values;
	size_t n = strlen(text) + 1;

	while (*link)
		link = &th->values[*link - 1].next;
	th->values = grow(th->values, &th->vcap, th->nvalues + 1,
			  sizeof(*th->values));
	th->values[th->nvalues] = (struct call_value){
		.text = memcpy(xmalloc(n), text, n), .which = (uint8_t)which };
	*link = (uint32_t)++th->nvalues;
}

const struct call_value *call_values(const struct thread *th,
				     const struct call *c)
{
	return c->values ? &th->values[c->values - 1] : NULL;
}

const struct call_value *call_value_next(const struct thread *th,
					 const struct call_value *v)
{
	return v->next ? &th->values[v->next - 1] : NULL;
}

void calls_build(struct trace *t, const struct raw *raws, size_t nraw,
		 const uint64_t clk[4], enum trace_demangle demangle)
{
	struct load l = { .t = t };
	struct trace_sink sink = { .ctx = &l, .begin = load_begin,
				   .end = load_end, .value = load_value };
	struct calls_walk *w = calls_walk_start(t, clk, demangle, &sink);

	l.open = xmalloc((t->nthreads + 1) * sizeof(*l.open));
	memset(l.open, 0, (t->nthreads + 1) * sizeof(*l.open));
	for (size_t i = 0; i < nraw; i++)
		for (size_t k = 0; k < t->nthreads; k++)
			if (t->threads[k].tid == raws[i].tid)
				calls_walk_events(w, k, &raws[i]);
	calls_walk_end(w);
	for (size_t k = 0; k < t->nthreads; k++)
		free(l.open[k].call);
	free(l.open);
}
