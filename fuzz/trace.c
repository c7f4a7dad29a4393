/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.c - fuzz target: mctrace reading a trace file, any bytes.
 *
 * A trace cut short, damaged or made up must be read for what is whole
 * in it, or refused with a reason: never a crash, a hang, or memory
 * taken on a count the file claims.  Each input goes through both
 * readers: the loader (trace_read_opts, then the figures `report`
 * makes) under each way of showing names, and the stream every form of
 * `dump` writes through (Perfetto's as it reads; the others after the
 * loader).  The input file must stay as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../mctrace/cli.h"
#include "../mctrace/stats.h"
#include "../mctrace/trace.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(const char *path, enum trace_demangle how)
{
	struct trace_opts o = { .demangle = how };
	struct func_stat *v = NULL;
	struct trace t;

	if (trace_read_opts(path, &t, &o))
		return;
	stats_of(&t, NULL, &v);
	free(v);
	trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const forms[] = {
		"raw", "chrome", "folded", "flame-svg", "perfetto",
	};
	static char out[320];
	const char *path = fuzz_input_file(data, size);
	struct trace_opts ro = { 0 };

	if (!out[0])
		snprintf(out, sizeof(out), "%s.out", path);
	for (int how = TRACE_DEMANGLE_SIMPLE; how <= TRACE_DEMANGLE_NO; how++)
		load(path, (enum trace_demangle)how);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		dump_convert(path, out, forms[i], true, &ro);
		unlink(out);
	}
	if (!fuzz_file_is(data, size))
		fuzz_fail("reading changed the trace file");
	return 0;
}
