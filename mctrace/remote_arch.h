/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * remote_arch.h - the machine's facts for calling a function inside a
 * stopped thread (ptrace.c): which registers carry the arguments and
 * the result, where the return address goes, the stack's alignment and
 * red zone, how a system call the thread was stopped in is kept from
 * restarting into our call, and what a -fpatchable-function-entry pad's
 * NOPs look like.  mctrace attaches only to a process of its own
 * machine (attach.c refuses another), so these are the host's.
 *
 * Common to every backend: the registers are read and written whole
 * with PTRACE_GETREGSET / PTRACE_SETREGSET NT_PRSTATUS, and the
 * floating-point and vector ones with REMOTE_FP_NOTE, kept and put
 * back around the call.  The call
 * returns to address 0, which faults: the thread stops with SIGSEGV at
 * pc 0, which the tracer takes and never delivers.  Nothing is written
 * in the process's text for it (no breakpoint to put and remove).
 *
 * A thread stopped with PTRACE_INTERRUPT inside a system call has
 * already been through the kernel's signal path when the tracer sees
 * it: the call was interrupted, and where it is to restart the kernel
 * has moved the pc back onto the system call instruction and put its
 * first argument back.  Our call runs from another pc; the saved
 * registers, put back after it, run the system call again.  What the
 * kernel must not do is take the stop's registers for a system call
 * still to be restarted or finished: how each backend makes sure is
 * said with it.
 *
 * The arguments go in registers, but on i386 (REMOTE_ARGS_ON_STACK),
 * where ptrace.c writes them on the stack.  The other backends have no
 * attach (mctrace(1) says so).
 */
#ifndef MCTRACE_REMOTE_ARCH_H
#define MCTRACE_REMOTE_ARCH_H

#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <elf.h>

/* One encoding of a NOP that a pad may be made of. */
struct remote_nop {
	unsigned char len;
	unsigned char bytes[4];
};

#if defined(__x86_64__)
/*
 * x86_64 (SysV ABI): integer arguments in rdi, rsi, rdx, rcx, r8, r9;
 * the result in rax; al holds the number of vector registers a
 * variadic callee is passed (0).  The call pushes its return address:
 * on entry to a function, rsp + 8 is a multiple of 16.  The 128 bytes
 * below the interrupted rsp are the red zone, which a leaf function may
 * be using: our frame goes below it.  orig_rax, in NT_PRSTATUS, is the
 * number of the system call the thread was stopped in (-1: none): set
 * to -1 for our call, so that the kernel does not restart that call in
 * its place (it would rewind rip over `syscall`); the saved registers,
 * put back after, restart it as it would have been.  A pad is single
 * byte `nop`s, which the runtime rewrites as one 5-byte call.
 */
#define REMOTE_ARCH_OK 1
#define REMOTE_EM EM_X86_64
#define REMOTE_RED_ZONE 128
#define REMOTE_STACK_ALIGN 16
#define REMOTE_RET_ON_STACK 1
#define REMOTE_MAX_ARGS 6
/*
 * x87, SSE and AVX state whole (XSAVE's area), not only FXSAVE's; on a
 * CPU without XSAVE (QEMU's default x86_64 one) the kernel has no
 * such regset (ENODEV): FXSAVE's, x87 and SSE, is then all there is.
 */
#define REMOTE_FP_NOTE NT_X86_XSTATE
#define REMOTE_FP_NOTE_OLD NT_PRFPREG
static const struct remote_nop remote_nops[] = { { 1, { 0x90 } } };

typedef struct user_regs_struct remote_regs;

/* Where the thread's pc, sp and result are in remote_regs. */
#define REMOTE_PC_OF(r) ((r)->rip)
#define REMOTE_SP_OF(r) ((r)->rsp)
#define REMOTE_RESULT_OF(r) ((r)->rax)

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

/* The system call number lives in NT_PRSTATUS (orig_rax): nothing else. */
#define REMOTE_SYSCALL_IN_REGS 1

#elif defined(__i386__)
/*
 * i386 (SysV ABI, cdecl): every argument on the stack, a 4-byte word
 * each, the first at the lowest address, just above the return address
 * the call pushes; the result in eax.  GCC's code takes the stack as
 * 16-byte aligned where the arguments start (esp + 4 on entry): our
 * arguments are put there.  No red zone.  orig_eax, in NT_PRSTATUS,
 * is the system call the thread was stopped in (-1: none), set to -1
 * for our call as x86_64's orig_rax.  The floating-point state kept is
 * FXSAVE's (x87 and xmm0 to xmm7, NT_PRXFPREG): a 32-bit process has
 * no ymm halves of its own to lose, and a CPU without XSAVE (QEMU's
 * default 32-bit one) has no NT_X86_XSTATE to give.  A pad is single
 * byte `nop`s, as on x86_64.
 */
