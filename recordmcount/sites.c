/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sites.c - from relocations to hook call sites.
 *
 * A hook is a relocation against a hook symbol, inside an executable
 * section, at a place where the architecture's call instruction sits.
 * The relocation says where the call's operand is; the architecture's
 * form says how far before it the instruction starts.
 */
#define _GNU_SOURCE
#include "sites.h"
#include "../elf/reloc.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * Sections the kernel's ftrace traces: every .text* section plus the
 * special-purpose ones its linker script keeps apart.  Literal names
 * after the prefix: compared, not matched with fnmatch, which an object
 * of a million sections would call for each.
 */
static const char traced_prefix[] = ".text";
static const char *const traced_by_default[] = {
	".init.text",
	".ref.text",
	".sched.text",
	".spinlock.text",
	".irqentry.text",
	".softirqentry.text",
	".kprobes.text",
	".cpuidle.text",
	NULL,
};

static bool matches_any(const char *name, const char *const *globs,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

static bool traced_by_name(const char *name)
{
	if (strncmp(name, traced_prefix, sizeof(traced_prefix) - 1) == 0)
		return true;
	for (const char *const *t = traced_by_default; *t; t++)
		if (strcmp(*t, name) == 0)
			return true;
	return false;
}

bool mc_section_is_traced(const char *name, const struct mc_options *opt)
{
	if (matches_any(name, opt->no_sections, opt->n_no_sections))
		return false;
	return traced_by_name(name) ||
	       matches_any(name, opt->sections, opt->n_sections);
}

bool mc_is_hook_name(const struct mc_arch *arch,
		     const struct mc_options *opt, const char *name)
{
	if (!*name)
		return false;
	if (mc_is_hook_symbol(arch, name))
		return true;
	for (size_t i = 0; i < opt->n_symbols; i++)
		if (strcmp(opt->symbols[i], name) == 0)
			return true;
	return false;
}

static bool is_unsupported_hook(const struct mc_arch *arch, const char *name)
{
	for (const char *const *h = arch->unsupported_hooks; h && *h; h++)
		if (strcmp(*h, name) == 0)
			return true;
	return false;
}

/*
 * What calls to a symbol are, decided the first time a relocation in
 * code names it (ROLE_UNKNOWN until then): most symbols of an object
 * are never looked at.
 */
enum symbol_role { ROLE_UNKNOWN, ROLE_OTHER, ROLE_HOOK, ROLE_UNSUPPORTED };

/*
 * A name's first two bytes, mixed with its third (fewer for a shorter
 * name; 0 for the empty name), so that a symbol whose name cannot be
 * any hook's is told apart without a string comparison: equal names
 * have equal keys.  The third byte because a kernel object's names
 * mostly start with "__", as __fentry__ does.
 */
static unsigned name_key(const char *name)
{
	const unsigned char *u = (const unsigned char *)name;

	if (!u[0])
		return 0;
	return ((unsigned)u[0] << 8 | u[1]) ^ (u[1] ? (unsigned)u[2] << 4 : 0);
}

/*
 * The last hook relocation type met and what it marks (struct scan's
 * fields of the same names), kept from one section's scan to the next:
 * an object of a section per function has a million, all of one type.
 */
struct type_memo {
	bool have;
	uint32_t type;
	bool companion;
	uint64_t forms;
	const struct mc_object_form *only;
};

/* The symbols a scan asks about, and what it knows of them. */
struct roles {
	uint8_t *of;		/* one per symbol */
	uint8_t keys[65536 / 8];	/* name_key of every hook name */
	struct type_memo last;
	size_t hook_sym;	/* the symbol of the last site found */
};

static void key_add(struct roles *r, const char *name)
{
	unsigned k = name_key(name);

	r->keys[k / 8] |= (uint8_t)(1u << (k % 8));
}

static bool roles_open(struct mc_object *obj, const struct mc_arch *arch,
		       const struct mc_options *opt, struct roles *r)
{
	/* calloc: fresh pages of zeros, ROLE_UNKNOWN, touched when asked */
	r->of = calloc(obj->n_symbols ? obj->n_symbols : 1, 1);
	if (!r->of)
		return mc_fail(obj, "out of memory");
	memset(r->keys, 0, sizeof(r->keys));
	r->last = (struct type_memo){ .have = false };
	r->hook_sym = 0;	/* none yet: symbol 0 is no hook */
	for (const char *const *h = arch->hook_symbols; *h; h++)
		key_add(r, *h);
	for (const char *const *h = arch->unsupported_hooks; h && *h; h++)
		key_add(r, *h);
	for (size_t i = 0; i < opt->n_symbols; i++)
		key_add(r, opt->symbols[i]);
	return true;
}

/* Symbol k's role, by name, decided once. */
static inline unsigned symbol_role(const struct mc_object *obj,
				   const struct mc_arch *arch,
				   const struct mc_options *opt,
				   struct roles *r, size_t k)
{
	if (r->of[k] != ROLE_UNKNOWN)
		return r->of[k];

	const char *name = mc_symbol_name(obj, k);
	unsigned key = name_key(name);
	unsigned role = ROLE_OTHER;

	if (!(r->keys[key / 8] & (1u << (key % 8))))
		role = ROLE_OTHER;	/* no hook's name */
	else if (is_unsupported_hook(arch, name))
		role = ROLE_UNSUPPORTED;
	else if (mc_is_hook_name(arch, opt, name))
		role = ROLE_HOOK;
	r->of[k] = (uint8_t)role;
	return role;
}

/*
 * True if `v` survives a trip through 32 bits (a site's section and
 * relocation indexes).  A round trip, not a comparison with UINT32_MAX,
 * which a 32-bit host's compiler flags as always false.
 */
static bool fits_32_bits(size_t v)
{
	return (size_t)(uint32_t)v == v;
}

static bool grow_sites(struct mc_object *obj, struct mc_site_list *l)
{
	size_t cap = l->cap ? 2 * l->cap : 64;
	struct mc_hook_site *v = realloc(l->v, cap * sizeof(*v));

	if (!v) {
		snprintf(obj->error, sizeof(obj->error), "out of memory");
		return false;
	}
	l->v = v;
	l->cap = cap;
	return true;
}

/* One site more: inline, as it runs once per hook. */
static inline bool push_site(struct mc_object *obj, struct mc_site_list *l,
			     const struct mc_hook_site *s)
{
	if (l->n == l->cap && !grow_sites(obj, l))
		return false;
	if (l->n && !l->unordered) {
		const struct mc_hook_site *p = &l->v[l->n - 1];

		l->unordered = p->shndx > s->shndx ||
			       (p->shndx == s->shndx && p->offset > s->offset);
		l->repeated |= p->shndx == s->shndx && p->offset == s->offset;
	}
	l->n_traced += s->traced;
	l->v[l->n++] = *s;
	return true;
}

bool mc_open_with_arch(struct mc_object *obj, const char *path,
		       bool linked_too, const struct mc_arch **arch)
{
	const unsigned char *id = obj->ehdr.e_ident;

	if (!mc_object_open(obj, path))
		return false;
	unsigned t = obj->ehdr.e_type;
	if (!linked_too && t != ET_REL)
		return mc_fail(obj, "not a relocatable object (ELF type %u)", t);
	if (t != ET_REL && t != ET_EXEC && t != ET_DYN)
		return mc_fail(obj, "not an object, executable or shared "
			       "object (ELF type %u)", t);
	*arch = mc_arch_find(obj->ehdr.e_machine,
			     id[EI_CLASS] == ELFCLASS64 ? 64 : 32,
			     id[EI_DATA] == ELFDATA2MSB ? MC_BIG_ENDIAN
							: MC_LITTLE_ENDIAN,
			     (uint32_t)obj->ehdr.e_flags);
	if (!*arch)
		return mc_fail(obj, "unsupported machine %u (ELF class %u, "
			       "flags 0x%x)", (unsigned)obj->ehdr.e_machine,
			       (unsigned)id[EI_CLASS],
			       (unsigned)obj->ehdr.e_flags);
	return true;
}

void mc_site_list_free(struct mc_site_list *l)
{
	free(l->v);
	*l = (struct mc_site_list){ 0 };
}

static int compare_sites(const void *a, const void *b)
{
	const struct mc_hook_site *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

static void sort_unique(struct mc_site_list *l)
{
	size_t w = 0;

	/*
	 * Relocations usually come in offset order, one per site: then the
	 * list is what the (stable) sort and the de-duplication would
	 * return unchanged, which push_site saw as it went.
	 */
	if (l->n == 0 || (!l->unordered && !l->repeated))
		return;		/* l->v is NULL: not for qsort */
	if (l->unordered)
		qsort(l->v, l->n, sizeof(*l->v), compare_sites);
	l->n_traced = 0;
	for (size_t r = 0; r < l->n; r++)
		if (w == 0 || compare_sites(&l->v[w - 1], &l->v[r]) != 0) {
			l->n_traced += l->v[r].traced;
			l->v[w++] = l->v[r];
		}
	l->n = w;
	l->unordered = l->repeated = false;
}
/* Relocation sections that apply to code, through the main symtab. */
static struct mc_section *code_target(struct mc_object *obj,
				      struct mc_section *rel)
{
	struct mc_section *t = mc_section_target(obj, rel);

	if (!t || !obj->symtab || rel->shdr->sh_link != obj->symtab->index ||
	    !(t->shdr->sh_flags & SHF_EXECINSTR) ||
	    t->shdr->sh_type != SHT_PROGBITS)
		return NULL;
	return t;
}

static bool check_reloc_table(struct mc_object *obj, struct mc_section *rel)
{
	size_t want = mc_reloc_entry_size(obj, rel->shdr->sh_type);

	if (rel->shdr->sh_entsize != want)
		return mc_fail(obj, "%s: relocation entry size %llu, "
			       "expected %zu", rel->name,
			       (unsigned long long)rel->shdr->sh_entsize, want);
	return true;
}

/* What scanning one relocation section needs, and what it found last. */
struct scan {
	struct mc_object *obj;
	const struct mc_arch *arch;
	const struct mc_options *opt;
	struct mc_section *rel, *text;
	const uint8_t *code;
	size_t text_size;
	bool traced;
	struct roles *role;
	struct mc_site_list *out;
	mc_warn_fn warn;
	/* the last hook relocation's type: most are of one type */
	uint32_t last_type;
	bool have_type, companion;
	uint64_t forms;
	/*
	 * When that type marks one form only (x86's call): the form, and
	 * the r_offsets in this section at which its bytes fit (lo > hi:
	 * none), so that a hook costs one range test and its opcode.
	 */
	const struct mc_object_form *only;
	uint64_t lo, hi;
	/* the last site's offset, when it is in this section */
	uint64_t prev;
	bool have_prev;
	/*
	 * With a sink (mc_scan_into_table): the entries go there, with
	 * this section's r_info and anchor value once `anchored`, told to
	 * the sink as used with the section's first entry; and
	 * `declined` when the object is not for it (scan_one false).
	 */
	struct mc_table_sink *sink;
	bool anchored, used, declined;
	uint64_t info, base;
	bool stale;		/* any of the above changed since
				   scan_rela64_table last read them */
};

/*
 * The r_offsets at which form f's bytes lie inside a section of `size`
 * bytes, as [*lo, *hi] (empty: *lo > *hi): the bounds
 * mc_match_form_among tests one by one, for a relocation inside the
 * section.
 */
static void form_window(const struct mc_object_form *f, uint64_t size,
			uint64_t *lo, uint64_t *hi)
{
	int64_t s = (int64_t)size;
	/* the site: its opcode and its `len` bytes inside the section */
	int64_t site_lo = f->opcode_offset < 0 ? -f->opcode_offset : 0;
	int64_t site_hi = s - f->len;

	if (s - f->opcode_len - f->opcode_offset < site_hi)
		site_hi = s - f->opcode_len - f->opcode_offset;
	int64_t r_lo = site_lo + f->field_offset;
	int64_t r_hi = site_hi + f->field_offset;

	if (r_lo < 0)
		r_lo = 0;
	/* and the relocation itself inside (scan_one's test first) */
	if (r_hi > s - 1)
		r_hi = s - 1;
	if (r_hi < r_lo) {
		*lo = 1;
		*hi = 0;
		return;
	}
	*lo = (uint64_t)r_lo;
	*hi = (uint64_t)r_hi;
}

/* The form for a hook relocation at r_offset, or NULL: not a call. */
static inline const struct mc_object_form *
scan_form(const struct scan *c, uint64_t r_offset)
{
	const struct mc_object_form *f = c->only;

	if (!f)
		return mc_match_form_among(c->arch, c->forms, c->code,
					   c->text_size, r_offset);
	if (r_offset < c->lo || r_offset > c->hi)
		return NULL;
	/* one index, then one pointer step: an opcode before the site
	 * (opcode_offset < 0) must not step the pointer backwards through
	 * a wrapped unsigned offset, which C leaves undefined */
	uint64_t at = r_offset - (uint64_t)(int64_t)f->field_offset +
		      (uint64_t)(int64_t)f->opcode_offset;
	const uint8_t *p = c->code + at;
	for (unsigned k = 0; k < f->opcode_len; k++)
		if ((p[k] & f->mask[k]) != f->opcode[k])
			return NULL;
	return f;
}

/* A new hook relocation type: what it marks, kept for later scans. */
static void scan_type(struct scan *c, uint32_t type)
{
	c->stale = true;
	c->last_type = type;
	c->have_type = true;
	c->companion = mc_is_companion_reloc(c->arch, type);
	c->forms = mc_forms_of_type(c->arch, type);
	c->only = NULL;
	if (c->forms && !(c->forms & (c->forms - 1))) {
		c->only = &c->arch->forms[__builtin_ctzll(c->forms)];
		form_window(c->only, c->text_size, &c->lo, &c->hi);
	}
	c->role->last = (struct type_memo){
		.have = true, .type = type, .companion = c->companion,
		.forms = c->forms, .only = c->only,
	};
}

/* The type the scans before this one met last, placed in this section. */
static void scan_recall(struct scan *c)
{
	const struct type_memo *m = &c->role->last;

	c->have_type = m->have;
	c->last_type = m->type;
	c->companion = m->companion;
	c->forms = m->forms;
	c->only = m->only;
	if (c->only)
		form_window(c->only, c->text_size, &c->lo, &c->hi);
}

/* A sink's scan gives up: false, with no error, for mc_find_sites. */
static bool decline(struct scan *c)
{
	c->declined = true;
	return false;
}

/*
 * A table of many MB in 2 MiB pages where the kernel offers them: a
 * fault and a page-table entry per 2 MiB, not per 4 KiB.  Pages are
 * still taken only where the scan writes (a section's relocations
 * reserve more entries than its hooks fill).  Only a hint.
 */
static void huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + size) & ~(huge - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)size;
#endif
}

