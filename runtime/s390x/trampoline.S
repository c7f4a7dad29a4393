/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - s390x hook stubs and trampolines.
 *
 * The machine, as far as this file cares: %r15 is the stack pointer (8-
 * byte aligned); a caller leaves 160 bytes at 0(%r15) for its callee,
 * which saves %r6-%r15 at 48(%r15) on.  Arguments: %r2-%r6 and %f0, %f2,
 * %f4, %f6.  Volatile: %r0-%r5, %r14, %f0-%f7.  %r1 is the linkage
 * scratch register (PLT stubs clobber it), so it carries nothing into a
 * function.  A branch through %r0 is no branch (register 0 as an address
 * means "none"), so code whose return address is in %r0 returns through
 * %r1.
 *
 * The hooks, and what is live at them:
 *   -pg -mfentry:  brasl %r0,__fentry__     first instruction: %r0 =
 *       the return into the function, %r14 = the function's own return
 *       address, every argument register live.
 *   -pg:  stg %r14,8(%r15); brasl %r14,_mcount; lg %r14,8(%r15)
 *       %r14 = the return into the function (just before the lg), the
 *       function's return address in the slot 8(%r15), arguments live.
 *
 *   -fpatchable-function-entry pads, enabled (arch/s390.c):
 *       brasl %r1,mc_rt_tramp_pad   at the entry: %r1 = the return
 *       into the function, %r0 live (a nested function's static chain).
 *
 * The stubs, reached before boot, only return.  The trampolines save
 * the argument registers, %r0 and %r14, build a standard 160-byte frame
 * for mc_rt_dispatch_slot(ret, slot), and put it all back.  Vector
 * registers (-march=z13 vector arguments) are not saved.
 *
 * The slot (platform.h) is where the function itself will save %r14:
 * 112 bytes above its stack pointer at entry, in the register save area
 * its caller left it, which it has not written yet at any of the hooks.
 * The trampoline stores the return address there, and after the call
 * loads it back from there into %r14 (for -pg, into 8(%r15), which the
 * block's lg reads), so that a recorder may swap it.
 */

#include "frame.h"	/* which a recorder of arguments reads */

#define SAVE		MC_RT_S390X_SAVE	/* our callee's save area */
#define FR_GPR		MC_RT_S390X_FR_GPR	/* %r0 .. %r6 */
#define FR_R14		(SAVE + 56)
#define FR_FPR		(SAVE + 64)	/* %f0, %f2, %f4, %f6 */
#define FRAME		MC_RT_S390X_FRAME
#define SLOT		MC_RT_S390X_SLOT	/* the function's %r14 save slot */

	.text

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 3
__fentry__:
	.cfi_startproc
	.cfi_return_column 0
	lgr	%r1, %r0
	br	%r1
	.cfi_endproc
	.size	__fentry__, . - __fentry__

	.globl	_mcount
	.type	_mcount, @function
	.p2align 3
_mcount:
	.cfi_startproc
	br	%r14
	.cfi_endproc
	.size	_mcount, . - _mcount

.macro	SAVE_ARGS
	aghi	%r15, -FRAME
	.cfi_adjust_cfa_offset FRAME
	.cfi_val_offset %r15, -160
	stmg	%r0, %r6, FR_GPR(%r15)
	stg	%r14, FR_R14(%r15)
	.cfi_rel_offset %r14, FR_R14
	std	%f0, FR_FPR + 0(%r15)
	std	%f2, FR_FPR + 8(%r15)
	std	%f4, FR_FPR + 16(%r15)
	std	%f6, FR_FPR + 24(%r15)
.endm

.macro	RESTORE_ARGS
	ld	%f0, FR_FPR + 0(%r15)
	ld	%f2, FR_FPR + 8(%r15)
	ld	%f4, FR_FPR + 16(%r15)
	ld	%f6, FR_FPR + 24(%r15)
	lg	%r14, FR_R14(%r15)
	lmg	%r0, %r6, FR_GPR(%r15)
	aghi	%r15, FRAME
	.cfi_adjust_cfa_offset -FRAME
.endm

/* Our return address is in %r0: a return column of its own. */
	.globl	mc_rt_tramp_fentry
	.hidden	mc_rt_tramp_fentry
	.type	mc_rt_tramp_fentry, @function
	.p2align 3
mc_rt_tramp_fentry:
	.cfi_startproc
	.cfi_return_column 0
	SAVE_ARGS
	.cfi_rel_offset %r0, FR_GPR
	stg	%r14, SLOT(%r15)	/* the function's return address */
	lgr	%r2, %r0		/* return into the function */
	la	%r3, SLOT(%r15)
	brasl	%r14, mc_rt_dispatch_slot
	RESTORE_ARGS
	lg	%r14, 112(%r15)
	lgr	%r1, %r0
	br	%r1
	.cfi_endproc
	.size	mc_rt_tramp_fentry, . - mc_rt_tramp_fentry

	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	.type	mc_rt_tramp_mcount, @function
	.p2align 3
mc_rt_tramp_mcount:
	.cfi_startproc
	SAVE_ARGS
	lg	%r3, FRAME + 8(%r15)	/* the function's return address */
	stg	%r3, SLOT(%r15)
	lgr	%r2, %r14		/* return into the function */
	la	%r3, SLOT(%r15)
	brasl	%r14, mc_rt_dispatch_slot
	lg	%r3, SLOT(%r15)		/* for the block's lg */
	stg	%r3, FRAME + 8(%r15)
	RESTORE_ARGS
	br	%r14
	.cfi_endproc
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/*
 * -fpatchable-function-entry pads, enabled as `brasl %r1,mc_rt_tramp_pad`
 * at the function's entry (arch/s390.c): %r1 = the return into the
 * function, %r14 = its own return address, %r0 (GCC's static chain, which
 * a nested function reads at its entry) live and kept.  %r1 is saved and
 * reloaded with the other arguments' registers, then returned through.
 */
	.globl	mc_rt_tramp_pad
	.hidden	mc_rt_tramp_pad
	.type	mc_rt_tramp_pad, @function
	.p2align 3
mc_rt_tramp_pad:
	.cfi_startproc
	.cfi_return_column 1
	SAVE_ARGS
	.cfi_rel_offset %r1, FR_GPR + 8
	stg	%r14, SLOT(%r15)	/* the function's return address */
	lgr	%r2, %r1		/* return into the function */
	la	%r3, SLOT(%r15)
	brasl	%r14, mc_rt_dispatch_slot
	RESTORE_ARGS
	lg	%r14, 112(%r15)
	br	%r1
	.cfi_endproc
	.size	mc_rt_tramp_pad, . - mc_rt_tramp_pad

/* Writable __mcount_loc input: see runtime/x86_64/trampoline.S. */
	.section __mcount_loc, "awo", @progbits, .text

	.section .note.GNU-stack, "", @progbits
