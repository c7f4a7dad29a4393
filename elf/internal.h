/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * internal.h - what the files of the object model share and nothing
 * outside elf/ may call.
 */
#ifndef MC_ELF_INTERNAL_H
#define MC_ELF_INTERNAL_H

#include "object.h"

/* mc_fail with libelf's last error after `what`; always false. */
bool mc_fail_elf(struct mc_object *obj, const char *what);

/*
 * The section's data as libelf holds it (read on first use), or NULL.
 * Asked of libelf each time, not kept in struct mc_section: libelf
 * keeps it, and a copy would cost every section 8 bytes.
 */
Elf_Data *mc_section_data(const struct mc_object *obj,
			  const struct mc_section *sec);

/*
 * An unchanged input section's bytes as elf_getdata would give them
 * (d_buf, d_size, d_type), found in the mapped file without asking
 * libelf; false where that is not sure to be libelf's answer, and the
 * caller asks libelf (mc_section_data).  Only for code and relocation
 * sections: the ones an object of a section per function has a
 * million of, each asked for once or twice.
 */
struct mc_input_data {
	const uint8_t *buf;	/* NULL when size is 0, as libelf's */
	size_t size;
	Elf_Type type;
};

bool mc_section_input_data(const struct mc_object *obj,
			   const struct mc_section *sec,
			   struct mc_input_data *in);

/*
 * The section's data as libelf holds it now: read directly where
 * mc_section_input_data can, else libelf's (mc_section_data); false
 * when libelf has none (a section added in memory, or unreadable).
 */
bool mc_section_view(const struct mc_object *obj,
		     const struct mc_section *sec, struct mc_input_data *in);

/*
 * Make `bytes` (`size` of them in `cap` allocated, of libelf type
 * `type`, owned from now on) the section's contents, freeing those it
 * had; false, with nothing taken or freed, when out of memory.
 */
bool mc_section_own(struct mc_section *sec, void *bytes, size_t size,
		    size_t cap, Elf_Type type);

/*
 * Make `buf` (d->d_size bytes) the section's contents, as
 * mc_section_own, and libelf's data `d` show them.
 */
bool mc_section_take_buffer(struct mc_section *sec, Elf_Data *d, void *buf);

/*
 * The section's header, to be changed: its own copy, made on the first
 * call (the one it has is libelf's, which must stay as read: libelf
 * reads its data by it); NULL, with the error set, when out of memory.
 */
GElf_Shdr *mc_section_header_to_change(struct mc_object *obj,
				       struct mc_section *sec);

/* Give the section a private, writable copy of its contents. */
bool mc_section_make_writable(struct mc_object *obj, struct mc_section *sec);

/*
 * Link a relocation section and its target (the target's first one,
 * by index, is its relocation section).
 */
void mc_link_reloc_section(struct mc_object *obj, struct mc_section *rel);

/* This host's byte order, as ELF's EI_DATA says it. */
static inline unsigned mc_host_byte_order(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
							 : ELFDATA2MSB;
}

/* The file's byte order is this host's: libelf's data is its bytes. */
static inline bool mc_in_host_order(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_DATA] == mc_host_byte_order();
}

/* r_info (as gelf gives it) to a relocation's fields. */
void mc_info_decode(const struct mc_object *obj, GElf_Xword info,
		    struct mc_reloc *r);

/*
 * How symbol handles become the indexes written: the input's locals
 * keep theirs, the symbols added (handles from n_in on) follow them,
 * and the input's globals move up by the number added.
 */
struct mc_numbering {
	size_t k;	/* the input's first global */
	size_t n_in;	/* symbols as read */
	size_t n;	/* symbols added */
};

static inline size_t mc_written_index(const struct mc_numbering *m,
				      size_t sym)
{
	if (sym < m->k)
		return sym;
	/* past every symbol (a corrupt input's): moved up, as the rest */
	if (sym < m->n_in || sym - m->n_in >= m->n)
		return sym + m->n;
	return m->k + (sym - m->n_in);
}

/*
 * Copy `count` relocations of `kind` from `src` to `dst` (which may be
 * `src`) with the symbol field of each r_info in the written numbering,
 * the rest of every entry as it is; both in the host's byte order.
 */
