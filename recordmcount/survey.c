/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * survey.c - read a table and look at the code behind each entry.
 *
 * Shared by --dump (which prints it) and --check (which judges it), so
 * that both read a table the same way and agree on what a site holds.
 */
#define _GNU_SOURCE
#include "survey.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "../arch/search.h"

/* An object's entry k: anchor symbol + addend of the slot's relocation. */
static bool object_entries(struct mc_survey *d, struct mc_section *table,
			   size_t base)
{
	struct mc_object *obj = d->obj;
	struct mc_section *rel = mc_reloc_section_of(obj, table->index);
	size_t size;
	const uint8_t *slots = mc_section_bytes(obj, table, &size);

	for (size_t i = 0; rel && i < mc_reloc_count(rel); i++) {
		struct mc_reloc r;

		if (!mc_reloc_get(obj, rel, i, &r))
			return false;
		if (r.sym >= obj->n_symbols || r.offset >= size ||
		    r.offset % d->arch->addr_size)
			return mc_fail(obj, "%s: corrupt relocation %zu",
				       rel->name, i);
		size_t k = base + r.offset / d->arch->addr_size;
		const struct mc_symbol *s = &obj->symbols[r.sym];
		/* RELA slots are 0 but where the addend lives there (SH). */
		int64_t slot = (int64_t)mc_load_address(obj, slots + r.offset);
		if (d->arch->addr_size == 4)
			slot = (int32_t)slot;
		/* Address arithmetic wraps, as the linker's does. */
		uint64_t addend = (uint64_t)r.addend + (uint64_t)slot;
		bool cleared = r.type == d->arch->none_reloc && r.sym == 0;
		d->entries[k] = (struct mc_entry){
			.shndx = s->shndx,
			.offset = s->sym.st_value + (uint64_t)addend,
			.resolved = !cleared && s->shndx > 0 &&
				    s->shndx < obj->n_sections,
			.cleared = cleared,
			.rel_shndx = rel->index,
			.reloc_index = i,
		};
	}
	return true;
}

static int compare_relative(const void *a, const void *b)
{
	const struct mc_relative *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Every R_*_RELATIVE of the image's dynamic relocations, sorted. */
static void read_relative(struct mc_survey *d)
{
	struct mc_object *obj = d->obj;
	size_t n = 0;

	d->relative_read = true;
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->shdr->sh_type == SHT_RELA &&
		    (obj->sections[i]->shdr->sh_flags & SHF_ALLOC))
			n += mc_reloc_count(obj->sections[i]);
	d->relative = malloc((n + 1) * sizeof(*d->relative));
	if (!d->relative)
		return;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *s = obj->sections[i];

		if (s->shdr->sh_type != SHT_RELA || !(s->shdr->sh_flags & SHF_ALLOC))
			continue;
		for (size_t j = 0; j < mc_reloc_count(s); j++) {
			struct mc_reloc r;

			if (mc_reloc_get(obj, s, j, &r) &&
			    r.type == d->arch->relative_reloc)
				d->relative[d->n_relative++] = (struct mc_relative){
					r.offset, (uint64_t)r.addend };
		}
	}
	qsort(d->relative, d->n_relative, sizeof(*d->relative),
	      compare_relative);
}

/* In a PIE the dynamic relocation, not the slot, holds the address. */
bool mc_survey_relative(struct mc_survey *d, uint64_t where, uint64_t *value)
{
	struct mc_relative key = { where, 0 };
	const struct mc_relative *r;

	if (!d->relative_read)
		read_relative(d);
	r = d->n_relative ? bsearch(&key, d->relative, d->n_relative,
				    sizeof(key), compare_relative) : NULL;
	if (r)
		*value = r->addend;
	return r != NULL;
}

static int compare_bound(const void *a, const void *b)
{
	const struct mc_bound_slot *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The image's .dynsym, or NULL. */
static struct mc_section *dynsym_section(const struct mc_object *obj)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->shdr->sh_type == SHT_DYNSYM)
			return obj->sections[i];
	return NULL;
}

/* Where the GOT's global part starts, and which .dynsym entries it holds. */
struct got_globals {
	uint64_t first_slot;
	size_t gotsym, symtabno;
	struct mc_section *dynsym;
};

/*
 * The got_layout's tags, held to the image: the global part's symbols
 * exist in .dynsym, and the primary GOT lies inside one section.
 */
static bool got_globals(struct mc_survey *d, struct got_globals *g,
			struct mc_got *got)
{
	const struct mc_got_layout *l = d->arch->got_layout;
	struct mc_object *obj = d->obj;
	struct mc_section *sec;
	uint64_t start, local, gotsym, symtabno, n_syms, end;
	size_t size = d->arch->addr_size;

