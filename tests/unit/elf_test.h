/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_test.h - what the unit tests of the object model share
 * (elf_test.c): temporary files and commands, the objects under test,
 * and binutils' view of a file.  Every helper fails the running test
 * (ck_assert) rather than returning an error.
 */
#ifndef MC_ELF_TEST_H
#define MC_ELF_TEST_H

#include "../../elf/object.h"

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* main() of a test_elf_*.c: libelf's handshake, then the suite. */
int elf_test_main(Suite *s);

/* ---- files and commands ---- */

char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A new empty directory for one test, and its removal with its files. */
char *make_tmpdir(void);
void remove_tree(char *dir);
void write_file(const char *path, const void *data, size_t n);
uint8_t *read_all(const char *path, size_t *n);
/*
 * Run a shell command; return its stdout.  Its stderr goes to *err when
 * err is given (else to ours), and its exit status to *status when given
 * (else it must be 0).
 */
char *run(const char *cmd, char **err, int *status);
/* Compile `src` (C, or C++ when ext is "cc") into dir/name.o. */
char *compile(const char *dir, const char *name, const char *ext,
	      const char *flags, const char *src);
bool file_nonempty_text(const char *s);

/* ---- the objects under test ---- */

extern const char basic_src[];
extern const char comdat_src[];
/* By loop index: 0 x86_64 (RELA), 1 i386 (REL). */
extern const char *const basic_flags[];

static inline bool is64(int i)
{
	return i == 0;
}

/* ---- what binutils say, and the model's view to compare ---- */

struct rd_section {
	char name[256];
	char type[32];
	char flags[16];
	unsigned long long size;
	unsigned link, info;
};

/* Parse `readelf -SW`: returns how many sections were listed. */
size_t readelf_sections(const char *path, struct rd_section **out);
/*
 * Every relocation of every section as text, one per line:
 * "section offset type symbol-name addend", from the model and from
 * `readelf -rW`.
 */
char *model_relocs(struct mc_object *obj);
char *readelf_relocs(const char *path, bool elf64);
/* "group-section signature" for each SHT_GROUP, both ways. */
char *model_groups(struct mc_object *obj);
char *readelf_groups(const char *path);
/* readelf -a and ld -r take the file without a word. */
void assert_readelf_clean(const char *path);
void assert_ld_r(const char *path, bool elf64);
void open_ok(struct mc_object *obj, const char *path);
/* A section's bytes as objcopy -O binary gives them. */
uint8_t *objcopy_section(const char *path, const char *sec, size_t *n);

/* ---- symbols ---- */

/* The STT_SECTION symbol of section `shndx` (any handle), or SIZE_MAX. */
size_t section_symbol(const struct mc_object *obj, size_t shndx);
/* A section that has no STT_SECTION symbol yet, or 0. */
size_t section_without_symbol(struct mc_object *obj);

#endif
