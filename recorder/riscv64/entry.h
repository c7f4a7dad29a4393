/* SPDX-License-Identifier: MIT */
/*
 * entry.h - what the RV64 entry.S and return.S read and write beyond
 * lp64.h's layout: sitekeys.c's table (recorder.h).  Included by the
 * assembly for the numbers and by record.c, which checks each against
 * the structs at compile time.
 */
#ifndef REC_RISCV64_ENTRY_H
#define REC_RISCV64_ENTRY_H

#include "../lp64.h"

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
REC_AT(rec_site_table, mask, REC_S_MASK);
REC_AT(rec_site_table, v, REC_S_V);
REC_AT(rec_site_key, ret, REC_S_RET);
REC_AT(rec_site_key, slot_off, REC_S_SLOT_OFF);
REC_AT(rec_site_key, key_off, REC_S_KEY_OFF);
REC_AT(rec_site_key, form, REC_S_FORM);
_Static_assert(sizeof(struct rec_site_key) == 1 << REC_S_SIZE_SHIFT,
	       "rec_site_key's size");
_Static_assert(sizeof(((struct rec_site_key *)0)->form) == 4,
	       "the form is a word");
_Static_assert(REC_SITE_HASH == REC_S_HASH, "the table's hash");
#undef REC_AT
#endif

#endif
