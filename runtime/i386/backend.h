/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the i386 runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/x86.c, as on x86_64.  -pg -mfentry exists
 * only for non-PIC code (GCC refuses it with -fpic on i386).  PIC -pg
 * calls `call *mcount@GOT(%ebx)`, which ld normally relaxes to a direct
 * call; where it did not, the pointer's address depends on %ebx, so
 * trampoline.S reports where the GOT is (mc_rt_got_base).
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_i386;
#define MC_RT_ARCH (&mc_arch_i386)

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

#define MC_RT_HAVE_GOT_BASE 1

/* The trampolines call mc_rt_dispatch_slot (platform.h). */
#define MC_RT_DISPATCH_SLOT 1

/*
 * Another core may run code this one changed only after a
 * core-serialising instruction of its own (Intel SDM vol. 3, 8.1.3,
 * cross-modifying code): membarrier's SYNC_CORE command.
 */
#define MC_RT_LIVE_SYNC_CORE 1

/*
 * A hook called through the PLT (`call mcount@PLT`: a program linked
 * without -pie, and clang's PIC code): the GOT slot the PLT entry at
 * `addr` jumps through, or 0; `got` is the object's GOT base, which
 * PIC entries index from %ebx.  An entry (GNU ld; objdump -d of a
 * program and a library i686-linux-gnu-gcc linked) is 16 bytes after
 * the 16-byte header:
 *   10001120: ff 25 3c 50 00 10   jmp *0x1000503c        (no PIC)
 *       1030: ff a3 0c 00 00 00   jmp *0xc(%ebx)         (PIC)
 * then push $reloc; jmp .plt ([endbr32] first under -fcf-protection,
 * in .plt.sec).
 */
#define MC_RT_PLT_STEP 16
static inline uintptr_t mc_rt_plt_slot(uintptr_t addr, uintptr_t got)
{
	const uint8_t *p = (const uint8_t *)addr;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfb)
		p += 4;				/* endbr32 */
	if (p[0] != 0xff)
		return 0;
	if (p[1] == 0x25)			/* jmp *abs32 */
		return (uintptr_t)mc_get_le32(p + 2);
	if (p[1] == 0xa3 && got)		/* jmp *d32(%ebx) */
		return got + (uintptr_t)mc_get_le32(p + 2);
	return 0;
}
#define MC_RT_PLT_SLOT(addr, got) mc_rt_plt_slot(addr, got)

#endif
