/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - x86_64 hook targets and trampolines (AT&T syntax).
 *
 * The compiler's hooks call __fentry__ (-pg -mfentry: first instruction
 * of the function) or mcount (-pg: right after `push %rbp; mov %rsp,
 * %rbp`).  Both stubs here only return, so a hook reached before
 * mcount_boot() has run costs a call and nothing else.
 *
 * An enabled site calls one of the trampolines instead.  At that point
 * the function's arguments are still in registers (SysV ABI: %rdi %rsi
 * %rdx %rcx %r8 %r9, %xmm0-7, %al = vector count for varargs, %r10 =
 * static chain), so all of them are saved around the C call, which may
 * clobber any of them.  Only the low 128 bits of the vector registers
 * are kept: a callback using AVX can still clobber the upper halves of
 * __m256/__m512 arguments.  They call mc_rt_dispatch_slot with where the
 * function's return address lives (platform.h), which a recorder of
 * exits needs and the callback gets the value of.
 *
 * When a general-register slot hook is set (mc_rt_gpr_slot_hook,
 * platform.h), they call it directly and save only the general argument
 * registers: the hook promises to leave every vector and x87 register
 * alone.  %r11 is saved on neither path: it carries no argument and is
 * dead at a hook (GCC itself loads the hook's address into %r11 for its
 * call under -mcmodel=large), so it holds the hook's address here.
 *
 * Before either, a trampoline whose entry a client took over
 * (mc_rt_fentry_takeover, mc_rt_mcount_takeover: platform.h) jumps
 * there with nothing touched but %r11; the client's routine returns
 * into the function itself, or comes back through
 * mc_rt_tramp_fentry_gpr / mc_rt_tramp_mcount_gpr: the general-register
 * path, calling the hook in %r11.
 *
 * Stack on entry to the trampoline:
 *   fentry:  (%rsp) = return into the function (site + len)
 *            8(%rsp) = the function's own return address, in its caller
 *   mcount:  (%rsp) = return into the function
 *            %rbp = the function's frame; 8(%rbp) = its return address
 *
 * The frame is aligned to 16 bytes explicitly, so neither entry depends
 * on how far the function got through its prologue.
 *
 * endbr64 (a NOP on CPUs without CET) opens every entry: the stubs are
 * reached through `call *GOT` when ld does not relax the hook.
 */

#define SAVE_GPRS	(8 * 8)			/* rdi..r10 below */
#define SAVE_XMMS	(8 * 16)
#define FRAME		(SAVE_GPRS + SAVE_XMMS)	/* multiple of 16 */
#define GPR_FRAME	SAVE_GPRS

	.text

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	endbr64
	ret
	.cfi_endproc
	.size	__fentry__, . - __fentry__

	.globl	mcount
	.type	mcount, @function
	.p2align 4
mcount:
	.cfi_startproc
	endbr64
	ret
	.cfi_endproc
	.size	mcount, . - mcount

/*
 * Build a frame of `frame` bytes on %rbp, align %rsp, and save the
 * general argument registers (and %rax, %r10) at its bottom.
 */
.macro	SAVE_GPR_ARGS frame=GPR_FRAME
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$\frame, %rsp
	andq	$-16, %rsp
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
	movq	%r10, 56(%rsp)
.endm

/* SAVE_GPR_ARGS and the vector argument registers above them. */
.macro	SAVE_ARGS
	SAVE_GPR_ARGS FRAME
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, 80(%rsp)
	movaps	%xmm2, 96(%rsp)
	movaps	%xmm3, 112(%rsp)
	movaps	%xmm4, 128(%rsp)
	movaps	%xmm5, 144(%rsp)
	movaps	%xmm6, 160(%rsp)
	movaps	%xmm7, 176(%rsp)
.endm

