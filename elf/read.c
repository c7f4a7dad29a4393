/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * read.c - reading one ELF object through libelf, and the questions
 * asked of it (sections by name or address, functions and symbols at a
 * place).
 *
 * The input is mapped private (ELF_C_READ_MMAP_PRIVATE), and only
 * read: a section that is changed gets a copy of its contents of its
 * own (mc_section_make_writable), so no page of the mapping is ever
 * written, and every one stays the file's.  A private mapping lets
 * libelf use the section header table where it lies (in the host's
 * byte order); with a read-only one (ELF_C_READ_MMAP) libelf copies
 * the whole table, 64 bytes a section on top of the mapped ones: 128
 * MB more for an object of a million functions each in its own
 * section.  (A read-only mapping of our own given to elf_memory reads
 * in place too, but libelf then has no file descriptor, and it reads
 * section 0's header with pread for a file not in the host's byte
 * order past 65280 sections.)  The other parts of the model,
 * from the bottom up: fail.c (the error kept for the caller),
 * section.c (a section's contents), validate.c (the input's numbers
 * checked), reloc.c (the relocation codec), edit.c (changes: bytes,
 * symbols, names, groups, new sections) and write.c (the object
 * written back).  object.h is the model's interface to all of them;
 * each file calls only those below it.
 */
#define _GNU_SOURCE
#include "object.h"
#include "internal.h"
#include "validate.h"
#include "../arch/search.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool mc_elf_init(void)
{
	return elf_version(EV_CURRENT) != EV_NONE;
}

struct mc_section *mc_reloc_section_of(struct mc_object *obj, size_t target)
{
	uint32_t rel = target < obj->n_sections ? obj->sections[target]->reloc
						: 0;

	return rel ? obj->sections[rel] : NULL;
}

struct mc_section *mc_section_target(const struct mc_object *obj,
				     const struct mc_section *rel)
{
	return rel->target ? obj->sections[rel->target] : NULL;
}

/*
 * A string table read directly: what elf_strptr() answers for every
 * offset, found once per table instead of once per name.  elf_strptr
 * gives a name at `off` when the section is SHT_STRTAB, `off` is inside
 * it and a NUL follows at or after `off` within it; `last_nul` is the
 * last NUL's position (SIZE_MAX: none).  bytes is NULL when the table
 * cannot be read this way (compressed, or data that is not its bytes),
 * and every name goes through elf_strptr as before.
 */
struct strtab {
	const char *bytes;
	size_t size, last_nul;
};

static void strtab_open(struct mc_object *obj, size_t index, struct strtab *t)
{
	struct mc_section *sec = index < obj->n_sections ?
				 obj->sections[index] : NULL;
	Elf_Data *d;

	t->bytes = NULL;
	if (!sec || sec->shdr->sh_type != SHT_STRTAB ||
	    (sec->shdr->sh_flags & SHF_COMPRESSED) ||
	    !mc_size_fits(sec->shdr->sh_size) || !(d = mc_section_data(obj, sec)) ||
	    !d->d_buf || d->d_type != ELF_T_BYTE || d->d_off != 0 ||
	    d->d_size != sec->shdr->sh_size ||
	    elf_getdata(mc_section_scn(obj, sec), d) != NULL)
		return;
	const char *nul = memrchr(d->d_buf, '\0', d->d_size);
	t->bytes = d->d_buf;
	t->size = d->d_size;
	t->last_nul = nul ? (size_t)(nul - t->bytes) : SIZE_MAX;
}

static const char *strtab_name(struct mc_object *obj, const struct strtab *t,
			       size_t index, size_t off)
{
	if (!t->bytes)
		return elf_strptr(obj->elf, index, off);
	if (off >= t->size || t->last_nul == SIZE_MAX || off > t->last_nul)
		return NULL;
	return t->bytes + off;
}

/*
 * Whether libelf's own section headers can be the model's: ELF64 ones
 * (libelf holds them in the host's byte order, where they lie in the
 * mapped file when they are in it already) at an address aligned for
 * them, which libelf does not promise on hosts that read unaligned.
 */
