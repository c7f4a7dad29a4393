/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.c - the main job: add __mcount_loc to one relocatable object.
 *
 *   open -> find sites -> choose anchors -> build table -> NOP -> write
 *
 * Each entry of __mcount_loc is an address-sized slot with a relocation
 * "anchor symbol + addend" that the linker turns into the address of
 * the call.  The anchor must keep its meaning through the link: the
 * section's STT_SECTION symbol, or a local symbol in that section.  A
 * weak or preemptible global could be replaced by another definition,
 * so it is never used; when no local anchor exists (binutils >= 2.36
 * drops unused section symbols) a section symbol is added.
 */
#define _GNU_SOURCE
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pads.h"
#include "sites.h"
#include "table.h"
#include "../elf/reloc.h"
#include "../arch/search.h"


static void report(const char *path, const char *msg)
{
	fprintf(stderr, "recordmcount: %s: %s\n", path, msg);
}

static void warn_site(const struct mc_object *obj,
		      const struct mc_options *opt, const char *msg)
{
	if (opt->verbosity >= 0)
		fprintf(stderr, "recordmcount: %s: warning: %s\n", obj->path,
			msg);
}

/* A symbol that resolves to a fixed place in `shndx` after linking. */
static bool is_local_anchor(const struct mc_arch *arch,
			    const struct mc_symbol *s, size_t shndx)
{
	unsigned type = GELF_ST_TYPE(s->sym.st_info);

	if (type == STT_FUNC && arch->anchor_avoid_func)
		return false;
	if (s->shndx != shndx ||
	    (s->sym.st_shndx >= SHN_LORESERVE && s->sym.st_shndx != SHN_XINDEX))
		return false;
	if (GELF_ST_BIND(s->sym.st_info) != STB_LOCAL)
		return false;
	return type == STT_SECTION || type == STT_FUNC ||
	       type == STT_NOTYPE || type == STT_OBJECT;
}

/*
 * anchor[], by section: the handle of the symbol its table entries are
 * relative to, in 32 bits (an array of them is a word a section, and an
 * object of a section per function has millions; a relocation names no
 * symbol beyond 32 bits anyway, see anchors_fit).  Two values are no
 * handle: a section with no traced site, and one whose anchor is wanted
 * but not found yet.
 */
#define ANCHOR_NONE UINT32_MAX
#define ANCHOR_WANTED (UINT32_MAX - 1)

/*
 * True if every handle anchor[] may hold is below its two markers: the
 * symbols read and a section symbol for each section.
 */
static bool anchors_fit(struct mc_object *obj)
{
	if (obj->n_symbols < ANCHOR_WANTED &&
	    obj->n_sections < ANCHOR_WANTED - obj->n_symbols)
		return true;
	return mc_fail(obj, "%zu symbols and %zu sections: too many to "
		       "record", obj->n_symbols, obj->n_sections);
}

/*
 * Existing anchors for the sections marked ANCHOR_WANTED, in one pass
 * over the locals: the section symbol when there is one, else the
 * first local symbol there.  A local in any other section is passed
 * over on its section index alone (vmlinux.o has tens of thousands).
 */
static void find_anchors(const struct mc_object *obj,
			 const struct mc_arch *arch, uint32_t *anchor)
{
	for (size_t i = 1; i < obj->first_global; i++) {
		struct mc_symbol s = mc_symbol(obj, i);

		if (s.shndx >= obj->n_sections ||
		    anchor[s.shndx] == ANCHOR_NONE ||
		    !is_local_anchor(arch, &s, s.shndx))
			continue;
		size_t cur = anchor[s.shndx];

		if (cur == ANCHOR_WANTED ||
		    (GELF_ST_TYPE(s.sym.st_info) == STT_SECTION &&
		     GELF_ST_TYPE(mc_symbol(obj, cur).sym.st_info) !=
			     STT_SECTION))
			anchor[s.shndx] = (uint32_t)i;
	}
}

/*
 * Anchor symbol index for every section that holds a traced site
 * (anchor[] comes all SIZE_MAX).  Sites are sorted by section, and
 * whether a site is traced is its section's: one test for each run of
 * sites of one section.
 */
static bool choose_anchors(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_site_list *sites, uint32_t *anchor)
{
	size_t *missing = malloc(obj->n_sections * sizeof(*missing));
	size_t n_missing = 0, first;

	if (!missing)
		return mc_fail(obj, "out of memory");
	/* the sections wanted, in order, then those find_anchors left */
	for (size_t i = 0, n = sites->n; i < n; i++) {
		uint32_t shndx = sites->v[i].shndx;

		if (sites->v[i].traced) {
			anchor[shndx] = ANCHOR_WANTED;
			missing[n_missing++] = shndx;
		}
		while (i + 1 < n && sites->v[i + 1].shndx == shndx)
			i++;
	}
	find_anchors(obj, arch, anchor);
	size_t wanted = n_missing;

	n_missing = 0;
	for (size_t j = 0; j < wanted; j++)
		if (anchor[missing[j]] == ANCHOR_WANTED)
			missing[n_missing++] = missing[j];
	first = n_missing ? mc_add_section_symbols(obj, missing, n_missing) : 0;
	for (size_t j = 0; first != SIZE_MAX && j < n_missing; j++)
		anchor[missing[j]] = (uint32_t)(first + j);
	free(missing);
	return first != SIZE_MAX;
}

