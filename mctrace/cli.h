/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - mctrace's commands, one a file (record.c, report.c, graph.c,
 * replay.c, dump.c; record -p's attach in attach.c, over ptrace.c and
 * procmaps.c), and the option helpers they share (cli.c).
 * main.c picks the command; each reads the trace through trace.h and
 * writes through output.h.
 */
#ifndef MCTRACE_CLI_H
#define MCTRACE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace.h"

#define DEFAULT_FILE "mctrace.data"

#ifndef MC_VERSION
#define MC_VERSION "0"
#endif

/* mctrace's own usage: the commands. */
void usage(FILE *f);
/* "Try 'mctrace CMD --help'." on stderr; 2, the status of a usage error. */
int cli_try(const char *cmd);
/*
 * After getopt_long (opterr 0, optstring starting "+:") returned `c`,
 * '?' or ':': one line naming the option, the hint; 2.
 */
int cli_bad_option(const char *cmd, int c, char **argv);
/*
 * The one FILE operand left after the options (DEFAULT_FILE if none) in
 * *file, and 0; a second one is a usage error: one line, the hint, 2.
 */
int cli_file_arg(const char *cmd, int argc, char **argv, const char **file);
/* "10us" and the like, in ns; -1 if it is not a time. */
long long parse_time(const char *s);
bool ends_with(const char *s, const char *tail);
/*
 * How C++ names are shown, which every command that reads takes:
 * --demangle=simple|full|no (uftrace's option; simple by default, as
 * there) and --no-demangle, its "no".  Their getopt entries, their
 * count, and their help.
 */
#define CLI_DEMANGLE 0x1f20
#define CLI_DEMANGLE_LONGOPTS \
	{ "demangle", required_argument, NULL, CLI_DEMANGLE }, \
	{ "no-demangle", no_argument, NULL, 'M' }
#define NCLI_DEMANGLE_OPTS 2
#define CLI_NO_DEMANGLE_HELP \
"      --demangle=HOW C++ names: simple (the name alone: the default),\n" \
"                     full (types, template arguments, parameters) or\n" \
"                     no (as the program's symbols have them)\n" \
"      --no-demangle  the same as --demangle=no\n"
/*
 * Take getopt's `c` if it is one of them, into ro->demangle: 1; 0 if it
 * is not one; -1 after a line naming the bad value and the hint.
 */
int cli_demangle_option(const char *cmd, int c, const char *arg,
			struct trace_opts *ro);

/* Each command: argv[0] is its name; the exit status. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_live(int argc, char **argv);

/*
 * attach.c: record the running process `pid` for `duration_ns` (0:
 * until SIGINT or SIGTERM, or its exit) with the recorder's settings
 * `config` (recorder/attach.h), and detach.  0, or 1 having said why.
 */
int attach_record(pid_t pid, long long duration_ns, const char *config);
/*
 * attach.c: call the recorder's function `sym` (recorder/attach.h) in
 * the running process `pid` with the string `str`, every thread held
 * meanwhile: 0 with its return value in *ret, or 1 having said why.
 */
int attach_call(pid_t pid, const char *sym, const char *str, uintptr_t *ret);

/*
 * dump.c: read `in` and write it in the form `how` (dump's option for
 * it without "--": "chrome", "perfetto", ...) into `out` ("-": stdout); `say_lost`
 * says the lost calls on stderr.  0, or 1 after saying why.
 */
int dump_convert(const char *in, const char *out, const char *how,
		 bool say_lost, const struct trace_opts *ro);

/*
 * fold.c: the files of the recording's other processes that started at
 * or after `since_ns` (CLOCK_REALTIME) appended to the trace `path`,
 * one MCT_PROCESS block each, and removed.  0, or 1 after saying why.
 */
int fold_processes(const char *path, uint64_t since_ns);

#endif