/* Room for `more` entries past the sink's end (reserve_sites' growth). */
static bool reserve_entries(struct mc_object *obj, struct mc_table_sink *s,
			    size_t more)
{
	if (s->cap - s->n >= more)
		return true;
	size_t cap = s->n + more < 2 * s->cap ? 2 * s->cap : s->n + more;
	Elf64_Rela *v = realloc(s->v, cap * sizeof(*v));

	if (!v)
		return mc_fail(obj, "out of memory");
	s->v = v;
	s->cap = cap;
	huge_pages(v, cap * sizeof(*v));
	return true;
}

/*
 * A site at `offset` as the sink's next entry: only in a traced
 * section, and after the entry before it in table order, else the scan
 * is declined (the list would need sorting, or NOPs).
 */
static bool push_entry(struct scan *c, uint64_t offset)
{
	struct mc_table_sink *s = c->sink;
	size_t shndx = c->text->index;

	if (!c->traced || shndx < s->last_shndx ||
	    (shndx == s->last_shndx && offset < s->next))
		return decline(c);
	if (!c->anchored &&
	    !(c->anchored = s->anchor(s->ctx, shndx, &c->info, &c->base)))
		return false;
	if (!c->used) {
		s->anchor_used(s->ctx, shndx);
		c->used = true;
	}
	if (!reserve_entries(c->obj, s, 1))
		return false;
	s->v[s->n] = (Elf64_Rela){
		.r_offset = s->n * sizeof(uint64_t),
		.r_info = c->info,
		.r_addend = (int64_t)(offset - c->base),
	};
	s->n++;
	s->last_shndx = shndx;
	s->next = offset + 1;
	c->stale = true;
	c->out->n++;
	c->out->n_traced++;
	return true;
}

