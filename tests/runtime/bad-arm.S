/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bad-arm.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (GCC's `push {lr}; bl __gnu_mcount_nc`; with
 * -DRT_PAD, for the pad cases, a pad of NOPs) but is listed twice.  dup_site and rt_dummy are in the compiler's
 * instruction set (Thumb-2 by default, ARM with -marm), like the
 * fixtures; bad_site is always ARM code, so that its address, which
 * rt_test compares with the table entry, has no Thumb bit.
 */
	.syntax	unified
	.text

	.arm
	.globl	bad_site
	.type	bad_site, %function
	.p2align 4
bad_site:
	add	r0, r0, #1		/* not a hook: must stay as is */
	bx	lr
	.size	bad_site, . - bad_site

#ifdef __thumb__
	.thumb
#define FUNC(name)	.type name, %function; .thumb_func
#else
#define FUNC(name)	.type name, %function
#endif

	.globl	dup_site
	FUNC(dup_site)
	.p2align 4
dup_site:
#ifdef RT_PAD
#ifdef __thumb__
1:	nop				/* a pad of three Thumb NOPs */
	nop
	nop
#else
1:	nop				/* a pad of two ARM NOPs */
	nop
#endif
#else
	push	{lr}
1:	bl	__gnu_mcount_nc
#endif
	adds	r0, r0, #2
	bx	lr
	.size	dup_site, . - dup_site

/*
 * A call target for the test's corrupted site: it must pop the word the
 * hook pushed, as __gnu_mcount_nc does, or the victim's stack is off.
 */
	.globl	rt_dummy
	FUNC(rt_dummy)
	.p2align 4
rt_dummy:
	mov	ip, lr
	pop	{lr}
	bx	ip
	.size	rt_dummy, . - rt_dummy

#ifdef RT_PAD
/*
 * What the test writes over fx_victim's pad: harmless if run, and no
 * pad NOP, in the fixtures' instruction set.
 */
	.section .rodata
	.globl	pad_junk, pad_junk_end
pad_junk:			/* the whole window the call would take */
#ifdef __thumb__
	mov	r8, r8
	mov	r8, r8
	mov	r8, r8
#else
	mov	ip, ip
	mov	ip, ip
#endif
pad_junk_end:
#endif

	.section __mcount_loc, "a", %progbits
	.long	bad_site
	.long	1b
	.long	1b

	.section .note.GNU-stack, "", %progbits