	if (!l || !mc_dynamic_value(obj, DT_PLTGOT, &start) ||
	    !mc_dynamic_value(obj, l->local_gotno_tag, &local) ||
	    !mc_dynamic_value(obj, l->gotsym_tag, &gotsym) ||
	    !mc_dynamic_value(obj, l->symtabno_tag, &symtabno) ||
	    !(g->dynsym = dynsym_section(obj)) ||
	    !g->dynsym->shdr->sh_entsize ||
	    !(sec = mc_section_at_address(obj, start)))
		return false;
	n_syms = g->dynsym->shdr->sh_size / g->dynsym->shdr->sh_entsize;
	end = sec->shdr->sh_addr + sec->shdr->sh_size;
	if (symtabno > n_syms || gotsym > symtabno ||
	    local > (end - start) / size ||
	    symtabno - gotsym > (end - start) / size - local)
		return false;
	g->first_slot = start + local * size;
	g->gotsym = gotsym;
	g->symtabno = symtabno;
	*got = (struct mc_got){
		.start = start,
		.gp = start + l->gp_bias,	/* 0 below if several GOTs */
		.primary_end = g->first_slot + (symtabno - gotsym) * size,
		.section_end = end,
	};
	return true;
}

const struct mc_got *mc_survey_got(struct mc_survey *d)
{
	struct got_globals g;

	if (!d->got_read && d->linked && !got_globals(d, &g, &d->got))
		d->got = (struct mc_got){ 0 };
	/* Past the primary GOT, other GOTs: $gp differs by function. */
	if (!d->got_read && d->got.primary_end != d->got.section_end)
		d->got.gp = 0;
	d->got_read = true;
	return &d->got;
}

/*
 * Every dynamic relocation of the image that names a symbol (JUMP_SLOT,
 * GLOB_DAT, ...: .rela.plt, .rela.dyn, .rel.*), by the slot it fills.
 * Out of memory is said on the object and leaves bound NULL.
 */
static void read_bound(struct mc_survey *d)
{
	struct mc_object *obj = d->obj;
	struct got_globals g = { 0 };
	struct mc_got got;
	bool globals = d->linked && got_globals(d, &g, &got);
	size_t n = 0;

	d->bound_read = true;
	for (size_t i = 1; i < obj->n_sections; i++)
		if (mc_is_reloc_section(obj->sections[i]) &&
		    (obj->sections[i]->shdr->sh_flags & SHF_ALLOC))
			n += mc_reloc_count(obj->sections[i]);
	if (globals)
		n += g.symtabno - g.gotsym;
	d->bound = malloc((n + 1) * sizeof(*d->bound));
	if (!d->bound) {
		mc_fail(obj, "out of memory");
		return;
	}
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *s = obj->sections[i];
		size_t link = s->shdr->sh_link;

		if (!mc_is_reloc_section(s) || !(s->shdr->sh_flags & SHF_ALLOC) ||
		    link == 0 || link >= obj->n_sections)
			continue;
		for (size_t j = 0; j < mc_reloc_count(s); j++) {
			struct mc_reloc r;
			const char *name;

			if (!mc_reloc_get(obj, s, j, &r) || r.sym == 0)
				continue;
			name = mc_symbol_name_in(obj, obj->sections[link], r.sym);
			if (name && *name)
				d->bound[d->n_bound++] = (struct mc_bound_slot){
					r.offset, name };
		}
	}
	/* The loader binds the GOT's global part by .dynsym's order. */
	for (size_t k = g.gotsym; globals && k < g.symtabno; k++) {
		const char *name = mc_symbol_name_in(obj, g.dynsym, k);

		if (name && *name)
			d->bound[d->n_bound++] = (struct mc_bound_slot){
				g.first_slot + (k - g.gotsym) *
					       d->arch->addr_size, name };
	}
	qsort(d->bound, d->n_bound, sizeof(*d->bound), compare_bound);
}

bool mc_survey_bound(struct mc_survey *d, const struct mc_bound_slot **slots,
		     size_t *n)
{
	if (!d->bound_read)
		read_bound(d);
	*slots = d->bound;
	*n = d->n_bound;
	return d->bound != NULL;
}

/* What PLT entries index from (mc_arch.plt_base_section), or 0. */
static uint64_t plt_base(struct mc_survey *d)
{
	const struct mc_arch *a = d->arch;
	struct mc_section *s = a->plt_base_section ?
		mc_section_by_name(d->obj, a->plt_base_section) : NULL;

	return s ? s->shdr->sh_addr + a->plt_base_bias : 0;
}

