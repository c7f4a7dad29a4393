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
 * into the function that the trampoline reports.  The decoder
 * (mc_arch_arm_prologue, arch/arm.c) knows the instructions GCC and
 * clang put there and nothing else: a prologue it cannot read, or lr
 * saved anywhere but on top, or a frame made with lr not saved, makes
 * recording refuse at start, naming the function (start.c).  Written
 * only before recording starts, read lock-free after.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mcount.h>

#include "../../arch/arch.h"
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
	uint32_t taken, lr_at;
	const char *why;
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
	why = mc_arch_arm_prologue((const uint8_t *)start, end - start,
				   thumb, &taken, &lr_at);
	if (why)
		return why;
	/* lr on the first push's top: 4 below sp at entry, D above ours */
	return put(s->addr + 4, lr_at ? taken : 0, false) ? NULL
							  : "out of memory";
}
