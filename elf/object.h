/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * object.h - the ELF object model recordmcount works on.
 *
 * An object is read once through libelf's class-independent GElf API
 * into plain arrays (sections, symbols), mutated in memory (patch bytes,
 * change relocations, add a section, add a section symbol), and written
 * once, when the symbols added get their indexes: appended to the input
 * file with its ELF header rewritten last,
 * or (a hard-linked file, a layout that cannot be kept) to a temporary
 * file that replaces the input by rename(2).  Nothing
 * outside elf/ touches raw ELF structures.
 *
 * Errors never print: every function that can fail returns false (or
 * SIZE_MAX / NULL) and leaves a one-line reason in obj->error.
 */
#ifndef MC_ELF_OBJECT_H
#define MC_ELF_OBJECT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * A section's own contents, which replace the input's: a copy made to
 * change them, or an added section's.  Kept apart from struct
 * mc_section, as most sections (a million of them in an object of one
 * section per function) never have any.
 */
struct mc_contents {
	void *bytes;		/* owned */
	size_t size;
	size_t cap;		/* bytes allocated (grows by a quarter) */
	Elf_Type type;		/* libelf type (ELF_T_BYTE, ...) */
};

struct mc_section {
	/*
	 * The section's index, which never changes: sections are added
	 * at the end and none is removed.  32 bits: the header table of
	 * more sections would not fit in a file this tool maps.
	 */
	uint32_t index;
	bool written_numbering;		/* an added REL/RELA section whose
					   symbols are numbered as written
					   (struct mc_table_spec) */
	bool own_header;		/* shdr is the model's (allocated
					   alone, freed with the section) */
	/*
	 * The header, read only.  An input section's is libelf's own
	 * (elf64_getshdr: in an ELF64 object it lies in the mapped file)
	 * rather than a copy of it, 64 bytes a section that an object of a
	 * section per function has two million of; changed only through
	 * mc_section_header_to_change, which gives the section a copy of
	 * its own first (own_header).  Its libelf handle is not kept
	 * either (mc_section_scn).
	 */
	const GElf_Shdr *shdr;
	const char *name;
	struct mc_contents *buf;	/* replacement contents, or NULL */
	/*
	 * Links by index, 0 for none (section 0 is neither), read through
	 * mc_reloc_section_of and mc_section_target: 8 bytes a section
	 * where two pointers took 16, and an object of a section per
	 * function has two million sections.
	 */
	uint32_t reloc;			/* the REL/RELA section that applies
					   to this one (the first, by
					   index) */
	uint32_t target;		/* a REL/RELA section's: the one
					   its sh_info names */
};

struct mc_symbol {
	GElf_Sym sym;
	const char *name;
	size_t shndx;		/* real section index (SHN_XINDEX resolved) */
};

/*
 * A symbol the tool added: a local section symbol or an unnamed label,
 * so no name, no size and no st_other; 8 bytes where a struct
 * mc_symbol takes 40 (an object of one section per function gets a
 * section symbol per function).  Its value, 0 for a section symbol, is
 * kept apart (struct mc_object's added_values), only once a label is
 * added.
 */
struct mc_added_symbol {
	uint32_t shndx;		/* real section index */
	unsigned char info;	/* st_info: binding and type */
};

struct mc_reloc {
	uint64_t offset;
	uint32_t type;
	size_t sym;
	int64_t addend;		/* RELA: the addend; REL: 0 (implicit) */
	/*
	 * MIPS64 packs three types and a special symbol into r_info:
	 * ssym << 24 | type3 << 16 | type2 << 8 here, kept as read.
	 */
	uint32_t mips_extra;
};

struct mc_span;
struct mc_renumbering;
struct mc_added_names;

struct mc_object {
	const char *path;
	int fd;
	Elf *elf;
	/*
	 * The file as libelf mapped it (elf_rawfile) and its size, or
	 * NULL: where the bytes of an unchanged section are found without
	 * asking libelf (mc_section_input_data, elf/internal.h).
	 */
	const uint8_t *image;
	size_t image_size;
	struct stat st;
	GElf_Ehdr ehdr;
	size_t shstrndx;

