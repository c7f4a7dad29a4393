/* SPDX-License-Identifier: MIT */
/*
 * entry.S - the AArch64 recorder's entry, fused with the runtime's
 * trampolines.
 *
 * The runtime's mc_rt_tramp_mcount and mc_rt_tramp_pad branch here
 * (`br x16`) before they build a frame or save a register
 * (runtime/aarch64/trampoline.S, mc_rt_set_entry_takeover): rec_mcount
 * and rec_fentry (the pad's) do rec_entry's common case (record.c) in
 * place of the trampoline's frame, the registers it saves, the
 * call through mc_rt_dispatch_slot and rec_entry's own prologue.  They
 * use only x9-x17 (x10-x17 in the pad's, whose x9 is the function's
 * return address), which are dead at both hooks (trampoline.S), and
 * touch neither the stack nor a vector register.
 *
 * The common case is rec_entry's, test for test: not busy and
 * recording; then, busy, the thread known, the slot on its stack, the
 * depth below max_open, the ring's room up to its mark for this entry,
 * its exit and the exits of every open frame, the site in frame.c's
 * table (rec_arch_key: its key's distance from the slot, and whether
 * the slot is a copy), the key below the top frame's (the guard's is
 * above every key) and the return address not already
 * rec_return_tramp (a tail call).  It pushes the frame, writes the
 * entry event, swaps the return address for rec_return_tramp and
 * clears busy.  Anything else clears busy, having changed nothing, and
 * goes on through the trampoline's own body (mc_rt_tramp_*_body) to
 * rec_entry, which tests again and takes it to entry_slow.  Busy is set
 * before the thread's state is read, as rec_entry sets it, so a signal
 * handler that runs traced code meanwhile is not recorded.
 *
 * Where it is on entry (x30 = the return into the function, which
 * names it):
 *   rec_mcount:  after the prologue; x29 = the function's frame
 *                record, its saved x30 at [x29, #8], the slot
 *   rec_fentry:  at the function's entry; x9 = its return address,
 *                which the pad's trampoline would store one word below
 *                sp (the slot rec_entry gets); the trampoline returns
 *                with x30 = that word and x9 = back into the function
 *
 * The timestamp is the virtual counter, CNTVCT_EL0: what
 * clock_gettime's vDSO reads on Linux too (so no resolution is lost by
 * not calling it), readable at EL0 and one instruction, against a call
 * that would need every argument register saved.  An `isb` before it
 * keeps the read from being done ahead of the code before it (the
 * architecture lets it), which could put an event before its caller's.
 * rec_ticks (recorder.h) reads it the same way, for the C paths.
 *
 * The offsets are entry.h's, which record.c checks against recorder.h.
 * `self` and `busy` are one initial-exec TLS block (struct rec_tls).
 */
#include "entry.h"

#ifdef __AARCH64EB__
#error "recorder/aarch64/entry.S: the frame's flags are stored little-endian"
#endif

