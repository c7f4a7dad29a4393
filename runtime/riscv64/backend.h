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
 *            to (the default), enabled by `jal ra, tramp` (+-1 MiB:
 *            MCOUNT_ERANGE beyond), neutralised by one `nop`
 *
 * Atomicity: with the C extension a site is only 2-byte aligned, so
 * even a 4-byte instruction may straddle two fetch parcels, and the
 * 8-byte pair is two instructions whatever the alignment.  No store
 * replaces either atomically with respect to a hart executing it, so
 * the rule in mcount.h is a hard one here: no other hart may run a
 * function while its site changes (the kernel stops the machine for
 * the same reason).  What makes a half-written pair at least harmless
 * to the patching thread itself is that it never runs the site it is
 * writing.
 *
 * Cache: after writing code a hart must execute `fence.i` before it
 * fetches that code, and `fence.i` only orders the hart executing it.
 * hosted.c's __builtin___clear_cache calls glibc's
 * __riscv_flush_icache, the riscv_flush_icache system call, which
 * covers every hart this process may run on.  A firmware platform may
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
 * address; disabling writes the NOPs back as they were.
 */
#define MC_RT_PAD_TRAMP mc_rt_tramp_pad

/* This hart's instruction fetch sees every store it made before. */
static inline void mc_rt_rv_sync_icache(void)
{
	__asm__ volatile("fence.i" : : : "memory");
}

#endif
