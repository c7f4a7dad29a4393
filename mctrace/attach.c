/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attach.c - mctrace record -p PID: record a process that is already
 * running, and leave it as it was.
 *
 *   1. Refuse what cannot be attached, before touching it: no such
 *      process, another architecture, another tracer.
 *   2. Stop every thread (ptrace.c) and copy the text of every object
 *      it maps from a file.
 *   3. Load libmcount.so through the process's own dlopen when it has
 *      no recorder; its constructor boots the runtime on every loaded
 *      object with a table (or, built with pads alone, the compiler's
 *      __patchable_function_entries), while nothing else runs.  A thread
 *      stopped inside a pad of single-byte NOPs is stepped out first.
 *   4. Call the recorder's start (recorder/attach.h) with the settings,
 *      and let the threads go.
 *   5. At the end (--duration, SIGINT or SIGTERM, or the process's
 *      exit), stop one thread and call the recorder's stop on it while
 *      the others run: the writer thread finishes the file.  Then stop
 *      them all, write back every text byte that differs from the copy
 *      of step 2, check that none does, and let them go.
 *
 * libmcount.so stays loaded after (recorder/attach.c says why): a later
 * attach finds it and boots the sites afresh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "../recorder/attach.h"
#include "cli.h"
#include "procmaps.h"
#include "ptrace.h"
#include "remote_arch.h"

/* The text of one mapping, as it was before the attach. */
struct text_copy {
	uintptr_t lo;
	size_t len;
	unsigned char *bytes;
};

struct attach {
	pid_t pid;
	struct pt_threads th;
	struct text_copy *text;
	size_t ntext;
	uintptr_t start_fn, stop_fn;
	/* when the threads were last stopped; how long the attach held them */
	long long stopped_ns, held_ns;
	/* why the last try found the process busy */
	const char *busy;
};

static void fail(pid_t pid, const char *why)
{
	fprintf(stderr, "mctrace: process %ld: %s\n", (long)pid, why);
}

/* ---- refusals before anything is touched ------------------------------- */

/*
 * From /proc/PID/status: the pid of the process tracing `pid` (0 if
 * none, -1 if unknown), and in *state its state's letter.
 */
static long tracer_of(pid_t pid, char *state)
{
	char path[64], *line = NULL;
	size_t len = 0;
	long tracer = -1;
	FILE *f;

	*state = '?';
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &len, f) > 0)
		if (sscanf(line, "State: %c", state) == 1)
			continue;
		else if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	free(line);
	fclose(f);
	return tracer;
}

static int check_target(pid_t pid)
{
	char exe[64], why[128], state;
	long tracer;
	int em;

	snprintf(exe, sizeof(exe), "/proc/%ld/exe", (long)pid);
	if (kill(pid, 0) != 0 && errno == ESRCH) {
		fail(pid, "no such process");
		return 1;
	}
	em = pm_machine(exe);
	if (em < 0 && errno == EACCES) {
		fail(pid, "not ours: its program cannot be read (EPERM)");
		return 1;
	}
	if (em >= 0 && em != REMOTE_EM) {
		snprintf(why, sizeof(why), "another architecture (ELF machine "
			 "%d): attach needs an mctrace built for it", em);
		fail(pid, why);
		return 1;
	}
	tracer = tracer_of(pid, &state);
	if (tracer > 0) {
		snprintf(why, sizeof(why), "already traced by process %ld",
			 tracer);
		fail(pid, why);
		return 1;
	}
	/* a call in it would run it: it would not be as it was */
	if (state == 'T') {
		fail(pid, "stopped (SIGSTOP, job control): continue it first");
		return 1;
	}
	/* its /proc/PID/mem and maps went with its main thread */
	if (state == 'Z') {
		fail(pid, "its main thread has exited (pthread_exit): not "
		     "supported");
		return 1;
	}
	return 0;
}

