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
 * %xmm0 and %xmm1, and %st0/%st1 for long double, which C code that does
 * no x87 arithmetic leaves alone); %r11 is free for the jump.  The
 * stack is aligned here for the call, not assumed to be: a function
 * that was tail-called or realigned its stack may leave it either way.
 *
 * The trampoline has no frame the unwinder can use: an exception never
 * reaches it, since the recorder writes the real addresses back before
 * any unwind starts (wrap.c).  Its CFI says so (return address
 * undefined), and covers the byte before it, which is what an unwinder
 * looks up for a frame that returns here: a backtrace, or glibc's
 * forced unwind of pthread_exit, ends at a hijacked frame as at the
 * outermost one.
 */
	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.type	rec_return_tramp, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined rip
	nop		/* an unwinder looks up the FDE of our address - 1 */
rec_return_tramp:
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	subq	$48, %rsp
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movaps	%xmm0, 16(%rsp)
	movaps	%xmm1, 32(%rsp)
	leaq	8(%rbp), %rdi		/* the stack pointer after the ret */
	call	rec_exit
	movq	%rax, %r11		/* where the function returns to */
	movq	0(%rsp), %rax
	movq	8(%rsp), %rdx
	movaps	16(%rsp), %xmm0
	movaps	32(%rsp), %xmm1
	movq	%rbp, %rsp
	popq	%rbp
	jmp	*%r11
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp

	.section .rodata
	.globl	rec_arch_ok
	.hidden	rec_arch_ok
rec_arch_ok:
	.byte	1
	.globl	rec_arch_name
	.hidden	rec_arch_name
rec_arch_name:
	.asciz	"x86_64"

	.section .note.GNU-stack, "", @progbits
