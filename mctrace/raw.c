/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * raw.c - dump --raw: one line an event, for tests and scripts.
 */
#include <stdlib.h>

#include "output.h"

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