/*
 * Recording's usual case builds its one table piece while it scans the
 * relocations (mc_scan_into_table), with no list of sites: x86_64 and
 * the other ELF64 RELA arches, one piece (no COMDAT group, no
 * --per-section), no NOPs and no pads to move.  A section's anchor is
 * looked up before its scan, from one pass over the locals made for
 * every code section; where there is none, a section symbol is added
 * after the scan, in the order of the sections' first sites.  The
 * entries name symbols by the index they are written with (an added
 * one's: right after the input's locals), so that no pass renumbers
 * them.
 */
struct scanned_table {
	struct mc_table_sink sink;
	struct mc_object *obj;
	const struct mc_arch *arch;
	uint32_t *anchor;	/* by section: its anchor's handle */
	size_t *missing;	/* sections given a section symbol, in order */
	size_t n_missing;
	bool used;		/* the sites went into sink, not a list */
};

/*
 * True if this object's table can be built as it is scanned, and that
 * costs less: a scan with a sink costs less a relocation and more a
 * section of code (its anchor, its fast test's facts): an object of a
 * section per function, a relocation or two in each, does better with
 * the list.
 */
static bool table_while_scanning(const struct mc_object *obj,
				 const struct mc_arch *arch,
				 const struct mc_options *opt)
{
	struct mc_reloc_table t;
	uint64_t one, relocs = 0, tables = 0;

	if (opt->nop || opt->per_section || opt->find_nops ||
	    arch->anchor_at_site || !arch->table_uses_rela ||
	    arch->table_addend_in_place || arch->addr_size != 8 ||
	    obj->n_symbols != obj->n_input_symbols)
		return false;
	mc_reloc_table_over(obj, SHT_RELA, &one, 1, &t);
	if (t.kind != MC_RELA64 || t.n != 1)
		return false;
	for (size_t i = 1; i < obj->n_sections; i++) {
		const struct mc_section *sec = obj->sections[i];

		if (sec->shdr->sh_type == SHT_RELA) {
			const struct mc_section *code =
				mc_section_target(obj, sec);

			if (code && (code->shdr->sh_flags & SHF_EXECINSTR)) {
				tables++;
				relocs += sec->shdr->sh_size /
					  sizeof(Elf64_Rela);
			}
		} else if (sec->shdr->sh_type == SHT_GROUP ||
			   (sec->name[0] == MC_PADS_SECTION[0] &&
			    strcmp(sec->name, MC_PADS_SECTION) == 0)) {
			return false;
		}
	}
	return relocs >= 8 * tables;
}

/*
 * scanned_table's answer to the scan: the anchor a section's sites
 * would have.  One to be added would be the next section symbol, once
 * the section has a site (section_anchor_used).
 */
static bool anchor_of_section(void *ctx, size_t shndx, uint64_t *info,
			      uint64_t *base)
{
	struct scanned_table *st = ctx;
	struct mc_object *obj = st->obj;
	size_t sym = st->anchor[shndx], added = obj->n_input_symbols;

	if (sym == ANCHOR_NONE)
		return mc_fail(obj, "internal error: no anchor looked up for "
			       "%s", obj->sections[shndx]->name);
	if (sym == ANCHOR_WANTED)
		sym = added + st->n_missing;	/* mc_add_section_symbols' */
	if (sym >= added) {
		*base = 0;	/* a section symbol, written after the locals */
		sym = obj->first_global + (sym - added);
	} else {
		*base = mc_symbol(obj, sym).sym.st_value;
	}
	*info = ELF64_R_INFO((uint64_t)sym, st->arch->table_reloc);
	return true;
}

/* The section has a site: its section symbol is to be added, if wanted. */
static void section_anchor_used(void *ctx, size_t shndx)
{
	struct scanned_table *st = ctx;

	if (st->anchor[shndx] != ANCHOR_WANTED)
		return;
	st->anchor[shndx] = (uint32_t)(st->obj->n_input_symbols +
				       st->n_missing);
	st->missing[st->n_missing++] = shndx;
}

static void scanned_table_free(struct scanned_table *st)
{
	free(st->sink.v);
	free(st->anchor);
	free(st->missing);
	*st = (struct scanned_table){ 0 };
}

/* Ready to scan: every code section's anchor looked for. */
static bool scanned_table_open(struct mc_object *obj,
			       const struct mc_arch *arch,
			       struct scanned_table *st)
{
	size_t n = obj->n_sections;

