/* SPDX-License-Identifier: MIT */
/*
 * return.S - the AArch64 return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address over a traced function's
 * saved return address (its frame record's x30 for -pg, the pad
 * trampoline's copy of x30 for a pad: runtime/aarch64/trampoline.S), so
 * the function's `ret` lands here with sp back where it was at the
 * function's entry, its frame's key: rec_exit(sp) writes the exit event
 * and gives back the real return address, and we go there (or here
 * again: a tail-called function returns through its caller's frame).
 *
 * On arrival the return registers are live: x0-x7 (x0/x1 for 128-bit
 * and small structs; a homogeneous aggregate of up to four in v0-v3) and
 * q0-q7, so all of them are kept around the C call; x29 is the caller's
 * frame pointer again and is kept by the frame record.  The branch back
 * is `ret x16`: a return is no indirect branch for BTI, so the caller's
 * return point needs no landing pad; x16 is the intra-procedure-call
 * scratch register a caller never expects kept.
 *
 * The trampoline has no frame an unwinder can step through: its CFI
 * says the return address is undefined, and covers the instruction
 * before it (see recorder/x86_64/return.S).
 *
 * Frame (sp 16-byte aligned):
 *   [sp, #0]    x29, x30
 *   [sp, #16]   x0 ... x7
 *   [sp, #80]   q0 ... q7
 */
#ifdef __ARM_FP
#define FRAME	208
#else
#define FRAME	80
#endif

	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.hidden	rec_exit
	.type	rec_return_tramp, %function
	.p2align 2
	.cfi_startproc
	.cfi_undefined x30
	nop		/* an unwinder looks up the FDE of our address - 4 */
rec_return_tramp:
	stp	x29, x30, [sp, #-FRAME]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
#ifdef __ARM_FP
	stp	q0, q1, [sp, #80]
	stp	q2, q3, [sp, #112]
	stp	q4, q5, [sp, #144]
	stp	q6, q7, [sp, #176]
#endif
	add	x0, sp, #FRAME		/* the stack pointer after the ret */
	bl	rec_exit
	mov	x16, x0			/* where the function returns to */
#ifdef __ARM_FP
	ldp	q0, q1, [sp, #80]
	ldp	q2, q3, [sp, #112]
	ldp	q4, q5, [sp, #144]
	ldp	q6, q7, [sp, #176]
#endif
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x29, x30, [sp], #FRAME
	ret	x16
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, x0), which writes the
 * value and the exit and gives back the real return address.
 */
	.globl	rec_return_value_tramp
	.hidden	rec_return_value_tramp
	.hidden	rec_exit_value
	.type	rec_return_value_tramp, %function
	.p2align 2
	.cfi_startproc
	.cfi_undefined x30
	nop		/* an unwinder looks up the FDE of our address - 4 */
rec_return_value_tramp:
	stp	x29, x30, [sp, #-FRAME]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
#ifdef __ARM_FP
	stp	q0, q1, [sp, #80]
	stp	q2, q3, [sp, #112]
	stp	q4, q5, [sp, #144]
	stp	q6, q7, [sp, #176]
#endif
	mov	x1, x0			/* the value */
	add	x0, sp, #FRAME		/* the stack pointer after the ret */
	bl	rec_exit_value
	mov	x16, x0			/* where the function returns to */
#ifdef __ARM_FP
	ldp	q0, q1, [sp, #80]
	ldp	q2, q3, [sp, #112]
	ldp	q4, q5, [sp, #144]
	ldp	q6, q7, [sp, #176]
#endif
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x29, x30, [sp], #FRAME
	ret	x16
	.cfi_endproc
	.size	rec_return_value_tramp, . - rec_return_value_tramp

/*
 * rec_entry_args(func, slot): the slot hook while values are captured
 * (args.c).  The runtime's trampolines saved x0-x7 just above their frame
 * record, whose x30 is `func` (the return address into the function:
 * runtime/aarch64/trampoline.S); mc_rt_dispatch_slot, between them and
 * us, may or may not have a frame record of its own.  rec_entry_frame
 * finds the trampoline's from x29.
 */
	.globl	rec_entry_args
	.hidden	rec_entry_args
	.hidden	rec_entry_frame
	.type	rec_entry_args, %function
	.p2align 2
rec_entry_args:
	.cfi_startproc
	hint	#34			/* bti c: called through a pointer */
	mov	x2, x29
	b	rec_entry_frame
	.cfi_endproc
	.size	rec_entry_args, . - rec_entry_args

	.section .note.GNU-stack, "", %progbits