/* The relocation bound to exactly `slot`, or NULL. */
static const struct mc_bound_slot *bound_at(struct mc_survey *d,
					    uint64_t slot)
{
	const struct mc_bound_slot *bound;
	struct mc_bound_slot key = { slot, NULL };
	size_t n;

	if (!mc_survey_bound(d, &bound, &n) || n == 0)
		return NULL;
	return bsearch(&key, bound, n, sizeof(key), compare_bound);
}

/*
 * Where linkers put call stubs among the functions (plt_in_code), a
 * call into code no function symbol covers is a stub's, or may be (GNU
 * ld labels none), and so is one into a function lld names __plt_*:
 * a stub whose form the architecture does not decode must not pass for
 * a call that leads to no hook.
 */
static bool stub_like(struct mc_survey *d, const struct mc_section *sec,
		      uint64_t target)
{
	const struct mc_symbol *f;

	if (!d->arch->plt_in_code)
		return false;
	f = mc_function_at(d->obj, sec->index, target,
			   d->arch->symbol_mode_bits);
	return !f || (f->name && strncmp(f->name, "__plt_", 6) == 0);
}

/* The image's NOBITS .plt if it holds `at` (mc_arch.plt_bss), or NULL. */
static const struct mc_section *bss_plt_at(struct mc_survey *d, uint64_t at)
{
	const struct mc_section *plt = d->arch->plt_bss ?
		mc_section_by_name(d->obj, ".plt") : NULL;

	if (!plt || plt->shdr->sh_type != SHT_NOBITS)
		return NULL;
	return at >= plt->shdr->sh_addr &&
	       at - plt->shdr->sh_addr < plt->shdr->sh_size ? plt : NULL;
}

/*
 * ppc32's BSS PLT (GNU ld's -mbss-plt, which it forces when it links
 * -pg code): NOBITS space the loader fills with each entry's code, so
 * no bytes say where an entry leads, but each entry the loader writes
 * is the slot of the R_PPC_JMP_SLOT relocation on its own address.
 * An address no relocation names is no entry: undecoded.
 */
static enum mc_plt_call bss_plt_call(struct mc_survey *d,
				     const struct mc_section *sec,
				     uint64_t at, const char **name)
{
	const struct mc_bound_slot *b;

	if ((at - sec->shdr->sh_addr) % d->arch->plt_step)
		return MC_PLT_UNDECODED;
	b = bound_at(d, at);
	if (!b)
		return MC_PLT_UNDECODED;
	*name = b->name;
	return MC_PLT_DECODED;
}

bool mc_survey_follows_plt(struct mc_survey *d)
{
	struct mc_section *plt;

	if (d->arch->plt_slot)
		return true;
	plt = d->arch->plt_bss ? mc_section_by_name(d->obj, ".plt") : NULL;
	return plt && plt->shdr->sh_type == SHT_NOBITS;
}

enum mc_plt_call mc_survey_plt_call(struct mc_survey *d, uint64_t target,
				    const char **name)
{
	const struct mc_arch *a = d->arch;
	uint64_t at = mc_code_address(a, target);
	struct mc_section *sec = d->linked ?
		mc_section_at_address(d->obj, at) : NULL;
	bool in_plt = sec && strncmp(sec->name, ".plt", 4) == 0;
	size_t size = 0;
	const uint8_t *code;
	uint64_t slot = 0;
	const struct mc_bound_slot *bound, *b;
	size_t n_bound;
	const struct mc_section *bss;

	*name = NULL;
	if (!sec && (bss = bss_plt_at(d, at)))
		return bss_plt_call(d, bss, at, name);
	if (!sec || (!in_plt && (!a->plt_in_code ||
				 !(sec->shdr->sh_flags & SHF_EXECINSTR))))
		return MC_PLT_NONE;
	code = mc_section_bytes(d->obj, sec, &size);
	if (code && at - sec->shdr->sh_addr < size)
		slot = mc_plt_slot(a, code + (at - sec->shdr->sh_addr),
				   size - (at - sec->shdr->sh_addr), target,
				   plt_base(d));
	if (!slot)
		return in_plt || stub_like(d, sec, target) ? MC_PLT_UNDECODED :
							     MC_PLT_NONE;
	if (!mc_survey_bound(d, &bound, &n_bound))
		return MC_PLT_UNDECODED;	/* cannot say what it binds */
	b = bound_at(d, slot);
	*name = b ? b->name : NULL;
	return MC_PLT_DECODED;
}

