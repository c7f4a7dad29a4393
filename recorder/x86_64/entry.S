/* SPDX-License-Identifier: MIT */
/*
 * entry.S - the x86_64 recorder's entry, fused with the runtime's
 * trampoline (AT&T syntax).
 *
 * The runtime's mc_rt_tramp_fentry and mc_rt_tramp_mcount jump here
 * before they build a frame or save a register (runtime/platform.h,
 * mc_rt_set_entry_takeover): rec_fentry and rec_mcount do rec_entry's
 * common case (record.c) in place of the trampoline's frame, its eight
 * saved registers, the indirect call and rec_entry's own prologue.
 * They save only the four registers they use, with pushes: nothing is
 * called, so the stack needs no alignment.  %r11 is free (platform.h).
 *
 * The common case is rec_entry's, test for test: not busy and
 * recording; then, busy, the thread known, the slot on its stack, the
 * depth below max_open, the ring's room up to its mark for this entry,
 * its exit and the exits of every open frame, the key below the top
 * frame's (the guard's is above every key) and the slot not already
 * leading to rec_return_tramp (a tail call).  It pushes the frame,
 * writes the entry event (rdtsc), swaps the return address for
 * rec_return_tramp and clears busy.  Anything else clears busy, having
 * changed nothing, and goes on through the trampoline's own
 * general-register path (mc_rt_tramp_*_gpr) to rec_entry, which tests
 * again and takes it to entry_slow.  Busy is set before the thread's
 * state is read, as rec_entry sets it, so a signal handler that runs
 * traced code between two of these instructions is not recorded
 * (rec_entry returns at once) and cannot change the state read here.
 *
 * Where it is on entry:
 *   rec_fentry:  (%rsp) = return into the function, which names it;
 *                the function's return address at 8(%rsp), the slot
 *   rec_mcount:  (%rsp) = the same; %rbp = the function's frame, its
 *                return address at 8(%rbp)
 * The offsets into the recorder's structs are entry.h's, which
 * record.c checks against recorder.h.  `self` and `busy` are one
 * initial-exec TLS block (struct rec_tls): one GOT load gives both
 * (none, in an executable, where the linker makes it a constant).
 * Vector and x87 registers are never named (tests/trace/check.py's
 * `gpr` check reads this code too).
 */
#include "entry.h"

#define SAVED	(4 * 8)		/* %rax %rcx %rdx %rsi, pushed */

.macro	SAVE_REG reg
	pushq	\reg
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset \reg, 0
.endm

.macro	LOAD_REG reg
	popq	\reg
	.cfi_adjust_cfa_offset -8
	.cfi_restore \reg
.endm

/*
 * FUSED_ENTRY name, slot, gpr, hook, args: the entry `name`, whose
 * function's return address is at `slot` once SAVED bytes are pushed,
 * falling back to the trampoline path `gpr`, which calls `hook`.  With
 * `args` (a recording that captures values, recorder/args.c), a
 * function whose mark is set in rec_args_map goes that way at once, to
 * rec_entry_args: a byte read by its return address, which names it
 * (another that shares its byte only goes the longer way).
 */
