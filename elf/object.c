/*
 * object.c - reading, changing and writing one ELF object through libelf.
 *
 * The input is mapped read-only (ELF_C_READ_MMAP).  A section that is
 * changed gets a private copy of its contents (section_make_writable),
 * so the input's mapping never changes.  mc_object_write() appends the
 * new and changed sections and a new section header table to the input
 * file and then rewrites its ELF header (append_object, below); where
 * it cannot (a second hard link, a layout it cannot keep) it writes a
 * fresh image into a temporary file in the same directory and renames
 * it over the input.  Either way a reader sees the old object or the
 * complete new one, never a mix.
 */
#define _GNU_SOURCE
#include "object.h"
#include "validate.h"
#include "../arch/search.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

bool mc_fail(struct mc_object *obj, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(obj->error, sizeof(obj->error), fmt, ap);
	va_end(ap);
	return false;
}

static bool fail_elf(struct mc_object *obj, const char *what)
{
	return mc_fail(obj, "%s: %s", what, elf_errmsg(-1));
}

bool mc_elf_init(void)
{
	return elf_version(EV_CURRENT) != EV_NONE;
}

static Elf_Data *section_data(struct mc_section *sec)
{
	if (!sec->data && sec->scn)
		sec->data = elf_getdata(sec->scn, NULL);
	return sec->data;
}

/* Make `buf` (d->d_size bytes, owned) the section's contents. */
static void section_take_buffer(struct mc_section *sec, Elf_Data *d,
				void *buf)
{
	sec->buf = buf;
	sec->buf_size = d->d_size;
	sec->buf_cap = d->d_size ? d->d_size : 1;
	sec->buf_type = d->d_type;
	d->d_buf = sec->buf;
}

/* Give the section a private, writable copy of its contents. */
static bool section_make_writable(struct mc_object *obj,
				  struct mc_section *sec)
{
	Elf_Data *d = section_data(sec);
	void *buf;

	if (!d)
		return mc_fail(obj, "section %s has no data", sec->name);
	if (sec->buf)
		return true;
	buf = malloc(d->d_size ? d->d_size : 1);
	if (!buf)
		return mc_fail(obj, "out of memory");
	if (d->d_size)
		memcpy(buf, d->d_buf, d->d_size);
	section_take_buffer(sec, d, buf);
	return true;
}

/*
 * Each section knows its relocation section, and each relocation
 * section its target, set when the relocation section is read or
 * added, so that finding them is not a scan of every section (a C++
 * object has one per COMDAT group).
 */
static void link_reloc_section(struct mc_object *obj,
			       struct mc_section *rel)
{
	size_t t = rel->shdr.sh_info;

	if (!mc_is_reloc_section(rel) || t == 0 || t >= obj->n_sections)
		return;
	rel->target = obj->sections[t];
	if (!rel->target->reloc)
		rel->target->reloc = rel;
}

struct mc_section *mc_reloc_section_of(struct mc_object *obj, size_t target)
{
	return target < obj->n_sections ? obj->sections[target]->reloc : NULL;
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
	if (!sec || sec->shdr.sh_type != SHT_STRTAB ||
	    (sec->shdr.sh_flags & SHF_COMPRESSED) ||
	    !mc_size_fits(sec->shdr.sh_size) || !(d = section_data(sec)) ||
	    !d->d_buf || d->d_type != ELF_T_BYTE || d->d_off != 0 ||
	    d->d_size != sec->shdr.sh_size ||
	    elf_getdata(sec->scn, d) != NULL)
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

static bool read_sections(struct mc_object *obj)
{
	size_t n;

	if (!mc_check_header_tables(obj, &n))
		return false;
	if (elf_getshdrstrndx(obj->elf, &obj->shstrndx) != 0)
		return fail_elf(obj, "cannot find section name table");
	if (obj->shstrndx >= n)
		return mc_fail(obj, "section name table index %zu out of range",
			    obj->shstrndx);
	/* Not calloc: zeroing the array first would be a second pass. */
	obj->read_sections = malloc(n * sizeof(*obj->read_sections));
	obj->sections = malloc(n * sizeof(*obj->sections));
	if (!obj->sections || !obj->read_sections)
		return mc_fail(obj, "out of memory");
	obj->sections_cap = n;

	for (size_t i = 0; i < n; i++) {
		struct mc_section *sec = &obj->read_sections[i];

		obj->sections[i] = sec;
		*sec = (struct mc_section){ .index = i };
		obj->n_sections = obj->sections_read = i + 1;	/* what close frees */
		sec->scn = elf_getscn(obj->elf, i);
		if (!sec->scn || !gelf_getshdr(sec->scn, &sec->shdr))
			return fail_elf(obj, "corrupt section header");
		if (!mc_check_section(obj, i, &sec->shdr, n))
			return false;
	}
	struct strtab names;

	strtab_open(obj, obj->shstrndx, &names);
	for (size_t i = 1; i < n; i++) {
		struct mc_section *sec = obj->sections[i];

		sec->name = strtab_name(obj, &names, obj->shstrndx,
					sec->shdr.sh_name);
		if (!sec->name)
			return mc_fail(obj, "section %zu: name out of range", i);
	}
	obj->sections[0]->name = "";
	for (size_t i = 1; i < n; i++)
		link_reloc_section(obj, obj->sections[i]);
	return mc_check_layout(obj);
}

static bool read_symbols(struct mc_object *obj)
{
	struct mc_section *symtab = NULL;

	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->shdr.sh_type == SHT_SYMTAB) {
			if (symtab)
				return mc_fail(obj, "more than one symbol table");
			symtab = sec;
		}
	}
	if (!symtab)
		return true;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->shdr.sh_type == SHT_SYMTAB_SHNDX &&
		    sec->shdr.sh_link == symtab->index)
			obj->symtab_shndx = sec;
	}

	size_t entsize = gelf_fsize(obj->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (symtab->shdr.sh_entsize != entsize)
		return mc_fail(obj, "symbol table entry size %llu, expected %zu",
			    (unsigned long long)symtab->shdr.sh_entsize,
			    entsize);
	Elf_Data *d = section_data(symtab);
	Elf_Data *xd = obj->symtab_shndx ? section_data(obj->symtab_shndx)
					 : NULL;
	if (!d)
		return fail_elf(obj, "cannot read symbol table");
	obj->symtab = symtab;
	obj->n_symbols = symtab->shdr.sh_size / entsize;
	obj->n_input_symbols = obj->n_symbols;
	obj->first_global = symtab->shdr.sh_info;
	if (obj->first_global > obj->n_symbols)
		return mc_fail(obj, "symbol table sh_info %zu beyond %zu symbols",
			    obj->first_global, obj->n_symbols);
	if (obj->symtab_shndx &&
	    obj->symtab_shndx->shdr.sh_size / sizeof(Elf32_Word) <
		    obj->n_symbols)
		return mc_fail(obj, "section %zu: fewer extended section "
			    "indexes than symbols", obj->symtab_shndx->index);
	for (size_t i = 1; i < obj->n_sections; i++) {
		const GElf_Shdr *sh = &obj->sections[i]->shdr;

		if (sh->sh_type == SHT_GROUP && sh->sh_link == symtab->index &&
		    sh->sh_info >= obj->n_symbols)
			return mc_fail(obj, "section %zu: group signature "
				    "symbol %u out of range", i,
				    (unsigned)sh->sh_info);
	}
	/* Every field of every entry is set below. */
	obj->symbols = malloc((obj->n_symbols + 1) * sizeof(*obj->symbols));
	if (!obj->symbols)
		return mc_fail(obj, "out of memory");

	struct strtab strs;
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	size_t symsize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	/* What gelf_getsymshndx checks for each symbol, checked once. */
	bool direct = d->d_buf && d->d_type == ELF_T_SYM &&
		      obj->n_symbols <= (size_t)INT_MAX &&
		      d->d_size / symsize >= obj->n_symbols &&
		      (!xd || (xd->d_buf &&
			       xd->d_size / sizeof(Elf32_Word) >=
				       obj->n_symbols));

	strtab_open(obj, symtab->shdr.sh_link, &strs);
	for (size_t i = 0; i < obj->n_symbols; i++) {
		struct mc_symbol *s = &obj->symbols[i];
		Elf32_Word xndx = 0;

		if (!direct) {
			if (!gelf_getsymshndx(d, xd, (int)i, &s->sym, &xndx))
				return fail_elf(obj, "corrupt symbol table");
		} else if (is64) {
			s->sym = ((const Elf64_Sym *)d->d_buf)[i];
		} else {
			const Elf32_Sym *e = (const Elf32_Sym *)d->d_buf + i;

			s->sym = (GElf_Sym){
				.st_name = e->st_name, .st_info = e->st_info,
				.st_other = e->st_other,
				.st_shndx = e->st_shndx,
				.st_value = e->st_value, .st_size = e->st_size,
			};
		}
		if (direct && xd)
			xndx = ((const Elf32_Word *)xd->d_buf)[i];
		s->name = strtab_name(obj, &strs, symtab->shdr.sh_link,
				      s->sym.st_name);
		if (!s->name)
			return mc_fail(obj, "symbol %zu: name out of range", i);
		s->shndx = s->sym.st_shndx == SHN_XINDEX ? xndx
							 : s->sym.st_shndx;
		if (s->shndx >= obj->n_sections && s->sym.st_shndx < SHN_LORESERVE)
			return mc_fail(obj, "symbol %s: section index %zu out of "
				    "range", s->name, s->shndx);
	}
	return true;
}

static bool read_whole(struct mc_object *obj)
{
	if (elf_kind(obj->elf) != ELF_K_ELF)
		return mc_fail(obj, "not an ELF file");
	if (!gelf_getehdr(obj->elf, &obj->ehdr))
		return fail_elf(obj, "corrupt ELF header");
	return read_sections(obj) && read_symbols(obj);
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
	obj->elf = elf_begin(obj->fd, ELF_C_READ_MMAP, NULL);
	if (!obj->elf)
		return fail_elf(obj, "cannot read");
	return read_whole(obj);
}

