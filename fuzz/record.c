/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record.c - fuzz target: the record path on one object.
 *
 * Open, find hook sites and pads, choose anchors, build the table,
 * NOP the calls, write (to a temporary file renamed over the input),
 * as `recordmcount` does.  The options come from the last byte of the
 * ELF identification's padding (byte 15, which ELF readers ignore and
 * compilers leave 0): bit 0 --nop, bit 1 --find-nops, bit 2
 * --keep-patchable, bit 3 -w.  Beyond "no crash, no
 * sanitizer report", every run must keep the tool's promises:
 *  - a file that failed is byte-for-byte as it was;
 *  - no temporary file is left beside it;
 *  - an object we wrote can be read back: dumping it succeeds, and
 *    recording it again leaves it alone.
 */
#include <stdio.h>
#include <string.h>

#include "../recordmcount/dump.h"
#include "../recordmcount/record.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned bits = size > 15 ? data[15] : 0;
	struct mc_options opt = {
		.nop = bits & 1, .find_nops = bits & 2,
		.keep_patchable = bits & 4, .warn_untraced = bits & 8,
		.jobs = 1,
	};
	struct mc_options dump = { .dump = true, .jobs = 1 };
	const char *path = fuzz_input_file(data, size);
	int failed = mc_record_file(path, &opt);

	if (!fuzz_dir_is_clean())
		fuzz_fail("a temporary file was left behind");
	if (failed) {
		if (!fuzz_file_is(data, size))
			fuzz_fail("a file that failed was changed");
		return 0;
	}
	if (fuzz_file_is(data, size))
		return 0;	/* nothing to do: left alone */
	if (mc_dump_file(path, &dump) != 0)
		fuzz_fail("the object we wrote cannot be dumped");
	fflush(stdout);
	if (mc_record_file(path, &opt) != 0)
		fuzz_fail("recording our own output failed");
	return 0;
}