/*
 * push_site for a scan, whose sites are all in one section: the order
 * is a matter of offsets, against the last site pushed.
 */
static inline bool push_scanned(struct scan *c, uint64_t offset,
				const struct mc_object_form *f, size_t i)
{
	struct mc_site_list *l = c->out;

	if (c->sink)
		return push_entry(c, offset);
	if (l->n == l->cap && !grow_sites(c->obj, l))
		return false;
	if (c->have_prev && offset <= c->prev) {
		l->unordered |= offset < c->prev;
		l->repeated |= offset == c->prev;
	}
	c->prev = offset;
	c->have_prev = true;
	l->n_traced += c->traced;
	l->v[l->n++] = (struct mc_hook_site){
		.shndx = c->text->index,
		.offset = offset,
		.form = f,
		.rel_shndx = c->rel->index,
		.reloc_index = (uint32_t)i,
		.traced = c->traced,
	};
	return true;
}

/*
 * Before a scan: how its first site stands against the sites found
 * before it (push_site's test, once).
 */
static void scan_start(struct scan *c)
{
	const struct mc_site_list *l = c->out;
	const struct mc_hook_site *p = l->n ? &l->v[l->n - 1] : NULL;

	c->have_prev = p && p->shndx == c->text->index;
	c->prev = c->have_prev ? p->offset : 0;
	if (p && p->shndx > c->text->index)
		c->out->unordered = true;
}

