/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the 32-bit ARM runtime backend, ARM and Thumb-2 (included
 * by platform.h).
 *
 * Sites are decoded by arch/arm.c.  GCC's hook is `push {lr}; bl
 * __gnu_mcount_nc` in either instruction set (Debian's armhf GCC emits
 * Thumb-2 unless told -marm), and one program may mix both.  The site is
 * the 4-byte `bl`; the neutral form is `add sp, sp, #4` (ARM) or `add.w
 * sp, sp, #4` (Thumb-2), which drops the word the push stored, as
 * __gnu_mcount_nc would have.  Styles: mcount, and pads (below).
 *
 * __mcount_loc holds plain addresses (Thumb ones without bit 0), and
 * four bytes of code can read as a valid instruction in both sets.  So
 * at boot the engine asks MC_RT_SITE_ARCH which arch/ entry reads each
 * site, and keeps the answer (rt_site.arch): mc_arch_arm_site_isa()
 * tells it from the push just before the site and answers NULL (site
 * refused) when there is none, for the neutral form would unbalance
 * the stack.  Boot then rewrites that push (the live form below), so
 * the question can only be asked once.
 *
 * Live patching (arch/arm.c's live_forms, which says what the ARM ARM
 * allows): boot turns `push {lr}; bl __gnu_mcount_nc` into `mov ip, lr;
 * nop` in ARM state and `b.n .+6; bl mc_rt_tramp_mcount` in Thumb-2, so
 * that enabling and disabling store one aligned word: ARM's NOP <-> BL
 * at the site, Thumb's B <-> `mov ip, lr` in the halfword before it.
 * The trampoline takes the function's return address from ip.  The
 * `bl` reaches +-32 MiB from ARM code and +-16 MiB from Thumb-2 (`blx`
 * when the states differ); beyond, a thunk within 16 MiB (core/image.c's
 * mc_rt_image_thunks, in ARM state), and MCOUNT_ERANGE where there is none.
 *
 * A -fpatchable-function-entry pad has no push before it: its first
 * instruction tells the state (mc_arch_arm_pad_isa), a NOP as the
 * compiler left it.  Its live form is the hook's: `mov ip, lr` and the
 * call, in its first 8 (ARM) or 6 (Thumb-2) bytes.
 *
 * Cache: linux/mem.c's __builtin___clear_cache is libgcc's __clear_cache,
 * the Linux cacheflush system call.  A firmware platform supplies its
 * own mc_plat_flush_icache (clean D-cache to PoU, invalidate I-cache,
 * DSB, ISB).
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_arm;
#define MC_RT_ARCH (&mc_arch_arm)

void __gnu_mcount_nc(void);
#define MC_RT_MCOUNT_STUB __gnu_mcount_nc
#define MC_RT_STUB_NAMES "__gnu_mcount_nc"

/* arch/arm.c: the entry ("arm" or "thumb2") for a site; see there. */
const struct mc_arch *mc_arch_arm_site_isa(const uint8_t *before, size_t n);
/* ... and for a -fpatchable-function-entry pad, from its first NOP. */
const struct mc_arch *mc_arch_arm_pad_isa(const uint8_t *p, size_t n);

/* A pad is enabled with `mov ip, lr; bl`, as a live hook (arch/arm.c). */
#define MC_RT_PAD_TRAMP mc_rt_tramp_mcount

/* The trampoline calls mc_rt_dispatch_slot (platform.h). */
#define MC_RT_DISPATCH_SLOT 1
/*
 * For a recorder of arguments: the words from that slot to r0-r3 as
 * the trampoline saved them (`push {ip}` then `push {r0-r4, lr}`, the
 * slot ip's word).
 */
#define MC_RT_ARGS_FROM_SLOT (-6)

/* A Thumb function's address has bit 0 set; its code starts below. */
#define MC_RT_ISA_BITS 1

/* ARM's push {lr} is the longer: 4 bytes. */
#define MC_RT_ARM_PRELUDE 4

static inline const struct mc_arch *
mc_rt_arm_site_arch(const struct mc_rt_code *code, uintptr_t addr)
{
	size_t n = MC_RT_ARM_PRELUDE;
	const struct mc_arch *a;

	/* a site at the very start of the code has no push before it */
	if (addr < n || code->room(addr - n) < n)
		n = 0;
	a = mc_arch_arm_site_isa((const uint8_t *)(addr - n), n);
	if (a)
		return a;
	/* No push: a pad, if NOPs are there. */
	n = code->room(addr);
	return mc_arch_arm_pad_isa((const uint8_t *)addr, n < 4 ? n : 4);
}
#define MC_RT_SITE_ARCH(code, addr) mc_rt_arm_site_arch(code, addr)

/*
 * A shared library's `bl __gnu_mcount_nc` goes through its PLT, whose
 * ARM entries arch/arm.c decodes (mc_arch.plt_slot).  Thumb code calls
 * the entry with `blx`, or with `bl` a Thumb stub ld put just before
 * it, the decoder's Thumb address (bit 0 set): MC_RT_PLT_ALIAS.
 */
#define MC_RT_PLT_ARCH 1
#define MC_RT_PLT_ALIAS 1

#endif
