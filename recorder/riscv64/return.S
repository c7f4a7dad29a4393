/* SPDX-License-Identifier: MIT */
/*
 * return.S - the RV64 return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address over a traced function's
 * saved return address (where its prologue stored ra, or the pad
 * trampoline's copy of ra: recorder/riscv64/frame.c), so the function's
 * `ret` lands here with sp back where it was at the function's entry,
 * its frame's key: rec_exit(sp) writes the exit event and gives back
 * the real return address, and we jump there (or here again: a
 * tail-called function returns through its caller's frame).
 *
 * On arrival the return registers are live: a0 and a1, and fa0 and fa1
 * when the ABI has FP registers (8 bytes each kept, whatever FLEN); they
 * are kept around the C call.  t1 is free for the jump (a temporary no
 * caller expects kept; t0 may be the static chain or a pad's link).
 *
 * The common case, the top frame returning with its key, is rec_exit's
 * done here with t0-t6 and a2 (no return register), without a call or
 * a frame: busy set (and put back as it was, since an exit may come
 * while a signal handler's traced code runs in the recorder), the frame
 * popped, the exit event written (rdtime, as entry.S) and the real
 * return address jumped to.  Anything else (no thread, frames left by
 * longjmp) goes to rec_exit as before, busy put back first.  The
 * offsets are entry.h's, checked by record.c.
 *
 * The trampoline has no frame an unwinder can step through: its CFI
 * says the return address is undefined, and covers the instruction
 * before it (see recorder/x86_64/return.S).
 *
 * Frame (16-byte aligned): 0(sp) a0, 8(sp) a1, 16(sp) fa0, 24(sp) fa1.
 */
#include "entry.h"

#if defined(__riscv_flen) && __riscv_flen >= 32
#define HAVE_FP	1
#if __riscv_flen == 64
#define FSAVE	fsd
#define FLOAD	fld
#else
#define FSAVE	fsw
#define FLOAD	flw
#endif
#else
#define HAVE_FP	0
#endif
#define FRAME	32

/*
 * The frame of the calls to rec_exit and rec_exit_value: the return
 * registers (a0-a1, and fa0-fa1 where there is an FPU), saved and
 * loaded back.
 */
	.macro	save_returned
	addi	sp, sp, -FRAME
	sd	a0, 0(sp)
	sd	a1, 8(sp)
#if HAVE_FP
	FSAVE	fa0, 16(sp)
	FSAVE	fa1, 24(sp)
#endif
	.endm

	.macro	load_returned
#if HAVE_FP
	FLOAD	fa0, 16(sp)
	FLOAD	fa1, 24(sp)
#endif
	ld	a0, 0(sp)
	ld	a1, 8(sp)
	addi	sp, sp, FRAME
	.endm

	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.hidden	rec_exit
	.type	rec_return_tramp, @function
	.p2align 2
	.cfi_startproc
	.cfi_undefined ra
	.option	push
	.option	norvc
	nop		/* an unwinder looks up the FDE of our address - 1 */
	.option	pop
rec_return_tramp:
	la.tls.ie	t2, rec_tls		/* &rec_tls */
	add	t2, t2, tp
	lbu	t0, REC_TLS_BUSY(t2)		/* as it was */
	li	t3, 1
	sb	t3, REC_TLS_BUSY(t2)
	ld	t3, REC_TLS_SELF(t2)		/* t */
	beqz	t3, 1f
	ld	t4, REC_T_DEPTH(t3)
	ld	t5, REC_T_FRAMES(t3)
	li	t6, REC_F_SIZE
	mul	t6, t4, t6
	add	t5, t5, t6			/* the top frame is below */
	ld	t6, REC_F_KEY - REC_F_SIZE(t5)
	bne	t6, sp, 1f			/* (depth 0: the guard's) */
	addi	t4, t4, -1
	sd	t4, REC_T_DEPTH(t3)
	ld	t4, REC_T_HEAD(t3)		/* the event at head */
	ld	t6, REC_T_MASK(t3)
	and	t6, t4, t6
	slli	t6, t6, REC_E_SIZE_SHIFT
	ld	a2, REC_T_RING(t3)
	add	t6, a2, t6
	rdtime	a2				/* (entry.S says why) */
	slli	a2, a2, REC_E_KIND_BITS
	ori	a2, a2, REC_E_EXIT
	sd	a2, REC_E_WORD(t6)
	ld	a2, REC_F_FUNC - REC_F_SIZE(t5)
	sd	a2, REC_E_FUNC(t6)
	addi	t4, t4, 1
	fence	rw, w			/* the writer sees the event first */
	sd	t4, REC_T_HEAD(t3)
	ld	t1, REC_F_ORIG - REC_F_SIZE(t5)
	sb	t0, REC_TLS_BUSY(t2)
	jr	t1
1:	sb	t0, REC_TLS_BUSY(t2)
	save_returned
	addi	a0, sp, FRAME		/* the stack pointer after the ret */
	call	rec_exit
	mv	t1, a0			/* where the function returns to */
	load_returned
	jr	t1
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, a0), which writes the
 * value and the exit and gives back the real return address.
 */
	.globl	rec_return_value_tramp
	.hidden	rec_return_value_tramp
	.hidden	rec_exit_value
	.type	rec_return_value_tramp, @function
	.p2align 2
	.cfi_startproc
	.cfi_undefined ra
	.option	push
	.option	norvc
	nop		/* an unwinder looks up the FDE of our address - 1 */
	.option	pop
rec_return_value_tramp:
	save_returned
	mv	a1, a0			/* the value */
	addi	a0, sp, FRAME		/* the stack pointer after the ret */
	call	rec_exit_value
	mv	t1, a0			/* where the function returns to */
	load_returned
	jr	t1
	.cfi_endproc
	.size	rec_return_value_tramp, . - rec_return_value_tramp

	.section .note.GNU-stack, "", @progbits
