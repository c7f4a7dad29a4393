/*
 * bad-i386.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook but is listed twice.  Both tables use the
 * same section GCC's -mrecord-mcount uses.
 */
	.text

	.globl	bad_site
	.type	bad_site, @function
	.p2align 4
bad_site:
	movl	4(%esp), %eax		/* not a hook: must stay as is */
	addl	$1, %eax
	ret
	.size	bad_site, . - bad_site

	.globl	dup_site
	.type	dup_site, @function
	.p2align 4
dup_site:
1:	call	__fentry__
	movl	4(%esp), %eax
	addl	$2, %eax
	ret
	.size	dup_site, . - dup_site

/* A call target that only returns, for the test's corrupted site. */
	.globl	rt_dummy
	.type	rt_dummy, @function
	.p2align 4
rt_dummy:
	ret
	.size	rt_dummy, . - rt_dummy

	.section __mcount_loc, "a", @progbits
	.long	bad_site
	.long	1b
	.long	1b

	.section .note.GNU-stack, "", @progbits
