/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.c - mctrace record: run a program with the recorder's settings
 * in its environment (recorder/start.c reads them) and wait for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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

/* What the command line asks of record. */
struct record_opts {
	struct phase ph[MAX_PHASES];
	int n_ph;
	const char *out, *depth, *bufsize;
	long long min_time;
	char **prog;		/* PROG and its arguments */
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

/* --at T: a new phase from T on; 0, or 2 after saying why. */
static int add_phase(struct record_opts *o, const char *arg)
{
	struct phase *ph = o->ph;

	if (o->n_ph == MAX_PHASES) {
		fprintf(stderr, "mctrace: at most %d --at\n", MAX_PHASES - 1);
		return 2;
	}
	ph[o->n_ph].at_ns = parse_time(arg);
	if (ph[o->n_ph].at_ns < 0 ||
	    ph[o->n_ph].at_ns < ph[o->n_ph - 1].at_ns) {
		fprintf(stderr, "mctrace: --at %s: not a time, or "
			"before the --at ahead of it\n", arg);
		return 2;
	}
	o->n_ph++;
	return 0;
}

/* Fill `o` from the command line: -1 to go on, else the exit status. */
static int parse_record(int argc, char **argv, struct record_opts *o)
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
	struct phase *ph;
	int c;

	while ((c = getopt_long(argc, argv, "+F:N:o:h", opts, NULL)) != -1) {
		ph = &o->ph[o->n_ph - 1];
		switch (c) {
		case 'F': ph->only = append(ph->only, optarg); break;
		case 'N': ph->never = append(ph->never, optarg); break;
		case 'A':
			if (add_phase(o, optarg))
				return 2;
			break;
		case 'o': o->out = optarg; break;
		case 'D': o->depth = optarg; break;
		case 'B': o->bufsize = optarg; break;
		case 'T':
			o->min_time = parse_time(optarg);
			if (o->min_time < 0) {
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
	o->prog = argv + optind;
	return -1;
}

/* The recorder's settings, in the environment PROG will inherit. */
static int set_record_env(const struct record_opts *o, const char *path)
{
	char buf[32];

	if (start_trace(path) != 0)
		return -1;
	set_phases_env(o->ph, o->n_ph);
	if (o->depth)
		setenv("MCOUNT_TRACE_DEPTH", o->depth, 1);
	if (o->bufsize)
		setenv("MCOUNT_TRACE_BUFSIZE", o->bufsize, 1);
	snprintf(buf, sizeof(buf), "%lld", o->min_time);
	setenv("MCOUNT_TRACE_MIN_TIME", buf, 1);
	return 0;
}

/* Run PROG and wait for it: its wait status, or -1 after saying why. */
static int run_program(char **prog)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("mctrace: fork");
		return -1;
	}
	if (pid == 0) {
		execvp(prog[0], prog);
		fprintf(stderr, "mctrace: %s: %s\n", prog[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("mctrace: waitpid");
			return -1;
		}
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .n_ph = 1, .out = DEFAULT_FILE };
	char *raw = NULL;
	int status = parse_record(argc, argv, &o);

	if (status >= 0)
		return status;
	/*
	 * Perfetto's format, or JSON with a time filter: record our own
	 * form, then convert
	 */
	if ((o.min_time && ends_with(o.out, ".json")) ||
	    ends_with(o.out, ".pftrace")) {
		raw = malloc(strlen(o.out) + 8);
		sprintf(raw, "%s.data", o.out);
	}
	if (set_record_env(&o, raw ? raw : o.out) != 0)
		return 1;
	status = run_program(o.prog);
	if (status < 0)
		return 1;
	if (raw) {
		if (dump_convert(raw, o.out, ends_with(o.out, ".pftrace") ?
				 "--perfetto" : "--chrome", false) != 0)
			return 1;
		unlink(raw);
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "mctrace: %s: killed by signal %d\n",
			o.prog[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
