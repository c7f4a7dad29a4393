/* SPDX-License-Identifier: MIT */
/*
 * return.S - the s390x return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address into a traced function's
 * %r14 save slot, 112(%r15) at its entry (the runtime's trampolines put
 * the return address there and load it back), so the function's `br
 * %r14` lands here with %r15 as it was at the function's entry:
 * rec_exit(%r15) writes the exit event and gives back the real return
 * address, and we branch there through %r1 (the linkage scratch
 * register, free at a return).
 *
 * On arrival only the return registers are live: %r2 (and %r3 for a
 * 64-bit pair), %f0 and %f2 (and %f4, %f6, kept as cheaply).  The
 * library is built for the distribution's baseline, which has no
 * vector registers, so rec_exit leaves %v24 (a -march=z13 vector
 * return) alone.
 *
 * The trampoline has no frame the unwinder can use: an exception never
 * reaches it (the recorder writes the real addresses back before any
 * unwind starts, wrap.c).  Its CFI says so, return address undefined,
 * and covers the halfword before it, which is what an unwinder looks up
 * for a frame that returns here: a backtrace ends there as at the
 * outermost frame.
 */
#define SAVE		160		/* rec_exit's register save area */
#define FR_GPR		(SAVE + 0)	/* %r2, %r3 */
#define FR_FPR		(SAVE + 16)	/* %f0, %f2, %f4, %f6 */
#define FRAME		(SAVE + 48)

/*
 * The frame of the calls to rec_exit and rec_exit_value: the return
 * registers (r2-r3, f0, f2, f4, f6), saved and loaded back.
 */
	.macro	save_returned
	aghi	%r15, -FRAME
	stmg	%r2, %r3, FR_GPR(%r15)
	std	%f0, FR_FPR + 0(%r15)
	std	%f2, FR_FPR + 8(%r15)
	std	%f4, FR_FPR + 16(%r15)
	std	%f6, FR_FPR + 24(%r15)
	.endm

	.macro	load_returned
	ld	%f0, FR_FPR + 0(%r15)
	ld	%f2, FR_FPR + 8(%r15)
	ld	%f4, FR_FPR + 16(%r15)
	ld	%f6, FR_FPR + 24(%r15)
	lmg	%r2, %r3, FR_GPR(%r15)
	aghi	%r15, FRAME
	.endm

	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.type	rec_return_tramp, @function
	.p2align 3
	.cfi_startproc
	.cfi_undefined %r14
	nopr	%r7		/* an unwinder looks up the FDE of our address - 1 */
rec_return_tramp:
	save_returned
	la	%r2, FRAME(%r15)	/* the stack pointer after the return */
	brasl	%r14, rec_exit
	lgr	%r1, %r2		/* where the function returns to */
	load_returned
	br	%r1
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp


/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, value), which writes
 * the value and the exit and gives back the real return address.
 */
	.globl	rec_return_value_tramp
	.hidden	rec_return_value_tramp
	.type	rec_return_value_tramp, @function
	.p2align 3
	.cfi_startproc
	.cfi_undefined %r14
	nopr	%r7		/* an unwinder looks up the FDE of our address - 1 */
rec_return_value_tramp:
	save_returned
	lgr	%r3, %r2		/* the value */
	la	%r2, FRAME(%r15)	/* the stack pointer after the return */
	brasl	%r14, rec_exit_value
	lgr	%r1, %r2		/* where the function returns to */
	load_returned
	br	%r1
	.cfi_endproc
	.size	rec_return_value_tramp, . - rec_return_value_tramp

	.section .note.GNU-stack, "", @progbits