/* Why ptrace was refused: the errno, and Yama's setting when it has one. */
static void say_no_ptrace(pid_t pid, int err)
{
	char why[256];
	int scope = -1;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (err == EPERM && scope > 0)
		snprintf(why, sizeof(why), "not allowed to trace it: Yama's "
			 "ptrace_scope is %d (%s)", scope,
			 scope >= 3 ? "no process may be traced" :
			 scope == 2 ? "only with CAP_SYS_PTRACE" :
			 "only descendants; see ptrace(2)");
	else if (err == EPERM)
		snprintf(why, sizeof(why), "not ours: not allowed to trace it "
			 "(EPERM)");
	else
		snprintf(why, sizeof(why), "cannot stop its threads: %s",
			 strerror(err));
	fail(pid, why);
}

/* ---- the text, before and after ---------------------------------------- */

static int copy_text(struct attach *a, const struct pm_maps *maps)
{
	a->text = calloc(maps->n ? maps->n : 1, sizeof(*a->text));
	if (!a->text)
		return -1;
	for (size_t i = 0; i < maps->n; i++) {
		const struct pm_map *m = &maps->m[i];
		struct text_copy *t = &a->text[a->ntext];

		if (m->perms[2] != 'x' || m->path[0] != '/')
			continue;
		t->lo = m->lo;
		t->len = m->hi - m->lo;
		t->bytes = malloc(t->len);
		if (!t->bytes)
			return -1;
		if (pt_read(a->pid, t->lo, t->bytes, t->len) != 0) {
			free(t->bytes);
			continue;
		}
		a->ntext++;
	}
	return 0;
}

/* Write back the bytes of `t` that differ; how many, or -1. */
static long restore_one(pid_t pid, const struct text_copy *t,
			unsigned char *now)
{
	long n = 0;

	if (pt_read(pid, t->lo, now, t->len) != 0)
		return errno == EIO ? 0 : -1;	/* unmapped since */
	for (size_t i = 0; i < t->len; i++) {
		size_t j = i;

		if (now[i] == t->bytes[i])
			continue;
		while (j < t->len && now[j] != t->bytes[j])
			j++;
		if (pt_write(pid, t->lo + i, t->bytes + i, j - i) != 0)
			return -1;
		n += (long)(j - i);
		i = j;
	}
	return n;
}

/*
 * Every text byte as it was before the attach: how many were written
 * back, or -1 having said why.  Read again after, to be sure.
 */
static long restore_text(struct attach *a)
{
	long total = 0;

	for (size_t k = 0; k < a->ntext; k++) {
		const struct text_copy *t = &a->text[k];
		unsigned char *now = malloc(t->len);
		long n = now ? restore_one(a->pid, t, now) : -1;

		if (n > 0 && (restore_one(a->pid, t, now) != 0)) {
			n = -1;
			errno = EIO;
		}
		free(now);
		if (n < 0) {
			fprintf(stderr, "mctrace: process %ld: cannot restore "
				"its text at %#lx: %s\n", (long)a->pid,
				(unsigned long)t->lo, strerror(errno));
			return -1;
		}
		total += n;
	}
	return total;
}

static void free_text(struct attach *a)
{
	for (size_t k = 0; k < a->ntext; k++)
		free(a->text[k].bytes);
	free(a->text);
	a->text = NULL;
	a->ntext = 0;
}

/* ---- the recorder in the process --------------------------------------- */

/*
 * The function `sym` of the recorder where the process has it: in its
 * program (linked with libmcount.a), else in its libmcount.so; 0.
 */
static uintptr_t entry_of(pid_t pid, const struct pm_maps *maps,
			  const char *sym)
{
	char exe[64], path[4096];
	const struct pm_map *lib = pm_find(maps, "libmcount.so");
	ssize_t n;
	uintptr_t fn = 0;

	snprintf(exe, sizeof(exe), "/proc/%ld/exe", (long)pid);
	n = readlink(exe, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		fn = pm_symbol(maps, path, sym);
	}
	return fn ? fn : lib ? pm_symbol(maps, lib->path, sym) : 0;
}

