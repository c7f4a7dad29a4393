/*
 * hostsym.c - function names for the hosted runtime, read from the
 * running program's own .symtab in /proc/self/exe (or in the shared
 * object the runtime is linked into, hosted.c's mc_host_path).
 *
 * Read-only and simple: the section headers, the symbol table and its
 * string table are read once with pread, and the function symbols are
 * kept sorted by address.  A stripped program has no .symtab; then names
 * are unavailable and enabling by address falls back on the engine's
 * max_entry_offset rule.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
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

static struct {
	struct func_sym *v;
	size_t n;
	char *strtab;
} syms;

static pthread_once_t syms_once = PTHREAD_ONCE_INIT;

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

static int by_start(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	/* among equal starts the largest size sorts last, and wins lookups */
	if (x->start != y->start)
		return x->start > y->start ? 1 : -1;
	return (x->size > y->size) - (x->size < y->size);
}

/* Keep the defined function symbols of a loaded .symtab. */
static void collect(const ElfW(Sym) *st, size_t n, size_t strsz)
{
	uintptr_t bias = mc_host_bias();

	syms.v = calloc(n ? n : 1, sizeof(*syms.v));
	if (!syms.v)
		return;
	for (size_t i = 0; i < n; i++) {
		if (ELF64_ST_TYPE(st[i].st_info) != STT_FUNC ||
		    st[i].st_shndx == SHN_UNDEF || st[i].st_name >= strsz)
			continue;
		syms.v[syms.n++] = (struct func_sym){
			.start = bias + st[i].st_value,
			.size = st[i].st_size,
			.name = syms.strtab + st[i].st_name,
		};
	}
	qsort(syms.v, syms.n, sizeof(*syms.v), by_start);
}

static void load_from(int fd)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh;
	ElfW(Sym) *st = NULL;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || !header_ok(&eh))
		return;
	sh = read_at(fd, (off_t)eh.e_shoff, eh.e_shnum * sizeof(*sh));
	for (size_t i = 0; sh && i < eh.e_shnum; i++) {
		const ElfW(Shdr) *str;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum ||
		    sh[i].sh_entsize != sizeof(*st))
			continue;
		str = &sh[sh[i].sh_link];
		st = read_at(fd, (off_t)sh[i].sh_offset, sh[i].sh_size);
		syms.strtab = read_at(fd, (off_t)str->sh_offset,
				      str->sh_size + 1);
		if (st && syms.strtab) {
			syms.strtab[str->sh_size] = '\0';
			collect(st, sh[i].sh_size / sizeof(*st), str->sh_size);
		}
		break;
	}
	free(st);
	free(sh);
}

static void load_symbols(void)
{
	int fd = open(mc_host_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	load_from(fd);
	close(fd);
}

/*
 * The non-empty allocated section called `name` of the file at `fd`:
 * its address and size as the file says (before the load bias).  1 if
 * there is one, 0 if none, 2 if there are several (mold makes one
 * output section per name and set of flags), -1 if the section headers
 * cannot be read.
 */
static int section_in(int fd, const char *name, uintptr_t *addr,
		      size_t *size)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh = NULL;
	char *names = NULL;
	size_t len = strlen(name);
	int found = -1;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || !header_ok(&eh) ||
	    eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum)
		return -1;
	sh = read_at(fd, (off_t)eh.e_shoff, eh.e_shnum * sizeof(*sh));
	if (sh)
		names = read_at(fd, (off_t)sh[eh.e_shstrndx].sh_offset,
				sh[eh.e_shstrndx].sh_size);
	if (names)
		found = 0;
	for (size_t i = 0; names && i < eh.e_shnum; i++) {
		size_t at = sh[i].sh_name, room = sh[eh.e_shstrndx].sh_size;

		if (!(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_size ||
		    at >= room || room - at <= len ||
		    memcmp(names + at, name, len + 1))
			continue;
		*addr = (uintptr_t)sh[i].sh_addr;
		*size = (size_t)sh[i].sh_size;
		if (++found == 2)
			break;
	}
	free(names);
	free(sh);
	return found;
}

int mc_host_section(const char *name, uintptr_t *addr, size_t *size)
{
	int fd = open(mc_host_path(), O_RDONLY | O_CLOEXEC);
	int found;

	if (fd < 0)
		return -1;
	found = section_in(fd, name, addr, size);
	close(fd);
	if (found == 1)
		*addr += mc_host_bias();
	return found;
}

static bool have_symbols(void)
{
	pthread_once(&syms_once, load_symbols);
	return syms.n > 0;
}

static bool sym_starts_by(const void *sym, const void *addr)
{
	return CODE_START(((const struct func_sym *)sym)->start) <=
	       *(const uintptr_t *)addr;
}

bool mc_host_sym_by_addr(uintptr_t addr, uintptr_t *start, size_t *size,
			 const char **name)
{
	size_t lo;
	const struct func_sym *s;

	if (!have_symbols())
		return false;
	/* the last symbol starting at or before addr */
	lo = mc_partition_point(syms.v, syms.n, sizeof(*syms.v), &addr,
				sym_starts_by);
	if (lo == 0)
		return false;
	s = &syms.v[lo - 1];
	if (addr - CODE_START(s->start) >= (s->size ? s->size : 1))
		return false;
	*start = s->start;
	if (size)
		*size = s->size ? s->size : 1;
	if (name)
		*name = s->name;
	return true;
}

int mc_host_sym_by_name(const char *name, uintptr_t *start)
{
	if (!have_symbols())
		return MCOUNT_ENOSYMTAB;
	for (size_t i = 0; i < syms.n; i++) {
		if (strcmp(syms.v[i].name, name) == 0) {
			*start = syms.v[i].start;
			return 0;
		}
	}
	return MCOUNT_ENOSYM;
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
	int err = mc_host_sym_by_name(name, &start);

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
 * Every function whose name matches `pattern` (fnmatch(3)), in one
 * batch; those without a hook are passed over.  Returns how many hooked
 * ones are now in the state asked for, or an error.
 */
static int set_by_glob(const char *pattern, bool on)
{
	uintptr_t *funcs;
	size_t n = 0;
	int r;

	if (!have_symbols())
		return MCOUNT_ENOSYMTAB;
	funcs = malloc(syms.n * sizeof(*funcs) + 1);
	if (!funcs)
		return MCOUNT_ENOMEM;
	for (size_t i = 0; i < syms.n; i++)
		if (fnmatch(pattern, syms.v[i].name, 0) == 0)
			funcs[n++] = syms.v[i].start;
	r = n ? mc_rt_set_many(funcs, n, on, true) : MCOUNT_ENOSYM;
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
