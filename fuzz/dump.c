/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump.c - fuzz target: --dump of an object or a linked image, as text
 * and as JSON.  Dumping never writes: the file must stay as it was.
 */
#include <stdio.h>

#include "../recordmcount/dump.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_options opt = { .dump = true, .jobs = 1 };
	const char *path = fuzz_input_file(data, size);

	mc_dump_file(path, &opt);
	opt.format = MC_FORMAT_JSON;
	mc_dump_file(path, &opt);
	fflush(stdout);
	if (!fuzz_file_is(data, size) || !fuzz_dir_is_clean())
		fuzz_fail("--dump changed the file or its directory");
	return 0;
}
