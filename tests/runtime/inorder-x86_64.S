/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * inorder-x86_64.S - a table in order whose hook calls are interrupted
 * by a call to something else, for inorder.c.
 *
 * The boot pass classifies the first hook in full, then takes the
 * hooks that decode to the same call on its short way
 * (boot_calls_now).  other_call's entry is a call too, of the same
 * length, but to rt_other: it must be refused and left as it is, and
 * the hooks after it still written.  io_jump's entry is a jump to the
 * hook stub: its displacement is a hook call's, only its opcode byte
 * differs, so it is refused and left as it is too (the short way
 * compares every byte before the displacement).  The 0 entry is one the
 * tool cleared: skipped, not counted.
 */
	.text

	.macro	hooked name
	.globl	\name
	.type	\name, @function
	.p2align 4
\name:
	call	__fentry__
	ret
	.size	\name, . - \name
	.endm

	hooked	io_h1
	hooked	io_h2

	.globl	io_jump
	.type	io_jump, @function
	.p2align 4
io_jump:
	jmp	__fentry__		/* the hook's displacement, no call */
	ret
	.size	io_jump, . - io_jump

	.globl	io_other
	.type	io_other, @function
	.p2align 4
io_other:
	call	rt_other		/* a call, but to no hook stub */
	ret
	.size	io_other, . - io_other

	hooked	io_h3
	hooked	io_h4

	.globl	rt_other
	.type	rt_other, @function
	.p2align 4
rt_other:
	ret
	.size	rt_other, . - rt_other

	.section __mcount_loc, "a", @progbits
	.quad	io_h1
	.quad	io_h2
	.quad	io_jump
	.quad	io_other
	.quad	io_h3
	.quad	0
	.quad	io_h4

	.section .note.GNU-stack, "", @progbits
