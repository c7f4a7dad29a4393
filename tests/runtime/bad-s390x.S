/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bad-s390x.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (the -mfentry form; with -DRT_PAD, for the
 * pad cases, a pad of three `nopr`) but is listed twice.
 * Both tables use the same section GCC's -mrecord-mcount uses.  The
 * entries name local labels: s390x's ld would keep an R_390_64 against
 * the global bad_site in a PIE, where the test expects RELATIVE ones.
 */
	.text

	.globl	bad_site
	.type	bad_site, @function
	.p2align 3
bad_site:
0:	ahi	%r2, 1			/* not a hook: must stay as is */
	br	%r14
	.size	bad_site, . - bad_site

	.globl	dup_site
	.type	dup_site, @function
	.p2align 3
dup_site:
#ifdef RT_PAD
1:	nopr				/* a pad: three `nopr` (07 00) */
	nopr
	nopr
#else
1:	brasl	%r0, __fentry__@PLT
#endif
	ahi	%r2, 2
	br	%r14
	.size	dup_site, . - dup_site

/*
 * A call target that only returns, for the test's corrupted site, which
 * is either hook: from a -pg block (`brasl %r14`) %r14 points at the
 * block's `lg %r14,8(%r15)`; otherwise it came from `brasl %r0` and
 * returns through %r0 (by way of %r1, as __fentry__ does).
 */
	.globl	rt_dummy
	.type	rt_dummy, @function
	.p2align 3
rt_dummy:
	larl	%r1, 2f
	clc	0(6, %r14), 0(%r1)
	je	3f
	lgr	%r1, %r0
	br	%r1
3:	br	%r14
	.p2align 1
2:	lg	%r14, 8(%r15)		/* the bytes to compare with */
	.size	rt_dummy, . - rt_dummy

#ifdef RT_PAD
/*
 * A pad of two `nopr`, too short for the 6-byte call: refused (rt_test
 * and run.sh expect it, with its reason).
 */
	.globl	short_pad
	.type	short_pad, @function
	.p2align 3
short_pad:
4:	nopr
	nopr
	ahi	%r2, 3
	br	%r14
	.size	short_pad, . - short_pad

/*
 * What the test writes over fx_victim's pad: harmless if run (three `lr
 * %r1,%r1`), and no pad NOP.
 */
	.section .rodata
	.globl	pad_junk, pad_junk_end
pad_junk:
	lr	%r1, %r1
	lr	%r1, %r1
	lr	%r1, %r1
pad_junk_end:
#endif

	.section __mcount_loc, "a", @progbits
	.quad	0b			/* local: a RELATIVE relocation in a PIE */
	.quad	1b
	.quad	1b
#ifdef RT_PAD
	.quad	4b
#endif

	.section .note.GNU-stack, "", @progbits
