/* SPDX-License-Identifier: MIT */
/*
 * lp64.h - the layout every 64-bit backend's entry.S and return.S read
 * and write (x86_64, aarch64, riscv64): offsets into struct rec_tls,
 * rec_thread, rec_frame and mct_event (recorder.h, format.h), the same
 * on each LP64 machine.  Each backend's entry.h includes it and adds its
 * own; included by record.c, it checks each number against the structs
 * at compile time, so that a change to a struct that the assembly does
 * not follow fails the build.  REC_AT stays defined for the entry.h
 * that includes this, which undefines it at its end.
 */
#ifndef REC_LP64_H
#define REC_LP64_H

#define REC_TLS_SELF		0
#define REC_TLS_BUSY		8

#define REC_T_RING		0
#define REC_T_MASK		8
#define REC_T_MARK		16
#define REC_T_HEAD		24
#define REC_T_TAIL_SEEN		32	/* right after head: one load pair */
#define REC_T_DEPTH		72
#define REC_T_MAX_OPEN		88
#define REC_T_FRAMES		96
#define REC_T_STACK_LO		120
#define REC_T_STACK_HI		128	/* right after stack_lo: one load pair */

#define REC_F_KEY		0
#define REC_F_SLOT		8
#define REC_F_ORIG		16
#define REC_F_FUNC		24
#define REC_F_FLAGS		32	/* restored, copy (and on x86_64,
					   value): one store clears them */
#define REC_F_SIZE		40

#define REC_E_WORD		0
#define REC_E_FUNC		8	/* right after word: one store pair */
#define REC_E_SIZE_SHIFT	4	/* 16-byte events */
#define REC_E_KIND_BITS		2	/* word = ticks << 2 | kind */
#define REC_E_ENTRY		0	/* MCT_ENTRY */
#define REC_E_EXIT		1	/* MCT_EXIT */

#ifndef __ASSEMBLER__
#define REC_AT(s, f, off) \
	_Static_assert(offsetof(struct s, f) == (off), \
		       "recorder/lp64.h or an entry.h: " #s "." #f " moved")

REC_AT(rec_tls, self, REC_TLS_SELF);
REC_AT(rec_tls, busy, REC_TLS_BUSY);
REC_AT(rec_thread, ring, REC_T_RING);
REC_AT(rec_thread, mask, REC_T_MASK);
REC_AT(rec_thread, mark, REC_T_MARK);
REC_AT(rec_thread, head, REC_T_HEAD);
REC_AT(rec_thread, tail_seen, REC_T_TAIL_SEEN);
REC_AT(rec_thread, depth, REC_T_DEPTH);
REC_AT(rec_thread, max_open, REC_T_MAX_OPEN);
REC_AT(rec_thread, frames, REC_T_FRAMES);
REC_AT(rec_thread, stack_lo, REC_T_STACK_LO);
REC_AT(rec_thread, stack_hi, REC_T_STACK_HI);
REC_AT(rec_frame, key, REC_F_KEY);
REC_AT(rec_frame, slot, REC_F_SLOT);
REC_AT(rec_frame, orig, REC_F_ORIG);
REC_AT(rec_frame, func, REC_F_FUNC);
REC_AT(rec_frame, restored, REC_F_FLAGS);
REC_AT(rec_frame, copy, REC_F_FLAGS + 1);
REC_AT(mct_event, word, REC_E_WORD);
REC_AT(mct_event, func, REC_E_FUNC);
_Static_assert(sizeof(struct rec_frame) == REC_F_SIZE, "rec_frame's size");
_Static_assert(sizeof(struct mct_event) == 1 << REC_E_SIZE_SHIFT,
	       "mct_event's size");
_Static_assert(sizeof(bool) == 1, "bool is a byte");
_Static_assert(sizeof(((struct rec_thread *)0)->depth) == 8 &&
	       sizeof(((struct rec_thread *)0)->head) == 8 &&
	       sizeof(((struct rec_thread *)0)->max_open) == 8,
	       "64-bit counters");
_Static_assert(MCT_ENTRY == REC_E_ENTRY && MCT_EXIT == REC_E_EXIT,
	       "the kinds");
_Static_assert(MCT_TICKS((uint64_t)1 << REC_E_KIND_BITS) == 1,
	       "the kind's bits");
#endif

#endif
