/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edit.c - changing the model: bytes of a section, symbols (a binding;
 * section symbols and labels added as handles, numbered only when the
 * object is written), section names, COMDAT groups, new sections.
 */
#include "object.h"
#include "internal.h"
#include "reloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool mc_section_patch(struct mc_object *obj, struct mc_section *sec,
		      uint64_t offset, const uint8_t *bytes, size_t n)
{
	if (sec->shdr->sh_type != SHT_PROGBITS)
		return mc_fail(obj, "cannot patch %s: not PROGBITS", sec->name);
	if (!mc_section_make_writable(obj, sec))
		return false;
	if (offset > sec->buf->size || n > sec->buf->size - offset)
		return mc_fail(obj, "patch at %s+0x%llx past its end", sec->name,
			    (unsigned long long)offset);
	memcpy((uint8_t *)sec->buf->bytes + offset, bytes, n);
	return true;
}

bool mc_symbol_set_binding(struct mc_object *obj, size_t k,
			   unsigned char bind)
{
	GElf_Sym gs;

	if (!obj->symtab || k == 0 || k >= obj->n_symbols)
		return mc_fail(obj, "no symbol %zu to rebind", k);
	gs = mc_symbol(obj, k).sym;
	gs.st_info = GELF_ST_INFO(bind, GELF_ST_TYPE(gs.st_info));
	if (k >= obj->n_input_symbols) {
		/* added: in the table only when it is written */
		obj->added[k - obj->n_input_symbols].info = gs.st_info;
		return true;
	}
	/* The table itself, which symbols read in place are read from. */
	if (!mc_section_make_writable(obj, obj->symtab))
		return false;
	if (!gelf_update_sym(mc_section_data(obj, obj->symtab), (int)k, &gs))
		return mc_fail_elf(obj, "cannot rebind symbol");
	if (obj->symbols)
		obj->symbols[k].sym = gs;
	return true;
}

/*
 * What an array or buffer of `cap` grows to, for at least `need`: a
 * quarter more each time, so that adding one name or section per table
 * piece (a C++ object with thousands of COMDAT groups) costs linear,
 * not quadratic, time, while a table of millions of entries is left
 * with a quarter unused at most, not the half a doubling can leave.
 */
static size_t grown(size_t cap, size_t need)
{
	size_t more = cap + cap / 4 + 16;

	return more > need ? more : need;
}

/* Grow a section's private copy by `add` bytes, inserted at `at`. */
static bool section_insert_gap(struct mc_object *obj, struct mc_section *sec,
			       size_t at, size_t add)
{
	GElf_Shdr *sh = mc_section_header_to_change(obj, sec);

	if (!sh || !mc_section_make_writable(obj, sec))
		return false;
	struct mc_contents *c = sec->buf;
	size_t need = c->size + add;
	if (need > c->cap) {
		size_t cap = grown(c->cap, need);
		uint8_t *nb = realloc(c->bytes, cap);

		if (!nb)
			return mc_fail(obj, "out of memory");
		c->bytes = nb;
		c->cap = cap;
	}
	uint8_t *b = c->bytes;
	memmove(b + at + add, b + at, c->size - at);
	memset(b + at, 0, add);
	c->size = need;
	Elf_Data *d = mc_section_data(obj, sec);	/* none: made in memory */
	if (d) {
		d->d_buf = b;
		d->d_size = need;
	}
	sh->sh_size = need;
	return true;
}

/* Byte size of one relocation of `kind`, the host's struct. */
static size_t reloc_kind_size(enum mc_reloc_kind kind)
{
	switch (kind) {
	case MC_RELA64: return sizeof(Elf64_Rela);
	case MC_REL64:  return sizeof(Elf64_Rel);
	case MC_RELA32: return sizeof(Elf32_Rela);
	default:        return sizeof(Elf32_Rel);
	}
}

/*
 * One r_info in the written numbering (mc_written_index's), as an
 * addition to the whole word: the input's globals, most of what
 * relocations name, and anything past the added symbols move up by the
 * number added; an added symbol comes down to its place after the
 * input's locals.
 */
static inline __attribute__((always_inline)) uint64_t
written_info(bool is64, uint64_t info, const struct mc_numbering *m)
{
	unsigned shift = is64 ? 32 : 8;
	size_t sym = is64 ? ELF64_R_SYM(info) : ELF32_R_SYM((Elf32_Word)info);
	uint64_t w;

	if (sym < m->k)
		return info;
	if (sym >= m->n_in && sym - m->n_in < m->n)
		w = info - ((uint64_t)(m->n_in - m->k) << shift);
	else
		w = info + ((uint64_t)m->n << shift);
	/* ELF32's 24-bit field: the callers checked the indexes fit. */
	return is64 ? w : (Elf32_Word)w;
}

/* r_info of the entry at e: it follows r_offset, an address. */
static inline uint64_t load_info(const uint8_t *e, bool is64)
{
	if (is64) {
		Elf64_Xword x;

		memcpy(&x, e + sizeof(Elf64_Addr), sizeof(x));
		return x;
	}
	Elf32_Word x;

	memcpy(&x, e + sizeof(Elf32_Addr), sizeof(x));
	return x;
}