static void find_entry(struct attach *a, const struct pm_maps *maps)
{
	a->start_fn = entry_of(a->pid, maps, MC_ATTACH_START_SYM);
	a->stop_fn = entry_of(a->pid, maps, MC_ATTACH_STOP_SYM);
}

/*
 * The libmcount.so to load: $MCTRACE_LIBMCOUNT, else the one beside
 * mctrace (a build tree), else in ../lib from it, else the name, for
 * the process's loader to search.
 */
static const char *lib_path(char *buf, size_t len)
{
	static const char *const where[] = { "%s/libmcount.so.0",
					     "%s/../lib/libmcount.so.0" };
	const char *env = getenv("MCTRACE_LIBMCOUNT");
	char self[4096];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
			snprintf(buf, len, where[i], dirname(self));
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return "libmcount.so.0";
}

/* Load libmcount.so with the process's dlopen: 0, or 1 having said why. */
static int load_recorder(struct attach *a, struct pm_maps *maps)
{
	const struct pm_map *libc = pm_find(maps, "libc.so");
	uintptr_t dlopen_fn = libc ? pm_symbol(maps, libc->path, "dlopen") : 0;
	uintptr_t flags = RTLD_NOW, handle = 0;
	char buf[4096];
	const char *lib = lib_path(buf, sizeof(buf));

	if (!dlopen_fn) {
		fail(a->pid, "static, or its libc has no dlopen: libmcount "
		     "cannot be loaded into it");
		return 1;
	}
	if (pt_call(&a->th, pt_pick(&a->th), dlopen_fn, lib, &flags, 1,
		    &handle) != 0)
		return 1;
	if (!handle) {
		fprintf(stderr, "mctrace: process %ld: its dlopen could not "
			"load %s (set MCTRACE_LIBMCOUNT)\n", (long)a->pid, lib);
		return 1;
	}
	pm_free(maps);
	if (pm_read(a->pid, maps) != 0)
		return 1;
	find_entry(a, maps);
	if (!a->start_fn || !a->stop_fn) {
		fprintf(stderr, "mctrace: process %ld: %s has no %s: not this "
			"mctrace's libmcount\n", (long)a->pid, lib,
			MC_ATTACH_START_SYM);
		return 1;
	}
	return 0;
}

static const char *start_error(int code)
{
	switch (code) {
	case MC_ATTACH_EBUSY: return "already traced: its recorder records "
				     "(MCOUNT_TRACE, or another mctrace)";
	case MC_ATTACH_ENOSITES: return "no sites: none of its objects has "
					"a table or pads the runtime takes";
	case MC_ATTACH_EENABLED: return "already traced: the program enabled "
					"sites of its own";
	case MC_ATTACH_EBOOT: return "the runtime did not boot in it";
	case MC_ATTACH_ESTART: return "the recording did not start (see the "
				      "process's stderr)";
	case MC_ATTACH_ENOMEM: return "no memory in it for the settings";
	default: return "the recorder's start failed";
	}
}

/* Step every thread out of a NOP pad the runtime is about to rewrite. */
static int step_out_all(struct attach *a)
{
	for (size_t i = 0; i < a->th.n; i++)
		if (pt_step_out_of_nops(&a->th, i) != 0)
			return -1;
	return 0;
}

static bool held(const struct attach *a, int32_t tid)
{
	for (size_t i = 0; i < a->th.n; i++)
		if (a->th.tid[i] == tid)
			return true;
	return false;
}

/*
 * Where glibc's struct __pthread_mutex_s keeps its kind, in ints from
 * its start: after lock, count, owner and (64-bit) nusers.
 */
#define MUTEX_KIND (sizeof(void *) == 8 ? 4 : 3)
#define MUTEX_INTS (MUTEX_KIND + 1)
#define MUTEX_RECURSIVE 1	/* PTHREAD_MUTEX_RECURSIVE_NP */

