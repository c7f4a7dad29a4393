/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c - mctrace: record a program's function calls through libmcount
 * and show them.
 *
 *   mctrace record [options] [-o FILE] -- PROG [ARGS...]
 *   mctrace report|graph|replay [FILE]
 *   mctrace dump [--chrome|--folded|--flame-svg|--raw] [-o OUT] [FILE]
 *
 * record runs PROG with MCOUNT_TRACE and the filters in its environment
 * (recorder/start.c reads them); the program must be linked with
 * libmcount.  The rest read the recorder's own format (default FILE:
 * mctrace.data).  See man/mctrace.1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfetto.h"
#include "trace.h"

#ifndef MC_VERSION
#define MC_VERSION "0"
#endif
#define DEFAULT_FILE "mctrace.data"

static void usage(FILE *f)
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

/* "10us" and the like, in ns; -1 if it is not a time. */
static long long parse_time(const char *s)
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

/* `list` with `glob` appended, comma-separated. */
static char *append(char *list, const char *glob)
{
	size_t n = list ? strlen(list) + 1 : 0;
	char *s = realloc(list, n + strlen(glob) + 1);

	if (!s)
		exit(1);
	if (n)
		s[n - 1] = ',';
	strcpy(s + n, glob);
	return s;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static int convert(const char *in, const char *out, const char *how,
		   bool dump);

/*
 * The environment that makes every process PROG starts record into
 * `path`: absolute, since PROG may start them in other folders (make
 * -C), and `path` removed first, with MCOUNT_TRACE_ROOT set and empty,
 * so that the first of them to create it writes it and every other one,
 * a sibling in a pipeline too, writes PATH.PID (recorder/start.c).
 */
static int start_trace(const char *path)
{
	char cwd[4096], *abs = NULL;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			perror("mctrace: getcwd");
			return -1;
		}
		abs = malloc(strlen(cwd) + strlen(path) + 2);
		if (!abs)
			return -1;
		sprintf(abs, "%s/%s", cwd, path);
		path = abs;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		fprintf(stderr, "mctrace: %s: %s\n", path, strerror(errno));
		free(abs);
		return -1;
	}
	setenv("MCOUNT_TRACE", path, 1);
	setenv("MCOUNT_TRACE_ROOT", "", 1);
	free(abs);
	return 0;
}

/*
 * The filters: the set at start (phase 0) and those --at T brings in
 * (phases 1..), handed to the recorder as MCOUNT_TRACE_FILTER<k>,
 * MCOUNT_TRACE_NOTRACE<k> and MCOUNT_TRACE_AT<k> (recorder/start.c).
 */
#define MAX_PHASES 9
struct phase {
	char *only, *never;
	long long at_ns;
};

static void set_phase_env(const struct phase *ph, int k)
{
	char name[40], val[32];

	if (k == 0) {
		if (ph->only)
			setenv("MCOUNT_TRACE_FILTER", ph->only, 1);
		if (ph->never)
			setenv("MCOUNT_TRACE_NOTRACE", ph->never, 1);
		return;
	}
	snprintf(name, sizeof(name), "MCOUNT_TRACE_AT%d", k);
	snprintf(val, sizeof(val), "%lld", ph->at_ns);
	setenv(name, val, 1);
	snprintf(name, sizeof(name), "MCOUNT_TRACE_FILTER%d", k);
	setenv(name, ph->only ? ph->only : "", 1);
	snprintf(name, sizeof(name), "MCOUNT_TRACE_NOTRACE%d", k);
	setenv(name, ph->never ? ph->never : "", 1);
}

static void set_phases_env(const struct phase *ph, int n)
{
	char name[40];

	for (int k = 0; k < n; k++)
		set_phase_env(&ph[k], k);
	/* none left over from the caller's environment */
	for (int k = n; k < MAX_PHASES; k++) {
		snprintf(name, sizeof(name), "MCOUNT_TRACE_AT%d", k);
		unsetenv(name);
	}
}