static bool headers_in_place(Elf *elf)
{
	Elf_Scn *scn = elf_getscn(elf, 0);
	const Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;

	return sh && (uintptr_t)sh % _Alignof(GElf_Shdr) == 0;
}

/* Section i's header for the model: libelf's, or a copy (see above). */
static const GElf_Shdr *input_header(struct mc_object *obj, Elf_Scn *scn,
				     size_t i)
{
	if (!obj->header_copies)
		return elf64_getshdr(scn);
	return gelf_getshdr(scn, &obj->header_copies[i]);
}

/*
 * What read_symbols looks for among the sections, counted while they
 * are read: each further pass over an object of two million sections
 * reads two million cold headers.
 */
struct census {
	struct mc_section *symtab;	/* the first SHT_SYMTAB, or NULL */
	size_t n_symtabs;
	size_t n_symtab_shndx;		/* SHT_SYMTAB_SHNDX sections */
};

static void count_section(struct census *c, struct mc_section *sec)
{
	switch (sec->shdr->sh_type) {
	case SHT_SYMTAB:
		if (!c->n_symtabs++)
			c->symtab = sec;
		break;
	case SHT_SYMTAB_SHNDX:
		c->n_symtab_shndx++;
		break;
	default:
		break;
	}
}

static bool read_sections(struct mc_object *obj, struct census *c)
{
	size_t n;

	if (!mc_check_header_tables(obj, &n))
		return false;
	if (elf_getshdrstrndx(obj->elf, &obj->shstrndx) != 0)
		return mc_fail_elf(obj, "cannot find section name table");
	if (n > UINT32_MAX)	/* struct mc_section's index */
		return mc_fail(obj, "%zu sections: too many", n);
	if (obj->shstrndx >= n)
		return mc_fail(obj, "section name table index %zu out of range",
			    obj->shstrndx);
	/* Not calloc: zeroing the array first would be a second pass. */
	obj->read_sections = malloc(n * sizeof(*obj->read_sections));
	/* Room for what a recording adds (a table and its relocations). */
	obj->sections_cap = n + 8;
	obj->sections = malloc(obj->sections_cap * sizeof(*obj->sections));
	if (!obj->sections || !obj->read_sections)
		return mc_fail(obj, "out of memory");
	if (!headers_in_place(obj->elf) &&
	    !(obj->header_copies = malloc(n * sizeof(*obj->header_copies))))
		return mc_fail(obj, "out of memory");

	struct mc_layout_check layout;

	mc_layout_check_start(obj, &layout);
	for (size_t i = 0; i < n; i++) {
		struct mc_section *sec = &obj->read_sections[i];

		obj->sections[i] = sec;
		*sec = (struct mc_section){ .index = (uint32_t)i };
		obj->n_sections = obj->sections_read = i + 1;	/* what close frees */
		Elf_Scn *scn = elf_getscn(obj->elf, i);

		if (!scn || !(sec->shdr = input_header(obj, scn, i)))
			return mc_fail_elf(obj, "corrupt section header");
		if (!mc_check_section(obj, i, sec->shdr, n))
			return false;
		obj->n_groups += sec->shdr->sh_type == SHT_GROUP;
		if (i) {
			count_section(c, sec);
			mc_layout_check_add(&layout, i,
					    sec->shdr->sh_addralign);
		}
	}
	struct strtab names;

	strtab_open(obj, obj->shstrndx, &names);
	obj->sections[0]->name = "";
	/* Names and links in one pass: every section is there to link to. */
	for (size_t i = 1; i < n; i++) {
		struct mc_section *sec = obj->sections[i];

		sec->name = strtab_name(obj, &names, obj->shstrndx,
					sec->shdr->sh_name);
		if (!sec->name)
			return mc_fail(obj, "section %zu: name out of range", i);
		mc_link_reloc_section(obj, sec);
	}
	return mc_layout_check_end(obj, &layout);
}