.macro	LOAD_GPR_ARGS
	movq	0(%rsp), %rdi
	movq	8(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	24(%rsp), %rcx
	movq	32(%rsp), %r8
	movq	40(%rsp), %r9
	movq	48(%rsp), %rax
	movq	56(%rsp), %r10
.endm

/* Drop the frame and return into the hooked function. */
.macro	LEAVE_RET
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
.endm

/* Undo SAVE_GPR_ARGS and return. */
.macro	RESTORE_GPR_ARGS_RET
	LOAD_GPR_ARGS
	LEAVE_RET
.endm

/* Undo SAVE_ARGS and return. */
.macro	RESTORE_ARGS_RET
	LOAD_GPR_ARGS
	movaps	64(%rsp), %xmm0
	movaps	80(%rsp), %xmm1
	movaps	96(%rsp), %xmm2
	movaps	112(%rsp), %xmm3
	movaps	128(%rsp), %xmm4
	movaps	144(%rsp), %xmm5
	movaps	160(%rsp), %xmm6
	movaps	176(%rsp), %xmm7
	LEAVE_RET
.endm

	.globl	mc_rt_tramp_fentry
	.hidden	mc_rt_tramp_fentry
	.type	mc_rt_tramp_fentry, @function
	.p2align 4
mc_rt_tramp_fentry:
	.cfi_startproc
	endbr64
	movq	mc_rt_fentry_takeover(%rip), %r11
	testq	%r11, %r11
	jnz	2f
	movq	mc_rt_gpr_slot_hook(%rip), %r11
	testq	%r11, %r11
	jnz	1f
	SAVE_ARGS
	movq	8(%rbp), %rdi		/* return into the function */
	leaq	16(%rbp), %rsi		/* where its return address is */
	call	mc_rt_dispatch_slot
	RESTORE_ARGS_RET
2:	jmp	*%r11
	.globl	mc_rt_tramp_fentry_gpr
	.hidden	mc_rt_tramp_fentry_gpr
mc_rt_tramp_fentry_gpr:
1:	SAVE_GPR_ARGS
	movq	8(%rbp), %rdi
	leaq	16(%rbp), %rsi
	call	*%r11
	RESTORE_GPR_ARGS_RET
	.cfi_endproc
	.size	mc_rt_tramp_fentry, . - mc_rt_tramp_fentry

	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	.type	mc_rt_tramp_mcount, @function
	.p2align 4
mc_rt_tramp_mcount:
	.cfi_startproc
	endbr64
	movq	mc_rt_mcount_takeover(%rip), %r11
	testq	%r11, %r11
	jnz	2f
	movq	mc_rt_gpr_slot_hook(%rip), %r11
	testq	%r11, %r11
	jnz	1f
	SAVE_ARGS
	movq	8(%rbp), %rdi		/* return into the function */
	movq	0(%rbp), %rsi		/* the function's frame pointer */
	addq	$8, %rsi		/* where its return address is */
	call	mc_rt_dispatch_slot
	RESTORE_ARGS_RET
2:	jmp	*%r11
	.globl	mc_rt_tramp_mcount_gpr
	.hidden	mc_rt_tramp_mcount_gpr
mc_rt_tramp_mcount_gpr:
1:	SAVE_GPR_ARGS
	movq	8(%rbp), %rdi
	movq	0(%rbp), %rsi
	addq	$8, %rsi
	call	*%r11
	RESTORE_GPR_ARGS_RET
	.cfi_endproc
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/*
 * An empty, writable __mcount_loc input section.  GCC's -mrecord-mcount
 * marks its tables read-only ("a"); ld gives the output section the
 * union of its inputs' flags, so this makes lds/mcount.lds's output
 * section writable and a PIE's relative relocations of the table land in
 * RELRO instead of creating DT_TEXTREL.
 *
 * Linked to this file's .text (SHF_LINK_ORDER, "o"), so that under
 * --gc-sections it lives exactly as long as the runtime does.  mold
 * makes one output section per name and set of flags: with no script
 * this empty piece may stand beside a second __mcount_loc, which the
 * runtime and --check ignore because it is empty.
 */
	.section __mcount_loc, "awo", @progbits, .text

#ifdef __CET__
/* Tell the linker this object is IBT/SHSTK-clean (GNU property note). */
	.section .note.gnu.property, "a"
	.p2align 3
	.long	4			/* name size: "GNU\0" */
	.long	16			/* descriptor size */
	.long	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002		/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4			/* data size */
	.long	__CET__			/* 1 = IBT, 2 = SHSTK */
	.p2align 3
#endif

	.section .note.GNU-stack, "", @progbits
