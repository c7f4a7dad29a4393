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
#include "unit.h"

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

START_TEST(error_not_elf)
{
	char *dir = make_tmpdir();
	char *p = xasprintf("%s/text.o", dir);
	static const char text[] = "this is not an object file\n";
	static const uint8_t ar[] = "!<arch>\n";

	write_file(p, text, sizeof(text) - 1);
	expect_open_fails(p);
	write_file(p, "", 0);
	expect_open_fails(p);
	write_file(p, ar, sizeof(ar) - 1);
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

START_TEST(error_not_regular)
{
	char *dir = make_tmpdir();

	expect_open_fails(dir);
	expect_open_fails("/dev/null");
	char *fifo = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	expect_open_fails(fifo);
	free(fifo);
	remove_tree(dir);
}
END_TEST

START_TEST(error_nonexistent)
{
	char *dir = make_tmpdir();
	char *p = xasprintf("%s/missing.o", dir);

	expect_open_fails(p);
	expect_open_fails("");
	free(p);
	remove_tree(dir);
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("elf_errors");
	TCase *tc;

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, error_not_elf);
	tcase_add_loop_test(tc, error_truncated, 0, 2);
	tcase_add_test(tc, error_section_past_end);
	tcase_add_test(tc, error_not_regular);
	tcase_add_test(tc, error_nonexistent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!mc_elf_init()) {
		fprintf(stderr, "libelf version mismatch\n");
		return EXIT_FAILURE;
	}
	return unit_run(errors_suite());
}