/* &rec_tls into \reg (initial-exec; the linker may make it a constant) */
.macro	TLS_BLOCK reg, tmp
	mrs	\reg, tpidr_el0
	adrp	\tmp, :gottprel:rec_tls
	ldr	\tmp, [\tmp, #:gottprel_lo12:rec_tls]
	add	\reg, \reg, \tmp
.endm

/*
 * The site of the hook returning to x30 in frame.c's table (sitekeys.c:
 * recorder.h's struct rec_site_table), into x17, or on to \missing.
 * Changes x13-x17.
 */
.macro	SITE_KEY missing
	adrp	x14, rec_site_keys
	add	x14, x14, #:lo12:rec_site_keys
	ldar	x14, [x14]
	cbz	x14, \missing
	ldr	x15, [x14, #REC_S_MASK]
	lsr	x16, x30, #1
	movz	x17, #REC_S_HASH_48, lsl #48
	movk	x17, #REC_S_HASH_32, lsl #32
	movk	x17, #REC_S_HASH_16, lsl #16
	movk	x17, #REC_S_HASH_0
	mul	x16, x16, x17
	add	x14, x14, #REC_S_V
1:	and	x17, x16, x15
	add	x17, x14, x17, lsl #REC_S_SIZE_SHIFT
	ldr	x13, [x17, #REC_S_RET]
	cmp	x13, x30
	b.eq	2f
	add	x16, x16, #1
	cbnz	x13, 1b
	b	\missing		/* a free entry: not read at start */
2:
.endm

/*
 * FUSED_ENTRY name, pad, body: the entry `name` of the pad's trampoline
 * (pad = 1) or the -pg one's, falling back to the trampoline's `body`.
 * x10 = &rec_tls, x11 = t, x12 = slot, x13 = d, x14 = key, x15 = copy,
 * x16 = &frames[d]; \orig and \tmp are x9 and x17, in the order the
 * form leaves them free (the pad's orig is in x9 already).
 */
.macro	FUSED_ENTRY name, pad, body, orig, tmp
	.globl	\name
	.hidden	\name
	.type	\name, %function
	.p2align 4
\name:
	.cfi_startproc
	hint	#34			/* bti c: reached by `br x16` */
	TLS_BLOCK	x10, x11
	ldrb	w11, [x10, #REC_TLS_BUSY]
	cbnz	w11, 8f			/* in the recorder: not recorded */
	adrp	x11, rec_on
	ldrb	w11, [x11, #:lo12:rec_on]
	cbz	w11, 8f
	mov	w11, #1
	strb	w11, [x10, #REC_TLS_BUSY]
	ldr	x11, [x10, #REC_TLS_SELF]	/* t */
	.if \pad
	sub	x12, sp, #8			/* slot */
	.else
	add	x12, x29, #8
	.endif
	cbz	x11, 7f
	ldp	x14, x15, [x11, #REC_T_STACK_LO]
	cmp	x12, x14
	b.lo	7f
	cmp	x12, x15
	b.hs	7f
	ldr	x13, [x11, #REC_T_DEPTH]	/* d */
	ldr	x14, [x11, #REC_T_MAX_OPEN]
	cmp	x13, x14
	b.hs	7f
	ldp	x14, x15, [x11, #REC_T_HEAD]	/* head - tail_seen + d + 2 */
	sub	x14, x14, x15
	add	x14, x14, x13
	add	x14, x14, #2
	ldr	x15, [x11, #REC_T_MARK]
	cmp	x14, x15
	b.hi	7f
	SITE_KEY	7f
	ldr	x14, [x17, #REC_S_KEY_OFF]
	add	x14, x12, x14			/* key */
	ldr	w15, [x17, #REC_S_FORM]
	cmp	w15, #REC_S_FORM_PAD
	cset	w15, eq				/* copy */
	ldr	x13, [x11, #REC_T_DEPTH]	/* d */
	ldr	x17, [x11, #REC_T_FRAMES]
	mov	x16, #REC_F_SIZE
	madd	x16, x13, x16, x17		/* f = &frames[d] */
	ldur	x17, [x16, #REC_F_KEY - REC_F_SIZE]
	cmp	x17, x14
	b.ls	7f				/* f[-1].key <= key */
	.if !\pad
	ldr	\orig, [x12]			/* orig = *slot */
	.endif
	adrp	\tmp, rec_return_tramp
	add	\tmp, \tmp, #:lo12:rec_return_tramp
	cmp	\orig, \tmp
	b.eq	7f				/* a tail call */
	stp	x14, x12, [x16, #REC_F_KEY]	/* key, slot */
	stp	\orig, x30, [x16, #REC_F_ORIG]	/* orig, func */
	lsl	w15, w15, #8
	strh	w15, [x16, #REC_F_FLAGS]	/* !restored, copy */
	add	x13, x13, #1
	str	x13, [x11, #REC_T_DEPTH]
	.if !\pad
	str	\tmp, [x12]			/* *slot = rec_return_tramp */
	.endif
	ldr	x13, [x11, #REC_T_HEAD]		/* the event at head */
	ldr	x14, [x11, #REC_T_MASK]
	ldr	x15, [x11, #REC_T_RING]
	and	x14, x13, x14
	add	x15, x15, x14, lsl #REC_E_SIZE_SHIFT
	isb
	mrs	x14, cntvct_el0
	lsl	x14, x14, #REC_E_KIND_BITS	/* | REC_E_ENTRY, 0 */
	stp	x14, x30, [x15, #REC_E_WORD]
	add	x13, x13, #1
	add	x14, x11, #REC_T_HEAD
	stlr	x13, [x14]		/* the writer sees the event first */
	strb	wzr, [x10, #REC_TLS_BUSY]
	.if \pad
	mov	x9, x30			/* back into the function */
	mov	x30, \tmp		/* its return: rec_return_tramp */
	ret	x9
	.else
	ret
	.endif
8:	.if \pad			/* as the trampoline leaves them */
	mov	x16, x9
	mov	x9, x30
	mov	x30, x16
	ret	x9
	.else
	ret
	.endif
7:	strb	wzr, [x10, #REC_TLS_BUSY]
	b	\body
	.cfi_endproc
	.size	\name, . - \name
.endm

	.text
	FUSED_ENTRY	rec_fentry, 1, mc_rt_tramp_pad_body, x9, x17
	FUSED_ENTRY	rec_mcount, 0, mc_rt_tramp_mcount_body, x17, x9

	.section .note.GNU-stack, "", %progbits
