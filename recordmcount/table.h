/*
 * table.h - the __mcount_loc sections recordmcount writes.
 *
 * A table may come in pieces: one for code outside COMDAT groups, one
 * per group (so the linker discards a duplicate function's entries with
 * it), and for pads one per code section, linked to it.
 */
#ifndef MC_TABLE_H
#define MC_TABLE_H

#include "../arch/arch.h"
#include "../elf/object.h"

#define MC_TABLE_SECTION "__mcount_loc"
/*
 * The name of --per-section pieces (table.c says why it is not a C
 * identifier).
 */
#define MC_TABLE_SECTION_LINKED ".mcount_loc"
#define MC_PADS_SECTION "__patchable_function_entries"

/* Where a new piece goes and how it is flagged. */
struct mc_piece_place {
	GElf_Xword flags;	/* SHF_ALLOC and what else the piece needs */
	size_t link;		/* sh_link (with SHF_LINK_ORDER), or 0 */
	size_t group;		/* SHT_GROUP section to join, or 0 */
	uint32_t rel_type;	/* SHT_RELA or SHT_REL */
	bool per_section;	/* named MC_TABLE_SECTION_LINKED */
};

/*
 * Add a piece holding `n` slots and their `n` relocations (both taken
 * over, freed with the object), with its relocation section, both in
 * the group when there is one.
 */
bool mc_add_table_piece(struct mc_object *obj, const struct mc_arch *arch,
			const struct mc_piece_place *place, uint8_t *slots,
			void *rels, size_t n);

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