static inline void store_info(uint8_t *e, bool is64, uint64_t info)
{
	if (is64) {
		Elf64_Xword x = info;

		memcpy(e + sizeof(Elf64_Addr), &x, sizeof(x));
	} else {
		Elf32_Word x = (Elf32_Word)info;

		memcpy(e + sizeof(Elf32_Addr), &x, sizeof(x));
	}
}

/*
 * `count` entries of `size` bytes from a to b (which may be a), each
 * r_info renumbered.  Byte copies: the stream's buffer need not be
 * aligned.  Called with constant sizes, so that they compile to moves.
 */
static inline void renumber_run(const uint8_t *a, uint8_t *b, size_t count,
				size_t size, bool is64,
				const struct mc_numbering *m)
{
	/* a copy the stores through b cannot be taken to change */
	const struct mc_numbering n = *m;

	if (a == b) {
		for (size_t i = 0; i < count; i++, b += size) {
			uint64_t info = load_info(b, is64);
			uint64_t w = written_info(is64, info, &n);

			if (w != info)
				store_info(b, is64, w);
		}
		return;
	}
	for (size_t i = 0; i < count; i++, a += size, b += size) {
		uint64_t info = load_info(a, is64);

		memcpy(b, a, size);
		store_info(b, is64, written_info(is64, info, &n));
	}
}

static inline bool run_renumbered(const uint8_t *a, size_t count, size_t size,
				  bool is64, const struct mc_numbering *m)
{
	for (size_t i = 0; i < count; i++, a += size) {
		uint64_t info = load_info(a, is64);

		if (written_info(is64, info, m) != info)
			return true;
	}
	return false;
}

/*
 * renumber_run for ELF64 RELA copied, the usual case (every relocation
 * of a recorded x86_64 object's code, written): copied a run at a time
 * by memcpy, then each r_info changed in place by one addition to the
 * whole word.  A symbol of the input's globals, tested as one range of
 * whole words, moves up; the rest are written_info's.  Runs of a little
 * under 2 KiB, still in the cache for the second pass.
 */
static void renumber_rela64_copy(const uint8_t *a, uint8_t *b, size_t count,
				 const struct mc_numbering *m)
{
	enum { RUN = 80 };	/* entries: 1,920 bytes */
	const uint64_t lo = (uint64_t)m->k << 32;
	const uint64_t globals = (uint64_t)(m->n_in - m->k) << 32;
	const uint64_t up = (uint64_t)m->n << 32;
	const struct mc_numbering n = *m;

	for (size_t i = 0; i < count; i += RUN) {
		size_t bytes = (count - i < RUN ? count - i : RUN) *
			       sizeof(Elf64_Rela);
		uint8_t *to = b + i * sizeof(Elf64_Rela);

		memcpy(to, a + i * sizeof(Elf64_Rela), bytes);
		for (size_t at = 8; at < bytes; at += sizeof(Elf64_Rela)) {
			uint64_t info;

			memcpy(&info, to + at, 8);
			if (info - lo < globals)
				info += up;
			else
				info = written_info(true, info, &n);
			memcpy(to + at, &info, 8);
		}
	}
}

void mc_renumber_relocs(enum mc_reloc_kind kind, const void *src, void *dst,
			size_t count, const struct mc_numbering *m)
{
	switch (kind) {
	case MC_RELA64:
		/* a few, as in a section per function: not worth the runs */
		if (src != dst && count >= 16)
			renumber_rela64_copy(src, dst, count, m);
		else
			renumber_run(src, dst, count, sizeof(Elf64_Rela), true,
				     m);
		break;
	case MC_REL64:
		renumber_run(src, dst, count, sizeof(Elf64_Rel), true, m);
		break;
	case MC_RELA32:
		renumber_run(src, dst, count, sizeof(Elf32_Rela), false, m);
		break;
	case MC_REL32:
		renumber_run(src, dst, count, sizeof(Elf32_Rel), false, m);
		break;
	}
}

/* True if mc_renumber_relocs would change any of these relocations. */
static bool relocs_renumbered(enum mc_reloc_kind kind, const void *src,
			      size_t count, const struct mc_numbering *m)
{
	switch (kind) {
	case MC_RELA64:
		return run_renumbered(src, count, sizeof(Elf64_Rela), true, m);
	case MC_REL64:
		return run_renumbered(src, count, sizeof(Elf64_Rel), true, m);
	case MC_RELA32:
		return run_renumbered(src, count, sizeof(Elf32_Rela), false, m);
	default:
		return run_renumbered(src, count, sizeof(Elf32_Rel), false, m);
	}
}

/*
 * Renumber a table read in place, copied and renumbered in one pass
 * (into its copy, made here if it has none): an entry is a struct of
 * the host's, and only the symbol field of r_info changes.  False,
 * with nothing done, where this cannot be done so: the caller goes
 * entry by entry.
 */
static bool number_table_symbols(const struct mc_object *obj,
				 struct mc_section *sec,
				 const struct mc_reloc_table *t,
				 const struct mc_numbering *m)
{
	size_t count = mc_reloc_count(sec);
	Elf_Data *d = mc_section_data(obj, sec);
	void *dst;

	bool is32 = t->kind == MC_REL32 || t->kind == MC_RELA32;

	/* ELF32's 24-bit symbol field must hold every new index. */
	if (t->n != count || !d || count == 0 || (is32 && sec->buf) ||
	    (is32 && m->n_in + m->n > 0x1000000))
		return false;
	dst = sec->buf ? sec->buf->bytes : malloc(d->d_size);
	if (!dst)
		return false;
	mc_renumber_relocs(t->kind, t->p, dst, count, m);
	if (!sec->buf && !mc_section_take_buffer(sec, d, dst)) {
		free(dst);
		return false;
	}
	return true;
}

