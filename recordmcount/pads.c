/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pads.c - reading, checking and moving -fpatchable-function-entry pads.
 *
 * A pad is recorded as "symbol + addend" like any table entry; what it
 * should hold is only known from the code: M NOPs up to the function's
 * symbol, then (after an end-branch marker such as endbr64 or `bti c`,
 * which GCC puts first) the other N - M.  N and M are command-line
 * choices of the compiler that the object does not record, so they are
 * measured per pad, and a pad with no NOPs, or with other bytes before
 * the entry, is reported rather than recorded.  Such a pad still is the
 * compiler's word that a function has one, so it is never dropped: an
 * object with one keeps every __patchable_function_entries as it was
 * (see record.c).
 */
#define _GNU_SOURCE
#include "pads.h"
#include "../arch/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry_point {
	size_t shndx;
	uint64_t value;
};

static int compare_entries(const void *a, const void *b)
{
	const struct entry_point *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static struct mc_section *relocs_of(struct mc_object *obj, size_t target);

/*
 * Function descriptors (ppc64 ELFv1): a function symbol names its
 * descriptor in the architecture's descriptor_section (.opd), whose
 * relocations say where the code starts.  Each one that points into
 * code is an entry (the TOC pointer's relocation has no section).
 */
static bool add_descriptor_entries(struct mc_object *obj,
				   struct mc_section *rel,
				   struct entry_point *v, size_t *n)
{
	for (size_t i = 0; rel && i < mc_reloc_count(rel); i++) {
		struct mc_reloc r;

		if (!mc_reloc_get(obj, rel, i, &r))
			return false;
		if (r.sym == 0 || r.sym >= obj->n_symbols)
			continue;
		struct mc_symbol s = mc_symbol(obj, r.sym);
		if (s.shndx == 0 || s.shndx >= obj->n_sections ||
		    !(obj->sections[s.shndx]->shdr->sh_flags & SHF_EXECINSTR))
			continue;
		v[(*n)++] = (struct entry_point){
			s.shndx, s.sym.st_value + (uint64_t)r.addend,
		};
	}
	return true;
}

/*
 * Function entries by (section, offset), for finding the one a pad runs
 * into.  ARM's STT_FUNC values carry the Thumb bit, which is no address
 * bit: mc_code_address clears it.
 */
static struct entry_point *function_entries(struct mc_object *obj,
					    const struct mc_arch *arch,
					    size_t *n)
{
	struct mc_section *opd = arch->descriptor_section ?
		mc_section_by_name(obj, arch->descriptor_section) : NULL;
	struct mc_section *rel = opd ? relocs_of(obj, opd->index) : NULL;
	struct entry_point *v = malloc((obj->n_symbols + 1 +
					(rel ? mc_reloc_count(rel) : 0)) *
				       sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 1; i < obj->n_symbols; i++) {
		struct mc_symbol s = mc_symbol(obj, i);

		if (GELF_ST_TYPE(s.sym.st_info) != STT_FUNC ||
		    s.sym.st_shndx == SHN_UNDEF || s.shndx >= obj->n_sections)
			continue;
		v[(*n)++] = (struct entry_point){
			s.shndx,
			mc_code_address(arch, s.sym.st_value),
		};
	}
	if (!add_descriptor_entries(obj, rel, v, n)) {
		free(v);
		return NULL;
	}
	qsort(v, *n, sizeof(*v), compare_entries);
	return v;
}

static bool entry_below(const void *entry, const void *key)
{
	return compare_entries(entry, key) < 0;
}

/* Index of the first function entry at or after (shndx, offset). */
static size_t first_entry_from(const struct entry_point *v, size_t n,
			       size_t shndx, uint64_t offset)
{
	struct entry_point key = { shndx, offset };

	return mc_partition_point(v, n, sizeof(*v), &key, entry_below);
}

/* The first function entry at or after (shndx, offset), or NULL. */
static const struct entry_point *entry_from(const struct entry_point *v,
					    size_t n, size_t shndx,
					    uint64_t offset)
{
	size_t i = first_entry_from(v, n, shndx, offset);

	return i < n && v[i].shndx == shndx ? &v[i] : NULL;
}

/*
 * The function whose entry marker (endbr64, bti c) ends exactly at
 * `offset`, or NULL: with M = 0, GCC puts the marker first and the
 * whole pad after it.
 */
static const struct entry_point *
entry_marked_before(const struct mc_arch *arch, const uint8_t *code,
		    size_t size, const struct entry_point *v, size_t n,
		    size_t shndx, uint64_t offset)
{
	size_t i = first_entry_from(v, n, shndx, offset);

	if (i == 0 || v[i - 1].shndx != shndx || v[i - 1].value >= size)
		return NULL;
	const struct entry_point *e = &v[i - 1];
	unsigned len = mc_match_insn(arch->entry_prefixes,
				     arch->n_entry_prefixes, code + e->value,
				     size - e->value);
	return len && e->value + len == offset ? e : NULL;
}

/* Count pad NOPs in code[*at, end); *at moves past them. */
static unsigned count_nops(const struct mc_arch *arch, const uint8_t *code,
			   uint64_t *at, uint64_t end)
{
	unsigned n = 0, len;

	while (*at < end &&
	       (len = mc_match_insn(arch->pad_nops, arch->n_pad_nops,
				    code + *at, end - *at)) != 0) {
		*at += len;
		n++;
	}
	return n;
}

/*
 * Measure the pad at p->offset against the code and the function that
 * follows it; false with `why` set when it is not a pad GCC would write.
 */
static bool measure_pad(struct mc_object *obj, const struct mc_arch *arch,
			const struct entry_point *entries, size_t n_entries,
			struct mc_pad *p, const char **why)
{
	size_t size;
	const uint8_t *code = mc_section_bytes(obj, obj->sections[p->shndx],
					       &size);
	const struct entry_point *e = entry_from(entries, n_entries, p->shndx,
						 p->offset);
	uint64_t at = p->offset;

	if (!code || p->offset >= size) {
		*why = "lies outside its section";
		return false;
	}
	const struct entry_point *marked = entry_marked_before(
		arch, code, size, entries, n_entries, p->shndx, p->offset);
	if (marked) {
		p->entry = marked->value;
		p->before = 0;
		p->after = count_nops(arch, code, &at, size);
		if (p->after == 0)
			*why = "holds no NOPs";
		return p->after != 0;
	}
	if (!e) {
		*why = "is followed by no function";
		return false;
	}
	p->entry = e->value;
	p->before = count_nops(arch, code, &at, e->value < size ? e->value
								: size);
	if (at != e->value) {
		*why = "holds other bytes before the function's entry";
		return false;
	}
	at += mc_match_insn(arch->entry_prefixes, arch->n_entry_prefixes,
			    code + at, size - at);
	p->after = count_nops(arch, code, &at, size);
	if (p->before + p->after == 0) {
		*why = "holds no NOPs";
		return false;
	}
	return true;
}

static bool push_pad(struct mc_object *obj, struct mc_pad_list *l,
		     const struct mc_pad *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct mc_pad *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return mc_fail(obj, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *p;
	return true;
}

size_t mc_count_valid_pads(const struct mc_pad_list *pads)
{
	size_t n = 0;

	for (size_t i = 0; pads && i < pads->n; i++)
		n += pads->v[i].valid;
	return n;
}

void mc_pad_list_free(struct mc_pad_list *l)
{
	free(l->v);
	*l = (struct mc_pad_list){ 0 };
}

/* The relocation section that applies to section `target`, or NULL. */
static struct mc_section *relocs_of(struct mc_object *obj, size_t target)
{
	struct mc_section *s = mc_reloc_section_of(obj, target);

	return s && obj->symtab && s->shdr->sh_link == obj->symtab->index ? s
									 : NULL;
}

/* Where entry `r` of `table` points: anchor value + addend (+ slot). */
static bool pad_target(struct mc_object *obj, const struct mc_arch *arch,
		       struct mc_section *table, struct mc_section *rel,
		       const struct mc_reloc *r, size_t i, struct mc_pad *p)
{
	size_t size;
	const uint8_t *slots = mc_section_bytes(obj, table, &size);

	if (!slots || r->offset % arch->addr_size || r->offset > size ||
	    arch->addr_size > size - r->offset || r->sym >= obj->n_symbols)
		return mc_fail(obj, "%s: corrupt relocation %zu", rel->name, i);
	struct mc_symbol s = mc_symbol(obj, r->sym);
	int64_t slot = (int64_t)mc_load_address(obj, slots + r->offset);
	if (arch->addr_size == 4)
		slot = (int32_t)slot;
	if (s.shndx == 0 || s.shndx >= obj->n_sections)
		return mc_fail(obj, "%s: entry %zu is not in a section",
			       table->name, i);
	p->shndx = s.shndx;
	/* Address arithmetic wraps, as the linker's does. */
	p->offset = s.sym.st_value + (uint64_t)r->addend + (uint64_t)slot;
	return true;
}

/* How many of a pad's bytes a warning shows: a whole pad on most. */
#define PAD_BYTES_SHOWN 8

/* Up to PAD_BYTES_SHOWN bytes of `sec` from `offset`, as hex. */
static void show_bytes(const struct mc_object *obj, struct mc_section *sec,
		       uint64_t offset, char *out, size_t n)
{
	size_t size, used = 0;
	const uint8_t *code = mc_section_bytes(obj, sec, &size);

	out[0] = 0;
	for (size_t i = 0; code && i < PAD_BYTES_SHOWN && offset < size &&
			   i < size - offset && used + 4 <= n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s%02x",
					 i ? " " : "", code[offset + i]);
	if (!out[0])
		snprintf(out, n, "none");
}

static bool read_pad_table(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_options *opt,
			   struct mc_section *table,
			   const struct entry_point *entries, size_t n_entries,
			   struct mc_pad_list *out, mc_warn_fn warn)
{
	struct mc_section *rel = relocs_of(obj, table->index);
	char msg[256];

	if (!rel)
		return mc_fail(obj, "%s has no relocations", table->name);
	if (rel->shdr->sh_entsize != mc_reloc_entry_size(obj, rel->shdr->sh_type))
		return mc_fail(obj, "%s: bad relocation entry size", rel->name);
	for (size_t i = 0; i < mc_reloc_count(rel); i++) {
		struct mc_pad p = { .table = table->index };
		const char *why = NULL;

		if (!mc_reloc_get(obj, rel, i, &p.r) ||
		    !pad_target(obj, arch, table, rel, &p.r, i, &p))
			return false;
		p.valid = measure_pad(obj, arch, entries, n_entries, &p, &why);
		if (!p.valid) {
			char bytes[3 * PAD_BYTES_SHOWN + 1];

			show_bytes(obj, obj->sections[p.shndx], p.offset, bytes,
				   sizeof(bytes));
			snprintf(msg, sizeof(msg), "%s+0x%llx: pad %s (bytes: "
				 "%s); every pad left in %s, not recorded",
				 obj->sections[p.shndx]->name,
				 (unsigned long long)p.offset, why, bytes,
				 MC_PADS_SECTION);
			warn(obj, opt, msg);
		}
		if (!push_pad(obj, out, &p))
			return false;
	}
	return true;
}

/*
 * Why the runtime cannot enable pad p (mc_pad_refusal, the runtime's
 * own judge), or NULL; *fit says what was measured.
 */
static const char *pad_refusal(struct mc_object *obj,
			       const struct mc_arch *arch,
			       const struct mc_pad *p, struct mc_pad_fit *fit)
{
	size_t size;
	const uint8_t *code = mc_section_bytes(obj, obj->sections[p->shndx],
					       &size);

	*fit = (struct mc_pad_fit){ arch, 0 };
	if (!code || p->offset >= size || p->entry > size)
		return NULL;
	return mc_pad_refusal(arch, code + p->offset, size - p->offset,
			      code + p->entry, size - p->entry, fit);
}

/*
 * The pad NOPs from the entry on that the runtime's call needs, in the
 * size of the pad's own NOPs, as -fpatchable-function-entry=N,M counts
 * them (N - M); 0 if that does not say it.
 */
static unsigned nops_needed(struct mc_object *obj, const struct mc_pad *p,
			    const struct mc_arch *reader)
{
	size_t size;
	const uint8_t *code = mc_section_bytes(obj, obj->sections[p->shndx],
					       &size);
	unsigned nop = code ? mc_match_insn(reader->pad_nops,
					    reader->n_pad_nops,
					    code + p->offset,
					    size - p->offset) : 0;

	return nop ? (reader->pad_call_len + nop - 1) / nop : 0;
}

void mc_warn_unusable_pads(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_pad_list *pads,
			   const struct mc_options *opt, mc_warn_fn warn)
{
	const struct mc_pad *first = NULL;
	const char *why = NULL;
	struct mc_pad_fit fit, first_fit = { arch, 0 };
	size_t bad = 0, valid = 0;
	char msg[512];

	for (size_t i = 0; i < pads->n; i++) {
		const char *w;

		if (!pads->v[i].valid)
			continue;
		valid++;
		if (!(w = pad_refusal(obj, arch, &pads->v[i], &fit)))
			continue;
		if (bad++ == 0) {
			first = &pads->v[i];
			why = w;
			first_fit = fit;
		}
	}
	if (!bad)
		return;
	const struct mc_arch *r = first_fit.reader;
	const struct mc_symbol *f = mc_function_at(obj, first->shndx,
						   first->entry,
						   arch->symbol_mode_bits);
	unsigned need = r ? nops_needed(obj, first, r) : 0;
	char detail[160];

	if (r && first_fit.nops < r->pad_call_len)
		snprintf(detail, sizeof(detail), "%zu byte%s of NOPs from "
			 "its entry on, and %s's call takes %u (-fpatchable-"
			 "function-entry=N,M with N - M >= %u)",
			 first_fit.nops, first_fit.nops == 1 ? "" : "s",
			 r->name, r->pad_call_len, need);
	else
		snprintf(detail, sizeof(detail), "%s", why);
	snprintf(msg, sizeof(msg), "libmcount cannot enable %zu of %zu pads: "
		 "%s+0x%llx (%s): %s; recorded all the same", bad, valid,
		 obj->sections[first->shndx]->name,
		 (unsigned long long)first->offset,
		 f && f->name && *f->name ? f->name : "no symbol", detail);
	warn(obj, opt, msg);
}

bool mc_find_pads(struct mc_object *obj, const struct mc_arch *arch,
		  const struct mc_options *opt, struct mc_pad_list *out,
		  mc_warn_fn warn)
{
	size_t n_entries = 0;
	struct entry_point *entries = NULL;
	bool ok = true;

	*out = (struct mc_pad_list){ 0 };
	for (size_t i = 1; ok && i < obj->n_sections; i++) {
		struct mc_section *s = obj->sections[i];

		if (s->name[0] != MC_PADS_SECTION[0] ||
		    strcmp(s->name, MC_PADS_SECTION) != 0 ||
		    s->shdr->sh_type != SHT_PROGBITS)
			continue;
		if (!arch->n_pad_nops)
			return mc_fail(obj, "%s: pads are not understood on %s",
				       s->name, arch->name);
		if (!entries && !(entries = function_entries(obj, arch,
							      &n_entries)))
			return mc_fail(obj, "out of memory");
		ok = read_pad_table(obj, arch, opt, s, entries, n_entries, out,
				    warn);
	}
	free(entries);
	if (!ok)
		mc_pad_list_free(out);
	return ok;
}

/* By target section and offset: the order entries take in a piece. */
static int compare_targets(const void *a, const void *b)
{
	const struct mc_pad *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* A pad's entry as the compiler wrote it: relocation plus slot bytes. */
struct pad_entry {
	struct mc_pad pad;
	struct mc_reloc r;
	uint32_t rel_type;
	uint8_t slot[8];
	bool covered;		/* its own table keeps it (see below) */
};

/*
 * Does the compiler's table cover pad p?  A table linked to one section
 * (SHF_LINK_ORDER) covers only that section's pads; GCC 12 also puts
 * other sections' pads there, which the linker would then drop with the
 * wrong function.
 */
static bool covered_by_own_table(const struct mc_object *obj,
				 const struct mc_pad *p)
{
	const GElf_Shdr *h = obj->sections[p->table]->shdr;

	return !(h->sh_flags & SHF_LINK_ORDER) || h->sh_link == p->shndx;
}

/* Read every valid pad's entry before any table changes; sorted, unique. */
static struct pad_entry *collect_entries(struct mc_object *obj,
					 const struct mc_arch *arch,
					 const struct mc_pad_list *pads,
					 size_t *n)
{
	struct pad_entry *v = calloc(pads->n + 1, sizeof(*v));
	size_t k = 0;

	if (!v) {
		mc_fail(obj, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < pads->n; i++) {
		const struct mc_pad *p = &pads->v[i];
		struct mc_section *table = obj->sections[p->table];
		struct mc_section *rel = relocs_of(obj, p->table);
		size_t size;
		const uint8_t *old = mc_section_bytes(obj, table, &size);

		if (!p->valid)
			continue;
		v[k].pad = *p;
		v[k].rel_type = rel->shdr->sh_type;
		v[k].r = p->r;
		memcpy(v[k].slot, old + v[k].r.offset, arch->addr_size);
		v[k].covered = covered_by_own_table(obj, p);
		k++;
	}
	qsort(v, k, sizeof(*v), compare_targets);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (*n == 0 || compare_targets(&v[*n - 1].pad, &v[i].pad) != 0)
			v[(*n)++] = v[i];
	return v;
}

/* A piece of the entries e[0..n) that `keep` selects. */
static bool fill_piece(struct mc_object *obj, const struct mc_arch *arch,
		       const struct pad_entry *e, size_t n,
		       bool (*keep)(const struct pad_entry *, size_t),
		       size_t arg, uint32_t rel_type, struct mc_piece *piece)
{
	if (!mc_piece_start(obj, arch, rel_type, n, piece))
		return false;
	for (size_t i = 0; i < n; i++)
		if (keep(&e[i], arg))
			mc_piece_add(obj, arch, piece, &e[i].r, e[i].slot);
	return true;
}

/* What a compiler's table keeps: the pads it covers. */
static bool kept_by_table(const struct pad_entry *e, size_t table)
{
	return e->pad.table == table && e->covered;
}

/* What a new piece for a section takes: its pads no table covers. */
static bool left_for_section(const struct pad_entry *e, size_t shndx)
{
	return e->pad.shndx == shndx && !e->covered;
}

/* Table `table` and its relocations become `piece` (taken over). */
static bool set_piece(struct mc_object *obj, const struct mc_arch *arch,
		      size_t table, struct mc_piece *piece, bool per_section)
{
	struct mc_section *rel = relocs_of(obj, table);
	uint32_t rel_type = piece->rel_type;
	size_t rel_bytes = piece->n * mc_reloc_entry_size(obj, rel_type);

	if (!mc_section_set_contents(obj, obj->sections[table], piece->slots,
				     piece->n * arch->addr_size, ELF_T_BYTE)) {
		free(piece->rels);
		return false;
	}
	return mc_section_set_contents(obj, rel, piece->rels, rel_bytes,
				       rel_type == SHT_RELA ? ELF_T_RELA
							    : ELF_T_REL) &&
	       mc_section_rename(obj, obj->sections[table],
				 mc_table_name(per_section)) &&
	       mc_section_rename(obj, rel,
				 mc_table_reloc_name(rel_type, per_section));
}

/* The compiler's table `t`, renamed, holding the entries it covers. */
static bool rewrite_own_table(struct mc_object *obj, const struct mc_arch *arch,
			      const struct pad_entry *e, size_t n, size_t t,
			      bool per_section)
{
	struct mc_piece piece;
	uint32_t rel_type = relocs_of(obj, t)->shdr->sh_type;

	return fill_piece(obj, arch, e, n, kept_by_table, t, rel_type,
			  &piece) &&
	       set_piece(obj, arch, t, &piece, per_section);
}

/*
 * A new piece for the entries of section `shndx` that their compiler's
 * table did not cover: linked to that section, in its group.
 */
static bool add_piece(struct mc_object *obj, const struct mc_arch *arch,
		      const struct pad_entry *e, size_t n, size_t shndx,
		      size_t group, uint32_t rel_type, bool per_section)
{
	struct mc_piece piece;
	/* Writable and linked to its code, like the compiler's own. */
	struct mc_piece_place place = {
		.flags = SHF_ALLOC | SHF_WRITE | SHF_LINK_ORDER,
		.link = shndx,
		.group = group,
		.per_section = per_section,
	};

	return fill_piece(obj, arch, e, n, left_for_section, shndx, rel_type,
			  &piece) &&
	       mc_add_table_piece(obj, arch, &place, &piece);
}

bool mc_move_pads_to_table(struct mc_object *obj, const struct mc_arch *arch,
			   const struct mc_pad_list *pads, bool per_section)
{
	size_t n = 0;
	struct pad_entry *e = collect_entries(obj, arch, pads, &n);
	/* a word a section, only where some section is a group's */
	bool grouped = mc_object_has_groups(obj);
	size_t *group_of = grouped ? malloc(obj->n_sections * sizeof(*group_of))
				   : NULL;
	bool ok = e && (!grouped || (group_of &&
				     mc_section_groups(obj, group_of)));

	if (e && grouped && !group_of)
		mc_fail(obj, "out of memory");
	/* Each compiler table keeps what it covers ... */
	for (size_t i = 0; ok && i < pads->n; i++)
		if (i == 0 || pads->v[i].table != pads->v[i - 1].table)
			ok = rewrite_own_table(obj, arch, e, n,
					       pads->v[i].table, per_section);
	/* ... and each section whose pads it did not cover gets a piece. */
	for (size_t i = 0, last = 0; ok && i < n; i++) {
		if (e[i].covered || e[i].pad.shndx == last)
			continue;
		last = e[i].pad.shndx;
		ok = add_piece(obj, arch, e, n, last,
			       group_of ? group_of[last] : 0,
			       e[i].rel_type, per_section);
	}
	free(group_of);
	free(e);
	return ok;
}
