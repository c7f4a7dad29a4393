/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reloc.h - the one part of the relocation codec's interface that is
 * code, not a declaration: reading an entry of an open table, inline
 * because the scans of every relocation call it per entry.  Apart from
 * object.h because it calls reloc.c, and reloc.c stands on object.h:
 * object.h stays a leaf that every file of the model includes.
 */
#ifndef MC_ELF_RELOC_H
#define MC_ELF_RELOC_H

#include "object.h"

/*
 * Relocation i of `sec`, whose table `t` is open: read in place when
 * the table holds it, else through mc_reloc_get (false, with the
 * object's error, where that fails).
 */
static inline bool mc_reloc_read(struct mc_object *obj,
				 struct mc_section *sec,
				 const struct mc_reloc_table *t, size_t i,
				 struct mc_reloc *out)
{
	if (i < t->n) {
		mc_reloc_table_get(t, i, out);
		return true;
	}
	return mc_reloc_get(obj, sec, i, out);
}

#endif
