/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_errors.c - unit tests of the object model (elf/): inputs
 * that must not open, each refused with a reason and left exactly as it
 * was.
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree)
 * and held against binutils (elf_test.c).
 */
#define _GNU_SOURCE
#include "../../elf/object.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_test.h"

/* ---- errors ------------------------------------------------------ */

/* Open must fail with a reason and leave the file exactly as it was. */
static void expect_open_fails(const char *path)
{
	struct stat before, after;
	size_t n0 = 0, n1 = 0;
	uint8_t *c0 = NULL, *c1 = NULL;
	bool exists = stat(path, &before) == 0;
	bool regular = exists && S_ISREG(before.st_mode);
	struct mc_object obj;

	if (regular)
		c0 = read_all(path, &n0);
	ck_assert_msg(!mc_object_open(&obj, path), "%s opened", path);
	ck_assert_msg(file_nonempty_text(obj.error), "%s: no reason", path);
	mc_object_close(&obj);
	if (!exists) {
		ck_assert_int_ne(stat(path, &after), 0);
		return;
	}
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	ck_assert_uint_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	if (regular) {
		c1 = read_all(path, &n1);
		ck_assert_uint_eq(n0, n1);
		ck_assert(memcmp(c0, c1, n0) == 0);
	}
	free(c0);
	free(c1);
}

/*
 * Inputs that are no ELF object, or no regular file, or none at all:
 * each made in its own directory by `make` (its path, owned).
 */
static char *file_of(const char *dir, const void *bytes, size_t n)
{
	char *p = xasprintf("%s/input.o", dir);

	write_file(p, bytes, n);
	return p;
}

static char *text_file(const char *dir)
{
	static const char text[] = "this is not an object file\n";

	return file_of(dir, text, sizeof(text) - 1);
}

static char *empty_file(const char *dir)
{
	return file_of(dir, "", 0);
}

static char *archive_file(const char *dir)
{
	static const uint8_t ar[] = "!<arch>\n";

	return file_of(dir, ar, sizeof(ar) - 1);
}

static char *a_directory(const char *dir)
{
	return xasprintf("%s", dir);
}

static char *dev_null(const char *dir)
{
	(void)dir;
	return xasprintf("/dev/null");
}

static char *a_fifo(const char *dir)
{
	char *p = xasprintf("%s/fifo", dir);

	ck_assert_int_eq(mkfifo(p, 0600), 0);
	return p;
}

static char *missing_file(const char *dir)
{
	return xasprintf("%s/missing.o", dir);
}

static char *empty_path(const char *dir)
{
	(void)dir;
	return xasprintf("%s", "");
}

static char *(*const bad_inputs[])(const char *dir) = {
	text_file, empty_file, archive_file,	/* not ELF */
	a_directory, dev_null, a_fifo,		/* not a regular file */
	missing_file, empty_path,		/* nothing there */
};

START_TEST(error_bad_input)
{
	char *dir = make_tmpdir();
	char *p = bad_inputs[_i](dir);

	expect_open_fails(p);
	free(p);
	remove_tree(dir);
}
END_TEST

START_TEST(error_truncated)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *p = xasprintf("%s/cut.o", dir);
	size_t n;
	uint8_t *full = read_all(o, &n);
	const size_t cuts[] = { 1, 4, 16, 20, 51, 52, 63, 64, 65, 200, n / 3,
				n / 2, n - 64, n - 41, n - 40, n - 39, n - 1 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_file(p, full, cuts[i]);
		expect_open_fails(p);
	}
	/* The whole file opens (the test's own sanity check). */
	struct mc_object obj;
	write_file(p, full, n);
	open_ok(&obj, p);
	mc_object_close(&obj);

	free(full);
	free(p);
	free(o);
	remove_tree(dir);
}
END_TEST

/* Sections whose data lie beyond the end of a file whose headers are
 * intact: the header table is moved to the front by rewriting. */
/*
 * Fields of the little-endian object the host compiler wrote, read and
 * written in the file's byte order: a memcpy into an Elf64_Shdr would
 * swap them on a big-endian host (check-hosts runs this on s390x).
 */
static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

static void put_le(uint8_t *p, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

START_TEST(error_section_past_end)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[0], basic_src);
	size_t n;
	uint8_t *full = read_all(o, &n);

	ck_assert_uint_eq(full[EI_CLASS], ELFCLASS64);
	ck_assert_uint_eq(full[EI_DATA], ELFDATA2LSB);
	uint64_t shoff = get_le(full + offsetof(Elf64_Ehdr, e_shoff), 8);
	uint64_t shnum = get_le(full + offsetof(Elf64_Ehdr, e_shnum), 2);
	/* Make .text (found by size) claim to run past the end. */
	bool done = false;
	for (size_t i = 1; i < shnum && !done; i++) {
		uint8_t *sh = full + shoff + i * sizeof(Elf64_Shdr);
		uint8_t *size = sh + offsetof(Elf64_Shdr, sh_size);

		if (get_le(sh + offsetof(Elf64_Shdr, sh_type), 4) ==
		    SHT_PROGBITS && get_le(size, 8) > 0) {
			put_le(size, 8, n);
			done = true;
		}
	}
	ck_assert(done);
	char *p = xasprintf("%s/bad.o", dir);
	write_file(p, full, n);
	expect_open_fails(p);

	free(p);
	free(full);
	free(o);
	remove_tree(dir);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("elf_errors");
	TCase *tc;

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, error_bad_input, 0,
			    sizeof(bad_inputs) / sizeof(bad_inputs[0]));
	tcase_add_loop_test(tc, error_truncated, 0, 2);
	tcase_add_test(tc, error_section_past_end);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(errors_suite());
}
