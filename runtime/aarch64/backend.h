/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the AArch64 runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/aarch64.c: every hook is one `bl _mcount`
 * (GCC has no -mfentry here, so the only style is mcount), neutralised
 * by `nop`.  Enabling writes `bl mc_rt_tramp_mcount`, which reaches
 * +-128 MiB; an image farther from the trampoline (a library mapped
 * far from libmcount.so) calls it through a thunk within that reach
 * (core/image.c's mc_rt_image_thunks), and a site with none is MCOUNT_ERANGE.
 *
 * One aligned 4-byte word changes per site.  B, BL and NOP are among
 * the instructions the architecture lets one thread rewrite while
 * another executes them (ARM ARM, "concurrent modification and
 * execution of instructions"), so a site flips between the old and the
 * new instruction, never a mix, provided the word is stored whole, as
 * the engine's live toggle does (one 32-bit atomic store).
 *
 * Cache maintenance after a write is the platform's job
 * (mc_plat_flush_icache): linux/mem.c uses __builtin___clear_cache, which
 * libgcc implements with the sequence below.  A firmware platform may
 * call mc_rt_a64_sync_icache() from its own mc_plat_flush_icache.
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_aarch64;
#define MC_RT_ARCH (&mc_arch_aarch64)

void _mcount(void);
#define MC_RT_MCOUNT_STUB _mcount
#define MC_RT_STUB_NAMES "_mcount"

/*
 * A -fpatchable-function-entry=2 pad (two `nop`s at the entry, after
 * `bti c`) is enabled with `mov x9, x30; bl mc_rt_tramp_pad`, as the
 * kernel's arm64 ftrace does.  Boot writes the `mov x9, x30` for good
 * (arch/aarch64.c's live forms); enabling and disabling swap the second
 * word alone, `nop` <-> `bl`.
 */
#define MC_RT_PAD_TRAMP mc_rt_tramp_pad

/*
 * The trampolines call mc_rt_dispatch_slot (platform.h) with where the
 * function's return address lives.  Under pac-ret the -pg form's slot
 * holds it signed: the callback gets it with the authentication code
 * stripped (xpaclri, which works on x30 only and is a NOP on cores
 * without pointer authentication).
 */
#define MC_RT_DISPATCH_SLOT 1

/*
 * A client may take over either trampoline's entry (platform.h); its
 * routine goes back to the trampoline's own body past the test
 * (trampoline.S says which registers it may change).
 */
#define MC_RT_ENTRY_TAKEOVER 1
MC_RT_HIDDEN void mc_rt_tramp_mcount_body(void);
MC_RT_HIDDEN void mc_rt_tramp_pad_body(void);

static inline uintptr_t mc_rt_a64_strip_pac(uintptr_t addr)
{
	uintptr_t out;

	__asm__("mov x30, %1\n\thint #7\n\tmov %0, x30"
		: "=r"(out) : "r"(addr) : "x30");
	return out;
}
#define MC_RT_SLOT_CALLER(addr) mc_rt_a64_strip_pac(addr)

/*
 * Make [addr, addr + len) as written visible to instruction fetch on
 * every core of the inner shareable domain: clean each data cache line
 * to the point of unification, wait, invalidate each instruction cache
 * line, wait, and resynchronise this core's fetch.  Line sizes come
 * from CTR_EL0 (readable at EL0 on Linux, and at EL1).  No libc, no OS.
 */
static inline void mc_rt_a64_sync_icache(uintptr_t addr, size_t len)
{
	uint64_t ctr;
	uintptr_t dline, iline, end = addr + len, p;

	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	dline = (uintptr_t)4 << ((ctr >> 16) & 0xf);	/* DminLine, words */
	iline = (uintptr_t)4 << (ctr & 0xf);		/* IminLine, words */
	for (p = addr & ~(dline - 1); p < end; p += dline)
		__asm__ volatile("dc cvau, %0" : : "r"(p) : "memory");
	__asm__ volatile("dsb ish" : : : "memory");
	for (p = addr & ~(iline - 1); p < end; p += iline)
		__asm__ volatile("ic ivau, %0" : : "r"(p) : "memory");
	__asm__ volatile("dsb ish\n\tisb" : : : "memory");
}

/*
 * A shared library's `bl _mcount` goes through its PLT, whose entries
 * arch/aarch64.c decodes (mc_arch.plt_slot).
 */
#define MC_RT_PLT_ARCH 1

#endif