void mc_object_close(struct mc_object *obj)
{
	for (size_t i = 0; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		free(sec->buf);
		if (sec < obj->read_sections ||
		    sec >= obj->read_sections + obj->sections_read)
			free(sec);	/* added: allocated alone */
	}
	free(obj->read_sections);
	free(obj->sections);
	free(obj->symbols);
	free(obj->funcs);
	free(obj->named);
	free(obj->spans);
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->fd >= 0)
		close(obj->fd);
	obj->sections = NULL;
	obj->read_sections = NULL;
	obj->symbols = NULL;
	obj->elf = NULL;
	obj->fd = -1;
}

struct mc_section *mc_section_by_name(struct mc_object *obj,
				      const char *name)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (strcmp(obj->sections[i]->name, name) == 0)
			return obj->sections[i];
	return NULL;
}

const uint8_t *mc_section_bytes(struct mc_section *sec, size_t *size)
{
	Elf_Data *d;

	*size = 0;
	if (sec->shdr.sh_type == SHT_NOBITS)
		return NULL;
	if (sec->buf) {		/* changed or added in memory */
		*size = sec->buf_size;
		return sec->buf;
	}
	d = section_data(sec);
	if (!d || !d->d_buf)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}

bool mc_section_patch(struct mc_object *obj, struct mc_section *sec,
		      uint64_t offset, const uint8_t *bytes, size_t n)
{
	if (sec->shdr.sh_type != SHT_PROGBITS)
		return mc_fail(obj, "cannot patch %s: not PROGBITS", sec->name);
	if (!section_make_writable(obj, sec))
		return false;
	if (offset > sec->buf_size || n > sec->buf_size - offset)
		return mc_fail(obj, "patch at %s+0x%llx past its end", sec->name,
			    (unsigned long long)offset);
	memcpy((uint8_t *)sec->buf + offset, bytes, n);
	return true;
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
		const GElf_Shdr *sh = &obj->sections[i]->shdr;

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
	size_t *v = malloc((obj->n_symbols + 1) * sizeof(*v));

	*n = 0;
	if (!v)
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

static bool covers(const struct mc_symbol *s, size_t shndx, uint64_t value)
{
	return s->shndx == shndx && value >= s->sym.st_value &&
	       value - s->sym.st_value < (s->sym.st_size ? s->sym.st_size : 1);
}

const struct mc_symbol *mc_function_at(struct mc_object *obj, size_t shndx,
				       uint64_t value)
{
	const struct mc_symbol *best = NULL;

	if (!obj->funcs && !(obj->funcs = build_index(obj, &obj->n_funcs,
						      is_defined_function,
						      by_section_value)))
		return NULL;
	/* Candidates start at or before value: walk back from there. */
	size_t i = lower_bound(obj, obj->funcs, obj->n_funcs, shndx,
			       value + 1, true);
	for (size_t seen = 0; i-- > 0 && seen < 16; seen++) {
		const struct mc_symbol *s = &obj->symbols[obj->funcs[i]];

		if (s->shndx != shndx)
			break;
		if (!covers(s, shndx, value))
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

bool mc_symbol_set_binding(struct mc_object *obj, size_t k,
			   unsigned char bind)
{
	GElf_Sym gs;

	if (!obj->symtab || k == 0 || k >= obj->n_symbols)
		return mc_fail(obj, "no symbol %zu to rebind", k);
	gs = obj->symbols[k].sym;
	gs.st_info = GELF_ST_INFO(bind, GELF_ST_TYPE(gs.st_info));
	if (k >= obj->n_input_symbols) {
		/* added: in the table only when it is written */
		obj->symbols[k].sym = gs;
		return true;
	}
	if (!section_make_writable(obj, obj->symtab))
		return false;
	if (!gelf_update_sym(section_data(obj->symtab), (int)k, &gs))
		return fail_elf(obj, "cannot rebind symbol");
	obj->symbols[k].sym = gs;
	return true;
}

size_t mc_symbol_by_name(const struct mc_object *obj, const char *name)
{
	for (size_t i = 1; i < obj->n_symbols; i++)
		if (strcmp(obj->symbols[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

bool mc_is_reloc_section(const struct mc_section *sec)
{
	return sec->shdr.sh_type == SHT_RELA || sec->shdr.sh_type == SHT_REL;
}

size_t mc_reloc_entry_size(const struct mc_object *obj, uint32_t sh_type)
{
	return gelf_fsize(obj->elf, sh_type == SHT_RELA ? ELF_T_RELA
							: ELF_T_REL,
			  1, EV_CURRENT);
}

size_t mc_reloc_count(const struct mc_section *sec)
{
	return sec->shdr.sh_entsize ? sec->shdr.sh_size / sec->shdr.sh_entsize
				    : 0;
}

/*
 * MIPS64 r_info is not ELF64_R_INFO: it is a 32-bit symbol followed by
 * four bytes ssym, type3, type2, type, each in the file's byte order.
 * libelf (0.188) hands it over as one 64-bit word in host order.
 */
static bool is_mips64(const struct mc_object *obj)
{
	return obj->ehdr.e_machine == EM_MIPS &&
	       obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
}

static bool is_big_endian(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
}

static void info_decode(const struct mc_object *obj, GElf_Xword info,
			struct mc_reloc *r)
{
	r->mips_extra = 0;
	if (!is_mips64(obj)) {
		r->sym = GELF_R_SYM(info);
		r->type = (uint32_t)GELF_R_TYPE(info);
	} else if (is_big_endian(obj)) {
		r->sym = info >> 32;
		r->type = info & 0xff;
		r->mips_extra = info & 0xffffff00;
	} else {
		r->sym = info & 0xffffffff;
		r->type = info >> 56;
		r->mips_extra = (uint32_t)((info >> 32) & 0xff) << 24 |
				(uint32_t)((info >> 40) & 0xff) << 16 |
				(uint32_t)((info >> 48) & 0xff) << 8;
	}
}

static GElf_Xword info_encode(const struct mc_object *obj,
			      const struct mc_reloc *r)
{
	GElf_Xword x = r->mips_extra;

	if (!is_mips64(obj))
		return GELF_R_INFO(r->sym, r->type);
	if (is_big_endian(obj))
		return (GElf_Xword)r->sym << 32 | (x & 0xffffff00) |
		       (r->type & 0xff);
	return (r->sym & 0xffffffff) | ((x >> 24) & 0xff) << 32 |
	       ((x >> 16) & 0xff) << 40 | ((x >> 8) & 0xff) << 48 |
	       (GElf_Xword)(r->type & 0xff) << 56;
}

void mc_reloc_table_open(struct mc_object *obj, struct mc_section *sec,
			 struct mc_reloc_table *t)
{
	Elf_Data *d = mc_is_reloc_section(sec) ? section_data(sec) : NULL;
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	bool rela = sec->shdr.sh_type == SHT_RELA;
	size_t size = is64 ? (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
			   : (rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));

	t->p = NULL;
	t->n = 0;
	t->kind = is64 ? (rela ? MC_RELA64 : MC_REL64)
		       : (rela ? MC_RELA32 : MC_REL32);
	if (!d || is_mips64(obj) || !d->d_buf ||
	    d->d_type != (rela ? ELF_T_RELA : ELF_T_REL))
		return;
	t->p = d->d_buf;
	t->n = d->d_size / size;
	if (t->n > (size_t)INT_MAX + 1)		/* gelf's index is an int */
		t->n = (size_t)INT_MAX + 1;
}

void mc_reloc_table_over(const struct mc_object *obj, uint32_t sh_type,
			 void *buf, size_t n, struct mc_reloc_table *t)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	bool rela = sh_type == SHT_RELA;

	t->p = buf;
	t->n = is_mips64(obj) ? 0 : n;
	t->kind = is64 ? (rela ? MC_RELA64 : MC_REL64)
		       : (rela ? MC_RELA32 : MC_REL32);
}

bool mc_reloc_get(struct mc_object *obj, struct mc_section *sec, size_t i,
		  struct mc_reloc *out)
{
	Elf_Data *d = section_data(sec);
	struct mc_reloc_table t;

	if (!d)
		return fail_elf(obj, "cannot read relocations");
	mc_reloc_table_open(obj, sec, &t);
	if (i < t.n) {
		mc_reloc_table_get(&t, i, out);
		return true;
	}
	if (sec->shdr.sh_type == SHT_RELA) {
		GElf_Rela r;

		if (!gelf_getrela(d, (int)i, &r))
			return fail_elf(obj, "corrupt relocation");
		out->offset = r.r_offset;
		out->addend = r.r_addend;
		info_decode(obj, r.r_info, out);
	} else {
		GElf_Rel r;

		if (!gelf_getrel(d, (int)i, &r))
			return fail_elf(obj, "corrupt relocation");
		out->offset = r.r_offset;
		out->addend = 0;
		info_decode(obj, r.r_info, out);
	}
	return true;
}

bool mc_reloc_set(struct mc_object *obj, struct mc_section *sec, size_t i,
		  const struct mc_reloc *r)
{
	struct mc_reloc_table t;

	if (!section_make_writable(obj, sec))
		return false;
	mc_reloc_table_open(obj, sec, &t);
	if (i < t.n && mc_reloc_table_put(&t, i, r))
		return true;
	GElf_Xword info = info_encode(obj, r);
	bool ok;

	if (sec->shdr.sh_type == SHT_RELA) {
		GElf_Rela rela = { r->offset, info, r->addend };

		ok = gelf_update_rela(sec->data, (int)i, &rela);
	} else {
		GElf_Rel rel = { r->offset, info };

		ok = gelf_update_rel(sec->data, (int)i, &rel);
	}
	return ok || fail_elf(obj, "cannot update relocation");
}

/*
 * Grow a section's private copy by `add` bytes, inserted at `at`.  The
 * buffer at least doubles when it grows, so that adding one name per
 * table piece to the section name table (a C++ object with thousands of
 * COMDAT groups) costs linear, not quadratic, time.
 */
static bool section_insert_gap(struct mc_object *obj, struct mc_section *sec,
			       size_t at, size_t add)
{
	if (!section_make_writable(obj, sec))
		return false;
	size_t need = sec->buf_size + add;
	if (need > sec->buf_cap) {
		size_t cap = sec->buf_cap > need / 2 ? 2 * sec->buf_cap : need;
		uint8_t *nb = realloc(sec->buf, cap);

		if (!nb)
			return mc_fail(obj, "out of memory");
		sec->buf = nb;
		sec->buf_cap = cap;
	}
	uint8_t *b = sec->buf;
	memmove(b + at + add, b + at, sec->buf_size - at);
	memset(b + at, 0, add);
	sec->buf_size = need;
	sec->data->d_buf = b;
	sec->data->d_size = need;
	sec->shdr.sh_size = need;
	return true;
}

/*
 * How symbol handles become the indexes written: the input's locals
 * keep theirs, the symbols added (handles from n_in on) follow them,
 * and the input's globals move up by the number added.
 */
struct numbering {
	size_t k;	/* the input's first global */
	size_t n_in;	/* symbols as read */
	size_t n;	/* symbols added */
};

static inline size_t written_index(const struct numbering *m, size_t sym)
{
	if (sym < m->k)
		return sym;
	/* past every symbol (a corrupt input's): moved up, as the rest */
	if (sym < m->n_in || sym - m->n_in >= m->n)
		return sym + m->n;
	return m->k + (sym - m->n_in);
}

/*
 * Renumber a table read in place, copied and renumbered in one pass
 * (into its copy, made here if it has none): an entry is a struct of
 * the host's, and only the symbol field of r_info changes.  False,
 * with nothing done, where this cannot be done so: the caller goes
 * entry by entry.
 */
static bool number_table_symbols(struct mc_section *sec,
				 const struct mc_reloc_table *t,
				 const struct numbering *m)
{
	size_t count = mc_reloc_count(sec);
	Elf_Data *d = sec->data;
	void *dst;

	bool is32 = t->kind == MC_REL32 || t->kind == MC_RELA32;

	/* ELF32's 24-bit symbol field must hold every new index. */
	if (t->n != count || !d || count == 0 || (is32 && sec->buf) ||
	    (is32 && m->n_in + m->n > 0x1000000))
		return false;
	dst = sec->buf ? sec->buf : malloc(d->d_size);
	if (!dst)
		return false;
	switch (t->kind) {
	case MC_RELA64: {
		const Elf64_Rela *a = (const Elf64_Rela *)t->p;
		Elf64_Rela *b = dst;

		for (size_t i = 0; i < count; i++) {
			size_t sym = ELF64_R_SYM(a[i].r_info);

			b[i] = a[i];
			if (sym >= m->k)
				b[i].r_info = ELF64_R_INFO(
					written_index(m, sym),
					ELF64_R_TYPE(a[i].r_info));
		}
		break;
	}
	case MC_REL64: {
		const Elf64_Rel *a = (const Elf64_Rel *)t->p;
		Elf64_Rel *b = dst;

		for (size_t i = 0; i < count; i++) {
			size_t sym = ELF64_R_SYM(a[i].r_info);

			b[i] = a[i];
			if (sym >= m->k)
				b[i].r_info = ELF64_R_INFO(
					written_index(m, sym),
					ELF64_R_TYPE(a[i].r_info));
		}
		break;
	}
	case MC_RELA32: {
		const Elf32_Rela *a = (const Elf32_Rela *)t->p;
		Elf32_Rela *b = dst;

		for (size_t i = 0; i < count; i++) {
			size_t sym = ELF32_R_SYM(a[i].r_info);

			b[i] = a[i];
			if (sym >= m->k)
				b[i].r_info = ELF32_R_INFO(
					(Elf32_Word)written_index(m, sym),
					ELF32_R_TYPE(a[i].r_info));
		}
		break;
	}
	case MC_REL32: {
		const Elf32_Rel *a = (const Elf32_Rel *)t->p;
		Elf32_Rel *b = dst;

		for (size_t i = 0; i < count; i++) {
			size_t sym = ELF32_R_SYM(a[i].r_info);

			b[i] = a[i];
			if (sym >= m->k)
				b[i].r_info = ELF32_R_INFO(
					(Elf32_Word)written_index(m, sym),
					ELF32_R_TYPE(a[i].r_info));
		}
		break;
	}
	}
	if (!sec->buf)
		section_take_buffer(sec, d, dst);
	return true;
}

/*
 * The same for a relocation section added in memory, whose buffer
 * mc_reloc_store filled in the object's kind.
 */
static bool number_added_relocs(struct mc_object *obj,
				struct mc_section *sec,
				const struct numbering *m)
{
	uint32_t type = sec->shdr.sh_type;
	size_t size = mc_reloc_entry_size(obj, type);
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	uint8_t *p = sec->buf;
	struct mc_reloc_table t;

	mc_reloc_table_over(obj, type, p, p ? sec->buf_size / size : 0, &t);
	if (t.kind == MC_RELA64 || t.kind == MC_REL64) {
		/* in place, only the symbol field of r_info changes */
		for (size_t i = 0; i < t.n; i++) {
			Elf64_Xword *info = (Elf64_Xword *)(void *)
					    (p + i * size + 8);
			size_t sym = ELF64_R_SYM(*info);

			if (sym >= m->k)
				*info = ELF64_R_INFO(written_index(m, sym),
						     ELF64_R_TYPE(*info));
		}
		if (t.n || !p)
			return true;
	}
	for (size_t i = 0; p && i < sec->buf_size / size; i++) {
		const uint8_t *e = p + i * size;
		struct mc_reloc r = { 0 };

		if (is64) {
			Elf64_Rel x;

			memcpy(&x, e, sizeof(x));
			r.offset = x.r_offset;
			info_decode(obj, x.r_info, &r);
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
		r.sym = written_index(m, r.sym);
		if (!is64 && r.sym > 0xffffff)
			return mc_fail(obj, "%s: symbol index %zu does not fit "
				       "ELF32's 24 bits", sec->name, r.sym);
		mc_reloc_store(obj, type, sec->buf, i, &r);
	}
	return true;
}

/* Every relocation's symbol handle becomes the index written. */
static bool number_reloc_symbols(struct mc_object *obj,
				 const struct numbering *m)
{
	for (size_t s = 1; s < obj->n_sections; s++) {
		struct mc_section *sec = obj->sections[s];
		struct mc_reloc_table t;
		bool writable = sec->buf != NULL;

		if (!mc_is_reloc_section(sec) ||
		    sec->shdr.sh_link != obj->symtab->index)
			continue;
		if (!sec->scn) {
			if (!number_added_relocs(obj, sec, m))
				return false;
			continue;
		}
		mc_reloc_table_open(obj, sec, &t);
		if (number_table_symbols(sec, &t, m))
			continue;
		for (size_t i = 0; i < mc_reloc_count(sec); i++) {
			struct mc_reloc r = { 0 };

			if (!mc_reloc_read(obj, sec, &t, i, &r))
				return false;
			if (r.sym < m->k)
				continue;
			r.sym = written_index(m, r.sym);
			if (!writable) {
				/* The copy is made on the first change. */
				if (!section_make_writable(obj, sec))
					return false;
				mc_reloc_table_open(obj, sec, &t);
				writable = true;
			}
			if (!(i < t.n && mc_reloc_table_put(&t, i, &r)) &&
			    !mc_reloc_set(obj, sec, i, &r))
				return false;
		}
	}
	return true;
}

/* COMDAT group signatures are symbol indices in the group's sh_info. */
static void number_group_signatures(struct mc_object *obj,
				    const struct numbering *m)
{
	for (size_t s = 1; s < obj->n_sections; s++) {
		struct mc_section *sec = obj->sections[s];

		if (sec->shdr.sh_type == SHT_GROUP &&
		    sec->shdr.sh_link == obj->symtab->index &&
		    sec->shdr.sh_info >= m->k)
			sec->shdr.sh_info =
				(GElf_Word)written_index(m, sec->shdr.sh_info);
	}
}

static bool needs_xindex(const size_t *shndx, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (shndx[j] >= SHN_LORESERVE)
			return true;
	return false;
}

/*
 * Fill the n slots at k..k+n-1 of the symbol table and its mirror,
 * made for them, with the symbols added (the model's n_in onwards),
 * and put them in the same place of the model's array.
 */
static bool store_added_symbols(struct mc_object *obj,
				const struct numbering *m)
{
	struct mc_symbol *sym = obj->symbols, *added;
	size_t k = m->k, n = m->n;

	added = malloc(n * sizeof(*added));
	if (!added)
		return mc_fail(obj, "out of memory");
	memcpy(added, &sym[m->n_in], n * sizeof(*added));
	memmove(&sym[k + n], &sym[k], (m->n_in - k) * sizeof(*sym));
	memcpy(&sym[k], added, n * sizeof(*added));
	free(added);
	for (size_t j = 0; j < n; j++) {
		GElf_Sym gs = sym[k + j].sym;
		Elf32_Word x = gs.st_shndx == SHN_XINDEX
			       ? (Elf32_Word)sym[k + j].shndx : 0;

		if (!gelf_update_symshndx(obj->symtab->data,
					  obj->symtab_shndx ?
					  obj->symtab_shndx->data : NULL,
					  (int)(k + j), &gs, x))
			return fail_elf(obj, "cannot add symbol");
	}
	return true;
}

/*
 * Number the symbols as they are written: the ones added go after the
 * input's locals, every reference to the input's globals (relocations,
 * group signatures) moves up by as many, and the model is in the
 * written numbering afterwards.  Nothing to do when none was added.
 */
static bool number_symbols(struct mc_object *obj)
{
	struct numbering m = {
		.k = obj->first_global,
		.n_in = obj->n_input_symbols,
		.n = obj->n_symbols - obj->n_input_symbols,
	};

	if (m.n == 0)
		return true;
	size_t entsize = obj->symtab->shdr.sh_entsize;
	if (!section_insert_gap(obj, obj->symtab, m.k * entsize,
				m.n * entsize) ||
	    (obj->symtab_shndx &&
	     !section_insert_gap(obj, obj->symtab_shndx,
				 m.k * sizeof(Elf32_Word),
				 m.n * sizeof(Elf32_Word))) ||
	    !number_reloc_symbols(obj, &m) ||
	    !store_added_symbols(obj, &m))
		return false;
	number_group_signatures(obj, &m);
	/* Symbol numbers moved: the lookup indexes are stale. */
	free(obj->funcs);
	free(obj->named);
	obj->funcs = obj->named = NULL;
	obj->first_global += m.n;
	obj->n_input_symbols = obj->n_symbols;
	obj->symtab->shdr.sh_info += (GElf_Word)m.n;
	return true;
}

/*
 * Add n local symbols: section symbols, or with `value`, unnamed
 * local labels at those offsets of their sections.  Each is a handle
 * after every other symbol; no table is touched until the object is
 * written (number_symbols).
 */
static size_t add_local_symbols(struct mc_object *obj, const size_t *shndx,
				const uint64_t *value, size_t n)
{
	struct mc_symbol *sym;
	size_t first = obj->n_symbols;

	if (!obj->symtab) {
		mc_fail(obj, "no symbol table to add a section symbol to");
		return SIZE_MAX;
	}
	if (needs_xindex(shndx, n) && !obj->symtab_shndx) {
		mc_fail(obj, "section index past %u needs SHT_SYMTAB_SHNDX",
			SHN_LORESERVE);
		return SIZE_MAX;
	}
	sym = realloc(obj->symbols, (first + n + 1) * sizeof(*sym));
	if (!sym) {
		mc_fail(obj, "out of memory");
		return SIZE_MAX;
	}
	obj->symbols = sym;
	for (size_t j = 0; j < n; j++) {
		GElf_Sym gs = {
			.st_info = GELF_ST_INFO(STB_LOCAL, value ? STT_NOTYPE
								 : STT_SECTION),
			.st_value = value ? value[j] : 0,
			.st_shndx = shndx[j] < SHN_LORESERVE ? shndx[j]
							     : SHN_XINDEX,
		};

		sym[first + j] = (struct mc_symbol){ .sym = gs, .name = "",
						     .shndx = shndx[j] };
	}
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
 * Append `name` to the section name table; *off receives its offset.
 * Every section name is re-pointed into the grown table, which holds
 * all of them (the input's names and those added or renamed since).
 */
static bool append_section_name(struct mc_object *obj, const char *name,
				size_t *off)
{
	struct mc_section *shstr = obj->sections[obj->shstrndx];
	size_t len = strlen(name) + 1;
	const void *was = shstr->buf;

	*off = shstr->shdr.sh_size;
	if (!section_insert_gap(obj, shstr, *off, len))
		return false;
	memcpy((uint8_t *)shstr->buf + *off, name, len);
	if (shstr->buf == was)
		return true;	/* the names did not move */
	for (size_t i = 1; i < obj->n_sections; i++)
		obj->sections[i]->name = (const char *)shstr->buf +
					obj->sections[i]->shdr.sh_name;
	return true;
}

bool mc_section_rename(struct mc_object *obj, struct mc_section *sec,
		       const char *name)
{
	size_t off;

	if (!append_section_name(obj, name, &off))
		return false;
	sec->shdr.sh_name = (GElf_Word)off;
	sec->name = (const char *)obj->sections[obj->shstrndx]->buf + off;
	return true;
}

bool mc_section_set_contents(struct mc_object *obj, struct mc_section *sec,
			     void *contents, size_t size, Elf_Type type)
{
	Elf_Data *d = section_data(sec);

	if (sec->scn && !d) {
		free(contents);
		return fail_elf(obj, "cannot read section");
	}
	free(sec->buf);
	sec->buf = contents;
	sec->buf_size = size;
	sec->buf_cap = size;
	sec->buf_type = type;
	sec->shdr.sh_size = size;
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

		if (sec->shdr.sh_type != SHT_GROUP)
			continue;
		raw = mc_section_bytes(sec, &size);
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

bool mc_group_add(struct mc_object *obj, size_t group, size_t member)
{
	struct mc_section *g = obj->sections[group];
	Elf32_Word m = (Elf32_Word)member;

	if (!section_insert_gap(obj, g, g->buf ? g->buf_size : g->shdr.sh_size,
				sizeof(m)))
		return false;
	memcpy((uint8_t *)g->buf + g->buf_size - sizeof(m), &m, sizeof(m));
	obj->sections[member]->shdr.sh_flags |= SHF_GROUP;
	return true;
}

struct mc_section *mc_add_section(struct mc_object *obj, const char *name,
				  const GElf_Shdr *shdr, void *contents,
				  size_t size, Elf_Type type)
{
	struct mc_section *sec;
	size_t name_off;

	if (!append_section_name(obj, name, &name_off)) {
		free(contents);
		return NULL;
	}
	const char *new_name =
		(const char *)obj->sections[obj->shstrndx]->buf + name_off;

	if (obj->n_sections == obj->sections_cap) {
		/* Doubling: one piece per COMDAT group adds thousands. */
		size_t cap = 2 * obj->sections_cap;
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
	if (!sec) {
		free(contents);
		mc_fail(obj, "out of memory");
		return NULL;
	}
	*sec = (struct mc_section){
		.index = obj->n_sections,
		.shdr = *shdr,
		.name = new_name,
		.buf = contents,
		.buf_size = size,
		.buf_cap = size,
		.buf_type = type,
	};
	sec->shdr.sh_name = (GElf_Word)name_off;
	sec->shdr.sh_size = size;
	obj->sections[obj->n_sections++] = sec;
	link_reloc_section(obj, sec);
	return sec;
}

void mc_reloc_store(const struct mc_object *obj, uint32_t sh_type,
		    void *buf, size_t i, const struct mc_reloc *r)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;

	if (is64 && sh_type == SHT_RELA)
		((Elf64_Rela *)buf)[i] = (Elf64_Rela){
			r->offset, info_encode(obj, r), r->addend };
	else if (is64)
		((Elf64_Rel *)buf)[i] = (Elf64_Rel){
			r->offset, info_encode(obj, r) };
	else if (sh_type == SHT_RELA)
		((Elf32_Rela *)buf)[i] = (Elf32_Rela){
			(Elf32_Addr)r->offset,
			ELF32_R_INFO(r->sym, r->type), (Elf32_Sword)r->addend };
	else
		((Elf32_Rel *)buf)[i] = (Elf32_Rel){
			(Elf32_Addr)r->offset, ELF32_R_INFO(r->sym, r->type) };
}

static size_t address_size(const struct mc_object *obj)
{
	return obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
}

void mc_store_address(const struct mc_object *obj, uint8_t *p, uint64_t v)
{
	size_t n = address_size(obj);
	bool big = obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;

	for (size_t i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

uint64_t mc_load_address(const struct mc_object *obj, const uint8_t *p)
{
	size_t n = address_size(obj);
	bool big = obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Hand one model section to the output ELF. */
static bool emit_section(struct mc_object *obj, Elf *out,
			 struct mc_section *sec)
{
	Elf_Scn *scn = elf_newscn(out);
	Elf_Data *od;

	if (!scn || !(od = elf_newdata(scn)))
		return fail_elf(obj, "cannot create output section");
	if (sec->buf) {
		od->d_buf = sec->buf;
		od->d_size = sec->buf_size;
		od->d_type = sec->buf_type;
		od->d_align = sec->shdr.sh_addralign ? sec->shdr.sh_addralign
						     : 1;
	} else if (sec->shdr.sh_type == SHT_NOBITS) {
		od->d_size = sec->shdr.sh_size;
		od->d_type = ELF_T_BYTE;
		od->d_align = sec->shdr.sh_addralign ? sec->shdr.sh_addralign
						     : 1;
	} else {
		Elf_Data *in = section_data(sec);

		if (!in)
			return fail_elf(obj, "cannot read section");
		od->d_buf = in->d_buf;
		od->d_size = in->d_size;
		od->d_type = in->d_type;
		od->d_align = in->d_align;
	}
	od->d_version = EV_CURRENT;
	if (elf_ndxscn(scn) != sec->index)
		return mc_fail(obj, "section %s renumbered on output", sec->name);
	if (!gelf_update_shdr(scn, &sec->shdr))
		return fail_elf(obj, "cannot write section header");
	return true;
}

/*
 * Writing the image libelf laid out.  libelf's own writer (ELF_C_WRITE)
 * makes one pwrite per section, and more for the padding between them:
 * 300,000 system calls for an object of 100,000 functions each in its
 * own section.  Once elf_update(ELF_C_NULL) has placed everything, the
 * same bytes go out here in file order through one buffer: the ELF
 * header, each section's data at its offset (in the file's byte order,
 * as libelf would convert it), the section header table, and zeros
 * (libelf's fill byte) everywhere else, up to the size libelf computed.
 * A layout that is not "header, sections in index order, header table"
 * (libelf's own, with no program headers) is left to libelf to write.
 */
/* ELFDATA2LSB or ELFDATA2MSB: the order of this host's memory. */
static unsigned host_byte_order(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
							 : ELFDATA2MSB;
}

/*
 * The output goes out through writev(2) in file order, and by
 * reference wherever the bytes already exist: an unchanged section
 * straight from the mapped input, a changed one from its buffer, the
 * padding from a block of static zeros.  Only what is converted (the
 * headers, data in the other byte order) is built in the stream's own
 * buffer.  Nothing referenced may change or go away before the next
 * flush, which every writer makes before it returns.
 */
enum { STREAM_IOV = 128, STREAM_BUF = 64 << 10 };

struct stream {
	struct mc_object *obj;
	int fd;
	uint8_t *buf;		/* STREAM_BUF bytes for converted data */
	size_t used;
	struct iovec iov[STREAM_IOV];
	int n_iov;
	uint64_t pos;		/* file offset after what is queued */
};

static const uint8_t zero_block[16 << 10];

/* False when out of memory (obj->error untouched). */
static bool stream_open(struct stream *w, struct mc_object *obj, int fd)
{
	*w = (struct stream){ .obj = obj, .fd = fd };
	w->buf = malloc(STREAM_BUF);
	return w->buf != NULL;
}

static bool write_fail(struct stream *w, ssize_t k)
{
	return mc_fail(w->obj, "cannot write object: %s",
		       strerror(k < 0 ? errno : EIO));
}

static bool stream_flush(struct stream *w)
{
	struct iovec *v = w->iov;
	int n = w->n_iov;

	w->n_iov = 0;
	w->used = 0;
	while (n > 0) {
		ssize_t k = writev(w->fd, v, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return write_fail(w, k);
		while (n > 0 && (size_t)k >= v->iov_len) {	/* written */
			k -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {					/* partly */
			v->iov_base = (uint8_t *)v->iov_base + k;
			v->iov_len -= (size_t)k;
		}
	}
	return true;
}

/* Queue n bytes at p, which stay put until the next flush. */
static bool stream_ref(struct stream *w, const void *p, size_t n)
{
	struct iovec *last = w->n_iov ? &w->iov[w->n_iov - 1] : NULL;

	w->pos += n;
	if (n == 0)
		return true;
	if (last && (const uint8_t *)last->iov_base + last->iov_len == p) {
		last->iov_len += n;
		return true;
	}
	if (w->n_iov == STREAM_IOV && !stream_flush(w))
		return false;
	w->iov[w->n_iov++] = (struct iovec){ (void *)p, n };
	return true;
}

/* Queue n zero bytes. */
static bool stream_zeros(struct stream *w, uint64_t n)
{
	while (n) {
		size_t k = n < sizeof(zero_block) ? (size_t)n
						  : sizeof(zero_block);

		if (!stream_ref(w, zero_block, k))
			return false;
		n -= k;
	}
	return true;
}

/*
 * Room for n <= STREAM_BUF bytes in the stream's buffer, queued at the
 * current position: the caller fills it before the next stream call.
 */
static uint8_t *stream_reserve(struct stream *w, size_t n)
{
	uint8_t *p;

	/* Flushed first, if at all: stream_ref must not flush p away. */
	if ((STREAM_BUF - w->used < n || w->n_iov == STREAM_IOV) &&
	    !stream_flush(w))
		return NULL;
	p = w->buf + w->used;
	w->used += n;
	return stream_ref(w, p, n) ? p : NULL;
}

/*
 * Memory-form `src` in the file's byte order, then out: what libelf
 * writes for it (file and memory sizes of its types are the same).
 */
static bool stream_xlate(struct stream *w, Elf *out, const void *src,
			 size_t size, Elf_Type type, unsigned enc)
{
	Elf_Data from = { .d_buf = (void *)src, .d_size = size, .d_type = type,
			  .d_version = EV_CURRENT };
	Elf_Data to = { .d_size = size, .d_version = EV_CURRENT };
	bool big = size > STREAM_BUF;
	bool ok;

	if (size == 0)
		return true;
	/* Small: converted into the stream's buffer; big: on its own. */
	to.d_buf = big ? malloc(size) : stream_reserve(w, size);
	if (!to.d_buf)
		return big ? mc_fail(w->obj, "out of memory") : false;
	ok = gelf_xlatetof(out, &to, &from, enc) && to.d_size == size;
	if (!ok)
		fail_elf(w->obj, "cannot write object");
	else if (big)
		ok = stream_ref(w, to.d_buf, size) && stream_flush(w);
	if (big)
		free(to.d_buf);
	return ok;
}

/* The one data block of a section that has bytes in the file, or NULL. */
static Elf_Data *file_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
	    d->d_size == 0)
		return NULL;
	return d;
}

/*
 * True if data of type `t` can go out of this writer in byte order
 * `enc`: as it is in memory when that is the host's order, else
 * converted element by element, as gelf_xlatetof does for these types.
 * Others (notes, whose records vary in length; version and hash tables)
 * it refuses or cannot know from the size alone: a section of such a
 * type that needs converting is left to libelf's own writer, which
 * walks it.  Both of this file's writers ask here.
 */
static bool streamable(unsigned enc, Elf_Type t)
{
	if (enc == host_byte_order())
		return true;
	switch (t) {
	case ELF_T_BYTE: case ELF_T_ADDR: case ELF_T_HALF: case ELF_T_OFF:
	case ELF_T_SWORD: case ELF_T_WORD: case ELF_T_XWORD:
	case ELF_T_SXWORD: case ELF_T_SYM: case ELF_T_REL: case ELF_T_RELA:
		return true;
	default:
		return false;
	}
}

/* True if the layout is one stream_object writes (see above). */
static bool layout_is_plain(Elf *out, const GElf_Ehdr *eh, int64_t size,
			    size_t n_scn)
{
	size_t phnum, shsize = gelf_fsize(out, ELF_T_SHDR, 1, EV_CURRENT);
	uint64_t end = gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;

	if (elf_getphdrnum(out, &phnum) != 0 || phnum != 0 ||
	    eh->e_phoff != 0 || n_scn == 0 || shsize == 0)
		return false;
	while ((scn = elf_nextscn(out, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && elf_getdata(scn, d))
			return false;	/* more than one block */
		if (!(d = file_data(scn, &sh)))
			continue;
		if (!d->d_buf || d->d_off != 0 || d->d_size != sh.sh_size ||
		    sh.sh_offset < end ||
		    !streamable(eh->e_ident[EI_DATA], d->d_type))
			return false;
		end = sh.sh_offset + sh.sh_size;
	}
	return eh->e_shoff >= end && (uint64_t)size >= eh->e_shoff &&
	       ((uint64_t)size - eh->e_shoff) / shsize >= n_scn;
}

static bool stream_headers(struct stream *w, Elf *out, size_t n_scn,
			   unsigned enc)
{
	bool is64 = gelf_getclass(out) == ELFCLASS64;
	size_t one = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	enum { CHUNK = 512 };	/* converted within the stream's buffer */
	uint8_t *chunk = malloc(CHUNK * one);
	size_t k = 0;
	bool ok = chunk != NULL;
	Elf_Scn *scn = elf_getscn(out, 0);

	if (!chunk)
		return mc_fail(w->obj, "out of memory");
	for (size_t i = 0; ok && i < n_scn; i++) {
		void *sh = !scn ? NULL : is64 ? (void *)elf64_getshdr(scn)
					     : (void *)elf32_getshdr(scn);

		if (!sh) {
			ok = fail_elf(w->obj, "cannot write section header");
			break;
		}
		memcpy(chunk + k++ * one, sh, one);
		if (k == CHUNK || i + 1 == n_scn) {
			ok = stream_xlate(w, out, chunk, k * one, ELF_T_SHDR,
					  enc);
			k = 0;
		}
		scn = elf_nextscn(out, scn);
	}
	free(chunk);
	return ok;
}

/* 1: written; 0: failed (obj->error); -1: for libelf to write. */
static int stream_object(struct mc_object *obj, Elf *out, int fd,
			 int64_t size)
{
	GElf_Ehdr eh;
	size_t n_scn;
	struct stream w;
	bool is64 = gelf_getclass(out) == ELFCLASS64;
	void *ehdr = is64 ? (void *)elf64_getehdr(out)
			  : (void *)elf32_getehdr(out);
	Elf_Scn *scn = NULL;

	if (!ehdr || !gelf_getehdr(out, &eh) ||
	    elf_getshdrnum(out, &n_scn) != 0 ||
	    !layout_is_plain(out, &eh, size, n_scn))
		return -1;
	unsigned enc = eh.e_ident[EI_DATA];
	if (!stream_open(&w, obj, fd))
		return -1;
	bool ok = stream_xlate(&w, out, ehdr, is64 ? sizeof(Elf64_Ehdr)
						   : sizeof(Elf32_Ehdr),
			       ELF_T_EHDR, enc);
	while (ok && (scn = elf_nextscn(out, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh)) {
			ok = fail_elf(obj, "cannot write section header");
			break;
		}
		if (!(d = file_data(scn, &sh)))
			continue;
		ok = stream_zeros(&w, sh.sh_offset - w.pos) &&
		     (enc == host_byte_order() || d->d_type == ELF_T_BYTE ?
		      stream_ref(&w, d->d_buf, d->d_size) :
		      stream_xlate(&w, out, d->d_buf, d->d_size, d->d_type,
				   enc));
	}
	ok = ok && stream_zeros(&w, eh.e_shoff - w.pos) &&
	     stream_headers(&w, out, n_scn, enc) &&
	     stream_zeros(&w, (uint64_t)size - w.pos) && stream_flush(&w);
	free(w.buf);
	return ok;
}

/*
 * The same image without building it in libelf first.  A new libelf
 * object costs about 400 bytes and an allocation per section, and it
 * only computes a layout here: for a relocatable object with no program
 * headers that layout is simple, and computed below exactly as libelf's
 * elf_update(ELF_C_WRITE) computes it (elf32_updatenull.c, without
 * ELF_F_LAYOUT): the ELF header, then each section in index order at the
 * next multiple of the larger of its sh_addralign and its data's
 * alignment (which becomes its sh_addralign), sh_size its data's size,
 * sh_entsize the entry size of the types libelf knows, and the section
 * header table at the next multiple of the word size.  Anything else
 * (types whose entry size libelf derives from the machine, compressed
 * sections, values libelf would refuse) goes through libelf as before.
 */
struct out_data {
	const void *buf;
	uint64_t size;
	Elf_Type type;
	uint64_t align;
	bool file_order;	/* the input's own bytes: out as they are */
};

/* What one direct write needs to know of the object, found once. */
struct plan {
	bool is64;
	uint64_t limit;		/* largest offset or size the class holds */
	size_t sym_size, rela_size, rel_size, addr_size;
	unsigned enc;
	const uint8_t *image;	/* the input file's bytes, or NULL */
	size_t image_size;
	/*
	 * For the append writer: an input section it keeps in place need not
	 * be convertible, as it is not written (plan_append checks those it
	 * moves).
	 */
	bool in_place;
};

/*
 * The type of the data libelf's elf_getdata gives an unchanged section
 * (its table of section types, elf_getdata.c), for the types whose
 * entries have one size in the file: ELF_T_BYTE for the many it knows
 * nothing of.  ELF_T_NUM where it is something else (notes, hash and
 * version tables, dynamic sections, RELR) or this table does not know:
 * those are read through libelf as before.
 */
static Elf_Type input_type(uint32_t sh_type)
{
	switch (sh_type) {
	case SHT_NULL: case SHT_PROGBITS: case SHT_STRTAB: case SHT_NOBITS:
	case SHT_SHLIB: case 12: case 13:
		return ELF_T_BYTE;
	case SHT_SYMTAB:
		return ELF_T_SYM;
	case SHT_RELA:
		return ELF_T_RELA;
	case SHT_REL:
		return ELF_T_REL;
	case SHT_INIT_ARRAY: case SHT_FINI_ARRAY: case SHT_PREINIT_ARRAY:
		return ELF_T_ADDR;
	case SHT_GROUP: case SHT_SYMTAB_SHNDX:
		return ELF_T_WORD;
	default:
		/* SHT_RELR (19) and the GNU/Sun range libelf maps are its. */
		if (sh_type < 20 || (sh_type >= SHT_GNU_HASH &&
				     sh_type <= SHT_HISUNW))
			return ELF_T_NUM;
		return ELF_T_BYTE;
	}
}

/*
 * An unchanged section's data without asking libelf for it: elf_getdata
 * would map, check and (for the other byte order) convert every section
 * only for the writer to convert it back.  The same answer as libelf's
 * rawdata: the bytes at sh_offset, sh_size of them, a whole number of
 * entries (libelf refuses the section otherwise: so does this, and the
 * caller asks libelf, which fails as before), aligned to sh_addralign
 * except that an alignment beyond the section's offset in the file is
 * cut to the power of two at or above that offset.
 */
static bool input_out_data(const struct plan *p, const GElf_Shdr *sh,
			   struct out_data *od)
{
	Elf_Type type = input_type(sh->sh_type);
	size_t entry;
	uint64_t align = sh->sh_addralign ? sh->sh_addralign : 1;

	if (!p->image || type == ELF_T_NUM || (sh->sh_flags & SHF_COMPRESSED) ||
	    sh->sh_offset > p->image_size ||
	    sh->sh_size > p->image_size - sh->sh_offset)
		return false;
	switch (type) {
	case ELF_T_SYM:  entry = p->sym_size; break;
	case ELF_T_RELA: entry = p->rela_size; break;
	case ELF_T_REL:  entry = p->rel_size; break;
	case ELF_T_ADDR: entry = p->addr_size; break;
	case ELF_T_WORD: entry = sizeof(Elf32_Word); break;
	default:         entry = 1; break;
	}
	if (sh->sh_size % entry)
		return false;
	if (align > sh->sh_offset) {
		uint64_t v = sh->sh_offset - 1;	/* 0: all ones, then 0 */

		for (unsigned k = 1; k < 64; k *= 2)
			v |= v >> k;
		align = v + 1;
	}
	*od = (struct out_data){ sh->sh_size ? p->image + sh->sh_offset : NULL,
				 sh->sh_size, type, align, true };
	return true;
}

/* The data emit_section hands libelf for `sec`; false: not readable. */
static bool section_out_data(const struct plan *p, struct mc_section *sec,
			     struct out_data *od)
{
	uint64_t align = sec->shdr.sh_addralign ? sec->shdr.sh_addralign : 1;

	if (sec->buf) {
		*od = (struct out_data){ sec->buf, sec->buf_size, sec->buf_type,
					 align, false };
	} else if (sec->shdr.sh_type == SHT_NOBITS) {
		*od = (struct out_data){ NULL, sec->shdr.sh_size, ELF_T_BYTE,
					 align, false };
	} else if (!input_out_data(p, &sec->shdr, od)) {
		Elf_Data *in = section_data(sec);

		if (!in)
			return false;
		*od = (struct out_data){ in->d_buf, in->d_size, in->d_type,
					 in->d_align, false };
	}
	return true;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool convertible(const struct mc_object *obj, const struct plan *p,
			const struct out_data *od);

/*
 * Section `sec`'s header as libelf would lay it out at *cursor, which
 * moves past it; false where this layout is not libelf's for sure.
 */
static bool plan_section(struct mc_object *obj, const struct plan *p,
			 struct mc_section *sec, uint64_t *cursor,
			 GElf_Shdr *sh, struct out_data *od)
{
	uint64_t align, limit = p->limit;

	*sh = sec->shdr;
	if (!section_out_data(p, sec, od) || !is_pow2(od->align) ||
	    (sh->sh_flags & SHF_COMPRESSED) ||
	    (od->size && !od->buf && sh->sh_type != SHT_NOBITS))
		return false;
	align = sh->sh_addralign ? sh->sh_addralign : 1;
	if (!is_pow2(align))
		return false;
	switch (sh->sh_type) {
	case SHT_SYMTAB:
		sh->sh_entsize = p->sym_size;
		break;
	case SHT_RELA:
		sh->sh_entsize = p->rela_size;
		break;
	case SHT_REL:
		sh->sh_entsize = p->rel_size;
		break;
	case SHT_GROUP:
		if (obj->ehdr.e_type != ET_REL)
			return false;
		/* fall through */
	case SHT_SYMTAB_SHNDX:
		sh->sh_entsize = sizeof(Elf32_Word);
		break;
	case SHT_HASH:
	case SHT_DYNAMIC:
	case SHT_DYNSYM:
	case SHT_SUNW_move:
	case SHT_SUNW_syminfo:
		return false;
	default:
		break;
	}
	if (od->align > align)
		align = od->align;
	sh->sh_addralign = align;
	if (*cursor > limit - (align - 1))
		return false;
	*cursor = (*cursor + align - 1) & ~(align - 1);
	sh->sh_offset = *cursor;
	sh->sh_size = od->size;
	if (sh->sh_type != SHT_NOBITS) {
		if (od->size > limit - *cursor)
			return false;
		*cursor += od->size;
	}
	if (sh->sh_entsize > 1 && sh->sh_size % sh->sh_entsize)
		return false;
	if (!p->is64 && (sh->sh_flags > limit || sh->sh_addr > limit ||
			 sh->sh_entsize > limit))
		return false;
	/* Converted to the file's byte order in whole entries. */
	if (p->in_place && !sec->buf && sec->scn)
		return true;
	return convertible(obj, p, od);
}

/* True if `od` can be written in the file's byte order by this writer. */
static bool convertible(const struct mc_object *obj, const struct plan *p,
			const struct out_data *od)
{
	if (od->size && od->type != ELF_T_BYTE && !od->file_order) {
		size_t entry = gelf_fsize(obj->elf, od->type, 1, EV_CURRENT);

		if (entry == 0 || od->size % entry ||
		    !streamable(p->enc, od->type))
			return false;
	}
	return true;
}

/* Section 0's header as emit_object gives it and libelf completes it. */
static GElf_Shdr plan_section0(const struct mc_object *obj)
{
	GElf_Shdr zero = obj->sections[0]->shdr;

	zero.sh_size = obj->n_sections >= SHN_LORESERVE ? obj->n_sections : 0;
	if (obj->shstrndx >= SHN_LORESERVE)
		zero.sh_link = (GElf_Word)obj->shstrndx;
	return zero;
}

/* Headers v[0..n) in the file's form, out. */
static bool stream_shdrs(struct stream *w, struct mc_object *obj,
			 const struct plan *p, const GElf_Shdr *v, size_t n)
{
	size_t one = p->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	bool native = p->enc == host_byte_order();
	enum { CHUNK = STREAM_BUF / sizeof(Elf64_Shdr) };

	for (size_t i = 0; i < n; i += CHUNK) {
		size_t k = n - i < CHUNK ? n - i : CHUNK;
		/* Built in place, or in a copy converted into place. */
		uint8_t *m = native ? stream_reserve(w, k * one)
				    : malloc(k * one);
		bool ok = true;

		if (!m)
			return native ? false : mc_fail(obj, "out of memory");
		for (size_t j = 0; j < k; j++) {
			const GElf_Shdr *g = &v[i + j];

			if (p->is64)
				((Elf64_Shdr *)m)[j] = *g;
			else
				((Elf32_Shdr *)m)[j] = (Elf32_Shdr){
					g->sh_name, g->sh_type,
					(Elf32_Word)g->sh_flags,
					(Elf32_Addr)g->sh_addr,
					(Elf32_Off)g->sh_offset,
					(Elf32_Word)g->sh_size,
					g->sh_link, g->sh_info,
					(Elf32_Word)g->sh_addralign,
					(Elf32_Word)g->sh_entsize };
		}
		if (!native) {
			ok = stream_xlate(w, obj->elf, m, k * one, ELF_T_SHDR,
					  p->enc);
			free(m);
		}
		if (!ok)
			return false;
	}
	return true;
}

/* The ELF header in the file's form, out. */
static bool stream_ehdr(struct stream *w, struct mc_object *obj,
			const struct plan *p, const GElf_Ehdr *eh)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } m;

	if (p->is64) {
		memcpy(&m.e64, eh, sizeof(m.e64));	/* GElf_Ehdr is Elf64_Ehdr */
	} else {
		memcpy(m.e32.e_ident, eh->e_ident, EI_NIDENT);
		m.e32.e_type = eh->e_type;
		m.e32.e_machine = eh->e_machine;
		m.e32.e_version = eh->e_version;
		m.e32.e_entry = (Elf32_Addr)eh->e_entry;
		m.e32.e_phoff = 0;
		m.e32.e_shoff = (Elf32_Off)eh->e_shoff;
		m.e32.e_flags = eh->e_flags;
		m.e32.e_ehsize = eh->e_ehsize;
		m.e32.e_phentsize = eh->e_phentsize;
		m.e32.e_phnum = eh->e_phnum;
		m.e32.e_shentsize = eh->e_shentsize;
		m.e32.e_shnum = eh->e_shnum;
		m.e32.e_shstrndx = eh->e_shstrndx;
	}
	return stream_xlate(w, obj->elf, &m, p->is64 ? sizeof(m.e64)
						     : sizeof(m.e32),
			    ELF_T_EHDR, p->enc);
}

/* Every header of a direct write, planned once before anything is written. */
struct layout {
	struct plan p;
	GElf_Ehdr eh;
	GElf_Shdr *sh;		/* n_sections of them, malloc'd */
	uint64_t size;		/* the file's size: the end of the header table */
};

/*
 * True: planned (free l->sh); false: for libelf to lay out.  `in_place`:
 * for the append writer (see struct plan).
 */
static bool plan_layout(struct mc_object *obj, struct layout *l,
			bool in_place)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	struct plan p = {
		.is64 = is64,
		.limit = is64 ? UINT64_MAX : 0xffffffffull,
		.sym_size = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym),
		.rela_size = is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela),
		.rel_size = is64 ? sizeof(Elf64_Rel) : sizeof(Elf32_Rel),
		.addr_size = is64 ? 8 : 4,
		.enc = obj->ehdr.e_ident[EI_DATA],
		.in_place = in_place,
	};
	size_t n = obj->n_sections;
	uint64_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	uint64_t shsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t word = is64 ? 8 : 4;
	uint64_t cursor = ehsize;
	GElf_Ehdr eh = obj->ehdr;
	struct out_data od;

	if (n < 2 || eh.e_phnum != 0 || (p.enc != ELFDATA2LSB &&
					 p.enc != ELFDATA2MSB) ||
	    eh.e_version != EV_CURRENT || eh.e_entry > p.limit)
		return false;
	p.image = (const uint8_t *)elf_rawfile(obj->elf, &p.image_size);

	GElf_Shdr *sh = malloc(n * sizeof(*sh));
	if (!sh)
		return false;
	sh[0] = plan_section0(obj);
	for (size_t i = 1; i < n; i++)
		if (!plan_section(obj, &p, obj->sections[i], &cursor, &sh[i],
				  &od)) {
			free(sh);
			return false;
		}
	if (cursor > p.limit - (word - 1) ||
	    (cursor = (cursor + word - 1) & ~(word - 1),
	     n > (p.limit - cursor) / shsize)) {
		free(sh);
		return false;
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_shnum = n >= SHN_LORESERVE ? 0 : (GElf_Half)n;
	eh.e_ehsize = (GElf_Half)ehsize;
	eh.e_phoff = 0;
	eh.e_shentsize = (GElf_Half)shsize;
	eh.e_shoff = cursor;
	*l = (struct layout){ p, eh, sh, cursor + n * shsize };
	return true;
}

/*
 * The contents of the sections whose `moved` is set (all of them when
 * `moved` is NULL), at their planned offsets in index order (which is
 * file order), and then the section header table.
 */
static bool stream_layout(struct stream *w, struct mc_object *obj,
			  const struct layout *l, const bool *moved)
{
	const struct plan *p = &l->p;
	const GElf_Shdr *sh = l->sh;
	struct out_data od;
	bool ok = true;

	for (size_t i = 1; ok && i < obj->n_sections; i++) {
		if ((moved && !moved[i]) || sh[i].sh_type == SHT_NOBITS ||
		    sh[i].sh_size == 0)
			continue;
		section_out_data(p, obj->sections[i], &od);
		ok = stream_zeros(w, sh[i].sh_offset - w->pos) &&
		     (od.file_order || p->enc == host_byte_order() ||
		      od.type == ELF_T_BYTE ?
		      stream_ref(w, od.buf, (size_t)od.size) :
		      stream_xlate(w, obj->elf, od.buf, (size_t)od.size,
				   od.type, p->enc));
	}
	return ok && stream_zeros(w, l->eh.e_shoff - w->pos) &&
	       stream_shdrs(w, obj, p, sh, obj->n_sections) &&
	       stream_flush(w);
}

/* 1: written; 0: failed (obj->error); -1: for libelf to lay out. */
static int direct_object(struct mc_object *obj, int fd)
{
	struct layout l;
	struct stream w;
	bool ok;

	if (!plan_layout(obj, &l, false))
		return -1;
	if (!stream_open(&w, obj, fd)) {
		free(l.sh);
		return mc_fail(obj, "out of memory");
	}
	ok = stream_ehdr(&w, obj, &l.p, &l.eh) &&
	     stream_layout(&w, obj, &l, NULL);
	free(l.sh);
	free(w.buf);
	return ok;
}

/*
 * Appending instead of rewriting.  An object built with -g is mostly
 * DWARF that recording leaves alone, yet a rewrite copies all of it.
 * Here every section whose bytes are unchanged stays where it is in the
 * input file; each new or changed section, then a new section header
 * table, go after the input's end, and the ELF header, the only bytes
 * of the input that are written over, goes last.  Until that one small
 * write the file is the input object with unreferenced bytes after its
 * end; after it, the complete output.  A failure before it truncates
 * the file back to its size; a failure in it (or in the close after it)
 * writes the input's header back first: either way the file is byte for
 * byte as it was, and its times are set back.
 *
 * The section headers and contents are exactly those of the rewrite;
 * only offsets differ.  The rewrite through a temporary file stays for
 * whatever this cannot do for sure: a file with more than one name (a
 * hard link in ccache's cache would see the change), one that is not
 * the regular file that was read, or not writable, an input whose
 * layout the plan does not reproduce.
 */

/*
 * True if section `sec`, read with header `in`, is written as `sh` with
 * the same bytes as the input has at in->sh_offset: where it stays.  A
 * copy the model made (to change it, or in passing) counts as unchanged
 * when its bytes in the file's byte order are the input's, compared as
 * such on every host, so that all hosts choose alike.
 */
static bool kept_in_place(struct mc_object *obj, const struct plan *p,
			  const struct mc_section *sec, const GElf_Shdr *in,
			  const GElf_Shdr *sh)
{
	const uint8_t *at;
	bool same;

	/* the offset is the input's claim: checked before it is used */
	if (in->sh_type != sh->sh_type || in->sh_offset > p->image_size)
		return false;
	at = p->image + in->sh_offset;
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
		return true;
	if (in->sh_size != sh->sh_size ||
	    sh->sh_size > p->image_size - in->sh_offset)
		return false;
	if (!sec->buf)
		return true;	/* the input's own bytes, as read */
	if (sec->buf_size != sh->sh_size)
		return false;
	if (p->enc == host_byte_order() || sec->buf_type == ELF_T_BYTE)
		return memcmp(sec->buf, at, sec->buf_size) == 0;
	/* In the file's byte order first. */
	Elf_Data from = { .d_buf = sec->buf, .d_size = sec->buf_size,
			  .d_type = sec->buf_type, .d_version = EV_CURRENT };
	Elf_Data to = { .d_size = sec->buf_size, .d_version = EV_CURRENT };

	if (!(to.d_buf = malloc(sec->buf_size)))
		return false;
	same = gelf_xlatetof(obj->elf, &to, &from, p->enc) &&
	       to.d_size == sec->buf_size &&
	       memcmp(to.d_buf, at, sec->buf_size) == 0;
	free(to.d_buf);
	return same;
}

/* The changed sections of the layout go to the end; false: cannot. */
static bool plan_append(struct mc_object *obj, struct layout *l, bool *moved)
{
	const struct plan *p = &l->p;
	uint64_t in_size = (uint64_t)obj->st.st_size;
	uint64_t shsize = p->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t word = p->is64 ? 8 : 4, cursor = in_size, moved_bytes = 0;
	uint64_t pad = 0;
	size_t n = obj->n_sections;

	if (!p->image || p->image_size != in_size || obj->ehdr.e_type != ET_REL)
		return false;
	moved[0] = false;
	for (size_t i = 1; i < n; i++) {
		struct mc_section *sec = obj->sections[i];
		GElf_Shdr *sh = &l->sh[i];
		GElf_Shdr in;
		uint64_t align = sh->sh_addralign ? sh->sh_addralign : 1;

		moved[i] = !(sec->scn && gelf_getshdr(sec->scn, &in) &&
			     kept_in_place(obj, p, sec, &in, sh));
		if (!moved[i]) {
			sh->sh_offset = in.sh_offset;
			continue;
		}
		struct out_data od;

		if (!section_out_data(p, sec, &od) || !convertible(obj, p, &od))
			return false;
		if (cursor > p->limit - (align - 1))
			return false;
		uint64_t at = (cursor + align - 1) & ~(align - 1);
		pad += at - cursor;
		sh->sh_offset = cursor = at;
		if (sh->sh_type == SHT_NOBITS)
			continue;
		if (sh->sh_size > p->limit - cursor)
			return false;
		cursor += sh->sh_size;
		moved_bytes += sh->sh_size;
	}
	if (cursor > p->limit - (word - 1))
		return false;
	cursor = (cursor + word - 1) & ~(word - 1);
	if (n > (p->limit - cursor) / shsize)
		return false;
	l->eh.e_shoff = cursor;
	l->size = cursor + n * shsize;
	/*
	 * The bound mc_check_layout promised: what is added is the moved
	 * sections, their padding (within its budget) and the new header
	 * table.  More would mean this plan is wrong: leave it.
	 */
	return pad <= 4 * in_size + (4u << 20) &&
	       l->size - in_size <= moved_bytes + pad + (word - 1) +
					n * shsize;
}

/* The times the input had, set back after a failure (best effort). */
static void restore_times(struct mc_object *obj, int fd)
{
	struct timespec t[2] = { obj->st.st_atim, obj->st.st_mtim };

	(void)futimens(fd, t);
}

/*
 * Put the input back after a failed append: its own ELF header if that
 * may have been written (in part), then its size.  False if that too
 * failed; obj->error keeps the first reason.
 */
static bool undo_append(struct mc_object *obj, int fd, const uint8_t *ehdr,
			size_t ehsize, bool header)
{
	bool ok = true;

	for (size_t done = 0; header && done < ehsize;) {
		ssize_t k = pwrite(fd, ehdr + done, ehsize - done,
				   (off_t)done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ok = false;
			break;
		}
		done += (size_t)k;
	}
	while (ok && ftruncate(fd, obj->st.st_size) != 0)
		if (errno != EINTR)
			ok = false;
	restore_times(obj, fd);
	return ok;
}

/*
 * Where the append is under way, for mc_remove_pending_output: the
 * descriptor and the input's size, to cut off what was appended when a
 * signal comes before the ELF header is written.
 */
static volatile sig_atomic_t append_fd = -1;
static off_t append_size;

/* True unless the file at `target` is not the one read, or has links. */
static bool same_single_file(const struct mc_object *obj, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_nlink == 1 && st.st_dev == obj->st.st_dev &&
	       st.st_ino == obj->st.st_ino && st.st_size == obj->st.st_size;
}

/* 1: written; 0: failed, the file as it was (obj->error); -1: rewrite. */
static int append_object(struct mc_object *obj, const char *target)
{
	struct layout l;
	struct stream w;
	bool *moved;
	int fd, done = -1;
	/*
	 * The input's ELF header, copied: the mapping may show the file's
	 * new bytes once they are written.
	 */
	uint8_t old[sizeof(Elf64_Ehdr)];
	size_t ehsize;

	if (obj->st.st_nlink != 1 || !S_ISREG(obj->st.st_mode) ||
	    !plan_layout(obj, &l, true))
		return -1;
	moved = malloc(obj->n_sections * sizeof(*moved));
	if (!moved || !plan_append(obj, &l, moved))
		goto out;
	ehsize = l.p.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	memcpy(old, l.p.image, ehsize);
	fd = open(target, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		goto out;
	if (!same_single_file(obj, fd) ||
	    lseek(fd, obj->st.st_size, SEEK_SET) != obj->st.st_size ||
	    !stream_open(&w, obj, fd)) {
		close(fd);
		goto out;
	}
	append_size = obj->st.st_size;
	append_fd = fd;
	w.pos = (uint64_t)obj->st.st_size;
	done = stream_layout(&w, obj, &l, moved);
	/* The switch: from here a signal leaves the file as it is. */
	append_fd = -1;
	if (!done) {
		undo_append(obj, fd, old, ehsize, false);
	} else {
		w.pos = 0;
		done = lseek(fd, 0, SEEK_SET) == 0 ?
		       stream_ehdr(&w, obj, &l.p, &l.eh) && stream_flush(&w) :
		       mc_fail(obj, "cannot write object: %s", strerror(errno));
		if (!done)
			undo_append(obj, fd, old, ehsize, true);
	}
	free(w.buf);
	if (close(fd) != 0 && done) {
		int err = errno;

		/* Written, perhaps not all: put the input back. */
		done = mc_fail(obj, "cannot write: %s", strerror(err));
		fd = open(target, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0) {
			undo_append(obj, fd, old, ehsize, true);
			close(fd);
		}
	}
out:
	free(moved);
	free(l.sh);
	return done;
}

static bool update_failed(struct mc_object *obj)
{
	/* libelf's message drops the system's reason: keep it. */
	int err = errno;

	if (err)
		return mc_fail(obj, "cannot write object: %s: %s",
			       elf_errmsg(-1), strerror(err));
	return fail_elf(obj, "cannot write object");
}

static bool emit_object(struct mc_object *obj, int fd)
{
	int done = direct_object(obj, fd);

	if (done >= 0)
		return done == 1;

	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	bool ok = false;
	int64_t size;

	if (!out)
		return fail_elf(obj, "cannot create output");
	if (!gelf_newehdr(out, gelf_getclass(obj->elf)) ||
	    !gelf_update_ehdr(out, &obj->ehdr)) {
		fail_elf(obj, "cannot write ELF header");
		goto done;
	}
	for (size_t i = 1; i < obj->n_sections; i++)
		if (!emit_section(obj, out, obj->sections[i]))
			goto done;
	/* Section 0 carries the extended section count/name-table index. */
	if (obj->n_sections > 1) {
		GElf_Shdr zero = obj->sections[0]->shdr;

		zero.sh_size = 0;
		if (obj->shstrndx >= SHN_LORESERVE)
			zero.sh_link = (GElf_Word)obj->shstrndx;
		if (!gelf_update_shdr(elf_getscn(out, 0), &zero)) {
			fail_elf(obj, "cannot write section 0");
			goto done;
		}
	}
	errno = 0;
	if ((size = elf_update(out, ELF_C_NULL)) < 0) {
		update_failed(obj);
		goto done;
	}
	if ((done = stream_object(obj, out, fd, size)) >= 0) {
		ok = done == 1;
		goto done;
	}
	errno = 0;
	if (elf_update(out, ELF_C_WRITE) < 0) {
		update_failed(obj);
		goto done;
	}
	ok = true;
done:
	elf_end(out);
	return ok;
}

static char *temp_path_beside(const char *path)
{
	char *copy = strdup(path);
	char *tmp = NULL;

	if (!copy)
		return NULL;
	const char *dir = dirname(copy);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (asprintf(&tmp, "%s/.%s.rmc-XXXXXX", dir, base) < 0)
		tmp = NULL;
	free(copy);
	return tmp;
}

/*
 * The temporary file being written, for mc_remove_pending_output() to
 * delete from a signal handler: only a flag and a fixed buffer, which a
 * handler may read safely.
 */
static char pending_path[4096];
static volatile sig_atomic_t pending;

static void set_pending(const char *tmp)
{
	pending = 0;
	if (tmp && strlen(tmp) < sizeof(pending_path)) {
		strcpy(pending_path, tmp);
		pending = 1;
	}
}

void mc_remove_pending_output(void)
{
	int fd = append_fd;

	if (pending)
		unlink(pending_path);
	if (fd >= 0)
		(void)ftruncate(fd, append_size);
}

/* Write through a symbolic link to the file it names, as ld does. */
static char *output_path(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : strdup(path);
}

/*
 * A linked image keeps its layout: program headers give file offsets
 * that must not move, so the input's bytes are copied and each changed
 * section (same size as before) is written over its old bytes, in the
 * file's byte order.
 */
static bool patch_section_bytes(struct mc_object *obj, uint8_t *file,
				size_t file_size, struct mc_section *sec)
{
	GElf_Shdr *sh = &sec->shdr;
	Elf_Data src = { .d_buf = sec->buf, .d_size = sec->buf_size,
			 .d_type = sec->buf_type, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_size = sh->sh_size, .d_version = EV_CURRENT };

	if (!sec->scn || sh->sh_type == SHT_NOBITS ||
	    sh->sh_offset > file_size || sh->sh_size > file_size - sh->sh_offset)
		return mc_fail(obj, "%s: cannot be rewritten in place",
			       sec->name);
	dst.d_buf = file + sh->sh_offset;
	if (!gelf_xlatetof(obj->elf, &dst, &src,
			   obj->ehdr.e_ident[EI_DATA]) ||
	    dst.d_size != sh->sh_size)
		return mc_fail(obj, "%s: changed size; cannot be rewritten in "
			       "place", sec->name);
	return true;
}

static bool emit_image(struct mc_object *obj, int fd)
{
	size_t size = (size_t)obj->st.st_size;
	uint8_t *file = malloc(size ? size : 1);
	bool ok = file != NULL;

	if (!ok)
		return mc_fail(obj, "out of memory");
	for (size_t done = 0; ok && done < size;) {
		ssize_t n = pread(obj->fd, file + done, size - done,
				  (off_t)done);
		if (n <= 0)
			ok = mc_fail(obj, "cannot read: %s",
				     n ? strerror(errno) : "file shrank");
		else
			done += (size_t)n;
	}
	for (size_t i = 1; ok && i < obj->n_sections; i++)
		if (obj->sections[i]->buf)
			ok = patch_section_bytes(obj, file, size,
						 obj->sections[i]);
	for (size_t done = 0; ok && done < size;) {
		ssize_t n = write(fd, file + done, size - done);
		if (n <= 0)
			ok = mc_fail(obj, "cannot write: %s", strerror(errno));
		else
			done += (size_t)n;
	}
	free(file);
	return ok;
}

static bool write_replacement(struct mc_object *obj, const char *target,
			      bool (*emit)(struct mc_object *, int))
{
	char *tmp = temp_path_beside(target);
	int fd;
	bool ok = false;

	if (!tmp)
		return mc_fail(obj, "out of memory");
	fd = mkstemp(tmp);
	if (fd < 0) {
		mc_fail(obj, "cannot create temporary file: %s", strerror(errno));
		free(tmp);
		return false;
	}
	set_pending(tmp);
	if (fchmod(fd, obj->st.st_mode & 07777) != 0) {
		mc_fail(obj, "cannot set mode: %s", strerror(errno));
	} else if (emit(obj, fd)) {
		/* Keep the owner where we are allowed to (root in a build). */
		if (fchown(fd, obj->st.st_uid, obj->st.st_gid) != 0 &&
		    errno != EPERM)
			mc_fail(obj, "cannot set owner: %s", strerror(errno));
		else
			ok = true;
	}
	if (close(fd) != 0 && ok)
		ok = mc_fail(obj, "cannot write: %s", strerror(errno));
	if (ok && rename(tmp, target) != 0)
		ok = mc_fail(obj, "cannot replace: %s", strerror(errno));
	if (!ok)
		unlink(tmp);
	set_pending(NULL);
	free(tmp);
	return ok;
}

bool mc_object_write(struct mc_object *obj)
{
	char *target;
	bool ok;

	if (!number_symbols(obj))
		return false;
	if (!(target = output_path(obj->path)))
		return mc_fail(obj, "out of memory");
	int appended = append_object(obj, target);
	ok = appended >= 0 ? appended == 1
			   : write_replacement(obj, target, emit_object);
	free(target);
	return ok;
}

bool mc_object_write_in_place(struct mc_object *obj)
{
	char *target;
	bool ok;

	if (!number_symbols(obj))
		return false;
	if (!(target = output_path(obj->path)))
		return mc_fail(obj, "out of memory");
	ok = write_replacement(obj, target, emit_image);
	free(target);
	return ok;
}

const char *mc_symbol_name_in(struct mc_object *obj,
			      struct mc_section *symtab, size_t i)
{
	Elf_Data *d = section_data(symtab);
	GElf_Sym sym;

	if (!d || (symtab->shdr.sh_type != SHT_SYMTAB &&
		   symtab->shdr.sh_type != SHT_DYNSYM) ||
	    i > INT_MAX || !gelf_getsym(d, (int)i, &sym))
		return NULL;
	return elf_strptr(obj->elf, symtab->shdr.sh_link, sym.st_name);
}