/*
 * True if the input's relocation section `sec`, which has no copy, can
 * be renumbered as it is written instead (MC_RENUMBERED): where
 * number_table_symbols would copy it, and the entries libelf holds are
 * the file's own bytes (the host's byte order), all of them.
 */
static bool renumbered_when_written(const struct mc_object *obj,
				    const struct mc_section *sec,
				    const struct mc_reloc_table *t,
				    const struct mc_numbering *m)
{
	size_t count = mc_reloc_count(sec);
	struct mc_input_data d;
	bool is32 = t->kind == MC_REL32 || t->kind == MC_RELA32;

	return !sec->buf && mc_section_view(obj, sec, &d) && d.buf && count &&
	       t->n == count && mc_in_host_order(obj) &&
	       !(sec->shdr->sh_flags & SHF_COMPRESSED) &&
	       d.size == sec->shdr->sh_size &&
	       d.size / reloc_kind_size(t->kind) == count &&
	       d.size % reloc_kind_size(t->kind) == 0 &&
	       !(is32 && m->n_in + m->n > 0x1000000);
}

/*
 * The same for a relocation section added in memory, whose buffer
 * mc_reloc_store filled in the object's kind.
 */
static bool number_added_relocs(struct mc_object *obj,
				struct mc_section *sec,
				const struct mc_numbering *m)
{
	uint32_t type = sec->shdr->sh_type;
	size_t size = mc_reloc_entry_size(obj, type);
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	uint8_t *p = sec->buf ? sec->buf->bytes : NULL;
	size_t count = sec->buf ? sec->buf->size / size : 0;
	struct mc_reloc_table t;

	mc_reloc_table_over(obj, type, p, count, &t);
	if (t.kind == MC_RELA64 || t.kind == MC_REL64) {
		/* in place, only the symbol field of r_info changes */
		mc_renumber_relocs(t.kind, p, p, t.n, m);
		if (t.n || !p)
			return true;
	}
	for (size_t i = 0; i < count; i++) {
		const uint8_t *e = p + i * size;
		struct mc_reloc r = { 0 };

		if (is64) {
			Elf64_Rel x;

			memcpy(&x, e, sizeof(x));
			r.offset = x.r_offset;
			mc_info_decode(obj, x.r_info, &r);
			if (type == SHT_RELA)
				r.addend = ((const Elf64_Rela *)(const void *)e)
						   ->r_addend;
		} else {
			Elf32_Rel x;

			memcpy(&x, e, sizeof(x));
			r.offset = x.r_offset;
			r.sym = ELF32_R_SYM(x.r_info);
			r.type = ELF32_R_TYPE(x.r_info);
			if (type == SHT_RELA)
				r.addend = ((const Elf32_Rela *)(const void *)e)
						   ->r_addend;
		}
		if (r.sym < m->k)
			continue;
		r.sym = mc_written_index(m, r.sym);
		if (!is64 && r.sym > 0xffffff)
			return mc_fail(obj, "%s: symbol index %zu does not fit "
				       "ELF32's 24 bits", sec->name, r.sym);
		mc_reloc_store(obj, type, p, i, &r);
	}
	return true;
}

/*
 * Every relocation's symbol handle becomes the index written: in the
 * copies (made here where a section needs one), or, for the input's
 * sections that can be, marked for the writer in `r`.
 */
static bool number_reloc_symbols(struct mc_object *obj,
				 struct mc_renumbering *r)
{
	const struct mc_numbering *m = &r->m;

	for (size_t s = 1; s < obj->n_sections; s++) {
		struct mc_section *sec = obj->sections[s];
		struct mc_reloc_table t;
		bool writable = sec->buf != NULL;

		if (!mc_is_reloc_section(sec) ||
		    sec->shdr->sh_link != obj->symtab->index ||
		    sec->written_numbering)
			continue;
		if (!mc_section_is_input(obj, sec)) {
			if (!number_added_relocs(obj, sec, m))
				return false;
			continue;
		}
		mc_reloc_table_open(obj, sec, &t);
		if (renumbered_when_written(obj, sec, &t, m)) {
			r->how[s] = relocs_renumbered(t.kind, t.p, t.n, m)
				    ? MC_RENUMBERED : MC_RENUMBERED_SAME;
			continue;
		}
		if (number_table_symbols(obj, sec, &t, m))
			continue;
		for (size_t i = 0; i < mc_reloc_count(sec); i++) {
			struct mc_reloc rel = { 0 };

			if (!mc_reloc_read(obj, sec, &t, i, &rel))
				return false;
			if (rel.sym < m->k)
				continue;
			rel.sym = mc_written_index(m, rel.sym);
			if (!writable) {
				/* The copy is made on the first change. */
				if (!mc_section_make_writable(obj, sec))
					return false;
				mc_reloc_table_open(obj, sec, &t);
				writable = true;
			}
			if (!(i < t.n && mc_reloc_table_put(&t, i, &rel)) &&
			    !mc_reloc_set(obj, sec, i, &rel))
				return false;
		}
	}
	return true;
}

