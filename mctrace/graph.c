/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * graph.c - mctrace graph: the aggregated call tree, as uftrace graph
 * shows it: each distinct call path once, with its calls and their total
 * time; all threads' together, or one tree a thread (--threads).  With
 * FUNC (a glob): the paths that lead to it (its callers), then the tree
 * of what it calls, from its outermost calls.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "filter.h"
#include "output.h"
#include "tree.h"

static void print_tree(const struct trace *t, const struct tree *tr, FILE *f)
{
	uint32_t depth = 0;

	fprintf(f, "#  TOTAL TIME       CALLS  FUNCTION\n");
	for (size_t i = tree_walk(tr, 0, &depth); i;
	     i = tree_walk(tr, i, &depth)) {
		const struct tree_node *n = &tr->node[i];

		fputs(" ", f);
		out_time(f, n->total);
		fprintf(f, "  %10llu  %*s%s\n", (unsigned long long)n->calls,
			(int)(2 * depth), "", trace_name(t, n->func));
	}
}

/* Each path to a call of `func`, one a line: outermost first. */
static void print_callers(const struct trace *t, const struct tree *tr,
			  FILE *f)
{
	uint32_t depth = 0;

	fprintf(f, "#  TOTAL TIME       CALLS  CALLERS (outermost first)\n");
	for (size_t i = tree_walk(tr, 0, &depth); i;
	     i = tree_walk(tr, i, &depth)) {
		const struct tree_node *n = &tr->node[i];
		size_t path[4096], len = 0;

		if (!n->calls)
			continue;
		for (size_t k = i; k && len < 4096; k = tr->node[k].parent)
			path[len++] = k;
		fputs(" ", f);
		out_time(f, n->total);
		fprintf(f, "  %10llu  ", (unsigned long long)n->calls);
		if (len == 4096)
			fputs("... > ", f);
		while (len--)
			fprintf(f, "%s%s", trace_name(t, tr->node[path[len]].func),
				len ? " > " : "\n");
	}
}

/* Whether some call is of a function matching `glob`. */
static bool called(const struct trace *t, const char *glob)
{
	for (size_t k = 0; k < t->nthreads; k++)
		for (size_t i = 0; i < t->threads[k].ncalls; i++)
			if (!fnmatch(glob, trace_name(t,
					t->threads[k].calls[i].func), 0))
				return true;
	return false;
}

/* One tree of the threads (`th`, or all when NULL). */
static void graph_of(const struct trace *t, const struct thread *th,
		     const char *func, FILE *f)
{
	struct tree tr;

	if (func) {
		tree_init(&tr);
		for (size_t k = 0; k < t->nthreads; k++)
			if (!th || th == &t->threads[k])
				tree_add_callers(&tr, t, &t->threads[k], func);
		fprintf(f, "# callers of %s: each path to it once\n", func);
		print_callers(t, &tr, f);
		tree_free(&tr);
		fprintf(f, "# calls of %s and their callees\n", func);
	}
	tree_init(&tr);
	for (size_t k = 0; k < t->nthreads; k++)
		if (!th || th == &t->threads[k])
			tree_add_thread(&tr, t, &t->threads[k], func);
	print_tree(t, &tr, f);
	tree_free(&tr);
}

static void graph_help(FILE *f)
{
	fprintf(f,
"Usage: mctrace graph [--threads] [FILTERS] [FUNC] [FILE]\n"
"The aggregated call tree: each distinct call path once, with its calls\n"
"and their total time (uftrace graph's), every thread's together.\n"
"  --threads   one tree a thread (under its process, with several)\n"
"  FUNC        a glob: the paths to its calls (callers), then the tree\n"
"              of what it calls.  One argument is FILE if such a file\n"
"              exists, else FUNC.\n"
"FILE is mctrace.data unless given.\n"
CLI_NO_DEMANGLE_HELP
FILTER_HELP);
}

/* FUNC and FILE from what is left of the command line. */
static int graph_args(int argc, char **argv, const char **func,
		      const char **file)
{
	struct stat st;

	*func = NULL;
	*file = DEFAULT_FILE;
	if (argc - optind > 2) {
		fprintf(stderr, "mctrace graph: one FUNC and one FILE only: "
			"'%s' is one too many\n", argv[optind + 2]);
		return cli_try("graph");
	}
	if (argc - optind == 2) {
		*func = argv[optind];
		*file = argv[optind + 1];
	} else if (argc - optind == 1) {
		if (stat(argv[optind], &st) == 0)
			*file = argv[optind];
		else
			*func = argv[optind];
	}
	return 0;
}

int cmd_graph(int argc, char **argv)
{
	static const struct option opts[] = {
		FILTER_LONGOPTS,
		{ "threads", no_argument, NULL, 'T' },
		CLI_DEMANGLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct filter flt = FILTER_INIT("graph");
	struct trace_opts ro = { 0 };
	bool threads = false;
	const char *func, *file;
	struct trace t;
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" FILTER_SHORTOPTS "h", opts,
				NULL)) != -1) {
		if (c == 'T') {
			threads = true;
		} else if ((r = cli_demangle_option("graph", c, optarg,
						    &ro))) {
			if (r < 0)
				return 2;
		} else if (c == 'h') {
			return graph_help(stdout), 0;
		} else if ((r = filter_option(&flt, c, optarg)) <= 0) {
			return r ? 2 : cli_bad_option("graph", c, argv);
		}
	}
	if ((r = graph_args(argc, argv, &func, &file)))
		return r;
	if (filter_read(file, &ro, &flt, &t))
		return 1;
	if (func && !called(&t, func)) {
		fprintf(stderr, "mctrace graph: %s: no call of a function of "
			"that name in %s%s\n", func, file,
			filter_active(&flt) ? " (as filtered)" : "");
		trace_free(&t);
		return 1;
	}
	for (size_t k = 0; threads && k < t.nthreads; k++) {
		out_thread_head(&t, k, stdout);
		graph_of(&t, &t.threads[k], func, stdout);
	}
	if (!threads)
		graph_of(&t, NULL, func, stdout);
	out_lost_footer(&t, stdout);
	trace_free(&t);
	filter_free(&flt);
	return out_done(stdout, "stdout");
}
