/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.c - mctrace record: run a program with the recorder's settings
 * in its environment (recorder/start.c reads them) and wait for it.
 *
 * Never silent: the output is checked before the program starts (a
 * directory, a read-only file, a folder that cannot take it are each
 * refused), exec's failure comes back through a pipe closed on exec, and
 * a program that recorded nothing (no runtime in it, or no recorded
 * site in its objects) fails after it ran.  Else record exits with the
 * program's status.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "trace.h"

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
 * -A SPEC and -R SPEC (FUNC@ITEM,...): `specs` with `spec` appended,
 * ';'-separated, as MCOUNT_TRACE_ARGS takes them (recorder/args.c,
 * which checks each item against the machine's ABI); NULL having said
 * why if an item is not one of the option's (argN for -A, retval for
 * -R).
 */
static char *append_spec(char *specs, const char *spec, char opt)
{
	const char *at = strchr(spec, '@'), *p;
	const char *want = opt == 'A' ? "arg" : "retval";
	size_t n = specs ? strlen(specs) + 1 : 0;
	char *s;

	for (p = at ? at + 1 : NULL; p && *p; p += strcspn(p, ","),
	     p += *p == ',')
		if (strncmp(p, want, strlen(want)))
			break;
	if (p && !strncmp(p, "fparg", 5)) {
		fprintf(stderr, "mctrace record: option '-%c %s': "
			"floating-point arguments are not captured (integers "
			"and pointers only)\n", opt, spec);
		free(specs);
		return NULL;
	}
	if (!at || at == spec || !at[1] || *p) {
		fprintf(stderr, "mctrace record: option '-%c %s': not "
			"FUNC@%s\n", opt, spec, opt == 'A' ?
			"arg1[/FORMAT],arg2..." : "retval[/FORMAT]");
		free(specs);
		return NULL;
	}
	s = realloc(specs, n + strlen(spec) + 1);
	if (!s)
		exit(1);
	if (n)
		s[n - 1] = ';';
	strcpy(s + n, spec);
	return s;
}

/* `path` made absolute (malloc'd), or NULL having said why. */
static char *absolute(const char *path)
{
	char cwd[4096] = "", *abs;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		perror("mctrace: getcwd");
		return NULL;
	}
	abs = malloc(strlen(cwd) + strlen(path) + 2);
	if (abs)
		sprintf(abs, "%s%s%s", cwd, *cwd ? "/" : "", path);
	return abs;
}

/*
 * The trace file `path` removed, to be made anew: its absolute name
 * (malloc'd; PROG may start processes in other folders, make -C), or
 * NULL having said why.
 */
static char *fresh_trace(const char *path)
{
	char *abs = absolute(path);

	if (abs && unlink(abs) != 0 && errno != ENOENT) {
		fprintf(stderr, "mctrace: %s: cannot replace: %s\n", abs,
			strerror(errno));
		free(abs);
		return NULL;
	}
	return abs;
}

/*
 * The environment that makes every process PROG starts record into
 * `path`, removed first, with MCOUNT_TRACE_ROOT set and empty, so that
 * the first of them to create it writes it and every other one, a
 * sibling in a pipeline too, writes PATH.PID (recorder/start.c).
 */
static int start_trace(const char *path)
{
	char *abs = fresh_trace(path);

	if (!abs)
		return -1;
	setenv("MCOUNT_TRACE", abs, 1);
	setenv("MCOUNT_TRACE_ROOT", "", 1);
	free(abs);
	return 0;
}

/*
 * An output the recording may write: 0, or 1 after saying why not.  An
 * existing file is replaced only if it is a regular one that may be
 * written (out_refuse_read_only); a new one is created and removed
 * again, to learn now what the recorder would meet later.
 */
