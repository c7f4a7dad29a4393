/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the RV64 runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/riscv.c.  GCC has no -mfentry here: the
 * only style is mcount, a call to _mcount after the prologue.  A site
 * has one of two shapes, and the engine patches either in place:
 *
 *   8 bytes  auipc ra, hi; jalr ra, lo(ra)   objects built -mno-relax
 *            (or linked --no-relax), as the kernel does; enabled by
 *            writing the pair again with the trampoline's offset
 *            (+-2 GiB), neutralised by `nop; nop`
 *   4 bytes  jal ra, _mcount                 what ld relaxes the pair
 *            to (the default), enabled by `jal ra, tramp` (+-1 MiB),
 *            neutralised by one `nop`
 *
 * A trampoline out of a site's reach is called through a thunk near the
 * image (core/image.c's mc_rt_image_thunks), asked within the reach of
 * the site's own form (arch/riscv.c's site_reach: 1 MiB for a `jal`);
 * where there is none, the site is MCOUNT_ERANGE.
 *
 * Atomicity: the 8-byte pair is two instructions, and with the C
 * extension a site is only 2-byte aligned.  So boot puts every site in
 * a live form (arch/riscv.c) where a toggle swaps one naturally
 * aligned instruction, which a hart fetches whole: at a multiple of 4,
 * the `auipc` stays and `jalr` (or a relaxed site's `jal`) <-> `nop`;
 * at 2 mod 4, the call stays and its first halfword <-> `c.j` over the
 * site.  Every site can thus change while other harts run it.
 *
 * Cache: after writing code a hart must execute `fence.i` before it
 * fetches that code, and `fence.i` only orders the hart executing it.
 * linux/mem.c's __builtin___clear_cache calls glibc's
 * __riscv_flush_icache, the riscv_flush_icache system call, which
 * covers every hart this process may run on; the engine makes it once
 * per batch of toggles.  Until then another hart may run the old
 * instruction or the new one, never a mix.  A firmware platform may
 * call mc_rt_rv_sync_icache() from its own mc_plat_flush_icache and must
 * make other harts execute `fence.i` too (an IPI, or SBI's
 * remote_fence_i) before they may run patched code.
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_riscv64;
#define MC_RT_ARCH (&mc_arch_riscv64)

void _mcount(void);
#define MC_RT_MCOUNT_STUB _mcount
#define MC_RT_STUB_NAMES "_mcount"

/*
 * A -fpatchable-function-entry pad (8 bytes: four `c.nop` or two `nop`)
 * is enabled with `auipc t0, hi; jalr t0, lo(t0)` to mc_rt_tramp_pad,
 * as the kernel's riscv ftrace does, so ra keeps the function's return
 * address.  Disabled, it is the same pair with `nop` for the `jalr` (or,
 * at 2 mod 4, a `c.j` over it in place of its first halfword).
 */
#define MC_RT_PAD_TRAMP mc_rt_tramp_pad

/* The trampolines call mc_rt_dispatch_slot (platform.h). */
#define MC_RT_DISPATCH_SLOT 1

/*
 * A client may take over their entries (platform.h); trampoline.S says
 * how the routine goes back to the trampoline's body.
 */
#define MC_RT_ENTRY_TAKEOVER 1

/*
 * Where an mcount hook's caller is.  GCC passes it in a0 (`mv a0, ra`,
 * which its scheduler may put several instructions before the call);
 * clang passes nothing, and a0 still holds the first argument, but it
 * keeps a frame pointer with -pg and its prologue stores ra at -8(s0).
 * The trampoline cannot tell the two apart (GCC keeps no frame pointer,
 * and its `mv a0, ra` need not be next to the call), so the engine asks
 * at boot, per site, what the code from the function's entry (its
 * symbol, as the engine passes it down: struct mc_rt_code) to the hook
 * does:
 * mc_arch_riscv64_caller (arch/riscv.c) answers MC_RV_CALLER_A0
 * when a0 holds the entry's ra at the hook, MC_RV_CALLER_FP when
 * -8(s0) does.  The site's trampoline follows: mc_rt_tramp_mcount takes
 * a0, mc_rt_tramp_mcount_fp loads -8(s0).  A site whose code says
 * neither, or whose function the platform cannot name (a firmware
 * without symbols, a stripped program), is refused: a callback told the
 * wrong caller would be a silent wrong answer.
 */
MC_RT_HIDDEN void mc_rt_tramp_mcount_fp(void);
#define MC_RT_MCOUNT_TRAMP(caller)					\
	((caller) == MC_RV_CALLER_FP ?				\
	 (uintptr_t)&mc_rt_tramp_mcount_fp : (uintptr_t)&mc_rt_tramp_mcount)

/* Bytes from a function's entry to its hook that are read, at most. */
#define MC_RT_RV_MAX_PROLOGUE 512

static inline const char *mc_rt_rv_site_caller(const struct mc_rt_code *code,
					       uintptr_t at, uint8_t *caller)
{
	uintptr_t start;

	if (!code->func_start(at, &start) || start > at)
		return "no symbol for its function: cannot tell where the "
		       "hook's caller is (a0 or -8(s0))";
	if (at - start > MC_RT_RV_MAX_PROLOGUE ||
	    code->room(start) < at - start)
		return "hook too far from its function's entry: cannot tell "
		       "where its caller is";
	*caller = (uint8_t)mc_arch_riscv64_caller((const uint8_t *)start,
						  at - start);
	if (*caller == MC_RV_CALLER_A0 || *caller == MC_RV_CALLER_FP)
		return NULL;
	return "neither `mv a0, ra` before the hook nor ra saved at "
	       "-8(s0): cannot tell where its caller is";
}
#define MC_RT_SITE_CALLER(code, at, caller) \
	mc_rt_rv_site_caller(code, at, caller)

/* This hart's instruction fetch sees every store it made before. */
static inline void mc_rt_rv_sync_icache(void)
{
	__asm__ volatile("fence.i" : : : "memory");
}

/*
 * A shared library's `call _mcount` (and a PIE's linked with
 * libmcount.so) goes through its PLT, whose entries arch/riscv.c decodes
 * (mc_arch.plt_slot).
 */
#define MC_RT_PLT_ARCH 1

#endif