/* Relocation i, read as r: a site, a report, or nothing; false on error. */
static inline __attribute__((always_inline)) bool
scan_one(struct scan *c, size_t i, const struct mc_reloc *r)
{
	struct mc_object *obj = c->obj;
	const struct mc_arch *arch = c->arch;
	char msg[256];

	if (r->sym >= obj->n_symbols)
		return mc_fail(obj, "%s: relocation %zu: symbol index "
			       "%zu out of range", c->rel->name, i, r->sym);
	if (r->offset >= c->text_size)
		return mc_fail(obj, "%s: relocation %zu: offset 0x%llx "
			       "outside %s", c->rel->name, i,
			       (unsigned long long)r->offset, c->text->name);
	unsigned ro = symbol_role(obj, arch, c->opt, c->role, r->sym);
	if (ro == ROLE_OTHER)
		return true;
	if (!c->have_type || r->type != c->last_type)
		scan_type(c, r->type);
	if (ro == ROLE_UNSUPPORTED && !c->companion) {
		if (c->sink)
			return decline(c);	/* before it is reported */
		const char *name = mc_symbol_name(obj, r->sym);

		snprintf(msg, sizeof(msg), "%s+0x%llx: call to %s: %s; "
			 "not recorded", c->text->name,
			 (unsigned long long)r->offset, name,
			 arch->unsupported_why);
		c->warn(obj, c->opt, msg);
		c->out->n_reported++;
		return true;
	}
	if (ro != ROLE_HOOK || c->companion)
		return true;
	c->role->hook_sym = r->sym;
	const struct mc_object_form *f = scan_form(c, r->offset);
	if (!f) {
		if (c->sink)
			return decline(c);
		const char *rn = mc_reloc_name(arch, r->type);
		char num[32];

		snprintf(num, sizeof(num), "relocation type %u", r->type);
		snprintf(msg, sizeof(msg), "%s+0x%llx: reference to %s "
			 "(%s) is not a call; not recorded", c->text->name,
			 (unsigned long long)r->offset,
			 mc_symbol_name(obj, r->sym), rn ? rn : num);
		c->warn(obj, c->opt, msg);
		c->out->n_reported++;
		return true;
	}
	return push_scanned(c, r->offset - (uint64_t)(int64_t)f->field_offset,
			    f, i);
}