static int check_output(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0) {
		const char *why = S_ISDIR(st.st_mode) ? "a directory, not a "
			"file to write the trace in" : !S_ISREG(st.st_mode) ?
			"not a regular file: left as it is" : NULL;

		if (why)
			fprintf(stderr, "mctrace: %s: %s\n", path, why);
		return why ? 1 : out_refuse_read_only(path);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "mctrace: %s: cannot create: %s\n", path,
			strerror(errno));
		return 1;
	}
	close(fd);
	unlink(path);
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
	char *args;		/* -A and -R: MCOUNT_TRACE_ARGS */
	long long min_time;
	pid_t pid;		/* -p: attach to it instead of running PROG */
	long long duration;	/* --duration, with -p; 0: until SIGINT */
	struct trace_opts ro;	/* how to read it, for JSON and Perfetto's */
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

static void record_usage(FILE *f)
{
	fprintf(f,
"Usage: mctrace record [OPTION]... [--] PROG [ARG]...\n"
"  or:  mctrace record -p PID [--duration T] [OPTION]...\n"
"Run PROG, linked with libmcount, and record its function calls; or\n"
"attach to the running process PID, record, and leave it as it was.\n"
"\n"
"  -p, --pid PID       attach to process PID (x86_64, aarch64, riscv64):\n"
"                      load libmcount into it if it has none, record until\n"
"                      T, SIGINT or its exit, then restore its text byte\n"
"                      for byte\n"
"      --duration T    with -p: record for T, then detach\n"
"  -o, --output FILE   write the trace into FILE (default mctrace.data);\n"
"                      a name ending in .json gets Chrome's trace-event JSON,\n"
"                      one ending in .pftrace Perfetto's protobuf trace\n"
"  -F GLOB             record only the functions GLOB matches (repeatable)\n"
"  -N GLOB             never record those GLOB matches (repeatable; wins)\n"
"      --at T          from T after the start, record the functions the -F\n"
"                      and -N after it pick (repeatable, T increasing)\n"
"  -A, --argument FUNC@arg1[/F],arg2...  record these integer arguments of\n"
"                      the functions FUNC (a glob, as -F's) matches, from\n"
"                      the ABI's argument registers (repeatable)\n"
"  -R, --retval FUNC@retval[/F]  record their return value (repeatable)\n"
"                      F: d (default) i u x p c s, then 8 16 32 or 64 bits\n"
"                      (a register's when none): as uftrace's -A and -R;\n"
"                      s reads a string (64 bytes at most; a bad pointer\n"
"                      is shown as such); mctrace(1) says from which\n"
"                      hooks; stack (but i386's first six words) and\n"
"                      floating-point arguments are not read\n"
"      --depth N       record calls at most N recorded calls deep\n"
"      --min-time T    leave out calls shorter than T when reading\n"
"      --bufsize EVENTS  events in each thread's ring (default 65536)\n"
"      --demangle=HOW  C++ names in the JSON or Perfetto trace: simple\n"
"                      (the name alone: the default), full or no\n"
"      --no-demangle   the same as --demangle=no\n"
"  -h, --help          show this help and exit\n"
"T takes a unit: ns, us, ms or s (ns when none).\n"
"\n"
"Exit status: PROG's (128 + N when signal N killed it); 1 when nothing\n"
"could be recorded (the output, no runtime in PROG, no recorded site);\n"
"126 or 127 when PROG cannot be run; with -p, 0, or 1 when the attach was\n"
"refused or failed; 2 for a usage error.  See mctrace(1).\n");
}

/* --at T: a new phase from T on; 0, or 2 after saying why. */
static int add_phase(struct record_opts *o, const char *arg)
{
	struct phase *ph = o->ph;

	if (o->n_ph == MAX_PHASES) {
		fprintf(stderr, "mctrace record: option '--at': at most %d\n",
			MAX_PHASES - 1);
		return cli_try("record");
	}
	ph[o->n_ph].at_ns = parse_time(arg);
	if (ph[o->n_ph].at_ns < 0 ||
	    ph[o->n_ph].at_ns < ph[o->n_ph - 1].at_ns) {
		fprintf(stderr, "mctrace record: option '--at %s': not a time, "
			"or before the --at ahead of it\n", arg);
		return cli_try("record");
	}
	o->n_ph++;
	return 0;
}

