/* SPDX-License-Identifier: MIT */
/*
 * entry.h - the layout the RV64 entry.S and return.S read and
 * write: offsets into struct rec_tls, rec_thread, rec_frame, mct_event
 * and sitekeys.c's table (recorder.h, format.h).  Included by the
 * assembly for the numbers and by record.c, which checks each against
 * the structs at compile time, so that a change to a struct that the
 * assembly does not follow fails the build.
 */
#ifndef REC_RISCV64_ENTRY_H
#define REC_RISCV64_ENTRY_H

#define REC_TLS_SELF		0
#define REC_TLS_BUSY		8

#define REC_T_RING		0
#define REC_T_MASK		8
#define REC_T_MARK		16
#define REC_T_HEAD		24
#define REC_T_TAIL_SEEN		32
#define REC_T_DEPTH		72
#define REC_T_MAX_OPEN		88
#define REC_T_FRAMES		96
#define REC_T_STACK_LO		120
#define REC_T_STACK_HI		128

#define REC_F_KEY		0
#define REC_F_SLOT		8
#define REC_F_ORIG		16
#define REC_F_FUNC		24
#define REC_F_FLAGS		32	/* restored, then copy: one 16-bit store */
#define REC_F_SIZE		40

#define REC_E_WORD		0
#define REC_E_FUNC		8
#define REC_E_SIZE_SHIFT	4	/* 16-byte events */
#define REC_E_KIND_BITS		2	/* word = ticks << 2 | kind */
#define REC_E_ENTRY		0	/* MCT_ENTRY */
#define REC_E_EXIT		1	/* MCT_EXIT */

#define REC_S_MASK		0	/* struct rec_site_table */
#define REC_S_V			16
#define REC_S_SIZE_SHIFT	5	/* 32-byte entries */
#define REC_S_RET		0	/* struct rec_site_key */
#define REC_S_SLOT_OFF		8
#define REC_S_KEY_OFF		16
#define REC_S_FORM		24
#define REC_S_FORM_COPY		1	/* frame.c's FORM_COPY */
#define REC_S_HASH		0x9e3779b97f4a7c15	/* REC_SITE_HASH */

#ifndef __ASSEMBLER__
#define REC_AT(s, f, off) \
	_Static_assert(offsetof(struct s, f) == (off), \
		       "recorder/riscv64/entry.h: " #s "." #f " moved")

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
REC_AT(rec_site_table, mask, REC_S_MASK);
REC_AT(rec_site_table, v, REC_S_V);
REC_AT(rec_site_key, ret, REC_S_RET);
REC_AT(rec_site_key, slot_off, REC_S_SLOT_OFF);
REC_AT(rec_site_key, key_off, REC_S_KEY_OFF);
REC_AT(rec_site_key, form, REC_S_FORM);
_Static_assert(sizeof(struct rec_frame) == REC_F_SIZE, "rec_frame's size");
_Static_assert(sizeof(struct mct_event) == 1 << REC_E_SIZE_SHIFT,
	       "mct_event's size");
_Static_assert(sizeof(struct rec_site_key) == 1 << REC_S_SIZE_SHIFT,
	       "rec_site_key's size");
_Static_assert(sizeof(((struct rec_site_key *)0)->form) == 4,
	       "the form is a word");
_Static_assert(REC_SITE_HASH == REC_S_HASH, "the table's hash");
_Static_assert(sizeof(bool) == 1, "bool is a byte");
_Static_assert(sizeof(((struct rec_thread *)0)->depth) == 8 &&
	       sizeof(((struct rec_thread *)0)->head) == 8 &&
	       sizeof(((struct rec_thread *)0)->max_open) == 8,
	       "64-bit counters");
_Static_assert(MCT_ENTRY == REC_E_ENTRY && MCT_EXIT == REC_E_EXIT,
	       "the kinds");
_Static_assert(MCT_TICKS((uint64_t)1 << REC_E_KIND_BITS) == 1,
	       "the kind's bits");
#undef REC_AT
#endif

#endif