static void linked_entries(struct mc_survey *d, struct mc_section *table,
			   uint64_t start, size_t first, size_t n)
{
	size_t size;
	const uint8_t *slots = mc_section_bytes(d->obj, table, &size);
	uint64_t base = start - table->shdr->sh_addr;

	for (size_t k = first; k < first + n; k++) {
		uint64_t where = start + (k - first) * d->arch->addr_size;
		uint64_t a = slots ? mc_load_address(d->obj, slots + base +
				       (k - first) * d->arch->addr_size) : 0;
		struct mc_section *sec;

		mc_survey_relative(d, where, &a);
		sec = mc_section_at_address(d->obj, a);
		d->entries[k] = (struct mc_entry){
			.shndx = sec ? sec->index : 0,
			.offset = sec ? a - sec->shdr->sh_addr : 0,
			.address = a,
			.slot = where,
			.resolved = sec != NULL,
			.cleared = a == 0,
		};
	}
}

/*
 * Sections that hold table entries: ours, in either form, and the
 * compiler's pads.
 */
static bool is_table(const struct mc_section *s)
{
	return s->shdr->sh_type == SHT_PROGBITS &&
	       (mc_is_table_name(s->name) ||
		strcmp(s->name, MC_PADS_SECTION) == 0);
}

static bool alloc_entries(struct mc_survey *d, uint64_t bytes)
{
	if (bytes % d->arch->addr_size)
		return mc_fail(d->obj, "%s size %" PRIu64 " is not a multiple "
			       "of %u", MC_TABLE_SECTION, bytes, d->arch->addr_size);
	/*
	 * Table sections may overlap in a hostile file, so their sizes can
	 * add up to more than a 32-bit size_t holds even though each one
	 * fits: refuse the count rather than wrap it to a small array that
	 * the entries would then overrun.
	 */
	if (!mc_size_fits(bytes / d->arch->addr_size + 1))
		return mc_fail(d->obj, "%s: %" PRIu64 " entries, more than "
			       "this host can address (%zu-bit size_t)",
			       MC_TABLE_SECTION, bytes / d->arch->addr_size,
			       sizeof(size_t) * 8);
	d->n_entries = bytes / d->arch->addr_size;
	d->entries = calloc(d->n_entries + 1, sizeof(*d->entries));
	return d->entries || mc_fail(d->obj, "out of memory");
}

/*
 * A linked image has the whole table between a pair of symbols: our
 * linker script's, or without it the linker's own __start_/__stop_ for
 * the output section __mcount_loc (names[0] and [1] are the pair).
 */
static bool read_linked_range(struct mc_survey *d, size_t a, size_t b,
			      const char *const *names)
{
	struct mc_object *obj = d->obj;
	uint64_t start = obj->symbols[a].sym.st_value;
	uint64_t bytes = obj->symbols[b].sym.st_value - start;
	struct mc_section *t = bytes ? mc_section_at_address(obj, start) : NULL;

	if (bytes && (!t || start + bytes > t->shdr->sh_addr + t->shdr->sh_size))
		return mc_fail(obj, "%s..%s is not inside one section",
			       names[0], names[1]);
	if (!alloc_entries(d, bytes))
		return false;
	d->has_table = true;
	if (t)
		linked_entries(d, t, start, 0, d->n_entries);
	return true;
}

/* Otherwise every table section, one after the other. */
static bool read_table_sections(struct mc_survey *d)
{
	struct mc_object *obj = d->obj;
	uint64_t bytes = 0;
	size_t k = 0;

	for (size_t i = 1; i < obj->n_sections; i++)
		if (is_table(obj->sections[i])) {
			bytes += obj->sections[i]->shdr->sh_size;
			d->has_table = true;
		}
	if (!alloc_entries(d, bytes))
		return false;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *t = obj->sections[i];
		size_t n = t->shdr->sh_size / d->arch->addr_size;

		if (!is_table(t))
			continue;
		if (!d->linked && !object_entries(d, t, k))
			return false;
		if (d->linked)
			linked_entries(d, t, t->shdr->sh_addr, k, n);
		k += n;
	}
	return true;
}

/* A symbol the link defined, or SIZE_MAX (absent, or undefined weak). */
static size_t defined_symbol(const struct mc_object *obj, const char *name)
{
	size_t i = mc_symbol_by_name(obj, name);

	return i != SIZE_MAX && obj->symbols[i].sym.st_shndx != SHN_UNDEF ? i
									  : SIZE_MAX;
}

/* The bounds a linker script defines (lds/), which the runtime reads. */
static const char *const script_bounds[2] = {
	"__start_mcount_loc", "__stop_mcount_loc"
};

/* How many non-empty allocated sections are called `name`. */
static size_t output_tables(const struct mc_object *obj, const char *name)
{
	size_t n = 0;

	for (size_t i = 1; i < obj->n_sections; i++) {
		const struct mc_section *s = obj->sections[i];

		n += (s->shdr->sh_flags & SHF_ALLOC) && s->shdr->sh_size &&
		     strcmp(s->name, name) == 0;
	}
	return n;
}

