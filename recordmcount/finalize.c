/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * finalize.c - `recordmcount --finalize`: put a linked table in its
 * final form, as Linux 6.15's scripts/sorttable does for vmlinux, for
 * any image we read.
 *
 *  - An entry in no function (the body of a weak function another
 *    definition overrode, code the link discarded) is cleared to 0:
 *    ftrace, and this package's runtime, skip 0.  Left alone, ftrace
 *    lists such a site as __ftrace_invalid_address___N, and a tracer
 *    that patches it writes into dead bytes.
 *  - Each contiguous run of table slots is sorted by address, cleared
 *    entries first, so a consumer that wants a sorted table (a kernel
 *    with CONFIG_BUILDTIME_MCOUNT_SORT) gets one.
 *
 * What fills a slot moves with its value: in a PIE or a relocatable
 * kernel the loader computes the slot from a dynamic R_*_RELATIVE (RELA:
 * its addend holds the value; REL: the slot does), and an image linked
 * with --emit-relocs keeps the static relocations that KASLR tools read
 * (x86's relocs).  Both are rewritten with the slots; a slot the loader
 * fills from a symbol is refused.  Byte order is the file's, whatever
 * the host's (mc_store_address, libelf's translation).
 *
 * A relocatable object (a kernel module, .ko) is not sorted (its
 * addresses do not exist yet; ftrace sorts a module's table when it
 * loads it): its stale entries' relocations become R_*_NONE against no
 * symbol, with a zero slot, so the loader leaves them 0.
 *
 * --prepatch, for an image linked with libmcount.a (which defines its
 * runtime's trampolines): each listed hook call to one of the runtime's
 * stubs becomes the disabled live form that runtime would write there
 * at boot (arch.h's live_opcode: x86's `test $rel32,%eax` aimed at the
 * trampoline), so that its boot only reads each site and writes no
 * code.  The runtime takes that form only when it is aimed at its own
 * trampoline.  A static relocation (--emit-relocs) inside such a call
 * would undo it, and is refused.
 *
 * The file is rewritten only if something changes (a second run leaves
 * it byte for byte and its mtime), through a temporary file renamed over
 * it; a linked image keeps its layout (mc_object_write_in_place).
 */
#define _GNU_SOURCE
#include "finalize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "../arch/search.h"
#include "survey.h"
#include "table.h"

/* A relocation that fills a table slot. */
struct slot_reloc {
	uint64_t slot;		/* the slot's address */
	size_t shndx;		/* relocation section */
	size_t index;
	struct mc_reloc r;
};

struct finalize {
	struct mc_survey *s;
	struct mc_object *obj;
	uint64_t *value;	/* per entry: the new value */
	size_t *from;		/* per entry: whose value it was */
	struct slot_reloc *dynamic, *fixed;	/* loader's, --emit-relocs' */
	size_t n_dynamic, n_fixed;
	size_t cleared, moved, prepatched;
	bool changed;
};

static int compare_slot(const void *a, const void *b)
{
	const struct slot_reloc *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static const struct slot_reloc *reloc_of_slot(const struct slot_reloc *v,
					      size_t n, uint64_t slot)
{
	struct slot_reloc key = { .slot = slot };

	return n ? bsearch(&key, v, n, sizeof(key), compare_slot) : NULL;
}

/* Does this relocation section fill slots of the table? */
static bool fills_table(struct finalize *f, struct mc_section *rel,
			bool *dynamic)
{
	struct mc_object *obj = f->obj;
	size_t target = rel->shdr->sh_info;

	if (!mc_is_reloc_section(rel))
		return false;
	*dynamic = (rel->shdr->sh_flags & SHF_ALLOC) != 0;
	if (*dynamic)
		return true;	/* any slot may be among its targets */
	/* --emit-relocs: sh_info names the section the relocations fill. */
	return target > 0 && target < obj->n_sections &&
	       (mc_is_table_name(obj->sections[target]->name) ||
		strcmp(obj->sections[target]->name, MC_PADS_SECTION) == 0);
}

static bool push_reloc(struct finalize *f, struct slot_reloc **v, size_t *n,
		       const struct slot_reloc *r)
{
	struct slot_reloc *w = realloc(*v, (*n + 1) * sizeof(**v));

	if (!w)
		return mc_fail(f->obj, "out of memory");
	w[(*n)++] = *r;
	*v = w;
	return true;
}

/* Every relocation whose place is a table slot, by slot. */
static bool read_slot_relocs(struct finalize *f, uint64_t lo, uint64_t hi)
{
	struct mc_object *obj = f->obj;

	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		bool dynamic;

		if (!fills_table(f, rel, &dynamic))
			continue;
		for (size_t j = 0; j < mc_reloc_count(rel); j++) {
			struct slot_reloc sr = { .shndx = i, .index = j };

			if (!mc_reloc_get(obj, rel, j, &sr.r))
				return false;
			if (sr.r.offset < lo || sr.r.offset >= hi)
				continue;
			sr.slot = sr.r.offset;
			if (!push_reloc(f, dynamic ? &f->dynamic : &f->fixed,
					dynamic ? &f->n_dynamic : &f->n_fixed,
					&sr))
				return false;
		}
	}
	if (f->n_dynamic)
		qsort(f->dynamic, f->n_dynamic, sizeof(*f->dynamic),
		      compare_slot);
	if (f->n_fixed)
		qsort(f->fixed, f->n_fixed, sizeof(*f->fixed), compare_slot);
	return true;
}

/* Is entry e in no function?  (The rule --check calls "stale".) */
static bool is_stale(struct mc_survey *s, const struct mc_entry *e)
{
	struct mc_verdict v;
	int64_t off;

	if (e->cleared || !e->resolved)
		return false;
	v = mc_survey_judge(s, e);
	return mc_survey_entry_function(s, e, &v, &off) == NULL;
}

/* ---- linked images ----------------------------------------------------- */

static int compare_by_value(const void *a, const void *b, void *ctx)
{
	const uint64_t *value = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (value[x] != value[y])
		return value[x] < value[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The slots of entries [a, b) are one run in one section. */
static size_t run_end(struct finalize *f, size_t a)
{
	const struct mc_entry *e = f->s->entries;
	unsigned size = f->s->arch->addr_size;
	struct mc_section *sec = mc_section_at_address(f->obj, e[a].slot);
	size_t b = a + 1;

	while (b < f->s->n_entries && e[b].slot == e[b - 1].slot + size &&
	       mc_section_at_address(f->obj, e[b].slot) == sec)
		b++;
	return b;
}

/* Plan each run: stale entries to 0, then sorted. */
static bool plan(struct finalize *f)
{
	struct mc_survey *s = f->s;
	uint64_t *old = malloc((s->n_entries + 1) * sizeof(*old));

	if (!old)
		return mc_fail(f->obj, "out of memory");
	for (size_t k = 0; k < s->n_entries; k++) {
		const struct mc_entry *e = &s->entries[k];

		if (!e->cleared && !e->resolved) {
			free(old);
			return mc_fail(f->obj, "table entry %zu (0x%" PRIx64
				       ") is outside every section", k,
				       e->address);
		}
		old[k] = is_stale(s, e) ? 0 : e->address;
		f->cleared += old[k] == 0 && !e->cleared;
		f->from[k] = k;
	}
	for (size_t a = 0, b; a < s->n_entries; a = b) {
		b = run_end(f, a);
		qsort_r(f->from + a, b - a, sizeof(*f->from), compare_by_value,
			old);
	}
	for (size_t k = 0; k < s->n_entries; k++) {
		f->value[k] = old[f->from[k]];
		f->moved += f->from[k] != k;
	}
	free(old);
	return true;
}

static bool write_slot(struct finalize *f, uint64_t slot, uint64_t value)
{
	struct mc_section *sec = mc_section_at_address(f->obj, slot);
	uint8_t bytes[8];
	size_t size;
	const uint8_t *cur = sec ? mc_section_bytes(f->obj, sec, &size) : NULL;
	uint64_t at = sec ? slot - sec->shdr->sh_addr : 0;

	if (!cur || at + f->s->arch->addr_size > size)
		return mc_fail(f->obj, "table slot 0x%" PRIx64 " unreadable",
			       slot);
	mc_store_address(f->obj, bytes, value);
	if (memcmp(cur + at, bytes, f->s->arch->addr_size) == 0)
		return true;
	f->changed = true;
	return mc_section_patch(f->obj, sec, at, bytes, f->s->arch->addr_size);
}

static bool same_reloc(const struct mc_reloc *a, const struct mc_reloc *b)
{
	return a->offset == b->offset && a->type == b->type &&
	       a->sym == b->sym && a->addend == b->addend &&
	       a->mips_extra == b->mips_extra;
}

static bool set_reloc(struct finalize *f, const struct slot_reloc *sr,
		      const struct mc_reloc *r)
{
	if (same_reloc(&sr->r, r))
		return true;
	f->changed = true;
	return mc_reloc_set(f->obj, f->obj->sections[sr->shndx], sr->index, r);
}

/*
 * The loader's relocation of slot k (if any) must agree: a RELA
 * R_*_RELATIVE's addend is the value (the slot keeps what ld left in it:
 * the value too, or 0); a REL one adds to what the slot holds.
 */
static bool write_dynamic(struct finalize *f, size_t k, uint64_t value)
{
	const struct mc_entry *e = &f->s->entries[k];
	const struct slot_reloc *sr = reloc_of_slot(f->dynamic, f->n_dynamic,
						    e->slot);

	if (!sr)
		return write_slot(f, e->slot, value);
	if (sr->r.type != f->s->arch->relative_reloc) {
		const char *rn = mc_reloc_name(f->s->arch, sr->r.type);

		if (rn)
			return mc_fail(f->obj, "table slot 0x%" PRIx64 " is "
				       "filled by the loader from a symbol "
				       "(%s)", e->slot, rn);
		return mc_fail(f->obj, "table slot 0x%" PRIx64 " is filled by "
			       "the loader from a symbol (relocation type %u)",
			       e->slot, sr->r.type);
	}
	if (f->obj->sections[sr->shndx]->shdr->sh_type == SHT_REL)
		return write_slot(f, e->slot, value);
	struct mc_reloc r = sr->r;
	struct mc_section *sec = mc_section_at_address(f->obj, e->slot);
	size_t size;
	const uint8_t *p = sec ? mc_section_bytes(f->obj, sec, &size) : NULL;
	uint64_t in_slot = p ? mc_load_address(f->obj, p + e->slot -
					       sec->shdr->sh_addr) : 0;

	r.addend = (int64_t)value;
	return set_reloc(f, sr, &r) &&
	       write_slot(f, e->slot, in_slot ? value : 0);
}

/*
 * --emit-relocs: the static relocation of slot k becomes the one that
 * made the value now there; a cleared slot's becomes R_*_NONE, so that
 * a tool applying them (KASLR) leaves it 0.
 */
static bool write_fixed(struct finalize *f, const struct slot_reloc *old,
			size_t k)
{
	const struct mc_entry *e = &f->s->entries[k];
	const struct slot_reloc *here = reloc_of_slot(old, f->n_fixed, e->slot);
	const struct slot_reloc *src = reloc_of_slot(old, f->n_fixed,
		f->s->entries[f->from[k]].slot);
	struct mc_reloc r;

	if (!here && !src)
		return true;
	if (!here || !src)
		return mc_fail(f->obj, "static relocations of the table do "
			       "not cover slot 0x%" PRIx64, e->slot);
	r = src->r;
	r.offset = e->slot;
	if (f->value[k] == 0)
		r = (struct mc_reloc){ .offset = e->slot,
				       .type = f->s->arch->none_reloc };
	return set_reloc(f, here, &r);
}

static bool finalize_image(struct finalize *f)
{
	struct mc_survey *s = f->s;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct slot_reloc *old = NULL;
	bool ok;

	for (size_t k = 0; k < s->n_entries; k++) {
		lo = s->entries[k].slot < lo ? s->entries[k].slot : lo;
		hi = s->entries[k].slot + s->arch->addr_size > hi ?
			s->entries[k].slot + s->arch->addr_size : hi;
	}
	if (s->n_entries == 0)
		return true;
	if (!read_slot_relocs(f, lo, hi) || !plan(f))
		return false;
	/* write_fixed reads the relocations as they were. */
	if (f->n_fixed && !(old = malloc(f->n_fixed * sizeof(*old))))
		return mc_fail(f->obj, "out of memory");
	if (old)
		memcpy(old, f->fixed, f->n_fixed * sizeof(*old));
	ok = true;
	for (size_t k = 0; ok && k < s->n_entries; k++)
		ok = write_dynamic(f, k, f->value[k]) &&
		     (!f->n_fixed || write_fixed(f, old, k));
	free(old);
	return ok;
}

/* ---- --prepatch -------------------------------------------------------- */

/* A stub's address and its trampoline's, both defined in the image. */
struct tramp_pair {
	uint64_t stub, tramp;
};

/* The address of the defined symbol `name`, or false. */
static bool defined_at(struct mc_object *obj, const char *name, uint64_t *at)
{
	size_t k = mc_symbol_by_name(obj, name);
	struct mc_symbol sym;

	if (k == SIZE_MAX)
		return false;
	sym = mc_symbol(obj, k);
	if (sym.sym.st_shndx == SHN_UNDEF)
		return false;
	*at = sym.sym.st_value;
	return true;
}

/* The runtime's stub/trampoline pairs this image defines; 0 if none. */
static size_t tramp_pairs(struct mc_object *obj, struct tramp_pair *p)
{
	size_t n = 0;

	for (size_t i = 0; i < MC_RUNTIME_TRAMPS; i++)
		if (defined_at(obj, mc_runtime_tramps[i].stub, &p[n].stub) &&
		    defined_at(obj, mc_runtime_tramps[i].tramp, &p[n].tramp))
			n++;
	return n;
}

/*
 * The disabled form of a `len`-byte call at `at` to `tramp` into `out`,
 * as the runtime makes it, and read back to the same call (the arch's
 * two functions must agree, or the runtime would refuse the site).
 */
static bool disabled_form(const struct mc_arch *arch, uint8_t *out,
			  unsigned len, uint64_t at, uint64_t tramp)
{
	uint8_t test;
	unsigned op;
	struct mc_site back;

	if (!mc_encode_call(arch, out, len, at, tramp))
		return false;
	op = arch->live_opcode(arch, len, false, &test);
	out[op] = test;
	back = arch->decode_disabled(arch, out, len, at);
	return back.kind == MC_SITE_CALL && back.len == len &&
	       back.target == tramp;
}

/* A hook call --prepatch rewrote: [at, at + len). */
struct patched {
	uint64_t at;
	unsigned len;
};

/*
 * Write the disabled form of the hook call at `addr`, if it is one, and
 * note it in `done` (*n so far).
 */
static bool prepatch_site(struct finalize *f, const struct tramp_pair *p,
			  size_t np, uint64_t addr, struct patched *done,
			  size_t *n)
{
	const struct mc_arch *arch = f->s->arch;
	struct mc_section *sec = mc_section_at_address(f->obj, addr);
	uint8_t form[MC_MAX_SITE_LEN];
	size_t size;
	const uint8_t *code = sec ? mc_section_bytes(f->obj, sec, &size) : NULL;
	uint64_t off = sec ? addr - sec->shdr->sh_addr : 0;
	struct mc_site d;

	if (!code || !(sec->shdr->sh_flags & SHF_EXECINSTR) || off >= size)
		return true;	/* --check's to report; the runtime refuses */
	d = mc_decode_site(arch, code + off, size - off, addr);
	for (size_t i = 0; d.kind == MC_SITE_CALL && i < np; i++) {
		if (d.target != p[i].stub)
			continue;
		if (!disabled_form(arch, form, d.len, addr, p[i].tramp))
			return mc_fail(f->obj, "--prepatch: no disabled form "
				       "for the hook call at 0x%" PRIx64, addr);
		done[(*n)++] = (struct patched){ addr, d.len };
		f->changed = true;
		return mc_section_patch(f->obj, sec, off, form, d.len);
	}
	return true;	/* a NOP, a pad, already disabled: boot sees to it */
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool patched_below(const void *entry, const void *key)
{
	return ((const struct patched *)entry)->at <= *(const uint64_t *)key;
}

/*
 * --emit-relocs keeps the static relocations of code: one inside a
 * prepatched call (its rel32, against the stub) would put the call back
 * for any tool that applies them.  `done` is sorted by address.
 */
static bool no_reloc_in(struct finalize *f, const struct patched *done,
			size_t n)
{
	struct mc_object *obj = f->obj;

	for (size_t i = 1; n && i < obj->n_sections; i++) {
		struct mc_section *rel = obj->sections[i];
		size_t t = rel->shdr->sh_info;
		struct mc_reloc r;

		if (!mc_is_reloc_section(rel) ||
		    (rel->shdr->sh_flags & SHF_ALLOC) || t == 0 ||
		    t >= obj->n_sections ||
		    !(obj->sections[t]->shdr->sh_flags & SHF_EXECINSTR))
			continue;
		for (size_t j = 0; j < mc_reloc_count(rel); j++) {
			if (!mc_reloc_get(obj, rel, j, &r))
				return false;
			/* the last call starting at or before the place */
			size_t k = mc_partition_point(done, n, sizeof(*done),
						      &r.offset, patched_below);

			if (k > 0 && r.offset < done[k - 1].at + done[k - 1].len)
				return mc_fail(obj, "--prepatch: a static "
					       "relocation (--emit-relocs) at "
					       "0x%" PRIx64 " is inside the hook "
					       "call at 0x%" PRIx64, r.offset,
					       done[k - 1].at);
		}
	}
	return true;
}

static bool prepatch(struct finalize *f)
{
	struct tramp_pair p[MC_RUNTIME_TRAMPS];
	const struct mc_arch *arch = f->s->arch;
	size_t np = tramp_pairs(f->obj, p), n = 0, done_n = 0;
	uint64_t *at;
	struct patched *done;
	bool ok = true;

	if (!arch->decode_disabled || !arch->live_opcode)
		return mc_fail(f->obj, "--prepatch: the runtime has no "
			       "link-time disabled form on %s", arch->name);
	if (!np)
		return mc_fail(f->obj, "--prepatch: not linked with "
			       "libmcount.a (no %s and %s)",
			       mc_runtime_tramps[0].stub,
			       mc_runtime_tramps[0].tramp);
	at = malloc((f->s->n_entries + 1) * sizeof(*at));
	done = malloc((f->s->n_entries + 1) * sizeof(*done));
	if (!at || !done) {
		free(at);
		free(done);
		return mc_fail(f->obj, "out of memory");
	}
	for (size_t k = 0; k < f->s->n_entries; k++)
		if (f->value[k])
			at[n++] = f->value[k];
	qsort(at, n, sizeof(*at), compare_u64);
	/* a repeated entry is one site: the runtime refuses the repeat */
	for (size_t k = 0; ok && k < n; k++)
		if (k == 0 || at[k] != at[k - 1])
			ok = prepatch_site(f, p, np, at[k], done, &done_n);
	if (ok)
		ok = no_reloc_in(f, done, done_n);
	f->prepatched = done_n;
	free(at);
	free(done);
	return ok;
}

/* ---- relocatable objects (modules) ------------------------------------- */

static bool finalize_object(struct finalize *f)
{
	struct mc_survey *s = f->s;
	struct mc_object *obj = f->obj;
	static const uint8_t zero[8];

	for (size_t k = 0; k < s->n_entries; k++) {
		const struct mc_entry *e = &s->entries[k];
		struct mc_section *rel;
		struct mc_reloc r;

		if (!is_stale(s, e))
			continue;
		rel = obj->sections[e->rel_shndx];
		if (!mc_reloc_get(obj, rel, e->reloc_index, &r))
			return false;
		uint64_t slot = r.offset;
		r = (struct mc_reloc){ .offset = slot,
				       .type = s->arch->none_reloc };
		if (!mc_reloc_set(obj, rel, e->reloc_index, &r) ||
		    !mc_section_patch(obj, obj->sections[rel->shdr->sh_info],
				      slot, zero, s->arch->addr_size))
			return false;
		f->cleared++;
		f->changed = true;
	}
	return true;
}

static void no_warnings(const struct mc_object *obj,
			const struct mc_options *opt, const char *msg)
{
	(void)obj;
	(void)opt;
	(void)msg;
}

/* -v: what was done to `path`, one line (-j workers share stdout). */
static void verbose_line(const char *path, const struct finalize *f,
			 bool prepatched)
{
	size_t n = f->s->n_entries;

	flockfile(stdout);
	printf("%s: %zu entr%s, %zu cleared, %zu moved", path, n,
	       n == 1 ? "y" : "ies", f->cleared, f->moved);
	if (prepatched)
		printf(", %zu prepatched", f->prepatched);
	printf("%s\n", f->changed ? "" : "; unchanged");
	funlockfile(stdout);
}

int mc_finalize_file(const char *path, const struct mc_options *opt)
{
	struct mc_object obj;
	struct mc_survey s;
	struct finalize f = { .s = &s, .obj = &obj };
	bool ok = mc_survey_open(&s, &obj, path, opt, no_warnings);

	if (ok && mc_survey_has_descriptors(&s))
		ok = mc_fail(&obj, "ppc64 ELFv1 function descriptors: "
			     "--finalize cannot tell where functions are");
	if (ok) {
		f.value = calloc(s.n_entries + 1, sizeof(*f.value));
		f.from = calloc(s.n_entries + 1, sizeof(*f.from));
		ok = (f.value && f.from) || mc_fail(&obj, "out of memory");
	}
	if (ok)
		ok = s.linked ? finalize_image(&f) : finalize_object(&f);
	if (ok && opt->prepatch)
		ok = s.linked ? prepatch(&f) :
		     mc_fail(&obj, "--prepatch: not a linked image");
	if (ok && f.changed)
		ok = mc_refuse_read_only(&obj) &&
		     (s.linked ? mc_object_write_in_place(&obj)
			      : mc_object_write(&obj));
	if (!ok)
		fprintf(stderr, "recordmcount: %s: %s\n", path, obj.error);
	else if (opt->verbosity > 0)
		verbose_line(path, &f, opt->prepatch);
	free(f.value);
	free(f.from);
	free(f.dynamic);
	free(f.fixed);
	mc_survey_free(&s);
	mc_object_close(&obj);
	return ok ? 0 : 1;
}