	if (!anchors_fit(obj))
		return false;
	*st = (struct scanned_table){
		.sink = {
			.anchor = anchor_of_section,
			.anchor_used = section_anchor_used,
			.ctx = st,
		},
		.obj = obj,
		.arch = arch,
		.anchor = malloc(n * sizeof(*st->anchor)),
		.missing = malloc(n * sizeof(*st->missing)),
	};
	if (!st->anchor || !st->missing) {
		scanned_table_free(st);
		return mc_fail(obj, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		st->anchor[i] = obj->sections[i]->shdr->sh_flags & SHF_EXECINSTR
					? ANCHOR_WANTED : ANCHOR_NONE;
	find_anchors(obj, arch, st->anchor);
	return true;
}

/*
 * The sites: into a scanned_table when the object is of the usual kind
 * (st->used), else into the list.
 */
static bool find_sites(struct mc_object *obj, const struct mc_arch *arch,
		       const struct mc_options *opt,
		       struct mc_site_list *sites, struct scanned_table *st)
{
	if (table_while_scanning(obj, arch, opt)) {
		if (!scanned_table_open(obj, arch, st))
			return false;
		switch (mc_scan_into_table(obj, arch, opt, &st->sink, sites)) {
		case MC_SCAN_DONE:
			st->used = true;
			return true;
		case MC_SCAN_FAILED:
			return false;
		case MC_SCAN_DECLINED:
			scanned_table_free(st);
			break;
		}
	}
	return mc_find_sites(obj, arch, opt, sites, warn_site);
}

/*
 * The scanned table into the model: its section symbols first, where
 * its entries expect them, then the piece.
 */
static bool add_scanned_table(struct mc_object *obj,
			      struct scanned_table *st)
{
	size_t want = obj->n_input_symbols, first = want;

	if (st->n_missing)
		first = mc_add_section_symbols(obj, st->missing,
					       st->n_missing);
	if (first == SIZE_MAX)
		return false;
	if (first != want)
		return mc_fail(obj, "internal error: section symbols added "
			       "at %zu, the table names them from %zu", first,
			       want);
	if (!st->sink.n)
		return true;
	Elf64_Rela *v = st->sink.v;

	st->sink.v = NULL;	/* taken over */
	return mc_add_written_table(obj, st->arch, v, st->sink.n);
}

static size_t count_traced(const struct mc_site_list *sites)
{
	return sites->n_traced;
}

/*
 * For arch->anchor_at_site: a local label at every traced site, in table
 * order; *first is the first one's symbol index.
 */
static bool add_site_labels(struct mc_object *obj,
			    const struct mc_site_list *sites, size_t *first)
{
	size_t n = count_traced(sites), k = 0;
	size_t *shndx = malloc((n ? n : 1) * sizeof(*shndx));
	uint64_t *value = malloc((n ? n : 1) * sizeof(*value));

	if (!shndx || !value) {
		free(shndx);
		free(value);
		return mc_fail(obj, "out of memory");
	}
	for (size_t i = 0; i < sites->n; i++)
		if (sites->v[i].traced) {
			shndx[k] = sites->v[i].shndx;
			value[k++] = sites->v[i].offset;
		}
	*first = n ? mc_add_label_symbols(obj, shndx, value, n) : 0;
	free(shndx);
	free(value);
	return *first != SIZE_MAX;
}

/*
 * Which traced sites one __mcount_loc piece takes: those whose section
 * belongs to COMDAT group `group` (0: to none), and with `shndx` set,
 * only that section's.
 */
struct piece_key {
	size_t group;
	size_t shndx;	/* 0: every section of the group */
};

/*
 * A traced site of a piece, and its rank among all the traced sites:
 * the order the site labels were added in (add_site_labels).
 */
struct piece_site {
	size_t site;
	size_t rank;
};

/*
 * Where a piece goes.  A piece in a group is a member of that group,
 * with its relocations, so that when the linker discards a duplicate of
 * an inline function it discards its entries too instead of failing on
 * a reference to a discarded section.
 *
 * A piece of one section (--per-section) is also SHF_LINK_ORDER with
 * sh_link to it: the linker orders the pieces as it orders their code,
 * and drops a piece whose section --gc-sections dropped, instead of
 * letting the piece's relocations keep that code alive (with the name
 * and the reference from its code that table.c gives it, for every
 * linker).  It is writable, as GCC's own
 * __patchable_function_entries is: in a PIE its absolute entries become
 * R_*_RELATIVE dynamic relocations, which a read-only section would
 * turn into text relocations (lld refuses them) when no linker script
 * gathers the pieces into a writable output section.
 */
static struct mc_piece_place piece_place(const struct piece_key *key)
{
	struct mc_piece_place place = {
		.flags = SHF_ALLOC,
		.group = key->group,
	};

	if (key->shndx) {
		place.flags |= SHF_WRITE | SHF_LINK_ORDER;
		place.link = key->shndx;
		place.per_section = true;
	}
	return place;
}

/*
 * build_piece's usual case, every traced site on its anchor with the
 * addend in the relocation (RELA, 64-bit: x86_64 and most others):
 * written straight into the piece's table, slots left zero.
 */
static void fill_rela64(const struct mc_object *obj,
			const struct mc_arch *arch,
			const struct mc_site_list *sites, const uint32_t *anchor,
			struct mc_piece *piece, size_t n)
{
	Elf64_Rela *out = (Elf64_Rela *)piece->out.p;
	const struct mc_hook_site *v = sites->v;
	uint64_t step = arch->addr_size;

	/* a section's sites, traced or not as it is, on its anchor */
	for (size_t i = 0, t = 0; t < n;) {
		uint32_t shndx = v[i].shndx;

		if (!v[i].traced) {
			i++;
			continue;
		}
		size_t sym = anchor[shndx];
		uint64_t base = mc_symbol(obj, sym).sym.st_value;
		uint64_t info = ELF64_R_INFO(sym, arch->table_reloc);

		do {
			out[t] = (Elf64_Rela){
				.r_offset = t * step,
				.r_info = info,
				.r_addend = (int64_t)(v[i].offset - base),
			};
			t++;
			i++;
		} while (t < n && v[i].shndx == shndx);
	}
	piece->n = n;
}

/*
 * One __mcount_loc piece: the traced sites run[0..n), in order, or with
 * run NULL every traced site.
 */
static bool build_piece(struct mc_object *obj, const struct mc_arch *arch,
			const struct mc_site_list *sites,
			const struct piece_key *key, const uint32_t *anchor,
			size_t first_label, const struct piece_site *run,
			size_t n)
{
	struct mc_piece_place place = piece_place(key);
	struct mc_piece piece;
	bool in_slot = !arch->table_uses_rela || arch->table_addend_in_place;

	if (!mc_piece_start(obj, arch,
			    arch->table_uses_rela ? SHT_RELA : SHT_REL, n,
			    &piece))
		return false;
	if (!run && first_label == SIZE_MAX && !in_slot &&
	    piece.out.kind == MC_RELA64 && n <= piece.out.n) {
		fill_rela64(obj, arch, sites, anchor, &piece, n);
		return mc_add_table_piece(obj, arch, &place, &piece);
	}
	/* The last anchor's value: sites of one section share it. */
	size_t last_sym = SIZE_MAX;
	uint64_t base = 0;

	/* t counts the piece's sites; without a run, i walks every site */
	for (size_t i = 0, t = 0; t < n; i++) {
		if (!run && !sites->v[i].traced)
			continue;
		const struct mc_hook_site *s = &sites->v[run ? run[t].site : i];
		size_t rank = run ? run[t].rank : t;
		size_t sym = first_label != SIZE_MAX ? first_label + rank
						     : anchor[s->shndx];
		if (sym != last_sym) {
			base = mc_symbol(obj, sym).sym.st_value;
			last_sym = sym;
		}
		int64_t addend = (int64_t)(s->offset - base);
		struct mc_reloc r = {
			.type = arch->table_reloc,
			.sym = sym,
			.addend = in_slot ? 0 : addend,
		};
		uint8_t slot[8] = { 0 };

		/* REL keeps the addend in the slot the relocation patches. */
		if (in_slot)
			mc_store_address(obj, slot, (uint64_t)addend);
		mc_piece_add(obj, arch, &piece, &r, in_slot ? slot : NULL);
		t++;
	}
	return mc_add_table_piece(obj, arch, &place, &piece);
}

/* What tells one piece from another: its section, or its group. */
static size_t piece_of(const struct mc_hook_site *s, const size_t *group_of,
		       bool per_section)
{
	return per_section ? s->shndx : group_of[s->shndx];
}

/*
 * The traced sites grouped piece by piece: run[] holds each piece's
 * sites in site order, the pieces in the order their first site comes,
 * and end[p] is where piece p's run ends (n_pieces of them).  Two
 * passes over the sites (count, then place), where a pass for each
 * piece made --per-section quadratic in the number of sections.
 */
static bool group_sites(struct mc_object *obj,
			const struct mc_site_list *sites,
			const size_t *group_of, bool per_section,
			struct piece_site *run, size_t *end, size_t *n_pieces)
{
	size_t *piece = malloc(obj->n_sections * sizeof(*piece));
	size_t n = 0;

	if (!piece)
		return mc_fail(obj, "out of memory");
	memset(piece, 0xff, obj->n_sections * sizeof(*piece));
	/* end[p] counts piece p's sites, then becomes where its run starts */
	for (size_t i = 0; i < sites->n; i++) {
		size_t k = piece_of(&sites->v[i], group_of, per_section);

		if (!sites->v[i].traced)
			continue;
		if (piece[k] == SIZE_MAX) {
			piece[k] = n;
			end[n++] = 0;
		}
		end[piece[k]]++;
	}
	for (size_t p = 0, at = 0; p < n; p++) {
		size_t c = end[p];

		end[p] = at;
		at += c;
	}
	/* placing a site moves its piece's mark on: to the run's end */
	for (size_t i = 0, t = 0; i < sites->n; i++) {
		if (!sites->v[i].traced)
			continue;
		size_t p = piece[piece_of(&sites->v[i], group_of, per_section)];

		run[end[p]++] = (struct piece_site){ .site = i, .rank = t++ };
	}
	free(piece);
	*n_pieces = n;
	return true;
}

/*
 * Append __mcount_loc to the model: one piece per COMDAT group used
 * (and one for code in no group), or with --per-section one per traced
 * section, in the order their first site appears.
 */
static bool build_table(struct mc_object *obj, const struct mc_arch *arch,
			const struct mc_site_list *sites, const uint32_t *anchor,
			size_t first_label, const struct mc_options *opt)
{
	size_t n = sites->n_traced, n_pieces = 0;
	struct piece_key one_piece = { 0, 0 };

	/* No group section: one piece, without a word a section to say so. */
	if (!opt->per_section && !mc_object_has_groups(obj))
		return !n || build_piece(obj, arch, sites, &one_piece, anchor,
					 first_label, NULL, n);
	size_t *group_of = malloc(obj->n_sections * sizeof(*group_of));
	bool ok = group_of && mc_section_groups(obj, group_of);
	bool grouped = false;

	if (!group_of)
		return mc_fail(obj, "out of memory");
	for (size_t i = 0; ok && i < obj->n_sections; i++)
		grouped |= group_of[i] != 0;
	/* No group, one piece: it takes every traced site, in order. */
	if (ok && !grouped && !opt->per_section) {
		ok = !n || build_piece(obj, arch, sites, &one_piece, anchor,
				       first_label, NULL, n);
		free(group_of);
		return ok;
	}
	struct piece_site *run = malloc((n ? n : 1) * sizeof(*run));
	size_t *end = malloc((n ? n : 1) * sizeof(*end));

	if (ok && (!run || !end))
		ok = mc_fail(obj, "out of memory");
	if (ok)
		ok = group_sites(obj, sites, group_of, opt->per_section, run,
				 end, &n_pieces);
	for (size_t p = 0, at = 0; ok && p < n_pieces; at = end[p++]) {
		const struct mc_hook_site *s = &sites->v[run[at].site];
		struct piece_key key = {
			.group = group_of[s->shndx],
			.shndx = opt->per_section ? s->shndx : 0,
		};

		ok = build_piece(obj, arch, sites, &key, anchor, first_label,
				 run + at, end[p] - at);
	}
	free(run);
	free(end);
	free(group_of);
	return ok;
}

/*
 * Void one relocation: no type, and no symbol either, because ld still
 * resolves the symbol of an R_*_NONE relocation (an undefined hook is an
 * "undefined reference", one in a shared library "unresolvable"), and a
 * later run would take a NONE against the hook for a reference that is
 * not a call.  MIPS64's second and third types go too.
 */
static bool void_reloc(struct mc_object *obj, const struct mc_arch *arch,
		       struct mc_section *rel, size_t i)
{
	struct mc_reloc r;

	if (!mc_reloc_get(obj, rel, i, &r))
		return false;
	r.type = arch->none_reloc;
	r.sym = 0;
	r.addend = 0;
	r.mips_extra = 0;
	return mc_reloc_set(obj, rel, i, &r);
}

/*
 * True if this site's bytes are rewritten: --nop, or an untraced hook;
 * not a NOP --find-nops found, which is one already.
 */
static bool is_nopped(const struct mc_hook_site *s,
		      const struct mc_options *opt)
{
	return (opt->nop || !s->traced) && s->form->nop && s->rel_shndx;
}

/*
 * The NOPed site among v[0..n) (one section's, sorted by offset) whose
 * rewritten bytes hold `offset`, or NULL.
 */
static bool site_starts_by(const void *site, const void *offset)
{
	return ((const struct mc_hook_site *)site)->offset <=
	       *(const uint64_t *)offset;
}

static const struct mc_hook_site *nopped_site_at(const struct mc_hook_site *v,
						 size_t n, uint64_t offset,
						 const struct mc_options *opt)
{
	/* the sites that start at or before offset: the last may hold it */
	size_t lo = mc_partition_point(v, n, sizeof(*v), &offset,
				       site_starts_by);

	if (lo == 0)
		return NULL;
	const struct mc_hook_site *s = &v[lo - 1];
	return is_nopped(s, opt) && offset - s->offset < s->form->len ? s
								      : NULL;
}

/*
 * Every relocation of `rel` inside bytes a NOP replaced now patches the
 * NOP: void it.  That takes the site's own relocation and its companions
 * (MIPS's %lo half and R_MIPS_JALR hint, which would otherwise keep the
 * hook referenced, or let ld turn the NOPed jalr back into a bal).  One
 * pass over the relocations; v[0..n) are one section's sites.
 */
static bool void_relocs_in_nops(struct mc_object *obj,
				const struct mc_arch *arch,
				struct mc_section *rel,
				const struct mc_hook_site *v, size_t n,
				const struct mc_options *opt)
{
	size_t count = mc_reloc_count(rel);

	for (size_t i = 0; i < count; i++) {
		struct mc_reloc_table t;
		struct mc_reloc r;

		/* Opened each time: voiding one makes the table a copy. */
		mc_reloc_table_open(obj, rel, &t);
		if (!mc_reloc_read(obj, rel, &t, i, &r))
			return false;
		if (nopped_site_at(v, n, r.offset, opt) &&
		    !void_reloc(obj, arch, rel, i))
			return false;
	}
	return true;
}

/* The same for every relocation section that marks v[0..n)'s hooks. */
static bool void_section_relocs(struct mc_object *obj,
				const struct mc_arch *arch,
				const struct mc_hook_site *v, size_t n,
				const struct mc_options *opt)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		if (v[i].rel_shndx == 0 ||
		    (i > 0 && v[i].rel_shndx == v[i - 1].rel_shndx))
			continue;	/* the usual case: one table */
		while (j < i && v[j].rel_shndx != v[i].rel_shndx)
			j++;
		if (j == i && !void_relocs_in_nops(obj, arch,
						   obj->sections[v[i].rel_shndx],
						   v, n, opt))
			return false;
	}
	return true;
}

