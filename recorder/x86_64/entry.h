/* SPDX-License-Identifier: MIT */
/*
 * entry.h - what the x86_64 entry.S and return.S read and write beyond
 * lp64.h's layout: the frame's value flag, the key a slot gives, and
 * rec_args_map's index.  Included by the assembly for the numbers and by
 * record.c, which checks each against the structs at compile time.
 */
#ifndef REC_X86_64_ENTRY_H
#define REC_X86_64_ENTRY_H

#include "../lp64.h"

#define REC_KEY_FROM_SLOT	8	/* key = slot + 8 (rec_arch_key) */

/*
 * rec_args_map (args.c): a byte per function whose values are captured,
 * at (its return address >> SHIFT) & MASK.
 */
#define REC_ARGS_MAP_SHIFT	4
#define REC_ARGS_MAP_MASK	0xffff

#ifndef __ASSEMBLER__
REC_AT(rec_frame, value, REC_F_FLAGS + 2);
_Static_assert(-MC_RT_SLOT_FROM_SP == REC_KEY_FROM_SLOT,
	       "the key is the slot's stack pointer");
#undef REC_AT
#endif

#endif
