/* SPDX-License-Identifier: MIT */
/*
 * frame.c - where an AArch64 frame's key is (recorder.h), for the -pg
 * form.
 *
 * A pad's trampoline keeps the return address one word below the
 * function's entry stack pointer, as x86 does, so its key is one word
 * above the slot.  The -pg hook comes after the prologue, and the slot
 * is the frame record's x30, [x29, #8]; where the record sits in the
 * frame depends on the compiler and the frame's size:
 *
 *	GCC	stp x29, x30, [sp, #-N]!; mov x29, sp	      key = x29 + N
 *		sub sp, sp, #N; stp x29, x30, [sp]; mov x29, sp
 *		mov x12, #N; sub sp, sp, x12; stp x29, x30, [sp]; ...
 *	clang	stp x29, x30, [sp, #-16]!; ...; mov x29, sp; sub sp, sp, #M
 *		sub sp, sp, #N; stp x29, x30, [sp, #K]; add x29, sp, #K
 *
 * So each -pg site's prologue is read once, when recording starts: the
 * stack pointer's moves from the entry to the hook, and where x29 and
 * the frame record were put, give the distance from the slot to the
 * key.  A prologue that does anything else to sp before the hook, or
 * does not put the record at x29, is refused with its reason.
 *
 * Under pac-ret (paciasp/pacibsp before the hook, on a core that
 * authenticates) the saved x30 is signed with the entry's sp, and
 * `autiasp` would fail on our unsigned address: such a function is
 * refused.  A pad runs before the signing, so pads are not affected.
 *
 * The distances are kept per site, pads' too (recorder/sitekeys.c).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include <mcount.h>

#include "../recorder.h"

#define A64_PACIASP	0xd503233fu	/* hint #25 */
#define A64_PACIBSP	0xd503237fu	/* hint #27 */
#define A64_HWCAP_PACA	(1ul << 30)
#define MAX_PROLOGUE	64		/* instructions read, at most */

enum site_form { FORM_PAD = 1, FORM_MCOUNT };

static int64_t sext(uint32_t v, unsigned bits)
{
	uint32_t m = 1u << (bits - 1);

	return (int64_t)(v ^ m) - (int64_t)m;
}

/* What the prologue did, relative to the entry's stack pointer. */
struct prologue {
	int64_t sp;		/* sp now */
	int64_t x29;		/* x29, once set */
	int64_t record;		/* where x29, x30 were stored, once */
	bool x29_set, record_set, signs;
	uint32_t known;		/* registers holding a movz constant */
	uint64_t value[31];	/* ... which is this */
};

