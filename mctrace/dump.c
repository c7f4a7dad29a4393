/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump.c - mctrace dump: a trace in another tool's form, picked by an
 * option (chrome.c, folded.c, flame.c, raw.c, and pfconv.c, which reads
 * the trace as a stream rather than whole).
 */
#include <string.h>

#include "cli.h"
#include "output.h"
#include "perfetto.h"

static void flame_svg(const struct trace *t, FILE *f)
{
	out_flame_svg(t, f, "mctrace flame graph");
}

/* A form written from the whole trace (write), or as it is read (stream). */
static const struct form {
	const char *option;
	out_writer *write;
	int (*stream)(const char *in, const char *out, bool say_lost);
} forms[] = {
	{ "--chrome", out_chrome, NULL },
	{ "--perfetto", NULL, perfetto_convert },
	{ "--folded", out_folded, NULL },
	{ "--flame-svg", flame_svg, NULL },
	{ "--raw", out_raw, NULL },
};

static const struct form *form_of(const char *option)
{
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!strcmp(option, forms[i].option))
			return &forms[i];
	return NULL;
}

int dump_convert(const char *in, const char *out, const char *how,
		 bool say_lost)
{
	const struct form *form = form_of(how);

	if (form->stream)
		return form->stream(in, out, say_lost);
	return out_file(in, out, form->write, say_lost);
}

int cmd_dump(int argc, char **argv)
{
	const char *how = "--chrome", *out = "-";
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (form_of(argv[i])) {
			how = argv[i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i + 1 < argc) {
		usage(stderr);
		return 2;
	}
	return dump_convert(i < argc ? argv[i] : DEFAULT_FILE, out, how, true);
}
