/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bad-aarch64.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (GCC's -pg sequence; with -DRT_PAD, for the
 * pad cases, a pad of two NOPs) but is listed twice.
 */
	.text

	.globl	bad_site
	.type	bad_site, %function
	.p2align 4
bad_site:
	add	w0, w0, #1		/* not a hook: must stay as is */
	ret
	.size	bad_site, . - bad_site

	.globl	dup_site
	.type	dup_site, %function
	.p2align 4
dup_site:
#ifdef RT_PAD
1:	nop				/* a pad of two NOPs */
	nop
	add	w0, w0, #2
	ret
#else
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x19, [sp, #16]
	mov	w19, w0
	mov	x0, x30
1:	bl	_mcount
	add	w0, w19, #2
	ldr	x19, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
#endif
	.size	dup_site, . - dup_site

/* A call target that only returns, for the test's corrupted site. */
	.globl	rt_dummy
	.type	rt_dummy, %function
	.p2align 4
rt_dummy:
	ret
	.size	rt_dummy, . - rt_dummy

#ifdef RT_PAD
/* What the test writes over fx_victim's pad: harmless, and no NOP. */
	.section .rodata
	.globl	pad_junk, pad_junk_end
pad_junk:
	mov	x9, x30			/* half an enabled pad */
pad_junk_end:
#endif

	.section __mcount_loc, "a", %progbits
	.quad	bad_site
	.quad	1b
	.quad	1b

	.section .note.GNU-stack, "", %progbits
