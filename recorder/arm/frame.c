/* SPDX-License-Identifier: MIT */
/*
 * frame.c - where a traced 32-bit ARM function keeps its return address
 * when its hook runs, read from its prologue when recording starts.
 *
 * The runtime's trampoline (runtime/arm/trampoline.S) passes the slot
 * of the word its live form pushed, lr at the hook, which it pops back
 * into lr.  That is the function's return address for good when the
 * hook comes first: a pad, or GCC's -pg hook in a function with no
 * prologue before it.  GCC and clang put the -pg hook after the
 * prologue, though, and a function that saved lr there returns through
 * that copy (`pop {..., pc}`): D bytes above the pushed word, D being
 * what the prologue took off sp.  A frame's key is the stack pointer
 * the function returns with, which rec_arch_key takes to be 4 above the
 * slot, so the copy must be the first push's top word, where AAPCS
 * prologues put lr (a pad's lr goes there too, at its first push).
 *
 * So at start each site's prologue is decoded, from the function's
 * symbol to the hook, and D kept per site, keyed by the return address
 * into the function that the trampoline reports.  The decoder knows the
 * instructions GCC and clang put there (push, sub sp, vpush, setting a
 * frame pointer, register moves, stores to the frame) and nothing else:
 * a prologue with anything it does not know, or lr saved anywhere but
 * on top, or a frame made with lr not saved, makes recording refuse at
 * start, naming the function (start.c).  Written only before recording
 * starts, read lock-free after.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mcount.h>

#include "../recorder.h"

#define PROLOGUE_MAX 64		/* bytes from the symbol to the hook */

struct site_slot {
	uintptr_t ret;		/* return address into the function; 0: free */
	uintptr_t delta;	/* the slot, in bytes above the pushed word */
	bool copy;		/* a pad's: lr is saved wherever the prologue
				   puts it, on the pushed word or not */
};

static struct site_slot *table;
static size_t cap, used;

static size_t hash(uintptr_t ret)
{
	return (size_t)((ret >> 1) * 0x9e3779b9u) & (cap - 1);
}

static bool put(uintptr_t ret, uintptr_t delta, bool copy)
{
	size_t h;

	if (2 * (used + 1) > cap) {
		size_t ncap = cap ? 2 * cap : 256;
		struct site_slot *old = table, *v = calloc(ncap, sizeof(*v));

		if (!v)
			return false;
		table = v;
		cap = ncap;
		used = 0;
		for (size_t i = 0; old && i < ncap / 2; i++)
			if (old[i].ret)
				put(old[i].ret, old[i].delta, old[i].copy);
		free(old);
	}
	for (h = hash(ret); table[h].ret && table[h].ret != ret;
	     h = (h + 1) & (cap - 1))
		;
	used += !table[h].ret;
	table[h] = (struct site_slot){ ret, delta, copy };
	return true;
}

/*
 * The frame of the function entered at `ret`: *slot, the word the
 * trampoline pushed, moved to the one the function returns through,
 * and the key 4 above that; 0 for a site not read at start (enabled
 * since: not followed).
 */
uintptr_t rec_arch_key(uintptr_t ret, uintptr_t **slot, bool *copy)
{
	*copy = false;
	if (!cap)
		return 0;
	for (size_t h = hash(ret); table[h].ret; h = (h + 1) & (cap - 1))
		if (table[h].ret == ret) {
			*slot = (uintptr_t *)((uintptr_t)*slot + table[h].delta);
			*copy = table[h].copy;
			return (uintptr_t)(*slot + 1);
		}
	return 0;
}

/* What the prologue read so far did to sp, and where lr went. */
struct prologue {
	uint32_t taken;		/* bytes taken off sp */
	bool lr_saved;		/* by the first push, on its top */
	const char *why;	/* set: not readable */
};

/* A push of `n` registers, `lr` among them (always its top word). */
static void push(struct prologue *p, unsigned n, bool lr)
{
	if (lr && p->taken)
		p->why = "its prologue saves lr below other data";
	p->lr_saved |= lr;
	p->taken += 4 * n;
}