/*
 * What scan_rela64 takes a hook relocation for without scan_one: the
 * last hook type seen, when it marks one form and is no companion
 * (type: r_info's low word, or UINT64_MAX, which no word is), and
 * where that form fits (scan_type's window).
 */
struct fast_hook {
	uint64_t type;
	const struct mc_object_form *f;
	uint64_t lo, span;	/* r_offset - lo <= span: the form fits */
	uint64_t back;		/* r_offset - back: the form's opcode */
	uint64_t field;		/* r_offset - field: the site */
	uint8_t op0, mask0;	/* its first byte, tested inline */
};

static struct fast_hook fast_hook_of(const struct scan *c)
{
	const struct mc_object_form *f = c->only;
	struct fast_hook h = { .type = UINT64_MAX };

	if (c->have_type && !c->companion && f && c->lo <= c->hi) {
		h.type = c->last_type;
		h.f = f;
		h.lo = c->lo;
		h.span = c->hi - c->lo;
		h.back = (uint64_t)((int64_t)f->field_offset -
				    (int64_t)f->opcode_offset);
		h.field = (uint64_t)(int64_t)f->field_offset;
		h.op0 = f->opcode_len ? f->opcode[0] : 0;
		h.mask0 = f->opcode_len ? f->mask[0] : 0;
	}
	return h;
}

/* The form's opcode at p: its first byte, then the rest (x86: none). */
static inline bool opcode_at(const struct fast_hook *h, const uint8_t *p)
{
	if ((p[0] & h->mask0) != h->op0)
		return false;
	for (unsigned k = 1; k < h->f->opcode_len; k++)
		if ((p[k] & h->f->mask[k]) != h->f->opcode[k])
			return false;
	return true;
}

/*
 * Room for `more` sites past the list's end: at least twice what it
 * had, as an object of a section per function asks a million times.
 */
static bool reserve_sites(struct mc_object *obj, struct mc_site_list *l,
			  size_t more)
{
	if (l->cap - l->n >= more)
		return true;
	size_t cap = l->n + more < 2 * l->cap ? 2 * l->cap : l->n + more;
	struct mc_hook_site *v = realloc(l->v, cap * sizeof(*v));

	if (!v)
		return mc_fail(obj, "out of memory");
	l->v = v;
	l->cap = cap;
	return true;
}

/* A site at `at` after one at `prev` or later: the list is not sorted. */
static __attribute__((noinline)) void note_disorder(struct mc_site_list *l,
						   uint64_t at, uint64_t prev)
{
	l->unordered |= at < prev;
	l->repeated |= at == prev;
}

/*
 * The scan's sites from l->n on are counted, and its last offset kept,
 * from scan_rela64's locals: `from` is where they started, `next` the
 * offset after the last site's (0: none yet).
 */
static void scan_sync(struct scan *c, size_t n, size_t from, uint64_t next)
{
	struct mc_site_list *l = c->out;

	l->n = n;
	l->n_traced += c->traced ? n - from : 0;
	c->have_prev = next != 0;
	c->prev = next - 1;
}

/*
 * x86_64 and most 64-bit objects: relocations decoded inline.  One
 * that names no hook costs a look-up of its symbol's role; a hook of
 * the type before it, a range test and its opcode, and it is added
 * here (room for a site per relocation was made first: pages of it
 * never written are never touched); the rest (errors, reports, a new
 * type, a symbol asked about for the first time) goes through
 * scan_one.  As few values as can be live in the loop: the site is a
 * copy of a template, and its order is one comparison with the
 * offset after the last one.
 */