static void warn_untraced(const struct mc_object *obj,
			  const struct mc_hook_site *s,
			  const struct mc_options *opt, const char **warned)
{
	const char *sec = obj->sections[s->shndx]->name;

	/*
	 * -w asks for every such section; one whose calls cannot become
	 * NOPs is always named, since its functions keep calling the hook.
	 */
	if (s->traced || (!opt->warn_untraced && s->form->nop) ||
	    opt->verbosity < 0 || sec == *warned)
		return;
	fprintf(stderr, "recordmcount: %s: section %s has hook calls that "
		"are not traced; %s\n", obj->path, sec,
		s->form->nop ? "turned into NOPs" : "left as they are (no NOP "
		"form)");
	*warned = sec;
}

/*
 * Overwrite each hook to NOP with its form's neutral bytes, then void
 * the relocations inside them, one section (run of sites) at a time.
 * A traced hook with no NOP form fails --nop; an untraced one keeps
 * calling the hook, as it would without this tool.
 */
static bool nop_sites(struct mc_object *obj, const struct mc_arch *arch,
		      const struct mc_site_list *sites,
		      const struct mc_options *opt)
{
	const char *warned = NULL;
	size_t run = 0;
	bool any = false;	/* a NOP in this run of sites */

	if (!opt->nop && sites->n_traced == sites->n)
		return true;	/* every hook traced and kept: nothing here */
	for (size_t i = 0; i < sites->n; i++) {
		const struct mc_hook_site *s = &sites->v[i];

		warn_untraced(obj, s, opt, &warned);
		if (opt->nop && s->traced && !s->form->nop)
			return mc_fail(obj, "%s: cannot turn '%s' into a NOP",
				       arch->name, s->form->name);
		if (is_nopped(s, opt)) {
			/* Its own relocation may lie outside the bytes. */
			if (!mc_section_patch(obj, obj->sections[s->shndx],
					      s->offset, s->form->nop,
					      s->form->len) ||
			    !void_reloc(obj, arch,
					obj->sections[s->rel_shndx],
					s->reloc_index))
				return false;
			any = true;
		}
		if (i + 1 < sites->n && sites->v[i + 1].shndx == s->shndx)
			continue;
		if (any && !void_section_relocs(obj, arch, &sites->v[run],
						i + 1 - run, opt))
			return false;
		run = i + 1;
		any = false;
	}
	return true;
}

