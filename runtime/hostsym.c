/* SPDX-License-Identifier: MIT */
/*
 * hostsym.c - what the hosted runtime reads from the files of the
 * loaded objects: their sections (where a table is, where a PLT is),
 * their dynamic relocations (which PLT entries lead to the hook stubs),
 * and their function symbols, for names.
 *
 * Read-only and simple: the section headers, the symbol table and its
 * string table are read with pread, and each object's function symbols
 * are kept sorted by address, loaded on first use.  A stripped object
 * has no .symtab; its .dynsym (the functions it exports) stands in,
 * and where neither names a function, enabling by address falls back
 * on the engine's max_entry_offset rule.
 *
 * Names: "fn" is the first object in load order (the program, then the
 * libraries as loaded) that defines fn; "obj:fn" is obj's, where obj is
 * the object's file name, its full path, or a prefix of its file name
 * followed by a dot ("libz.so" for libz.so.1.3).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcount.h>

#include "hosted.h"
#include "../arch/search.h"

/*
 * Where a function's code starts: an ARM Thumb function's symbol (and
 * address, which callers pass and callbacks get back) has bit 0 set
 * (the backend's MC_RT_ISA_BITS).
 */
#define CODE_START(a) ((a) & ~(uintptr_t)MC_RT_ISA_BITS)

struct func_sym {
	uintptr_t start;	/* run-time address */
	size_t size;
	const char *name;	/* into strtab */
};

struct host_syms {
	struct func_sym *v;
	size_t n;
	char *strtab;
};

/* Serialises the first load of an object's symbols. */
static pthread_mutex_t syms_lock = PTHREAD_MUTEX_INITIALIZER;

/* n bytes at off, in fresh memory; NULL on a short read. */
static void *read_at(int fd, off_t off, size_t n)
{
	char *buf = malloc(n ? n : 1);

	if (buf && pread(fd, buf, n, off) != (ssize_t)n) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool header_ok(const ElfW(Ehdr) *eh)
{
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ?
					 ELFCLASS64 : ELFCLASS32) &&
	       eh->e_shentsize == sizeof(ElfW(Shdr)) && eh->e_shnum > 0;
}

/* A file's section headers and their names. */
struct shdrs {
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh;
	char *names;
	size_t names_size;
};

static bool read_shdrs(int fd, struct shdrs *h)
{
	h->sh = NULL;
	h->names = NULL;
	if (pread(fd, &h->eh, sizeof(h->eh), 0) != sizeof(h->eh) ||
	    !header_ok(&h->eh) || h->eh.e_shstrndx == SHN_UNDEF ||
	    h->eh.e_shstrndx >= h->eh.e_shnum)
		return false;
	h->sh = read_at(fd, (off_t)h->eh.e_shoff,
			h->eh.e_shnum * sizeof(*h->sh));
	if (!h->sh)
		return false;
	h->names_size = h->sh[h->eh.e_shstrndx].sh_size;
	h->names = read_at(fd, (off_t)h->sh[h->eh.e_shstrndx].sh_offset,
			   h->names_size);
	if (!h->names) {
		free(h->sh);
		h->sh = NULL;
		return false;
	}
	return true;
}

static void free_shdrs(struct shdrs *h)
{
	free(h->names);
	free(h->sh);
}

static bool shdr_named(const struct shdrs *h, size_t i, const char *name)
{
	size_t at = h->sh[i].sh_name, len = strlen(name);

	return at < h->names_size && h->names_size - at > len &&
	       memcmp(h->names + at, name, len + 1) == 0;
}

/* ---- sections ----------------------------------------------------------- */

/*
 * The non-empty allocated section called `name`: its address and size
 * as the file says (before the load bias).  1 if there is one, 0 if
 * none, 2 if there are several (mold makes one output section per name
 * and set of flags).
 */
static int section_in(const struct shdrs *h, const char *name,
		      uintptr_t *addr, size_t *size)
{
	int found = 0;

	for (size_t i = 0; i < h->eh.e_shnum; i++) {
		if (!(h->sh[i].sh_flags & SHF_ALLOC) || !h->sh[i].sh_size ||
		    !shdr_named(h, i, name))
			continue;
		*addr = (uintptr_t)h->sh[i].sh_addr;
		*size = (size_t)h->sh[i].sh_size;
		if (++found == 2)
			break;
	}
	return found;
}

