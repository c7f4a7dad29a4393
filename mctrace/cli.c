/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.c - what mctrace's commands share of their command lines: the
 * overall usage, option errors, times with units, the FILE argument.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void usage(FILE *f)
{
	fprintf(f,
"Usage: mctrace COMMAND [OPTION]... [ARG]...\n"
"Record the function calls of a program linked with libmcount, and show them.\n"
"\n"
"  record [OPTION]... [--] PROG [ARG]...   run PROG and record its calls\n"
"  record -p PID [--duration T] [OPTION]...  attach to a running process,\n"
"                                record its calls, leave it as it was\n"
"  list -p PID                   a running process's sites and their state\n"
"  live -p PID enable|disable GLOB  change what its recording records\n"
"  report [OPTION]... [FILE]     calls, total and self time per function\n"
"  graph [OPTION]... [FUNC] [FILE]  the aggregated call tree (FUNC: its\n"
"                                callers and callees)\n"
"  replay [OPTION]... [FILE]     every call, threads interleaved by time\n"
"  info [OPTION]... [FILE]       what the trace is of and what it holds\n"
"  dump [--chrome | --perfetto | --folded | --flame-svg | --raw]\n"
"       [-o OUT] [FILE]\n"
"                                the trace in another tool's form\n"
"The commands that read a trace take the filters -F, -N, --depth, --tid,\n"
"--pid, --time-range and --min-time.\n"
"\n"
"FILE is mctrace.data unless given.  'mctrace COMMAND --help' gives the\n"
"command's options.\n"
"  -h, --help         show this help and exit\n"
"  -V, --version      show the version and exit\n"
"See mctrace(1).\n");
}

int cli_try(const char *cmd)
{
	fprintf(stderr, "Try 'mctrace%s%s --help'.\n", *cmd ? " " : "", cmd);
	return 2;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	char dash[3] = { '-', (char)optopt, '\0' };
	bool is_long = !strncmp(arg, "--", 2);

	if (c == ':')
		fprintf(stderr, "mctrace %s: option '%s' needs a value\n", cmd,
			is_long ? arg : dash);
	else if (!is_long && optopt)
		fprintf(stderr, "mctrace %s: unknown option '%s'\n", cmd, dash);
	else if (optopt)	/* a long option of ours, given a value */
		fprintf(stderr, "mctrace %s: option '%.*s' takes no value\n",
			cmd, (int)strcspn(arg, "="), arg);
	else
		fprintf(stderr, "mctrace %s: unknown option '%.*s'\n", cmd,
			(int)strcspn(arg, "="), arg);
	return cli_try(cmd);
}

int cli_file_arg(const char *cmd, int argc, char **argv, const char **file)
{
	if (argc - optind > 1) {
		fprintf(stderr, "mctrace %s: one FILE only: '%s' is one too "
			"many\n", cmd, argv[optind + 1]);
		return cli_try(cmd);
	}
	*file = optind < argc ? argv[optind] : DEFAULT_FILE;
	return 0;
}

int cli_demangle_option(const char *cmd, int c, const char *arg,
			struct trace_opts *ro)
{
	static const char *const how[] = {
		[TRACE_DEMANGLE_SIMPLE] = "simple",
		[TRACE_DEMANGLE_FULL] = "full",
		[TRACE_DEMANGLE_NO] = "no",
	};

	if (c == 'M') {
		ro->demangle = TRACE_DEMANGLE_NO;
		return 1;
	}
	if (c != CLI_DEMANGLE)
		return 0;
	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++)
		if (!strcmp(arg, how[i])) {
			ro->demangle = (enum trace_demangle)i;
			return 1;
		}
	fprintf(stderr, "mctrace %s: --demangle=%s: not simple, full or no\n",
		cmd, arg);
	cli_try(cmd);
	return -1;
}

long long parse_time(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "ns"))
		return (long long)v;
	if (!strcmp(end, "us"))
		return (long long)(v * 1e3);
	if (!strcmp(end, "ms"))
		return (long long)(v * 1e6);
	if (!strcmp(end, "s"))
		return (long long)(v * 1e9);
	return -1;
}

bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}
