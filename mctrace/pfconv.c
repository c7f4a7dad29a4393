/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pfconv.c - a trace's calls as Perfetto's protobuf trace (perfetto.c).
 */
#include <stdlib.h>

#include "perfetto.h"
#include "trace.h"

/* One thread's calls as beginnings and ends, in the order of time. */
static void thread_events(const struct trace *t, const struct thread *th,
			  struct pf *w)
{
	size_t *open = malloc((th->ncalls + 1) * sizeof(*open)), depth = 0;

	if (!open) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < th->ncalls; i++) {
		const struct call *c = &th->calls[i];

		while (depth && th->calls[open[depth - 1]].depth >= c->depth)
			pf_end(w, th->tid, th->calls[open[--depth]].end);
		pf_begin(w, th->tid, c->start, (uint32_t)c->func,
			 trace_name(t, c->func));
		open[depth++] = i;
	}
	while (depth)
		pf_end(w, th->tid, th->calls[open[--depth]].end);
	free(open);
}

int out_perfetto(const struct trace *t, FILE *f)
{
	struct pf_process proc = { .pid = t->pid };
	struct pf *w = pf_open(f, &proc);

	for (size_t k = 0; k < t->nthreads; k++)
		thread_events(t, &t->threads[k], w);
	return pf_close(w);
}
