/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c - mctrace: record a program's function calls through libmcount
 * and show them.
 *
 *   mctrace record [options] [-o FILE] -- PROG [ARGS...]
 *   mctrace record -p PID [--duration T] [options] [-o FILE]
 *   mctrace list -p PID
 *   mctrace live -p PID enable|disable GLOB
 *   mctrace report|graph|replay [FILE]
 *   mctrace dump [--chrome|--folded|--flame-svg|--raw] [-o OUT] [FILE]
 *   mctrace --help | -h | --version | -V
 *
 * record runs PROG with MCOUNT_TRACE and the filters in its environment
 * (recorder/start.c reads them); the program must be linked with
 * libmcount; with -p it attaches to a running process instead
 * (attach.c).  The rest read the recorder's own format (default FILE:
 * mctrace.data).  Each command is a file of its own (cli.h); this one
 * only picks it.  See man/mctrace.1.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "record", cmd_record },
	{ "report", cmd_report },
	{ "graph", cmd_graph },
	{ "replay", cmd_replay },
	{ "dump", cmd_dump },
	{ "info", cmd_info },
	{ "list", cmd_list },
	{ "live", cmd_live },
};

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("mctrace %s\n", MC_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	if (!*cmd)
		fprintf(stderr, "mctrace: no command given\n");
	else if (cmd[0] == '-')
		fprintf(stderr, "mctrace: unknown option '%s'\n", cmd);
	else
		fprintf(stderr, "mctrace: unknown command '%s'\n", cmd);
	return cli_try("");
}