int mc_host_section(const struct host_obj *obj, const char *name,
		    uintptr_t *addr, size_t *size)
{
	int fd = open(obj->file, O_RDONLY | O_CLOEXEC);
	struct shdrs h;
	int found = -1;

	if (fd < 0)
		return -1;
	if (read_shdrs(fd, &h)) {
		found = section_in(&h, name, addr, size);
		free_shdrs(&h);
	}
	close(fd);
	if (found == 1)
		*addr += obj->bias;
	return found;
}

/* ---- PLT entries of the hook stubs --------------------------------------- */

#define STUB_STR_(x) #x
#define STUB_STR(x) STUB_STR_(x)

/* The style a hook calling the symbol `name` has, or -1. */
static int stub_style(const char *name)
{
#ifdef MC_RT_FENTRY_STUB
	if (strcmp(name, STUB_STR(MC_RT_FENTRY_STUB)) == 0)
		return MCOUNT_STYLE_FENTRY;
#endif
#ifdef MC_RT_MCOUNT_STUB
	if (strcmp(name, STUB_STR(MC_RT_MCOUNT_STUB)) == 0)
		return MCOUNT_STYLE_MCOUNT;
#endif
	(void)name;
	return -1;
}

/* The run-time addresses of `obj`'s GOT slots bound to a hook stub. */
struct stub_slots {
	uintptr_t slot[MC_RT_IMAGE_STUBS];
	uint8_t style[MC_RT_IMAGE_STUBS];
	unsigned n;
};

/*
 * Where the relative relocations the loader applies without a look at
 * their symbol are: the first `count` entries of the REL or RELA table
 * at `addr` (its DT_RELCOUNT or DT_RELACOUNT).  A linker that sorts
 * relocations (ld's -z combreloc, the default; lld, mold) puts them
 * there and says how many, and the loader trusts that count as we do.
 * In a PIE the table's own entries are such relocations, one a site,
 * so they are skipped rather than read.
 */
struct relatives {
	uintptr_t addr;
	size_t count;
};

/* From the file's SHT_DYNAMIC section: its d_ptr values as linked. */
static struct relatives relatives_of(int fd, const struct shdrs *h)
{
	struct relatives r = { 0, 0 };

	for (size_t i = 0; i < h->eh.e_shnum; i++) {
		const ElfW(Shdr) *ds = &h->sh[i];
		size_t n = ds->sh_size / sizeof(ElfW(Dyn));
		ElfW(Dyn) *dyn;

		if (ds->sh_type != SHT_DYNAMIC ||
		    ds->sh_entsize != sizeof(ElfW(Dyn)))
			continue;
		dyn = read_at(fd, (off_t)ds->sh_offset, n * sizeof(*dyn));
		for (size_t k = 0; dyn && k < n && dyn[k].d_tag != DT_NULL; k++) {
			if (dyn[k].d_tag == DT_RELA || dyn[k].d_tag == DT_REL)
				r.addr = (uintptr_t)dyn[k].d_un.d_ptr;
			else if (dyn[k].d_tag == DT_RELACOUNT ||
				 dyn[k].d_tag == DT_RELCOUNT)
				r.count = (size_t)dyn[k].d_un.d_val;
		}
		free(dyn);
		break;
	}
	return r;
}

/* Relocations read a buffer at a time, so that a big table costs no copy. */
#define RELOC_CHUNK (64 * 1024)

/*
 * One relocation, which names dynamic symbol `si`: if that is a hook
 * stub, its slot goes to `out`.
 */
static void note_slot(const ElfW(Rel) *r, const ElfW(Sym) *syms, size_t nsyms,
		      const char *names, size_t names_size,
		      const struct host_obj *obj, struct stub_slots *out)
{
#if UINTPTR_MAX > 0xffffffffu
	size_t si = ELF64_R_SYM(r->r_info);
#else
	size_t si = ELF32_R_SYM(r->r_info);
#endif
	int style;

	if (!si || si >= nsyms || syms[si].st_name >= names_size)
		return;
	style = stub_style(names + syms[si].st_name);
	if (style < 0 || out->n == MC_RT_IMAGE_STUBS)
		return;
	out->slot[out->n] = obj->bias + (uintptr_t)r->r_offset;
	out->style[out->n++] = (uint8_t)style;
}