/* Whether the ints at `m` are a recursive mutex a held thread owns. */
static bool held_mutex(const struct attach *a, const int32_t *m)
{
	return (m[0] == 1 || m[0] == 2) && m[1] >= 1 &&
	       m[MUTEX_KIND] == MUTEX_RECURSIVE && m[2] > 0 && held(a, m[2]);
}

/*
 * Whether a held thread holds one of the loader's locks, though its
 * code is not the loader's: inside an object's constructor or
 * destructor, which dlopen and dlclose run under their lock, or inside
 * a dl_iterate_phdr callback (an unwinder's).  glibc keeps those locks,
 * recursive mutexes, in ld.so's _rtld_global, aligned as pointers are;
 * one held has its lock word 1 or 2, its count at least 1 and its
 * owner's thread id, the layout of every glibc machine.  A loader
 * without that object (musl) is not looked at.
 */
static bool loader_lock_held(const struct attach *a, const struct pm_maps *maps)
{
	const struct pm_map *ld = pm_find(maps, "ld-");
	const size_t step = sizeof(void *) / sizeof(int32_t);
	size_t size = 0;
	uintptr_t at = ld ? pm_sized(maps, ld->path, "_rtld_global", false, &size) : 0;
	int32_t *w;
	bool found = false;

	if (!at || size < MUTEX_INTS * sizeof(*w) || size > 65536)
		return false;
	w = malloc(size);
	if (w && pt_read(a->pid, at, w, size) == 0)
		for (size_t i = 0; !found && i + MUTEX_INTS <= size / sizeof(*w);
		     i += step)
			found = held_mutex(a, &w[i]);
	free(w);
	return found;
}

/*
 * Whether a held thread is inside the C library's fork, or a function it
 * called: fork holds malloc's locks and stdio's from before its system
 * call to after it, and a thread we stop stops on that call's way back,
 * the locks held.  Our dlopen's first malloc on a thread that has none
 * of its own waits for them.
 */
static bool in_fork(const struct attach *a, const struct pm_maps *maps)
{
	static const char *const names[] = { "fork", "_Fork" };
	const struct pm_map *libc = pm_find(maps, "libc.so");

	for (size_t k = 0; libc && k < sizeof(names) / sizeof(names[0]); k++) {
		size_t size = 0;
		uintptr_t fn = pm_sized(maps, libc->path, names[k], true, &size);

		if (fn && pt_any_in_frames(&a->th, fn, fn + size))
			return true;
	}
	return false;
}

/*
 * Whether a held thread is inside the dynamic loader's code, or inside
 * fork, or (`loading`: before our dlopen of libmcount.so, which takes
 * it) holds the loader's lock elsewhere: a dlopen or dlclose half done,
 * whose locks that dlopen and the runtime's walks of the loaded objects
 * take, or malloc's locks.  Waiting for them would wait for ever, and a
 * call given up half done may leave a lock of its own held (the
 * loader's, when its dlopen waited on malloc's): better let the threads
 * run and stop them again.
 */
static bool thread_busy(struct attach *a, const struct pm_maps *maps,
		      bool loading)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct pm_map *m = &maps->m[i];
		const char *base = strrchr(m->path, '/');

		if (m->perms[2] == 'x' && base && !strncmp(base + 1, "ld-", 3) &&
		    pt_any_pc_in(&a->th, m->lo, m->hi)) {
			a->busy = "in the loader's code";
			return true;
		}
	}
	if (loading && loader_lock_held(a, maps))
		a->busy = "holding the loader's lock";
	else if (in_fork(a, maps))
		a->busy = "inside fork";
	else
		return false;
	return true;
}

/*
 * A call that did not return was given up, its thread's registers put
 * back: 2 to try again, or 1 having said why not.  Not when it was our
 * dlopen of libmcount.so, given up holding the loader's lock (no held
 * thread had it before: thread_busy): it waited for a lock of the
 * program's (in a malloc, say), and no later dlopen of any thread can
 * take the loader's lock again.
 */
