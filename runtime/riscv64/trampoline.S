/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - RV64 hook target and trampoline.
 *
 * GCC's -pg hook comes after the prologue has stored ra:
 *
 *	mv	a0, ra		the function's return address, in its caller
 *	call	_mcount		auipc ra + jalr ra (or `jal ra` once
 *				relaxed): ra := return into the function
 *
 * GCC treats the call as an ordinary one (it clobbers a0-a7, t0-t6,
 * ft*, fa*, ra), so the function keeps its arguments elsewhere and
 * reloads ra from its frame.  Nothing is pushed: _mcount only returns,
 * and a hook reached before mcount_boot() costs a call.
 *
 * An enabled site calls mc_rt_tramp_mcount with the same registers.  It
 * saves ra, a0-a7 and fa0-fa7 (when the ABI has FP registers) around
 * the C call, although GCC does not count on it: a NOP keeps every
 * register, and so should the call that replaces it.  Then it calls
 * mc_rt_dispatch_slot(ra, slot) (platform.h) and returns to ra.  `slot`
 * is where the function's return address is; here, a copy of a0 in the
 * frame's top word, the word below the function's stack pointer at the
 * hook: the function reloads ra from its own frame, where a recorder of
 * exits finds it from the prologue (recorder/riscv64/frame.c).
 *
 * clang's -pg hook is a bare `call _mcount` after a prologue that keeps
 * a frame pointer: a0 is still the first argument, and the caller is
 * the ra the prologue stored at -8(s0), which is the slot itself.  Such
 * a site calls mc_rt_tramp_mcount_fp, the same but with -8(s0) for the
 * slot.  Which one a site calls the engine decides at boot from the code
 * before the hook (runtime/riscv64/backend.h, MC_RT_SITE_CALLER).
 *
 * A client may take any of them over (platform.h, MC_RT_ENTRY_TAKEOVER):
 * mc_rt_mcount_takeover for both -pg trampolines, mc_rt_fentry_takeover
 * for the pad's.  When set, the trampoline jumps to it first thing with
 * `jalr t1, 0(t1)`, everything else as the site's call left it: t1 then
 * holds the address of the trampoline's body past the test, which the
 * routine either goes back to (`jr t1`) with everything as it got it
 * but t2-t6 (and t0, for -pg), or returns into the function itself as
 * the trampoline would.  t0-t6 are dead at the -pg hook (an ordinary
 * call), and at a pad but t0 (its link); the body calls C, which may
 * change them anyway.
 *
 * Frame (sp stays 16-byte aligned, as the psABI requires at calls;
 * frame.h's numbers, which a recorder of arguments reads):
 *   0(sp)       ra
 *   8(sp)       a0 ... a7
 *   72(sp)      fa0 ... fa7 (8 bytes each, whatever FLEN)
 *   FRAME-8(sp) the slot handed on (mcount: a copy of a0)
 */

#include "frame.h"

#define FRAME	MC_RT_RV_FRAME
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

	.text

/*
 * The frame both trampolines build: push_frame SIZE allocates SIZE
 * bytes and stores ra at 0(sp); save_args/restore_args keep a0-a7 and
 * fa0-fa7 at 8(sp) onwards; pop_frame SIZE reloads ra and frees them.
 * SIZE must contain no spaces (gas splits macro arguments at them).
 */
	.macro	push_frame size
	addi	sp, sp, -(\size)
	.cfi_def_cfa_offset \size
	sd	ra, 0(sp)
	.cfi_offset ra, -(\size)
	.endm

	.macro	pop_frame size
	ld	ra, 0(sp)
	.cfi_restore ra
	addi	sp, sp, \size
	.cfi_def_cfa_offset 0
	.endm

	.macro	save_args
	sd	a0, 8(sp)
	sd	a1, 16(sp)
	sd	a2, 24(sp)
	sd	a3, 32(sp)
	sd	a4, 40(sp)
	sd	a5, 48(sp)
	sd	a6, 56(sp)
	sd	a7, 64(sp)
#if HAVE_FP
	FSAVE	fa0, 72(sp)
	FSAVE	fa1, 80(sp)
	FSAVE	fa2, 88(sp)
	FSAVE	fa3, 96(sp)
	FSAVE	fa4, 104(sp)
	FSAVE	fa5, 112(sp)
	FSAVE	fa6, 120(sp)
	FSAVE	fa7, 128(sp)
#endif
	.endm

	.macro	restore_args
#if HAVE_FP
	FLOAD	fa0, 72(sp)
	FLOAD	fa1, 80(sp)
	FLOAD	fa2, 88(sp)
	FLOAD	fa3, 96(sp)
	FLOAD	fa4, 104(sp)
	FLOAD	fa5, 112(sp)
	FLOAD	fa6, 120(sp)
	FLOAD	fa7, 128(sp)
#endif
	ld	a0, 8(sp)
	ld	a1, 16(sp)
	ld	a2, 24(sp)
	ld	a3, 32(sp)
	ld	a4, 40(sp)
	ld	a5, 48(sp)
	ld	a6, 56(sp)
	ld	a7, 64(sp)
	.endm

	.globl	_mcount
	.type	_mcount, @function
	.p2align 2
_mcount:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	_mcount, . - _mcount

/*
 * The test of a takeover (above): the routine in `var`, if set, called
 * with t1 := the instruction after this.
 */
	.macro	takeover var
	ld	t1, \var
	beqz	t1, 1f
	jalr	t1, 0(t1)
1:
	.endm

/*
 * mcount_tramp NAME, INSN: an mcount trampoline that takes the slot of
 * the function's return address into a1 with INSN, once a0-a7 are saved.
 */
	.macro	mcount_tramp name, insn:vararg
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 2
\name:
	.cfi_startproc
	takeover mc_rt_mcount_takeover
	push_frame FRAME
	save_args
	\insn
	mv	a0, ra			/* return address into the function */
	call	mc_rt_dispatch_slot
	restore_args
	pop_frame FRAME
	ret
	.cfi_endproc
	.size	\name, . - \name
	.endm

	/*
	 * GCC: a0 is the function's return address (mv a0, ra): a copy of
	 * it in the frame's top word is the slot handed on.
	 */
	.macro	a0_copy_slot
	sd	a0, FRAME-8(sp)
	addi	a1, sp, FRAME-8
	.endm
	mcount_tramp mc_rt_tramp_mcount, a0_copy_slot

	/*
	 * clang: a0 is the function's first argument; its prologue kept
	 * a frame pointer and stored its return address at -8(s0).  The
	 * engine sends a site here only when the code before its hook
	 * says so (mc_arch_riscv64_caller).
	 */
	mcount_tramp mc_rt_tramp_mcount_fp, addi a1, s0, -8

/*
 * A -fpatchable-function-entry pad, once enabled, runs at the function's
 * entry, before its prologue:
 *
 *	auipc	t0, hi		t0 := back into the function; ra is still
 *	jalr	t0, lo(t0)	the function's return address, in its caller
 *
 * Every argument register is live.  mc_rt_tramp_pad saves ra and t0
 * with them (the same frame, 16 bytes more: t0 at FRAME + 0, and ra
 * again at FRAME + 8, the word below the function's stack pointer,
 * which is the slot it hands to mc_rt_dispatch_slot(t0, slot)), restores
 * them all, ra from that slot (where a recorder of exits may have
 * swapped it), and returns with `jr t0`.
 */
	.globl	mc_rt_tramp_pad
	.hidden	mc_rt_tramp_pad
	.type	mc_rt_tramp_pad, @function
	.p2align 2
mc_rt_tramp_pad:
	.cfi_startproc
	takeover mc_rt_fentry_takeover
	push_frame FRAME+16
	sd	t0, FRAME(sp)
	sd	ra, FRAME+8(sp)
	save_args
	addi	a1, sp, FRAME+8		/* the slot of the function's ra */
	mv	a0, t0			/* return address into the function */
	call	mc_rt_dispatch_slot
	restore_args
	ld	t0, FRAME(sp)
	ld	ra, FRAME+8(sp)
	.cfi_restore ra
	addi	sp, sp, FRAME+16
	.cfi_def_cfa_offset 0
	jr	t0
	.cfi_endproc
	.size	mc_rt_tramp_pad, . - mc_rt_tramp_pad

/*
 * An empty, writable __mcount_loc input section, so that the output
 * section lds/mcount.lds makes is writable and a PIE's relocated table
 * lands in RELRO rather than creating DT_TEXTREL (see x86_64's).
 */
	.section __mcount_loc, "awo", @progbits, .text

	.section .note.GNU-stack, "", @progbits