static bool scan_rela64(struct scan *c, const Elf64_Rela *e, size_t count)
{
	const size_t n_symbols = c->obj->n_symbols;
	const uint64_t size = c->text_size;
	const uint8_t *role = c->role->of, *code = c->code;
	struct mc_site_list *l = c->out;
	struct fast_hook h = fast_hook_of(c);
	struct mc_hook_site site = {
		.form = h.f,
		.shndx = (uint32_t)c->text->index,
		.rel_shndx = (uint32_t)c->rel->index,
		.traced = c->traced,
	};

	if (!reserve_sites(c->obj, l, count))
		return false;
	struct mc_hook_site *v = l->v;
	size_t n = l->n, from = n;
	uint64_t next = c->have_prev ? c->prev + 1 : 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t off = e[i].r_offset, info = e[i].r_info;
		size_t sym = ELF64_R_SYM(info);

		if (sym < n_symbols) {
			unsigned ro = role[sym];

			if (ro == ROLE_OTHER && off < size)
				continue;
			if (ro == ROLE_HOOK && (info & 0xffffffffu) == h.type &&
			    off - h.lo <= h.span &&
			    opcode_at(&h, code + (off - h.back))) {
				uint64_t at = off - h.field;

				if (at < next)
					note_disorder(l, at, next - 1);
				next = at + 1;
				v[n] = site;
				v[n].offset = at;
				v[n].reloc_index = (uint32_t)i;
				n++;
				continue;
			}
		}
		struct mc_reloc r = {
			.offset = off,
			.sym = sym,
			.type = (uint32_t)ELF64_R_TYPE(info),
			.addend = e[i].r_addend,
		};
		scan_sync(c, n, from, next);
		if (!scan_one(c, i, &r))
			return false;
		h = fast_hook_of(c);
		site.form = h.f;
		v = l->v;
		n = from = l->n;
		next = c->have_prev ? c->prev + 1 : 0;
	}
	scan_sync(c, n, from, next);
	return true;
}

/*
 * scan_rela64_table's test of a hook, in locals: its r_info (`key`),
 * that of the last site's symbol and type, which marks the form whose
 * window is r_offset - lo <= span; `after`, the r_offset past the last
 * entry's site (0: none in this section), which a site in order is at
 * or after (one before goes through scan_one, which declines); the
 * opcode's first byte at r_offset - back, and whether more bytes follow
 * (x86: none); the site at r_offset - field, the entry's addend
 * r_offset - sub.  No relocation passes the test when the scan is not
 * ready for it: `after` past every r_offset in the window.
 */
struct fast_entry {
	uint64_t key;
	uint64_t lo, span, after;
	uint64_t back, field, sub;
	uint8_t op0, mask0;
	bool more;
};

static struct fast_entry fast_entry_of(const struct scan *c)
{
	const struct mc_table_sink *s = c->sink;
	struct fast_entry x = {
		.key = UINT64_MAX, .lo = 0, .span = 0, .after = UINT64_MAX,
	};

	/* with no anchor, or no site found yet, the first goes slowly */
	if (!c->anchored || !c->traced || !c->role->hook_sym)
		return x;
	struct fast_hook h = fast_hook_of(c);

	if (h.type == UINT64_MAX)
		return x;
	x.key = ELF64_R_INFO((uint64_t)c->role->hook_sym, h.type);
	x.lo = h.lo;
	x.span = h.span;
	/* s->next: the offset after the last entry's site */
	x.after = s->last_shndx == c->text->index ? s->next + h.field : 0;
	x.back = h.back;
	x.field = h.field;
	x.sub = h.field + c->base;
	x.op0 = h.op0;
	x.mask0 = h.mask0;
	x.more = h.f->opcode_len > 1;
	return x;
}

/*
 * The rest of a hook's opcode at `at`, past its first byte
 * (fast_entry.more): out of the loop, which has few registers to spare.
 */
static __attribute__((noinline)) bool opcode_rest_at(const struct scan *c,
						     uint64_t at)
{
	const struct mc_object_form *f = c->only;
	const uint8_t *p = c->code + at;

	for (unsigned k = 1; k < f->opcode_len; k++)
		if ((p[k] & f->mask[k]) != f->opcode[k])
			return false;
	return true;
}

/*
 * The sink after scan_rela64_table's entries [from, w) of this
 * section, made with x.
 */
static void sink_sync(struct scan *c, const Elf64_Rela *w,
		      const Elf64_Rela *from, struct fast_entry x)
{
	struct mc_table_sink *s = c->sink;
	size_t k = (size_t)(w - from);

	if (k) {
		s->last_shndx = c->text->index;
		s->next = x.after - x.field;
		if (!c->used) {
			s->anchor_used(s->ctx, s->last_shndx);
			c->used = true;
		}
	}
	s->n += k;
	c->out->n += k;
	c->out->n_traced += k;
}

/*
 * Where scan_rela64_table is: the next relocation, the next entry and
 * its r_offset, the entry's r_info, and the fast test's facts.
 */
struct table_cursor {
	const Elf64_Rela *r, *end;
	Elf64_Rela *w;
	uint64_t roff, info;
	struct fast_entry x;
	uintptr_t opcode;	/* the opcode of the site at r_offset: here */
};

/*
 * The relocations from k->r on that need no scan_one: a hook that
 * passes the fast test becomes its entry, one that names a symbol of
 * no role (ROLE_OTHER) inside the section is passed over.  Stops at
 * the first other one, or the end.  Out of line and with no call in
 * its loop (the rest of an opcode aside), so that the loop has the
 * registers to itself.
 */
