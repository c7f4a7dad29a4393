/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - ppc64le (ELFv2) hook stub and trampolines.
 *
 * The machine, as far as this file cares: r1 is the stack pointer (16-
 * byte aligned, the back chain at 0(r1)), r2 the TOC pointer, r3-r10
 * the integer arguments, f1-f13 the floating-point ones, v2-v13 the
 * vector ones, r11 the static chain, r12 the function's own address at
 * its global entry point, r13 the thread pointer.  Volatile: r0, r3-r12,
 * f0-f13, v0-v19, CTR, XER, LR and CR0/1/5/6/7.  A frame begins with a
 * 32-byte header: back chain, CR save word, LR save (16: written by the
 * frame's callee, into its caller's frame) and TOC save doubleword.  A
 * local `bl` enters a function at its local entry point, after the
 * global entry's `addis r2,r12 / addi r2,r2` TOC set-up.
 *
 * Both hook styles call `_mcount` (see backend.h):
 *   -mprofile-kernel ("fentry"): `mflr r0; bl _mcount` before any frame:
 *       LR = the return into the function, r0 = the function's own
 *       return address, which it still needs in LR when the hook returns
 *       (a leaf may go straight to `blr`).  Everything else live at the
 *       call (arguments, r2, r11) must survive.
 *   -pg ("mcount"): `bl _mcount; nop` once the function has saved LR in
 *       its caller's frame (16 bytes above its back chain) and made its
 *       frame; an ordinary call as far as the compiler knows.
 *
 * _mcount, reached before boot (or from the forms we never patch), only
 * returns, in the way that suits both: it jumps back through CTR with LR
 * set to r0.  That clobbers r12 and CTR, which are dead at either hook
 * (r12 was consumed by the TOC set-up), and LR, which -pg treats as
 * clobbered by the call anyway.
 *
 * An enabled site calls mc_rt_tramp_fentry or mc_rt_tramp_mcount
 * directly: `bl` reaches +/- 32 MiB, enough for a program with its
 * runtime linked in.  Neither may rely on r2: a function that needs no
 * TOC has no global entry set-up, so when it is called from another
 * module (a callback from libc) r2 is that module's TOC.  The
 * trampolines save r2 and compute this module's own from their address
 * (`bcl 20,31` is the form that leaves the return-address predictor
 * alone), call mc_rt_dispatch_slot(ret, slot) through a normal frame,
 * and put every volatile register a function may have live at its hook
 * back.
 *
 * The slot (platform.h) is where the function keeps its return address
 * from its prologue to its epilogue, the LR save doubleword 16 bytes
 * above its stack pointer at entry: -pg has stored it there before the
 * hook; for -mprofile-kernel the trampoline stores r0 there, and after
 * the call loads it back into both r0 and LR, so that a recorder may
 * swap it.
 */

/*
 * Our frame, from r1: the ABI's 32-byte header, then the saves (the
 * first three are frame.h's, which a recorder of arguments reads).
 */
#include "frame.h"
#define FRAME		MC_RT_PPC_FRAME
#define FR_GPR		MC_RT_PPC_FR_GPR	/* r0 .. r12 (r1's unused) */
#define FR_LR		MC_RT_PPC_FR_LR		/* the return into the function */
#define FR_CR		144
#define FR_FPR		152		/* f1 .. f13 */
#define FR_VR		256		/* v2 .. v13, 16-byte aligned */

#define GPR(n)		(FR_GPR + 8 * (n))

	.abiversion 2
	.machine power8
	.text

	.globl	_mcount
	.type	_mcount, @function
	.p2align 4
_mcount:
	.cfi_startproc
	mflr	%r12
	mtctr	%r12
	mtlr	%r0
	bctr
	.cfi_endproc
	.size	_mcount, . - _mcount

/*
 * Save what a hooked function may have live; r0 and LR are the caller's
 * business.  Then load this module's TOC into r2 (clobbers r12, saved).
 */
.macro	SAVE_ARGS
	std	%r2, GPR(2)(%r1)
	std	%r3, GPR(3)(%r1)
	std	%r4, GPR(4)(%r1)
	std	%r5, GPR(5)(%r1)
	std	%r6, GPR(6)(%r1)
	std	%r7, GPR(7)(%r1)
	std	%r8, GPR(8)(%r1)
	std	%r9, GPR(9)(%r1)
	std	%r10, GPR(10)(%r1)
	std	%r11, GPR(11)(%r1)
	std	%r12, GPR(12)(%r1)
	mfcr	%r0
	stw	%r0, FR_CR(%r1)
	stfd	%f1, FR_FPR + 0(%r1)
	stfd	%f2, FR_FPR + 8(%r1)
	stfd	%f3, FR_FPR + 16(%r1)
	stfd	%f4, FR_FPR + 24(%r1)
	stfd	%f5, FR_FPR + 32(%r1)
	stfd	%f6, FR_FPR + 40(%r1)
	stfd	%f7, FR_FPR + 48(%r1)
	stfd	%f8, FR_FPR + 56(%r1)
	stfd	%f9, FR_FPR + 64(%r1)
	stfd	%f10, FR_FPR + 72(%r1)
	stfd	%f11, FR_FPR + 80(%r1)
	stfd	%f12, FR_FPR + 88(%r1)
	stfd	%f13, FR_FPR + 96(%r1)
	addi	%r12, %r1, FR_VR
	.irp	v, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	stvx	%v\v, 0, %r12
	addi	%r12, %r12, 16
	.endr
	bcl	20, 31, 1f
