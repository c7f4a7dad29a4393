/* SPDX-License-Identifier: MIT */
/*
 * sections.h - the names of the table of sites: one for the tool
 * (recordmcount/table.h), the runtime (runtime/linux/objects.c finds
 * a table by name) and the scripts.  Under arch/ because both the tool
 * and the runtime stand on arch/, and nothing here needs more than the
 * preprocessor.  The linker scripts (lds/) and the kernel oracle
 * (kernel/elfsites.py) write the names themselves; check-unit checks
 * that they agree with these (tests/unit/agree.sh).
 */
#ifndef MC_ARCH_SECTIONS_H
#define MC_ARCH_SECTIONS_H

/* The kernel's form: a piece per object, gathered by vmlinux.lds. */
#define MC_TABLE_SECTION "__mcount_loc"
/*
 * The name of --per-section pieces (recordmcount/table.c says why it
 * is not a C identifier).
 */
#define MC_TABLE_SECTION_LINKED ".mcount_loc"
/* The table GCC writes for -fpatchable-function-entry pads. */
#define MC_PADS_SECTION "__patchable_function_entries"

#endif
