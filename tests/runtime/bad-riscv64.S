/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bad-riscv64.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (GCC's -pg sequence; with -DRT_PAD, for the
 * pad cases, a pad of four NOPs) but is listed twice; without -DRT_PAD,
 * rt_unknown_site and rt_nosym_site are real hooks whose caller the
 * runtime cannot locate (below).
 * `call` is the auipc+jalr pair, which ld relaxes to `jal` unless the
 * case assembles with -mno-relax.  The table refers to local labels, as
 * recordmcount's tables do: ld moves them when it relaxes code before
 * them, and a PIE gets R_RISCV_RELATIVE for them, where ld would keep a
 * symbolic R_RISCV_64 for the global bad_site.
 */
	.text

	.globl	bad_site
	.type	bad_site, @function
	.p2align 4
bad_site:
2:	addiw	a0, a0, 1		/* not a hook: must stay as is */
	ret
	.size	bad_site, . - bad_site

	.globl	dup_site
	.type	dup_site, @function
	.p2align 4
dup_site:
#ifdef RT_PAD
1:	nop				/* a pad: c.nop or nop, as the */
	nop				/* variant's -march has it */
	nop
	nop
	addiw	a0, a0, 2
	ret
#else
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	mv	s0, a0
	mv	a0, ra
1:	call	_mcount
	addiw	a0, s0, 2
	ld	ra, 8(sp)
	ld	s0, 0(sp)
	addi	sp, sp, 16
	ret
#endif
	.size	dup_site, . - dup_site

#ifndef RT_PAD
/*
 * Hooks whose code does not say where their caller is, which the
 * runtime must refuse, leaving them calling _mcount.  rt_unknown_site
 * saves ra but neither keeps a frame pointer (clang's -pg form) nor
 * puts `mv a0, ra` before the call (GCC's); rt_nosym_site has GCC's
 * form but no function symbol around it, so the runtime cannot read
 * the code before the hook (a global label, no type: rt_test finds it).
 */
	.globl	rt_unknown_site
	.type	rt_unknown_site, @function
	.p2align 4
rt_unknown_site:
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	mv	s0, a0
3:	call	_mcount
	addiw	a0, s0, 3
	ld	ra, 8(sp)
	ld	s0, 0(sp)
	addi	sp, sp, 16
	ret
	.size	rt_unknown_site, . - rt_unknown_site

	.globl	rt_nosym_site
	.p2align 4
	addi	sp, sp, -16
	sd	ra, 8(sp)
	mv	a0, ra
rt_nosym_site:
4:	call	_mcount
	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
#endif

/* A call target that only returns, for the test's corrupted site. */
	.globl	rt_dummy
	.type	rt_dummy, @function
	.p2align 4
rt_dummy:
	ret
	.size	rt_dummy, . - rt_dummy

#ifdef RT_PAD
/* What the test writes over fx_victim's pad: harmless, and no NOP. */
	.section .rodata
	.globl	pad_junk, pad_junk_end
pad_junk:
	mv	t0, ra			/* c.mv, or addi without RVC */
pad_junk_end:
#endif

	.section __mcount_loc, "a", @progbits
	.quad	2b
	.quad	1b
	.quad	1b
#ifndef RT_PAD
	.quad	3b
	.quad	4b
#endif

	.section .note.GNU-stack, "", @progbits