/* -p PID and --duration T: 0, or 2 after saying why. */
static int attach_option(struct record_opts *o, int c, const char *arg)
{
	char *end;
	long pid;

	if (c == 'U') {
		o->duration = parse_time(arg);
		if (o->duration > 0)
			return 0;
		fprintf(stderr, "mctrace record: option '--duration %s': not "
			"a time above 0 (10s, 500ms, ...)\n", arg);
		return cli_try("record");
	}
	errno = 0;
	pid = strtol(arg, &end, 10);
	if (!errno && !*end && pid > 0 && pid == (pid_t)pid) {
		o->pid = (pid_t)pid;
		return 0;
	}
	fprintf(stderr, "mctrace record: option '-p %s': not a process id\n",
		arg);
	return cli_try("record");
}

/* With -p: no PROG, and none of the options that only a start takes. */
static int attach_operands(struct record_opts *o, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "mctrace record: '-p' attaches to a running "
			"process: no PROG ('%s')\n", argv[optind]);
		return cli_try("record");
	}
	if (o->n_ph > 1) {
		fprintf(stderr, "mctrace record: '--at' is not for '-p'\n");
		return cli_try("record");
	}
	return -1;
}

/* What follows the options: PROG, or with -p nothing; -1, or 2. */
static int operands(struct record_opts *o, int argc, char **argv)
{
	if (o->pid && o->args) {
		fprintf(stderr, "mctrace record: options '-A' and '-R' are not "
			"taken with '-p PID' yet: record the program from its "
			"start\n");
		return cli_try("record");
	}
	if (o->pid)
		return attach_operands(o, argc, argv);
	if (o->duration) {
		fprintf(stderr, "mctrace record: option '--duration' needs "
			"'-p PID'\n");
		return cli_try("record");
	}
	if (optind >= argc) {
		fprintf(stderr, "mctrace record: no program to run\n");
		return cli_try("record");
	}
	o->prog = argv + optind;
	return -1;
}

/* --min-time T: 0, or 2 after saying why. */
static int min_time_option(struct record_opts *o, const char *arg)
{
	o->min_time = parse_time(arg);
	if (o->min_time >= 0)
		return 0;
	fprintf(stderr, "mctrace record: option '--min-time %s': not a time "
		"(10us, 1ms, ...)\n", arg);
	return cli_try("record");
}

/* Fill `o` from the command line: -1 to go on, else the exit status. */
static int parse_record(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "at", required_argument, NULL, 'a' },
		{ "argument", required_argument, NULL, 'A' },
		{ "retval", required_argument, NULL, 'R' },
		{ "depth", required_argument, NULL, 'D' },
		{ "min-time", required_argument, NULL, 'T' },
		{ "bufsize", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		CLI_DEMANGLE_LONGOPTS,
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct phase *ph;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:F:N:A:R:o:p:h", opts,
				NULL)) != -1) {
		ph = &o->ph[o->n_ph - 1];
		switch (c) {
		case 'F': ph->only = append(ph->only, optarg); break;
		case 'N': ph->never = append(ph->never, optarg); break;
		case 'A':
		case 'R':
			o->args = append_spec(o->args, optarg, (char)c);
			if (!o->args)
				return cli_try("record");
			break;
		case 'a':
			if (add_phase(o, optarg))
				return 2;
			break;
		case 'o': o->out = optarg; break;
		case 'D': o->depth = optarg; break;
		case 'B': o->bufsize = optarg; break;
		case 'T':
			if (min_time_option(o, optarg))
				return 2;
			break;
		case 'M':
		case CLI_DEMANGLE:
			if (cli_demangle_option("record", c, optarg, &o->ro) < 0)
				return 2;
			break;
		case 'p':
		case 'U':
			if (attach_option(o, c, optarg))
				return 2;
			break;
		case 'h': record_usage(stdout); return 0;
		default: return cli_bad_option("record", c, argv);
		}
	}
	return operands(o, argc, argv);
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
	if (o->args)
		setenv("MCOUNT_TRACE_ARGS", o->args, 1);
	snprintf(buf, sizeof(buf), "%lld", o->min_time);
	setenv("MCOUNT_TRACE_MIN_TIME", buf, 1);
	return 0;
}

