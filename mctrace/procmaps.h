/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procmaps.h - another process's mappings (/proc/PID/maps) and the
 * addresses of functions in the objects it has mapped, from their
 * files' symbol tables (procmaps.c), for attach.c.
 */
#ifndef MCTRACE_PROCMAPS_H
#define MCTRACE_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pm_map {
	uintptr_t lo, hi, off;
	char perms[5];		/* "r-xp" */
	char *path;		/* "" for an anonymous mapping */
};

struct pm_maps {
	struct pm_map *m;
	size_t n;
};

/* 0, or -1 with errno. */
int pm_read(pid_t pid, struct pm_maps *out);
void pm_free(struct pm_maps *maps);
/* The first mapping of a file whose base name starts with `prefix`, or NULL. */
const struct pm_map *pm_find(const struct pm_maps *maps, const char *prefix);
/*
 * The address in the process of function `name` of the object mapped
 * from `path` (its .symtab, else its .dynsym): 0 if it has none.
 */
uintptr_t pm_symbol(const struct pm_maps *maps, const char *path,
		    const char *name);
/*
 * The address in the process of the function (else data object) `name`
 * of the object mapped from `path`, and in *size its size: 0 if it has
 * none.
 */
uintptr_t pm_sized(const struct pm_maps *maps, const char *path,
		   const char *name, bool function, size_t *size);
/* The ELF machine (EM_*) of file `path`, or -1 if it is no ELF file. */
int pm_machine(const char *path);

#endif
