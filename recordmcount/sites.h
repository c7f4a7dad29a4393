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
 * Where a scan puts the sites when recording builds its table as it
 * scans (mc_scan_into_table), with no list of sites: the entries of
 * one __mcount_loc piece, ELF64 RELA, each the site as an addend to
 * its section's anchor, entry k's at r_offset 8k (64-bit addresses).
 * `anchor` is asked before a traced section is scanned: the r_info its
 * entries would have and the anchor's value (false with obj->error
 * set); `anchor_used` is told, once or more, when the section has an
 * entry, so that an anchor to be added is added only then.
 */
struct mc_table_sink {
	Elf64_Rela *v;
	size_t n, cap;
	bool (*anchor)(void *ctx, size_t shndx, uint64_t *info,
		       uint64_t *base);
	void (*anchor_used)(void *ctx, size_t shndx);
	void *ctx;
	size_t last_shndx;		/* the last entry's section (0: none) */
	uint64_t next;			/* its offset + 1 */
};

enum mc_scan_result {
	MC_SCAN_FAILED,		/* obj->error set */
	MC_SCAN_DONE,
	MC_SCAN_DECLINED,	/* not the usual case: use mc_find_sites */
};

/*
 * mc_find_sites for an object whose hook sites come in table order
 * (by section, then offset, none twice), all in traced sections, none
 * reported: their table entries into `sink`, and their counts (only)
 * into `out`.  Any other object is declined before anything is
 * reported, so that mc_find_sites can start again.
 */
enum mc_scan_result mc_scan_into_table(struct mc_object *obj,
				       const struct mc_arch *arch,
				       const struct mc_options *opt,
				       struct mc_table_sink *sink,
				       struct mc_site_list *out);

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