/*
 * Symbols read in place: a table libelf holds as an array of the host's
 * Elf64_Sym or Elf32_Sym (with its SHT_SYMTAB_SHNDX as Elf32_Words),
 * names in a string table read directly.  Each symbol is decoded from
 * there when asked for, after every one was checked once at open.
 */
static bool symbols_in_place(const struct mc_object *obj)
{
	return !obj->symbols && obj->symbol_names;
}

static bool class64(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
}

/* The checks of every symbol, with the messages, however it is read. */
static bool check_symbol(struct mc_object *obj, size_t i,
			 const struct mc_symbol *s)
{
	if (!s->name)
		return mc_fail(obj, "symbol %zu: name out of range", i);
	if (s->shndx >= obj->n_sections && s->sym.st_shndx < SHN_LORESERVE)
		return mc_fail(obj, "symbol %s: section index %zu out of "
			       "range", s->name, s->shndx);
	return true;
}

/* The same for the usual table, ELF64 with no SHT_SYMTAB_SHNDX, faster. */
static bool check_symbols64(struct mc_object *obj, const Elf64_Sym *e,
			    const struct strtab *strs)
{
	for (size_t i = 0; i < obj->n_symbols; i++) {
		/* SHN_XINDEX without SHT_SYMTAB_SHNDX: index 0, as gelf's */
		size_t shndx = e[i].st_shndx == SHN_XINDEX ? 0 : e[i].st_shndx;

		/* last_nul < size: strtab_name's two bounds in one */
		if (e[i].st_name > strs->last_nul ||
		    (shndx >= obj->n_sections &&
		     e[i].st_shndx < SHN_LORESERVE)) {
			struct mc_symbol s = mc_symbol_in_place(obj, i);

			if (e[i].st_name > strs->last_nul)
				s.name = NULL;
			return check_symbol(obj, i, &s);
		}
	}
	return true;
}

/*
 * Check every symbol where it lies: a name inside the string table
 * (its last NUL ends every one of them), a section that exists.
 */
static bool check_symbols_in_place(struct mc_object *obj,
				   const struct strtab *strs)
{
	obj->symbol_names = strs->bytes;
	if (class64(obj) && !obj->symtab_shndx)
		return check_symbols64(obj, obj->symtab_data->d_buf, strs);
	for (size_t i = 0; i < obj->n_symbols; i++) {
		struct mc_symbol s = mc_symbol_in_place(obj, i);

		/* last_nul < size: strtab_name's two bounds in one */
		if (s.sym.st_name > strs->last_nul)
			s.name = NULL;
		if (!check_symbol(obj, i, &s))
			return false;
	}
	return true;
}

/* Every symbol through libelf, into obj->symbols. */
static bool copy_symbols(struct mc_object *obj, Elf_Data *d, Elf_Data *xd,
			 const struct strtab *strs)
{
	/* Every field of every entry is set below. */
	obj->symbols = malloc((obj->n_symbols + 1) * sizeof(*obj->symbols));
	if (!obj->symbols)
		return mc_fail(obj, "out of memory");
	for (size_t i = 0; i < obj->n_symbols; i++) {
		struct mc_symbol *s = &obj->symbols[i];
		Elf32_Word xndx = 0;

		if (!gelf_getsymshndx(d, xd, (int)i, &s->sym, &xndx))
			return mc_fail_elf(obj, "corrupt symbol table");
		s->name = strtab_name(obj, strs, obj->symtab->shdr->sh_link,
				      s->sym.st_name);
		s->shndx = s->sym.st_shndx == SHN_XINDEX ? xndx
							 : s->sym.st_shndx;
		if (!check_symbol(obj, i, s))
			return false;
	}
	return true;
}