/*
 * Relocations of section `i` (REL or RELA, against the dynamic
 * symbols), past the relative ones `rel` says lead it.
 */
static void slots_in(int fd, const struct shdrs *h, size_t i,
		     const struct relatives *rel, const struct host_obj *obj,
		     struct stub_slots *out)
{
	const ElfW(Shdr) *rs = &h->sh[i], *sym, *str;
	size_t ent = rs->sh_type == SHT_RELA ? sizeof(ElfW(Rela)) :
		     sizeof(ElfW(Rel));
	size_t n = rs->sh_size / ent, k = 0, nsyms;
	char *buf = NULL, *names = NULL;
	ElfW(Sym) *syms = NULL;

	if (rs->sh_entsize != ent || rs->sh_link >= h->eh.e_shnum)
		return;
	sym = &h->sh[rs->sh_link];
	if (sym->sh_type != SHT_DYNSYM || sym->sh_link >= h->eh.e_shnum)
		return;
	str = &h->sh[sym->sh_link];
	if (rel->count && (uintptr_t)rs->sh_addr == rel->addr)
		k = rel->count < n ? rel->count : n;
	if (k == n)
		return;
	buf = malloc(RELOC_CHUNK);
	syms = read_at(fd, (off_t)sym->sh_offset, sym->sh_size);
	names = read_at(fd, (off_t)str->sh_offset, str->sh_size + 1);
	nsyms = sym->sh_size / sizeof(ElfW(Sym));
	if (names)
		names[str->sh_size] = '\0';
	while (buf && syms && names && k < n) {
		size_t m = n - k < RELOC_CHUNK / ent ? n - k : RELOC_CHUNK / ent;

		if (pread(fd, buf, m * ent, (off_t)(rs->sh_offset + k * ent)) !=
		    (ssize_t)(m * ent))
			break;
		/* r_offset and r_info lead both Rel and Rela */
		for (size_t j = 0; j < m; j++)
			note_slot((const ElfW(Rel) *)(buf + j * ent), syms,
				  nsyms, names, str->sh_size, obj, out);
		k += m;
	}
	free(names);
	free(syms);
	free(buf);
}

#ifdef MC_RT_PLT_ARCH
static void add_stub(struct mc_rt_image_desc *d, uintptr_t a, uint8_t style)
{
	if (d->nstubs == MC_RT_IMAGE_STUBS)
		return;
	d->stub[d->nstubs] = a;
	d->stub_style[d->nstubs++] = style;
}

/* Entries of the PLT section `i` that jump through one of `slots`. */
static void plt_entries(const struct shdrs *h, size_t i,
			const struct host_obj *obj,
			const struct stub_slots *slots,
			struct mc_rt_image_desc *d)
{
	const struct mc_arch *arch = MC_RT_ARCH;
	uintptr_t lo = obj->bias + h->sh[i].sh_addr;
	uintptr_t hi = lo + h->sh[i].sh_size;

	/* the decoder reads no further than the section's end */
	for (uintptr_t a = lo; a < hi; a += arch->plt_step) {
		uintptr_t slot = (uintptr_t)mc_plt_slot(
			arch, (const uint8_t *)a, hi - a, a, d->got);

		for (unsigned k = 0; slot && k < slots->n; k++) {
			if (slot != slots->slot[k])
				continue;
			add_stub(d, a, slots->style[k]);
#ifdef MC_RT_PLT_ALIAS
			/* another way into the same entry (ARM's Thumb stub) */
			if (a >= lo + 4 &&
			    mc_plt_slot(arch, (const uint8_t *)a - 4, hi - a + 4,
					(a - 4) | 1, d->got) == slot)
				add_stub(d, (a - 4) | 1, slots->style[k]);
#endif
		}
	}
}

#endif

