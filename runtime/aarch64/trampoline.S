/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - AArch64 hook target and trampoline.
 *
 * GCC's -pg hook comes after the prologue has stored x29 and x30 in the
 * frame record:
 *
 *	mov	x0, x30		the function's return address, in its caller
 *	bl	_mcount		x30 := the return address into the function
 *
 * (GCC 12 strips a pointer-authentication code first, `xpaclri`, so x0
 * is a plain address.)  Nothing is pushed, and GCC treats the call as
 * an ordinary one, so _mcount only has to return: a hook reached before
 * mcount_boot() costs a call and nothing else.
 *
 * An enabled site calls mc_rt_tramp_mcount instead, with the same
 * registers.  It builds a frame record, saves x0-x8 (the argument and
 * indirect-result registers) and q0-q7 (the FP/SIMD argument registers)
 * around the C call, although GCC does not expect the hook to keep them:
 * a NOP keeps every register, and so should the call that replaces it.
 * Then it calls mc_rt_dispatch_slot(x30, slot) (platform.h) and returns
 * to x30.  `slot` is where the function's return address lives: the
 * x30 its prologue saved in its frame record, [x29, #8], which both
 * compilers set up before the hook (each refuses -pg with
 * -fomit-frame-pointer).  Its epilogue reloads x30 from there, so a
 * recorder of exits swaps it there.  Under pac-ret that word is signed;
 * the engine strips the code before it names the caller
 * (MC_RT_SLOT_CALLER in backend.h).
 *
 * Clang's -pg hook is a bare `bl _mcount` after the same prologue, with
 * no `mov x0, x30`: x0 still holds the function's first argument, which
 * is why the caller comes from the frame record for both.  Without an
 * FPU (-mgeneral-regs-only, as firmware may build) q0-q7 are not
 * touched; such code passes no arguments in them either.
 *
 * Every entry starts with `bti c` (hint #34, a NOP without BTI), since a
 * linker veneer reaches a far target with `br x16`.
 *
 * A client may take either trampoline over (platform.h,
 * MC_RT_ENTRY_TAKEOVER): mc_rt_mcount_takeover for this one,
 * mc_rt_fentry_takeover for the pad's (aarch64 has no -mfentry; the pad
 * takes its place).  When set, the trampoline branches to it first
 * thing, with x16 holding its address (`br x16`: it begins with
 * `bti c`) and everything else as the site's `bl` left it.  It returns
 * into the function itself, or branches back, with everything as it got
 * it but x9-x17 (x10-x17 for the pad, whose x9 is the function's
 * return address), to the trampoline's own body past that test:
 * mc_rt_tramp_mcount_body, mc_rt_tramp_pad_body.  x9-x17 are dead at
 * both hooks: the -pg hook is an ordinary call to both compilers, and a
 * pad runs before the function has set any register but x9; the body
 * below calls C, which may change them anyway.
 *
 * Frame (sp 16-byte aligned throughout):
 *   [sp, #0]    x29, x30
 *   [sp, #16]   x0 ... x8 (x8 at #80)
 *   [sp, #96]   q0 ... q7
 *   [sp, #FRAME + 8]   the pad trampoline's x9 (its frame is 16 larger)
 */

#ifdef __ARM_FP
#define FRAME	224
#else
#define FRAME	96
#endif

	.text

/*
 * The frame both trampolines build.  push_frame SIZE stores the frame
 * record (x29, x30) and points x29 at it; save_args/restore_args keep
 * x0-x7 and q0-q7, and each trampoline keeps x8 (with the pad's x9)
 * itself.  pop_frame SIZE, REG reloads x29 and, into REG (x30 unless
 * named), the saved x30, and frees the frame; the pad has by then
 * reloaded x30 from x9's slot, hence the unconditional .cfi_restore
 * x30.  SIZE must contain no spaces (gas splits macro arguments there).
 */
	.macro	push_frame size=FRAME
	stp	x29, x30, [sp, #-(\size)]!
	.cfi_def_cfa_offset \size
	.cfi_offset x29, -(\size)
	.cfi_offset x30, -(\size)+8
	mov	x29, sp
	.endm

	.macro	pop_frame size=FRAME, reg=x30
	ldp	x29, \reg, [sp], #\size
	.cfi_def_cfa_offset 0
	.cfi_restore x29
	.cfi_restore x30
	.endm

	.macro	save_args
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
#ifdef __ARM_FP
	stp	q0, q1, [sp, #96]
	stp	q2, q3, [sp, #128]
	stp	q4, q5, [sp, #160]
	stp	q6, q7, [sp, #192]
#endif
	.endm

	.macro	restore_args
#ifdef __ARM_FP
	ldp	q0, q1, [sp, #96]
	ldp	q2, q3, [sp, #128]
	ldp	q4, q5, [sp, #160]
	ldp	q6, q7, [sp, #192]
#endif
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	.endm

	.globl	_mcount
	.type	_mcount, %function
	.p2align 2
_mcount:
	.cfi_startproc
	hint	#34			/* bti c */
	ret
	.cfi_endproc
	.size	_mcount, . - _mcount

	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	.type	mc_rt_tramp_mcount, %function
	.p2align 2
mc_rt_tramp_mcount:
	.cfi_startproc
	hint	#34			/* bti c */
	adrp	x16, mc_rt_mcount_takeover
	ldr	x16, [x16, #:lo12:mc_rt_mcount_takeover]
	cbz	x16, mc_rt_tramp_mcount_body
	br	x16
	.globl	mc_rt_tramp_mcount_body
	.hidden	mc_rt_tramp_mcount_body
mc_rt_tramp_mcount_body:
	push_frame
	str	x8, [sp, #80]
	save_args
	ldr	x1, [x29]		/* the function's frame record */
	add	x1, x1, #8		/* where its return address is */
	mov	x0, x30			/* return address into the function */
	bl	mc_rt_dispatch_slot
	restore_args
	ldr	x8, [sp, #80]
	pop_frame
	ret
	.cfi_endproc
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/*
 * A -fpatchable-function-entry pad, once enabled, runs at the function's
 * entry (after `bti c`), before its prologue:
 *
 *	mov	x9, x30		the function's return address, in its caller
 *	bl	mc_rt_tramp_pad	x30 := back into the function
 *
 * The arguments are all still live, and x30 must be the function's own
 * return address again when it resumes.  Same frame as above, 16 bytes
 * larger: x9 goes to its top word, which is the word below the
 * function's stack pointer, its return address's slot for
 * mc_rt_dispatch_slot(x30, slot) (a recorder of exits swaps it there,
 * and keys the frame by the stack pointer one word above: recorder.h).
 * The return reloads x30 from that slot and branches to the function
 * through x9 (`ret x9`: a return, so BTI needs no landing pad there),
 * leaving x9, a scratch register no caller expects kept, pointing into
 * the function.  Disabled, the pad keeps its `mov x9, x30` and has `nop`
 * for the `bl` (the live form): x9 is written on every entry either
 * way, and only the `bl` decides whether this runs.
 */
#define PAD_FRAME (FRAME+16)
	.globl	mc_rt_tramp_pad
	.hidden	mc_rt_tramp_pad
	.type	mc_rt_tramp_pad, %function
	.p2align 2
mc_rt_tramp_pad:
	.cfi_startproc
	hint	#34			/* bti c */
	adrp	x16, mc_rt_fentry_takeover
	ldr	x16, [x16, #:lo12:mc_rt_fentry_takeover]
	cbz	x16, mc_rt_tramp_pad_body
	br	x16
	.globl	mc_rt_tramp_pad_body
	.hidden	mc_rt_tramp_pad_body
mc_rt_tramp_pad_body:
	push_frame PAD_FRAME
	str	x8, [sp, #80]
	str	x9, [sp, #PAD_FRAME-8]	/* the function's return address */
	save_args
	add	x1, sp, #PAD_FRAME-8	/* its slot */
	mov	x0, x30			/* return address into the function */
	bl	mc_rt_dispatch_slot
	restore_args
	ldr	x8, [sp, #80]
	ldr	x30, [sp, #PAD_FRAME-8]	/* x30 := the function's return address */
	pop_frame PAD_FRAME, x9		/* x9 := back into the function */
	ret	x9
	.cfi_endproc
	.size	mc_rt_tramp_pad, . - mc_rt_tramp_pad

/*
 * An empty, writable __mcount_loc input section, so that the output
 * section lds/mcount.lds makes is writable and a PIE's relocated table
 * lands in RELRO rather than creating DT_TEXTREL (see x86_64's).
 */
	.section __mcount_loc, "awo", %progbits, .text

#if defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT)
/* Tell the linker this object is BTI/PAC-clean (GNU property note). */
	.section .note.gnu.property, "a"
	.p2align 3
	.long	4			/* name size: "GNU\0" */
	.long	16			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000000		/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.long	4			/* data size */
	.long	3			/* BTI | PAC */
	.p2align 3
#endif

	.section .note.GNU-stack, "", %progbits
