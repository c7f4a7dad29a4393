/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * graph.c - mctrace graph: for now the same as replay (every call,
 * nested, per thread).
 */
#include "cli.h"
#include "output.h"

int cmd_graph(int argc, char **argv)
{
	const char *file;
	int err = cli_trace_arg(argc, argv, &file);

	return err ? err : out_file(file, "-", out_replay, false);
}
