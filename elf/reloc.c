/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reloc.c - the relocation codec: REL and RELA entries of either class
 * (and MIPS64's three-type r_info) to and from struct mc_reloc, in
 * place where libelf's memory form allows it, else through
 * gelf_get/update_rel(a); and address-sized values in the file's order.
 */
#include "object.h"
#include "internal.h"

#include <limits.h>
#include <stdint.h>

bool mc_is_reloc_section(const struct mc_section *sec)
{
	return sec->shdr->sh_type == SHT_RELA || sec->shdr->sh_type == SHT_REL;
}

/*
 * Each section knows its relocation section, and each relocation
 * section its target, set when the relocation section is read or
 * added, so that finding them is not a scan of every section (a C++
 * object has one per COMDAT group).
 */
void mc_link_reloc_section(struct mc_object *obj,
			       struct mc_section *rel)
{
	size_t t = rel->shdr->sh_info;

	if (!mc_is_reloc_section(rel) || t == 0 || t >= obj->n_sections)
		return;
	rel->target = (uint32_t)t;	/* < n_sections, which fits */
	if (!obj->sections[t]->reloc)
		obj->sections[t]->reloc = rel->index;
}

size_t mc_reloc_entry_size(const struct mc_object *obj, uint32_t sh_type)
{
	return gelf_fsize(obj->elf, sh_type == SHT_RELA ? ELF_T_RELA
							: ELF_T_REL,
			  1, EV_CURRENT);
}

size_t mc_reloc_count(const struct mc_section *sec)
{
	return sec->shdr->sh_entsize ? sec->shdr->sh_size / sec->shdr->sh_entsize
				    : 0;
}

/*
 * MIPS64 r_info is not ELF64_R_INFO: it is a 32-bit symbol followed by
 * four bytes ssym, type3, type2, type, each in the file's byte order.
 * libelf (0.188) hands it over as one 64-bit word in host order.
 */
static bool is_mips64(const struct mc_object *obj)
{
	return obj->ehdr.e_machine == EM_MIPS &&
	       obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
}

static bool is_big_endian(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
}

void mc_info_decode(const struct mc_object *obj, GElf_Xword info,
			struct mc_reloc *r)
{
	r->mips_extra = 0;
	if (!is_mips64(obj)) {
		r->sym = GELF_R_SYM(info);
		r->type = (uint32_t)GELF_R_TYPE(info);
	} else if (is_big_endian(obj)) {
		r->sym = info >> 32;
		r->type = info & 0xff;
		r->mips_extra = info & 0xffffff00;
	} else {
		r->sym = info & 0xffffffff;
		r->type = info >> 56;
		r->mips_extra = (uint32_t)((info >> 32) & 0xff) << 24 |
				(uint32_t)((info >> 40) & 0xff) << 16 |
				(uint32_t)((info >> 48) & 0xff) << 8;
	}
}

/* A relocation's fields to r_info as gelf takes it. */
static GElf_Xword info_encode(const struct mc_object *obj,
			      const struct mc_reloc *r)
{
	GElf_Xword x = r->mips_extra;

	if (!is_mips64(obj))
		return GELF_R_INFO(r->sym, r->type);
	if (is_big_endian(obj))
		return (GElf_Xword)r->sym << 32 | (x & 0xffffff00) |
		       (r->type & 0xff);
	return (r->sym & 0xffffffff) | ((x >> 24) & 0xff) << 32 |
	       ((x >> 16) & 0xff) << 40 | ((x >> 8) & 0xff) << 48 |
	       (GElf_Xword)(r->type & 0xff) << 56;
}

void mc_reloc_table_open(struct mc_object *obj, struct mc_section *sec,
			 struct mc_reloc_table *t)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	bool rela = sec->shdr->sh_type == SHT_RELA;
	size_t size = is64 ? (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
			   : (rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
	struct mc_input_data in;

	t->p = NULL;
	t->n = 0;
	t->kind = is64 ? (rela ? MC_RELA64 : MC_REL64)
		       : (rela ? MC_RELA32 : MC_REL32);
	if (!mc_is_reloc_section(sec) || is_mips64(obj))
		return;
	if (!mc_section_view(obj, sec, &in) || !in.buf ||
	    in.type != (rela ? ELF_T_RELA : ELF_T_REL))
		return;
	/* the pointer libelf's data would hold: writable as that */
	t->p = (uint8_t *)(uintptr_t)in.buf;
	t->n = in.size / size;
	if (t->n > (size_t)INT_MAX + 1)		/* gelf's index is an int */
		t->n = (size_t)INT_MAX + 1;
}

void mc_reloc_table_over(const struct mc_object *obj, uint32_t sh_type,
			 void *buf, size_t n, struct mc_reloc_table *t)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	bool rela = sh_type == SHT_RELA;

	t->p = buf;
	t->n = is_mips64(obj) ? 0 : n;
	t->kind = is64 ? (rela ? MC_RELA64 : MC_REL64)
		       : (rela ? MC_RELA32 : MC_REL32);
}

bool mc_reloc_get(struct mc_object *obj, struct mc_section *sec, size_t i,
		  struct mc_reloc *out)
{
	Elf_Data *d = mc_section_data(obj, sec);
	struct mc_reloc_table t;

	if (!d)
		return mc_fail_elf(obj, "cannot read relocations");
	mc_reloc_table_open(obj, sec, &t);
	if (i < t.n) {
		mc_reloc_table_get(&t, i, out);
		return true;
	}
	if (sec->shdr->sh_type == SHT_RELA) {
		GElf_Rela r;

		if (!gelf_getrela(d, (int)i, &r))
			return mc_fail_elf(obj, "corrupt relocation");
		out->offset = r.r_offset;
		out->addend = r.r_addend;
		mc_info_decode(obj, r.r_info, out);
	} else {
		GElf_Rel r;

		if (!gelf_getrel(d, (int)i, &r))
			return mc_fail_elf(obj, "corrupt relocation");
		out->offset = r.r_offset;
		out->addend = 0;
		mc_info_decode(obj, r.r_info, out);
	}
	return true;
}

bool mc_reloc_set(struct mc_object *obj, struct mc_section *sec, size_t i,
		  const struct mc_reloc *r)
{
	struct mc_reloc_table t;

	if (!mc_section_make_writable(obj, sec))
		return false;
	mc_reloc_table_open(obj, sec, &t);
	if (i < t.n && mc_reloc_table_put(&t, i, r))
		return true;
	GElf_Xword info = info_encode(obj, r);
	bool ok;

	if (sec->shdr->sh_type == SHT_RELA) {
		GElf_Rela rela = { r->offset, info, r->addend };

		ok = gelf_update_rela(mc_section_data(obj, sec), (int)i, &rela);
	} else {
		GElf_Rel rel = { r->offset, info };

		ok = gelf_update_rel(mc_section_data(obj, sec), (int)i, &rel);
	}
	return ok || mc_fail_elf(obj, "cannot update relocation");
}

void mc_reloc_store(const struct mc_object *obj, uint32_t sh_type,
		    void *buf, size_t i, const struct mc_reloc *r)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;

	if (is64 && sh_type == SHT_RELA)
		((Elf64_Rela *)buf)[i] = (Elf64_Rela){
			r->offset, info_encode(obj, r), r->addend };
	else if (is64)
		((Elf64_Rel *)buf)[i] = (Elf64_Rel){
			r->offset, info_encode(obj, r) };
	else if (sh_type == SHT_RELA)
		((Elf32_Rela *)buf)[i] = (Elf32_Rela){
			(Elf32_Addr)r->offset,
			ELF32_R_INFO(r->sym, r->type), (Elf32_Sword)r->addend };
	else
		((Elf32_Rel *)buf)[i] = (Elf32_Rel){
			(Elf32_Addr)r->offset, ELF32_R_INFO(r->sym, r->type) };
}

static size_t address_size(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
}

void mc_store_address(const struct mc_object *obj, uint8_t *p, uint64_t v)
{
	size_t n = address_size(obj);
	bool big = obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;

	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

uint64_t mc_load_address(const struct mc_object *obj, const uint8_t *p)
{
	size_t n = address_size(obj);
	bool big = obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}