/*
 * The GOT slots of `obj` bound by name to a hook stub, and (backends
 * with MC_RT_PLT_ARCH) its PLT entries that jump through them.
 */
void mc_host_plt_stubs(const struct host_obj *obj, struct mc_rt_image_desc *d)
{
	int fd = open(obj->file, O_RDONLY | O_CLOEXEC);
	struct stub_slots slots = { .n = 0 };
	struct relatives rel;
	struct shdrs h;

	if (fd < 0)
		return;
	if (!read_shdrs(fd, &h)) {
		close(fd);
		return;
	}
	rel = relatives_of(fd, &h);
	for (size_t i = 0; i < h.eh.e_shnum; i++)
		if (h.sh[i].sh_type == SHT_RELA || h.sh[i].sh_type == SHT_REL)
			slots_in(fd, &h, i, &rel, obj, &slots);
	for (unsigned k = 0; k < slots.n && d->nstubs < MC_RT_IMAGE_STUBS; k++) {
		d->stub[d->nstubs] = slots.slot[k];
		d->stub_style[d->nstubs++] = slots.style[k];
	}
#ifdef MC_RT_PLT_ARCH
	for (size_t i = 0; slots.n && i < h.eh.e_shnum; i++)
		if ((h.sh[i].sh_flags & SHF_EXECINSTR) &&
		    (shdr_named(&h, i, ".plt") || shdr_named(&h, i, ".plt.sec")))
			plt_entries(&h, i, obj, &slots, d);
#endif
	free_shdrs(&h);
	close(fd);
}

/* ---- symbols ------------------------------------------------------------ */

static int by_start(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	/* among equal starts the largest size sorts last, and wins lookups */
	if (x->start != y->start)
		return x->start > y->start ? 1 : -1;
	return (x->size > y->size) - (x->size < y->size);
}

/* Keep the defined function symbols of a loaded symbol table. */
static void collect(struct host_syms *syms, const ElfW(Sym) *st, size_t n,
		    size_t strsz, uintptr_t bias)
{
	syms->v = calloc(n ? n : 1, sizeof(*syms->v));
	if (!syms->v)
		return;
	for (size_t i = 0; i < n; i++) {
		if (ELF64_ST_TYPE(st[i].st_info) != STT_FUNC ||
		    st[i].st_shndx == SHN_UNDEF || st[i].st_name >= strsz)
			continue;
		syms->v[syms->n++] = (struct func_sym){
			.start = bias + st[i].st_value,
			.size = st[i].st_size,
			.name = syms->strtab + st[i].st_name,
		};
	}
	qsort(syms->v, syms->n, sizeof(*syms->v), by_start);
}

/* The section index of the symbol table to use: .symtab, else .dynsym. */
static size_t symtab_index(const struct shdrs *h)
{
	size_t dyn = 0;

	for (size_t i = 0; i < h->eh.e_shnum; i++) {
		if (h->sh[i].sh_link >= h->eh.e_shnum ||
		    h->sh[i].sh_entsize != sizeof(ElfW(Sym)))
			continue;
		if (h->sh[i].sh_type == SHT_SYMTAB)
			return i;
		if (h->sh[i].sh_type == SHT_DYNSYM && !dyn)
			dyn = i;
	}
	return dyn;
}

static struct host_syms *load_symbols(const struct host_obj *obj)
{
	struct host_syms *syms = calloc(1, sizeof(*syms));
	int fd = open(obj->file, O_RDONLY | O_CLOEXEC);
	ElfW(Sym) *st = NULL;
	struct shdrs h;
	size_t i;

	if (fd < 0 || !syms || !read_shdrs(fd, &h)) {
		if (fd >= 0)
			close(fd);
		return syms;
	}
	i = symtab_index(&h);
	if (i) {
		const ElfW(Shdr) *str = &h.sh[h.sh[i].sh_link];

		st = read_at(fd, (off_t)h.sh[i].sh_offset, h.sh[i].sh_size);
		syms->strtab = read_at(fd, (off_t)str->sh_offset,
				       str->sh_size + 1);
		if (st && syms->strtab) {
			syms->strtab[str->sh_size] = '\0';
			collect(syms, st, h.sh[i].sh_size / sizeof(*st),
				str->sh_size, obj->bias);
		}
	}
	free(st);
	free_shdrs(&h);
	close(fd);
	return syms;
}

