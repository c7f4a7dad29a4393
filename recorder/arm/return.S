/* SPDX-License-Identifier: MIT */
/*
 * return.S - the 32-bit ARM return trampoline of the recorder, in the
 * compiler's instruction set (Thumb-2 for Debian's armhf, ARM with
 * -marm): the code below is valid in both.
 *
 * rec_entry (record.c, with arm/frame.c) writes this address where a
 * traced function keeps its return address, 4 below its stack pointer
 * at entry (lr, or the word its first push stores lr in), so that its
 * `bx lr` or `pop {..., pc}` lands here with sp as it was at its entry.
 * The address carries the Thumb bit when this file is Thumb, so either
 * return changes state as needed.  rec_exit(sp) writes the exit event
 * and gives back the real return address, and `bx ip` goes there, into
 * ARM or Thumb code by its low bit.
 *
 * On arrival only the return registers are live: r0-r3 (AAPCS), and
 * d0-d7 under the hard-float ABI; ip is free.  sp is 8-byte aligned,
 * as at the call, and stays so: 16 bytes of core registers, then 64 of
 * VFP ones.
 *
 * No unwinder steps through us: the recorder writes the real addresses
 * back before any unwind starts (wrap.c).  Our index entry says
 * "cannot unwind", which the EHABI unwinder takes for the end of the
 * stack (as glibc's forced unwind of pthread_exit needs); it covers the
 * instruction before us, since the unwinder looks up a return address
 * less 2.
 */
	.syntax	unified
#ifdef __thumb__
	.thumb
#define FUNC(name)	.type name, %function; .thumb_func
#else
	.arm
#define FUNC(name)	.type name, %function
#endif

/*
 * tramp NAME, EXIT, VALUE: a return trampoline that calls EXIT(sp), or
 * with VALUE 1 EXIT(sp, r0), between saving the return registers (r0-r3,
 * and d0-d7 where there is an FPU) and loading them back.
 */
	.macro	tramp name, exit, value
	.globl	\name
	.hidden	\name
	FUNC(\name)
	.p2align 2
	.fnstart
	.cantunwind
	nop
\name:
	push	{r0, r1, r2, r3}
	.if	\value
	mov	r1, r0			/* the value */
	.endif
#ifdef __ARM_FP
	vpush	{d0-d7}
	add	r0, sp, #80		/* the stack pointer after the return */
#else
	add	r0, sp, #16
#endif
	bl	\exit
	mov	ip, r0			/* where the function returns to */
#ifdef __ARM_FP
	vpop	{d0-d7}
#endif
	pop	{r0, r1, r2, r3}
	bx	ip
	.fnend
	.size	\name, . - \name
	.endm

	.text
	tramp	rec_return_tramp, rec_exit, 0

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, value), which writes
 * the value and the exit and gives back the real return address.
 */
	tramp	rec_return_value_tramp, rec_exit_value, 1

	.section .note.GNU-stack, "", %progbits
