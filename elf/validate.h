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

/*
 * All sections together: the padding a rewrite would need is bounded.
 * Summed as the headers are read (each a power of two mc_check_section
 * allowed, sections 1 onwards in order), told at the end: a further
 * pass over the headers of an object of two million sections is two
 * million cold cache lines.
 */
struct mc_layout_check {
	uint64_t budget, padding;
	size_t over;		/* the first section past the budget, or 0 */
};
void mc_layout_check_start(const struct mc_object *obj,
			   struct mc_layout_check *lc);
static inline void mc_layout_check_add(struct mc_layout_check *lc, size_t i,
				       uint64_t align)
{
	if (lc->over)
		return;
	lc->padding += align ? align - 1 : 0;
	if (lc->padding > lc->budget)
		lc->over = i;
}
/* False (obj->error) if the padding went past the budget. */
bool mc_layout_check_end(struct mc_object *obj,
			 const struct mc_layout_check *lc);

#endif
