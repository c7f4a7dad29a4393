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
 * So each -pg site's prologue is read once, when recording starts
 * (mc_arch_aarch64_frame_record, arch/aarch64.c): the stack pointer's
 * moves from the entry to the hook, and where x29 and the frame record
 * were put, give the distance from the slot to the key.  A prologue that does anything else to sp before the hook, or
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
#include <sys/auxv.h>

#include <mcount.h>

#include "../../arch/arch.h"
#include "../recorder.h"
#include "entry.h"

#define A64_HWCAP_PACA	(1ul << 30)
#define MAX_PROLOGUE	64		/* instructions read, at most */

enum site_form { FORM_PAD = 1, FORM_MCOUNT };
_Static_assert(FORM_PAD == REC_S_FORM_PAD, "entry.S's test of a pad");

/* The distance from the frame record's x30 to the key, or a reason. */
static const char *read_prologue(uintptr_t start, uintptr_t hook,
				 uintptr_t *delta)
{
	enum mc_a64_frame got;
	int64_t x29 = 0;
	bool signs = false;

	if (hook < start || hook - start > MAX_PROLOGUE * 4 || hook % 4)
		return "its hook is not within its prologue";
	got = mc_arch_aarch64_frame_record((const uint8_t *)start,
					   hook - start, &x29, &signs);
	if (got == MC_A64_FRAME_UNFOLLOWED)
		return "its prologue moves sp in a way this reader "
		       "does not follow";
	if (signs && (getauxval(AT_HWCAP) & A64_HWCAP_PACA))
		return "it signs its return address (pac-ret), which a "
		       "return trampoline cannot stand in for";
	if (got != MC_A64_FRAME_RECORD)
		return "its prologue does not keep the frame record at x29";
	*delta = (uintptr_t)(-x29 - 8);
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