/*
 * COMDAT group signatures are symbol indices in the group's sh_info;
 * false when out of memory.
 */
static bool number_group_signatures(struct mc_object *obj,
				    const struct mc_numbering *m)
{
	if (!mc_object_has_groups(obj))
		return true;
	for (size_t s = 1; s < obj->n_sections; s++) {
		struct mc_section *sec = obj->sections[s];
		GElf_Shdr *sh;

		if (sec->shdr->sh_type != SHT_GROUP ||
		    sec->shdr->sh_link != obj->symtab->index ||
		    sec->shdr->sh_info < m->k)
			continue;
		if (!(sh = mc_section_header_to_change(obj, sec)))
			return false;
		sh->sh_info = (GElf_Word)mc_written_index(m, sh->sh_info);
	}
	return true;
}

static bool needs_xindex(const size_t *shndx, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (shndx[j] >= SHN_LORESERVE)
			return true;
	return false;
}

/*
 * True if every index fits the 32-bit SHT_SYMTAB_SHNDX word that gives
 * it in the file (and struct mc_added_symbol): a round trip, as a
 * comparison with UINT32_MAX is always false where size_t has 32 bits.
 */
static bool fits_32_bits(const size_t *shndx, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if ((uint32_t)shndx[j] != shndx[j])
			return false;
	return true;
}

/*
 * Added symbol j (0: the first one added): its entry, and in *shndx its
 * real section index.  The one place that knows where they are kept.
 */
static GElf_Sym added_symbol(const struct mc_object *obj, size_t j,
			     size_t *shndx)
{
	struct mc_symbol s = mc_added_symbol(obj, j);

	*shndx = s.shndx;
	return s.sym;
}

/* Its SHT_SYMTAB_SHNDX word: the index when st_shndx cannot hold it. */
static Elf32_Word extended_index(const GElf_Sym *gs, size_t shndx)
{
	return gs->st_shndx == SHN_XINDEX ? (Elf32_Word)shndx : 0;
}

/*
 * Fill the n slots at k..k+n-1 of the symbol table and its mirror,
 * made for them, with the symbols added.  The mirror's words are
 * stored directly: it is a copy of host-order words here, and may be
 * one made in memory (add_symtab_shndx), which libelf knows nothing of.
 */
static bool store_added_symbols(struct mc_object *obj,
				const struct mc_numbering *m)
{
	struct mc_section *x = obj->symtab_shndx;

	for (size_t j = 0; j < m->n; j++) {
		size_t shndx;
		GElf_Sym gs = added_symbol(obj, j, &shndx);
		Elf32_Word w = extended_index(&gs, shndx);

		if (!gelf_update_sym(obj->symtab_data, (int)(m->k + j), &gs))
			return mc_fail_elf(obj, "cannot add symbol");
		if (x)
			memcpy((uint8_t *)x->buf->bytes +
			       (m->k + j) * sizeof(w), &w, sizeof(w));
	}
	return true;
}

/*
 * The input's table `sec` (the symbol table, entries of `one` bytes,
 * or its SHT_SYMTAB_SHNDX) can go out as the input's bytes with the
 * added entries spliced in at the first global: libelf holds the file's
 * own bytes of it (the host's order), whole entries, and no copy.
 */
static bool splice_fits(const struct mc_object *obj,
			const struct mc_section *sec, size_t one,
			Elf_Type type, const struct mc_numbering *m)
{
	const Elf_Data *d = mc_section_data(obj, sec);

	return mc_section_is_input(obj, sec) && !sec->buf && d && d->d_buf &&
	       d->d_type == type && mc_in_host_order(obj) && one &&
	       !(sec->shdr->sh_flags & SHF_COMPRESSED) &&
	       d->d_size == sec->shdr->sh_size && d->d_size % one == 0 &&
	       d->d_size / one >= m->k &&
	       /* gelf's index is an int */
	       m->k + m->n <= (size_t)INT_MAX;
}

/*
 * Added symbol j as gelf_update_symshndx would store it: its entry in
 * the file's class (host order) at `e`, its SHT_SYMTAB_SHNDX word in
 * *x.  False where it would refuse it (an ELF32 value past 32 bits, an
 * extended index with nowhere to go).
 */
static bool added_in_file_form(const struct mc_object *obj, size_t j,
			       union mc_file_sym *e, Elf32_Word *x)
{
	size_t shndx;
	GElf_Sym gs = added_symbol(obj, j, &shndx);

	*x = extended_index(&gs, shndx);
	if (*x && !obj->symtab_shndx)
		return false;
	if (obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64) {
		e->e64 = gs;
		return true;
	}
	if (gs.st_value > 0xffffffffull || gs.st_size > 0xffffffffull)
		return false;
	e->e32 = (Elf32_Sym){
		.st_name = gs.st_name,
		.st_value = (Elf32_Addr)gs.st_value,
		.st_size = (Elf32_Word)gs.st_size,
		.st_info = gs.st_info,
		.st_other = gs.st_other,
		.st_shndx = gs.st_shndx,
	};
	return true;
}