/* True if a relocation of any section of obj names symbol k. */
static bool symbol_referenced(struct mc_object *obj, size_t k)
{
	for (size_t i = 0; i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		size_t count;

		if (!mc_is_reloc_section(rel))
			continue;
		count = mc_reloc_count(rel);
		for (size_t j = 0; j < count; j++) {
			struct mc_reloc r;

			if (mc_reloc_get(obj, rel, j, &r) && r.sym == k)
				return true;
		}
	}
	return false;
}

/*
 * After --nop, an undefined hook that no relocation names any more
 * (every call became a NOP, as with GCC's -mnop-mcount, which writes
 * no such symbol at all) is made weak: a program that defines no hook
 * (the s390 kernel has no __fentry__) still links, and Linux's modpost,
 * which rejects every undefined global a module's symbol table holds,
 * used or not, lets an undefined weak one through.  Its binding is all
 * that changes.  A hook still named (an inline PLT
 * call's loads, a hook with no NOP form) stays as it was.
 */
static bool weaken_unused_hooks(struct mc_object *obj,
				const struct mc_arch *arch,
				const struct mc_options *opt)
{
	if (!opt->nop)
		return true;
	for (size_t k = obj->first_global; k < obj->n_symbols; k++) {
		struct mc_symbol s = mc_symbol(obj, k);

		if (s.shndx != SHN_UNDEF ||
		    GELF_ST_BIND(s.sym.st_info) != STB_GLOBAL ||
		    !mc_is_hook_symbol(arch, s.name) ||
		    symbol_referenced(obj, k))
			continue;
		if (!mc_symbol_set_binding(obj, k, STB_WEAK))
			return false;
	}
	return true;
}

