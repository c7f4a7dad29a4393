/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace.c - another process's threads held stopped, its memory, and a
 * function called in it (ptrace.h).
 *
 * Threads are taken with PTRACE_SEIZE and PTRACE_INTERRUPT, which send
 * no signal: a thread that stops on a signal of its own instead keeps
 * it, and gets it back at detach, so the process sees every signal it
 * was sent.  The list of threads is read from /proc/PID/task until a
 * pass finds none new: a thread started while the others were being
 * stopped is taken too.  Memory goes through /proc/PID/mem, which
 * writes read-only text as a debugger does, with no writable mapping.
 */
#define _GNU_SOURCE
/*
 * /proc/PID/mem's offsets are addresses: on a 32-bit machine (i386) a
 * 32-bit off_t makes every one from 2 GiB up negative (EINVAL), the
 * stack and the libraries among them.
 */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "ptrace.h"
#include "remote_arch.h"

/* How long a call in the process may take before we give up on it. */
#define CALL_TIMEOUT_MS 4000

static bool held(const struct pt_threads *p, pid_t tid)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->tid[i] == tid)
			return true;
	return false;
}

static int add_thread(struct pt_threads *p, pid_t tid, int sig)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		pid_t *t = realloc(p->tid, cap * sizeof(*t));
		int *s = t ? realloc(p->sig, cap * sizeof(*s)) : NULL;

		if (t)
			p->tid = t;
		if (!s)
			return -1;
		p->sig = s;
		p->cap = cap;
	}
	p->tid[p->n] = tid;
	p->sig[p->n++] = sig;
	return 0;
}

/*
 * Wait for thread `tid` to stop: 0 with the signal it stopped on in
 * *sig (0 for our interrupt), 1 if it exited, -1 on error.
 */
static int wait_stop(pid_t tid, int *sig)
{
	int status;

	for (;;) {
		if (waitpid(tid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 1 : -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 1;
		if (!WIFSTOPPED(status))
			continue;
		*sig = (status >> 16) ? 0 : WSTOPSIG(status);
		return 0;
	}
}

/* Whether thread `tid` has exited, its entry kept (a leader, 'Z'). */
static bool zombie(pid_t pid, pid_t tid)
{
	char path[96], stat[512];
	const char *end;
	ssize_t n;
	int err = errno, fd;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", (long)pid,
		 (long)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
	if (fd >= 0)
		close(fd);
	stat[n > 0 ? n : 0] = '\0';
	end = strrchr(stat, ')');
	errno = err;
	return end && end[1] == ' ' && end[2] == 'Z';
}

/* Seize and stop `tid`: 0, 1 if it is gone, -1 with errno. */
static int stop_thread(struct pt_threads *p, pid_t tid)
{
	int sig = 0, r;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0)
		return errno == ESRCH || zombie(p->pid, tid) ? 1 : -1;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0 && errno != ESRCH)
		return -1;
	r = wait_stop(tid, &sig);
	if (r)
		return r;
	return add_thread(p, tid, sig);
}

/* One pass over /proc/PID/task: how many new threads it stopped, or -1. */
static int stop_pass(struct pt_threads *p)
{
	char dir[64];
	struct dirent *e;
	DIR *d;
	int added = 0;

	snprintf(dir, sizeof(dir), "/proc/%ld/task", (long)p->pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atol(e->d_name);
		int r;

		if (tid <= 0 || held(p, tid))
			continue;
		r = stop_thread(p, tid);
		if (r < 0) {
			int err = errno;

			closedir(d);
			errno = err;
			return -1;
		}
		added += r == 0;
	}
	closedir(d);
	return added;
}

int pt_stop(struct pt_threads *p)
{
	int r;

	do
		r = stop_pass(p);
	while (r > 0);
	return r < 0 ? -1 : 0;
}

/* Whether thread `tid`'s name (comm) is `name`. */
static bool named(pid_t pid, pid_t tid, const char *name)
{
	char path[96], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm", (long)pid,
		 (long)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, name);
}

