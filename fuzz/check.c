/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.c - fuzz target: the CI gate and the table cleaner.
 *
 * `--check` (text and JSON, with and without --sorted) only reads: the
 * file and its directory must stay as they were.  Then `--finalize`,
 * which rewrites a linked image's table in place: a file it fails on
 * must be byte-for-byte as it was, no temporary file may be left, and
 * a second `--finalize` of its own output must change nothing (a
 * finalized table is final), and `--check` must still read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../recordmcount/check.h"
#include "../recordmcount/finalize.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file as it is now, in a heap copy the caller frees (NULL: gone). */
static uint8_t *snapshot(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)len;
	}
	fclose(f);
	return buf;
}

static void check_twice(const char *path, bool sorted)
{
	struct mc_options opt = { .check = true, .sorted = sorted,
				  .jobs = 1, .verbosity = -1 };

	mc_check_file(path, &opt);
	opt.format = MC_FORMAT_JSON;
	mc_check_file(path, &opt);
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_options fin = { .finalize = true, .jobs = 1,
				  .verbosity = -1 };
	const char *path = fuzz_input_file(data, size);
	uint8_t *once;
	size_t once_size = 0;

	check_twice(path, size > 15 && (data[15] & 1));
	if (!fuzz_file_is(data, size) || !fuzz_dir_is_clean())
		fuzz_fail("--check changed the file or its directory");

	if (mc_finalize_file(path, &fin) != 0) {
		if (!fuzz_file_is(data, size))
			fuzz_fail("a file --finalize failed on was changed");
		if (!fuzz_dir_is_clean())
			fuzz_fail("--finalize left a temporary file");
		return 0;
	}
	if (!fuzz_dir_is_clean())
		fuzz_fail("--finalize left a temporary file");
	once = snapshot(path, &once_size);
	if (!once)
		fuzz_fail("--finalize lost the file");
	if (mc_finalize_file(path, &fin) != 0)
		fuzz_fail("--finalize failed on its own output");
	if (!fuzz_file_is(once, once_size))
		fuzz_fail("a second --finalize changed a finalized table");
	free(once);
	check_twice(path, false);
	return 0;
}