static int given_up(const struct attach *a, const struct pm_maps *maps,
		    bool loading)
{
	if (!loading || !loader_lock_held(a, maps))
		return 2;
	fail(a->pid, "its dlopen of libmcount.so did not return and was "
	     "given up holding the loader's lock: the process will hang at "
	     "its next dlopen, or at its exit");
	return 1;
}

/*
 * Steps 2 to 4 with every thread held: 0, 1 having said why, 2 when a
 * call did not return (its thread's registers put back), or 3 when a
 * held thread was busy (thread_busy), or the start found the patching
 * lock held by one (nothing done; a->busy says which).
 */
static int start_held(struct attach *a, const char *config)
{
	struct pm_maps maps;
	uintptr_t code = 0;
	int err = 1;
	bool loading;

	if (pm_read(a->pid, &maps) != 0) {
		fail(a->pid, "cannot read its mappings");
		return 1;
	}
	find_entry(a, &maps);
	loading = !a->start_fn || !a->stop_fn;
	if (thread_busy(a, &maps, loading)) {
		pm_free(&maps);
		return 3;
	}
	if (copy_text(a, &maps) != 0) {
		pm_free(&maps);
		fail(a->pid, "cannot read its text");
		return 1;
	}
	errno = 0;
	if (step_out_all(a) != 0)
		fail(a->pid, "cannot step a thread out of a pad");
	else if ((a->start_fn && a->stop_fn) || !load_recorder(a, &maps))
		err = pt_call(&a->th, pt_pick(&a->th), a->start_fn, config,
			      NULL, 0, &code);
	if (err && errno == ETIMEDOUT)
		err = given_up(a, &maps, loading);
	pm_free(&maps);
	if (!err && (int)code == MC_ATTACH_EAGAIN) {
		a->busy = "holding libmcount's patching lock";
		return 3;
	}
	if (!err && (int)code != MC_ATTACH_OK) {
		fail(a->pid, start_error((int)code));
		err = 1;
	}
	return err;
}

/* ---- the recording's window -------------------------------------------- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Until `ns` have passed (0: no limit), SIGINT or SIGTERM, or the
 * process's exit: true if it exited.  A pidfd tells its exit at once;
 * without one (Linux before 5.3), kill(2) asks every 100 ms.
 */
static bool wait_window(pid_t pid, long long ns)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long long end = ns ? mono_ns() + ns : 0;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	bool exited = false;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!interrupted && !exited) {
		long long left = end ? end - mono_ns() : 100000000;
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		if (left <= 0)
			break;
		left = left > 100000000 ? 100000000 : left;
		if (pfd >= 0)
			exited = poll(&p, 1, (int)(left / 1000000) + 1) > 0;
		else
			exited = usleep((useconds_t)(left / 1000)) == 0 &&
				 kill(pid, 0) != 0 && errno == ESRCH;
	}
	if (pfd >= 0)
		close(pfd);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return exited;
}

/*
 * Step 5: the recording stopped, the text as it was, every thread let
 * go.  0, or 1 having said why.
 */
static int finish(struct attach *a)
{
	long long t0 = mono_ns();
	uintptr_t code = 0;
	long restored;
	int err;

	/* not the writer: the stop call waits for it to finish the file */
	if (pt_stop_one(&a->th, MC_ATTACH_WRITER_NAME) != 0) {
		say_no_ptrace(a->pid, errno);
		return 1;
	}
	err = pt_call(&a->th, 0, a->stop_fn, NULL, NULL, 0, &code);
	if (err && errno == ETIMEDOUT)
		fail(a->pid, "the recorder's stop did not return (a lock "
		     "held?): it may still record");
	if (!err && (int)code != MC_ATTACH_OK) {
		fail(a->pid, "its recorder was not recording at the end");
		err = 1;
	}
	if (pt_stop(&a->th) != 0) {
		say_no_ptrace(a->pid, errno);
		pt_detach_all(&a->th);
		return 1;
	}
	restored = restore_text(a);
	pt_detach_all(&a->th);
	if (restored >= 0)
		fprintf(stderr, "mctrace: process %ld: detached, %ld text "
			"bytes put back as they were (threads held %.1f ms at "
			"the attach; the detach took %.1f ms)\n", (long)a->pid,
			restored, a->held_ns / 1e6, (mono_ns() - t0) / 1e6);
	return err || restored < 0;
}

