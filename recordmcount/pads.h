/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pads.h - NOP pads from -fpatchable-function-entry=N[,M].
 *
 * GCC leaves N NOPs per function, M of them before the function's
 * symbol, and records the first NOP's address in a section named
 * __patchable_function_entries (one per function's section, linked to it
 * with SHF_LINK_ORDER and in its COMDAT group).  These are hook sites as
 * much as calls to __fentry__ are, so by default recordmcount moves them
 * into __mcount_loc: the compiler's sections are renamed in place, which
 * keeps their link order and group membership, so the linker drops an
 * entry exactly when it drops the function.
 */
#ifndef MC_PADS_H
#define MC_PADS_H

#include "../arch/arch.h"
#include "../elf/object.h"
#include "options.h"
#include "sites.h"
#include "table.h"

struct mc_pad {
	size_t table;		/* the __patchable_function_entries section */
	struct mc_reloc r;	/* its relocation naming this pad, as read
				   (decoded once, for the table too) */
	size_t shndx;		/* code section holding the pad */
	uint64_t offset;	/* first NOP, as the compiler recorded it */
	uint64_t entry;		/* the function's entry, in that section */
	unsigned before;	/* NOPs before the entry (M) */
	unsigned after;		/* NOPs from the entry on (N - M) */
	bool valid;		/* holds NOPs where GCC puts them */
};

struct mc_pad_list {
	struct mc_pad *v;
	size_t n, cap;
};

/*
 * Every pad the object's __patchable_function_entries sections record,
 * measured against the code; pads that do not hold the architecture's
 * NOPs (or that no function follows) go to `warn`, with their bytes, and
 * are marked invalid.  False (obj->error set) on corrupt tables.
 */
bool mc_find_pads(struct mc_object *obj, const struct mc_arch *arch,
		  const struct mc_options *opt, struct mc_pad_list *out,
		  mc_warn_fn warn);

/*
 * Turn each __patchable_function_entries section into a __mcount_loc
 * piece: sorted, no duplicates, each entry relocated exactly as the
 * compiler wrote it.  Only for a list whose pads are all valid: an
 * invalid pad's entry must stay where the compiler listed it.  With
 * `per_section` the pieces take --per-section's name (table.c).
 */
bool mc_move_pads_to_table(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_pad_list *pads, bool per_section);

/*
 * One warning, through `warn`, when the runtime cannot enable some of
 * the valid pads (too few NOP bytes from the function's entry on for
 * its call, or NOPs of mixed sizes; arch/'s mc_pad_refusal, the
 * runtime's own judge): how many, and the first with why.  They are
 * recorded all the same: the object is sound, and another reader of
 * the table (a kernel's ftrace) has needs of its own.  Nothing where
 * the architecture has no runtime that patches pads.
 */
void mc_warn_unusable_pads(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_pad_list *pads,
			   const struct mc_options *opt, mc_warn_fn warn);

/* How many pads are valid / were reported invalid. */
size_t mc_count_valid_pads(const struct mc_pad_list *pads);

void mc_pad_list_free(struct mc_pad_list *l);

#endif
