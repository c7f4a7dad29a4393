/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.c - what mctrace's commands share of their command lines: the
 * usage, times with units.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void usage(FILE *f)
{
	fprintf(f,
"Usage: mctrace record [-F GLOB]... [-N GLOB]... [--at T [-F GLOB]... [-N GLOB]...]...\n"
"                      [--depth N] [--min-time T] [--bufsize EVENTS] [-o FILE]\n"
"                      -- PROG [ARGS...]\n"
"       mctrace report [FILE]       calls, total and self time per function\n"
"       mctrace graph [FILE]        every call, nested, per thread (or replay)\n"
"       mctrace dump [--chrome | --perfetto | --folded | --flame-svg | --raw]\n"
"                    [-o OUT] [FILE]\n"
"       mctrace --help | --version\n"
"FILE is mctrace.data unless given; record -o NAME.json writes Chrome's\n"
"trace-event JSON instead, for Perfetto or chrome://tracing, and\n"
"-o NAME.pftrace Perfetto's protobuf trace (as dump --perfetto).\n"
"T takes a unit: ns, us, ms or s (ns when none).  --at T: from T after the\n"
"start, the functions recorded become those the -F and -N after it pick.\n");
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

int cli_trace_arg(int argc, char **argv, const char **file)
{
	if (argc > 2) {
		usage(stderr);
		return 2;
	}
	*file = argc > 1 ? argv[1] : DEFAULT_FILE;
	return 0;
}