static bool read_symbols(struct mc_object *obj, const struct census *c)
{
	struct mc_section *symtab = c->symtab;

	if (c->n_symtabs > 1)
		return mc_fail(obj, "more than one symbol table");
	if (!symtab)
		return true;
	for (size_t i = 1; c->n_symtab_shndx && i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->shdr->sh_type == SHT_SYMTAB_SHNDX &&
		    sec->shdr->sh_link == symtab->index)
			obj->symtab_shndx = sec;
	}

	size_t entsize = gelf_fsize(obj->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (symtab->shdr->sh_entsize != entsize)
		return mc_fail(obj, "symbol table entry size %llu, expected %zu",
			    (unsigned long long)symtab->shdr->sh_entsize,
			    entsize);
	Elf_Data *d = mc_section_data(obj, symtab);
	Elf_Data *xd = obj->symtab_shndx ? mc_section_data(obj, obj->symtab_shndx)
					 : NULL;
	if (!d)
		return mc_fail_elf(obj, "cannot read symbol table");
	obj->symtab = symtab;
	obj->symtab_data = d;
	obj->symtab_shndx_data = xd;
	obj->n_symbols = symtab->shdr->sh_size / entsize;
	obj->n_input_symbols = obj->n_symbols;
	obj->first_global = symtab->shdr->sh_info;
	if (obj->first_global > obj->n_symbols)
		return mc_fail(obj, "symbol table sh_info %zu beyond %zu symbols",
			    obj->first_global, obj->n_symbols);
	if (obj->symtab_shndx &&
	    obj->symtab_shndx->shdr->sh_size / sizeof(Elf32_Word) <
		    obj->n_symbols)
		return mc_fail(obj, "section %zu: fewer extended section "
			    "indexes than symbols",
			    (size_t)obj->symtab_shndx->index);
	for (size_t i = 1; obj->n_groups && i < obj->n_sections; i++) {
		const GElf_Shdr *sh = obj->sections[i]->shdr;

		if (sh->sh_type == SHT_GROUP && sh->sh_link == symtab->index &&
		    sh->sh_info >= obj->n_symbols)
			return mc_fail(obj, "section %zu: group signature "
				    "symbol %u out of range", i,
				    (unsigned)sh->sh_info);
	}

	struct strtab strs;
	size_t symsize = class64(obj) ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	/* What gelf_getsymshndx checks for each symbol, checked once. */
	bool direct = d->d_buf && d->d_type == ELF_T_SYM &&
		      obj->n_symbols <= (size_t)INT_MAX &&
		      d->d_size / symsize >= obj->n_symbols &&
		      (!xd || (xd->d_buf &&
			       xd->d_size / sizeof(Elf32_Word) >=
				       obj->n_symbols));

	strtab_open(obj, symtab->shdr->sh_link, &strs);
	if (direct && strs.bytes && strs.last_nul != SIZE_MAX)
		return check_symbols_in_place(obj, &strs);
	return copy_symbols(obj, d, xd, &strs);
}

static bool read_whole(struct mc_object *obj)
{
	if (elf_kind(obj->elf) != ELF_K_ELF)
		return mc_fail(obj, "not an ELF file");
	if (!gelf_getehdr(obj->elf, &obj->ehdr))
		return mc_fail_elf(obj, "corrupt ELF header");
	struct census c = { 0 };

	return read_sections(obj, &c) && read_symbols(obj, &c);
}

/*
 * Why open(2) or fstat(2) failed.  On a 32-bit host whose off_t is 32
 * bits (i386 without _FILE_OFFSET_BITS=64) a file of 2 GiB or more
 * cannot be opened at all: say that, not strerror's "Value too large
 * for defined data type".
 */
static bool fail_open(struct mc_object *obj)
{
	if (errno == EOVERFLOW)
		return mc_fail(obj, "2 GiB or larger: more than this host can "
			       "open (%zu-bit off_t)", sizeof(off_t) * 8);
	return mc_fail(obj, "%s", strerror(errno));
}

