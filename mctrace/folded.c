/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * folded.c - dump --folded: folded stacks, for flamegraph.pl and
 * speedscope.
 */
#include <stdlib.h>

#include "output.h"

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
				(unsigned long long)out_self_time(th, i));
		}
		free(path);
	}
}
