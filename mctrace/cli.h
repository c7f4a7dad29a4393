/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - mctrace's commands, one a file (record.c, report.c, graph.c,
 * replay.c, dump.c), and the option helpers they share (cli.c).
 * main.c picks the command; each reads the trace through trace.h and
 * writes through output.h.
 */
#ifndef MCTRACE_CLI_H
#define MCTRACE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define DEFAULT_FILE "mctrace.data"

#ifndef MC_VERSION
#define MC_VERSION "0"
#endif

/* The usage of every command. */
void usage(FILE *f);
/* "10us" and the like, in ns; -1 if it is not a time. */
long long parse_time(const char *s);
bool ends_with(const char *s, const char *tail);
/*
 * The one FILE argument of report, graph and replay (mctrace.data when
 * none) into *file: 0, or 2 after the usage.
 */
int cli_trace_arg(int argc, char **argv, const char **file);

/* Each command: argv[0] is its name; the exit status. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/*
 * dump.c: read `in` and write it in the form `how` ("--chrome",
 * "--perfetto", "--folded", "--flame-svg", "--raw") into `out` ("-": stdout); `say_lost`
 * says the lost calls on stderr.  0, or 1 after saying why.
 */
int dump_convert(const char *in, const char *out, const char *how,
		 bool say_lost);

#endif
