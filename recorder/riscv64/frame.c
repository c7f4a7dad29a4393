/* SPDX-License-Identifier: MIT */
/*
 * frame.c - where an RV64 frame's return address and key are
 * (recorder.h).
 *
 * Both compilers' prologues store ra at the top of the frame, one word
 * below the entry's sp, which is the key.  The trampolines
 * (runtime/riscv64/trampoline.S) hand on a slot one word below a stack
 * pointer:
 *
 *	pad	the trampoline's copy of ra, below the entry's sp: the key
 *		is one word above it
 *	-pg, frame pointer (clang)	-8(s0), where the prologue stored
 *		ra, with s0 the entry's sp: the key is one word above it
 *	-pg, `mv a0, ra` (GCC)	a copy of a0 below the sp at the hook;
 *		the prologue moved sp and stored ra at places the code
 *		before the hook says (arch/riscv.c reads it, as the engine
 *		does at boot to tell these two forms apart)
 *
 * So each site's form, and for GCC's form the offsets of ra's slot and
 * of the entry's sp from the hook's sp, are read once when recording
 * starts and kept per site (recorder/sitekeys.c).
 * A site whose prologue the reader cannot follow makes recording refuse
 * at start.
 *
 * The slot of a pad, and the frame-pointer form's, are marked copies: a
 * prologue that saves ra elsewhere than -8 from the entry's sp is still
 * handled in an unwind (record.c searches the frame).
 *
 * Arguments (-A): a pad runs before the prologue, and clang's -pg hook
 * after one that only made the frame, so a0-a7 reach the trampoline
 * intact, which keeps them in its frame (runtime/riscv64/frame.h).  A
 * pad's frame is a fixed way below the slot; the frame-pointer form's
 * slot is -8(s0), the entry's sp, and the hook's sp is the frame's size
 * below that, which the prologue says.  GCC's -pg hook comes after
 * `mv a0, ra`, a0 lost, and a prologue may write a0-a7 before clang's:
 * such sites are refused (rec_arch_args_lost).
 */
#define _GNU_SOURCE
#include <stdint.h>

#include <mcount.h>

#include "../../arch/arch.h"
#include "../../runtime/riscv64/frame.h"
#include "../recorder.h"
#include "entry.h"

#define MAX_PROLOGUE	512		/* bytes read, at most */
#define MAX_FRAME	(1 << 20)	/* a frame's size taken, at most */

enum site_form { FORM_COPY = 1, FORM_A0 };

/* A pad's saved a0 from its slot, the trampoline's copy of ra. */
#define PAD_ARGS (-(MC_RT_RV_FRAME + MC_RT_RV_PAD_EXTRA - 8) + \
		  MC_RT_RV_ARGS_AT)
_Static_assert(FORM_COPY == REC_S_FORM_COPY, "entry.S's test of a copy");

/*
 * The saved a0 of a frame-pointer form's trampoline, in bytes from the
 * slot -8(s0), s0 the entry's sp: the hook's sp is the frame's size
 * below it and the trampoline's frame MC_RT_RV_FRAME below that.  0 if
 * the prologue does not say the frame's size, or writes a0-a7.
 */
static int32_t fp_form_args(const uint8_t *code, size_t len)
{
	int64_t slot, entry_sp;

	if (!mc_arch_riscv64_args_kept(code, len) ||
	    !mc_arch_riscv64_ra_slot(code, len, &slot, &entry_sp) ||
	    entry_sp < 0 || entry_sp > MAX_FRAME)
		return 0;
	return (int32_t)(8 - entry_sp - MC_RT_RV_FRAME + MC_RT_RV_ARGS_AT);
}

/* A -pg site's form, read from its function's code up to the hook. */
static const char *read_mcount(uintptr_t start, uintptr_t hook,
			       struct rec_site_key *k)
{
	const uint8_t *code = (const uint8_t *)start;
	size_t len = hook - start;

	if (hook < start || len > MAX_PROLOGUE)
		return "its hook is not within its prologue";
	switch (mc_arch_riscv64_caller(code, len)) {
	case MC_RV_CALLER_FP:
		k->form = FORM_COPY;
		k->args_off = fp_form_args(code, len);
		return NULL;
	case MC_RV_CALLER_A0:
		if (!mc_arch_riscv64_ra_slot(code, len, &k->slot_off,
					     &k->key_off))
			break;
		k->form = FORM_A0;
		k->args_off = 0;
		return NULL;
	default:
		break;
	}
	return "its prologue does not say where it saved ra";
}

/*
 * A site recording is about to enable: its form read and kept, or why
 * it cannot be recorded.  `start` is its function's entry (0 if
 * unknown).  Called on one thread, before recording starts.
 */
const char *rec_arch_site(const struct mcount_site_info *s, uintptr_t start)
{
	struct rec_site_key k = { .ret = s->at + s->len, .form = FORM_COPY,
				  .args_off = PAD_ARGS };	/* a pad's */
	const char *why;

	if (s->style != MCOUNT_STYLE_PAD) {
		if (!start)
			return "no symbol for its function: its prologue "
			       "cannot be read";
		why = read_mcount(start, s->at, &k);
		if (why)
			return why;
	}
	if (!rec_site_key_put(&k))
		return "no memory for the table of frame keys";
	return NULL;
}

/*
 * The key of a frame entered through the hook returning to `func`, with
 * *slot moved to where the function keeps its return address; 0 for a
 * site not read when recording started, or one whose slot does not hold
 * the return address the trampoline saw.
 */
uintptr_t rec_arch_key(uintptr_t func, uintptr_t **slot, bool *copy)
{
	const struct rec_site_key *k = rec_site_key_get(func);
	uintptr_t sp = (uintptr_t)(*slot + 1);
	uintptr_t *real;

	if (!k)
		return 0;
	*copy = k->form == FORM_COPY;
	if (k->form == FORM_COPY)
		return sp;
	real = (uintptr_t *)(sp + (uintptr_t)k->slot_off);
	if (*real != **slot)
		return 0;
	*slot = real;
	return sp + (uintptr_t)k->key_off;
}

/*
 * Why site `s` (of the function at `start`) cannot have its arguments
 * read, or NULL: rec_arch_site's reading, for -A before recording.
 */
const char *rec_arch_args_lost(const struct mcount_site_info *s,
			       uintptr_t start)
{
	struct rec_site_key k = { .args_off = PAD_ARGS };
	const char *why;

	if (s->style == MCOUNT_STYLE_PAD)
		return NULL;
	if (!start)
		return "no symbol for its function: its prologue cannot be "
		       "read";
	why = read_mcount(start, s->at, &k);
	if (why)
		return why;
	if (k.form == FORM_A0)
		return "its -pg hook (GCC's) comes after `mv a0, ra`, which "
		       "lost the first argument (build it with "
		       "-fpatchable-function-entry=4, or with clang; -R works "
		       "either way)";
	return k.args_off ? NULL : "its prologue writes a0-a7 before its -pg "
				   "hook, or does not say its frame's size";
}

/* The trampoline's saved a0 of the site returning to `func`, or NULL. */
const uintptr_t *rec_arch_args(uintptr_t func, const uintptr_t *slot)
{
	const struct rec_site_key *k = rec_site_key_get(func);

	if (!k || !k->args_off)
		return NULL;
	return (const uintptr_t *)((uintptr_t)slot + (intptr_t)k->args_off);
}
