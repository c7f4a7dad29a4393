/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - the function symbols of the loaded objects, for names:
 * each object's symbol table and its string table read with pread on
 * first use, kept sorted by address.  A stripped object has no
 * .symtab; its .dynsym (the functions it exports) stands in, and where
 * neither names a function, enabling by address falls back on the
 * engine's max_entry_offset rule.  The engine asks them where a
 * function starts (mc_plat_func_bounds) and names a refused site with
 * them (mc_plat_report).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"
#include "../../arch/search.h"

/*
 * Where a function's code starts: an ARM Thumb function's symbol (and
 * address, which callers pass and callbacks get back) has bit 0 set
 * (the backend's MC_RT_ISA_BITS).
 */
#define CODE_START(a) ((a) & ~(uintptr_t)MC_RT_ISA_BITS)

/* Serialises the first load of an object's symbols. */
static pthread_mutex_t syms_lock = PTHREAD_MUTEX_INITIALIZER;

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

	if (fd < 0 || !syms || !mc_host_read_shdrs(fd, &h)) {
		if (fd >= 0)
			close(fd);
		return syms;
	}
	i = symtab_index(&h);
	if (i) {
		const ElfW(Shdr) *str = &h.sh[h.sh[i].sh_link];

		st = mc_host_read_at(fd, (off_t)h.sh[i].sh_offset,
				     h.sh[i].sh_size);
		syms->strtab = mc_host_read_at(fd, (off_t)str->sh_offset,
				       str->sh_size + 1);
		if (st && syms->strtab) {
			syms->strtab[str->sh_size] = '\0';
			collect(syms, st, h.sh[i].sh_size / sizeof(*st),
				str->sh_size, obj->bias);
		}
	}
	free(st);
	mc_host_free_shdrs(&h);
	close(fd);
	return syms;
}

const struct host_syms *mc_host_obj_syms(struct host_obj *obj)
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

void mc_host_obj_funcs(struct host_obj *obj,
		       void (*fn)(uintptr_t start, size_t size,
				  const char *name, void *arg),
		       void *arg)
{
	const struct host_syms *syms = mc_host_obj_syms(obj);

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
		s = sym_at(mc_host_obj_syms(obj), addr);
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

bool mc_host_func_name_copy(uintptr_t addr, char *buf, size_t len)
{
	const struct func_sym *s = NULL;
	struct host_obj *obj;

	if (!mc_host_objs_read())
		return false;
	obj = mc_host_obj_of(addr);
	if (obj)
		s = sym_at(mc_host_obj_syms(obj), addr);
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

bool mc_plat_func_bounds(uintptr_t addr, uintptr_t *start, size_t *size)
{
	return mc_host_sym_by_addr(addr, start, size, NULL);
}

void mc_plat_report(uintptr_t addr, const uint8_t *bytes, size_t n,
		    const char *why)
{
	unsigned long off = 0;
	const char *name = mcount_func_name(addr, &off);
	char where[256] = "";

	if (name)
		snprintf(where, sizeof(where), " <%s+0x%lx>", name, off);
	flockfile(stderr);
	fprintf(stderr, "mcount: refused site %#lx%s:", (unsigned long)addr,
		where);
	for (size_t i = 0; i < n && i < 8; i++)
		fprintf(stderr, " %02x", bytes[i]);
	fprintf(stderr, "%s%s\n", n ? ": " : " ", why);
	funlockfile(stderr);
}