/* exec's errno from the child, or 0 when the pipe closed on exec. */
static int exec_error(int fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == sizeof(err) ? err : 0;
}

/*
 * Run PROG and wait for it: its wait status; -1 after saying why it
 * could not be run, with exec's errno in *exec_err (0: fork or wait).
 */
static int run_program(char **prog, int *exec_err)
{
	int status, fds[2];
	pid_t pid;

	*exec_err = 0;
	if (pipe2(fds, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		perror("mctrace: cannot start the program");
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		execvp(prog[0], prog);
		status = errno;
		/* the parent learns why; if it cannot, 126 says "not run" */
		if (write(fds[1], &status, sizeof(status)) != sizeof(status))
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	*exec_err = exec_error(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("mctrace: waitpid");
			return -1;
		}
	if (!*exec_err)
		return status;
	fprintf(stderr, "mctrace: %s: cannot run: %s\n", prog[0],
		strerror(*exec_err));
	return -1;
}

/*
 * Whether the program recorded: 0, or 1 after saying why nothing was.
 * The first process to record creates `path`, so no file means no
 * recorder ran, or (`args`: -A/-R given) one refused them, having said
 * why; its MCT_INFO block says how many sites it knew.
 */
static int check_recorded(const char *path, const char *prog, bool args)
{
	static const struct trace_opts quick = { .no_events = true };
	struct trace t;
	const char *sites;
	int err = 0;

	if (access(path, F_OK) != 0 && args) {
		fprintf(stderr, "mctrace: %s: nothing recorded: its recorder "
			"refused -A/-R (why, above), or it ran without one "
			"(see mctrace(1))\n", prog);
		return 1;
	}
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "mctrace: %s: nothing recorded: it ran without "
			"libmcount's recorder (link it with libmcount.a or "
			"libmcount.so; see mctrace(1))\n", prog);
		return 1;
	}
	if (ends_with(path, ".json"))
		return 0;
	if (trace_read_opts(path, &t, &quick) != 0)
		return 1;
	sites = trace_info(&t, "sites", 0);
	if (sites && strtoull(sites, NULL, 10) == 0) {
		fprintf(stderr, "mctrace: %s: nothing recorded: none of its "
			"objects has recorded sites (run recordmcount on them "
			"before linking)\n", prog);
		err = 1;
	} else if (!t.info && !t.blocks) {
		fprintf(stderr, "mctrace: %s: nothing recorded: %s holds no "
			"block\n", prog, path);
		err = 1;
	}
	trace_free(&t);
	return err;
}

/*
 * The form an output is converted to, by its name's ending (JSON's or
 * Perfetto's), and that ending; NULL for mctrace's own form.
 */
static const char *form_of_output(const char *out)
{
	return ends_with(out, ".json") ? "chrome" :
	       ends_with(out, ".pftrace") ? "perfetto" : NULL;
}

static const char *ending_of(const char *form)
{
	return !strcmp(form, "chrome") ? ".json" : ".pftrace";
}

/*
 * `name` from the directory of `raw`: a file of the recording when it
 * is `raw` or RAW.SUFFIX (another process's, recorder/start.c): its
 * converted file's name (OUT, or STEM.SUFFIX.ENDING, OUT being
 * STEM.ENDING), else NULL.
 */
