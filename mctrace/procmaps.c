/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procmaps.c - another process's mappings and the functions of the
 * objects it mapped (procmaps.h).  An object's load bias is where its
 * file's first page is mapped less the first PT_LOAD's page address (0
 * for a program linked at a fixed address, ET_EXEC).  The files are
 * read with <elf.h> alone, no libelf, so that mctrace builds with the
 * C library only for a machine that has no libelf (riscv64 in Debian
 * 12: tests/attach/vm.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procmaps.h"

static int add_line(struct pm_maps *out, const char *line, size_t *cap)
{
	unsigned long lo, hi, off;
	char perms[5];
	int path_at = 0;
	struct pm_map *m;

	if (sscanf(line, "%lx-%lx %4s %lx %*s %*s %n", &lo, &hi, perms, &off,
		   &path_at) < 4)
		return 0;
	if (out->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		m = realloc(out->m, *cap * sizeof(*m));
		if (!m)
			return -1;
		out->m = m;
	}
	m = &out->m[out->n];
	m->lo = lo;
	m->hi = hi;
	m->off = off;
	memcpy(m->perms, perms, sizeof(perms));
	m->path = strndup(line + path_at, strcspn(line + path_at, "\n"));
	if (!m->path)
		return -1;
	out->n++;
	return 0;
}

int pm_read(pid_t pid, struct pm_maps *out)
{
	char path[64], *line = NULL;
	size_t len = 0, cap = 0;
	int err = 0;
	FILE *f;

	out->m = NULL;
	out->n = 0;
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!err && getline(&line, &len, f) > 0)
		err = add_line(out, line, &cap);
	free(line);
	fclose(f);
	return err;
}

void pm_free(struct pm_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		free(maps->m[i].path);
	free(maps->m);
	maps->m = NULL;
	maps->n = 0;
}

const struct pm_map *pm_find(const struct pm_maps *maps, const char *prefix)
{
	for (size_t i = 0; i < maps->n; i++) {
		const char *slash = strrchr(maps->m[i].path, '/');

		if (slash && !strncmp(slash + 1, prefix, strlen(prefix)))
			return &maps->m[i];
	}
	return NULL;
}

/* Where the file's first page is mapped, or 0. */
static uintptr_t first_page(const struct pm_maps *maps, const char *path)
{
	for (size_t i = 0; i < maps->n; i++)
		if (maps->m[i].off == 0 && !strcmp(maps->m[i].path, path))
			return maps->m[i].lo;
	return 0;
}

/*
 * An object's file, mapped whole for reading, and its tables checked to
 * lie inside it: a file of this machine's class (attach.c refuses a
 * process of another machine before any lookup).
 */
#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

struct elf_file {
	const unsigned char *at;
	size_t size;
	const ElfW(Ehdr) *eh;
};

static bool inside(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static bool elf_open(struct elf_file *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *at;

	f->at = NULL;
	if (fd < 0)
		return false;
	at = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(*f->eh) ?
	     mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) :
	     MAP_FAILED;
	close(fd);
	if (at == MAP_FAILED)
		return false;
	f->at = at;
	f->size = (size_t)st.st_size;
	f->eh = at;
	if (memcmp(f->at, ELFMAG, SELFMAG) ||
	    f->at[EI_CLASS] != NATIVE_CLASS ||
	    !inside(f, f->eh->e_shoff,
		    (uint64_t)f->eh->e_shnum * sizeof(ElfW(Shdr))) ||
	    !inside(f, f->eh->e_phoff,
		    (uint64_t)f->eh->e_phnum * sizeof(ElfW(Phdr)))) {
		munmap((void *)f->at, f->size);
		f->at = NULL;
	}
	return f->at != NULL;
}

/* The load bias of `f`, mapped at `first`. */
static uintptr_t load_bias(const struct elf_file *f, uintptr_t first)
{
	const ElfW(Phdr) *ph = (const void *)(f->at + f->eh->e_phoff);

	if (f->eh->e_type != ET_DYN)
		return 0;
	for (size_t i = 0; i < f->eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			return first - (uintptr_t)(ph[i].p_vaddr & ~(ElfW(Addr))0xfff);
	return first;
}

/* The symbol wanted: its name and type; its value and size when found. */
struct wanted {
	const char *name;
	unsigned type;		/* STT_FUNC or STT_OBJECT */
	uintptr_t value;
	size_t size;
};

/* `w` in the symbol table `sh`, defined: true if found. */
static bool find_in(const struct elf_file *f, const ElfW(Shdr) *sh,
		    struct wanted *w)
{
	const ElfW(Shdr) *str = (const void *)(f->at + f->eh->e_shoff);
	const ElfW(Sym) *sym = (const void *)(f->at + sh->sh_offset);
	size_t n = sh->sh_size / sizeof(*sym), len = strlen(w->name);

	if (sh->sh_link >= f->eh->e_shnum || !inside(f, sh->sh_offset,
						     sh->sh_size))
		return false;
	str += sh->sh_link;
	if (!inside(f, str->sh_offset, str->sh_size))
		return false;
	for (size_t i = 0; i < n; i++) {
		const ElfW(Sym) *s = &sym[i];

		if (s->st_shndx == SHN_UNDEF ||
		    ELF64_ST_TYPE(s->st_info) != w->type ||
		    s->st_name >= str->sh_size ||
		    str->sh_size - s->st_name <= len)
			continue;
		if (!memcmp(f->at + str->sh_offset + s->st_name, w->name,
			    len + 1)) {
			w->value = (uintptr_t)s->st_value;
			w->size = (size_t)s->st_size;
			return true;
		}
	}
	return false;
}

/* Its .symtab, else its .dynsym. */
static bool symbol_in(const struct elf_file *f, struct wanted *w)
{
	const ElfW(Shdr) *sh = (const void *)(f->at + f->eh->e_shoff);

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f->eh->e_shnum; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    find_in(f, &sh[i], w))
				return true;
	return false;
}

/* `w` in the object mapped from `path`, its value where the process has it. */
static bool lookup(const struct pm_maps *maps, const char *path,
		   struct wanted *w)
{
	uintptr_t first = first_page(maps, path);
	struct elf_file f;
	bool found;

	if (!first || !elf_open(&f, path))
		return false;
	found = symbol_in(&f, w);
	if (found)
		w->value += load_bias(&f, first);
	munmap((void *)f.at, f.size);
	return found;
}

uintptr_t pm_symbol(const struct pm_maps *maps, const char *path,
		    const char *name)
{
	struct wanted w = { .name = name, .type = STT_FUNC };

	return lookup(maps, path, &w) ? w.value : 0;
}

uintptr_t pm_sized(const struct pm_maps *maps, const char *path,
		   const char *name, bool function, size_t *size)
{
	struct wanted w = { .name = name,
			    .type = function ? STT_FUNC : STT_OBJECT };

	if (!lookup(maps, path, &w))
		return 0;
	*size = w.size;
	return w.value;
}

int pm_machine(const char *path)
{
	unsigned char id[EI_NIDENT];
	uint16_t m = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return -1;
	ok = read(fd, id, sizeof(id)) == sizeof(id) &&
	     !memcmp(id, ELFMAG, SELFMAG) &&
	     read(fd, &m, sizeof(m)) == sizeof(m) &&	/* e_type */
	     read(fd, &m, sizeof(m)) == sizeof(m);	/* e_machine */
	close(fd);
	return ok ? m : -1;
}
