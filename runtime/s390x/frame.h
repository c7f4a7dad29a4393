/* SPDX-License-Identifier: MIT */
/*
 * frame.h - the frame of the s390x trampolines (trampoline.S), which a
 * recorder of arguments reads (backend.h's MC_RT_ARGS_FROM_SLOT): plain
 * numbers, for the assembly and for C.
 *
 * Each trampoline makes one frame of MC_RT_S390X_FRAME bytes: the
 * standard 160-byte area for its callee, then %r0-%r6 in order, %r14,
 * and %f0, %f2, %f4, %f6.  The slot it hands on is the function's %r14
 * save slot, 112 bytes above the frame's top (the area the function's
 * caller left).
 */
#ifndef MC_RT_S390X_FRAME_H
#define MC_RT_S390X_FRAME_H

#define MC_RT_S390X_SAVE	160	/* our callee's register save area */
#define MC_RT_S390X_FR_GPR	MC_RT_S390X_SAVE	/* %r0 .. %r6 */
#define MC_RT_S390X_FRAME	(MC_RT_S390X_SAVE + 96)
#define MC_RT_S390X_SLOT	(MC_RT_S390X_FRAME + 112)

#endif