#define REMOTE_ARCH_OK 1
#define REMOTE_EM EM_386
#define REMOTE_RED_ZONE 0
#define REMOTE_STACK_ALIGN 16
#define REMOTE_RET_ON_STACK 1
#define REMOTE_ARGS_ON_STACK 1
#define REMOTE_MAX_ARGS 6
/* x87 and SSE (FXSAVE's area) */
#define REMOTE_FP_NOTE NT_PRXFPREG
static const struct remote_nop remote_nops[] = { { 1, { 0x90 } } };

typedef struct user_regs_struct remote_regs;

/* Where the thread's pc, sp and result are in remote_regs. */
#define REMOTE_PC_OF(r) ((r)->eip)
#define REMOTE_SP_OF(r) ((r)->esp)
#define REMOTE_RESULT_OF(r) ((r)->eax)

/*
 * `r` made a call of `fn` on the stack at `sp`, where the return
 * address is, and the arguments above it (ptrace.c's call_stack).
 */
static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	(void)args;
	(void)nargs;
	r->eip = (long)fn;
	r->esp = (long)sp;
	r->eax = 0;
	r->orig_eax = -1;
}

/* The system call number lives in NT_PRSTATUS (orig_eax): nothing else. */
#define REMOTE_SYSCALL_IN_REGS 1

#elif defined(__aarch64__)
/*
 * AArch64 (AAPCS64): integer arguments in x0 to x7, the result in x0,
 * the return address in x30 (the link register), not on the stack.
 * sp must be a multiple of 16 whenever it is used to access memory
 * (the hardware checks it).  No red zone: nothing below sp is the
 * function's.  The number of the system call the thread was stopped in
 * is not in NT_PRSTATUS but in its own regset, NT_ARM_SYSTEM_CALL (an
 * int, -1 for none); the kernel's signal path sets it to -1 before a
 * tracer sees an interrupted call, and we set it to -1 for our call
 * anyway and put back what it was after, as x86_64's orig_rax.  A pad
 * is `nop` words (d503201f): the runtime writes `mov x9, x30` over the
 * first for good and swaps the second between `nop` and `bl`, so a
 * thread stopped between them would run the `bl` without the `mov`.
 */
#define REMOTE_ARCH_OK 1
#define REMOTE_EM EM_AARCH64
#define REMOTE_RED_ZONE 0
#define REMOTE_STACK_ALIGN 16
#define REMOTE_RET_ON_STACK 0
#define REMOTE_MAX_ARGS 8
/* v0-v31, fpsr and fpcr */
#define REMOTE_FP_NOTE NT_PRFPREG
static const struct remote_nop remote_nops[] = {
	{ 4, { 0x1f, 0x20, 0x03, 0xd5 } },
};

typedef struct user_regs_struct remote_regs;

/* Where the thread's pc, sp and result are in remote_regs. */
#define REMOTE_PC_OF(r) ((r)->pc)
#define REMOTE_SP_OF(r) ((r)->sp)
#define REMOTE_RESULT_OF(r) ((r)->regs[0])

/* `r` made a call of `fn` with `args`, on the stack at `sp`, to 0. */
static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	for (int i = 0; i < nargs && i < REMOTE_MAX_ARGS; i++)
		r->regs[i] = args[i];
	r->regs[30] = 0;
	r->pc = fn;
	r->sp = sp;
}

/* The system call thread `tid` is in (-1: none): 0, or -1 with errno. */
static inline int remote_syscall_get(pid_t tid, long *nr)
{
	int n = -1;
	struct iovec io = { &n, sizeof(n) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &io))
		return -1;
	*nr = n;
	return 0;
}

static inline int remote_syscall_set(pid_t tid, long nr)
{
	int n = (int)nr;
	struct iovec io = { &n, sizeof(n) };

	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL,
			   &io);
}

#elif defined(__riscv) && __riscv_xlen == 64
/*
 * RV64 (LP64 psABI): integer arguments in a0 to a7 (x10 to x17), the
 * result in a0, the return address in ra (x1), not on the stack.  sp
 * is a multiple of 16 at a call.  No red zone.  NT_PRSTATUS is the pc
 * followed by x1 to x31 (the kernel's struct user_regs_struct, which
 * glibc's <sys/user.h> does not give: spelled out below).  Linux 6.12
 * has no regset for the system call number or the first argument as
 * it was (NT_PRSTATUS, NT_PRFPREG and NT_RISCV_VECTOR only), and needs
 * none here: its signal path marks the stopped thread as in no system
 * call (regs->cause = -1) and moves the pc back onto `ecall` with a0
 * put back, before the tracer sees the stop, so nothing can restart
 * into our call, and the saved registers put back run the `ecall`
 * again.  A pad is four `c.nop` (0001) or two `nop` (00000013): the
 * runtime writes `auipc t0` and a `jalr t0` or `nop` over them (or a
 * `c.j` over the pair where a pad is at 2 mod 4), so a thread stopped
 * inside one would run half of a new instruction or the `jalr` alone.
 */
