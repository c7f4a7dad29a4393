/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - 32-bit ARM hook target and trampoline, assembled in the
 * compiler's instruction set (Thumb-2 for Debian's armhf, ARM with
 * -marm): the code below is valid in both.
 *
 * GCC's -pg hook (the AAPCS __gnu_mcount_nc protocol), after the
 * prologue, in ARM or Thumb-2 code alike:
 *
 *	push	{lr}		the function's return address, in its caller
 *	bl	__gnu_mcount_nc	lr := return into the function (bit 0 set
 *				when the function is Thumb)
 *
 * The callee must pop that word back into lr, return to where the `bl`
 * came from, and keep r0-r3: unlike the AArch64 and RISC-V hooks, GCC
 * leaves the function's arguments in place across this call.  r12 (ip)
 * is free, as at any call a veneer may sit on.  So the stub is:
 *
 *	mov ip, lr;  pop {lr};  bx ip
 *
 * and a hook reached before mcount_boot() costs a call, a load and a
 * branch.  `bx` returns to the caller's instruction set.
 *
 * An enabled site calls mc_rt_tramp_mcount from its live form (arch/
 * arm.c), which keeps the function's return address in ip rather than
 * on the stack: `mov ip, lr; bl mc_rt_tramp_mcount`, hooks and pads
 * alike.  The trampoline first pushes ip, which leaves the stack as the
 * -pg hook's own push would have, then saves r0-r3 (arguments), r4 (to
 * keep the entry sp across the call) and lr, aligns sp to 8 bytes for
 * the AAPCS (the push of ip left it at 4 mod 8), saves d0-d7 (the VFP
 * argument registers of the hard-float ABI) when there is an FPU, calls
 * mc_rt_dispatch_slot(lr & ~1, &pushed ip), restores everything and
 * leaves exactly as the stub does: the word it pops into lr is the one
 * the call may have changed (platform.h's slot).  For a pad, and a hook
 * in a function that saved nothing before it (a leaf), that word is
 * the function's return address until it saves lr itself, 4 below its
 * stack pointer at entry where its first push puts lr.  A hook after a
 * prologue finds lr saved already, higher up: the recorder reads the
 * prologue to know how much (recorder/arm/).
 *
 * Stack after the first push, and the frame (offsets from r4):
 *   [sp]       the function's return address (ip, pushed)
 *   r4 + 0     r0, r1, r2, r3, r4, lr (24 bytes); the pushed word at +24
 *   below      d0-d7 (64 bytes), 8-byte aligned
 */

	.syntax	unified
#ifdef __thumb__
	.thumb
#define FUNC(name)	.type name, %function; .thumb_func
#else
	.arm
#define FUNC(name)	.type name, %function
#endif

	.text

	.globl	__gnu_mcount_nc
	FUNC(__gnu_mcount_nc)
	.p2align 2
__gnu_mcount_nc:
	.fnstart
	.cantunwind
	mov	ip, lr
	pop	{lr}
	bx	ip
	.fnend
	.size	__gnu_mcount_nc, . - __gnu_mcount_nc

	.globl	mc_rt_tramp_mcount
	.hidden	mc_rt_tramp_mcount
	FUNC(mc_rt_tramp_mcount)
	.p2align 2
mc_rt_tramp_mcount:
	.fnstart
	.cantunwind
	push	{ip}			/* the function's own return address */
	push	{r0, r1, r2, r3, r4, lr}	/* backend.h's ARGS_FROM_SLOT */
	mov	r4, sp
	bic	r1, r4, #7
	mov	sp, r1
#ifdef __ARM_FP
	vpush	{d0-d7}
#endif
	bic	r0, lr, #1		/* return address into the function */
	add	r1, r4, #24		/* the function's own return address */
	bl	mc_rt_dispatch_slot
#ifdef __ARM_FP
	vpop	{d0-d7}
#endif
	mov	sp, r4
	pop	{r0, r1, r2, r3, r4, ip}
	pop	{lr}
	bx	ip
	.fnend
	.size	mc_rt_tramp_mcount, . - mc_rt_tramp_mcount

/*
 * An empty, writable __mcount_loc input section, so that the output
 * section lds/mcount.lds makes is writable and a PIE's relocated table
 * lands in RELRO rather than creating DT_TEXTREL (see x86_64's).
 */
	.section __mcount_loc, "awo", %progbits, .text

	.section .note.GNU-stack, "", %progbits
