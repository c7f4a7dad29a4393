/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * validate.h - checks of the numbers an input file supplies, for
 * the object model (internal to elf/).  Each returns false with a one-line
 * reason in obj->error.
 */
#ifndef MC_ELF_VALIDATE_H
#define MC_ELF_VALIDATE_H

#include "object.h"

/* Before libelf reads it: magic, class, byte order, a whole header. */
bool mc_check_ident(struct mc_object *obj);

/* Program and section header tables inside the file; the section count. */
bool mc_check_header_tables(struct mc_object *obj, size_t *n_sections);

/* One section header's offset, size, alignment, links and entry size. */
bool mc_check_section(struct mc_object *obj, size_t i, const GElf_Shdr *sh,
		      size_t n_sections);

/* All sections together: the padding a rewrite would need is bounded. */
bool mc_check_layout(struct mc_object *obj);

#endif