int pt_stop_one(struct pt_threads *p, const char *avoid)
{
	char dir[64];
	struct dirent *e;
	int r = stop_thread(p, p->pid);
	DIR *d;

	if (r <= 0)
		return r;
	snprintf(dir, sizeof(dir), "/proc/%ld/task", (long)p->pid);
	d = opendir(dir);
	if (!d)
		return -1;
	r = 1;
	while (r > 0 && (e = readdir(d))) {
		pid_t tid = (pid_t)atol(e->d_name);

		if (tid > 0 && !named(p->pid, tid, avoid))
			r = stop_thread(p, tid);
	}
	closedir(d);
	if (r > 0)
		errno = ESRCH;
	return r ? -1 : 0;
}

void pt_detach_all(struct pt_threads *p)
{
	for (size_t i = 0; i < p->n; i++)
		ptrace(PTRACE_DETACH, p->tid[i], 0, (void *)(long)p->sig[i]);
	p->n = 0;
}

void pt_free(struct pt_threads *p)
{
	free(p->tid);
	free(p->sig);
	p->tid = NULL;
	p->sig = NULL;
	p->n = p->cap = 0;
}

static int mem_io(pid_t pid, uintptr_t addr, void *buf, size_t len,
		  bool write)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write ? pwrite(fd, buf, len, (off_t)addr) :
		    pread(fd, buf, len, (off_t)addr);
	close(fd);
	if (n >= 0 && (size_t)n != len)
		errno = EIO;
	return n >= 0 && (size_t)n == len ? 0 : -1;
}

int pt_read(pid_t pid, uintptr_t addr, void *buf, size_t len)
{
	return mem_io(pid, addr, buf, len, false);
}

int pt_write(pid_t pid, uintptr_t addr, const void *buf, size_t len)
{
	return mem_io(pid, addr, (void *)buf, len, true);
}

static int get_regs(pid_t tid, remote_regs *r)
{
	struct iovec io = { r, sizeof(*r) };

	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io);
}

static int set_regs(pid_t tid, const remote_regs *r)
{
	struct iovec io = { (void *)r, sizeof(*r) };

	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &io);
}

/*
 * The stack of a call of `n` arguments `a`: `str` below the red zone,
 * aligned, its address the first argument; below it the arguments where
 * the machine passes them there (i386), aligned; below them the return
 * address (0) where the call pushes it (remote_arch.h).  The stack
 * pointer at the call, or 0.
 */
static uintptr_t call_stack(pid_t pid, uintptr_t sp, const char *str,
			    uintptr_t *a, int n)
{
	const uintptr_t align = ~(uintptr_t)(REMOTE_STACK_ALIGN - 1);
	size_t len = str ? strlen(str) + 1 : 0;
	size_t on_stack = REMOTE_ARGS_ON_STACK ? n * sizeof(*a) : 0;
	uintptr_t ret = 0;

	sp = (sp - REMOTE_RED_ZONE - len) & align;
	if (str)
		a[0] = sp;
	if (len && pt_write(pid, sp, str, len) != 0)
		return 0;
	sp = (sp - on_stack) & align;
	if (on_stack && pt_write(pid, sp, a, on_stack) != 0)
		return 0;
	if (!REMOTE_RET_ON_STACK)
		return sp;
	sp -= sizeof(ret);
	return pt_write(pid, sp, &ret, sizeof(ret)) == 0 ? sp : 0;
}

/*
 * The call did not return: the thread stopped again wherever it is, so
 * that its registers can be put back (pt_call) rather than left to run
 * our call's frame; -1 with errno ETIMEDOUT, for the caller to say.
 */
static int call_timeout(pid_t tid)
{
	int sig = 0;

	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0)
		wait_stop(tid, &sig);
	errno = ETIMEDOUT;
	return -1;
}

/*
 * Run thread `tid` until the call returns to address 0: 0, or -1 having
 * said why.  Signals the process gets meanwhile are kept in *pending,
 * for the detach.
 */
