/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * table.h - the __mcount_loc sections recordmcount writes.
 *
 * A table may come in pieces: one for code outside COMDAT groups, one
 * per group (so the linker discards a duplicate function's entries with
 * it), and for pads one per code section, linked to it.
 */
#ifndef MC_TABLE_H
#define MC_TABLE_H

#include <string.h>

#include "../arch/arch.h"
#include "../arch/sections.h"
#include "../elf/object.h"

/* Where a new piece goes and how it is flagged. */
struct mc_piece_place {
	GElf_Xword flags;	/* SHF_ALLOC and what else the piece needs */
	size_t link;		/* sh_link (with SHF_LINK_ORDER), or 0 */
	size_t group;		/* SHT_GROUP section to join, or 0 */
	bool per_section;	/* named MC_TABLE_SECTION_LINKED */
};

/*
 * A piece's contents as they are built: `n` address slots and the `n`
 * relocations that fill them, in the object's format, entry k's
 * relocation at slot k.
 */
struct mc_piece {
	uint8_t *slots;		/* n * arch->addr_size bytes */
	void *rels;		/* n relocations of rel_type */
	size_t n;
	uint32_t rel_type;	/* SHT_RELA or SHT_REL */
	struct mc_reloc_table out;	/* over rels, for the entries it
					   can encode */
};

/*
 * An empty piece with room for `cap` entries; false (the object's
 * error set) when out of memory.
 */
bool mc_piece_start(struct mc_object *obj, const struct mc_arch *arch,
		    uint32_t rel_type, size_t cap, struct mc_piece *piece);

/*
 * Append an entry, one of the `cap` the piece was started with: the
 * relocation `r`, moved to the new slot, and the slot's addr_size
 * bytes from `slot` (an addend in place), or NULL for zeros: the slots
 * start zeroed, and a table of zeros (RELA) is then never touched until
 * it is written.
 */
static inline void mc_piece_add(const struct mc_object *obj,
				const struct mc_arch *arch,
				struct mc_piece *piece,
				const struct mc_reloc *r, const uint8_t *slot)
{
	struct mc_reloc at = *r;

	at.offset = piece->n * arch->addr_size;
	if (slot && arch->addr_size == 8)
		memcpy(piece->slots + at.offset, slot, 8);
	else if (slot)
		memcpy(piece->slots + at.offset, slot, arch->addr_size);
	/* What the table cannot encode (ELF32's narrower fields): as ever */
	if (!(piece->n < piece->out.n &&
	      mc_reloc_table_put(&piece->out, piece->n, &at)))
		mc_reloc_store(obj, piece->rel_type, piece->rels, piece->n,
			       &at);
	piece->n++;
}

/* Free what a piece holds, when it goes nowhere. */
void mc_piece_free(struct mc_piece *piece);

/*
 * Add `piece` to the object (its buffers taken over, freed with the
 * object) with its relocation section, both in the group when there is
 * one.
 */
bool mc_add_table_piece(struct mc_object *obj, const struct mc_arch *arch,
			const struct mc_piece_place *place,
			struct mc_piece *piece);

/*
 * The one piece of a table built while scanning: `n` ELF64 RELA
 * entries at `rels` (taken over), which name their symbols by the
 * index written (see mc_table_spec), slots zero.
 */
bool mc_add_written_table(struct mc_object *obj, const struct mc_arch *arch,
			  Elf64_Rela *rels, size_t n);

/* A table's name: per-section (MC_TABLE_SECTION_LINKED) or not. */
const char *mc_table_name(bool per_section);

/* The relocation section's name for a table of this type and form. */
const char *mc_table_reloc_name(uint32_t rel_type, bool per_section);

/* True if `name` is a table's, in either form. */
bool mc_is_table_name(const char *name);

/*
 * Give every per-section piece a reference from the code it is linked
 * to (an R_*_NONE relocation against the piece), so that a linker keeps
 * the piece exactly when it keeps the code, also where it does not
 * follow SHF_LINK_ORDER when it collects (gold, mold).
 */
bool mc_table_link_back(struct mc_object *obj, const struct mc_arch *arch);

#endif
