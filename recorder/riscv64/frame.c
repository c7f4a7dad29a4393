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
 * starts, into a hash table from the hook's return address (the `func`
 * rec_entry gets), written on one thread then and only read afterwards.
 * A site whose prologue the reader cannot follow makes recording refuse
 * at start.
 *
 * The slot of a pad, and the frame-pointer form's, are marked copies: a
 * prologue that saves ra elsewhere than -8 from the entry's sp is still
 * handled in an unwind (record.c searches the frame).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <mcount.h>

#include "../../arch/arch.h"
#include "../recorder.h"

#define MAX_PROLOGUE	512		/* bytes read, at most */

enum site_form { FORM_COPY = 1, FORM_A0 };

struct key_entry {
	uintptr_t ret;		/* 0: free */
	int64_t slot_off;	/* FORM_A0: ra's slot from the hook's sp */
	int64_t key_off;	/* FORM_A0: the entry's sp from it */
	enum site_form form;
};

static struct key_entry *keys;
static size_t keys_mask;

static bool keys_alloc(void)
{
	size_t n = 64;

	while (n < 2 * mcount_site_count())
		n <<= 1;
	keys = mmap(NULL, n * sizeof(*keys), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (keys == MAP_FAILED) {
		keys = NULL;
		return false;
	}
	keys_mask = n - 1;
	return true;
}

static struct key_entry *keys_find(uintptr_t ret)
{
	for (size_t h = (ret >> 1) * 0x9e3779b97f4a7c15u;; h++) {
		struct key_entry *e = &keys[h & keys_mask];

		if (e->ret == ret || e->ret == 0)
			return e;
	}
}

/* A -pg site's form, read from its function's code up to the hook. */
static const char *read_mcount(uintptr_t start, uintptr_t hook,
			       struct key_entry *k)
{
	const uint8_t *code = (const uint8_t *)start;
	size_t len = hook - start;

	if (hook < start || len > MAX_PROLOGUE)
		return "its hook is not within its prologue";
	switch (mc_arch_riscv64_caller(code, len)) {
	case MC_RV_CALLER_FP:
		k->form = FORM_COPY;
		return NULL;
	case MC_RV_CALLER_A0:
		if (!mc_arch_riscv64_ra_slot(code, len, &k->slot_off,
					     &k->key_off))
			break;
		k->form = FORM_A0;
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
	struct key_entry k = { .ret = s->at + s->len, .form = FORM_COPY };
	const char *why;

	if (s->style != MCOUNT_STYLE_PAD) {
		if (!start)
			return "no symbol for its function: its prologue "
			       "cannot be read";
		why = read_mcount(start, s->at, &k);
		if (why)
			return why;
	}
	if (!keys && !keys_alloc())
		return "no memory for the table of frame keys";
	*keys_find(k.ret) = k;
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
	struct key_entry *e = keys ? keys_find(func) : NULL;
	uintptr_t sp = (uintptr_t)(*slot + 1);
	uintptr_t *real;

	if (!e || e->ret != func)
		return 0;
	*copy = e->form == FORM_COPY;
	if (e->form == FORM_COPY)
		return sp;
	real = (uintptr_t *)(sp + (uintptr_t)e->slot_off);
	if (*real != **slot)
		return 0;
	*slot = real;
	return sp + (uintptr_t)e->key_off;
}