/*
 * A linked image: the script's range, or else the output section the
 * linker made of the pieces, as the runtime finds it by name
 * (runtime/linux/objects.c), which refuses a program holding both forms, or
 * one form in two sections (mold splits a name by flags).
 */
static bool read_entries(struct mc_survey *d)
{
	struct mc_object *obj = d->obj;

	if (d->linked) {
		size_t a = defined_symbol(obj, script_bounds[0]);
		size_t b = defined_symbol(obj, script_bounds[1]);
		size_t linked = output_tables(obj, MC_TABLE_SECTION_LINKED);
		size_t plain = output_tables(obj, MC_TABLE_SECTION);

		if (a != SIZE_MAX && b != SIZE_MAX)
			return read_linked_range(d, a, b, script_bounds);
		if (linked && plain)
			return mc_fail(obj, "two tables, %s and %s, and no "
				       "linker script's %s: the runtime "
				       "refuses them (objects recorded with "
				       "and without --per-section need a "
				       "script, lds/)", MC_TABLE_SECTION_LINKED,
				       MC_TABLE_SECTION, script_bounds[0]);
		if (linked > 1 || plain > 1)
			return mc_fail(obj, "%zu %s sections with entries and "
				       "no linker script's %s: the runtime "
				       "refuses a table in pieces",
				       linked > 1 ? linked : plain,
				       linked > 1 ? MC_TABLE_SECTION_LINKED
						  : MC_TABLE_SECTION,
				       script_bounds[0]);
	}
	return read_table_sections(d);
}

static int compare_place(size_t shndx, uint64_t offset,
			 const struct mc_hook_site *h)
{
	if (shndx != h->shndx)
		return shndx < h->shndx ? -1 : 1;
	return offset < h->offset ? -1 : offset > h->offset;
}

static bool hook_below(const void *entry, const void *key)
{
	const struct mc_hook_site *k = key;

	return compare_place(k->shndx, k->offset, entry) > 0;
}

/* The hook list is sorted by (section, offset): the first hook at or
 * after a place, by binary search. */
static size_t hook_lower_bound(const struct mc_survey *d, size_t shndx,
			       uint64_t offset)
{
	struct mc_hook_site key = { .shndx = shndx, .offset = offset };

	return mc_partition_point(d->hooks.v, d->hooks.n, sizeof(key), &key,
				  hook_below);
}

const struct mc_hook_site *mc_survey_hook_at(const struct mc_survey *d,
					     size_t shndx, uint64_t offset)
{
	size_t i = hook_lower_bound(d, shndx, offset);

	return i < d->hooks.n &&
	       compare_place(shndx, offset, &d->hooks.v[i]) == 0 ?
		&d->hooks.v[i] : NULL;
}

const struct mc_hook_site *mc_survey_hook_from(const struct mc_survey *d,
					       size_t shndx, uint64_t offset)
{
	size_t i = hook_lower_bound(d, shndx, offset);

	return i < d->hooks.n ? &d->hooks.v[i] : NULL;
}

/* Name a linked call's target: `site` is where the call is. */
static void name_target(struct mc_survey *d, struct mc_verdict *v,
			uint64_t site)
{
	const char *callee = NULL;
	const struct mc_bound_slot *b;
	const struct mc_symbol *s = v->indirect ? NULL :
		mc_symbol_at(d->obj, v->target_address);

	/* A PLT entry or stub is named for what its slot binds. */
	if (!v->indirect &&
	    mc_survey_plt_call(d, v->target_address, &callee) ==
	    MC_PLT_DECODED && callee) {
		v->symbol = callee;
		snprintf(v->target, sizeof(v->target), "%s@plt", callee);
		return;
	}
	/* A call whose target word the loader writes (mc_arch.call_word). */
	if (!v->indirect && d->arch->call_word &&
	    (b = bound_at(d, site)) != NULL) {
		v->symbol = b->name;
		snprintf(v->target, sizeof(v->target), "%s", b->name);
		return;
	}
	/* A call through a GOT slot (-fno-plt, sh's PIC): what it binds. */
	if (v->indirect && v->kind == MC_SITE_CALL_INDIRECT && d->linked &&
	    (b = bound_at(d, v->target_address)) != NULL) {
		v->symbol = b->name;
		snprintf(v->target, sizeof(v->target), "*%s@got", b->name);
		return;
	}
	v->symbol = s ? s->name : NULL;
	if (s)
		snprintf(v->target, sizeof(v->target), "%s", s->name);
	else
		snprintf(v->target, sizeof(v->target), "%s0x%" PRIx64,
			 v->indirect ? "*" : "", v->target_address);
}