	/*
	 * Every section by index (sections[0] is the null section).  A
	 * section's handle, the pointer, stays valid as long as the
	 * object: adding a section grows this array of pointers and never
	 * moves a section.
	 */
	struct mc_section **sections;
	size_t n_sections;
	size_t sections_cap;		/* entries allocated */
	struct mc_section *read_sections;	/* the input's, in one block */
	/*
	 * The input's headers as GElf_Shdr where libelf's cannot serve
	 * (an ELF32 object's, or a table not aligned for Elf64_Shdr), in
	 * one block; NULL otherwise.
	 */
	GElf_Shdr *header_copies;
	size_t sections_read;
	/*
	 * SHT_GROUP sections, counted as read and as added: most objects
	 * have none, and that answer must not cost a pass over a million
	 * sections' headers each time it is asked.
	 */
	size_t n_groups;

	struct mc_section *symtab;	/* NULL when the object has none */
	struct mc_section *symtab_shndx;
	/* libelf's data of those two (or NULL), read at open */
	Elf_Data *symtab_data, *symtab_shndx_data;
	/*
	 * Symbols are read through mc_symbol().  The input's are decoded
	 * from the symbol table where they lie (checked once at open)
	 * when it can be read directly; otherwise, or once held (see
	 * mc_object_hold_symbols), they are copies in `symbols`.  A table
	 * of a million symbols is then no 40 MB array beside its bytes.
	 */
	struct mc_symbol *symbols;	/* the input's, or NULL: in place */
	const char *symbol_names;	/* in place: the string table */
	struct mc_added_symbol *added;	/* handles n_input_symbols onwards
					   (see mc_add_section_symbols) */
	uint64_t *added_values;		/* their values, or NULL: all 0 */
	size_t n_symbols;
	size_t n_input_symbols;		/* handles below it: the input's own
					   symbols, at their index */
	size_t first_global;		/* symtab's sh_info as read */
	size_t *funcs, n_funcs;		/* lookup indexes, built on first use */
	size_t *named, n_named;
	struct mc_span *spans;		/* address index, built on first use */
	size_t n_spans, spans_for;	/* ... and n_sections when built */
	/* what the writer renumbers as it goes (elf/internal.h), or NULL */
	struct mc_renumbering *renumbering;
	/*
	 * Section names added while the name table is still the input's,
	 * or NULL: they go after its input bytes as the writer streams it
	 * (elf/internal.h), not into a copy of the table.
	 */
	struct mc_added_names *added_names;
	/*
	 * Memory a caller is done with, given to the writer to plan in
	 * (mc_object_give_scratch), or NULL; freed with the object.
	 */
	void *scratch;
	size_t scratch_size;

	char error[256];
};

/*
 * True if `v`, a size or count an ELF64 file states, survives the
 * conversion to size_t: always on a 64-bit host; on a 32-bit one (i386,
 * arm) a value of 4 GiB or more would wrap, so the caller refuses the
 * file instead.  Written as a round trip, not a comparison with
 * SIZE_MAX, which a 64-bit compiler flags as always false.
 */
static inline bool mc_size_fits(uint64_t v)
{
	return (uint64_t)(size_t)v == v;
}

/*
 * Input symbol k decoded where it lies: the symbol table as libelf
 * holds it, an array of the host's Elf64_Sym or Elf32_Sym (and its
 * SHT_SYMTAB_SHNDX of Elf32_Words), every entry checked at open.
 */
static inline struct mc_symbol mc_symbol_in_place(const struct mc_object *obj,
						  size_t k)
{
	const void *base = obj->symtab_data->d_buf;
	const Elf_Data *x = obj->symtab_shndx_data;
	struct mc_symbol s;

	if (obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64) {
		s.sym = ((const Elf64_Sym *)base)[k];
	} else {
		const Elf32_Sym *e = (const Elf32_Sym *)base + k;

		s.sym = (GElf_Sym){
			.st_name = e->st_name, .st_info = e->st_info,
			.st_other = e->st_other, .st_shndx = e->st_shndx,
			.st_value = e->st_value, .st_size = e->st_size,
		};
	}
	s.name = obj->symbol_names + s.sym.st_name;
	/* SHN_XINDEX without SHT_SYMTAB_SHNDX: index 0, as gelf's */
	s.shndx = s.sym.st_shndx != SHN_XINDEX ? s.sym.st_shndx :
		  x ? ((const Elf32_Word *)x->d_buf)[k] : 0;
	return s;
}

