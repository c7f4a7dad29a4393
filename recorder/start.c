/* SPDX-License-Identifier: MIT */
/*
 * start.c - starting and ending a recording: the environment's
 * settings, which functions to enable, the trace file of each process,
 * fork.
 *
 *   MCOUNT_TRACE=FILE          record into FILE (Chrome JSON if it ends
 *                              in .json, else the recorder's own format)
 *   MCOUNT_TRACE_FILTER=GLOBS  only functions matching one of these
 *                              comma-separated fnmatch globs (mctrace -F)
 *   MCOUNT_TRACE_NOTRACE=GLOBS never these (mctrace -N)
 *   MCOUNT_TRACE_DEPTH=N       only calls at most N deep (recorded ones)
 *   MCOUNT_TRACE_MIN_TIME=NS   readers leave out shorter calls
 *   MCOUNT_TRACE_BUFSIZE=N     events per thread's ring (rounded up to a
 *                              power of two; default 65536, 16 B each)
 *
 * The first process writes FILE; its children (fork) and programs it
 * starts (exec) that record too write FILE.PID (FILE.PID.N if taken),
 * told apart by MCOUNT_TRACE_ROOT, which the first one sets.
 *
 * The recorder starts from a constructor that runs right after the
 * runtime's boot (priority 102; boot is 101) and ends in a destructor
 * that runs after the program's own (priority 101).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcount.h>

#include "../runtime/platform.h"
#include "recorder.h"

struct rec_config rec_cfg;
bool rec_on;
static bool started;
static char *base_path;

static size_t env_size(const char *name, size_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "mcount: trace: %s=%s is not a number; "
			"using %zu\n", name, v, dflt);
		return dflt;
	}
	return (size_t)n;
}

/* True if `name` matches one of the comma-separated globs. */
static bool matches(const char *globs, const char *name)
{
	char buf[256];

	while (*globs) {
		size_t n = strcspn(globs, ",");

		if (n && n < sizeof(buf)) {
			memcpy(buf, globs, n);
			buf[n] = '\0';
			if (fnmatch(buf, name, 0) == 0)
				return true;
		}
		globs += n + (globs[n] == ',');
	}
	return false;
}

struct pick {
	const char *only, *never;
	size_t enabled, failed;
};

static int enable_one(const struct mcount_site_info *s, void *arg)
{
	struct pick *p = arg;
	unsigned long off = 0;
	const char *name = mcount_func_name(s->at, &off);

	if (s->state == MCOUNT_SITE_REFUSED)
		return 0;
	if (p->only && (!name || !matches(p->only, name)))
		return 0;
	if (p->never && name && matches(p->never, name))
		return 0;
	if (mcount_enable(name ? s->at - off : s->at) == MCOUNT_OK)
		p->enabled++;
	else
		p->failed++;
	return 0;
}

static void read_config(const char *path)
{
	size_t ring = env_size("MCOUNT_TRACE_BUFSIZE", 65536), pow2 = 1024;
	size_t len = strlen(path);

	while (pow2 < ring && pow2 < ((size_t)1 << 30))
		pow2 <<= 1;
	rec_cfg.path = path;
	rec_cfg.json = len > 5 && strcmp(path + len - 5, ".json") == 0;
	rec_cfg.ring_events = pow2;
	rec_cfg.max_frames = 16384;
	if (rec_cfg.max_frames > pow2 / 2 - 1)
		rec_cfg.max_frames = pow2 / 2 - 1;
	rec_cfg.depth = env_size("MCOUNT_TRACE_DEPTH", 0);
	rec_cfg.min_time_ns = env_size("MCOUNT_TRACE_MIN_TIME", 0);
}

/*
 * The trace of a process other than the first: FILE.PID, or for JSON
 * STEM.PID.json, with .N added until the name is new.
 */
static int open_other(void)
{
	const char *path = base_path;
	size_t len = strlen(path) - (rec_cfg.json ? 5 : 0);
	char name[4096];

	for (int n = 0; n < 100; n++) {
		char seq[16] = "";

		if (n)
			snprintf(seq, sizeof(seq), ".%d", n);
		snprintf(name, sizeof(name), "%.*s.%ld%s%s", (int)len, path,
			 (long)getpid(), seq, rec_cfg.json ? ".json" : "");
		if (rec_writer_start(name, false) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, "mcount: trace: cannot create %s: %s\n", name,
		strerror(errno));
	return -1;
}

static void fork_prepare(void)
{
	rec_writer_fork_prepare();
}

static void fork_parent(void)
{
	rec_writer_fork_parent();
}

static void fork_child(void)
{
	rec_writer_fork_child();
	rec_fork_child();
	if (open_other() != 0)
		__atomic_store_n(&rec_on, false, __ATOMIC_RELEASE);
}

/* The first process, or one started by it (MCOUNT_TRACE_ROOT). */
static int open_trace(void)
{
	char pid[32];

	if (getenv("MCOUNT_TRACE_ROOT"))
		return open_other();
	if (rec_writer_start(base_path, true) != 0) {
		fprintf(stderr, "mcount: trace: cannot create %s: %s\n",
			base_path, strerror(errno));
		return -1;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("MCOUNT_TRACE_ROOT", pid, 1);
	return 0;
}

__attribute__((constructor(102))) static void rec_start(void)
{
	const char *path = getenv("MCOUNT_TRACE");
	struct pick pick;

	if (!path || !*path)
		return;
	if (!rec_arch_ok) {
		fprintf(stderr, "mcount: trace: recording is not supported on "
			"%s yet (no return trampoline): nothing recorded\n",
			rec_arch_name);
		return;
	}
	if (!mcount_booted()) {
		fprintf(stderr, "mcount: trace: the runtime has not booted "
			"(MCOUNT_NO_AUTOBOOT?): nothing recorded\n");
		return;
	}
	base_path = strdup(path);
	if (!base_path)
		return;
	read_config(base_path);
	if (rec_init_threads() != 0 ||
	    !(rec_gpr_only ? mc_rt_set_gpr_slot_hook(rec_entry)
			   : mc_rt_set_slot_hook(rec_entry))) {
		fprintf(stderr, "mcount: trace: the runtime has no slot "
			"trampolines on %s: nothing recorded\n", rec_arch_name);
		return;
	}
	/* while this is the only thread: sites without a live form too */
	pick = (struct pick){ .only = getenv("MCOUNT_TRACE_FILTER"),
			      .never = getenv("MCOUNT_TRACE_NOTRACE") };
	if (pick.only && !*pick.only)
		pick.only = NULL;
	mcount_for_each_site(enable_one, &pick);
	if (open_trace() != 0)
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	started = true;
	__atomic_store_n(&rec_on, true, __ATOMIC_RELEASE);
	if (pick.failed)
		fprintf(stderr, "mcount: trace: %zu functions could not be "
			"enabled\n", pick.failed);
}

/*
 * The end of the recording, in the process (exit) or before exec: the
 * calling thread's open frames get exit events now (exit() may run
 * inside traced functions), the writer writes the rest.
 */
void rec_finish(void)
{
	if (!started || !__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&rec_on, false, __ATOMIC_RELEASE);
	rec_close_frames();
	rec_writer_stop();
}

__attribute__((destructor(101))) static void rec_end(void)
{
	rec_finish();
}
