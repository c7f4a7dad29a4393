/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the s390x runtime backend (included by platform.h).
 *
 * Sites are decoded by arch/s390.c.  -pg -mfentry calls __fentry__ with
 * `brasl %r0`, as the function's first instruction (6 bytes); plain -pg
 * calls _mcount from the 18-byte block `stg %r14,8(%r15); brasl
 * %r14,_mcount; lg %r14,8(%r15)`, whose site is the stg (where GCC's
 * -mrecord-mcount points).
 *
 * A -fpatchable-function-entry pad (GCC: 2-byte `nopr`) is enabled with
 * `brasl %r1,mc_rt_tramp_pad` over its first three NOPs at the
 * function's entry, so N - M must be 3 or more; a shorter pad is refused
 * (reported per site).  Not -mfentry's `brasl %r0`: %r0 is the static
 * chain a nested function reads at its entry.
 *
 * Boot writes every site's call to its trampoline, disabled by one bit
 * (arch/s390.c's live forms: `brcl 0`, or `lgfi` into the brasl's own
 * register); enabling and disabling store that one byte while other
 * threads may run the function.
 *
 * PIE code calls the hooks `@PLT`; the program defines them, so the
 * linker makes those direct calls and no GOT base is needed.
 */
#ifndef MC_RT_BACKEND_H
#define MC_RT_BACKEND_H

extern const struct mc_arch mc_arch_s390x;
#define MC_RT_ARCH (&mc_arch_s390x)

void __fentry__(void);
void _mcount(void);
#define MC_RT_FENTRY_STUB __fentry__
#define MC_RT_MCOUNT_STUB _mcount
#define MC_RT_STUB_NAMES "__fentry__ or _mcount"
#define MC_RT_PAD_TRAMP mc_rt_tramp_pad

/*
 * A shared library's hook (`brasl %r0,__fentry__@PLT`, or %r14 and
 * _mcount) goes through its PLT, whose entries arch/s390.c decodes
 * (mc_arch.plt_slot).  %r1 is the entry's scratch: no hook may keep
 * anything there (a pad's `brasl %r1` is the runtime's own, never a PLT
 * call).
 */
#define MC_RT_PLT_ARCH 1

/*
 * The trampolines call mc_rt_dispatch_slot (platform.h) with the
 * function's %r14 save slot, in the area its caller left at its stack
 * pointer (arch.h).
 */
#define MC_RT_DISPATCH_SLOT 1
#define MC_RT_SLOT_FROM_SP MC_ABI_S390X_R14_SAVE
#define MC_RT_CFA_FROM_SP MC_ABI_S390X_CFA

/*
 * For a recorder of arguments: the words from that slot to %r2-%r6 as
 * the trampolines saved them (frame.h: every hook's frame is the same
 * way below the slot).
 */
#include "frame.h"
#define MC_RT_ARGS_FROM_SLOT \
	((MC_RT_S390X_FR_GPR + 2 * 8 - MC_RT_S390X_SLOT) / 8)

#endif
