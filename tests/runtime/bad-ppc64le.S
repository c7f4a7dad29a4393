/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bad-ppc64le.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (the -mprofile-kernel form; with -DRT_PAD,
 * for the pad cases, a pad of two NOPs) but is listed twice.  Both tables use the same section GCC's -mrecord-mcount uses.
 * None of these functions needs the TOC: one entry point each.
 */
	.abiversion 2
	.text

	.globl	bad_site
	.type	bad_site, @function
	.p2align 4
bad_site:
	addi	%r3, %r3, 1		/* not a hook: must stay as is */
	blr
	.size	bad_site, . - bad_site

	.globl	dup_site
	.type	dup_site, @function
	.p2align 4
dup_site:
#ifdef RT_PAD
1:	nop				/* a pad of two NOPs */
	nop
#else
	mflr	%r0
1:	bl	_mcount
#endif
	addi	%r3, %r3, 2
	blr
	.size	dup_site, . - dup_site

/*
 * A call target that only returns, for the test's corrupted site: as
 * _mcount does, back through CTR with LR set to r0, which suits both
 * hook styles.
 */
	.globl	rt_dummy
	.type	rt_dummy, @function
	.p2align 4
rt_dummy:
	mflr	%r12
	mtctr	%r12
	mtlr	%r0
	bctr
	.size	rt_dummy, . - rt_dummy

#ifdef RT_PAD
/* One NOP, too short for `mflr r0; bl`: refused, with its reason. */
	.globl	short_pad
	.type	short_pad, @function
	.p2align 4
short_pad:
	nop
	addi	%r3, %r3, 3
	blr
	.size	short_pad, . - short_pad

/*
 * The layout of GCC 13 and later for a function that needs the TOC: the
 * pad after the global entry's TOC set-up, at the local entry point,
 * where a direct call (rt_test's) enters.  Patched and traced.
 */
	.globl	local_pad
	.type	local_pad, @function
	.p2align 4
local_pad:
2:	addis	%r2, %r12, .TOC. - 2b@ha
	addi	%r2, %r2, .TOC. - 2b@l
	.localentry local_pad, . - local_pad
3:	nop
	nop
	addi	%r3, %r3, 4
	blr
	.size	local_pad, . - local_pad

/* What the test writes over fx_victim's pad: harmless, no pad NOP. */
	.section .rodata
	.globl	pad_junk, pad_junk_end
pad_junk:
	ori	%r2, %r2, 0
	ori	%r2, %r2, 0
pad_junk_end:
#endif

	.section __mcount_loc, "a", @progbits
	.quad	bad_site
	.quad	1b
	.quad	1b
#ifdef RT_PAD
	.quad	short_pad
	.quad	3b
#endif

	.section .note.GNU-stack, "", @progbits
