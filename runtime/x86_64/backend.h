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

/* A client may take over either trampoline's entry (platform.h). */
#define MC_RT_ENTRY_TAKEOVER 1

/*
 * Another core may run code this one changed only after a
 * core-serialising instruction of its own (Intel SDM vol. 3, 8.1.3,
 * cross-modifying code): membarrier's SYNC_CORE command.
 */
#define MC_RT_LIVE_SYNC_CORE 1

/*
 * A shared library's hook `call __fentry__` (clang) goes through its PLT,
 * whose entries arch/x86.c decodes (mc_arch.plt_slot).
 */
#define MC_RT_PLT_ARCH 1

/*
 * A direct hook call, and the call to a trampoline that enables it, is
 * its opcode bytes (and any prefix) then a 32-bit little-endian
 * displacement from its end: boot matches and re-aims a run of them
 * without the decoder (core/boot.c, rel32_run).
 */
#define MC_RT_CALL_REL32 1

#endif