void mc_renumber_relocs(enum mc_reloc_kind kind, const void *src, void *dst,
			size_t count, const struct mc_numbering *m);

/*
 * How a section of the input is written when mc_number_symbols left
 * its renumbering to the writer (struct mc_renumbering).
 */
enum mc_renumber_how {
	MC_AS_IT_IS,		/* nothing left to do: its data or buf */
	MC_SPLICED,		/* symbol table or its SHT_SYMTAB_SHNDX:
				   the input's [0, k), the added, [k, ...) */
	MC_RENUMBERED,		/* relocations, some r_info changes */
	MC_RENUMBERED_SAME,	/* relocations that name no symbol that
				   moves: out as they are, but laid out as
				   a copy (the copy's alignment) */
	MC_NAMES_ADDED,		/* the section name table: the input's,
				   then obj->added_names (a writer's
				   out_data only, never in `how`) */
};

/*
 * The renumbering a writer does as it streams, instead of copies of
 * the symbol table and of every relocation section that names it.
 * Only made where the bytes can go out as the input has them (the
 * host's byte order, libelf's data unconverted): elsewhere the copies
 * are made as before.
 */
struct mc_renumbering {
	struct mc_numbering m;
	unsigned char *how;	/* enum mc_renumber_how, by section index */
	size_t n_how;		/* the sections when it was made */
};

/* One symbol table entry in the file's class. */
union mc_file_sym {
	Elf64_Sym e64;
	Elf32_Sym e32;
};

/*
 * Added symbols j .. j+k-1 in the file's form (host order), at `dst`:
 * their symbol table entries, or with `shndx` their SHT_SYMTAB_SHNDX
 * words, as gelf_update_symshndx would store them.  Made as the
 * symbol table is written (MC_SPLICED), instead of held: 24 bytes a
 * symbol, and an object of one section per function adds a million.
 */
void mc_added_symbols_out(const struct mc_object *obj, size_t j, size_t k,
			  bool shndx, void *dst);

/*
 * Give the symbols added since the read their indexes, after the
 * input's locals, and renumber every reference to the input's globals:
 * done once, by the writers, before anything is written.  Where it can,
 * it leaves the symbol table and the relocation sections of the input
 * to be renumbered as they are written (obj->renumbering).  The model
 * serves nothing but mc_object_close afterwards: its symbol array
 * stays in handles, its tables are in the written numbering.
 */
bool mc_number_symbols(struct mc_object *obj);

/*
 * What mc_number_symbols left to the writer, done now in copies of the
 * sections (sec->buf), as for a writer that cannot stream it (libelf's,
 * the in-place one).
 */
bool mc_apply_renumbering(struct mc_object *obj);

/* Free obj->renumbering (mc_object_close). */
void mc_renumbering_free(struct mc_object *obj);

/*
 * Names added to the section name table, kept apart from it: a copy
 * of the whole table to append two names would be 19 MB in an object
 * of two million sections, and every section's name would have to be
 * pointed into it.  The table as written is its input bytes, then
 * these names in order (MC_NAMES_ADDED); the model's header of the
 * table keeps the input's size.  Only where the writer can take the
 * table's bytes from the mapped file (names_kept_apart, edit.c); a
 * writer that cannot stream it has them folded into a copy first.
 */
struct mc_added_names {
	size_t input_size;	/* the table's as read: the first's offset */
	size_t size;		/* the bytes of all of them, NULs included */
	char **names;		/* each allocated alone: a name's pointer
				   (sec->name) never moves */
	size_t n, cap;
};

/*
 * The added names put into a copy of the table (sec->buf) and every
 * section's name pointed into it, as for a writer that cannot splice
 * them (libelf's, the in-place one); true if there were none.
 */
bool mc_fold_added_names(struct mc_object *obj);

/* Free obj->added_names (mc_object_close). */
void mc_added_names_free(struct mc_object *obj);

/* How `sec` is written (enum mc_renumber_how). */
static inline enum mc_renumber_how mc_renumber_how_of(
	const struct mc_object *obj, const struct mc_section *sec)
{
	const struct mc_renumbering *r = obj->renumbering;

	return r && sec->index < r->n_how ? (enum mc_renumber_how)r->how[sec->index]
					  : MC_AS_IT_IS;
}

#endif