#define REMOTE_ARCH_OK 1
#define REMOTE_EM EM_RISCV
#define REMOTE_RED_ZONE 0
#define REMOTE_STACK_ALIGN 16
#define REMOTE_RET_ON_STACK 0
#define REMOTE_MAX_ARGS 8
/* f0-f31 and fcsr (the D extension's) */
#define REMOTE_FP_NOTE NT_PRFPREG
static const struct remote_nop remote_nops[] = {
	{ 2, { 0x01, 0x00 } },
	{ 4, { 0x13, 0x00, 0x00, 0x00 } },
};

/* x[k - 1] is register xk: ra x[0], sp x[1], a0 x[9]. */
typedef struct {
	unsigned long pc;
	unsigned long x[31];
} remote_regs;

/* Where the thread's pc, sp and result are in remote_regs. */
#define REMOTE_PC_OF(r) ((r)->pc)
#define REMOTE_SP_OF(r) ((r)->x[1])
#define REMOTE_RESULT_OF(r) ((r)->x[9])

/* `r` made a call of `fn` with `args`, on the stack at `sp`, to 0. */
static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	for (int i = 0; i < nargs && i < REMOTE_MAX_ARGS; i++)
		r->x[9 + i] = args[i];
	r->x[0] = 0;
	r->x[1] = sp;
	r->pc = fn;
}

/* Nothing to keep: the kernel forgot the system call (above). */
#define REMOTE_SYSCALL_IN_REGS 1

#else
/* No attach on this machine: attach.c refuses before any of these runs. */
#define REMOTE_ARCH_OK 0
#define REMOTE_EM EM_NONE
#define REMOTE_RED_ZONE 0
#define REMOTE_STACK_ALIGN 16
#define REMOTE_RET_ON_STACK 0
#define REMOTE_MAX_ARGS 6
#define REMOTE_FP_NOTE NT_PRFPREG
static const struct remote_nop remote_nops[] = { { 0, { 0 } } };

typedef struct { uintptr_t pc, sp, result; } remote_regs;

#define REMOTE_PC_OF(r) ((r)->pc)
#define REMOTE_SP_OF(r) ((r)->sp)
#define REMOTE_RESULT_OF(r) ((r)->result)

static inline void remote_set_call(remote_regs *r, uintptr_t fn, uintptr_t sp,
				   const uintptr_t *args, int nargs)
{
	(void)args;
	(void)nargs;
	r->pc = fn;
	r->sp = sp;
}

#define REMOTE_SYSCALL_IN_REGS 1
#endif

#ifdef REMOTE_SYSCALL_IN_REGS
/*
 * No regset of its own holds the system call a thread was stopped in
 * (x86 keeps it in NT_PRSTATUS, riscv64's kernel forgets it): nothing
 * to read, nothing to put back.
 */
static inline int remote_syscall_get(pid_t tid, long *nr)
{
	(void)tid;
	*nr = -1;
	return 0;
}

static inline int remote_syscall_set(pid_t tid, long nr)
{
	(void)tid;
	(void)nr;
	return 0;
}
#endif

#ifndef REMOTE_ARGS_ON_STACK
#define REMOTE_ARGS_ON_STACK 0
#endif
/* The floating-point regset to keep where REMOTE_FP_NOTE is not there
 * (0: none). */
#ifndef REMOTE_FP_NOTE_OLD
#define REMOTE_FP_NOTE_OLD 0
#endif

/* The thread's registers read and set, by the machine's fields above. */
static inline uintptr_t remote_pc(const remote_regs *r)
{
	return (uintptr_t)REMOTE_PC_OF(r);
}

static inline void remote_set_pc(remote_regs *r, uintptr_t pc)
{
	REMOTE_PC_OF(r) = pc;
}

static inline uintptr_t remote_sp(const remote_regs *r)
{
	return (uintptr_t)REMOTE_SP_OF(r);
}

static inline uintptr_t remote_result(const remote_regs *r)
{
	return (uintptr_t)REMOTE_RESULT_OF(r);
}

/*
 * Room for the REMOTE_FP_NOTE regset: x86_64's XSAVE area is the
 * largest (AVX-512 and AMX make it some 11 KB).
 */
#define REMOTE_FP_MAX 16384

/* The system call a thread waits on a lock in (pt_pick avoids it). */
#ifdef SYS_futex
#define REMOTE_SYS_FUTEX SYS_futex
#else
#define REMOTE_SYS_FUTEX -1
#endif

#endif
