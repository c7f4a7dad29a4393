/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_renumber.c - unit tests of the object model (elf/): the
 * symbol table and relocations renumbered as the writer streams them,
 * or in copies.
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree)
 * and held against binutils (elf_test.c).
 */
#define _GNU_SOURCE
#include "../../elf/object.h"
#include "../../elf/reloc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_test.h"

/* ---- renumbering while the writer streams ------------------------ */

/*
 * Enough relocations against a global that the relocation section
 * takes more than one chunk of the writer's 64 KiB buffer (9000 REL
 * entries of i386 are 72 KB), a call that names a global from .text,
 * and a section whose relocations name only locals.
 */
static char *many_relocs_src(void)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	fputs("extern int ext_data;\n"
	      "extern int ext_fn(int);\n"
	      "int global_data[4];\n"
	      "static int local_data[4];\n"
	      "__attribute__((section(\".data.locals\")))\n"
	      "int *local_ptrs[] = { &local_data[1], &local_data[3] };\n"
	      "int call(int x) { return ext_fn(x) + local_data[x & 3]; }\n"
	      "__attribute__((section(\".data.globals\")))\n"
	      "int *ptrs[] = {\n", f);
	for (int i = 0; i < 9000; i++)
		fputs(i % 3 ? "&ext_data,\n" : "&global_data[1],\n", f);
	fputs("};\n", f);
	fclose(f);
	return s;
}

/*
 * `readelf -rW` with what renumbering may change taken out: each
 * section's file offset and each entry's r_info (the types and symbols
 * stay, by name).
 */
static char *readelf_relocs_by_name(const char *path)
{
	char *cmd = xasprintf("readelf -rW '%s' | sed -e "
			      "'s/^\\(Relocation section [^ ]*\\) at offset .*/\\1/' "
			      "-e 's/^\\([0-9a-f]\\{8,\\}\\)  *[0-9a-f]\\{8,\\} /\\1 /'",
			      path);
	char *text = run(cmd, NULL, NULL);

	free(cmd);
	return text;
}

/* `readelf -sW`'s symbol lines without their index; *n of them. */
static char **readelf_symbol_lines(const char *path, size_t *n)
{
	char *cmd = xasprintf("readelf -sW '%s'", path);
	char *text = run(cmd, NULL, NULL);
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned idx;
		int at = 0;

		if (sscanf(line, " %u: %n", &idx, &at) != 1 || at == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		ck_assert_uint_eq(idx, *n);
		v[(*n)++] = strdup(line + at);
	}
	free(text);
	free(cmd);
	return v;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The input offset of section `name`, as its header says. */
static uint64_t section_offset(const char *path, const char *name)
{
	struct mc_object obj;

	open_ok(&obj, path);
	struct mc_section *sec = mc_section_by_name(&obj, name);
	ck_assert_msg(sec != NULL, "%s: no %s", path, name);
	uint64_t off = sec->shdr->sh_offset;
	mc_object_close(&obj);
	return off;
}

struct stream_case {
	const char *cc;
	bool elf64;
	bool linked;		/* a second name: the rewrite, not the append */
	bool big_endian;	/* streamed only on a host of its byte order */
	bool mips64;		/* MIPS64's r_info: relocations copied */
};

static const struct stream_case stream_cases[] = {
	{ "cc -O1", true, false, false, false },
	{ "i686-linux-gnu-gcc -O1", false, false, false, false },
	{ "cc -O1", true, true, false, false },
	{ "i686-linux-gnu-gcc -O1", false, true, false, false },
	{ "s390x-linux-gnu-gcc -O1", true, false, true, false },
	{ "mips64el-linux-gnuabi64-gcc -O1", true, false, false, true },
};

/* The symbol table is spliced as it goes: in the host's byte order. */
static bool syms_streamed(const struct stream_case *c)
{
	return c->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* The relocations renumbered as they go. */
static bool relocs_streamed(const struct stream_case *c)
{
	return syms_streamed(c) && !c->mips64;
}

/*
 * The same edits as `add_symbols` for obj, with a private copy of the
 * symbol table and of every relocation section made first (through the
 * API, writing back what is there): the way every table was written
 * before the writer renumbered as it went.
 */
static void copy_every_table(struct mc_object *obj)
{
	unsigned char bind = GELF_ST_BIND(mc_symbol(obj, 1).sym.st_info);

	ck_assert_msg(mc_symbol_set_binding(obj, 1, bind), "%s", obj->error);
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];
		struct mc_reloc r;

		if (!mc_is_reloc_section(sec) || mc_reloc_count(sec) == 0)
			continue;
		ck_assert_msg(mc_reloc_get(obj, sec, 0, &r), "%s", obj->error);
		ck_assert_msg(mc_reloc_set(obj, sec, 0, &r), "%s", obj->error);
		ck_assert_ptr_nonnull(sec->buf);
	}
	ck_assert_ptr_nonnull(obj->symtab->buf);
}

/* A section symbol and a label: two symbols added among the locals. */
static void add_symbols(struct mc_object *obj)
{
	struct mc_section *text = mc_section_by_name(obj, ".text");
	size_t shndx = section_without_symbol(obj);
	uint64_t at = 4;

	ck_assert_ptr_nonnull(text);
	if (!shndx)
		shndx = text->index;
	ck_assert_uint_ne(mc_add_section_symbols(obj, &shndx, 1), SIZE_MAX);
	size_t text_index = text->index;

	ck_assert_uint_ne(mc_add_label_symbols(obj, &text_index, &at, 1),
			  SIZE_MAX);
}