/*
 * How many times the threads are stopped again when one of them was busy
 * (thread_busy) or held the patching lock (a thread looping in dlopen is
 * there most of the time), a millisecond of running between.
 */
#define BUSY_TRIES 500

/*
 * Steps 2 to 4, tried again (up to 3 times) when a call did not
 * return: a thread we held may have held a lock it needed, and let go
 * it releases it; and again (up to BUSY_TRIES times) when a held thread
 * was busy (thread_busy; a->busy says how) or held the patching lock.  0, or 1 having said why, every thread let go but on
 * success.
 */
static int start_tries(struct attach *a, const char *config)
{
	int timeouts = 0, busy = 0;

	while (timeouts < 3 && busy < BUSY_TRIES) {
		struct timespec nap = { 0, 20000000 };
		int err;

		a->stopped_ns = mono_ns();
		if (pt_stop(&a->th) != 0) {
			say_no_ptrace(a->pid, errno);
			pt_detach_all(&a->th);
			return 1;
		}
		err = start_held(a, config);
		if (!err)
			return 0;
		restore_text(a);
		free_text(a);
		pt_detach_all(&a->th);
		if (err == 1)
			return 1;
		if (err == 3)
			nap.tv_nsec = 1000000;
		busy += err == 3;
		timeouts += err == 2;
		nanosleep(&nap, NULL);
	}
	if (timeouts == 3) {
		fail(a->pid, "a call in it did not return, 3 times (a lock "
		     "held?); its threads' registers were put back");
	} else {
		char why[160];

		snprintf(why, sizeof(why), "a thread of it was busy each of "
			 "%d times it was stopped (last: %s)", BUSY_TRIES,
			 a->busy ? a->busy : "?");
		fail(a->pid, why);
	}
	return 1;
}

int attach_record(pid_t pid, long long duration_ns, const char *config)
{
	struct attach a = { .pid = pid, .th = { .pid = pid } };
	int err;

	if (!REMOTE_ARCH_OK) {
		fail(pid, "attach is not supported on this architecture "
		     "(x86_64, i386, aarch64 and riscv64 only)");
		return 1;
	}
	if (check_target(pid))
		return 1;
	err = start_tries(&a, config);
	if (!err) {
		pt_detach_all(&a.th);
		a.held_ns = mono_ns() - a.stopped_ns;
		if (wait_window(pid, duration_ns))
			fprintf(stderr, "mctrace: process %ld exited during the "
				"recording\n", (long)pid);
		else
			err = finish(&a);
	}
	free_text(&a);
	pt_free(&a.th);
	return err;
}

int attach_call(pid_t pid, const char *sym, const char *str, uintptr_t *ret)
{
	struct pt_threads th = { .pid = pid };
	struct pm_maps maps;
	uintptr_t fn;
	int err = 1;

	if (!REMOTE_ARCH_OK || check_target(pid))
		return 1;
	if (pm_read(pid, &maps) != 0) {
		fail(pid, "cannot read its mappings");
		return 1;
	}
	fn = entry_of(pid, &maps, sym);
	pm_free(&maps);
	if (!fn) {
		fail(pid, "no libmcount in it (mctrace record -p loads one)");
		return 1;
	}
	if (pt_stop(&th) != 0)
		say_no_ptrace(pid, errno);
	else if ((err = pt_call(&th, pt_pick(&th), fn, str, NULL, 0, ret)) &&
		 errno == ETIMEDOUT)
		fail(pid, "the call did not return (a lock held?)");
	pt_detach_all(&th);
	pt_free(&th);
	return err;
}
