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
 * For a recorder of arguments: cdecl passes them on the stack, in the
 * words just above the function's return address, whose slot the
 * trampolines hand on, at every hook.
 */
#define MC_RT_ARGS_FROM_SLOT 1

/*
 * Another core may run code this one changed only after a
 * core-serialising instruction of its own (Intel SDM vol. 3, 8.1.3,
 * cross-modifying code): membarrier's SYNC_CORE command.
 */
#define MC_RT_LIVE_SYNC_CORE 1

/*
 * A hook called through the PLT (`call mcount@PLT`: a program linked
 * without -pie, and clang's PIC code): arch/x86.c decodes the entries,
 * PIC ones from the object's GOT base (mc_arch.plt_slot).
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