/*
 * In an object, a call whose relocation names no hook: its decoded
 * target (0x8, say) is only the unrelocated field, so name the callee
 * from the relocation inside the call's bytes instead, and say what
 * was expected.  Relocations are scanned only for such entries, which
 * a correct table never has.
 */
static void name_not_a_hook(struct mc_survey *d, const struct mc_entry *e,
			    struct mc_verdict *v)
{
	struct mc_section *rs = mc_reloc_section_of(d->obj, e->shndx);
	const char *callee = NULL;
	struct mc_reloc r;

	for (size_t i = 0; rs && !callee && i < mc_reloc_count(rs); i++)
		if (mc_reloc_get(d->obj, rs, i, &r) && r.offset >= e->offset &&
		    r.offset < e->offset + v->len && r.sym < d->obj->n_symbols)
			callee = mc_symbol_name(d->obj, r.sym);
	if (callee && *callee)
		snprintf(v->target, sizeof(v->target), "call to %s, not a "
			 "hook; --symbol=%s if it is one", callee, callee);
	else
		snprintf(v->target, sizeof(v->target), "call, not to a hook");
}

/*
 * A -fpatchable-function-entry pad: the architecture's pad NOPs, perhaps
 * with an end-branch marker among them where the function starts.
 */
static void pad_verdict(const struct mc_survey *d, const uint8_t *p,
			size_t avail, struct mc_verdict *v)
{
	const struct mc_arch *a = d->arch;
	size_t at = 0, len;
	unsigned nops = 0;
	bool prefix = false;

	for (;;) {
		len = mc_match_insn(a->pad_nops, a->n_pad_nops, p + at,
				    avail - at);
		if (len) {
			nops++;
			at += len;
			continue;
		}
		if (prefix)
			break;
		len = mc_match_insn(a->entry_prefixes, a->n_entry_prefixes,
				    p + at, avail - at);
		if (!len)
			break;
		prefix = true;
		at += len;
	}
	if (nops == 0)
		return;
	v->state = "pad";
	v->len = at;
	v->nops = nops;
	snprintf(v->target, sizeof(v->target), "%u NOP%s", nops,
		 nops == 1 ? "" : "s");
}

/*
 * Linked 32-bit ARM code says its instruction set only through the
 * interworking bit of the function symbol around it.
 */
static uint64_t decode_address(struct mc_survey *d, const struct mc_entry *e)
{
	int64_t off;
	const struct mc_symbol *f;

	if (!d->linked)
		return e->offset;
	if (!d->arch->symbol_mode_bits)
		return e->address;
	f = mc_survey_function(d, e->shndx, e->address, &off);
	return e->address |
	       (f ? (f->sym.st_value & d->arch->symbol_mode_bits) : 0);
}

const struct mc_runtime_tramp mc_runtime_tramps[MC_RUNTIME_TRAMPS] = {
	{ "__fentry__", "mc_rt_tramp_fentry" },
	{ "mcount", "mc_rt_tramp_mcount" },
};

/*
 * A linked hook in its disabled live form (arch.h's decode_disabled):
 * the call it stands for, named, when `p` holds one.
 */
static bool disabled_verdict(struct mc_survey *d, const uint8_t *p,
			     size_t avail, uint64_t addr, struct mc_verdict *v)
{
	struct mc_site s;

	if (!d->linked || !d->arch->decode_disabled)
		return false;
	s = d->arch->decode_disabled(d->arch, p, avail, addr);
	if (s.kind != MC_SITE_CALL)
		return false;
	v->state = "disabled";
	v->len = s.len;
	v->kind = s.kind;
	v->target_address = s.target;
	v->has_target = true;
	name_target(d, v, addr);
	return true;
}

/* A linked image's bytes at an address, for the arch's mc_image. */
static const uint8_t *survey_bytes_at(void *ctx, uint64_t addr, size_t n)
{
	struct mc_survey *d = ctx;
	struct mc_section *sec = mc_section_at_address(d->obj, addr);
	size_t size;
	const uint8_t *p = sec ? mc_section_bytes(d->obj, sec, &size) : NULL;
	uint64_t off = sec ? addr - sec->shdr->sh_addr : 0;

	return p && off + n <= size ? p + off : NULL;
}

/*
 * A call through a register loaded from the GOT (mc_arch.got_call:
 * MIPS PIC), from the load at the entry or right after it, where the
 * architecture records that call's site there (judge_early_entry: the
 * load, or o32's `addiu sp,sp,-8` before it): a call through that slot.
 */
