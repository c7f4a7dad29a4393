/*
 * internal.h - what the files of the object model (object.c, reloc.c,
 * edit.c, write.c) share and nothing outside elf/ may call.
 */
#ifndef MC_ELF_INTERNAL_H
#define MC_ELF_INTERNAL_H

#include "object.h"

/* mc_fail with libelf's last error after `what`; always false. */
bool mc_fail_elf(struct mc_object *obj, const char *what);

/* The section's data as libelf holds it (read on first use), or NULL. */
Elf_Data *mc_section_data(struct mc_section *sec);

/* Make `buf` (d->d_size bytes, owned) the section's contents. */
void mc_section_take_buffer(struct mc_section *sec, Elf_Data *d, void *buf);

/* Give the section a private, writable copy of its contents. */
bool mc_section_make_writable(struct mc_object *obj, struct mc_section *sec);

/*
 * Link a relocation section and its target (the target's first one,
 * by index, is its relocation section).
 */
void mc_link_reloc_section(struct mc_object *obj, struct mc_section *rel);

/* MIPS64, whose r_info packs three types and a special symbol. */
bool mc_is_mips64(const struct mc_object *obj);
bool mc_is_big_endian(const struct mc_object *obj);

/* r_info (as gelf gives it) to and from a relocation's fields. */
void mc_info_decode(const struct mc_object *obj, GElf_Xword info,
		    struct mc_reloc *r);
GElf_Xword mc_info_encode(const struct mc_object *obj,
			  const struct mc_reloc *r);

/*
 * Give the symbols added since the read their indexes, after the
 * input's locals, and renumber every reference to the input's globals:
 * done once, by the writers, before anything is written.
 */
bool mc_number_symbols(struct mc_object *obj);

#endif
