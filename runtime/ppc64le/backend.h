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
static inline uint8_t mc_rt_ppc64le_site_style(const struct mc_rt_code *code,
					       uintptr_t addr, uint8_t style)
{
	(void)style;
	if (addr < 4 || code->room(addr - 4) < 8)
		return MCOUNT_STYLE_MCOUNT;
	return mc_get_le32((const uint8_t *)(addr - 4)) == MC_RT_PPC_MFLR_R0 ?
		MCOUNT_STYLE_FENTRY : MCOUNT_STYLE_MCOUNT;
}
#define MC_RT_SITE_STYLE(code, addr, style) \
	mc_rt_ppc64le_site_style(code, addr, style)

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
static inline bool mc_rt_ppc64le_toc_setup(const struct mc_rt_code *code,
					   uintptr_t a)
{
	return code->room(a) >= 8 &&
	       mc_arch_ppc64le_is_toc_setup((const uint8_t *)a);
}

/* True if `addr` is a local entry point: a TOC set-up at a symbol ends there. */
static inline bool mc_rt_ppc64le_local_entry(const struct mc_rt_code *code,
					     uintptr_t addr)
{
	uintptr_t start;

	return addr >= 8 && code->func_start(addr - 8, &start) &&
	       start == addr - 8 && mc_rt_ppc64le_toc_setup(code, addr - 8);
}
#define MC_RT_LOCAL_ENTRY(code, addr) mc_rt_ppc64le_local_entry(code, addr)

/* The pad's NOPs end at `end` (or run on past the engine's window). */
static inline const char *
mc_rt_ppc64le_pad_refuse(const struct mc_rt_code *code, uintptr_t end)
{
	for (unsigned i = 0; i < 64 && code->room(end) >= 4 &&
	     mc_arch_ppc64le_is_nop((const uint8_t *)end); i++)
		end += 4;
	return mc_rt_ppc64le_toc_setup(code, end) ?
		"NOP pad before the TOC set-up, which calls through the "
		"local entry skip (GCC 12's layout)" : NULL;
}
#define MC_RT_PAD_REFUSE(code, end) mc_rt_ppc64le_pad_refuse(code, end)

/*
 * Shared objects.  A `bl _mcount` in a shared library (or in a program
 * linked with libmcount.so) reaches _mcount through a linker stub in
 * the object's own text, and the linker turns the TOC-restore `nop`
 * after the call into `ld r2,24(r1)`: the stub saves the caller's TOC
 * pointer at 24(r1), in the calling function's frame header, and that
 * load takes it back after the call.  The stub (GNU ld's plt_call, and
 * the same from lld) loads _mcount's address from the object's PLT slot
 * relative to r2, the object's TOC pointer:
 *
 *   std r2,24(r1)          absent where the function saved r2 itself
 *   addis r12,r2,ha        only for a slot beyond +/- 32 KiB of the TOC
 *   ld r12,lo(r2 | r12)
 *   mtctr r12
 *   bctr
 *
 * PC-relative code (-mcpu=power10) calls through a stub that finds the
 * slot from its own address, with `pld r12` or, up to 36 bytes long,
 * with `mflr r12; bcl 20,31,.+4; mflr r11; ...` (arch/powerpc.c), and
 * has no TOC restore after the call.
 *
 * MC_RT_STUB_SLOT decodes one at a call's target and gives the slot, or
 * 0; the engine takes the call for a hook if the object's relocations
 * bind that slot to _mcount (linux/elffile.c).  `toc` is the object's TOC
 * pointer, which ld and lld both put 0x8000 bytes past the start of
 * its .got (MC_RT_GOT_SECTION, MC_RT_GOT_BIAS), or 0: only the TOC
 * stub reads it.  A stub that reads another slot (a second TOC of a
 * huge object) simply matches none, and its site is refused.
 *
 * Disabling such a site with a `nop` would leave the `ld r2,24(r1)`
 * reading a slot nobody wrote on that call.  So its neutral form is
 * `b +8`, over the load (MC_RT_SITE_NEUTRAL): an I-form branch, of the
 * same patch class as `bl` and `nop` (arch/powerpc.c), so toggling
 * stays one word.  Enabled, it calls the trampoline (or a thunk) with
 * the load still after it: mc_rt_tramp_mcount stores r2 at 24(r1) as
 * the stub did, and returns with r2 as it found it.  Only -pg hooks
 * meet this: GNU ld refuses -mprofile-kernel's `bl _mcount` into a
 * stub, which has no TOC-restore slot after it.
 */
#define MC_RT_PPC_LD_R2_24	0xe8410018u	/* ld r2,24(r1) */

/*
 * arch/powerpc.c decodes the stub (mc_arch.plt_slot) from as many bytes
 * as its longest form takes (plt_read), or as the text holds.
 */
static inline uintptr_t mc_rt_ppc64le_stub_slot(const struct mc_rt_code *code,
						uintptr_t target, uintptr_t toc)
{
	size_t avail = code->room(target);

	if (avail > MC_RT_ARCH->plt_read)
		avail = MC_RT_ARCH->plt_read;
	return (uintptr_t)mc_plt_slot(MC_RT_ARCH, (const uint8_t *)target,
				      avail, target, toc);
}
#define MC_RT_STUB_SLOT(code, target, toc) \
	mc_rt_ppc64le_stub_slot(code, target, toc)
#define MC_RT_GOT_SECTION (MC_RT_ARCH->plt_base_section)
#define MC_RT_GOT_BIAS (MC_RT_ARCH->plt_base_bias)

/* `b +8` in the byte order of the code. */
static const uint8_t mc_rt_ppc64le_skip_restore[4] = {
	0x08, 0x00, 0x00, 0x48,
};

/*
 * The neutral bytes of the hook at `at` (*neutral: the arch's): `b +8`
 * where a TOC restore follows a call; NULL, or why the site cannot be
 * left safely: a `nop` there already leaves the load unfed.
 */
static inline const char *
mc_rt_ppc64le_site_neutral(const struct mc_rt_code *code, uintptr_t at,
			   bool call, const uint8_t **neutral)
{
	if (code->room(at) < 8 ||
	    mc_get_le32((const uint8_t *)(at + 4)) != MC_RT_PPC_LD_R2_24)
		return NULL;
	if (!call)
		return "NOP before a TOC restore (ld r2,24(r1)) it does not "
		       "save for";
	*neutral = mc_rt_ppc64le_skip_restore;
	return NULL;
}
#define MC_RT_SITE_NEUTRAL(code, at, call, neutral) \
	mc_rt_ppc64le_site_neutral(code, at, call, neutral)

#endif