bool mc_object_open(struct mc_object *obj, const char *path)
{
	memset(obj, 0, sizeof(*obj));
	obj->path = path;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	obj->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (obj->fd < 0 || fstat(obj->fd, &obj->st) != 0)
		return fail_open(obj);
	if (!S_ISREG(obj->st.st_mode))
		return mc_fail(obj, "not a regular file");
	if (!mc_check_ident(obj))
		return false;
	obj->elf = elf_begin(obj->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!obj->elf)
		return mc_fail_elf(obj, "cannot read");
	obj->image = (const uint8_t *)elf_rawfile(obj->elf, &obj->image_size);
	return read_whole(obj);
}

void mc_object_close(struct mc_object *obj)
{
	for (size_t i = 0; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->buf)
			free(sec->buf->bytes);
		free(sec->buf);
		if (sec->own_header)
			free((GElf_Shdr *)sec->shdr);
		if (sec < obj->read_sections ||
		    sec >= obj->read_sections + obj->sections_read)
			free(sec);	/* added: allocated alone */
	}
	free(obj->read_sections);
	free(obj->header_copies);
	free(obj->sections);
	free(obj->symbols);
	free(obj->added);
	free(obj->added_values);
	free(obj->funcs);
	free(obj->named);
	free(obj->spans);
	mc_renumbering_free(obj);
	mc_added_names_free(obj);
	free(obj->scratch);
	obj->scratch = NULL;
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->fd >= 0)
		close(obj->fd);
	obj->sections = NULL;
	obj->read_sections = NULL;
	obj->header_copies = NULL;
	obj->symbols = NULL;
	obj->added = NULL;
	obj->added_values = NULL;
	obj->elf = NULL;
	obj->fd = -1;
}

struct mc_section *mc_section_by_name(struct mc_object *obj,
				      const char *name)
{
	/* The first byte first: most names differ there (".debug_..."). */
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->name[0] == name[0] &&
		    strcmp(obj->sections[i]->name, name) == 0)
			return obj->sections[i];
	return NULL;
}

/*
 * The address index: allocated sections with contents, sorted by start
 * address, each with the furthest end of any section up to it and which
 * section that is.  A lookup is one binary search even in a crafted image
 * with thousands of sections, all overlapping, and one entry per byte.
 */
struct mc_span {
	uint64_t start, end;	/* end: sh_addr + sh_size, saturated */
	size_t sec;
	uint64_t reach;		/* max end over this span and those before */
	size_t reach_sec;	/* the section that reaches that far */
};

static int by_start(const void *a, const void *b)
{
	const struct mc_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

static bool build_spans(struct mc_object *obj)
{
	struct mc_span *v = malloc(obj->n_sections * sizeof(*v));
	size_t n = 0;

	if (!v)
		return false;
	for (size_t i = 1; i < obj->n_sections; i++) {
		const GElf_Shdr *sh = obj->sections[i]->shdr;

		if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOBITS ||
		    sh->sh_size == 0)
			continue;
		uint64_t end = sh->sh_addr + sh->sh_size;
		v[n++] = (struct mc_span){ sh->sh_addr,
					   end < sh->sh_addr ? UINT64_MAX : end,
					   i, 0, 0 };
	}
	qsort(v, n, sizeof(*v), by_start);
	for (size_t j = 0; j < n; j++) {
		bool further = j == 0 || v[j].end > v[j - 1].reach;

		v[j].reach = further ? v[j].end : v[j - 1].reach;
		v[j].reach_sec = further ? v[j].sec : v[j - 1].reach_sec;
	}
	free(obj->spans);
	obj->spans = v;
	obj->n_spans = n;
	obj->spans_for = obj->n_sections;
	return true;
}

static bool span_starts_by(const void *span, const void *addr)
{
	return ((const struct mc_span *)span)->start <=
	       *(const uint64_t *)addr;
}

