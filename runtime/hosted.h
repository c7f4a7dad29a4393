/* SPDX-License-Identifier: MIT */
/*
 * hosted.h - shared between the two files of the Linux platform layer
 * (hosted.c, hostsym.c).  Private to runtime/.
 */
#ifndef MC_RT_HOSTED_H
#define MC_RT_HOSTED_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* What the main program's addresses are shifted by at run time (PIE). */
MC_RT_HIDDEN uintptr_t mc_host_bias(void);
/* The file of the object the runtime is linked into. */
MC_RT_HIDDEN const char *mc_host_path(void);

/*
 * The non-empty allocated section called `name` of the object's file,
 * at its run-time address: 1 if found, 0 if there is none, 2 if there
 * are several, -1 if the file's section headers cannot be read (errno
 * may say why).
 */
MC_RT_HIDDEN int mc_host_section(const char *name, uintptr_t *addr,
				 size_t *size);

/*
 * The function symbol containing `addr` (run-time address), from
 * /proc/self/exe's .symtab.  False if none, or no symbol table.
 */
MC_RT_HIDDEN bool mc_host_sym_by_addr(uintptr_t addr, uintptr_t *start,
				      size_t *size, const char **name);

/* The function named `name`: 0, MCOUNT_ENOSYM or MCOUNT_ENOSYMTAB. */
MC_RT_HIDDEN int mc_host_sym_by_name(const char *name, uintptr_t *start);

#endif
