/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_write.c - unit tests of the object model (elf/): the object
 * written back: appended in place, renamed over a second link,
 * unchanged, through a symbolic link.
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree)
 * and held against binutils (elf_test.c).
 */
#define _GNU_SOURCE
#include "../../elf/internal.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_test.h"

/* ---- writing ----------------------------------------------------- */

/*
 * One name: the new sections and header table are appended and the ELF
 * header rewritten, in place; every other byte of the input stays.
 */
START_TEST(write_appends_in_place)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	struct stat before, after;
	static const uint8_t nop = 0x90;
	size_t ehsize = is64(_i) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t n_in, n_out;

	ck_assert_int_eq(chmod(o, 0604), 0);
	ck_assert_int_eq(stat(o, &before), 0);
	uint8_t *in = read_all(o, &n_in);
	char *relocs = readelf_relocs(o, is64(_i));
	char *cmd = xasprintf("readelf -sW '%s'", o);
	char *syms = run(cmd, NULL, NULL);

	open_ok(&obj, o);
	struct mc_section *text = mc_section_by_name(&obj, ".text");
	ck_assert(mc_section_patch(&obj, text, 0, &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	/* The model still reads the old contents after the rename. */
	size_t n;
	const uint8_t *b = mc_section_bytes(&obj, text, &n);
	ck_assert_uint_eq(b[0], 0x90);
	mc_object_close(&obj);

	ck_assert_int_eq(stat(o, &after), 0);
	ck_assert_uint_eq(after.st_mode & 07777, 0604);
	ck_assert(S_ISREG(after.st_mode));
	/* Written in place: the same inode, the input's bytes kept. */
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	uint8_t *out = read_all(o, &n_out);
	ck_assert_uint_gt(n_out, n_in);
	ck_assert(memcmp(out, in, ehsize) != 0);
	ck_assert(memcmp(out + ehsize, in + ehsize, n_in - ehsize) == 0);
	free(in);
	free(out);
	/* No temporary left beside it. */
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strstr(e->d_name, "rmc") == NULL,
			      "left over: %s", e->d_name);
	closedir(d);

	char *relocs2 = readelf_relocs(o, is64(_i));
	char *syms2 = run(cmd, NULL, NULL);
	ck_assert_str_eq(relocs2, relocs);
	ck_assert_str_eq(syms2, syms);
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));

	free(t);
	free(relocs);
	free(relocs2);
	free(syms);
	free(syms2);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * A SHT_NOBITS section of 2^56 bytes (no file space, any size) in an
 * object appended to: its size and alignment are written as read, and
 * the append keeps every byte of the input after the ELF header, as
 * for any other object (the plan packs each section's placement in 16
 * bytes, and a size like this one must not send it to libelf's
 * rewrite, nor lose its top bits).
 */