struct mc_section *mc_section_at_address(struct mc_object *obj,
					 uint64_t addr)
{
	if (obj->spans_for != obj->n_sections && !build_spans(obj))
		return NULL;
	/* the spans that start at or before addr */
	size_t lo = mc_partition_point(obj->spans, obj->n_spans,
				       sizeof(*obj->spans), &addr,
				       span_starts_by);
	if (lo == 0)
		return NULL;
	const struct mc_span *s = &obj->spans[lo - 1];
	if (addr < s->end)
		return obj->sections[s->sec];
	/* Every span up to here starts at or below addr: one reaches it? */
	return addr < s->reach ? obj->sections[s->reach_sec] : NULL;
}

bool mc_object_hold_symbols(struct mc_object *obj)
{
	if (!symbols_in_place(obj))
		return true;
	if (obj->n_symbols != obj->n_input_symbols)
		return mc_fail(obj, "symbols added before they were held");
	struct mc_symbol *v = malloc((obj->n_symbols + 1) * sizeof(*v));
	if (!v)
		return mc_fail(obj, "out of memory");
	for (size_t i = 0; i < obj->n_symbols; i++)
		v[i] = mc_symbol_in_place(obj, i);
	obj->symbols = v;
	return true;
}

/*
 * Lookups by value go through two sorted indexes built on first use:
 * function symbols by (section, value), and symbols that can name a call
 * target by value alone.  A linked image has as many symbols as table
 * entries, so a linear scan per entry would be quadratic.
 */
static int by_section_value(const void *a, const void *b, void *ctx)
{
	const struct mc_object *obj = ctx;
	const struct mc_symbol *x = &obj->symbols[*(const size_t *)a];
	const struct mc_symbol *y = &obj->symbols[*(const size_t *)b];

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->sym.st_value != y->sym.st_value)
		return x->sym.st_value < y->sym.st_value ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