static int run_call(pid_t tid, int *pending)
{
	int sig, waited = 0, status;
	remote_regs r;

	if (ptrace(PTRACE_CONT, tid, 0, 0) != 0)
		return -1;
	for (;;) {
		pid_t w = waitpid(tid, &status, __WALL | WNOHANG);

		if (w < 0 && errno != EINTR)
			return -1;
		if (w <= 0) {
			struct timespec ms = { 0, 1000000 };

			if (++waited > CALL_TIMEOUT_MS)
				return call_timeout(tid);
			nanosleep(&ms, NULL);
			continue;
		}
		if (!WIFSTOPPED(status)) {
			fprintf(stderr, "mctrace: thread %ld: exited during "
				"the call\n", (long)tid);
			return -1;
		}
		sig = (status >> 16) ? 0 : WSTOPSIG(status);
		if (sig == SIGSEGV && get_regs(tid, &r) == 0 &&
		    remote_pc(&r) == 0)
			return 0;
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL) {
			fprintf(stderr, "mctrace: thread %ld: signal %d "
				"during the call, at %#lx\n", (long)tid, sig,
				get_regs(tid, &r) ? 0ul :
				(unsigned long)remote_pc(&r));
			return -1;
		}
		if (sig)
			*pending = sig;
		if (ptrace(PTRACE_CONT, tid, 0, 0) != 0)
			return -1;
	}
}

/*
 * What a thread had before our call, all put back after it: its
 * registers, the system call it was in, and its floating-point and
 * vector registers (remote_arch.h's REMOTE_FP_NOTE), which the called
 * code may use (a string function of the loader's) while the thread
 * was stopped anywhere, live values in them.
 */
struct thread_state {
	remote_regs regs;
	long nr;
	long fp_note;	/* the regset fp holds */
	size_t fp_len;	/* 0: the kernel gave none to keep */
	unsigned char fp[REMOTE_FP_MAX];
};

/*
 * The floating-point and vector registers: REMOTE_FP_NOTE, or where
 * the CPU has none of that form (x86 without XSAVE: ENODEV),
 * REMOTE_FP_NOTE_OLD.
 */
static void save_fp(pid_t tid, struct thread_state *s)
{
	const long notes[] = { REMOTE_FP_NOTE, REMOTE_FP_NOTE_OLD };

	s->fp_len = 0;
	for (size_t k = 0; k < 2 && !s->fp_len && notes[k]; k++) {
		struct iovec io = { s->fp, sizeof(s->fp) };

		if (ptrace(PTRACE_GETREGSET, tid, (void *)notes[k], &io) == 0) {
			s->fp_note = notes[k];
			s->fp_len = io.iov_len;
		}
	}
}

static int save_state(pid_t tid, struct thread_state *s)
{
	if (get_regs(tid, &s->regs) || remote_syscall_get(tid, &s->nr))
		return -1;
	save_fp(tid, s);
	return 0;
}

static int restore_state(pid_t tid, struct thread_state *s)
{
	struct iovec io = { s->fp, s->fp_len };

	if (s->fp_len &&
	    ptrace(PTRACE_SETREGSET, tid, (void *)s->fp_note, &io) != 0)
		return -1;
	return remote_syscall_set(tid, s->nr) || set_regs(tid, &s->regs);
}

int pt_call(struct pt_threads *p, size_t i, uintptr_t fn, const char *str,
	    const uintptr_t *args, int nargs, uintptr_t *ret)
{
	pid_t tid = p->tid[i];
	uintptr_t a[REMOTE_MAX_ARGS], sp;
	struct thread_state saved;
	remote_regs r;
	int err;

	if (nargs > REMOTE_MAX_ARGS - (str != NULL) || save_state(tid, &saved)) {
		perror("mctrace: cannot read a thread's registers");
		return -1;
	}
	for (int k = 0; k < nargs; k++)
		a[k + (str != NULL)] = args[k];
	sp = call_stack(p->pid, remote_sp(&saved.regs), str, a,
			nargs + (str != NULL));
	if (!sp) {
		perror("mctrace: cannot write on a thread's stack");
		return -1;
	}
	r = saved.regs;
	remote_set_call(&r, fn, sp, a, nargs + (str != NULL));
	if (remote_syscall_set(tid, -1) != 0 || set_regs(tid, &r) != 0) {
		perror("mctrace: cannot set a thread's registers");
		return -1;
	}
	err = run_call(tid, &p->sig[i]) ? errno : 0;
	if (!err && get_regs(tid, &r) == 0)
		*ret = remote_result(&r);
	if (restore_state(tid, &saved) != 0) {
		perror("mctrace: cannot put a thread's registers back");
		return -1;
	}
	errno = err;
	return err ? -1 : 0;
}