static __attribute__((noinline)) void
table_run(const struct scan *c, struct table_cursor *k)
{
	const size_t n_symbols = c->obj->n_symbols;
	const uint64_t size = c->text_size;
	const uint8_t *role = c->role->of;
	const struct fast_entry x = k->x;
	const uintptr_t opcode = k->opcode;
	const uint64_t info = k->info;
	const Elf64_Rela *r = k->r, *end = k->end;
	Elf64_Rela *w = k->w;
	uint64_t roff = k->roff, after = x.after;

	for (; r < end; r++) {
		uint64_t off = r->r_offset, r_info = r->r_info;

		if (r_info == x.key && off - x.lo <= x.span && off >= after &&
		    (*(const uint8_t *)(opcode + (uintptr_t)off) & x.mask0) ==
			    x.op0 &&
		    (!x.more || opcode_rest_at(c, off - x.back))) {
			*w++ = (Elf64_Rela){
				.r_offset = roff,
				.r_info = info,
				.r_addend = (int64_t)(off - x.sub),
			};
			roff += sizeof(uint64_t);
			after = off + 1;
			continue;
		}
		size_t sym = ELF64_R_SYM(r_info);

		if (!(sym < n_symbols && role[sym] == ROLE_OTHER && off < size))
			break;
	}
	k->r = r;
	k->w = w;
	k->roff = roff;
	k->x.after = after;
}

/*
 * True if relocation r names a symbol looked at for the first time,
 * inside the section, which has no role: scan_one's answer, without
 * it.
 */
static bool first_look_other(const struct scan *c, const Elf64_Rela *r)
{
	size_t sym = ELF64_R_SYM(r->r_info);

	return sym < c->obj->n_symbols && r->r_offset < c->text_size &&
	       c->role->of[sym] == ROLE_UNKNOWN &&
	       symbol_role(c->obj, c->arch, c->opt, c->role, sym) ==
		       ROLE_OTHER;
}

/* The cursor after scan_one changed what the fast test knows. */
static void cursor_reload(const struct scan *c, struct table_cursor *k)
{
	const struct mc_table_sink *s = c->sink;

	k->x = fast_entry_of(c);
	k->opcode = (uintptr_t)c->code - (uintptr_t)k->x.back;
	k->w = s->v + s->n;
	/* an entry is an address: table_while_scanning's 8 bytes */
	k->roff = s->n * sizeof(uint64_t);
	k->info = c->info;
}

/*
 * scan_rela64 with a sink: a hook of the last type, in its form, after
 * the entry before it, in a traced section whose anchor is known, is
 * its table entry at once (three words); everything else goes through
 * scan_one, which may decline.
 */
static bool scan_rela64_table(struct scan *c, const Elf64_Rela *e,
			      size_t count)
{
	struct mc_table_sink *s = c->sink;
	struct table_cursor k = { .r = e, .end = e + count };

	if (!reserve_entries(c->obj, s, count))
		return false;
	/* the anchor first, so that the first site can be fast too */
	if (c->traced && !c->anchored &&
	    !(c->anchored = s->anchor(s->ctx, c->text->index, &c->info,
				      &c->base)))
		return false;
	cursor_reload(c, &k);
	for (;;) {
		Elf64_Rela *from = k.w;

		table_run(c, &k);
		/* the entries so far, as push_entry would have left them */
		if (k.w != from)
			sink_sync(c, k.w, from, k.x);
		if (k.r == k.end)
			return true;
		if (first_look_other(c, k.r)) {
			k.r++;
			continue;
		}
		struct mc_reloc one = {
			.offset = k.r->r_offset,
			.sym = ELF64_R_SYM(k.r->r_info),
			.type = (uint32_t)ELF64_R_TYPE(k.r->r_info),
			.addend = k.r->r_addend,
		};

		c->stale = false;
		if (!scan_one(c, (size_t)(k.r - e), &one))
			return false;
		if (++k.r == k.end)
			return true;	/* a section of one function, often */
		if (c->stale)	/* not for the first look at a symbol, mostly */
			cursor_reload(c, &k);
	}
}

static bool scan_reloc_section(struct mc_object *obj,
			       const struct mc_arch *arch,
			       const struct mc_options *opt,
			       struct mc_section *rel, struct mc_section *text,
			       struct roles *role, struct mc_site_list *out,
			       mc_warn_fn warn, struct mc_table_sink *sink,
			       bool *declined)
{
	size_t text_size;
	const uint8_t *code = mc_section_bytes(obj, text, &text_size);
	bool traced = mc_section_is_traced(text->name, opt);

	if (!check_reloc_table(obj, rel))
		return false;
	/* An empty section has no bytes, and no relocation can be in it. */
	if ((text->shdr->sh_flags & SHF_COMPRESSED) ||
	    (!code && text->shdr->sh_size))
		return mc_fail(obj, "%s: compressed or unreadable code section",
			       text->name);

	struct mc_reloc_table t;
	size_t count = mc_reloc_count(rel);
	struct scan c = {
		.obj = obj, .arch = arch, .opt = opt, .rel = rel,
		.text = text, .code = code, .text_size = text_size,
		.traced = traced, .role = role, .out = out, .warn = warn,
		.sink = sink,
	};
	struct mc_reloc r;
	bool ok = true;

	if (!fits_32_bits(count))
		return mc_fail(obj, "%s: %zu relocations, more than this tool "
			       "indexes (2^32)", rel->name, count);
	mc_reloc_table_open(obj, rel, &t);
	if (!sink)
		scan_start(&c);	/* a sink keeps its own order */
	scan_recall(&c);
	if (t.kind == MC_RELA64 && t.n >= count)
		ok = sink ? scan_rela64_table(&c, (const Elf64_Rela *)t.p, count)
			  : scan_rela64(&c, (const Elf64_Rela *)t.p, count);
	else
		for (size_t i = 0; ok && i < count; i++)
			ok = mc_reloc_read(obj, rel, &t, i, &r) &&
			     scan_one(&c, i, &r);
	*declined = c.declined;
	return ok;
}