static uint32_t ror32(uint32_t v, unsigned r)
{
	r &= 31;
	return r ? v >> r | v << (32 - r) : v;
}

/* Thumb-2's modified immediate (ThumbExpandImm), from i:imm3:imm8. */
static uint32_t thumb_imm(uint32_t imm12)
{
	uint32_t b = imm12 & 0xff;

	if (imm12 >> 10 == 0) {
		switch (imm12 >> 8 & 3) {
		case 0: return b;
		case 1: return b << 16 | b;
		case 2: return b << 24 | b << 8;
		default: return b << 24 | b << 16 | b << 8 | b;
		}
	}
	return ror32(0x80 | (imm12 & 0x7f), imm12 >> 7);
}

/* A 16-bit Thumb instruction of a prologue. */
static void thumb16(struct prologue *p, uint16_t h)
{
	unsigned rd = (h >> 4 & 8) | (h & 7);

	if ((h & 0xfe00) == 0xb400)			/* push {rlist[, lr]} */
		push(p, (unsigned)__builtin_popcount(h & 0x1ff), h & 0x100);
	else if ((h & 0xff80) == 0xb080)		/* sub sp, #imm7*4 */
		p->taken += 4u * (h & 0x7f);
	else if ((h & 0xfc00) == 0x4400 && (h & 0xff00) != 0x4700 &&
		 rd != 13 && rd != 15)
		;			/* add, cmp, mov rd, rm (high registers) */
	else if (h < 0x4400 || (h >= 0x4800 && h < 0xb000))
		;	/* low-register arithmetic, loads and stores, add rd,
			   sp/pc: none writes sp or branches */
	else
		p->why = "an instruction of its prologue the recorder does not read";
}

/* A 32-bit Thumb-2 instruction of a prologue. */
static void thumb32(struct prologue *p, uint16_t h1, uint16_t h2)
{
	uint32_t imm12 = (uint32_t)(h1 >> 10 & 1) << 11 | (h2 >> 4 & 0x700) |
			 (h2 & 0xff);
	unsigned rd = h2 >> 8 & 15;

	if (h1 == 0xe92d && !(h2 & 0xa000))		/* push.w {rlist} */
		push(p, (unsigned)__builtin_popcount(h2), h2 & 0x4000);
	else if (h1 == 0xf84d && (h2 & 0x0fff) == 0x0d04)
		push(p, 1, h2 >> 12 == 14);		/* str.w rt, [sp, #-4]! */
	else if (h1 == 0xed2d && (h2 & 0x0e00) == 0x0a00)	/* vpush */
		p->taken += 4u * (h2 & 0xff);
	else if ((h1 & 0xfbff) == 0xf1ad && (h2 & 0x8f00) == 0x0d00)
		p->taken += thumb_imm(imm12);		/* sub.w sp, sp, #c */
	else if ((h1 & 0xfbff) == 0xf2ad && (h2 & 0x8f00) == 0x0d00)
		p->taken += imm12;			/* subw sp, sp, #imm */
	else if (h1 >> 11 == 0x1e && !(h2 & 0x8000) && rd != 13 && rd != 15)
		;	/* data processing, immediate (movw, add.w rd, sp...) */
	else if (((h1 & 0xfe00) == 0xea00 || (h1 & 0xff00) == 0xfa00 ||
		  (h1 & 0xff80) == 0xfb00) && rd != 13 && rd != 15)
		;	/* data processing, registers; multiply */
	else
		p->why = "an instruction of its prologue the recorder does not read";
}

