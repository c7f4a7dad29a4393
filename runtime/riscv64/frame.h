/* SPDX-License-Identifier: MIT */
/*
 * frame.h - the frame of the RV64 trampolines (trampoline.S), which a
 * recorder of arguments reads (recorder/riscv64/frame.c): plain
 * numbers, for the assembly and for C.
 *
 * An mcount trampoline's frame is MC_RT_RV_FRAME bytes below the sp at
 * the hook; the pad's, MC_RT_RV_FRAME + MC_RT_RV_PAD_EXTRA bytes below
 * the function's entry sp.  Both keep a0-a7 in order from
 * MC_RT_RV_ARGS_AT above their sp.
 */
#ifndef MC_RT_RV_FRAME_H
#define MC_RT_RV_FRAME_H

#if defined(__riscv_flen) && __riscv_flen >= 32
#define MC_RT_RV_FRAME		144	/* 136 used, the top word free */
#else
#define MC_RT_RV_FRAME		80	/* 72 used, the top word free */
#endif
#define MC_RT_RV_ARGS_AT	8
#define MC_RT_RV_PAD_EXTRA	16	/* t0 and a copy of ra */

#endif
