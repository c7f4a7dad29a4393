/* SPDX-License-Identifier: MIT */
/*
 * entry.S - the RV64 recorder's entry, fused with the runtime's
 * trampolines.
 *
 * The runtime's mc_rt_tramp_mcount, mc_rt_tramp_mcount_fp and
 * mc_rt_tramp_pad jump here (`jalr t1, 0(t1)`) before they build a
 * frame or save a register (runtime/riscv64/trampoline.S,
 * mc_rt_set_entry_takeover), t1 holding the trampoline's body to go
 * back to: rec_mcount (both -pg forms) and rec_fentry (the pad's) do
 * rec_entry's common case (record.c) in place of the trampoline's
 * frame, the registers it saves, the call through
 * mc_rt_dispatch_slot and rec_entry's own prologue.  They use t2-t6
 * and a1-a5, which they save on the stack (SAVED), and touch no
 * floating-point register; t0 too in rec_mcount (t0 is the pad's link).
 *
 * The common case is rec_entry's, test for test: not busy and
 * recording; then, busy, the thread known, the site in frame.c's table
 * (rec_arch_key: its form, and for GCC's `mv a0, ra` form the offsets
 * of the slot its prologue stored ra in and of its key, with that slot
 * holding a0), the slot the trampoline would hand on within the
 * thread's stack, the depth below max_open, the ring's room up to its
 * mark for this entry, its exit and the exits of every open frame, the
 * key below the top frame's (the guard's is above every key) and the
 * return address not already rec_return_tramp (a tail call).  It
 * pushes the frame, writes the entry event, swaps the return address
 * for rec_return_tramp and clears busy.  Anything else clears busy,
 * having changed nothing, and goes back to the trampoline's body
 * (`jr t1`), which calls rec_entry: it tests again and takes the call
 * to entry_slow.
 *
 * Where it is on entry (frame.c says more):
 *   rec_mcount, GCC:   after the prologue; ra = the return into the
 *                      function, which names it; a0 = the function's
 *                      return address, which its prologue stored at
 *                      sp + slot_off; the key is sp + key_off
 *   rec_mcount, clang: ra as above; s0 = the key, the return address
 *                      at -8(s0) (a copy: form FORM_COPY)
 *   rec_fentry:        at the entry; t0 = the return into the
 *                      function, ra = its return address, which the
 *                      pad's trampoline would store one word below sp,
 *                      the key (a copy); the trampoline returns with
 *                      `jr t0`, ra reloaded from that word
 *
 * The timestamp is the time CSR (rdtime): what clock_gettime's vDSO
 * reads on Linux (so no resolution is lost by not calling it), one
 * instruction against a call that would need every argument register
 * saved.  rec_ticks (recorder.h) reads it for the C paths.
 *
 * The offsets are entry.h's, which record.c checks against recorder.h.
 * `self` and `busy` are one initial-exec TLS block (struct rec_tls).
 */
#include "entry.h"

#define SAVED	48		/* a1-a5, sp kept 16-byte aligned */

	.section .rodata
	.p2align 3
.Lhash:	.quad	REC_S_HASH

/*
 * IN_STACK reg, fail: on to `fail` unless `reg` is within the stack of
 * the thread in t3.  Changes t5.
 */
.macro	IN_STACK reg, fail
	ld	t5, REC_T_STACK_LO(t3)
	bltu	\reg, t5, \fail
	ld	t5, REC_T_STACK_HI(t3)
	bgeu	\reg, t5, \fail
.endm

/*
 * SITE_KEY func, missing: the site of the hook returning to `func` in
 * frame.c's table (sitekeys.c: recorder.h's struct rec_site_table),
 * into t6, or on to `missing`.  The table is read through the pointer
 * loaded, an address dependency, which RVWMO keeps in order as the C
 * reader's acquire does.  Changes a3, a4, t4-t6.
 */
.macro	SITE_KEY func, missing
	ld	t4, rec_site_keys
	beqz	t4, \missing
	ld	a3, REC_S_MASK(t4)
	ld	t6, .Lhash
	srli	t5, \func, 1
	mul	t5, t5, t6
	addi	t4, t4, REC_S_V
1:	and	t6, t5, a3
	slli	t6, t6, REC_S_SIZE_SHIFT
	add	t6, t4, t6
	ld	a4, REC_S_RET(t6)
	beq	a4, \func, 2f
	addi	t5, t5, 1
	bnez	a4, 1b
	j	\missing		/* a free entry: not read at start */
2:
.endm

/*
 * SLOT_PAD, SLOT_MCOUNT: the frame's slot into a1, key into a2, copy
 * into a3 and the return address it holds into a5, for the site in t6
 * (the thread in t3), or on to 7f.
 */
.macro	SLOT_PAD
	lw	a3, REC_S_FORM(t6)
	li	t5, REC_S_FORM_COPY
	bne	a3, t5, 7f			/* (a pad's is always) */
	li	a3, 1				/* copy */
	addi	a1, sp, SAVED - 8		/* slot */
	IN_STACK	a1, 7f
	addi	a2, sp, SAVED			/* key */
	mv	a5, ra				/* orig */
.endm