/* An ARM-state instruction of a prologue. */
static void arm32(struct prologue *p, uint32_t w)
{
	unsigned rd = w >> 12 & 15;

	if ((w & 0xffff0000) == 0xe92d0000 && !(w & 0xa000))
		push(p, (unsigned)__builtin_popcount(w & 0xffff), w & 0x4000);
	else if ((w & 0xffff0fff) == 0xe52d0004)	/* str rt, [sp, #-4]! */
		push(p, 1, rd == 14);
	else if ((w & 0xffff0e00) == 0xed2d0a00)	/* vpush */
		p->taken += 4u * (w & 0xff);
	else if (((w & 0xfff00000) == 0xe3000000 ||
		  (w & 0xfff00000) == 0xe3400000) && rd != 13 && rd != 15)
		;					/* movw, movt */
	else if ((w & 0xfffff000) == 0xe24dd000)	/* sub sp, sp, #c */
		p->taken += ror32(w & 0xff, 2 * (w >> 8 & 15));
	else if ((w & 0xffff0000) == 0xe28d0000 && rd != 13 && rd != 15)
		;					/* add rd, sp, #c */
	else if ((w & 0xffff0ff0) == 0xe1a00000 && rd != 13 && rd != 15)
		;					/* mov rd, rm */
	else
		p->why = "an instruction of its prologue the recorder does not read";
}

static void read_prologue(struct prologue *p, const uint8_t *c, size_t n,
			  bool thumb)
{
	size_t i = 0;

	while (i < n && !p->why) {
		uint16_t h1 = (uint16_t)(c[i] | c[i + 1] << 8);

		if (!thumb) {
			arm32(p, (uint32_t)h1 | (uint32_t)(c[i + 2] |
							    c[i + 3] << 8) << 16);
			i += 4;
		} else if (h1 >> 11 < 0x1d) {
			thumb16(p, h1);
			i += 2;
		} else if (i + 4 <= n) {
			thumb32(p, h1, (uint16_t)(c[i + 2] | c[i + 3] << 8));
			i += 4;
		} else {
			p->why = "its prologue does not end where its hook starts";
		}
	}
	if (!p->why && i != n)
		p->why = "its prologue does not end where its hook starts";
}

/* 16-bit halfwords and 32-bit words of the live forms (arch/arm.c). */
#define ARM_MOV_IP_LR 0xe1a0c00eu
#define THUMB_MOV_IP_LR 0x46f4u
#define THUMB_SKIP_BL 0xe001u

static uint32_t word_at(uintptr_t a)
{
	uint32_t w;

	memcpy(&w, (const void *)a, 4);
	return w;
}

static uint16_t half_at(uintptr_t a)
{
	uint16_t h;

	memcpy(&h, (const void *)a, 2);
	return h;
}

/* The live form `mov ip, lr` (Thumb: or the `b.n` that skips it) at a. */
static bool thumb_live(uintptr_t a)
{
	uint16_t h = half_at(a);

	return h == THUMB_MOV_IP_LR || h == THUMB_SKIP_BL;
}

/*
 * Before site `s` of the function at `start` (0: no symbol) is enabled:
 * learn where its function's return address is at the hook.  NULL, or
 * why it cannot be told.
 */
const char *rec_arch_site(const struct mcount_site_info *s, uintptr_t start)
{
	struct prologue p = { 0 };
	uintptr_t end;
	bool thumb;

	if (s->style == MCOUNT_STYLE_PAD) {	/* at the entry: lr itself */
		thumb = thumb_live(s->at);
		if (!thumb && word_at(s->at) != ARM_MOV_IP_LR)
			return "a pad the recorder does not know";
		return put(s->at + (thumb ? 6 : 8), 0, true) ? NULL
							    : "out of memory";
	}
	/* the hook: `mov ip, lr` (once `push {lr}`) then the `bl` at addr */
	thumb = s->addr >= 2 && thumb_live(s->addr - 2);
	if (!thumb && (s->addr < 4 || word_at(s->addr - 4) != ARM_MOV_IP_LR))
		return "a hook the recorder does not know";
	if (!start)
		return "no symbol says where its prologue starts";
	start &= ~(uintptr_t)1;
	end = s->addr - (thumb ? 2 : 4);
	if (start > end || end - start > PROLOGUE_MAX)
		return "its prologue is too long to read";
	read_prologue(&p, (const uint8_t *)start, end - start, thumb);
	if (!p.why && !p.lr_saved && p.taken)
		p.why = "its prologue makes a frame without saving lr";
	if (p.why)
		return p.why;
	/* lr on the first push's top: 4 below sp at entry, D above ours */
	return put(s->addr + 4, p.lr_saved ? p.taken : 0, false) ? NULL
								 : "out of memory";
}