static bool got_call_verdict(struct mc_survey *d, const struct mc_entry *e,
			     struct mc_verdict *v)
{
	const struct mc_arch *a = d->arch;
	struct mc_image img = { survey_bytes_at, d };
	const struct mc_symbol *f;
	uint64_t slot, call, start;
	unsigned step;
	int64_t off;

	if (!d->linked || !a->got_call ||
	    !(f = mc_survey_function(d, e->shndx, e->address, &off)) ||
	    off < 0)
		return false;
	start = mc_code_address(a, f->sym.st_value);
	step = a->got_layout->insn_len;
	if ((a->got_call(a, &img, start, e->address, mc_survey_got(d)->gp,
			 &slot, &call) != MC_GOT_SLOT &&
	     a->got_call(a, &img, start, e->address + step,
			 mc_survey_got(d)->gp, &slot, &call) != MC_GOT_SLOT) ||
	    (a->judge_early_entry &&
	     a->judge_early_entry(a, &img, e->address, call) !=
	     MC_EARLY_SITE))
		return false;
	v->state = "call";
	v->kind = MC_SITE_CALL_INDIRECT;
	v->indirect = true;
	v->has_target = true;
	v->target_address = slot;
	v->len = call + step - e->address;
	name_target(d, v, e->address);
	return true;
}

struct mc_verdict mc_survey_judge(struct mc_survey *d, const struct mc_entry *e)
{
	struct mc_verdict v = { .state = "unknown", .len = 0 };
	struct mc_section *sec = mc_entry_section(d, e);
	size_t size;
	const uint8_t *code = sec ? mc_section_bytes(d->obj, sec, &size) : NULL;

	if (!code || e->offset >= size)
		return v;
	const struct mc_hook_site *h = d->linked ? NULL :
		mc_survey_hook_at(d, e->shndx, e->offset);
	/* A NOP --find-nops found has no relocation: judged by its bytes. */
	if (h && h->rel_shndx) {
		struct mc_reloc r;
		mc_reloc_get(d->obj, d->obj->sections[h->rel_shndx],
			     h->reloc_index, &r);
		v.state = "call";
		v.len = h->form->len;
		v.symbol = d->obj->symbols[r.sym].name;
		snprintf(v.target, sizeof(v.target), "%s", v.symbol);
		return v;
	}
	struct mc_site s = mc_decode_site(d->arch, code + e->offset,
					  size - e->offset,
					  decode_address(d, e));
	/* Bytes that decode as nothing: show 8, as the runtime does. */
	v.len = s.len ? s.len : (size - e->offset < 8 ? size - e->offset : 8);
	v.kind = s.kind;
	v.target_address = s.target;
	switch (s.kind) {
	case MC_SITE_NOP:
		v.state = "nop";
		break;
	case MC_SITE_CALL:
	case MC_SITE_CALL_INDIRECT:
		/*
		 * x86's `nop; call` is a call ld relaxed; in an object it is
		 * a one-NOP pad before a function that starts with a call.
		 */
		if (!d->linked) {
			pad_verdict(d, code + e->offset, size - e->offset, &v);
			if (strcmp(v.state, "pad") == 0) {
				v.kind = MC_SITE_UNKNOWN;
				break;
			}
		}
		/* In an object, a call with no hook relocation is not ours. */
		v.state = d->linked ? "call" : "unexpected";
		v.has_target = true;
		v.indirect = s.kind == MC_SITE_CALL_INDIRECT;
		if (d->linked)
			name_target(d, &v, e->address);
		else
			name_not_a_hook(d, e, &v);
		break;
	default:
		if (disabled_verdict(d, code + e->offset, size - e->offset,
				     decode_address(d, e), &v) ||
		    got_call_verdict(d, e, &v))
			break;
		v.state = "unexpected";
		pad_verdict(d, code + e->offset, size - e->offset, &v);
	}
	return v;
}

void mc_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

const struct mc_symbol *mc_survey_function(struct mc_survey *d, size_t shndx,
					   uint64_t value, int64_t *off)
{
	const struct mc_arch *a = d->arch;
	const struct mc_symbol *f = mc_function_at(d->obj, shndx, value,
						   a->symbol_mode_bits);

	for (uint64_t ahead = 1; !f && ahead <= MC_MAX_SITE_LEN; ahead++)
		if ((f = mc_function_at(d->obj, shndx, value + ahead,
					a->symbol_mode_bits)) &&
		    mc_code_address(a, f->sym.st_value) != value + ahead)
			f = NULL;
	*off = f ? (int64_t)(value - mc_code_address(a, f->sym.st_value)) : 0;
	return f;
}

