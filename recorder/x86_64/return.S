/* SPDX-License-Identifier: MIT */
/*
 * return.S - the x86_64 return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address over a traced function's
 * return address, so the function's `ret` lands here with %rsp just
 * above the slot it returned through: rec_exit(%rsp) writes the exit
 * event and gives back the real return address, and we jump there (or
 * here again: a tail-called function's frame returns to its caller's,
 * which returns from the same slot).
 *
 * On arrival only the return registers are live (SysV: %rax and %rdx,
 * %xmm0 and %xmm1, %st0 and %st1); the other registers a callee may
 * clobber are free.  The common case, the top frame returning with its
 * key, is rec_exit's done here, without a call: busy set (and put back
 * as it was, since an exit may come while a signal handler's traced
 * code runs in the recorder), the frame popped, the exit event written
 * (rdtsc) and the real return address jumped to, %rax and %rdx kept
 * in %r8 and %r9.  Anything else (no thread, frames left by longjmp,
 * a function that popped its arguments) goes to rec_exit, with only
 * %rax and %rdx saved: rec_exit is built with -mgeneral-regs-only
 * (recorder.mk, REC_GPR_ONLY), so no path of it that returns touches a
 * vector or x87 register (tests/trace/check.py's `gpr` check reads its
 * code and this one to make sure).  The stack is aligned there for the
 * call, not assumed to be: a function that was tail-called or
 * realigned its stack may leave it either way.  The offsets are
 * entry.h's, checked by record.c.
 *
 * The trampoline has no frame the unwinder can use: an exception never
 * reaches it, since the recorder writes the real addresses back before
 * any unwind starts (wrap.c).  Its CFI says so (return address
 * undefined), and covers the byte before it, which is what an unwinder
 * looks up for a frame that returns here: a backtrace, or glibc's
 * forced unwind of pthread_exit, ends at a hijacked frame as at the
 * outermost one.
 */
#include "entry.h"

/*
 * The frame of the slow path's calls to rec_exit and rec_exit_value:
 * the stack aligned below a frame pointer, the return registers (%rax,
 * %rdx) kept on it, and both loaded back.
 */
	.macro	save_returned
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	pushq	%rax
	pushq	%rdx
	.endm

	.macro	load_returned
	popq	%rdx
	popq	%rax
	movq	%rbp, %rsp
	popq	%rbp
	.endm

	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.type	rec_return_tramp, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined rip
	nop		/* an unwinder looks up the FDE of our address - 1 */
rec_return_tramp:
	movq	%rax, %r8			/* the return value */
	movq	%rdx, %r9
	movq	rec_tls@gottpoff(%rip), %r11
	movzbl	%fs:REC_TLS_BUSY(%r11), %r10d	/* as it was */
	movb	$1, %fs:REC_TLS_BUSY(%r11)
	movq	%fs:REC_TLS_SELF(%r11), %rsi	/* t */
	testq	%rsi, %rsi
	jz	1f
	movq	REC_T_DEPTH(%rsi), %rcx
	imulq	$REC_F_SIZE, %rcx, %rdi
	addq	REC_T_FRAMES(%rsi), %rdi	/* the top frame is below */
	cmpq	%rsp, REC_F_KEY - REC_F_SIZE(%rdi)
	jne	1f				/* (depth 0: the guard's) */
	decq	%rcx
	movq	%rcx, REC_T_DEPTH(%rsi)
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	leaq	REC_E_EXIT(, %rax, 1 << REC_E_KIND_BITS), %rax
	movq	REC_T_HEAD(%rsi), %rcx		/* the event at head */
	movq	%rcx, %rdx
	andq	REC_T_MASK(%rsi), %rdx
	shlq	$REC_E_SIZE_SHIFT, %rdx
	addq	REC_T_RING(%rsi), %rdx
	movq	%rax, REC_E_WORD(%rdx)
	movq	REC_F_FUNC - REC_F_SIZE(%rdi), %rax
	movq	%rax, REC_E_FUNC(%rdx)
	incq	%rcx
	/* a plain store releases on x86: the writer sees the event first */
	movq	%rcx, REC_T_HEAD(%rsi)
	movq	REC_F_ORIG - REC_F_SIZE(%rdi), %rcx
	movb	%r10b, %fs:REC_TLS_BUSY(%r11)
	movq	%r8, %rax
	movq	%r9, %rdx
	jmp	*%rcx
1:	movb	%r10b, %fs:REC_TLS_BUSY(%r11)
	movq	%r8, %rax
	movq	%r9, %rdx
	save_returned
	leaq	8(%rbp), %rdi		/* the stack pointer after the ret */
	call	rec_exit
	movq	%rax, %r11		/* where the function returns to */
	load_returned
	jmp	*%r11
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): rec_exit_value(sp, %rax) writes the value and the exit and
 * gives back the real return address, %rax and %rdx kept as
 * rec_return_tramp's own slow path keeps them.  Its CFI is the same.
 */
	.text
	.globl	rec_return_value_tramp
	.hidden	rec_return_value_tramp
	.type	rec_return_value_tramp, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined rip
	nop		/* an unwinder looks up the FDE of our address - 1 */
rec_return_value_tramp:
	save_returned
	leaq	8(%rbp), %rdi		/* the stack pointer after the ret */
	movq	%rax, %rsi		/* the value */
	call	rec_exit_value
	movq	%rax, %r11		/* where the function returns to */
	load_returned
	jmp	*%r11
	.cfi_endproc
	.size	rec_return_value_tramp, . - rec_return_value_tramp

/*
 * struct rec_thread *rec_keeping_vectors(struct rec_thread *(*fn)(void)):
 * fn(), with the vector argument registers (%xmm0-7, their low 128
 * bits, as the runtime's full trampolines keep them) as they were.
 * rec_entry, built for general registers only, calls libc this way
 * when it sets up a thread: the traced function's floating-point
 * arguments are still in those registers.
 */
	.text
	.globl	rec_keeping_vectors
	.hidden	rec_keeping_vectors
	.type	rec_keeping_vectors, @function
	.p2align 4
rec_keeping_vectors:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$128, %rsp
	andq	$-16, %rsp
	movaps	%xmm0, 0(%rsp)
	movaps	%xmm1, 16(%rsp)
	movaps	%xmm2, 32(%rsp)
	movaps	%xmm3, 48(%rsp)
	movaps	%xmm4, 64(%rsp)
	movaps	%xmm5, 80(%rsp)
	movaps	%xmm6, 96(%rsp)
	movaps	%xmm7, 112(%rsp)
	call	*%rdi
	movaps	0(%rsp), %xmm0
	movaps	16(%rsp), %xmm1
	movaps	32(%rsp), %xmm2
	movaps	48(%rsp), %xmm3
	movaps	64(%rsp), %xmm4
	movaps	80(%rsp), %xmm5
	movaps	96(%rsp), %xmm6
	movaps	112(%rsp), %xmm7
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	rec_keeping_vectors, . - rec_keeping_vectors


	.section .note.GNU-stack, "", @progbits