.macro	FUSED_ENTRY name, slot, gpr, hook=rec_entry, args=0
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	endbr64
	movq	rec_tls@gottpoff(%rip), %r11
	cmpb	$0, %fs:REC_TLS_BUSY(%r11)
	jne	2f			/* in the recorder: not recorded */
	cmpb	$0, rec_on(%rip)
	je	2f
	movb	$1, %fs:REC_TLS_BUSY(%r11)
	SAVE_REG	%rax
	SAVE_REG	%rcx
	SAVE_REG	%rdx
	SAVE_REG	%rsi
	.if \args
	movq	SAVED(%rsp), %rax		/* func */
	shrq	$REC_ARGS_MAP_SHIFT, %rax
	andl	$REC_ARGS_MAP_MASK, %eax
	leaq	rec_args_map(%rip), %rcx
	cmpb	$0, (%rcx,%rax)
	jne	3f				/* its values are captured */
	.endif
	movq	%fs:REC_TLS_SELF(%r11), %rsi	/* t */
	leaq	\slot, %rcx			/* slot */
	testq	%rsi, %rsi
	jz	3f
	cmpq	REC_T_STACK_LO(%rsi), %rcx
	jb	3f
	cmpq	REC_T_STACK_HI(%rsi), %rcx
	jae	3f
	movq	REC_T_DEPTH(%rsi), %rdx		/* d */
	cmpq	REC_T_MAX_OPEN(%rsi), %rdx
	jae	3f
	movq	REC_T_HEAD(%rsi), %rax		/* head - tail_seen + d + 2 */
	subq	REC_T_TAIL_SEEN(%rsi), %rax
	leaq	2(%rax,%rdx), %rax
	cmpq	REC_T_MARK(%rsi), %rax
	ja	3f
	imulq	$REC_F_SIZE, %rdx, %r11
	addq	REC_T_FRAMES(%rsi), %r11	/* f = &frames[d] */
	movq	(%rcx), %rdx			/* orig = *slot */
	leaq	rec_return_tramp(%rip), %rax
	cmpq	%rax, %rdx
	je	3f				/* a tail call */
	leaq	REC_KEY_FROM_SLOT(%rcx), %rax	/* key */
	cmpq	%rax, REC_F_KEY - REC_F_SIZE(%r11)
	jbe	3f				/* f[-1].key <= key */
	movq	%rax, REC_F_KEY(%r11)
	movq	%rcx, REC_F_SLOT(%r11)
	movq	%rdx, REC_F_ORIG(%r11)
	movq	SAVED(%rsp), %rax		/* func */
	movq	%rax, REC_F_FUNC(%r11)
	movl	$0, REC_F_FLAGS(%r11)		/* !restored, !copy, !value */
	incq	REC_T_DEPTH(%rsi)
	leaq	rec_return_tramp(%rip), %rdx
	movq	%rdx, (%rcx)			/* *slot = rec_return_tramp */
	movq	REC_T_HEAD(%rsi), %rcx		/* the event at head */
	movq	%rcx, %r11
	andq	REC_T_MASK(%rsi), %r11
	shlq	$REC_E_SIZE_SHIFT, %r11
	addq	REC_T_RING(%rsi), %r11
	movq	%rax, REC_E_FUNC(%r11)
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	leaq	REC_E_ENTRY(, %rax, 1 << REC_E_KIND_BITS), %rax
	movq	%rax, REC_E_WORD(%r11)
	incq	%rcx
	/* a plain store releases on x86: the writer sees the event first */
	movq	%rcx, REC_T_HEAD(%rsi)
	.cfi_remember_state
	LOAD_REG	%rsi
	LOAD_REG	%rdx
	LOAD_REG	%rcx
	LOAD_REG	%rax
	movq	rec_tls@gottpoff(%rip), %r11
	movb	$0, %fs:REC_TLS_BUSY(%r11)
2:	ret
	.cfi_restore_state
3:	LOAD_REG	%rsi
	LOAD_REG	%rdx
	LOAD_REG	%rcx
	LOAD_REG	%rax
	movq	rec_tls@gottpoff(%rip), %r11
	movb	$0, %fs:REC_TLS_BUSY(%r11)
	leaq	\hook(%rip), %r11
	jmp	\gpr
	.cfi_endproc
	.size	\name, . - \name
.endm

	.text
	FUSED_ENTRY	rec_fentry, SAVED+8(%rsp), mc_rt_tramp_fentry_gpr
	FUSED_ENTRY	rec_mcount, 8(%rbp), mc_rt_tramp_mcount_gpr
	FUSED_ENTRY	rec_fentry_args, SAVED+8(%rsp), \
			mc_rt_tramp_fentry_gpr, rec_entry_args, 1
	FUSED_ENTRY	rec_mcount_args, 8(%rbp), \
			mc_rt_tramp_mcount_gpr, rec_entry_args, 1

/*
 * rec_entry_args(func, slot): the slot hook while values are captured
 * (args.c), which the fused entries' *_args leave the functions marked
 * to, and the others they cannot take; the trampolines' general-register
 * paths call it with the
 * argument registers saved at the bottom of their frame, just above our
 * return address: %rdi %rsi %rdx %rcx %r8 %r9, the psABI's order
 * (runtime/x86_64/trampoline.S, SAVE_GPR_ARGS).  rec_entry_regs gets
 * where they are.
 */
	.globl	rec_entry_args
	.hidden	rec_entry_args
	.type	rec_entry_args, @function
	.p2align 4
rec_entry_args:
	.cfi_startproc
	endbr64
	leaq	8(%rsp), %rdx
	jmp	rec_entry_regs
	.cfi_endproc
	.size	rec_entry_args, . - rec_entry_args

	.section .note.GNU-stack, "", @progbits
