/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live.c - mctrace list -p PID and mctrace live -p PID enable|disable
 * GLOB: a running process's sites, and what its recording in progress
 * records, changed from outside.  Each is one call of the recorder's
 * (recorder/attach.h) through attach_call; the process must have
 * libmcount (linked, or loaded by an earlier record -p).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../recorder/attach.h"
#include "cli.h"

static void live_usage(FILE *f, const char *cmd)
{
	if (!strcmp(cmd, "list"))
		fprintf(f,
"Usage: mctrace list -p PID\n"
"List the sites of the running process PID (x86_64, aarch64, riscv64),\n"
"one a line: its state (disabled, enabled, refused), address, function\n"
"and object.\n");
	else
		fprintf(f,
"Usage: mctrace live -p PID enable|disable GLOB\n"
"Enable or disable, in the running process PID (x86_64, aarch64,\n"
"riscv64), the functions GLOB matches (fnmatch(3), \"libfoo.so:pat\" for\n"
"one object's), for the recording in progress there (mctrace record -p,\n"
"or MCOUNT_TRACE).\n");
	fprintf(f,
"\n"
"  -p, --pid PID   the process\n"
"  -h, --help      show this help and exit\n"
"Exit status: 0; 1 when the process refused or has no libmcount, said in\n"
"one line; 2 for a usage error.  See mctrace(1).\n");
}

/* -p PID: the pid, 0 having said why (-1 for --help). */
static pid_t parse_pid(int argc, char **argv, const char *cmd)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long pid = 0;
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:h", opts, NULL)) != -1) {
		if (c == 'h') {
			live_usage(stdout, cmd);
			return -1;
		}
		if (c != 'p') {
			cli_bad_option(cmd, c, argv);
			return 0;
		}
		errno = 0;
		pid = strtol(optarg, &end, 10);
		if (errno || *end || pid <= 0 || pid != (pid_t)pid) {
			fprintf(stderr, "mctrace %s: option '-p %s': not a "
				"process id\n", cmd, optarg);
			cli_try(cmd);
			return 0;
		}
	}
	if (!pid) {
		fprintf(stderr, "mctrace %s: '-p PID' is needed\n", cmd);
		cli_try(cmd);
	}
	return (pid_t)pid;
}

/* A file the process may write, made here: its name in `path`; fd or -1. */
static int list_file(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/mctrace-list.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || fchmod(fd, 0666) != 0) {
		fprintf(stderr, "mctrace list: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int copy_out(int fd)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 1;
	return n < 0;
}

int cmd_list(int argc, char **argv)
{
	pid_t pid = parse_pid(argc, argv, "list");
	char path[4096];
	uintptr_t code = 0;
	int fd, err;

	if (pid <= 0)
		return pid < 0 ? 0 : 2;
	if (optind < argc) {
		fprintf(stderr, "mctrace list: no operand ('%s')\n", argv[optind]);
		return cli_try("list");
	}
	fd = list_file(path, sizeof(path));
	if (fd < 0)
		return 1;
	err = attach_call(pid, MC_ATTACH_LIST_SYM, path, &code);
	if (!err && (int)code != MC_ATTACH_OK) {
		fprintf(stderr, "mctrace: process %ld: %s\n", (long)pid,
			(int)code == MC_ATTACH_EBOOT ? "its runtime has not booted" :
			"it could not write the list");
		err = 1;
	}
	if (!err)
		err = copy_out(fd);
	close(fd);
	unlink(path);
	return err;
}

int cmd_live(int argc, char **argv)
{
	pid_t pid = parse_pid(argc, argv, "live");
	uintptr_t ret = 0;
	char *spec;
	bool on;
	int n;

	if (pid <= 0)
		return pid < 0 ? 0 : 2;
	if (argc - optind != 2 || (strcmp(argv[optind], "enable") &&
				   strcmp(argv[optind], "disable"))) {
		fprintf(stderr, "mctrace live: 'enable GLOB' or 'disable GLOB' "
			"is needed\n");
		return cli_try("live");
	}
	on = !strcmp(argv[optind], "enable");
	if (asprintf(&spec, "%c%s", on ? '+' : '-', argv[optind + 1]) < 0)
		return 1;
	n = attach_call(pid, MC_ATTACH_LIVE_SYM, spec, &ret) ? 1 : 0;
	free(spec);
	if (n)
		return 1;
	n = (int)ret;
	if (n == MC_ATTACH_LIVE_IDLE || n < 0) {
		fprintf(stderr, "mctrace: process %ld: %s\n", (long)pid,
			n == MC_ATTACH_LIVE_IDLE ? "nothing records in it "
			"(mctrace record -p first)" : "no function matches, "
			"or the change failed");
		return 1;
	}
	printf("%d functions %s\n", n, on ? "enabled" : "disabled");
	return 0;
}
