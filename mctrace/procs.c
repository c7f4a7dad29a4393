/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procs.c - the processes of one trace made one: a recording of a
 * process tree is the first process's blocks, then one MCT_PROCESS
 * block for each other process (format.h), each read by trace.c as a
 * trace of its own, since each process has its own addresses, names
 * and clock calibration.  Here their threads join the first process's,
 * each saying its pid; their functions join the whole trace's, one
 * entry per (process, function), the names staying in the process's
 * own trace; and their times move to one start, the earliest
 * process's, through each one's CLOCK_MONOTONIC at its start, the
 * clock every process of a machine shares.
 */
#include <stdlib.h>

#include "events.h"
#include "procs.h"

static struct trace_proc *proc_new(struct trace *t)
{
	t->procs = realloc(t->procs, (t->nprocs + 1) * sizeof(*t->procs));
	if (!t->procs) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	t->procs[t->nprocs] = (struct trace_proc){ .first_thread =
						   t->nthreads };
	return &t->procs[t->nprocs++];
}

void procs_first(struct trace *t)
{
	struct trace_proc *p = proc_new(t);

	p->first_thread = 0;
	p->pid = t->pid;
	p->info = t->info;
	p->info_bytes = t->info_bytes;
	p->clock_ns = t->clock_ns;
	for (size_t k = 0; k < t->nthreads; k++)
		t->threads[k].pid = t->pid;
}

/*
 * Function `func` of process `proc`'s own trace, as a function of t:
 * copied (its name stays the own trace's) the first time.
 */
static uint32_t proc_func(struct trace *t, size_t proc, uint64_t func)
{
	struct trace_proc *p = &t->procs[proc];

	if (!p->own)
		return (uint32_t)func;
	while (p->nmapped <= func && p->nmapped < p->own->nfuncs) {
		t->funcs = grow(t->funcs, &t->funcs_cap, t->nfuncs + 1,
				sizeof(*t->funcs));
		t->funcs[t->nfuncs].addr = p->own->funcs[p->nmapped].addr;
		t->funcs[t->nfuncs].name = p->own->funcs[p->nmapped].name;
		t->funcs[t->nfuncs].demangled = NULL;
		p->func_map = grow(p->func_map, &p->map_cap, p->nmapped + 1,
				   sizeof(*p->func_map));
		p->func_map[p->nmapped++] = (uint32_t)t->nfuncs++;
	}
	return func < p->nmapped ? p->func_map[func] : UINT32_MAX;
}

void procs_add(struct trace *t, struct trace *own, uint32_t pid)
{
	struct trace_proc *p = proc_new(t);
	size_t proc = t->nprocs - 1;

	p->pid = pid;
	p->info = own->info;
	p->info_bytes = own->info_bytes;
	p->own = own;
	p->clock_ns = own->clock_ns;
	proc_func(t, proc, own->nfuncs);	/* all it has so far */
	t->threads = grow(t->threads, &t->threads_cap,
			  t->nthreads + own->nthreads, sizeof(*t->threads));
	for (size_t k = 0; k < own->nthreads; k++) {
		struct thread *th = &t->threads[t->nthreads++];

		*th = own->threads[k];
		th->pid = pid;
		th->proc = (uint32_t)proc;
		for (size_t i = 0; i < th->ncalls; i++)
			th->calls[i].func = proc_func(t, proc,
						      th->calls[i].func);
		own->threads[k].calls = NULL;
		own->threads[k].ncalls = own->threads[k].cap = 0;
		own->threads[k].values = NULL;	/* moved with the calls */
		own->threads[k].nvalues = own->threads[k].vcap = 0;
	}
}

void procs_align(struct trace *t)
{
	uint64_t start = 0;

	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].clock_ns &&
		    (!start || t->procs[i].clock_ns < start))
			start = t->procs[i].clock_ns;
	for (size_t i = 0; i < t->nprocs; i++)
		t->procs[i].shift = t->procs[i].clock_ns ?
				    t->procs[i].clock_ns - start : 0;
	t->clock_ns = start;
	for (size_t k = 0; k < t->nthreads; k++) {
		struct thread *th = &t->threads[k];
		uint64_t shift = t->procs[th->proc].shift;

		for (size_t i = 0; shift && i < th->ncalls; i++) {
			th->calls[i].start += shift;
			th->calls[i].end += shift;
		}
	}
}

void procs_count(struct trace *t)
{
	for (size_t i = 1; i < t->nprocs; i++) {
		const struct trace *o = t->procs[i].own;

		t->blocks += o->blocks;
		t->cut_bytes += o->cut_bytes;
		t->missing_bytes += o->missing_bytes;
		t->damaged += o->damaged;
		t->damaged_bytes += o->damaged_bytes;
		t->events += o->events;
		t->bad_exits += o->bad_exits;
	}
}

static void sink_begin(void *ctx, size_t k, uint64_t ns, uint32_t func)
{
	struct procs_sink *s = ctx;
	uint32_t f = proc_func(s->t, s->proc, func);
	const struct trace_proc *p = &s->t->procs[s->proc];

	s->to->begin(s->to->ctx, p->first_thread + k, ns + p->shift, f);
}

static void sink_end(void *ctx, size_t k, uint64_t ns, bool exited)
{
	struct procs_sink *s = ctx;
	const struct trace_proc *p = &s->t->procs[s->proc];

	s->to->end(s->to->ctx, p->first_thread + k, ns + p->shift, exited);
}

static void sink_value(void *ctx, size_t k, unsigned which, const char *text)
{
	struct procs_sink *s = ctx;
	const struct trace_proc *p = &s->t->procs[s->proc];

	if (s->to->value)
		s->to->value(s->to->ctx, p->first_thread + k, which, text);
}

void procs_sink_init(struct procs_sink *s, struct trace *t, size_t proc,
		     const struct trace_sink *to)
{
	*s = (struct procs_sink){ .t = t, .proc = proc, .to = to,
		.sink = { .ctx = s, .begin = sink_begin, .end = sink_end,
			  .value = sink_value } };
}