/*
 * --find-nops: hooks that -mnop-mcount left as NOPs with no relocation
 * and no table.  A heuristic, so only on request: the NOP must stand at a
 * function symbol's entry (after an end-branch marker), in a traced or
 * untraced code section, exactly as the compiler puts it there.
 */
static bool scan_entry_nops(struct mc_object *obj, const struct mc_arch *arch,
			    const struct mc_options *opt,
			    struct mc_site_list *out)
{
	const struct mc_object_form *f = arch->entry_nop_form;

	if (!f)
		return mc_fail(obj, "--find-nops: %s compilers leave no entry "
			       "NOP to find", arch->name);
	for (size_t i = 1; i < obj->n_symbols; i++) {
		struct mc_symbol sym = mc_symbol(obj, i);

		if (GELF_ST_TYPE(sym.sym.st_info) != STT_FUNC ||
		    sym.sym.st_shndx == SHN_UNDEF ||
		    sym.shndx >= obj->n_sections)
			continue;
		struct mc_section *text = obj->sections[sym.shndx];
		size_t size;
		const uint8_t *code = mc_section_bytes(obj, text, &size);
		uint64_t at = mc_code_address(arch, sym.sym.st_value);

		if (!(text->shdr->sh_flags & SHF_EXECINSTR) || !code ||
		    at >= size)
			continue;
		at += mc_match_insn(arch->entry_prefixes,
				    arch->n_entry_prefixes, code + at,
				    size - at);
		if (at + f->opcode_len > size ||
		    !mc_bytes_equal(code + at, f->opcode, f->opcode_len))
			continue;
		struct mc_hook_site site = {
			.shndx = text->index,
			.offset = at,
			.form = f,
			.rel_shndx = 0,		/* no relocation marks it */
			.traced = mc_section_is_traced(text->name, opt),
		};
		if (!push_site(obj, out, &site))
			return false;
	}
	return true;
}

/*
 * Every relocation section that applies to code, in index order, into
 * `out` (or with `sink`, its table entries): DONE, FAILED, or with a
 * sink DECLINED.
 */
static enum mc_scan_result scan_all(struct mc_object *obj,
				    const struct mc_arch *arch,
				    const struct mc_options *opt,
				    struct mc_site_list *out, mc_warn_fn warn,
				    struct mc_table_sink *sink)
{
	struct roles *role = malloc(sizeof(*role));
	enum mc_scan_result res = MC_SCAN_DONE;

	if (!role) {
		mc_fail(obj, "out of memory");
		return MC_SCAN_FAILED;
	}
	if (!roles_open(obj, arch, opt, role)) {
		free(role);
		return MC_SCAN_FAILED;
	}
	for (size_t i = 1; res == MC_SCAN_DONE && i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		struct mc_section *text = code_target(obj, rel);
		bool declined = false;

		if (text && !scan_reloc_section(obj, arch, opt, rel, text, role,
						out, warn, sink, &declined))
			res = declined ? MC_SCAN_DECLINED : MC_SCAN_FAILED;
	}
	free(role->of);
	free(role);
	return res;
}

static bool too_many_sections(struct mc_object *obj)
{
	if (fits_32_bits(obj->n_sections))
		return false;
	return !mc_fail(obj, "%zu sections, more than ELF's 32-bit section "
			"indexes name", obj->n_sections);
}

bool mc_find_sites(struct mc_object *obj, const struct mc_arch *arch,
		   const struct mc_options *opt, struct mc_site_list *out,
		   mc_warn_fn warn)
{
	*out = (struct mc_site_list){ 0 };
	if (too_many_sections(obj))
		return false;
	if ((opt->find_nops && !scan_entry_nops(obj, arch, opt, out)) ||
	    scan_all(obj, arch, opt, out, warn, NULL) != MC_SCAN_DONE) {
		mc_site_list_free(out);
		return false;
	}
	sort_unique(out);
	return true;
}

enum mc_scan_result mc_scan_into_table(struct mc_object *obj,
				       const struct mc_arch *arch,
				       const struct mc_options *opt,
				       struct mc_table_sink *sink,
				       struct mc_site_list *out)
{
	*out = (struct mc_site_list){ 0 };
	if (opt->find_nops)
		return MC_SCAN_DECLINED;
	if (too_many_sections(obj))
		return MC_SCAN_FAILED;
	return scan_all(obj, arch, opt, out, NULL, sink);
}