.macro	SLOT_MCOUNT
	lw	a3, REC_S_FORM(t6)
	li	t5, REC_S_FORM_COPY
	beq	a3, t5, 3f
	addi	a1, sp, SAVED - 8		/* the trampoline's slot */
	IN_STACK	a1, 7f
	ld	a1, REC_S_SLOT_OFF(t6)
	ld	a2, REC_S_KEY_OFF(t6)
	addi	t0, sp, SAVED			/* sp at the hook */
	add	a1, t0, a1			/* slot: where ra was stored */
	add	a2, t0, a2			/* key */
	ld	a5, 0(a1)			/* orig */
	bne	a5, a0, 7f			/* not ra: not followed */
	li	a3, 0				/* not a copy */
	j	4f
3:	addi	a1, s0, -8			/* slot */
	IN_STACK	a1, 7f
	mv	a2, s0				/* key */
	li	a3, 1				/* copy */
	ld	a5, 0(a1)			/* orig */
4:
.endm

/*
 * FUSED_ENTRY name, pad, func: the entry `name` of the pad's trampoline
 * (pad = 1) or the -pg ones', whose function is named by `func`.
 * t2 = &rec_tls, t3 = t, a1 = slot, a2 = key, a3 = copy, a4 = d,
 * a5 = orig, t4 = &frames[d].
 */
.macro	FUSED_ENTRY name, pad, func
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 2
\name:
	.cfi_startproc
	la.tls.ie	t2, rec_tls
	add	t2, t2, tp
	lbu	t3, REC_TLS_BUSY(t2)
	bnez	t3, 8f			/* in the recorder: not recorded */
	lbu	t3, rec_on
	beqz	t3, 8f
	li	t3, 1
	sb	t3, REC_TLS_BUSY(t2)
	addi	sp, sp, -SAVED
	.cfi_adjust_cfa_offset SAVED
	sd	a1, 0(sp)
	sd	a2, 8(sp)
	sd	a3, 16(sp)
	sd	a4, 24(sp)
	sd	a5, 32(sp)
	ld	t3, REC_TLS_SELF(t2)		/* t */
	beqz	t3, 7f
	SITE_KEY	\func, 7f
	.if \pad
	SLOT_PAD
	.else
	SLOT_MCOUNT
	.endif
	ld	a4, REC_T_DEPTH(t3)		/* d */
	ld	t5, REC_T_MAX_OPEN(t3)
	bgeu	a4, t5, 7f
	ld	t5, REC_T_HEAD(t3)		/* head - tail_seen + d + 2 */
	ld	t6, REC_T_TAIL_SEEN(t3)
	sub	t5, t5, t6
	add	t5, t5, a4
	addi	t5, t5, 2
	ld	t6, REC_T_MARK(t3)
	bltu	t6, t5, 7f
	ld	t4, REC_T_FRAMES(t3)
	li	t5, REC_F_SIZE
	mul	t5, a4, t5
	add	t4, t4, t5			/* f = &frames[d] */
	ld	t5, REC_F_KEY - REC_F_SIZE(t4)
	bgeu	a2, t5, 7f			/* f[-1].key <= key */
	lla	t6, rec_return_tramp
	beq	a5, t6, 7f			/* a tail call */
	sd	a2, REC_F_KEY(t4)
	sd	a1, REC_F_SLOT(t4)
	sd	a5, REC_F_ORIG(t4)
	sd	\func, REC_F_FUNC(t4)
	slli	a3, a3, 8
	sh	a3, REC_F_FLAGS(t4)		/* !restored, copy */
	addi	a4, a4, 1
	sd	a4, REC_T_DEPTH(t3)
	.if \pad
	mv	ra, t6				/* its return: ours */
	.else
	sd	t6, 0(a1)			/* *slot = rec_return_tramp */
	.endif
	ld	t5, REC_T_HEAD(t3)		/* the event at head */
	ld	t6, REC_T_MASK(t3)
	and	t6, t5, t6
	slli	t6, t6, REC_E_SIZE_SHIFT
	ld	a1, REC_T_RING(t3)
	add	t6, a1, t6
	rdtime	a1
	slli	a1, a1, REC_E_KIND_BITS		/* | REC_E_ENTRY, 0 */
	sd	a1, REC_E_WORD(t6)
	sd	\func, REC_E_FUNC(t6)
	addi	t5, t5, 1
	fence	rw, w			/* the writer sees the event first */
	sd	t5, REC_T_HEAD(t3)
	sb	zero, REC_TLS_BUSY(t2)
	ld	a1, 0(sp)
	ld	a2, 8(sp)
	ld	a3, 16(sp)
	ld	a4, 24(sp)
	ld	a5, 32(sp)
	addi	sp, sp, SAVED
	.cfi_adjust_cfa_offset -SAVED
8:	.if \pad
	jr	t0
	.else
	ret
	.endif
7:	.cfi_adjust_cfa_offset SAVED
	sb	zero, REC_TLS_BUSY(t2)
	ld	a1, 0(sp)
	ld	a2, 8(sp)
	ld	a3, 16(sp)
	ld	a4, 24(sp)
	ld	a5, 32(sp)
	addi	sp, sp, SAVED
	.cfi_adjust_cfa_offset -SAVED
	jr	t1
	.cfi_endproc
	.size	\name, . - \name
.endm

	.text
	FUSED_ENTRY	rec_fentry, 1, t0
	FUSED_ENTRY	rec_mcount, 0, ra

	.section .note.GNU-stack, "", @progbits