/*
 * True if NOPs alone fill the n bytes from e's site: the site can be a
 * pad before the entry of the function that starts there.  The last
 * NOP the decoder reads may run on past the entry (riscv64 decodes
 * `nop; nop` as one 8-byte neutral site, which covers a one-NOP M and
 * the pad's first NOP after the entry).  An overridden __weak body is
 * not: its hook's NOP (s390's brcl 0,0 after --nop) is followed by the
 * body's own code (a return) before the next function.
 */
static bool nops_fill(struct mc_survey *d, const struct mc_entry *e,
		      uint64_t n)
{
	struct mc_section *sec = mc_entry_section(d, e);
	size_t size = 0;
	const uint8_t *code = sec ? mc_section_bytes(d->obj, sec, &size) : NULL;
	uint64_t at = 0;

	while (code && at < n && e->offset + at < size) {
		struct mc_site s = mc_decode_site(d->arch,
			code + e->offset + at, size - e->offset - at,
			decode_address(d, e) + at);

		if (s.kind != MC_SITE_NOP || s.len == 0)
			return false;
		at += s.len;
	}
	return at >= n;
}

const struct mc_symbol *mc_survey_entry_function(struct mc_survey *d,
						 const struct mc_entry *e,
						 const struct mc_verdict *v,
						 int64_t *off)
{
	const struct mc_symbol *f = mc_survey_function(d, e->shndx,
						       mc_entry_value(d, e),
						       off);

	if (f && *off < 0 && strcmp(v->state, "pad") != 0 &&
	    (strcmp(v->state, "nop") != 0 ||
	     !nops_fill(d, e, (uint64_t)-*off)))
		return NULL;
	return f;
}

char *mc_vformat(const char *fmt, va_list ap)
{
	va_list again;
	int n;
	char *out;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0 || !(out = malloc((size_t)n + 1)))
		out = NULL;
	else
		vsnprintf(out, (size_t)n + 1, fmt, again);
	va_end(again);
	return out;
}

char *mc_format(const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = mc_vformat(fmt, ap);
	va_end(ap);
	return out;
}

void mc_survey_place(struct mc_survey *d, size_t shndx, uint64_t offset,
		     uint64_t address, struct mc_place *p)
{
	const struct mc_symbol *f;
	int64_t fo;

	if (d->linked)
		p->site = mc_format("0x%" PRIx64, address);
	else
		p->site = mc_format("%s+0x%" PRIx64,
				    d->obj->sections[shndx]->name, offset);
	f = shndx ? mc_survey_function(d, shndx, d->linked ? address : offset,
				       &fo) : NULL;
	p->func = f ? mc_format("%s%s0x%" PRIx64, f->name, fo < 0 ? "-" : "+",
				(uint64_t)(fo < 0 ? -fo : fo)) : NULL;
}

const char *mc_place_site(const struct mc_place *p)
{
	return p->site ? p->site : "?";
}

const char *mc_place_func(const struct mc_place *p)
{
	return p->func ? p->func : "?";
}

void mc_place_free(struct mc_place *p)
{
	free(p->site);
	free(p->func);
	p->site = p->func = NULL;
}

bool mc_survey_has_descriptors(const struct mc_survey *d)
{
	const struct mc_arch *a = d->arch;

	return a->descriptor_section &&
	       a->uses_descriptors(a, (uint32_t)d->obj->ehdr.e_flags) &&
	       mc_section_by_name(d->obj, a->descriptor_section) != NULL;
}

const char *mc_survey_kind(const struct mc_survey *d)
{
	switch (d->obj->ehdr.e_type) {
	case ET_REL: return "relocatable";
	case ET_EXEC: return "executable";
	}
	/* A PIE is ET_DYN too; only an executable asks for an interpreter. */
	return mc_section_by_name(d->obj, ".interp") ? "pie executable"
						     : "shared object";
}

bool mc_survey_open(struct mc_survey *s, struct mc_object *obj,
		    const char *path, const struct mc_options *opt,
		    mc_warn_fn warn)
{
	*s = (struct mc_survey){ .obj = obj, .opt = opt };
	/* Held: the survey and its readers index obj->symbols. */
	if (!mc_open_with_arch(obj, path, true, &s->arch) ||
	    !mc_object_hold_symbols(obj))
		return false;
	s->linked = obj->ehdr.e_type != ET_REL;
	return read_entries(s) &&
	       (s->linked || !obj->symtab ||
		mc_find_sites(obj, s->arch, opt, &s->hooks, warn));
}

void mc_survey_free(struct mc_survey *s)
{
	free(s->entries);
	free(s->relative);
	free(s->bound);
	mc_site_list_free(&s->hooks);
}