int mc_symbol_index_by_value(const void *a, const void *b, void *ctx)
{
	const struct mc_object *obj = ctx;
	const struct mc_symbol *x = &obj->symbols[*(const size_t *)a];
	const struct mc_symbol *y = &obj->symbols[*(const size_t *)b];

	if (x->sym.st_value != y->sym.st_value)
		return x->sym.st_value < y->sym.st_value ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Mapping symbols ($x, $d, $a, $t, riscv's $xrv64i2p1_...) mark code and
 * data in ARM, AArch64 and RISC-V objects; they name no place.
 */
static bool is_mapping_symbol(const char *name)
{
	return name[0] == '$';
}

static bool names_code(const struct mc_symbol *s)
{
	unsigned type = GELF_ST_TYPE(s->sym.st_info);

	return s->sym.st_shndx != SHN_UNDEF && *s->name &&
	       !is_mapping_symbol(s->name) &&
	       (type == STT_FUNC || type == STT_NOTYPE);
}

static bool is_defined_function(const struct mc_symbol *s)
{
	return GELF_ST_TYPE(s->sym.st_info) == STT_FUNC &&
	       s->sym.st_shndx != SHN_UNDEF;
}

static size_t *build_index(struct mc_object *obj, size_t *n,
			   bool (*want)(const struct mc_symbol *),
			   int (*order)(const void *, const void *, void *))
{
	size_t *v;

	*n = 0;
	if (!mc_object_hold_symbols(obj) ||
	    !(v = malloc((obj->n_symbols + 1) * sizeof(*v))))
		return NULL;
	for (size_t i = 1; i < obj->n_symbols; i++)
		if (want(&obj->symbols[i]))
			v[(*n)++] = i;
	qsort_r(v, *n, sizeof(*v), order, obj);
	return v;
}

/* The key of a search of a symbol index: the index holds positions. */
struct symbol_key {
	const struct mc_object *obj;
	size_t shndx;		/* unless !by_sec */
	uint64_t value;
	bool by_sec;
};

static bool symbol_below(const void *entry, const void *key)
{
	const struct symbol_key *k = key;
	const struct mc_symbol *s = &k->obj->symbols[*(const size_t *)entry];

	if (k->by_sec && s->shndx != k->shndx)
		return s->shndx < k->shndx;
	return s->sym.st_value < k->value;
}

/* First index position whose symbol is not below the key, by `order`. */
static size_t lower_bound(const struct mc_object *obj, const size_t *v,
			  size_t n, size_t shndx, uint64_t value, bool by_sec)
{
	struct symbol_key k = { obj, shndx, value, by_sec };

	return mc_partition_point(v, n, sizeof(*v), &k, symbol_below);
}

static bool covers(const struct mc_symbol *s, size_t shndx, uint64_t value,
		   uint64_t mode_bits)
{
	uint64_t start = s->sym.st_value & ~mode_bits;

	return s->shndx == shndx && value >= start &&
	       value - start < (s->sym.st_size ? s->sym.st_size : 1);
}

const struct mc_symbol *mc_function_at(struct mc_object *obj, size_t shndx,
				       uint64_t value, uint64_t mode_bits)
{
	const struct mc_symbol *best = NULL;

	if (!obj->funcs && !(obj->funcs = build_index(obj, &obj->n_funcs,
						      is_defined_function,
						      by_section_value)))
		return NULL;
	/*
	 * Candidates start at or before value: walk back from there.  A
	 * value with mode bits set may be above its function's address.
	 */
	size_t i = lower_bound(obj, obj->funcs, obj->n_funcs, shndx,
			       (value | mode_bits) + 1, true);
	for (size_t seen = 0; i-- > 0 && seen < 16; seen++) {
		const struct mc_symbol *s = &obj->symbols[obj->funcs[i]];

		if (s->shndx != shndx)
			break;
		if (!covers(s, shndx, value, mode_bits))
			continue;
		if (!best || (GELF_ST_BIND(best->sym.st_info) == STB_LOCAL &&
			      GELF_ST_BIND(s->sym.st_info) != STB_LOCAL))
			best = s;
	}
	return best;
}

const struct mc_symbol *mc_symbol_at(struct mc_object *obj, uint64_t value)
{
	const struct mc_symbol *untyped = NULL;

	if (!obj->named && !(obj->named = build_index(obj, &obj->n_named,
						      names_code, mc_symbol_index_by_value)))
		return NULL;
	for (size_t i = lower_bound(obj, obj->named, obj->n_named, 0, value,
				    false);
	     i < obj->n_named; i++) {
		const struct mc_symbol *s = &obj->symbols[obj->named[i]];

		if (s->sym.st_value != value)
			break;
		if (GELF_ST_TYPE(s->sym.st_info) == STT_FUNC)
			return s;
		if (!untyped)
			untyped = s;
	}
	return untyped;
}

size_t mc_symbol_by_name(const struct mc_object *obj, const char *name)
{
	for (size_t i = 1; i < obj->n_symbols; i++)
		if (strcmp(mc_symbol_name(obj, i), name) == 0)
			return i;
	return SIZE_MAX;
}

const char *mc_symbol_name_in(struct mc_object *obj,
			      struct mc_section *symtab, size_t i)
{
	Elf_Data *d = mc_section_data(obj, symtab);
	GElf_Sym sym;

	if (!d || (symtab->shdr->sh_type != SHT_SYMTAB &&
		   symtab->shdr->sh_type != SHT_DYNSYM) ||
	    i > INT_MAX || !gelf_getsym(d, (int)i, &sym))
		return NULL;
	return elf_strptr(obj->elf, symtab->shdr->sh_link, sym.st_name);
}

bool mc_dynamic_value(struct mc_object *obj, int64_t tag, uint64_t *value)
{
	for (size_t i = 1; i < obj->n_sections; i++) {
		const struct mc_section *s = obj->sections[i];
		Elf_Data *d = s->shdr->sh_type == SHT_DYNAMIC ?
			mc_section_data(obj, s) : NULL;
		GElf_Dyn dyn;

		for (int k = 0; d && gelf_getdyn(d, k, &dyn); k++) {
			if (dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == tag) {
				*value = dyn.d_un.d_val;
				return true;
			}
		}
	}
	return false;
}