/* `obj`'s symbols, loaded on first use.  Under mc_host_objs_read(). */
static const struct host_syms *obj_syms(struct host_obj *obj)
{
	if (__atomic_load_n(&obj->syms_state, __ATOMIC_ACQUIRE))
		return obj->syms;
	pthread_mutex_lock(&syms_lock);
	if (!obj->syms_state) {
		obj->syms = load_symbols(obj);
		__atomic_store_n(&obj->syms_state, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&syms_lock);
	return obj->syms;
}

void mc_host_syms_fork(void)
{
	static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	syms_lock = fresh;
}

void mc_host_syms_free(struct host_obj *obj)
{
	if (obj->syms) {
		free(obj->syms->v);
		free(obj->syms->strtab);
		free(obj->syms);
	}
	obj->syms = NULL;
	obj->syms_state = 0;
}

void mc_host_obj_funcs(struct host_obj *obj,
		       void (*fn)(uintptr_t start, size_t size,
				  const char *name, void *arg),
		       void *arg)
{
	const struct host_syms *syms = obj_syms(obj);

	for (size_t i = 0; syms && i < syms->n; i++)
		fn(syms->v[i].start, syms->v[i].size ? syms->v[i].size : 1,
		   syms->v[i].name, arg);
}

static bool sym_starts_by(const void *sym, const void *addr)
{
	return CODE_START(((const struct func_sym *)sym)->start) <=
	       *(const uintptr_t *)addr;
}

/* The symbol of `syms` containing `addr`, or NULL. */
static const struct func_sym *sym_at(const struct host_syms *syms,
				     uintptr_t addr)
{
	const struct func_sym *s;
	size_t lo;

	if (!syms || !syms->n)
		return NULL;
	/* the last symbol starting at or before addr */
	lo = mc_partition_point(syms->v, syms->n, sizeof(*syms->v), &addr,
				sym_starts_by);
	if (lo == 0)
		return NULL;
	s = &syms->v[lo - 1];
	if (addr - CODE_START(s->start) >= (s->size ? s->size : 1))
		return NULL;
	return s;
}

bool mc_host_sym_by_addr(uintptr_t addr, uintptr_t *start, size_t *size,
			 const char **name)
{
	const struct func_sym *s = NULL;
	struct host_obj *obj;

	if (!mc_host_objs_read())
		return false;
	obj = mc_host_obj_of(addr);
	if (obj)
		s = sym_at(obj_syms(obj), addr);
	if (s) {
		*start = s->start;
		if (size)
			*size = s->size ? s->size : 1;
		if (name)
			*name = s->name;
	}
	mc_host_objs_done();
	return s != NULL;
}

/* True if `want` names `obj` (see the top of this file). */
static bool obj_named(const struct host_obj *obj, const char *want, size_t n)
{
	const char *base = strrchr(obj->name, '/');

	base = base ? base + 1 : obj->name;
	if ((strlen(obj->name) == n && memcmp(obj->name, want, n) == 0) ||
	    (strlen(base) == n && memcmp(base, want, n) == 0))
		return true;
	return strncmp(base, want, n) == 0 && base[n] == '.';
}

/*
 * Split "obj:fn" into the object part (*obj, *obj_len) and the function
 * part, returned; no colon: *obj NULL.  C++ names hold "::", never a
 * single colon, so the last colon not part of "::" splits.
 */
static const char *split_name(const char *name, const char **obj,
			      size_t *obj_len)
{
	const char *colon = NULL;

	for (const char *p = name; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			p++;
			continue;
		}
		if (*p == ':')
			colon = p;
	}
	*obj = colon ? name : NULL;
	*obj_len = colon ? (size_t)(colon - name) : 0;
	return colon ? colon + 1 : name;
}

