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

#endif
