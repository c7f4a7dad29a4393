/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * remote_arch.h - the machine's facts for calling a function inside a
 * stopped thread (ptrace.c): which registers carry the arguments and
 * the result, the stack's alignment and red zone, how a system call the
 * thread was stopped in is kept from restarting into our call.
 *
 * x86_64 (SysV ABI): integer arguments in rdi, rsi, rdx, rcx, r8, r9;
 * the result in rax; al holds the number of vector registers a
 * variadic callee is passed (0).  On entry to a function, rsp + 8 is a
 * multiple of 16: the caller's 16-aligned rsp minus the return address
 * it pushed.  The 128 bytes below the interrupted rsp are the red zone,
 * which a leaf function may be using: our frame goes below it.
 * orig_rax is the number of the system call the thread was stopped in
 * (-1: none): set to -1 for our call, so that the kernel does not
 * restart that call in its place (it would rewind rip over `syscall`);
 * the saved registers, put back after, restart it as it would have been.
 *
 * The call returns to address 0, which faults: the thread stops with
 * SIGSEGV at rip 0, which the tracer takes and never delivers.  Nothing
 * is written in the process's text for it (no int3 to put and remove).
 *
 * Only x86_64 here: i386 and the other backends have no attach yet
 * (mctrace(1) says so); ptrace does not work under qemu-user, where
 * this host runs them.
 */
#ifndef MCTRACE_REMOTE_ARCH_H
#define MCTRACE_REMOTE_ARCH_H

#include <stdint.h>
#include <sys/user.h>

#if defined(__x86_64__)
#define REMOTE_ARCH_OK 1
#define REMOTE_EM EM_X86_64
#define REMOTE_RED_ZONE 128
#define REMOTE_STACK_ALIGN 16
#define REMOTE_NOP 0x90		/* nop: a -fpatchable-function-entry pad's */
#define REMOTE_MAX_ARGS 6
#define REMOTE_SYS_FUTEX 202	/* a thread waiting on a lock in it */

typedef struct user_regs_struct remote_regs;

static inline uintptr_t remote_pc(const remote_regs *r)
{
	return (uintptr_t)r->rip;
}

static inline uintptr_t remote_sp(const remote_regs *r)
{
	return (uintptr_t)r->rsp;
}

static inline uintptr_t remote_result(const remote_regs *r)
{
	return (uintptr_t)r->rax;
}

/*
 * `r` made a call of `fn` with `args`, on the stack at `sp` (where the
 * return address is, already written there).
 */
static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	unsigned long long *const reg[REMOTE_MAX_ARGS] = {
		&r->rdi, &r->rsi, &r->rdx, &r->rcx, &r->r8, &r->r9,
	};

	for (int i = 0; i < nargs && i < REMOTE_MAX_ARGS; i++)
		*reg[i] = args[i];
	r->rip = fn;
	r->rsp = sp;
	r->rax = 0;
	r->orig_rax = (unsigned long long)-1;
}
#else
/* No attach on this machine: attach.c refuses before any of these runs. */
#define REMOTE_ARCH_OK 0
#define REMOTE_EM EM_NONE
#define REMOTE_RED_ZONE 0
#define REMOTE_STACK_ALIGN 16
#define REMOTE_NOP 0
#define REMOTE_MAX_ARGS 6
#define REMOTE_SYS_FUTEX -1

typedef struct { uintptr_t pc, sp, result; } remote_regs;

static inline uintptr_t remote_pc(const remote_regs *r) { return r->pc; }
static inline uintptr_t remote_sp(const remote_regs *r) { return r->sp; }
static inline uintptr_t remote_result(const remote_regs *r)
{
	return r->result;
}

static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	(void)args;
	(void)nargs;
	r->pc = fn;
	r->sp = sp;
}
#endif

#endif
