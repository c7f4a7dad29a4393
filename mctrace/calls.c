/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * calls.c - a trace's events made calls.
 *
 * Events are matched per thread with a stack: an entry opens a call, an
 * exit closes the innermost open one, whose function must have the
 * exit's tag (a mismatch is counted, never trusted).  Timestamps are the
 * clock's ticks, converted to ns through one MCT_CLOCK block.
 *
 * A call is named by the name its address had at its entry's ticks
 * (MCT_NAME from the start, MCT_NAME_AT from a library's load, both
 * ended by an MCT_UNLOAD over the address), and gets the function of
 * that address and name (trace.funcs).
 *
 * C++ names are demangled by the toolchain's own demangler, libstdc++'s
 * __cxa_demangle (the Itanium C++ ABI's, which clang's code uses too),
 * once per function, so that every output shows them alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"

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

static uint32_t func_add(struct trace *t, size_t *cap, uint64_t addr,
			 const char *name)
{
	t->funcs = grow(t->funcs, cap, t->nfuncs + 1, sizeof(*t->funcs));
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
static void names_settle(struct trace *t, size_t *fcap)
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
			n->func = func_add(t, fcap, n->addr,
					   n->name[0] ? n->name : NULL);
	}
	qsort(lib, nlib, sizeof(*lib), by_name_offset);
	for (size_t i = 0; i < nlib; i++)
		lib[i]->func = i && !by_name_offset(&lib[i - 1], &lib[i]) ?
			lib[i - 1]->func :
			func_add(t, fcap, lib[i]->addr,
				 lib[i]->name[0] ? lib[i]->name : NULL);
	free(lib);
}

/* Functions of addresses no name is in force for, by address. */
struct unnamed {
	uint64_t *addr;		/* open addressing; 0 is empty */
	uint32_t *func;
	size_t cap, n;
};

static uint32_t unnamed_func(struct trace *t, size_t *fcap,
			     struct unnamed *u, uint64_t addr)
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
		u->func[h] = func_add(t, fcap, addr, NULL);
		u->n++;
	}
	return u->func[h];
}

/* The function of a call entered at `addr` at `ticks`. */
static uint32_t func_of(struct trace *t, size_t *fcap, struct unnamed *u,
			uint64_t addr, uint64_t ticks)
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
	return unnamed_func(t, fcap, u, addr);
}

/* Turn one thread's events into calls. */
static void build_calls(struct trace *t, struct thread *th,
			const struct raw *r, const uint64_t clk[4],
			size_t *fcap, struct unnamed *u)
{
	double ratio = clk[2] > clk[0] ?
		(double)(clk[3] - clk[1]) / (double)(clk[2] - clk[0]) : 1.0;
	size_t *stack = xmalloc((r->n + 1) * sizeof(*stack)), depth = 0;
	uint64_t *addr = xmalloc((r->n + 1) * sizeof(*addr));	/* of each */
	uint64_t last = 0;

	t->events += r->n;
	for (size_t i = 0; i < r->n; i++) {
		const struct mct_event *e = &r->ev[i];
		uint64_t ticks = MCT_TICKS(e->word);
		uint64_t ns = ticks > clk[0] ?
			(uint64_t)((double)(ticks - clk[0]) * ratio) : 0;

		if (ns < last)
			ns = last;
		last = ns;
		if (MCT_KIND(e->word) == MCT_ENTRY) {
			th->calls = grow(th->calls, &th->cap, th->ncalls + 1,
					 sizeof(*th->calls));
			th->calls[th->ncalls] = (struct call){
				.func = func_of(t, fcap, u, e->func, ticks),
				.start = ns, .end = ns,
				.depth = (uint32_t)depth, .open = true };
			addr[depth] = e->func;
			stack[depth++] = th->ncalls++;
		} else if (depth && mct_exit_tag(addr[depth - 1]) == e->func) {
			struct call *c = &th->calls[stack[--depth]];

			c->end = ns;
			c->open = false;
		} else {
			t->bad_exits++;
		}
	}
	while (depth)
		th->calls[stack[--depth]].end = last;
	free(stack);
	free(addr);
}

/*
 * The C++ ABI's demangler, exported by libstdc++ with C linkage (cxxabi.h
 * declares it for C++ only): a malloc'ed name, or NULL with *status < 0.
 */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

/* Each function's name demangled, where it is a C++ one. */
static void demangle_names(struct trace *t)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		const char *name = t->funcs[i].name;
		int status;

		if (!name || strncmp(name, "_Z", 2))
			continue;
		t->funcs[i].demangled = __cxa_demangle(name, NULL, NULL,
						       &status);
		if (t->funcs[i].demangled)
			t->funcs[i].name = t->funcs[i].demangled;
	}
}

void calls_build(struct trace *t, const struct raw *raws, size_t nraw,
		 const uint64_t clk[4], bool demangle)
{
	struct unnamed u = { 0 };
	size_t fcap = 0;

	names_settle(t, &fcap);
	for (size_t i = 0; i < nraw; i++)
		for (size_t k = 0; k < t->nthreads; k++)
			if (t->threads[k].tid == raws[i].tid)
				build_calls(t, &t->threads[k], &raws[i], clk,
					    &fcap, &u);
	free(u.addr);
	free(u.func);
	if (demangle)
		demangle_names(t);
}
