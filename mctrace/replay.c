/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.c - mctrace replay: every call, nested, per thread, in the
 * form of ftrace's function_graph.
 */
#include <stdlib.h>

#include "cli.h"
#include "output.h"

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
void out_replay(const struct trace *t, FILE *f)
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
				out_time(f, c->end - c->start);
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
				out_time(f, c->end - c->start);
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
	out_lost_footer(t, f);
}


int cmd_replay(int argc, char **argv)
{
	struct trace_opts ro = { 0 };
	const char *file;
	int status = cli_view_args(argc, argv, 
		"Every call per thread, nested as ftrace's function_graph shows "
		"it.", &file, &ro);

	return status >= 0 ? status : out_file(file, "-", out_replay, false, &ro);
}