/* One instruction; false if it is one this reader does not follow. */
static bool step(struct prologue *p, uint32_t i)
{
	unsigned rn = i >> 5 & 31, rd = i & 31;

	if (i == A64_PACIASP || i == A64_PACIBSP) {
		p->signs = true;
	} else if ((i & 0xffc07fff) == 0xa9807bfd) {
		/* stp x29, x30, [sp, #imm]! */
		p->sp += sext(i >> 15 & 0x7f, 7) * 8;
		p->record = p->sp;
		p->record_set = true;
	} else if ((i & 0xffc07fff) == 0xa9007bfd) {
		/* stp x29, x30, [sp, #imm] */
		p->record = p->sp + sext(i >> 15 & 0x7f, 7) * 8;
		p->record_set = true;
	} else if ((i & 0xffc003e0) == 0xa98003e0 ||
		   (i & 0xffc003e0) == 0x6d8003e0) {
		/* stp x, x / d, d, [sp, #imm]! */
		p->sp += sext(i >> 15 & 0x7f, 7) * 8;
	} else if ((i & 0xffc003e0) == 0xad8003e0) {
		/* stp q, q, [sp, #imm]! */
		p->sp += sext(i >> 15 & 0x7f, 7) * 16;
	} else if ((i & 0xffe00fe0) == 0xf8000fe0 ||
		   (i & 0xffe00fe0) == 0xfc000fe0) {
		/* str x / d, [sp, #imm]! */
		p->sp += sext(i >> 12 & 0x1ff, 9);
	} else if ((i & 0xff8003ff) == 0xd10003ff) {
		/* sub sp, sp, #imm{, lsl #12} */
		p->sp -= (int64_t)(i >> 10 & 0xfff) << (i >> 22 & 1 ? 12 : 0);
	} else if ((i & 0xff800000) == 0xd2800000 && rd != 31) {
		/* movz xd, #imm16{, lsl #16 * hw}: a big frame's size */
		p->value[rd] = (uint64_t)(i >> 5 & 0xffff) << (16 * (i >> 21 & 3));
		p->known |= 1u << rd;
		return true;
	} else if ((i & 0xffe0ffff) == 0xcb2063ff) {
		/* sub sp, sp, xm (uxtx) */
		unsigned rm = i >> 16 & 31;

		if (rm == 31 || !(p->known >> rm & 1))
			return false;
		p->sp -= (int64_t)p->value[rm];
	} else if ((i & 0xff8003ff) == 0x910003fd) {
		/* add x29, sp, #imm{, lsl #12} (mov x29, sp) */
		p->x29 = p->sp + ((int64_t)(i >> 10 & 0xfff) <<
				  (i >> 22 & 1 ? 12 : 0));
		p->x29_set = true;
	} else if (rd == 31 && (i & 0x1f000000) == 0x11000000) {
		return false;		/* another add/sub (imm) to sp */
	} else if (rd == 31 && (i & 0x1f200000) == 0x0b200000) {
		return false;		/* add/sub (extended register) to sp */
	} else if (rn == 31 && (i & 0x3a000000) == 0x28000000 &&
		   (i >> 23 & 1)) {
		return false;		/* another pair with sp written back */
	} else if (rn == 31 && (i & 0x3b200400) == 0x38000400) {
		return false;		/* another single with sp written back */
	} else if ((i & 0x7c000000) == 0x14000000 ||
		   (i & 0x7e000000) == 0x34000000 ||
		   (i & 0xff000010) == 0x54000000 ||
		   (i & 0xfe000000) == 0xd6000000) {
		return false;		/* a branch: not one straight run */
	}
	if (rd != 31)
		p->known &= ~(1u << rd);	/* (rd of most forms) */
	return true;
}

/* The distance from the frame record's x30 to the key, or a reason. */
static const char *read_prologue(uintptr_t start, uintptr_t hook,
				 uintptr_t *delta)
{
	struct prologue p = { 0 };
	uint32_t insn;

	if (hook < start || hook - start > MAX_PROLOGUE * 4 || hook % 4)
		return "its hook is not within its prologue";
	for (uintptr_t a = start; a < hook; a += 4) {
		memcpy(&insn, (const void *)a, 4);
		if (!step(&p, insn))
			return "its prologue moves sp in a way this reader "
			       "does not follow";
	}
	if (p.signs && (getauxval(AT_HWCAP) & A64_HWCAP_PACA))
		return "it signs its return address (pac-ret), which a "
		       "return trampoline cannot stand in for";
	if (!p.x29_set || !p.record_set || p.record != p.x29 || p.x29 >= 0)
		return "its prologue does not keep the frame record at x29";
	*delta = (uintptr_t)(-p.x29 - 8);
	return NULL;
}

/*
 * A site recording is about to enable: its key distance read and kept
 * (-pg), or why it cannot be recorded.  `start` is its function's entry
 * (0 if unknown).  Called on one thread, before recording starts.
 */
const char *rec_arch_site(const struct mcount_site_info *s, uintptr_t start)
{
	struct rec_site_key k = { .ret = s->at + s->len, .form = FORM_PAD,
				  .key_off = sizeof(uintptr_t) };
	uintptr_t delta;
	const char *why;

	if (s->style != MCOUNT_STYLE_PAD) {
		if (!start)
			return "no symbol for its function: its prologue "
			       "cannot be read";
		why = read_prologue(start, s->at, &delta);
		if (why)
			return why;
		k.form = FORM_MCOUNT;
		k.key_off = (int64_t)delta;
	}
	if (!rec_site_key_put(&k))
		return "no memory for the table of frame keys";
	return NULL;
}

/*
 * The key of a frame entered through the hook returning to `func`; 0
 * for a site not read when recording started (enabled since through the
 * live API), which rec_entry then leaves alone.
 */
uintptr_t rec_arch_key(uintptr_t func, uintptr_t **slot, bool *copy)
{
	const struct rec_site_key *k = rec_site_key_get(func);

	if (!k)
		return 0;
	*copy = k->form == FORM_PAD;
	return (uintptr_t)*slot + (uintptr_t)k->key_off;
}
