/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procmaps.c - another process's mappings and the functions of the
 * objects it mapped (procmaps.h).  An object's load bias is where its
 * file's first page is mapped less the first PT_LOAD's page address (0
 * for a program linked at a fixed address, ET_EXEC).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The load bias of `e`, mapped at `first`. */
static uintptr_t load_bias(Elf *e, uintptr_t first)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n;

	if (!gelf_getehdr(e, &eh) || eh.e_type != ET_DYN ||
	    elf_getphdrnum(e, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			return first - (uintptr_t)(ph.p_vaddr & ~(GElf_Addr)0xfff);
	return first;
}

/* `name`'s value in the symbol table `scn`, a defined function; 0 if none. */
static uintptr_t find_in(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			 const char *name)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; d && i < n; i++) {
		const char *s;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		s = elf_strptr(e, sh->sh_link, sym.st_name);
		if (s && !strcmp(s, name))
			return (uintptr_t)sym.st_value;
	}
	return 0;
}

static uintptr_t symbol_in(Elf *e, const char *name)
{
	uintptr_t v = 0;

	for (int pass = 0; pass < 2 && !v; pass++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while (!v && (scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				v = find_in(e, scn, &sh, name);
	}
	return v;
}

uintptr_t pm_symbol(const struct pm_maps *maps, const char *path,
		    const char *name)
{
	uintptr_t first = first_page(maps, path), v = 0;
	int fd;
	Elf *e;

	if (!first || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e) {
		v = symbol_in(e, name);
		if (v)
			v += load_bias(e, first);
		elf_end(e);
	}
	close(fd);
	return v;
}

int pm_machine(const char *path)
{
	unsigned char id[EI_NIDENT];
	GElf_Half m = 0;
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