/* The function `name` ("fn" or "obj:fn"): 0, MCOUNT_ENOSYM or _ENOSYMTAB. */
static int sym_by_name(const char *name, uintptr_t *start)
{
	const char *obj_want, *fn = NULL;
	size_t obj_len;
	int err = MCOUNT_ENOSYMTAB;

	fn = split_name(name, &obj_want, &obj_len);
	if (!mc_host_objs_read())
		return MCOUNT_ENOSYMTAB;
	for (size_t k = 0; k < mc_host_nobjs && err; k++) {
		struct host_obj *obj = &mc_host_objs[k];
		const struct host_syms *syms;

		if (!obj->phdr || (obj_want && !obj_named(obj, obj_want, obj_len)))
			continue;
		if (!obj_want && !obj->image)
			continue;	/* only objects with tables, unnamed */
		syms = obj_syms(obj);
		if (!syms || !syms->n)
			continue;
		err = MCOUNT_ENOSYM;
		for (size_t i = 0; i < syms->n; i++) {
			if (strcmp(syms->v[i].name, fn) == 0) {
				*start = syms->v[i].start;
				err = 0;
				break;
			}
		}
	}
	mc_host_objs_done();
	return err;
}

bool mc_host_func_name_copy(uintptr_t addr, char *buf, size_t len)
{
	const struct func_sym *s = NULL;
	struct host_obj *obj;

	if (!mc_host_objs_read())
		return false;
	obj = mc_host_obj_of(addr);
	if (obj)
		s = sym_at(obj_syms(obj), addr);
	if (s && len) {
		size_t n = strlen(s->name);

		n = n < len - 1 ? n : len - 1;
		memcpy(buf, s->name, n);
		buf[n] = '\0';
	}
	mc_host_objs_done();
	return s != NULL;
}

const char *mcount_func_name(unsigned long addr, unsigned long *offset)
{
	uintptr_t start;
	const char *name;

	if (!mc_host_sym_by_addr((uintptr_t)addr, &start, NULL, &name))
		return NULL;
	if (offset)
		*offset = addr - CODE_START(start);
	return name;
}

static int set_by_name(const char *name, bool on)
{
	uintptr_t start;
	int err = sym_by_name(name, &start);

	if (err)
		return err;
	return on ? mcount_enable(start) : mcount_disable(start);
}

int mcount_enable_name(const char *name)
{
	return set_by_name(name, true);
}

int mcount_disable_name(const char *name)
{
	return set_by_name(name, false);
}

/*
 * Every function whose name matches `pattern` (fnmatch(3); "obj:pat"
 * for one object's), in every object with a table, in one batch; those
 * without a hook are passed over.  Returns how many hooked ones are now
 * in the state asked for, or an error.
 */
static int set_by_glob(const char *pattern, bool on)
{
	const char *obj_want, *pat;
	uintptr_t *funcs = NULL;
	size_t n = 0, cap = 0, obj_len;
	bool any = false;
	int r = 0;

	pat = split_name(pattern, &obj_want, &obj_len);
	if (!mc_host_objs_read())
		return MCOUNT_ENOSYMTAB;
	for (size_t k = 0; k < mc_host_nobjs && !r; k++) {
		struct host_obj *obj = &mc_host_objs[k];
		const struct host_syms *syms;

		if (!obj->phdr || !obj->image ||
		    (obj_want && !obj_named(obj, obj_want, obj_len)))
			continue;
		syms = obj_syms(obj);
		if (!syms || !syms->n)
			continue;
		any = true;
		for (size_t i = 0; i < syms->n && !r; i++) {
			uintptr_t *more;

			if (fnmatch(pat, syms->v[i].name, 0) != 0)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				more = realloc(funcs, cap * sizeof(*funcs));
				if (!more) {
					r = MCOUNT_ENOMEM;
					break;
				}
				funcs = more;
			}
			funcs[n++] = syms->v[i].start;
		}
	}
	mc_host_objs_done();
	if (!r)
		r = n ? mc_rt_set_many(funcs, n, on, true) :
		    any ? MCOUNT_ENOSYM : MCOUNT_ENOSYMTAB;
	free(funcs);
	return r;
}

int mcount_enable_glob(const char *pattern)
{
	return set_by_glob(pattern, true);
}

int mcount_disable_glob(const char *pattern)
{
	return set_by_glob(pattern, false);
}
