/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the ppc64le runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/powerpc.c: one `bl` word, neutralised by one
 * `nop`.  GCC has two hook styles on ELFv2, and both call `_mcount`:
 *
 *   -pg -mprofile-kernel   mflr r0; bl _mcount       before the frame
 *                          (after the global entry point's TOC set-up):
 *                          this backend's "fentry" style
 *   -pg                    mflr r0; std r0,16(r1); stdu r1,-N(r1); ...
 *                          bl _mcount; nop             inside the frame:
 *                          the "mcount" style
 *
 * The call target cannot tell them apart, so the word before the site
 * does (MC_RT_SITE_STYLE): only -mprofile-kernel puts `mflr r0` right
 * before the hook (-pg must store r0 in between).  A function reached
 * through its local entry point has the same hook, so one site per
 * function either way; the callback reports the symbol's address, which
 * is the global entry point, the value of `&func` in C.
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

#include <mcount.h>

extern const struct mc_arch mc_arch_ppc64le;
#define MC_RT_ARCH (&mc_arch_ppc64le)

void _mcount(void);
#define MC_RT_FENTRY_STUB _mcount
#define MC_RT_MCOUNT_STUB _mcount
#define MC_RT_STUB_NAMES "_mcount"

#define MC_RT_PPC_MFLR_R0 0x7c0802a6u	/* mflr r0 (mfspr r0,8) */

/* -mprofile-kernel ("fentry") if `mflr r0` is the word before `addr`. */
static inline uint8_t mc_rt_ppc64le_site_style(uintptr_t addr, uint8_t style)
{
	(void)style;
	if (addr < 4 || mc_plat_mem_avail(addr - 4, true) < 8)
		return MCOUNT_STYLE_MCOUNT;
	return mc_get_le32((const uint8_t *)(addr - 4)) == MC_RT_PPC_MFLR_R0 ?
		MCOUNT_STYLE_FENTRY : MCOUNT_STYLE_MCOUNT;
}
#define MC_RT_SITE_STYLE(addr, style) mc_rt_ppc64le_site_style(addr, style)

/*
 * -fpatchable-function-entry pads (GCC's `nop`s) are enabled with
 * `mflr r0; bl mc_rt_tramp_fentry` over the first two NOPs at the
 * function's entry (arch/powerpc.c): the -mprofile-kernel hook, so its
 * trampoline serves pads too, and a pad needs 2 NOPs or more there; a
 * shorter one is refused (reported per site).  Boot writes `mflr r0;
 * nop` over them, and enabling and disabling change the second word
 * alone (`bl` <-> `nop`, arch/powerpc.c's live form).
 *
 * Where the pad lies: GCC 12 puts it at the global entry point, before
 * the TOC set-up `addis r2,r12,hi; addi r2,r2,lo` of a function that
 * needs one (with a .localentry past the pad), so a call through the
 * local entry (every direct call) never runs it: such a pad is refused
 * (MC_RT_PAD_REFUSE).  A function without the set-up has one entry
 * point and its pad is patched.  Later GCCs put the pad after the
 * set-up, at the local entry point, which MC_RT_LOCAL_ENTRY makes an
 * entry for the engine.
 */
#define MC_RT_PAD_TRAMP mc_rt_tramp_fentry

/*
 * The trampolines call mc_rt_dispatch_slot (platform.h) with the LR
 * save doubleword of the caller's frame header (arch.h).
 */
#define MC_RT_DISPATCH_SLOT 1
#define MC_RT_SLOT_FROM_SP MC_ABI_PPC64_LR_SAVE

/* A TOC set-up (arch/powerpc.c) in mapped code at `a`. */
static inline bool mc_rt_ppc64le_toc_setup(uintptr_t a)
{
	return mc_plat_mem_avail(a, true) >= 8 &&
	       mc_arch_ppc64le_is_toc_setup((const uint8_t *)a);
}

/* True if `addr` is a local entry point: a TOC set-up at a symbol ends there. */
static inline bool mc_rt_ppc64le_local_entry(uintptr_t addr)
{
	uintptr_t start;
	size_t size;

	return addr >= 8 && mc_plat_func_bounds(addr - 8, &start, &size) &&
	       start == addr - 8 && mc_rt_ppc64le_toc_setup(addr - 8);
}
#define MC_RT_LOCAL_ENTRY(addr) mc_rt_ppc64le_local_entry(addr)

/* The pad's NOPs end at `end` (or run on past the engine's window). */
static inline const char *mc_rt_ppc64le_pad_refuse(uintptr_t end)
{
	for (unsigned i = 0; i < 64 && mc_plat_mem_avail(end, true) >= 4 &&
	     mc_arch_ppc64le_is_nop((const uint8_t *)end); i++)
		end += 4;
	return mc_rt_ppc64le_toc_setup(end) ?
		"NOP pad before the TOC set-up, which calls through the "
		"local entry skip (GCC 12's layout)" : NULL;
}
#define MC_RT_PAD_REFUSE(end) mc_rt_ppc64le_pad_refuse(end)

#endif
