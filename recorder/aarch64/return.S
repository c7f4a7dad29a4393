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
 * frame pointer again and is kept by the frame record; x9-x17 are free.
 *
 * The common case, the top frame returning with its key, is rec_exit's
 * done here with x9-x17 alone, without a call or a frame: busy set (and
 * put back as it was, since an exit may come while a signal handler's
 * traced code runs in the recorder), the frame popped, the exit event
 * written (CNTVCT_EL0, as entry.S) and the real return address branched
 * to.  Anything else (no thread, frames left by longjmp) goes to
 * rec_exit as before, busy put back first.  The offsets are entry.h's,
 * checked by record.c.
 *
 * The branch back
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
#include "entry.h"

#ifdef __ARM_FP
#define FRAME	208
#else
#define FRAME	80
#endif

/*
 * The frame of the calls to rec_exit and rec_exit_value: a frame record,
 * then every return register (x0-x7, and q0-q7 for homogeneous float
 * and vector aggregates), saved and loaded back.
 */
	.macro	save_returned
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
	.endm

	.macro	load_returned
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
	.endm

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
	mrs	x10, tpidr_el0			/* &rec_tls */
	adrp	x11, :gottprel:rec_tls
	ldr	x11, [x11, #:gottprel_lo12:rec_tls]
	add	x10, x10, x11
	ldrb	w9, [x10, #REC_TLS_BUSY]	/* as it was */
	mov	w11, #1
	strb	w11, [x10, #REC_TLS_BUSY]
	ldr	x11, [x10, #REC_TLS_SELF]	/* t */
	cbz	x11, 1f
	ldr	x12, [x11, #REC_T_DEPTH]
	ldr	x13, [x11, #REC_T_FRAMES]
	mov	x14, #REC_F_SIZE
	madd	x13, x12, x14, x13		/* the top frame is below */
	ldur	x14, [x13, #REC_F_KEY - REC_F_SIZE]
	mov	x15, sp
	cmp	x14, x15
	b.ne	1f				/* (depth 0: the guard's) */
	sub	x12, x12, #1
	str	x12, [x11, #REC_T_DEPTH]
	ldr	x12, [x11, #REC_T_HEAD]		/* the event at head */
	ldr	x14, [x11, #REC_T_MASK]
	ldr	x15, [x11, #REC_T_RING]
	and	x14, x12, x14
	add	x15, x15, x14, lsl #REC_E_SIZE_SHIFT
	isb					/* (entry.S says why) */
	mrs	x14, cntvct_el0
	lsl	x14, x14, #REC_E_KIND_BITS
	orr	x14, x14, #REC_E_EXIT
	ldur	x16, [x13, #REC_F_FUNC - REC_F_SIZE]
	stp	x14, x16, [x15, #REC_E_WORD]
	add	x12, x12, #1
	add	x14, x11, #REC_T_HEAD
	stlr	x12, [x14]		/* the writer sees the event first */
	ldur	x16, [x13, #REC_F_ORIG - REC_F_SIZE]
	strb	w9, [x10, #REC_TLS_BUSY]
	ret	x16
1:	strb	w9, [x10, #REC_TLS_BUSY]
	save_returned
	add	x0, sp, #FRAME		/* the stack pointer after the ret */
	bl	rec_exit
	mov	x16, x0			/* where the function returns to */
	load_returned
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
	save_returned
	mov	x1, x0			/* the value */
	add	x0, sp, #FRAME		/* the stack pointer after the ret */
	bl	rec_exit_value
	mov	x16, x0			/* where the function returns to */
	load_returned
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