/* The system call thread `tid` is stopped in, -1 if none (or unknown). */
static long in_syscall(pid_t pid, pid_t tid)
{
	char path[96];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/syscall", (long)pid,
		 (long)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

size_t pt_pick(const struct pt_threads *p)
{
	for (size_t i = 0; i < p->n; i++) {
		long nr = in_syscall(p->pid, p->tid[i]);

		if (nr >= 0 && nr != REMOTE_SYS_FUTEX)
			return i;
	}
	return 0;
}

bool pt_any_pc_in(const struct pt_threads *p, uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < p->n; i++) {
		remote_regs r;

		if (get_regs(p->tid[i], &r) == 0 && remote_pc(&r) >= lo &&
		    remote_pc(&r) < hi)
			return true;
	}
	return false;
}

/*
 * How much of a stack pt_any_in_frames reads: the frames of the few
 * functions fork calls while it holds its locks, and theirs.
 */
#define FRAMES_READ 1024

/*
 * Whether a thread stopped in system call `nr` may be inside fork: in
 * none (running code), in a lock's wait, or in the clone itself.  One
 * that sleeps in another (waitpid, nanosleep) is not, whatever stale
 * return addresses the unwritten slots of its live frames hold.
 */
static bool may_be_in_fork(long nr)
{
	static const long calls[] = {
		-1, REMOTE_SYS_FUTEX,
#ifdef SYS_clone
		SYS_clone,
#endif
#ifdef SYS_clone3
		SYS_clone3,
#endif
#ifdef SYS_fork
		SYS_fork,
#endif
	};

	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		if (nr == calls[k])
			return true;
	return false;
}

static long in_syscall(pid_t pid, pid_t tid);

bool pt_any_in_frames(const struct pt_threads *p, uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < p->n; i++) {
		uintptr_t top[FRAMES_READ / sizeof(uintptr_t)];
		remote_regs r;

		if (get_regs(p->tid[i], &r) != 0)
			continue;
		if (remote_pc(&r) >= lo && remote_pc(&r) < hi)
			return true;
		if (!may_be_in_fork(in_syscall(p->pid, p->tid[i])) ||
		    pt_read(p->pid, remote_sp(&r), top, sizeof(top)) != 0)
			continue;
		for (size_t k = 0; k < sizeof(top) / sizeof(top[0]); k++)
			if (top[k] >= lo && top[k] < hi)
				return true;
	}
	return false;
}

/* The length of the NOP at `at` (remote_arch.h's), 0 if none is. */
static size_t nop_at(pid_t pid, uintptr_t at)
{
	for (size_t k = 0; k < sizeof(remote_nops) / sizeof(remote_nops[0]);
	     k++) {
		const struct remote_nop *n = &remote_nops[k];
		unsigned char b[2 * sizeof(n->bytes)];

		if (n->len && pt_read(pid, at - n->len, b, 2 * n->len) == 0 &&
		    !memcmp(b, n->bytes, n->len) &&
		    !memcmp(b + n->len, n->bytes, n->len))
			return n->len;
	}
	return 0;
}

/*
 * A NOP does nothing but move the pc past it: the thread is moved so
 * rather than stepped (riscv64's ptrace has no PTRACE_SINGLESTEP).
 */
int pt_step_out_of_nops(struct pt_threads *p, size_t i)
{
	pid_t tid = p->tid[i];
	uintptr_t pc;
	remote_regs r;
	size_t len;

	if (get_regs(tid, &r) != 0)
		return -1;
	pc = remote_pc(&r);
	/* inside: the same NOP before and at pc */
	len = nop_at(p->pid, pc);
	if (!len)
		return 0;
	/* to the first instruction after the run */
	for (int n = 0; n < 64 && nop_at(p->pid, pc) == len; n++)
		pc += len;
	remote_set_pc(&r, pc);
	return set_regs(tid, &r);
}
