/* SPDX-License-Identifier: GPL-2.0-only */
/* table.c - adding a piece of __mcount_loc to an object. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

/*
 * Why per-section pieces have a name of their own, and a reference from
 * their code.
 *
 * --gc-sections keeps what a kept section refers to.  A piece refers to
 * its code (its entries' relocations), never the reverse, so on its own
 * a piece would keep dead code alive, or be dropped with live code.
 * SHF_LINK_ORDER tells a linker "keep this piece exactly when you keep
 * the section it is linked to": GNU ld and lld follow it, gold and mold
 * (1.10) do not.  gold drops a piece that nothing refers to, and keeps
 * every section called X once anything names __start_X or __stop_X;
 * mold keeps every section whose name is a C identifier, named or not.
 *
 * So a per-section piece is named ".mcount_loc", which is not a C
 * identifier (no linker roots it, or defines __start_/__stop_ for it),
 * and its code refers to it through one R_*_NONE relocation, which
 * changes no byte.  Each of the four linkers then keeps a piece exactly
 * when it keeps the code.  Without __start_/__stop_, a program linked
 * with no script finds the table by its output section's name
 * (runtime/linux/objects.c).  The per-object form keeps the kernel's name,
 * which its vmlinux.lds gathers.
 */
const char *mc_table_name(bool per_section)
{
	return per_section ? MC_TABLE_SECTION_LINKED : MC_TABLE_SECTION;
}

const char *mc_table_reloc_name(uint32_t rel_type, bool per_section)
{
	if (per_section)
		return rel_type == SHT_RELA ? ".rela" MC_TABLE_SECTION_LINKED
					    : ".rel" MC_TABLE_SECTION_LINKED;
	return rel_type == SHT_RELA ? ".rela" MC_TABLE_SECTION
				    : ".rel" MC_TABLE_SECTION;
}

bool mc_is_table_name(const char *name)
{
	return strcmp(name, MC_TABLE_SECTION) == 0 ||
	       strcmp(name, MC_TABLE_SECTION_LINKED) == 0;
}

bool mc_piece_start(struct mc_object *obj, const struct mc_arch *arch,
		    uint32_t rel_type, size_t cap, struct mc_piece *piece)
{
	piece->slots = calloc(cap ? cap : 1, arch->addr_size);
	piece->rels = calloc(cap ? cap : 1, mc_reloc_entry_size(obj, rel_type));
	piece->n = 0;
	piece->rel_type = rel_type;
	mc_reloc_table_over(obj, rel_type, piece->rels, cap, &piece->out);
	if (!piece->slots || !piece->rels) {
		mc_piece_free(piece);
		return mc_fail(obj, "out of memory");
	}
	return true;
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
	struct mc_table_spec spec = {
		.name = mc_table_name(place->per_section),
		.flags = place->flags,
		.link = place->link,
		.entsize = arch->addr_size,
		.rel_type = piece->rel_type,
		.group = place->group,
	};

	return mc_add_table_section(obj, &spec, piece->slots, piece->rels,
				    piece->n) != NULL;
}

bool mc_add_written_table(struct mc_object *obj, const struct mc_arch *arch,
			  Elf64_Rela *rels, size_t n)
{
	uint8_t *slots = calloc(n ? n : 1, arch->addr_size);
	struct mc_table_spec spec = {
		.name = mc_table_name(false),
		.flags = SHF_ALLOC,
		.entsize = arch->addr_size,
		.rel_type = SHT_RELA,
		.written_numbering = true,
	};

	if (!slots) {
		free(rels);
		return mc_fail(obj, "out of memory");
	}
	return mc_add_table_section(obj, &spec, slots, rels, n) != NULL;
}

/*
 * The relocation section of code section `code`, added (empty, in the
 * code's group) when the code has none: a section of pads alone may
 * have no relocation at all.
 */
static struct mc_section *code_relocs(struct mc_object *obj,
				      const struct mc_arch *arch, size_t code,
				      size_t group)
{
	struct mc_section *rel = mc_reloc_section_of(obj, code);

	if (rel)
		return rel;
	return mc_add_reloc_section(obj, obj->sections[code],
				    arch->table_uses_rela ? SHT_RELA : SHT_REL,
				    arch->addr_size, group, NULL, 0);
}

/* Append relocation `r` to relocation section `rel`. */
static bool append_reloc(struct mc_object *obj, struct mc_section *rel,
			 const struct mc_reloc *r)
{
	uint32_t type = rel->shdr->sh_type;
	size_t n = mc_reloc_count(rel), size = mc_reloc_entry_size(obj, type);
	void *buf = calloc(n + 1, size);

	if (!buf)
		return mc_fail(obj, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct mc_reloc old;

		if (!mc_reloc_get(obj, rel, i, &old)) {
			free(buf);
			return false;
		}
		mc_reloc_store(obj, type, buf, i, &old);
	}
	mc_reloc_store(obj, type, buf, n, r);
	return mc_section_set_contents(obj, rel, buf, (n + 1) * size,
				       type == SHT_RELA ? ELF_T_RELA
							: ELF_T_REL);
}

bool mc_table_link_back(struct mc_object *obj, const struct mc_arch *arch)
{
	size_t *piece = malloc(obj->n_sections * sizeof(*piece));
	size_t *group_of = NULL;
	size_t n = 0, first = 0;
	bool ok = piece;

	if (!ok)
		mc_fail(obj, "out of memory");
	for (size_t i = 0; ok && i < obj->n_sections; i++) {
		const struct mc_section *s = obj->sections[i];

		if (strcmp(s->name, MC_TABLE_SECTION_LINKED) != 0)
			continue;
		if (!(s->shdr->sh_flags & SHF_LINK_ORDER) || !s->shdr->sh_link ||
		    s->shdr->sh_link >= obj->n_sections)
			ok = mc_fail(obj, "--per-section: table section %zu is "
				     "not linked to one code section (the "
				     "compiler's own table?); record "
				     "without --per-section", i);
		else
			piece[n++] = i;
	}
	if (ok && n)
		ok = (first = mc_add_section_symbols(obj, piece, n)) != SIZE_MAX;
	/* after the symbols: they may bring a section (SHT_SYMTAB_SHNDX) */
	if (ok && n && !(group_of = malloc(obj->n_sections * sizeof(*group_of))))
		ok = mc_fail(obj, "out of memory");
	if (ok && n)
		ok = mc_section_groups(obj, group_of);
	for (size_t k = 0; ok && k < n; k++) {
		size_t code = obj->sections[piece[k]]->shdr->sh_link;
		struct mc_section *rel = code_relocs(obj, arch, code,
						     group_of[code]);
		struct mc_reloc r = {
			.type = arch->none_reloc,
			.sym = first + k,
		};

		ok = rel && append_reloc(obj, rel, &r);
	}
	free(piece);
	free(group_of);
	return ok;
}
