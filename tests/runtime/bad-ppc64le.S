/*
 * bad-ppc64le.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (the -mprofile-kernel form) but is listed
 * twice.  Both tables use the same section GCC's -mrecord-mcount uses.
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
	mflr	%r0
1:	bl	_mcount
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

	.section __mcount_loc, "a", @progbits
	.quad	bad_site
	.quad	1b
	.quad	1b

	.section .note.GNU-stack, "", @progbits
