/* SPDX-License-Identifier: MIT */
/*
 * frame.c - where a traced 32-bit ARM function keeps its return address
 * when its hook runs, and its frame's key (recorder.h), read from its
 * prologue when recording starts.
 *
 * The runtime's trampoline (runtime/arm/trampoline.S) passes the slot
 * of the word its live form pushed, lr at the hook, which it pops back
 * into lr.  Let T be what the prologue took off sp before the hook: the
 * entry's stack pointer, which the function returns with and which is
 * the frame's key, is T + 4 above that word.
 *
 *	pad, or a -pg function that keeps lr in its register (a leaf;
 *	GCC's variadic leaf pushes its register arguments, lr not):
 *		the function returns through lr, which the pop gives back,
 *		so the pushed word is the slot.  It is a copy: a function
 *		that saves lr after the hook saves the address we swap in,
 *		wherever it does, and an unwind looks for it in the frame
 *		(record.c).
 *	-pg, lr saved by the prologue at L below the entry's sp (the top
 *	of the first push, or of a later one in clang's variadic
 *	functions): the function returns through that word, T + 4 - L
 *	above the pushed one.
 *
 * So each site's prologue is decoded at start, from the function's
 * symbol to the hook (mc_arch_arm_prologue, arch/arm.c, which knows
 * what GCC and clang put there and says why when it meets anything
 * else), and the two offsets kept per site (recorder/sitekeys.c),
 * found again by the return address into the function that the
 * trampoline reports.  A wanted function whose prologue cannot be read
 * makes recording refuse at start, naming it (filters.c).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include <mcount.h>

#include "../../arch/arch.h"
#include "../recorder.h"

/* Bytes from the symbol to the hook, at most: clang schedules work
 * before the call (a floating-point result computed first, say). */
#define PROLOGUE_MAX 1024

enum site_form { FORM_COPY = 1, FORM_SAVED };

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
 * A -pg hook's prologue: from *start (its function's entry, 0 if no
 * symbol) to *end, the hook's `mov ip, lr`; NULL or why it cannot be
 * read.
 */
static const char *find_prologue(const struct mcount_site_info *s,
				 uintptr_t *start, uintptr_t *end,
				 bool *thumb)
{
	/* the hook: `mov ip, lr` (once `push {lr}`) then the `bl` at addr */
	*thumb = s->addr >= 2 && thumb_live(s->addr - 2);
	if (!*thumb && (s->addr < 4 || word_at(s->addr - 4) != ARM_MOV_IP_LR))
		return "a hook the recorder does not know";
	if (!*start)
		return "no symbol says where its prologue starts";
	*start &= ~(uintptr_t)1;
	*end = s->addr - (*thumb ? 2 : 4);
	if (*start > *end || *end - *start > PROLOGUE_MAX)
		return "its prologue is too long to read";
	return NULL;
}

/* A -pg hook's offsets, from its function's prologue; NULL or why not. */
static const char *read_hook(const struct mcount_site_info *s,
			     uintptr_t start, struct rec_site_key *k)
{
	uint32_t taken, lr_at;
	const char *why;
	uintptr_t end;
	bool thumb;

	why = find_prologue(s, &start, &end, &thumb);
	if (!why)
		why = mc_arch_arm_prologue((const uint8_t *)start,
					   end - start, thumb, &taken, &lr_at);
	if (why)
		return why;
	k->ret = s->addr + 4;
	k->key_off = (int64_t)taken + 4;
	k->slot_off = lr_at ? (int64_t)taken + 4 - lr_at : 0;
	k->form = lr_at ? FORM_SAVED : FORM_COPY;
	return NULL;
}

/*
 * Before site `s` of the function at `start` (0: no symbol) is enabled:
 * learn where its function's return address is at the hook.  NULL, or
 * why it cannot be told.  Called on one thread.
 */
const char *rec_arch_site(const struct mcount_site_info *s, uintptr_t start)
{
	struct rec_site_key k = { .form = FORM_COPY, .key_off = 4 };
	const char *why;
	bool thumb;

	if (s->style == MCOUNT_STYLE_PAD) {	/* at the entry: lr itself */
		thumb = thumb_live(s->at);
		if (!thumb && word_at(s->at) != ARM_MOV_IP_LR)
			return "a pad the recorder does not know";
		k.ret = s->at + (thumb ? 6 : 8);
	} else if ((why = read_hook(s, start, &k)) != NULL) {
		return why;
	}
	return rec_site_key_put(&k) ? NULL
				    : "no memory for the table of frame keys";
}

/*
 * The frame of the function entered at `ret`: *slot, the word the
 * trampoline pushed, moved to the one the function returns through, and
 * the key; 0 for a site not read at start (not followed).
 */
uintptr_t rec_arch_key(uintptr_t ret, uintptr_t **slot, bool *copy)
{
	const struct rec_site_key *k = rec_site_key_get(ret);
	uintptr_t pushed = (uintptr_t)*slot;

	*copy = false;
	if (!k)
		return 0;
	*copy = k->form == FORM_COPY;
	*slot = (uintptr_t *)(pushed + (uintptr_t)k->slot_off);
	return pushed + (uintptr_t)k->key_off;
}

/*
 * Why site `s` (of the function at `start`) cannot have its arguments
 * read, or NULL.  The trampoline saves r0-r3 as the hook left them,
 * which __gnu_mcount_nc's contract keeps; a pad runs before the
 * prologue, but a -pg hook after it, and clang schedules work there
 * that may reuse r0-r3 (moving the arguments to other registers
 * first): such a prologue is refused.
 */
const char *rec_arch_args_lost(const struct mcount_site_info *s,
			       uintptr_t start)
{
	uint32_t written;
	const char *why;
	uintptr_t end;
	bool thumb;

	if (s->style == MCOUNT_STYLE_PAD)
		return NULL;
	why = find_prologue(s, &start, &end, &thumb);
	if (!why)
		why = mc_arch_arm_prologue_writes((const uint8_t *)start,
						  end - start, thumb,
						  &written);
	if (why)
		return why;
	return written & 0xf ? "its prologue writes r0-r3 before its -pg "
			       "hook (clang's may): the arguments may be lost "
			       "there (-R works either way)" : NULL;
}