/*
 * GCC's -flto object holds its functions as GIMPLE bitcode in
 * .gnu.lto_* sections, and no code unless -ffat-lto-objects was given;
 * a slim one says so with the common symbol __gnu_lto_slim.  Its hooks
 * are only made at the LTO link, so "no hook calls" would be wrong.
 * Without bitcode there is nothing of the kind: the symbols (a million
 * names in a big object) are only read when there is.
 */
static bool has_lto_bitcode(const struct mc_object *obj)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->name[0] == '.' &&
		    obj->sections[i]->name[1] == 'g' &&
		    strncmp(obj->sections[i]->name, ".gnu.lto_", 9) == 0)
			return true;
	return false;
}

static bool is_slim_lto(const struct mc_object *obj)
{
	if (!has_lto_bitcode(obj))
		return false;
	for (size_t i = 0; i < obj->n_symbols; i++) {
		const char *name = mc_symbol_name(obj, i);

		if (name[0] == '_' && name[1] == '_' && name[2] == 'g' &&
		    strcmp(name, "__gnu_lto_slim") == 0)
			return true;
	}
	return false;
}

/*
 * Open an object to record and find its architecture; false with
 * obj->error when it has nothing we could record.
 */
static bool open_relocatable(struct mc_object *obj, const char *path,
			     const struct mc_arch **arch)
{
	if (!mc_open_with_arch(obj, path, false, arch))
		return false;
	if (!obj->symtab)
		return mc_fail(obj, "no symbol table");
	if (is_slim_lto(obj))
		return mc_fail(obj, "GCC LTO object (-flto): bitcode, no code "
			       "to record; record the output of the LTO link "
			       "(ld -r) instead");
	return true;
}