/* Added symbol j (0: the first one added) as any other symbol. */
static inline struct mc_symbol mc_added_symbol(const struct mc_object *obj,
					       size_t j)
{
	const struct mc_added_symbol *a = &obj->added[j];

	return (struct mc_symbol){
		.sym = {
			.st_info = a->info,
			.st_value = obj->added_values ? obj->added_values[j] : 0,
			.st_shndx = a->shndx < SHN_LORESERVE ? a->shndx
							     : SHN_XINDEX,
		},
		.name = "",
		.shndx = a->shndx,
	};
}

/*
 * Symbol `k` (a handle below n_symbols): the input's symbol k, or one
 * added since.  A copy, so valid whatever changes later.
 */
static inline struct mc_symbol mc_symbol(const struct mc_object *obj,
					 size_t k)
{
	if (k >= obj->n_input_symbols)
		return mc_added_symbol(obj, k - obj->n_input_symbols);
	if (obj->symbols)
		return obj->symbols[k];
	return mc_symbol_in_place(obj, k);
}

/* Symbol k's name alone: what most loops over symbols ask. */
static inline const char *mc_symbol_name(const struct mc_object *obj,
					 size_t k)
{
	const void *base;

	if (k >= obj->n_input_symbols || obj->symbols)
		return mc_symbol(obj, k).name;
	base = obj->symtab_data->d_buf;
	return obj->symbol_names +
	       (obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ?
		((const Elf64_Sym *)base)[k].st_name :
		((const Elf32_Sym *)base)[k].st_name);
}

/*
 * Every symbol in obj->symbols, by index, for the questions below and
 * the readers that index the array (--dump, --check, --finalize, which
 * add no symbol): call once, before any symbol is added.
 */
bool mc_object_hold_symbols(struct mc_object *obj);

