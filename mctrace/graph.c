/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * graph.c - mctrace graph: for now the same as replay (every call,
 * nested, per thread).
 */
#include "cli.h"
#include "output.h"

int cmd_graph(int argc, char **argv)
{
	struct trace_opts ro = { 0 };
	const char *file;
	int status = cli_view_args(argc, argv, 
		"Every call per thread, nested as ftrace's function_graph shows "
		"it (as replay).", &file, &ro);

	return status >= 0 ? status : out_file(file, "-", out_replay, false, &ro);
}