/*
 * The sites are not needed for writing, which may make copies of its
 * own (a relocation table it cannot renumber as it streams it out):
 * memory they held goes to the writer, to plan in, pages already
 * touched (a list of a million sites is 32 MB).
 * Their counts stay, for say_done.
 */
static bool write_without_sites(struct mc_object *obj,
				struct mc_site_list *sites)
{
	mc_object_give_scratch(obj, sites->v, sites->cap * sizeof(*sites->v));
	sites->v = NULL;
	sites->cap = 0;
	return mc_refuse_read_only(obj) && mc_object_write(obj);
}

/*
 * A file nobody may write (no write bit, which root's access() would
 * not see) or that we may not: the user said "leave it", so it is an
 * error, not a replacement.  The kernel's tool writes a temporary file
 * and renames it over any object it can read; Kbuild makes no
 * read-only objects, so no kernel build sees the difference.
 * A file with a second name is never written through: the writer puts
 * a new file in place of this name and the other keeps the old bytes.
 * That is ccache's hard-link mode, whose cached objects are read-only.
 */
bool mc_refuse_read_only(struct mc_object *obj)
{
	struct stat st;

	if (fstat(obj->fd, &st) != 0)
		return mc_fail(obj, "cannot stat: %s", strerror(errno));
	if (st.st_nlink > 1)
		return true;
	if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
		return mc_fail(obj, "read-only file (mode %04o): left as it "
			       "is; make it writable to record it",
			       (unsigned)(st.st_mode & 07777));
	if (access(obj->path, W_OK) != 0)
		return mc_fail(obj, "not writable (%s): left as it is",
			       strerror(errno));
	return true;
}

/*
 * Everything that changes, in order: the anchors, the tables, the
 * NOPs, then the references from code to its --per-section pieces (the
 * model numbers the symbols added when it writes, so a symbol may be
 * added at any step), then one write.
 * `pads` is NULL when the pads stay where the compiler put them.
 */
static bool rewrite(struct mc_object *obj, const struct mc_arch *arch,
		    struct mc_site_list *sites,
		    const struct mc_pad_list *pads,
		    const struct mc_options *opt, struct scanned_table *st)
{
	uint32_t *anchor = st->used ? NULL
				    : malloc(obj->n_sections * sizeof(*anchor));
	size_t first_label = SIZE_MAX;
	bool ok;

	if (st->used) {
		/* the usual case: no pads, NOPs or --per-section, below */
		ok = add_scanned_table(obj, st);
		scanned_table_free(st);	/* before the write, as anchor[] */
		return ok && nop_sites(obj, arch, sites, opt) &&
		       write_without_sites(obj, sites);
	}
	if (!anchor)
		return mc_fail(obj, "out of memory");
	if (!anchors_fit(obj)) {
		free(anchor);
		return false;
	}
	for (size_t i = 0; i < obj->n_sections; i++)
		anchor[i] = ANCHOR_NONE;
	ok = (arch->anchor_at_site ? add_site_labels(obj, sites, &first_label)
				   : choose_anchors(obj, arch, sites, anchor)) &&
	     (count_traced(sites) == 0 ||
	      build_table(obj, arch, sites, anchor, first_label, opt));
	/* Only the table reads it: a word a section, freed before the write. */
	free(anchor);
	return ok &&
	       (!pads || mc_move_pads_to_table(obj, arch, pads,
					       opt->per_section)) &&
	       nop_sites(obj, arch, sites, opt) &&
	       weaken_unused_hooks(obj, arch, opt) &&
	       /* after the NOPs, which void relocations inside their bytes */
	       (!opt->per_section || mc_table_link_back(obj, arch)) &&
	       write_without_sites(obj, sites);
}

static void say_done(const struct mc_object *obj,
		     const struct mc_site_list *sites,
		     const struct mc_pad_list *pads,
		     const struct mc_options *opt)
{
	size_t traced = count_traced(sites), padded = mc_count_valid_pads(pads);

	if (opt->verbosity <= 0)
		return;
	fprintf(stderr, "recordmcount: %s: recorded %zu site%s%s%s", obj->path,
		traced, traced == 1 ? "" : "s", opt->nop ? ", NOPed" : "",
		sites->n > traced ? " (untraced hooks NOPed)" : "");
	if (padded)
		fprintf(stderr, " and %zu pad%s", padded,
			padded == 1 ? "" : "s");
	fputc('\n', stderr);
}

/*
 * Pads move into __mcount_loc only when every one of them is
 * understood: the entry of one that is not must stay where the compiler
 * listed it, and moving the others would split one table into two.
 */
static bool pads_move(const struct mc_pad_list *pads,
		      const struct mc_options *opt)
{
	return !opt->keep_patchable && mc_count_valid_pads(pads) == pads->n;
}

/* Why an object needs no change, or NULL if it does. */
static const char *nothing_to_do(const struct mc_site_list *sites,
				 const struct mc_pad_list *pads,
				 const struct mc_options *opt)
{
	if (sites->n)
		return NULL;
	if (pads->n == 0)
		return "no hook calls";
	return pads_move(pads, opt) ? NULL : "only pads, kept as they are";
}

/*
 * --strict: a site or pad reported and left out of the table fails the
 * file before anything is written.
 */