static char *converted_name(const char *raw, const char *name,
			    const char *out, const char *ending)
{
	const char *base = strrchr(raw, '/') ? strrchr(raw, '/') + 1 : raw;
	size_t n = strlen(base), stem = strlen(out) - strlen(ending);
	char *conv;

	if (strncmp(name, base, n) || (name[n] && name[n] != '.'))
		return NULL;
	conv = malloc(strlen(out) + strlen(name + n) + 1);
	if (conv)
		sprintf(conv, "%.*s%s%s", (int)stem, out, name + n, ending);
	return conv;
}

/*
 * A recording into JSON or Perfetto's format is made in mctrace's own
 * form, into `raw`, so that it reads as every other output does (C++
 * names demangled, --min-time): each process's file converted, then
 * removed (kept if its conversion fails).
 */
static int convert_each(const char *raw, const char *out,
			const struct trace_opts *ro)
{
	const char *slash = strrchr(raw, '/'), *form = form_of_output(out);
	char dir[4096], path[8192];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - raw) + 1 : 0,
		 raw);
	d = opendir(*dir ? dir : ".");
	if (!d) {
		fprintf(stderr, "mctrace: %s: %s\n", *dir ? dir : ".",
			strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		char *conv = converted_name(raw, e->d_name, out,
					    ending_of(form));

		if (!conv)
			continue;
		snprintf(path, sizeof(path), "%s%s", dir, e->d_name);
		if (dump_convert(path, conv, form, false, ro) == 0)
			unlink(path);
		else
			err = 1;
		free(conv);
	}
	closedir(d);
	return err;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The status of a program that ran, as record's own. */
static int program_status(int status, const char *prog)
{
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "mctrace: %s: killed by signal %d\n", prog,
			WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/*
 * The recorder's settings for an attach: the MCOUNT_TRACE* variables
 * set_record_env put in our environment (and any the caller had, as a
 * program started by record inherits them), one "NAME=VALUE" a line
 * (recorder/attach.h).  malloc'd, or NULL.
 */
static char *attach_config(void)
{
	extern char **environ;
	size_t len = 1;
	char *cfg;

	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "MCOUNT_TRACE", 12))
			len += strlen(*e) + 1;
	cfg = malloc(len);
	if (!cfg)
		return NULL;
	*cfg = '\0';
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "MCOUNT_TRACE", 12) && !strchr(*e, '\n'))
			strcat(strcat(cfg, *e), "\n");
	return cfg;
}

/* record -p: attach, record, detach, and convert as for a program. */
static int record_attached(const struct record_opts *o, char *raw)
{
	char *cfg = attach_config(), name[64];
	int err;

	if (!cfg)
		return 1;
	err = attach_record(o->pid, o->duration, cfg);
	free(cfg);
	snprintf(name, sizeof(name), "process %ld", (long)o->pid);
	if (!err)
		err = check_recorded(raw ? raw : o->out, name, false);
	if (!err && raw)
		err = convert_each(raw, o->out, &o->ro);
	free(raw);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .n_ph = 1, .out = DEFAULT_FILE };
	char *raw = NULL;
	int status = parse_record(argc, argv, &o), exec_err;
	uint64_t since;

	if (status >= 0)
		return status;
	/* JSON and Perfetto's: recorded in our own form, then converted */
	if (form_of_output(o.out)) {
		raw = malloc(strlen(o.out) + 8);
		if (!raw)
			return 1;
		sprintf(raw, "%s.data", o.out);
	}
	if (check_output(o.out) || (raw && check_output(raw)) ||
	    set_record_env(&o, raw ? raw : o.out) != 0)
		return 1;
	if (o.pid)
		return record_attached(&o, raw);
	since = realtime_ns();
	status = run_program(o.prog, &exec_err);
	if (status < 0)
		return !exec_err ? 1 : exec_err == ENOENT ? 127 : 126;
	if (check_recorded(raw ? raw : o.out, o.prog[0], o.args) != 0) {
		program_status(status, o.prog[0]);
		return 1;
	}
	if (fold_processes(raw ? raw : o.out, since) != 0 ||
	    (raw && convert_each(raw, o.out, &o.ro) != 0))
		return 1;
	return program_status(status, o.prog[0]);
}