void mc_added_symbols_out(const struct mc_object *obj, size_t j, size_t k,
			  bool shndx, void *dst)
{
	size_t one = shndx ? sizeof(Elf32_Word)
		     : obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64
		     ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

	for (size_t i = 0; i < k; i++) {
		union mc_file_sym e;
		Elf32_Word x;

		/* splice_symbols saw every one made */
		(void)added_in_file_form(obj, j + i, &e, &x);
		memcpy((uint8_t *)dst + i * one,
		       shndx ? (void *)&x : (void *)&e, one);
	}
}

/*
 * True if the symbol table (and its SHT_SYMTAB_SHNDX) are left for the
 * writer to splice the added symbols into (MC_SPLICED); false where
 * the copies are to be made; -1 with obj->error when out of memory.
 */
static int splice_symbols(struct mc_object *obj, struct mc_renumbering *r)
{
	struct mc_section *x = obj->symtab_shndx;

	if (!splice_fits(obj, obj->symtab, obj->symtab->shdr->sh_entsize,
			 ELF_T_SYM, &r->m) ||
	    (x && !splice_fits(obj, x, sizeof(Elf32_Word), ELF_T_WORD, &r->m)))
		return 0;
	/* One gelf would refuse: the copies, made through it, fail. */
	for (size_t j = 0; j < r->m.n; j++) {
		union mc_file_sym e;
		Elf32_Word w;

		if (!added_in_file_form(obj, j, &e, &w))
			return 0;
	}
	GElf_Shdr *sh = mc_section_header_to_change(obj, obj->symtab);
	GElf_Shdr *xsh = x ? mc_section_header_to_change(obj, x) : NULL;

	if (!sh || (x && !xsh))
		return -1;
	r->how[obj->symtab->index] = MC_SPLICED;
	sh->sh_size += r->m.n * sh->sh_entsize;
	if (x) {
		r->how[x->index] = MC_SPLICED;
		xsh->sh_size += r->m.n * sizeof(Elf32_Word);
	}
	return 1;
}

/* Copies of the symbol table and its mirror with the added in them. */
static bool copy_symbols_in(struct mc_object *obj,
			    const struct mc_numbering *m)
{
	size_t entsize = obj->symtab->shdr->sh_entsize;

	return section_insert_gap(obj, obj->symtab, m->k * entsize,
				  m->n * entsize) &&
	       (!obj->symtab_shndx ||
		section_insert_gap(obj, obj->symtab_shndx,
				   m->k * sizeof(Elf32_Word),
				   m->n * sizeof(Elf32_Word)));
}

static void free_renumbering(struct mc_renumbering *r)
{
	if (!r)
		return;
	free(r->how);
	free(r);
}

void mc_renumbering_free(struct mc_object *obj)
{
	free_renumbering(obj->renumbering);
	obj->renumbering = NULL;
}

/*
 * Number the symbols as they are written: the ones added go after the
 * input's locals, every reference to the input's globals (relocations,
 * group signatures) moves up by as many.  The symbol table and the
 * input's relocation sections are left to the writer where it can
 * renumber them as it goes (see struct mc_renumbering): a relocatable
 * object's .rela.text can hold as many bytes as its code.  Nothing to
 * do when none was added, or a second time.  The model's handles and
 * lookups do not know the written numbering: the object is written and
 * closed.
 */
bool mc_number_symbols(struct mc_object *obj)
{
	struct mc_numbering m = {
		.k = obj->first_global,
		.n_in = obj->n_input_symbols,
		.n = obj->n_symbols - obj->n_input_symbols,
	};
	struct mc_renumbering *r;
	int spliced;

	if (m.n == 0 || obj->renumbering)
		return true;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->how = calloc(obj->n_sections, sizeof(*r->how)))) {
		free(r);
		return mc_fail(obj, "out of memory");
	}
	r->m = m;
	r->n_how = obj->n_sections;
	obj->renumbering = r;
	/* In the order of the copies, so that a failure reads as before. */
	if ((spliced = splice_symbols(obj, r)) < 0 ||
	    (!spliced && !copy_symbols_in(obj, &m)) ||
	    !number_reloc_symbols(obj, r) ||
	    (!spliced && !store_added_symbols(obj, &m)))
		return false;
	GElf_Shdr *sh = mc_section_header_to_change(obj, obj->symtab);

	if (!sh || !number_group_signatures(obj, &m))
		return false;
	sh->sh_info += (GElf_Word)m.n;
	return true;
}

bool mc_apply_renumbering(struct mc_object *obj)
{
	struct mc_renumbering *r = obj->renumbering;

	if (!r)
		return true;
	for (size_t s = 1; s < r->n_how; s++) {
		struct mc_section *sec = obj->sections[s];
		struct mc_reloc_table t;

		if (r->how[s] != MC_RENUMBERED &&
		    r->how[s] != MC_RENUMBERED_SAME)
			continue;
		mc_reloc_table_open(obj, sec, &t);
		/* renumbered_when_written said it can: only memory fails */
		if (!number_table_symbols(obj, sec, &t, &r->m))
			return mc_fail(obj, "out of memory");
		r->how[s] = MC_AS_IT_IS;
	}
	if (r->how[obj->symtab->index] != MC_SPLICED)
		return true;
	/* The table's header already counts the added: the copy sets it. */
	if (!copy_symbols_in(obj, &r->m) || !store_added_symbols(obj, &r->m))
		return false;
	r->how[obj->symtab->index] = MC_AS_IT_IS;
	if (obj->symtab_shndx)
		r->how[obj->symtab_shndx->index] = MC_AS_IT_IS;
	return true;
}

