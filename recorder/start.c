/* SPDX-License-Identifier: MIT */
/*
 * start.c - starting and ending a recording: the trace file of each
 * process, fork, and the order of the steps; the environment's
 * settings are read by config.c, the filters by filters.c.
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
 *   MCOUNT_TRACE_NOWAIT=1      a thread whose ring is full loses the
 *                              call (counted: buffers full) instead of
 *                              waiting for the writer to drain it
 *                              (ring.c)
 *   MCOUNT_TRACE_STATS=1       at the end, the writer thread's CPU time,
 *                              passes and events on stderr (the bench
 *                              tells the traced threads' share apart),
 *                              and how full the rings got (writer.c)
 *   MCOUNT_TRACE_TEST_NAP=NS   for tests: the writer naps NS after each
 *                              pass whatever it guessed (writer.c)
 *   MCOUNT_TRACE_ARGS=SPECS    arguments and return values captured
 *                              (mctrace -A, -R): args.c
 *   MCOUNT_TRACE_AT<k>=NS      k = 1..8, times increasing (mctrace --at):
 *   MCOUNT_TRACE_FILTER<k>,    NS after the recording began, the
 *   MCOUNT_TRACE_NOTRACE<k>    functions enabled become those these
 *                              globs pick (none: every function), as
 *                              the first two do at start
 *
 * The first process writes FILE; its children (fork) and programs it
 * starts (exec) that record too write FILE.PID (FILE.PID.N if taken),
 * told apart by MCOUNT_TRACE_ROOT, which the first one sets.  Set and
 * empty (mctrace record), it asks for FILE to be created new: the
 * first process to create it writes it, others FILE.PID, which mctrace
 * record appends to FILE once the program has ended (format.h's
 * MCT_PROCESS): each process writes its own file as it goes, with no
 * lock or offset shared with another on the recording's path.
 *
 * The recorder starts from a constructor that runs right after the
 * runtime's boot (priority 102; boot is 101) and ends in a destructor
 * that runs after the program's own (priority 101).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcount.h>

#include "../runtime/client.h"
#include "recorder.h"

static bool started;
static char *base_path;

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

static void start_fork_prepare(void)
{
	rec_writer_fork_prepare();
}

static void start_fork_parent(void)
{
	rec_writer_fork_parent();
}

static void start_fork_child(void)
{
	rec_filters_fork_child();
	rec_libs_fork_child();
	rec_writer_fork_child();
	rec_fork_child();
	/* an attach's recording may have ended before this fork */
	if (__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE) && open_other() != 0)
		__atomic_store_n(&rec_on, false, __ATOMIC_RELEASE);
}

/*
 * The first process, or one started by it (MCOUNT_TRACE_ROOT).  With
 * MCOUNT_TRACE_ROOT set but empty (mctrace record, which removed FILE),
 * the processes that record may be siblings (a shell pipeline, make's
 * recipes) that inherited nothing from one another: FILE goes to the
 * first to create it, and every other one writes FILE.PID.
 */
static int open_first(void)
{
	const char *root = getenv("MCOUNT_TRACE_ROOT");
	char pid[32];

	if (root && *root)
		return open_other();
	if (rec_writer_start(base_path, !root) != 0) {
		if (root && errno == EEXIST)
			return open_other();
		fprintf(stderr, "mcount: trace: cannot create %s: %s\n",
			base_path, strerror(errno));
		return -1;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("MCOUNT_TRACE_ROOT", pid, 1);
	return 0;
}

/* What a start does once in a process, however many starts it has. */
static int start_once(void)
{
	static bool done;

	if (done)
		return 0;
	if (rec_init_threads() != 0)
		return -1;
	pthread_atfork(start_fork_prepare, start_fork_parent, start_fork_child);
	done = true;
	return 0;
}

const char *rec_base_path(void)
{
	return base_path;
}

/*
 * The runtime's hooks: rec_entry, or rec_entry_args while values are
 * captured (args.c), which needs the trampoline's saved registers; and
 * the fused entries, which save none, where there are: the ones that
 * leave the functions captured to rec_entry_args when there are some.
 */
static bool set_hooks(void)
{
	mc_rt_slot_hook_t hook = rec_entry;

#ifdef REC_VALUE_CAPTURE
	if (rec_args_on)
		hook = rec_entry_args;
#endif
	if (!(rec_gpr_only ? mc_rt_set_gpr_slot_hook(hook)
			   : mc_rt_set_slot_hook(hook)))
		return false;
#ifdef REC_FUSED_ENTRY
	/*
	 * rec_entry's common case without the trampoline's frame; while
	 * values are captured, only x86_64's fused entries tell the
	 * functions captured (the others' go through the trampolines).
	 */
	if ((rec_gpr_only || !REC_FUSED_NEEDS_GPR) && hook == rec_entry)
		mc_rt_set_entry_takeover(rec_fentry, rec_mcount);
#if REC_FUSED_NEEDS_GPR
	else if (rec_gpr_only)
		mc_rt_set_entry_takeover(rec_fentry_args, rec_mcount_args);
#endif
#endif
	return true;
}

int rec_begin(const char *path, int (*open_trace)(void))
{
	char *copy = strdup(path);
	size_t failed = 0;

	if (!copy)
		return -1;
	free(base_path);
	base_path = copy;
	rec_config_read(base_path);
	rec_filters_read();
	if (!rec_args_start())
		return -1;
	if (start_once() != 0 || !set_hooks()) {
		fprintf(stderr, "mcount: trace: the runtime has no slot "
			"trampolines on %s: nothing recorded\n", MC_RT_ARCH->name);
		return -1;
	}
	if (!rec_filters_enable(&failed))
		return -1;
	if (open_trace() != 0)
		return -1;
	rec_filters_started();	/* after the writer read the time */
	rec_libs_start(rec_libs_settle);
	started = true;
	__atomic_store_n(&rec_on, true, __ATOMIC_RELEASE);
	if (failed)
		fprintf(stderr, "mcount: trace: %zu functions could not be "
			"enabled\n", failed);
	return 0;
}

__attribute__((constructor(102))) static void rec_start(void)
{
	const char *path = getenv("MCOUNT_TRACE");

	if (!path || !*path)
		return;
	if (!mcount_booted()) {
		fprintf(stderr, "mcount: trace: the runtime has not booted "
			"(MCOUNT_NO_AUTOBOOT?): nothing recorded\n");
		return;
	}
	rec_begin(path, open_first);
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