/* Record a one-line reason in obj->error; always returns false. */
bool mc_fail(struct mc_object *obj, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* libelf version handshake; call once per process. */
bool mc_elf_init(void);

/* Open and validate `path`; on failure obj->error says why. */
bool mc_object_open(struct mc_object *obj, const char *path);
void mc_object_close(struct mc_object *obj);

struct mc_section *mc_section_by_name(struct mc_object *obj,
				      const char *name);

/* Contents of a section as bytes in file order (NULL if NOBITS/empty). */
const uint8_t *mc_section_bytes(const struct mc_object *obj,
				struct mc_section *sec, size_t *size);

/* Replace `n` bytes at `offset` of a PROGBITS section. */
bool mc_section_patch(struct mc_object *obj, struct mc_section *sec,
		      uint64_t offset, const uint8_t *bytes, size_t n);

/*
 * An allocated, non-empty section that holds `addr` (linked images), in
 * logarithmic time; where sections overlap, one of those holding it.
 */
struct mc_section *mc_section_at_address(struct mc_object *obj,
					 uint64_t addr);

/*
 * The function symbol covering code address `value` in section `shndx`
 * (a linked image's symbols hold addresses, an object's hold offsets),
 * preferring a global name over a local alias; NULL when none covers it.
 * `mode_bits` are the bits of a function symbol's value that are no
 * address bits (ARM's Thumb bit: mc_arch.symbol_mode_bits): a function
 * covers the st_size bytes from its value with them cleared.  This and
 * mc_symbol_at answer from obj->symbols (mc_object_hold_symbols).
 */
const struct mc_symbol *mc_function_at(struct mc_object *obj,
				       size_t shndx, uint64_t value,
				       uint64_t mode_bits);

/* A symbol whose value is exactly `value` (any section), or NULL. */
const struct mc_symbol *mc_symbol_at(struct mc_object *obj,
				     uint64_t value);

/*
 * Name of symbol `i` of any symbol table section (.dynsym too: a linked
 * image's dynamic relocations name symbols there), or NULL.
 */
const char *mc_symbol_name_in(struct mc_object *obj,
			      struct mc_section *symtab, size_t i);

/*
 * The value of dynamic tag `tag`: the first entry of a linked image's
 * SHT_DYNAMIC section with that d_tag before DT_NULL; false if none.
 */
bool mc_dynamic_value(struct mc_object *obj, int64_t tag, uint64_t *value);

/* Index of a symbol called `name`, or SIZE_MAX. */
size_t mc_symbol_by_name(const struct mc_object *obj, const char *name);

/* The relocation section that applies to section `target`, or NULL. */
struct mc_section *mc_reloc_section_of(struct mc_object *obj, size_t target);

/* The section relocation section `rel` applies to, or NULL. */
struct mc_section *mc_section_target(const struct mc_object *obj,
				     const struct mc_section *rel);

/*
 * Whether the section is the input's (not added in memory: those come
 * after every input section), and its libelf handle, or NULL for one
 * added in memory.  Asked of libelf, not kept: it
 * answers at once, from its array of them, and a copy would cost every
 * section 8 bytes.
 */
static inline bool mc_section_is_input(const struct mc_object *obj,
				       const struct mc_section *sec)
{
	return sec->index < obj->sections_read;
}

static inline Elf_Scn *mc_section_scn(const struct mc_object *obj,
				      const struct mc_section *sec)
{
	return mc_section_is_input(obj, sec) ?
	       elf_getscn(obj->elf, sec->index) : NULL;
}
/*
 * qsort_r comparator for an array of symbol indexes (ctx: the object):
 * by st_value, then by index, so equal addresses keep a stable order.
 */
int mc_symbol_index_by_value(const void *a, const void *b, void *ctx);

/* Relocation sections: count and entries (RELA or REL alike). */
bool mc_is_reloc_section(const struct mc_section *sec);
size_t mc_reloc_count(const struct mc_section *sec);
bool mc_reloc_get(struct mc_object *obj, struct mc_section *sec, size_t i,
		  struct mc_reloc *out);
bool mc_reloc_set(struct mc_object *obj, struct mc_section *sec, size_t i,
		  const struct mc_reloc *r);

/*
 * A relocation table read (and written) in place: libelf's memory form
 * of REL/RELA data is an array of ElfNN_Rel(a) in host order, which
 * gelf_get/update_rel(a) copy field by field after the same checks
 * (the data's type, the index inside it).  Entries 0..n-1 are read and
 * written directly; every other entry, and every one of a table this
 * cannot read (MIPS64's r_info, data libelf would refuse), through
 * mc_reloc_get/mc_reloc_set, which fail as before.
 */
enum mc_reloc_kind { MC_REL32, MC_RELA32, MC_REL64, MC_RELA64 };

struct mc_reloc_table {
	uint8_t *p;
	size_t n;		/* 0: every entry through mc_reloc_get */
	enum mc_reloc_kind kind;
};

/* The table of `sec` as libelf holds it now (a later write may move it). */
void mc_reloc_table_open(struct mc_object *obj, struct mc_section *sec,
			 struct mc_reloc_table *t);

/*
 * The same over `buf`, n relocations of type sh_type (SHT_RELA/SHT_REL)
 * in this object's kind, built in memory; n is 0 where mc_reloc_table_put
 * cannot encode them (MIPS64): mc_reloc_store does.
 */
void mc_reloc_table_over(const struct mc_object *obj, uint32_t sh_type,
			 void *buf, size_t n, struct mc_reloc_table *t);

static inline void mc_reloc_table_get(const struct mc_reloc_table *t,
				      size_t i, struct mc_reloc *out)
{
	out->mips_extra = 0;
	switch (t->kind) {
	case MC_RELA64: {
		const Elf64_Rela *r = (const Elf64_Rela *)t->p + i;

		out->offset = r->r_offset;
		out->sym = ELF64_R_SYM(r->r_info);
		out->type = (uint32_t)ELF64_R_TYPE(r->r_info);
		out->addend = r->r_addend;
		break;
	}
	case MC_REL64: {
		const Elf64_Rel *r = (const Elf64_Rel *)t->p + i;

		out->offset = r->r_offset;
		out->sym = ELF64_R_SYM(r->r_info);
		out->type = (uint32_t)ELF64_R_TYPE(r->r_info);
		out->addend = 0;
		break;
	}
	case MC_RELA32: {
		const Elf32_Rela *r = (const Elf32_Rela *)t->p + i;

		out->offset = r->r_offset;
		out->sym = ELF32_R_SYM(r->r_info);
		out->type = ELF32_R_TYPE(r->r_info);
		out->addend = r->r_addend;
		break;
	}
	case MC_REL32: {
		const Elf32_Rel *r = (const Elf32_Rel *)t->p + i;

		out->offset = r->r_offset;
		out->sym = ELF32_R_SYM(r->r_info);
		out->type = ELF32_R_TYPE(r->r_info);
		out->addend = 0;
		break;
	}
	}
}

/*
 * Store entry i < t->n as gelf_update_rel(a) would; false, with nothing
 * stored, where it would refuse the values (ELF32's narrower fields).
 * The table must be the section's writable copy.
 */
static inline bool mc_reloc_table_put(const struct mc_reloc_table *t,
				      size_t i, const struct mc_reloc *r)
{
	GElf_Xword info = GELF_R_INFO(r->sym, r->type);

	switch (t->kind) {
	case MC_RELA64:
		((Elf64_Rela *)t->p)[i] = (Elf64_Rela){ r->offset, info,
							r->addend };
		return true;
	case MC_REL64:
		((Elf64_Rel *)t->p)[i] = (Elf64_Rel){ r->offset, info };
		return true;
	default:
		break;
	}
	if (r->offset > 0xffffffffull || GELF_R_SYM(info) > 0xffffff ||
	    GELF_R_TYPE(info) > 0xff)
		return false;
	Elf32_Word info32 = ELF32_R_INFO(GELF_R_SYM(info), GELF_R_TYPE(info));
	if (t->kind == MC_REL32) {
		((Elf32_Rel *)t->p)[i] = (Elf32_Rel){ (Elf32_Addr)r->offset,
						      info32 };
		return true;
	}
	if (r->addend < -0x80000000ll || r->addend > 0x7fffffffll)
		return false;
	((Elf32_Rela *)t->p)[i] = (Elf32_Rela){ (Elf32_Addr)r->offset, info32,
						(Elf32_Sword)r->addend };
	return true;
}

/*
 * Give symbol k the binding `bind` (STB_WEAK, ...), in the model and in
 * the symbol table, keeping its type.  Its index does not change.
 */
bool mc_symbol_set_binding(struct mc_object *obj, size_t k,
			   unsigned char bind);

/*
 * Add n STT_SECTION symbols, for sections shndx[0..n), among the
 * locals.  Returns the first one's handle (the others follow it, in the
 * order given) or SIZE_MAX.  A symbol's handle is its index in
 * obj->symbols and what relocations in the model refer to it by; the
 * input's symbols keep theirs.  The indexes written are assigned when
 * the object is written (the added ones right after the input's
 * locals, the input's globals moved up by as many), so adding a symbol
 * renumbers nothing, whenever it is done.
 */
size_t mc_add_section_symbols(struct mc_object *obj, const size_t *shndx,
			      size_t n);

/*
 * The same, but unnamed STT_NOTYPE local labels at offset value[j] of
 * section shndx[j]: anchors that move with the code when the linker
 * relaxes it (see mc_arch.anchor_at_site).
 */
size_t mc_add_label_symbols(struct mc_object *obj, const size_t *shndx,
			    const uint64_t *value, size_t n);

/*
 * Append a section whose contents are `size` bytes of libelf type `type`
 * at `contents` (taken over: freed with the object).  Returns the new
 * section or NULL.
 */
struct mc_section *mc_add_section(struct mc_object *obj, const char *name,
				  const GElf_Shdr *shdr, void *contents,
				  size_t size, Elf_Type type);

/*
 * Add a relocation section for section `target`, named as the
 * assembler names one (".rela" or ".rel" and the target's name),
 * holding the `n` relocations at `relocs` (taken over; NULL when n is
 * 0) against the symbol table, aligned to `align`, and a member of the
 * SHT_GROUP section `group` unless that is 0.  NULL on failure.
 */
struct mc_section *mc_add_reloc_section(struct mc_object *obj,
					struct mc_section *target,
					uint32_t rel_type, size_t align,
					size_t group, void *relocs, size_t n);

/* What mc_add_table_section makes, besides its entries. */
struct mc_table_spec {
	const char *name;
	GElf_Xword flags;	/* SHF_ALLOC and what else the table needs */
	size_t link;		/* sh_link (with SHF_LINK_ORDER), or 0 */
	size_t entsize;		/* one entry: its size and the alignment
				   of both sections */
	uint32_t rel_type;	/* SHT_RELA or SHT_REL */
	size_t group;		/* SHT_GROUP section both join, or 0 */
	/*
	 * The relocations name their symbols by the index they are
	 * written with, not by handle: an input's local keeps its index,
	 * the symbol added j-th is first_global + j.  mc_number_symbols
	 * then leaves them as they are, and nothing may read them as
	 * handles (the table is added last, just before the write).
	 */
	bool written_numbering;
};

/*
 * Add a table of `n` entries at `entries` (SHT_PROGBITS) with the
 * relocation section that fills them, `n` relocations at `relocs`
 * (mc_add_reloc_section's form): both taken over, freed with the
 * object.  Both join the spec's group, the table first.  Returns the
 * table, or NULL.
 */
struct mc_section *mc_add_table_section(struct mc_object *obj,
					const struct mc_table_spec *spec,
					void *entries, void *relocs,
					size_t n);

/* Give a section a new name (appended to the section name table). */
bool mc_section_rename(struct mc_object *obj, struct mc_section *sec,
		       const char *name);

/*
 * Replace a section's contents with `size` bytes of libelf type `type`
 * (taken over: freed with the object).
 */
bool mc_section_set_contents(struct mc_object *obj, struct mc_section *sec,
			     void *contents, size_t size, Elf_Type type);

/*
 * group_of[i] := index of the SHT_GROUP section that has section i as a
 * member, or 0; the array has n_sections entries.
 */
bool mc_section_groups(struct mc_object *obj, size_t *group_of);

/*
 * True if some section is an SHT_GROUP: else every group_of[] entry
 * would be 0, and a caller can do without the array (a word a section).
 */
bool mc_object_has_groups(const struct mc_object *obj);

/* Make section `member` a member of the group section `group`. */
bool mc_group_add(struct mc_object *obj, size_t group, size_t member);

/* Byte size of one relocation of the kind in `sh_type` in this object. */
size_t mc_reloc_entry_size(const struct mc_object *obj, uint32_t sh_type);

/* Fill entry `i` of an in-memory relocation buffer of this object. */
void mc_reloc_store(const struct mc_object *obj, uint32_t sh_type,
		    void *buf, size_t i, const struct mc_reloc *r);

/* Write an address-sized value in the object's byte order. */
void mc_store_address(const struct mc_object *obj, uint8_t *p, uint64_t v);

/* Read an address-sized value in the object's byte order. */
uint64_t mc_load_address(const struct mc_object *obj, const uint8_t *p);

/*
 * Write the model over the input: appended to it, its ELF header
 * rewritten last, or (a file with a second name, a layout that cannot be
 * kept) through a temporary file beside it renamed over it.  Unless this
 * returns true the file's bytes are as they were.  Either way the model
 * is then only for mc_object_close: the symbol table and relocations
 * are written renumbered (as they stream out, where they can), while
 * obj->symbols stays in handles.
 */
bool mc_object_write(struct mc_object *obj);

/*
 * Hand the model `size` bytes of malloc'd memory the caller no longer
 * needs (NULL: none), for the writer to plan in before it allocates
 * more: memory already touched costs no page faults again, where a
 * block freed and another allocated can be fresh pages (glibc maps and
 * unmaps large blocks).  The object frees it.
 */
void mc_object_give_scratch(struct mc_object *obj, void *mem, size_t size);

/*
 * The same for a linked image, whose layout must not move: a copy of the
 * input with each changed section's new contents (of unchanged size)
 * over its old bytes.  Only mc_section_patch and mc_reloc_set changes.
 */
bool mc_object_write_in_place(struct mc_object *obj);

/*
 * Delete the temporary file a write in progress has created, if any.
 * Async-signal-safe: for a SIGINT/SIGTERM handler, so an interrupted
 * build leaves no stray files beside its objects.
 */
void mc_remove_pending_output(void);

#endif