static bool strict_check(struct mc_object *obj,
			 const struct mc_site_list *sites,
			 const struct mc_pad_list *pads,
			 const struct mc_options *opt)
{
	size_t n = sites->n_reported + pads->n - mc_count_valid_pads(pads);

	if (!opt->strict || n == 0)
		return true;
	return mc_fail(obj, "--strict: %zu hook site%s or pad%s reported and "
		       "not recorded; file left as it was", n,
		       n == 1 ? "" : "s", n == 1 ? "" : "s");
}

/*
 * --no-section keeps hook calls out of the table; pads are the
 * compiler's own list, which is never dropped (they stay in the table,
 * or in __patchable_function_entries with --keep-patchable).  Say so,
 * once per section, rather than leave the user believing the option
 * took them out.
 */
static void note_excluded_pads(const struct mc_object *obj,
			       const struct mc_pad_list *pads,
			       const struct mc_options *opt)
{
	struct mc_options all = *opt;
	bool *said;

	if (!opt->n_no_sections || !pads->n ||
	    !(said = calloc(obj->n_sections, sizeof(*said))))
		return;
	all.n_no_sections = 0;
	for (size_t i = 0; i < pads->n; i++) {
		size_t shndx = pads->v[i].shndx;
		const char *name = obj->sections[shndx]->name;
		char msg[320];

		/* Only where --no-section made the difference. */
		if (said[shndx] || mc_section_is_traced(name, opt) ||
		    !mc_section_is_traced(name, &all))
			continue;
		said[shndx] = true;
		snprintf(msg, sizeof(msg), "%s: --no-section applies to hook "
			 "calls only; the compiler's pads there are kept",
			 name);
		warn_site(obj, opt, msg);
	}
	free(said);
}

/*
 * Why an object that already has a table is left alone, or NULL: one
 * pass over the section names for both tables' names (an object of a
 * section per function has two million), the unlinked one's reason
 * first where both are there.
 */
static const char *table_already_there(const struct mc_object *obj)
{
	const char *linked = NULL;

	for (size_t i = 1; i < obj->n_sections; i++) {
		const char *name = obj->sections[i]->name;

		if (name[0] == MC_TABLE_SECTION[0] &&
		    strcmp(name, MC_TABLE_SECTION) == 0)
			return "already has " MC_TABLE_SECTION;
		if (name[0] == MC_TABLE_SECTION_LINKED[0] &&
		    strcmp(name, MC_TABLE_SECTION_LINKED) == 0)
			linked = "already has " MC_TABLE_SECTION_LINKED;
	}
	return linked;
}

/*
 * The model of the last file a process records: left to the exit,
 * which gives its memory back whole, where mc_object_close walks every
 * section and libelf's descriptors once more only to free them (30 to
 * 37 ms of user time at 10^6 sections, cold pages all).  Held here so
 * that leak checkers (valgrind, LeakSanitizer) find it reachable, not
 * lost; volatile, as a store that nothing reads back would otherwise be
 * optimised away with the only pointer to that memory.
 */
static struct mc_object *volatile left_to_exit;

static void close_object(struct mc_object *obj, bool last_file)
{
	struct mc_object *kept = last_file ? malloc(sizeof(*kept)) : NULL;

	if (kept) {
		*kept = *obj;
		left_to_exit = kept;
	} else {
		mc_object_close(obj);
	}
}

int mc_record_file(const char *path, const struct mc_options *opt)
{
	struct mc_object obj;
	struct mc_site_list sites = { 0 };
	struct mc_pad_list pads = { 0 };
	struct scanned_table st = { 0 };
	const struct mc_arch *arch = NULL;
	const char *idle = NULL;
	bool ok;

	ok = open_relocatable(&obj, path, &arch);
	if (ok && (idle = table_already_there(&obj))) {
		/* left alone: recorded before */
	} else if (ok && (ok = find_sites(&obj, arch, opt, &sites, &st) &&
			       mc_find_pads(&obj, arch, opt, &pads,
					    warn_site) &&
			       strict_check(&obj, &sites, &pads, opt))) {
		note_excluded_pads(&obj, &pads, opt);
		const struct mc_pad_list *moved =
			pads_move(&pads, opt) ? &pads : NULL;

		if (moved)
			mc_warn_unusable_pads(&obj, arch, moved, opt,
					      warn_site);

		idle = nothing_to_do(&sites, &pads, opt);
		if (!idle &&
		    (ok = rewrite(&obj, arch, &sites, moved, opt, &st)))
			say_done(&obj, &sites, moved, opt);
	}
	if (ok && idle && opt->verbosity > 0)
		fprintf(stderr, "recordmcount: %s: %s; left alone\n", path,
			idle);
	else if (ok && idle && opt->nop && opt->verbosity >= 0 &&
		 strcmp(idle, "no hook calls") != 0)
		/* Asked for NOPs and got none: say so even without -v. */
		fprintf(stderr, "recordmcount: %s: %s; calls not turned into "
			"NOPs (record and --nop in one run)\n", path, idle);
	if (!ok)
		report(path, obj.error);
	mc_site_list_free(&sites);
	scanned_table_free(&st);
	mc_pad_list_free(&pads);
	close_object(&obj, opt->last_file);
	return ok ? 0 : 1;
}
