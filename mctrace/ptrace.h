/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptrace.h - holding another process's threads stopped, reading and
 * writing its memory, and calling a function in it (ptrace.c), for
 * `mctrace record -p` (attach.c).  The machine's side of a call, its
 * registers, is in remote_arch.h.
 */
#ifndef MCTRACE_PTRACE_H
#define MCTRACE_PTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The threads of one process that this tracer holds stopped. */
struct pt_threads {
	pid_t pid;
	size_t n, cap;
	pid_t *tid;
	int *sig;	/* a signal each stopped on, given back at detach */
};

/*
 * Stop every thread of `p->pid` (those started meanwhile too): 0, or -1
 * with errno (EPERM when not allowed), the threads stopped so far left
 * stopped: pt_detach_all lets them go.
 */
int pt_stop(struct pt_threads *p);
/*
 * Stop one thread: the main one, or if it is gone the first whose name
 * is not `avoid`.  0, or -1 with errno.
 */
int pt_stop_one(struct pt_threads *p, const char *avoid);
/* Let every held thread run again, giving back the signal it stopped on. */
void pt_detach_all(struct pt_threads *p);
void pt_free(struct pt_threads *p);

/* Read or write `len` bytes at `addr` of the process: 0, or -1 with errno. */
int pt_read(pid_t pid, uintptr_t addr, void *buf, size_t len);
int pt_write(pid_t pid, uintptr_t addr, const void *buf, size_t len);

/*
 * Call fn(args...) on the stopped thread `tid`, with `str` (when not
 * NULL) copied on its stack and its address as the first argument:
 * the function's return value in *ret, and the thread back where it
 * was, as if nothing happened (an interrupted system call restarts).
 * 0, or -1 having said why, but for a call that did not return in a
 * few seconds (a lock held by a thread kept stopped?): errno ETIMEDOUT,
 * the thread's registers put back, nothing said.
 */
int pt_call(struct pt_threads *p, size_t i, uintptr_t fn, const char *str,
	    const uintptr_t *args, int nargs, uintptr_t *ret);

/*
 * The held thread best suited to run a call: one stopped in a system
 * call other than a lock's wait, which holds no lock of the C library
 * (malloc's, the loader's) that the call could need; else the first.
 */
size_t pt_pick(const struct pt_threads *p);
/* Whether a held thread is stopped with its pc in [lo, hi). */
bool pt_any_pc_in(const struct pt_threads *p, uintptr_t lo, uintptr_t hi);
/*
 * Whether a held thread is stopped in [lo, hi), or in a function called
 * from there: its pc, or a word atop its stack (where a return address
 * into [lo, hi) lies while a callee runs) of a thread running code or
 * waiting on a lock or in clone, not one asleep in another system call
 * (fork's own callees: pt_any_in_frames is for attach.c's in_fork).
 */
bool pt_any_in_frames(const struct pt_threads *p, uintptr_t lo, uintptr_t hi);

/*
 * Move thread `i` out of a run of NOPs (a pad) it stopped inside of, to
 * its end, so that the pad may be rewritten as other instructions: 0,
 * or -1.
 */
int pt_step_out_of_nops(struct pt_threads *p, size_t i);

#endif