/*
 * An SHT_SYMTAB_SHNDX for an object that had none, when a symbol added
 * names a section past SHN_LORESERVE (its st_shndx SHN_XINDEX, the
 * index in this table): what an assembler makes past 65280 sections,
 * and what the pieces of --per-section can push an object past.  A
 * zero word for each of the input's symbols: none needs one (an input
 * symbol's SHN_XINDEX without the table reads as index 0, as gelf's,
 * and still does).
 */
static bool add_symtab_shndx(struct mc_object *obj)
{
	size_t n = obj->n_input_symbols;
	void *words = calloc(n ? n : 1, sizeof(Elf32_Word));
	GElf_Shdr sh = {
		.sh_type = SHT_SYMTAB_SHNDX,
		.sh_link = (GElf_Word)obj->symtab->index,
		.sh_addralign = sizeof(Elf32_Word),
		.sh_entsize = sizeof(Elf32_Word),
	};

	if (!words)
		return mc_fail(obj, "out of memory");
	obj->symtab_shndx = mc_add_section(obj, ".symtab_shndx", &sh, words,
					   n * sizeof(Elf32_Word),
					   ELF_T_WORD);
	return obj->symtab_shndx != NULL;
}

/*
 * The values of n added symbols after the `had` added before, `value`
 * or with it NULL all 0; those before are 0 if there was no array yet
 * (section symbols only).
 */
static bool add_symbol_values(struct mc_object *obj, size_t had,
			      const uint64_t *value, size_t n)
{
	uint64_t *v = realloc(obj->added_values, (had + n + 1) * sizeof(*v));

	if (!v)
		return mc_fail(obj, "out of memory");
	if (!obj->added_values)
		memset(v, 0, had * sizeof(*v));
	obj->added_values = v;
	for (size_t j = 0; j < n; j++)
		v[had + j] = value ? value[j] : 0;
	return true;
}

/*
 * Add n local symbols: section symbols, or with `value`, unnamed
 * local labels at those offsets of their sections.  Each is a handle
 * after every other symbol; no table is touched until the object is
 * written (mc_number_symbols).
 */
static size_t add_local_symbols(struct mc_object *obj, const size_t *shndx,
				const uint64_t *value, size_t n)
{
	struct mc_added_symbol *sym;
	size_t first = obj->n_symbols;

	if (!obj->symtab) {
		mc_fail(obj, "no symbol table to add a section symbol to");
		return SIZE_MAX;
	}
	if (!fits_32_bits(shndx, n)) {
		mc_fail(obj, "section index past 2^32 for a symbol");
		return SIZE_MAX;
	}
	if (needs_xindex(shndx, n) && !obj->symtab_shndx &&
	    !add_symtab_shndx(obj))
		return SIZE_MAX;
	size_t had = first - obj->n_input_symbols;

	sym = realloc(obj->added, (had + n + 1) * sizeof(*sym));
	if (!sym) {
		mc_fail(obj, "out of memory");
		return SIZE_MAX;
	}
	obj->added = sym;
	if ((value || obj->added_values) &&
	    !add_symbol_values(obj, had, value, n))
		return SIZE_MAX;
	sym += had;	/* the first new one */
	for (size_t j = 0; j < n; j++)
		sym[j] = (struct mc_added_symbol){
			.shndx = (uint32_t)shndx[j],
			.info = GELF_ST_INFO(STB_LOCAL, value ? STT_NOTYPE
							      : STT_SECTION),
		};
	obj->n_symbols += n;
	/* The lookup indexes do not know the new symbols. */
	free(obj->funcs);
	free(obj->named);
	obj->funcs = obj->named = NULL;
	return first;
}

size_t mc_add_section_symbols(struct mc_object *obj, const size_t *shndx,
			      size_t n)
{
	return add_local_symbols(obj, shndx, NULL, n);
}

size_t mc_add_label_symbols(struct mc_object *obj, const size_t *shndx,
			    const uint64_t *value, size_t n)
{
	return add_local_symbols(obj, shndx, value, n);
}

/*
 * True if names added to the name table `shstr` can be kept apart from
 * it (struct mc_added_names): the table is the input's, unchanged, and
 * its bytes are in the mapped file, where the writer finds them as it
 * finds any unchanged section's (input_out_data, write.c).
 */
static bool names_kept_apart(const struct mc_object *obj,
			     const struct mc_section *shstr)
{
	const GElf_Shdr *sh = shstr->shdr;

	return obj->added_names ||
	       (obj->image && !shstr->buf && mc_section_is_input(obj, shstr) &&
		sh->sh_type == SHT_STRTAB && !(sh->sh_flags & SHF_COMPRESSED) &&
		sh->sh_offset <= obj->image_size &&
		sh->sh_size <= obj->image_size - sh->sh_offset);
}