START_TEST(write_appends_huge_nobits)
{
	static const char src[] =
		".text\nf:\n\tnop\n\tret\n"
		".section .bss.big,\"aw\",@nobits\n"
		".balign 64\nbig:\n.skip 0x100000000000000\n";
	char *dir = make_tmpdir();
	char *o = compile(dir, "bigbss", "s", "gcc -m64", src);
	struct mc_object obj;
	static const uint8_t int3 = 0xcc;
	size_t n_in, n_out;

	uint8_t *in = read_all(o, &n_in);

	if ((uint64_t)SIZE_MAX >> 56 == 0) {
		/* A 32-bit host refuses such a section at open, by name. */
		ck_assert(!mc_object_open(&obj, o));
		ck_assert_ptr_nonnull(strstr(obj.error, "can address"));
		mc_object_close(&obj);
		free(in);
		free(o);
		remove_tree(dir);
		return;
	}
	open_ok(&obj, o);
	struct mc_section *text = mc_section_by_name(&obj, ".text");
	ck_assert(mc_section_patch(&obj, text, 0, &int3, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	uint8_t *out = read_all(o, &n_out);
	ck_assert_uint_gt(n_out, n_in);
	ck_assert(memcmp(out + sizeof(Elf64_Ehdr), in + sizeof(Elf64_Ehdr),
			 n_in - sizeof(Elf64_Ehdr)) == 0);
	open_ok(&obj, o);
	struct mc_section *big = mc_section_by_name(&obj, ".bss.big");
	ck_assert_ptr_nonnull(big);
	ck_assert_uint_eq(big->shdr->sh_type, SHT_NOBITS);
	ck_assert_uint_eq(big->shdr->sh_size, UINT64_C(1) << 56);
	ck_assert_uint_eq(big->shdr->sh_addralign, 64);
	mc_object_close(&obj);
	assert_readelf_clean(o);
	free(in);
	free(out);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * Names added to the section name table (a section added, one renamed)
 * are kept apart from the input's table, which is not copied, and the
 * writer puts them after its bytes: the file is byte for byte the one
 * written from a copy with the names folded in, as libelf's writer
 * and the in-place one need it, and binutils reads every name.
 */
static char *written_with_names(const char *dir, int i, bool fold,
				size_t *n)
{
	/* one file name in both: it is in the symbol table */
	char *o = compile(dir, "named", "c", basic_flags[i], basic_src);
	struct mc_object obj;
	GElf_Shdr sh = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			 .sh_addralign = 1 };
	char *bytes = malloc(4);
	struct mc_section *shstr;

	ck_assert_ptr_nonnull(bytes);
	memcpy(bytes, "abc", 4);
	open_ok(&obj, o);
	shstr = obj.sections[obj.shstrndx];
	ck_assert_ptr_nonnull(mc_add_section(&obj, ".added_here", &sh, bytes,
					     4, ELF_T_BYTE));
	ck_assert(mc_section_rename(&obj, mc_section_by_name(&obj, ".data"),
				    ".data.renamed"));
	/* apart: no copy of the table */
	ck_assert_ptr_null(shstr->buf);
	ck_assert_str_eq(mc_section_by_name(&obj, ".added_here")->name,
			 ".added_here");
	ck_assert_ptr_null(mc_section_by_name(&obj, ".data"));
	if (fold) {
		ck_assert(mc_fold_added_names(&obj));
		ck_assert_ptr_nonnull(shstr->buf);
		ck_assert_ptr_nonnull(mc_section_by_name(&obj, ".data.renamed"));
		ck_assert_ptr_nonnull(mc_section_by_name(&obj, ".text"));
	}
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	assert_readelf_clean(o);
	open_ok(&obj, o);
	ck_assert_ptr_nonnull(mc_section_by_name(&obj, ".added_here"));
	ck_assert_ptr_nonnull(mc_section_by_name(&obj, ".data.renamed"));
	ck_assert_ptr_nonnull(mc_section_by_name(&obj, ".text"));
	ck_assert_ptr_null(mc_section_by_name(&obj, ".data"));
	mc_object_close(&obj);

	uint8_t *out = read_all(o, n);
	free(o);
	return (char *)out;
}

START_TEST(write_names_added_apart)
{
	char *dir = make_tmpdir(), *dir2 = make_tmpdir();
	size_t n_apart, n_folded, n;
	char *apart = written_with_names(dir, _i, false, &n_apart);
	char *folded = written_with_names(dir2, _i, true, &n_folded);
	char *o = xasprintf("%s/named.o", dir);
	uint8_t *added = objcopy_section(o, ".added_here", &n);

	ck_assert_uint_eq(n, 4);
	ck_assert(memcmp(added, "abc", 4) == 0);
	ck_assert_uint_eq(n_apart, n_folded);
	ck_assert(memcmp(apart, folded, n_apart) == 0);
	free(added);
	free(o);
	free(apart);
	free(folded);
	remove_tree(dir);
	remove_tree(dir2);
}
END_TEST

/*
 * `o` with one byte of .text patched, written with `scratch_size` bytes
 * of garbage given to the writer as scratch (0: none), and the file's
 * bytes after.  With a hard link beside it, through the rewrite; else
 * appended.
 */
static uint8_t *written_with_scratch(const char *dir, const char *o,
				     size_t scratch_size, bool linked,
				     size_t *n)
{
	char *copy = xasprintf("%s/s%zu%s.o", dir, scratch_size,
			       linked ? "l" : "");
	char *other = xasprintf("%s.other", copy);
	struct mc_object obj;
	static const uint8_t nop = 0x90;
	size_t n_in;
	uint8_t *in = read_all(o, &n_in);
	FILE *f = fopen(copy, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(in, 1, n_in, f), n_in);
	ck_assert_int_eq(fclose(f), 0);
	if (linked)
		ck_assert_int_eq(link(copy, other), 0);
	open_ok(&obj, copy);
	if (scratch_size) {
		uint8_t *scratch = malloc(scratch_size);

		ck_assert_ptr_nonnull(scratch);
		memset(scratch, 0xa5, scratch_size);
		mc_object_give_scratch(&obj, scratch, scratch_size);
	}
	ck_assert(mc_section_patch(&obj, mc_section_by_name(&obj, ".text"), 0,
				   &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	assert_readelf_clean(copy);
	uint8_t *out = read_all(copy, n);

	free(in);
	free(other);
	free(copy);
	return out;
}

/*
 * Memory given to the writer (mc_object_give_scratch) changes nothing
 * written: too small to plan in (one placement's worth: allocated as
 * before) or large enough and full of garbage, appended or rewritten,
 * the file is byte for byte the one written without.
 */
START_TEST(write_in_scratch)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	static const size_t sizes[] = { 16, 1 << 16 };

	for (int linked = 0; linked < 2; linked++) {
		size_t n_plain, n;
		uint8_t *plain = written_with_scratch(dir, o, 0, linked,
						      &n_plain);

		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint8_t *out = written_with_scratch(dir, o, sizes[k],
							    linked, &n);

			ck_assert_uint_eq(n, n_plain);
			ck_assert(memcmp(out, plain, n) == 0);
			free(out);
		}
		free(plain);
	}
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * A second name (ccache's hard-link mode): the file is replaced by
 * rename, and the other name keeps the input, byte for byte.
 */
START_TEST(write_hard_linked_renames)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *other = xasprintf("%s/cached.o", dir);
	struct mc_object obj;
	struct stat before, after, kept;
	static const uint8_t nop = 0x90;
	size_t n_in, n_other, n;

	ck_assert_int_eq(link(o, other), 0);
	ck_assert_int_eq(stat(o, &before), 0);
	uint8_t *in = read_all(o, &n_in);
	open_ok(&obj, o);
	ck_assert(mc_section_patch(&obj, mc_section_by_name(&obj, ".text"), 0,
				   &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	ck_assert_int_eq(stat(o, &after), 0);
	ck_assert_int_eq(stat(other, &kept), 0);
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_nlink, 1);
	ck_assert_uint_eq(kept.st_ino, before.st_ino);
	ck_assert_uint_eq(kept.st_nlink, 1);
	uint8_t *c = read_all(other, &n_other);
	ck_assert_uint_eq(n_other, n_in);
	ck_assert(memcmp(c, in, n_in) == 0);
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	assert_readelf_clean(o);

	free(t);
	free(c);
	free(in);
	free(other);
	free(o);
	remove_tree(dir);
}
END_TEST

/* An unchanged model writes an equivalent object. */
START_TEST(write_unchanged)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "comdat", "cc",
			  is64(_i) ? "cc -O2 -g" : "i686-linux-gnu-gcc -O2 -g",
			  comdat_src);
	char *cmd = xasprintf("readelf -sgW '%s'", o);
	char *before = run(cmd, NULL, NULL);
	char *rel_before = readelf_relocs(o, is64(_i));
	struct mc_object obj;
	size_t n0, n1;
	uint8_t *t0 = objcopy_section(o, ".text", &n0);

	open_ok(&obj, o);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	char *after = run(cmd, NULL, NULL);
	char *rel_after = readelf_relocs(o, is64(_i));
	uint8_t *t1 = objcopy_section(o, ".text", &n1);
	ck_assert_str_eq(after, before);
	ck_assert_str_eq(rel_after, rel_before);
	ck_assert_uint_eq(n0, n1);
	ck_assert(memcmp(t0, t1, n0) == 0);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));
	open_ok(&obj, o);
	char *m = model_relocs(&obj);
	mc_object_close(&obj);
	char *r = readelf_relocs(o, is64(_i));
	ck_assert_str_eq(m, r);

	free(t0);
	free(t1);
	free(rel_before);
	free(rel_after);
	free(m);
	free(r);
	free(before);
	free(after);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST

/* A symbolic link is written through: the link stays, its file changes. */
START_TEST(write_through_symlink)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *link = xasprintf("%s/link.o", dir);
	struct mc_object obj;
	struct stat st;
	static const uint8_t nop = 0x90;
	size_t n;

	ck_assert_int_eq(symlink("basic.o", link), 0);
	open_ok(&obj, link);
	ck_assert(mc_section_patch(&obj, mc_section_by_name(&obj, ".text"), 0,
				   &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strstr(e->d_name, "rmc") == NULL,
			      "left over: %s", e->d_name);
	closedir(d);

	free(t);
	free(link);
	free(o);
	remove_tree(dir);
}
END_TEST

static Suite *write_suite(void)
{
	Suite *s = suite_create("elf_write");
	TCase *tc;

	tc = tcase_create("write");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, write_appends_in_place, 0, 2);
	tcase_add_test(tc, write_appends_huge_nobits);
	tcase_add_loop_test(tc, write_names_added_apart, 0, 2);
	tcase_add_loop_test(tc, write_in_scratch, 0, 2);
	tcase_add_loop_test(tc, write_hard_linked_renames, 0, 2);
	tcase_add_loop_test(tc, write_unchanged, 0, 2);
	tcase_add_loop_test(tc, write_through_symlink, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(write_suite());
}