static int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "at", required_argument, NULL, 'A' },
		{ "depth", required_argument, NULL, 'D' },
		{ "min-time", required_argument, NULL, 'T' },
		{ "bufsize", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct phase ph[MAX_PHASES] = { { NULL, NULL, 0 } };
	int n_ph = 1;
	char *raw = NULL, buf[32];
	const char *out = DEFAULT_FILE, *depth = NULL, *bufsize = NULL;
	long long min_time = 0;
	int c, status;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+F:N:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			ph[n_ph - 1].only = append(ph[n_ph - 1].only, optarg);
			break;
		case 'N':
			ph[n_ph - 1].never = append(ph[n_ph - 1].never, optarg);
			break;
		case 'A':
			if (n_ph == MAX_PHASES) {
				fprintf(stderr, "mctrace: at most %d --at\n",
					MAX_PHASES - 1);
				return 2;
			}
			ph[n_ph].at_ns = parse_time(optarg);
			if (ph[n_ph].at_ns < 0 ||
			    ph[n_ph].at_ns < ph[n_ph - 1].at_ns) {
				fprintf(stderr, "mctrace: --at %s: not a time, or "
					"before the --at ahead of it\n", optarg);
				return 2;
			}
			n_ph++;
			break;
		case 'o': out = optarg; break;
		case 'D': depth = optarg; break;
		case 'B': bufsize = optarg; break;
		case 'T':
			min_time = parse_time(optarg);
			if (min_time < 0) {
				fprintf(stderr, "mctrace: --min-time %s: not a "
					"time (10us, 1ms, ...)\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mctrace: record: no program to run\n");
		usage(stderr);
		return 2;
	}
	/* JSON with a time filter: record our own form, then convert */
	if ((min_time && ends_with(out, ".json")) || ends_with(out, ".pftrace")) {
		raw = malloc(strlen(out) + 32);
		sprintf(raw, "%s.%d.data", out, (int)getpid());
	}
	if (start_trace(raw ? raw : out) != 0)
		return 1;
	set_phases_env(ph, n_ph);
	if (depth)
		setenv("MCOUNT_TRACE_DEPTH", depth, 1);
	if (bufsize)
		setenv("MCOUNT_TRACE_BUFSIZE", bufsize, 1);
	snprintf(buf, sizeof(buf), "%lld", min_time);
	setenv("MCOUNT_TRACE_MIN_TIME", buf, 1);
	pid = fork();
	if (pid < 0) {
		perror("mctrace: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "mctrace: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("mctrace: waitpid");
			return 1;
		}
	if (raw) {
		int err = ends_with(out, ".pftrace") ?
			perfetto_convert(raw, out, false) :
			convert(raw, out, "--chrome", false);

		unlink(raw);
		if (err)
			return 1;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "mctrace: %s: killed by signal %d\n",
			argv[optind], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/*
 * Read `in` and write it `how` into `out` ("-": stdout).  `dump` says
 * the lost calls on stderr (the report and the graph show them; the
 * dumps' forms have no room for them but Chrome's otherData).
 */
static int convert(const char *in, const char *out, const char *how,
		   bool dump)
{
	struct trace t;
	FILE *f = stdout;
	int err = 0;

	if (!strcmp(how, "--perfetto"))
		return perfetto_convert(in, out, dump);
	if (trace_read(in, &t) != 0)
		return 1;
	if (strcmp(out, "-") && !(f = fopen(out, "w"))) {
		fprintf(stderr, "mctrace: %s: %s\n", out, strerror(errno));
		trace_free(&t);
		return 1;
	}
	if (dump) {
		char prefix[4200];

		snprintf(prefix, sizeof(prefix), "mctrace: %s: ", in);
		out_lost(&t, stderr, prefix);
	}
	if (!strcmp(how, "--chrome"))
		out_chrome(&t, f);
	else if (!strcmp(how, "--folded"))
		out_folded(&t, f);
	else if (!strcmp(how, "--flame-svg"))
		out_flame_svg(&t, f, "mctrace flame graph");
	else if (!strcmp(how, "--raw"))
		out_raw(&t, f);
	else if (!strcmp(how, "report"))
		out_report(&t, f);
	else
		out_graph(&t, f);
	if (ferror(f) || (f != stdout && fclose(f) != 0)) {
		fprintf(stderr, "mctrace: %s: write error\n", out);
		err = 1;
	}
	trace_free(&t);
	return err;
}

static int cmd_dump(int argc, char **argv)
{
	const char *how = "--chrome", *out = "-";
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--chrome") || !strcmp(argv[i], "--folded") ||
		    !strcmp(argv[i], "--flame-svg") || !strcmp(argv[i], "--raw") ||
		    !strcmp(argv[i], "--perfetto")) {
			how = argv[i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 < argc) {
		usage(stderr);
		return 2;
	}
	return convert(i < argc ? argv[i] : DEFAULT_FILE, out, how, true);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("mctrace %s\n", MC_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "report") || !strcmp(cmd, "graph") ||
	    !strcmp(cmd, "replay")) {
		if (argc > 3) {
			usage(stderr);
			return 2;
		}
		return convert(argc > 2 ? argv[2] : DEFAULT_FILE, "-", cmd, false);
	}
	usage(stderr);
	return 2;
}