/* `name` added apart from the table (see names_kept_apart); or NULL. */
static const char *add_name_apart(struct mc_object *obj, const char *name,
				  size_t *off)
{
	struct mc_added_names *a = obj->added_names;
	size_t len = strlen(name) + 1;
	char *copy;

	if (!a) {
		if (!(a = calloc(1, sizeof(*a)))) {
			mc_fail(obj, "out of memory");
			return NULL;
		}
		a->input_size = obj->sections[obj->shstrndx]->shdr->sh_size;
		obj->added_names = a;
	}
	if (a->n == a->cap) {
		size_t cap = grown(a->cap, a->n + 1);
		char **names = realloc(a->names, cap * sizeof(*names));

		if (!names) {
			mc_fail(obj, "out of memory");
			return NULL;
		}
		a->names = names;
		a->cap = cap;
	}
	if (!(copy = malloc(len))) {
		mc_fail(obj, "out of memory");
		return NULL;
	}
	memcpy(copy, name, len);
	a->names[a->n++] = copy;
	*off = a->input_size + a->size;
	a->size += len;
	return copy;
}

/* Every section's name pointed into the name table's copy. */
static void point_names_into(struct mc_object *obj,
			     const struct mc_section *shstr)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		obj->sections[i]->name = (const char *)shstr->buf->bytes +
					obj->sections[i]->shdr->sh_name;
}

/*
 * Append `name` to the section name table; *off receives its offset.
 * Returns the name as the section's name is to point at it, or NULL.
 * Where the table is a copy, every section name is re-pointed into the
 * grown copy, which holds all of them (the input's names and those
 * added or renamed since).
 */
static const char *append_section_name(struct mc_object *obj,
				       const char *name, size_t *off)
{
	struct mc_section *shstr = obj->sections[obj->shstrndx];
	size_t len = strlen(name) + 1;
	const void *was;

	if (names_kept_apart(obj, shstr))
		return add_name_apart(obj, name, off);
	was = shstr->buf ? shstr->buf->bytes : NULL;
	*off = shstr->shdr->sh_size;
	if (!section_insert_gap(obj, shstr, *off, len))
		return NULL;
	memcpy((uint8_t *)shstr->buf->bytes + *off, name, len);
	if (shstr->buf->bytes != was)
		point_names_into(obj, shstr);	/* the names moved */
	return (const char *)shstr->buf->bytes + *off;
}

bool mc_fold_added_names(struct mc_object *obj)
{
	struct mc_added_names *a = obj->added_names;
	struct mc_section *shstr = obj->sections[obj->shstrndx];

	if (!a)
		return true;
	/* The copy is the input's bytes: the names' offsets hold. */
	if (!mc_section_make_writable(obj, shstr))
		return false;
	if (shstr->buf->size != a->input_size)
		return mc_fail(obj, "section name table changed size");
	if (!section_insert_gap(obj, shstr, a->input_size, a->size))
		return false;
	uint8_t *to = (uint8_t *)shstr->buf->bytes + a->input_size;

	for (size_t i = 0; i < a->n; i++) {
		size_t len = strlen(a->names[i]) + 1;

		memcpy(to, a->names[i], len);
		to += len;
	}
	point_names_into(obj, shstr);
	mc_added_names_free(obj);
	return true;
}

void mc_added_names_free(struct mc_object *obj)
{
	struct mc_added_names *a = obj->added_names;

	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->names[i]);
	free(a->names);
	free(a);
	obj->added_names = NULL;
}

bool mc_section_rename(struct mc_object *obj, struct mc_section *sec,
		       const char *name)
{
	GElf_Shdr *sh = mc_section_header_to_change(obj, sec);
	const char *now;
	size_t off;

	if (!sh || !(now = append_section_name(obj, name, &off)))
		return false;
	sh->sh_name = (GElf_Word)off;
	sec->name = now;
	return true;
}

bool mc_section_set_contents(struct mc_object *obj, struct mc_section *sec,
			     void *contents, size_t size, Elf_Type type)
{
	Elf_Data *d = mc_section_data(obj, sec);
	GElf_Shdr *sh;

	if (mc_section_is_input(obj, sec) && !d) {
		free(contents);
		return mc_fail_elf(obj, "cannot read section");
	}
	if (!(sh = mc_section_header_to_change(obj, sec))) {
		free(contents);
		return false;
	}
	if (!mc_section_own(sec, contents, size, size, type)) {
		free(contents);
		return mc_fail(obj, "out of memory");
	}
	sh->sh_size = size;
	if (d) {
		d->d_buf = contents;
		d->d_size = size;
		d->d_type = type;
	}
	return true;
}

bool mc_section_groups(struct mc_object *obj, size_t *group_of)
{
	for (size_t i = 0; i < obj->n_sections; i++)
		group_of[i] = 0;
	for (size_t g = 1; g < obj->n_sections; g++) {
		struct mc_section *sec = obj->sections[g];
		size_t size;
		const uint8_t *raw;

		if (sec->shdr->sh_type != SHT_GROUP)
			continue;
		raw = mc_section_bytes(obj, sec, &size);
		if (!raw || size % sizeof(Elf32_Word))
			return mc_fail(obj, "%s: corrupt group", sec->name);
		/* Word 0 holds the flags; the members follow (host order). */
		for (size_t j = 1; j < size / sizeof(Elf32_Word); j++) {
			Elf32_Word m;

			memcpy(&m, raw + j * sizeof(m), sizeof(m));
			if (m == 0 || m >= obj->n_sections)
				return mc_fail(obj, "%s: member %u out of range",
					       sec->name, (unsigned)m);
			group_of[m] = g;
		}
	}
	return true;
}

