/*
 * bad-riscv64.S - table entries the runtime must refuse, written by hand.
 *
 * bad_site's entry points at an instruction that is no hook call;
 * dup_site has a real hook (GCC's -pg sequence; with -DRT_PAD, for the
 * pad cases, a pad of four NOPs) but is listed twice.
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

	.section .note.GNU-stack, "", @progbits
