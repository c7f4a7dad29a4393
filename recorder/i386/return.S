/* SPDX-License-Identifier: MIT */
/*
 * return.S - the i386 return trampoline of the recorder.
 *
 * rec_entry (record.c) writes this address over a traced function's
 * return address, so the function's `ret` lands here with %esp just
 * above the slot it returned through, its frame's key: rec_exit(%esp)
 * writes the exit event and gives back the real return address, and we
 * jump there (or here again: a tail-called function returns through its
 * caller's slot).  A function that pops its own arguments (`ret $4`, for
 * a struct returned in memory) arrives with %esp that much higher,
 * which rec_exit allows for.
 *
 * On arrival the return registers are live: %eax and %edx (64-bit
 * values), and the x87 stack's %st0 (and %st1 for a complex long
 * double).  rec_exit is C that does no floating-point arithmetic; at most
 * a 64-bit atomic load or store of its may go through the x87 stack
 * (fild/fistp), which pushes and pops above what is there and leaves it
 * as it found it.  Vector registers are not used by the recorder, built
 * for i686 (no SSE).  %ecx is free for the jump.  The stack is aligned
 * here for the call.
 *
 * Like x86_64's, this has no frame an unwinder can step through: its CFI
 * says the return address is undefined, and covers the byte before it
 * (see recorder/x86_64/return.S).
 */
/*
 * The frame of the calls to rec_exit and rec_exit_value: the return
 * registers (%eax, %edx) kept below a frame pointer, the stack then
 * aligned for the call, and both loaded back.
 */
	.macro	save_returned
	pushl	%ebp
	movl	%esp, %ebp
	pushl	%eax			/* -4(%ebp) */
	pushl	%edx			/* -8(%ebp) */
	andl	$-16, %esp
	.endm

	.macro	load_returned
	movl	-8(%ebp), %edx
	movl	-4(%ebp), %eax
	movl	%ebp, %esp
	popl	%ebp
	.endm

	.text
	.globl	rec_return_tramp
	.hidden	rec_return_tramp
	.hidden	rec_exit
	.type	rec_return_tramp, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined eip
	nop		/* an unwinder looks up the FDE of our address - 1 */
rec_return_tramp:
	save_returned
	subl	$12, %esp
	leal	4(%ebp), %eax		/* the stack pointer after the ret */
	pushl	%eax
	call	rec_exit
	movl	%eax, %ecx		/* where the function returns to */
	load_returned
	jmp	*%ecx
	.cfi_endproc
	.size	rec_return_tramp, . - rec_return_tramp

/*
 * The return trampoline of a function whose return value is captured
 * (args.c): the same frame, and rec_exit_value(sp, %eax), which writes
 * the value and the exit and gives back the real return address.
 */
	.globl	rec_return_value_tramp
	.hidden	rec_return_value_tramp
	.hidden	rec_exit_value
	.type	rec_return_value_tramp, @function
	.p2align 4
	.cfi_startproc
	.cfi_undefined eip
	nop		/* an unwinder looks up the FDE of our address - 1 */
rec_return_value_tramp:
	save_returned
	subl	$8, %esp
	pushl	%eax			/* the value */
	leal	4(%ebp), %eax		/* the stack pointer after the ret */
	pushl	%eax
	call	rec_exit_value
	movl	%eax, %ecx		/* where the function returns to */
	load_returned
	jmp	*%ecx
	.cfi_endproc
	.size	rec_return_value_tramp, . - rec_return_value_tramp

	.section .note.GNU-stack, "", @progbits