bool mc_object_has_groups(const struct mc_object *obj)
{
	return obj->n_groups != 0;
}

bool mc_group_add(struct mc_object *obj, size_t group, size_t member)
{
	struct mc_section *g = obj->sections[group];
	Elf32_Word m = (Elf32_Word)member;
	GElf_Shdr *sh = mc_section_header_to_change(obj, obj->sections[member]);

	if (!sh ||
	    !section_insert_gap(obj, g, g->buf ? g->buf->size : g->shdr->sh_size,
				sizeof(m)))
		return false;
	memcpy((uint8_t *)g->buf->bytes + g->buf->size - sizeof(m), &m,
	       sizeof(m));
	sh->sh_flags |= SHF_GROUP;
	return true;
}

struct mc_section *mc_add_section(struct mc_object *obj, const char *name,
				  const GElf_Shdr *shdr, void *contents,
				  size_t size, Elf_Type type)
{
	struct mc_section *sec;
	size_t name_off;
	const char *new_name = append_section_name(obj, name, &name_off);

	if (!new_name) {
		free(contents);
		return NULL;
	}

	if (obj->n_sections >= UINT32_MAX) {	/* struct mc_section's index */
		free(contents);
		mc_fail(obj, "too many sections");
		return NULL;
	}
	if (obj->n_sections == obj->sections_cap) {
		size_t cap = grown(obj->sections_cap, obj->sections_cap + 1);
		struct mc_section **secs =
			realloc(obj->sections, cap * sizeof(*secs));

		if (!secs) {
			free(contents);
			mc_fail(obj, "out of memory");
			return NULL;
		}
		obj->sections = secs;
		obj->sections_cap = cap;
	}
	/* A section of its own: every other section stays where it is. */
	sec = malloc(sizeof(*sec));
	GElf_Shdr *sh = malloc(sizeof(*sh));

	if (sec && sh) {
		*sh = *shdr;
		sh->sh_name = (GElf_Word)name_off;
		sh->sh_size = size;
		*sec = (struct mc_section){
			.index = (uint32_t)obj->n_sections,
			.shdr = sh,
			.own_header = true,
			.name = new_name,
		};
	}
	if (!sec || !sh || !mc_section_own(sec, contents, size, size, type)) {
		free(sh);
		free(sec);
		free(contents);
		mc_fail(obj, "out of memory");
		return NULL;
	}
	obj->sections[obj->n_sections++] = sec;
	obj->n_groups += sh->sh_type == SHT_GROUP;
	mc_link_reloc_section(obj, sec);
	return sec;
}

/* The relocation section's header and name, added without a group. */
static struct mc_section *add_reloc_section(struct mc_object *obj,
					    struct mc_section *target,
					    uint32_t rel_type, size_t align,
					    bool in_group, void *relocs,
					    size_t n)
{
	const char *prefix = rel_type == SHT_RELA ? ".rela" : ".rel";
	size_t entsize = mc_reloc_entry_size(obj, rel_type);
	GElf_Shdr hdr = {
		.sh_type = rel_type,
		.sh_flags = SHF_INFO_LINK | (in_group ? SHF_GROUP : 0),
		.sh_link = (GElf_Word)obj->symtab->index,
		.sh_info = (GElf_Word)target->index,
		.sh_addralign = align,
		.sh_entsize = entsize,
	};
	char *name = malloc(strlen(prefix) + strlen(target->name) + 1);
	struct mc_section *rel;

	if (!name) {
		free(relocs);
		mc_fail(obj, "out of memory");
		return NULL;
	}
	strcpy(name, prefix);
	strcat(name, target->name);
	rel = mc_add_section(obj, name, &hdr, relocs, n * entsize,
			     rel_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL);
	free(name);
	return rel;
}

struct mc_section *mc_add_reloc_section(struct mc_object *obj,
					struct mc_section *target,
					uint32_t rel_type, size_t align,
					size_t group, void *relocs, size_t n)
{
	struct mc_section *rel = add_reloc_section(obj, target, rel_type,
						   align, group, relocs, n);

	if (rel && group && !mc_group_add(obj, group, rel->index))
		return NULL;
	return rel;
}

struct mc_section *mc_add_table_section(struct mc_object *obj,
					const struct mc_table_spec *spec,
					void *entries, void *relocs,
					size_t n)
{
	GElf_Shdr hdr = {
		.sh_type = SHT_PROGBITS,
		.sh_flags = spec->flags | (spec->group ? SHF_GROUP : 0),
		.sh_link = (GElf_Word)spec->link,
		.sh_addralign = spec->entsize,
		.sh_entsize = spec->entsize,
	};
	struct mc_section *t = mc_add_section(obj, spec->name, &hdr, entries,
					      n * spec->entsize, ELF_T_BYTE);

	if (!t) {
		free(relocs);
		return NULL;
	}
	struct mc_section *r = add_reloc_section(obj, t, spec->rel_type,
						 spec->entsize, spec->group,
						 relocs, n);

	if (!r || (spec->group && (!mc_group_add(obj, spec->group, t->index) ||
				   !mc_group_add(obj, spec->group, r->index))))
		return NULL;
	r->written_numbering = spec->written_numbering;
	return t;
}
