/* table.c - adding a piece of __mcount_loc to an object. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

const char *mc_table_reloc_name(uint32_t rel_type)
{
	return rel_type == SHT_RELA ? ".rela" MC_TABLE_SECTION
				    : ".rel" MC_TABLE_SECTION;
}

bool mc_piece_start(struct mc_object *obj, const struct mc_arch *arch,
		    uint32_t rel_type, size_t cap, struct mc_piece *piece)
{
	piece->slots = calloc(cap ? cap : 1, arch->addr_size);
	piece->rels = calloc(cap ? cap : 1, mc_reloc_entry_size(obj, rel_type));
	piece->n = 0;
	piece->rel_type = rel_type;
	if (!piece->slots || !piece->rels) {
		mc_piece_free(piece);
		return mc_fail(obj, "out of memory");
	}
	return true;
}

void mc_piece_add(const struct mc_object *obj, const struct mc_arch *arch,
		  struct mc_piece *piece, const struct mc_reloc *r,
		  const uint8_t *slot)
{
	struct mc_reloc at = *r;

	at.offset = piece->n * arch->addr_size;
	memcpy(piece->slots + at.offset, slot, arch->addr_size);
	mc_reloc_store(obj, piece->rel_type, piece->rels, piece->n, &at);
	piece->n++;
}

void mc_piece_free(struct mc_piece *piece)
{
	free(piece->slots);
	free(piece->rels);
	piece->slots = NULL;
	piece->rels = NULL;
}

bool mc_add_table_piece(struct mc_object *obj, const struct mc_arch *arch,
			const struct mc_piece_place *place,
			struct mc_piece *piece)
{
	uint32_t rel_type = piece->rel_type;
	size_t rel_size = mc_reloc_entry_size(obj, rel_type);
	uint8_t *slots = piece->slots;
	void *rels = piece->rels;
	size_t n = piece->n;
	GElf_Xword in_group = place->group ? SHF_GROUP : 0;
	GElf_Shdr table = {
		.sh_type = SHT_PROGBITS,
		.sh_flags = place->flags | in_group,
		.sh_link = (GElf_Word)place->link,
		.sh_addralign = arch->addr_size,
		.sh_entsize = arch->addr_size,
	};
	struct mc_section *t = mc_add_section(obj, MC_TABLE_SECTION, &table,
					      slots, n * arch->addr_size,
					      ELF_T_BYTE);

	if (!t) {
		free(rels);
		return false;
	}
	size_t t_index = t->index;	/* adding a section moves `t` */
	GElf_Shdr relhdr = {
		.sh_type = rel_type,
		.sh_flags = SHF_INFO_LINK | in_group,
		.sh_link = (GElf_Word)obj->symtab->index,
		.sh_info = (GElf_Word)t_index,
		.sh_addralign = arch->addr_size,
		.sh_entsize = rel_size,
	};
	struct mc_section *r = mc_add_section(obj,
					      mc_table_reloc_name(rel_type),
					      &relhdr, rels, n * rel_size,
					      rel_type == SHT_RELA ?
					      ELF_T_RELA : ELF_T_REL);

	return r && (!place->group ||
		     (mc_group_add(obj, place->group, t_index) &&
		      mc_group_add(obj, place->group, r->index)));
}
