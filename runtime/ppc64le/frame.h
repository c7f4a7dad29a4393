/* SPDX-License-Identifier: MIT */
/*
 * frame.h - the frame of the ppc64le trampolines (trampoline.S), which
 * a recorder of arguments reads (recorder/args.c): plain numbers, for
 * the assembly and for C.
 *
 * Each trampoline makes one frame of MC_RT_PPC_FRAME bytes (so its back
 * chain is its own address plus that), keeps the return into the
 * function at MC_RT_PPC_FR_LR and r0-r12 in order from MC_RT_PPC_FR_GPR.
 */
#ifndef MC_RT_PPC_FRAME_H
#define MC_RT_PPC_FRAME_H

#define MC_RT_PPC_FRAME		448
#define MC_RT_PPC_FR_GPR	32	/* r0 .. r12 (r1's slot unused) */
#define MC_RT_PPC_FR_LR		136	/* the return into the function */

#endif
