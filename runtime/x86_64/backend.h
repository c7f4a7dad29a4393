/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the x86_64 runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/x86.c; trampoline.S here defines both hook
 * stubs and both trampolines.  A PIE's `call *__fentry__@GOTPCREL(%rip)`
 * carries its pointer's address itself (MC_SITE_CALL_INDIRECT), so no
 * GOT base is needed.
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_x86_64;
#define MC_RT_ARCH (&mc_arch_x86_64)

/* -pg -mfentry calls __fentry__; plain -pg calls mcount. */
void __fentry__(void);
void mcount(void);
#define MC_RT_FENTRY_STUB __fentry__
#define MC_RT_MCOUNT_STUB mcount
#define MC_RT_STUB_NAMES "__fentry__ or mcount"

/*
 * A -fpatchable-function-entry pad is enabled with `call rel32` at the
 * function's entry (after endbr), exactly where -mfentry puts its call:
 * the fentry trampoline serves it.
 */
#define MC_RT_PAD_TRAMP mc_rt_tramp_fentry

/*
 * The trampolines call mc_rt_dispatch_slot (platform.h), or the
 * general-register slot hook itself with only the general argument
 * registers saved.
 */
#define MC_RT_DISPATCH_SLOT 1
#define MC_RT_GPR_SLOT_HOOK 1

/*
 * Another core may run code this one changed only after a
 * core-serialising instruction of its own (Intel SDM vol. 3, 8.1.3,
 * cross-modifying code): membarrier's SYNC_CORE command.
 */
#define MC_RT_LIVE_SYNC_CORE 1

/*
 * A shared library's hook `call __fentry__` (clang) goes through its PLT:
 * the GOT slot the PLT entry at `addr` jumps through, or 0.  Entries are
 * 16 bytes, from the start of .plt (after its 16-byte header) and of
 * .plt.sec (CET): [endbr64] [bnd] jmp *rel32(%rip).
 */
#define MC_RT_PLT_STEP 16
static inline uintptr_t mc_rt_plt_slot(uintptr_t addr)
{
	const uint8_t *p = (const uint8_t *)addr;
	int32_t rel;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;				/* endbr64 */
	if (p[0] == 0xf2)
		p++;				/* bnd */
	if (p[0] != 0xff || p[1] != 0x25)	/* jmp *rel32(%rip) */
		return 0;
	rel = (int32_t)((uint32_t)p[2] | (uint32_t)p[3] << 8 |
			(uint32_t)p[4] << 16 | (uint32_t)p[5] << 24);
	return (uintptr_t)(p + 6) + (intptr_t)rel;
}
#define MC_RT_PLT_SLOT(addr, got) mc_rt_plt_slot(addr)

#endif
