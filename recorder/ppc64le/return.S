/* SPDX-License-Identifier: MIT */
/*
 * return.S - the ppc64le (ELFv2) return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address into a traced function's LR
 * save doubleword, 16(r1) at its entry (the runtime's trampolines keep
 * the return address there, see runtime/ppc64le/trampoline.S), so the
 * function's epilogue loads it into LR and its `blr` lands here with r1
 * as it was at the function's entry: rec_exit(r1) writes the exit event
 * and gives back the real return address, and we branch there through
 * CTR.
 *
 * On arrival the return registers are live: r3 and r4, f1-f8 and v2-v9
 * (homogeneous float and vector aggregates), and r2, the function's TOC,
 * which its caller may expect back (a local call restores none).  We
 * compute our own TOC for rec_exit from our address, as nothing says r2
 * is ours, and put r2 back.  LR and CTR are volatile at a return.
 *
 * The trampoline has no frame the unwinder can use: an exception never
 * reaches it (the recorder writes the real addresses back before any
 * unwind starts, wrap.c).  Its CFI says so, return address undefined,
 * and covers the word before it, which is what an unwinder looks up for
 * a frame that returns here: a backtrace ends there as at the outermost
 * frame.
 */
#define FRAME		256
#define FR_GPR		32		/* r2, r3, r4 */
#define FR_FPR		56		/* f1 .. f8 */
#define FR_VR		128		/* v2 .. v9, 16-byte aligned */

	.abiversion 2
	.machine power8
	.text

/*
 * tramp NAME, EXIT, VALUE: a return trampoline that calls EXIT(sp), or
 * with VALUE 1 EXIT(sp, r3), between saving the return registers and
 * loading them back.
 */
	.macro	tramp name, exit, value
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined lr
	nop			/* an unwinder looks up the FDE of our address - 1 */
\name:
	stdu	%r1, -FRAME(%r1)
	std	%r2, FR_GPR + 0(%r1)
	std	%r3, FR_GPR + 8(%r1)
	std	%r4, FR_GPR + 16(%r1)
	.irp	f, 1, 2, 3, 4, 5, 6, 7, 8
	stfd	%f\f, FR_FPR + 8 * (\f - 1)(%r1)
	.endr
	addi	%r12, %r1, FR_VR
	.irp	v, 2, 3, 4, 5, 6, 7, 8, 9
	stvx	%v\v, 0, %r12
	addi	%r12, %r12, 16
	.endr
	bcl	20, 31, 1f
1:	mflr	%r12
	addis	%r2, %r12, (.TOC. - 1b)@ha
	addi	%r2, %r2, (.TOC. - 1b)@l
	.if	\value
	mr	%r4, %r3		/* the value */
	.endif
	addi	%r3, %r1, FRAME		/* the stack pointer after the return */
	bl	\exit
	nop
	mtctr	%r3			/* where the function returns to */
	addi	%r12, %r1, FR_VR
	.irp	v, 2, 3, 4, 5, 6, 7, 8, 9
	lvx	%v\v, 0, %r12
	addi	%r12, %r12, 16
	.endr
	.irp	f, 1, 2, 3, 4, 5, 6, 7, 8
	lfd	%f\f, FR_FPR + 8 * (\f - 1)(%r1)
	.endr
	ld	%r2, FR_GPR + 0(%r1)
	ld	%r3, FR_GPR + 8(%r1)
	ld	%r4, FR_GPR + 16(%r1)
	addi	%r1, %r1, FRAME
	bctr
	.cfi_endproc
	.size	\name, . - \name
	.endm

	tramp	rec_return_tramp, rec_exit, 0

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, value), which writes
 * the value and the exit and gives back the real return address.
 */
	tramp	rec_return_value_tramp, rec_exit_value, 1

	.section .note.GNU-stack, "", @progbits