1:	mflr	%r12
	addis	%r2, %r12, (.TOC. - 1b)@ha
	addi	%r2, %r2, (.TOC. - 1b)@l
.endm

/* Undo SAVE_ARGS, r0 and LR aside. */
.macro	RESTORE_ARGS
	addi	%r12, %r1, FR_VR
	.irp	v, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	lvx	%v\v, 0, %r12
	addi	%r12, %r12, 16
	.endr
	lfd	%f1, FR_FPR + 0(%r1)
	lfd	%f2, FR_FPR + 8(%r1)
	lfd	%f3, FR_FPR + 16(%r1)
	lfd	%f4, FR_FPR + 24(%r1)
	lfd	%f5, FR_FPR + 32(%r1)
	lfd	%f6, FR_FPR + 40(%r1)
	lfd	%f7, FR_FPR + 48(%r1)
	lfd	%f8, FR_FPR + 56(%r1)
	lfd	%f9, FR_FPR + 64(%r1)
	lfd	%f10, FR_FPR + 72(%r1)
	lfd	%f11, FR_FPR + 80(%r1)
	lfd	%f12, FR_FPR + 88(%r1)
	lfd	%f13, FR_FPR + 96(%r1)
	lwz	%r0, FR_CR(%r1)
	mtcr	%r0
	ld	%r2, GPR(2)(%r1)
	ld	%r3, GPR(3)(%r1)
	ld	%r4, GPR(4)(%r1)
	ld	%r5, GPR(5)(%r1)
	ld	%r6, GPR(6)(%r1)
	ld	%r7, GPR(7)(%r1)
	ld	%r8, GPR(8)(%r1)
	ld	%r9, GPR(9)(%r1)
	ld	%r10, GPR(10)(%r1)
	ld	%r11, GPR(11)(%r1)
	ld	%r12, GPR(12)(%r1)
.endm

/*
 * -mprofile-kernel.  The function's return address goes where the
 * function itself would save it (16(r1), in its caller's frame); ours
 * lives in our frame.  For the unwinder, our return address is a column
 * of its own (r0's), so that LR can be described as the function's.
 */
	.globl	mc_rt_tramp_fentry
	.hidden	mc_rt_tramp_fentry
	.type	mc_rt_tramp_fentry, @function
	.p2align 4
mc_rt_tramp_fentry:
	.cfi_startproc
	.cfi_return_column 0
	.cfi_register 0, 65
	.cfi_register 65, 0
	std	%r0, 16(%r1)
	.cfi_offset 65, 16
	stdu	%r1, -FRAME(%r1)
	.cfi_adjust_cfa_offset FRAME
	std	%r0, GPR(0)(%r1)
	mflr	%r0
	std	%r0, FR_LR(%r1)
	.cfi_rel_offset 0, FR_LR
	SAVE_ARGS
	ld	%r3, FR_LR(%r1)		/* return into the function */
	addi	%r4, %r1, FRAME + 16	/* the function's return address */
	bl	mc_rt_dispatch_slot
	nop
	RESTORE_ARGS
	ld	%r0, FR_LR(%r1)
	mtctr	%r0
	ld	%r0, FRAME + 16(%r1)	/* as the hook may have left it */
	mtlr	%r0
	addi	%r1, %r1, FRAME
	.cfi_adjust_cfa_offset -FRAME
	bctr
	.cfi_endproc
	.size	mc_rt_tramp_fentry, . - mc_rt_tramp_fentry

/*
 * -pg: an ordinary callee of the hooked function.  Its return address
 * is in its caller's frame: 16 bytes above the back chain of its frame.
 * Where the hook called _mcount through a linker stub, `ld r2,24(r1)`
 * follows it, and the stub saved r2 there: we save it there too (see
 * backend.h), into the TOC save doubleword of the function's own frame
 * header, which every -pg function has made before its hook and which
 * the ABI keeps for just this.
 */
	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	.type	mc_rt_tramp_mcount, @function
	.p2align 4
mc_rt_tramp_mcount:
	.cfi_startproc
	std	%r2, 24(%r1)
	mflr	%r0
	std	%r0, 16(%r1)
	.cfi_offset 65, 16
	stdu	%r1, -FRAME(%r1)
	.cfi_adjust_cfa_offset FRAME
	std	%r0, FR_LR(%r1)
	SAVE_ARGS
	ld	%r3, FR_LR(%r1)		/* return into the function */
	ld	%r4, 0(%r1)		/* the function's frame ... */
	ld	%r4, 0(%r4)		/* ... its caller's ... */
	addi	%r4, %r4, 16		/* ... the function's return address */
	bl	mc_rt_dispatch_slot
	nop
	RESTORE_ARGS
	ld	%r0, FR_LR(%r1)
	mtlr	%r0
	addi	%r1, %r1, FRAME
	.cfi_adjust_cfa_offset -FRAME
	blr
	.cfi_endproc
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/* Writable __mcount_loc input: see runtime/x86_64/trampoline.S. */
	.section __mcount_loc, "awo", @progbits, .text

	.section .note.GNU-stack, "", @progbits