static bool is_rel_name(const char *name, const char *of)
{
	return (strncmp(name, ".rela", 5) == 0 && strcmp(name + 5, of) == 0) ||
	       (strncmp(name, ".rel", 4) == 0 && strcmp(name + 4, of) == 0);
}

/*
 * The symbol table spliced and the relocations renumbered while they
 * are written give the file that copies of them give, byte for byte,
 * in the append writer and the rewrite alike; the file says the same
 * as the input (readelf: relocations by name, symbols with the added
 * after the locals); a relocation section that names only locals stays
 * where it was, one that names a global moves.  Where the writer cannot
 * stream (the other byte order: s390x here, x86 on s390x; MIPS64's
 * r_info) the copies are made.
 */
START_TEST(renumbered_as_copied)
{
	const struct stream_case *c = &stream_cases[_i];
	char *dir = make_tmpdir();
	char *src = many_relocs_src();
	char *o = compile(dir, "many", "c", c->cc, src);
	char *copied = xasprintf("%s/copied.o", dir);
	char *cmd = xasprintf("cp '%s' '%s'", o, copied);
	struct mc_object obj;
	size_t n_in, n_out, n_copied, nsym, nsym2;

	free(run(cmd, NULL, NULL));
	if (c->linked) {
		char *l1 = xasprintf("%s/l1.o", dir), *l2 = xasprintf("%s/l2.o", dir);

		ck_assert_int_eq(link(o, l1), 0);
		ck_assert_int_eq(link(copied, l2), 0);
		free(l1);
		free(l2);
	}
	uint8_t *in = read_all(o, &n_in);
	char *relocs = readelf_relocs_by_name(o);
	char **syms = readelf_symbol_lines(o, &nsym);
	uint64_t locals_at = 0, data_at = 0;

	/* Streamed. */
	open_ok(&obj, o);
	size_t k = obj.first_global;
	ck_assert_uint_lt(k, obj.n_symbols);
	add_symbols(&obj);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	ck_assert(syms_streamed(c) == (obj.symtab->buf == NULL));
	for (size_t i = 1; i < obj.n_sections; i++) {
		struct mc_section *sec = obj.sections[i];

		if (!mc_is_reloc_section(sec) || !mc_section_is_input(&obj, sec))
			continue;
		if (relocs_streamed(c))
			ck_assert_msg(sec->buf == NULL, "%s: %s copied", c->cc,
				      sec->name);
		if (is_rel_name(sec->name, ".data.locals"))
			locals_at = sec->shdr->sh_offset;
		if (is_rel_name(sec->name, ".data.globals")) {
			data_at = sec->shdr->sh_offset;
			ck_assert(relocs_streamed(c) == (sec->buf == NULL));
		}
	}
	ck_assert_uint_ne(locals_at, 0);
	ck_assert_uint_ne(data_at, 0);
	mc_object_close(&obj);

	/* Copied, as every table was before. */
	open_ok(&obj, copied);
	copy_every_table(&obj);
	add_symbols(&obj);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	uint8_t *out = read_all(o, &n_out);
	uint8_t *want = read_all(copied, &n_copied);
	ck_assert_uint_eq(n_out, n_copied);
	ck_assert_msg(memcmp(out, want, n_out) == 0, "%s: streamed and copied "
		      "differ", c->cc);

	/* The oracle: the same relocations, the symbols with two more. */
	char *relocs2 = readelf_relocs_by_name(o);
	char **syms2 = readelf_symbol_lines(o, &nsym2);
	ck_assert_str_eq(relocs2, relocs);
	ck_assert_uint_eq(nsym2, nsym + 2);
	for (size_t i = 0; i < nsym; i++)
		ck_assert_str_eq(syms2[i < k ? i : i + 2], syms[i]);
	ck_assert(strstr(syms2[k], " SECTION LOCAL "));
	ck_assert(strstr(syms2[k + 1], " NOTYPE  LOCAL "));
	ck_assert_ptr_nonnull(strstr(syms2[k + 1], "0000004 "));
	assert_readelf_clean(o);
	if (strncmp(c->cc, "cc", 2) == 0 || strncmp(c->cc, "i686", 4) == 0)
		assert_ld_r(o, c->elf64);
	/* The append: names only locals, kept; names globals, moved. */
	if (!c->linked) {
		ck_assert_uint_eq(section_offset(o, c->elf64 ? ".rela.data.locals"
						      : ".rel.data.locals"),
				  locals_at);
		ck_assert_uint_ge(section_offset(o, c->elf64
						      ? ".rela.data.globals"
						      : ".rel.data.globals"),
				  n_in);
		ck_assert_uint_lt(data_at, n_in);
	}

	free_lines(syms, nsym);
	free_lines(syms2, nsym2);
	free(relocs);
	free(relocs2);
	free(in);
	free(out);
	free(want);
	free(cmd);
	free(copied);
	free(src);
	free(o);
	remove_tree(dir);
}
END_TEST

static Suite *renumber_suite(void)
{
	Suite *s = suite_create("elf_renumber");
	TCase *tc;

	tc = tcase_create("renumber");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, renumbered_as_copied, 0, sizeof(stream_cases) / sizeof(stream_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(renumber_suite());
}
