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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sections the kernel's ftrace traces: every .text* section plus the
 * special-purpose ones its linker script keeps apart.
 */
static const char *const traced_by_default[] = {
	".text*",
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

bool mc_section_is_traced(const char *name, const struct mc_options *opt)
{
	size_t n_default = sizeof(traced_by_default) /
			   sizeof(traced_by_default[0]) - 1;

	if (matches_any(name, opt->no_sections, opt->n_no_sections))
		return false;
	return matches_any(name, traced_by_default, n_default) ||
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

/* The symbols a scan asks about, and what it knows of them. */
struct roles {
	uint8_t *of;		/* one per symbol */
	uint8_t keys[65536 / 8];	/* name_key of every hook name */
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
	struct mc_section *t = rel->target;

	if (!t || !obj->symtab || rel->shdr.sh_link != obj->symtab->index ||
	    !(t->shdr.sh_flags & SHF_EXECINSTR) ||
	    t->shdr.sh_type != SHT_PROGBITS)
		return NULL;
	return t;
}

static bool check_reloc_table(struct mc_object *obj, struct mc_section *rel)
{
	size_t want = mc_reloc_entry_size(obj, rel->shdr.sh_type);

	if (rel->shdr.sh_entsize != want)
		return mc_fail(obj, "%s: relocation entry size %llu, "
			       "expected %zu", rel->name,
			       (unsigned long long)rel->shdr.sh_entsize, want);
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
};

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
	if (!c->have_type || r->type != c->last_type) {
		c->last_type = r->type;
		c->have_type = true;
		c->companion = mc_is_companion_reloc(arch, r->type);
		c->forms = mc_forms_of_type(arch, r->type);
	}
	if (ro == ROLE_UNSUPPORTED && !c->companion) {
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
	const struct mc_object_form *f =
		mc_match_form_among(arch, c->forms, c->code, c->text_size,
				    r->offset);
	if (!f) {
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
	struct mc_hook_site s = {
		.shndx = c->text->index,
		.offset = r->offset - (uint64_t)(int64_t)f->field_offset,
		.form = f,
		.rel_shndx = c->rel->index,
		.reloc_index = i,
		.traced = c->traced,
	};
	return push_site(obj, c->out, &s);
}

static bool scan_reloc_section(struct mc_object *obj,
			       const struct mc_arch *arch,
			       const struct mc_options *opt,
			       struct mc_section *rel, struct mc_section *text,
			       struct roles *role, struct mc_site_list *out,
			       mc_warn_fn warn)
{
	size_t text_size;
	const uint8_t *code = mc_section_bytes(text, &text_size);
	bool traced = mc_section_is_traced(text->name, opt);

	if (!check_reloc_table(obj, rel))
		return false;
	/* An empty section has no bytes, and no relocation can be in it. */
	if ((text->shdr.sh_flags & SHF_COMPRESSED) ||
	    (!code && text->shdr.sh_size))
		return mc_fail(obj, "%s: compressed or unreadable code section",
			       text->name);

	struct mc_reloc_table t;
	size_t count = mc_reloc_count(rel);
	struct scan c = {
		.obj = obj, .arch = arch, .opt = opt, .rel = rel,
		.text = text, .code = code, .text_size = text_size,
		.traced = traced, .role = role, .out = out, .warn = warn,
	};
	struct mc_reloc r;

	if (!fits_32_bits(count))
		return mc_fail(obj, "%s: %zu relocations, more than this tool "
			       "indexes (2^32)", rel->name, count);
	mc_reloc_table_open(obj, rel, &t);
	if (t.kind == MC_RELA64 && t.n >= count) {
		/* x86_64 and most 64-bit objects: one decode, inlined */
		const Elf64_Rela *e = (const Elf64_Rela *)t.p;

		for (size_t i = 0; i < count; i++) {
			r = (struct mc_reloc){
				.offset = e[i].r_offset,
				.sym = ELF64_R_SYM(e[i].r_info),
				.type = (uint32_t)ELF64_R_TYPE(e[i].r_info),
				.addend = e[i].r_addend,
			};
			if (!scan_one(&c, i, &r))
				return false;
		}
		return true;
	}
	for (size_t i = 0; i < count; i++)
		if (!mc_reloc_read(obj, rel, &t, i, &r) || !scan_one(&c, i, &r))
			return false;
	return true;
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
		const uint8_t *code = mc_section_bytes(text, &size);
		uint64_t at = sym.sym.st_value;

		if (!(text->shdr.sh_flags & SHF_EXECINSTR) || !code ||
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

bool mc_find_sites(struct mc_object *obj, const struct mc_arch *arch,
		   const struct mc_options *opt, struct mc_site_list *out,
		   mc_warn_fn warn)
{
	struct roles *role = malloc(sizeof(*role));

	*out = (struct mc_site_list){ 0 };
	if (!role)
		return mc_fail(obj, "out of memory");
	if (!fits_32_bits(obj->n_sections)) {
		free(role);
		return mc_fail(obj, "%zu sections, more than ELF's 32-bit "
			       "section indexes name", obj->n_sections);
	}
	if ((opt->find_nops && !scan_entry_nops(obj, arch, opt, out)) ||
	    !roles_open(obj, arch, opt, role)) {
		free(role);
		mc_site_list_free(out);
		return false;
	}
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		struct mc_section *text = code_target(obj, rel);

		if (text && !scan_reloc_section(obj, arch, opt, rel, text, role,
						out, warn)) {
			free(role->of);
			free(role);
			mc_site_list_free(out);
			return false;
		}
	}
	free(role->of);
	free(role);
	sort_unique(out);
	return true;
}
