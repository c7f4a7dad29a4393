/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sites.h - finding hook call sites in a relocatable object.
 *
 * Shared by recording and by --dump: both ask "where does this object
 * call a hook?" and must agree on the answer.
 */
#ifndef MC_SITES_H
#define MC_SITES_H

#include "../arch/arch.h"
#include "../elf/object.h"
#include "options.h"

/*
 * 32 bytes, one per hook: a million hooks in one object are a million
 * of these.  Section indexes fit 32 bits (ELF's st_shndx and sh_link
 * do), and mc_find_sites refuses a relocation section of 2^32 entries
 * or more (96 GiB of ELF64 RELA) rather than cut an index short.
 */
struct mc_hook_site {
	uint64_t offset;		/* first byte of the call */
	const struct mc_object_form *form;
	uint32_t shndx;			/* section holding the call */
	uint32_t rel_shndx;		/* relocation section marking it, or
					   0 for a NOP found by --find-nops */
	uint32_t reloc_index;
	bool traced;			/* section is on the traced list */
};

struct mc_site_list {
	struct mc_hook_site *v;
	size_t n, cap;
	size_t n_reported;		/* hook references reported to `warn`
					   and left out (--strict fails) */
	size_t n_traced;		/* sites in traced sections */
	bool unordered, repeated;	/* seen while adding: not yet sorted
					   by (section, offset), or a site
					   twice (mc_find_sites leaves
					   neither) */
};

/* Reports a problem with one relocation without failing the file. */
typedef void (*mc_warn_fn)(const struct mc_object *obj,
			   const struct mc_options *opt, const char *msg);

/*
 * Collect every hook call site, sorted by (section, offset), without
 * duplicates.  Relocations that name a hook but sit on no recognised
 * call go to `warn` and are left out.  False (obj->error set) when the
 * object's relocation tables are corrupt.
 */
bool mc_find_sites(struct mc_object *obj, const struct mc_arch *arch,
		   const struct mc_options *opt, struct mc_site_list *out,
		   mc_warn_fn warn);

void mc_site_list_free(struct mc_site_list *l);

/*
 * Open the object at `path` and find the architecture its ELF header
 * names, for every command: a relocatable object, or with `linked_too`
 * an executable or shared object as well.  False with obj->error when
 * it is none of those or no architecture we know.
 */
bool mc_open_with_arch(struct mc_object *obj, const char *path,
		       bool linked_too, const struct mc_arch **arch);

/* True if hooks in the section called `name` belong in the table. */
bool mc_section_is_traced(const char *name, const struct mc_options *opt);

/* True if `name` is a hook symbol (the arch's set or --symbol). */
bool mc_is_hook_name(const struct mc_arch *arch,
		     const struct mc_options *opt, const char *name);

#endif
