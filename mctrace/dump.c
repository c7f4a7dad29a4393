/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump.c - mctrace dump: a trace in another tool's form, picked by an
 * option (chrome.c, folded.c, flame.c, raw.c).
 */
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "output.h"

static void flame_svg(const struct trace *t, FILE *f)
{
	out_flame_svg(t, f, "mctrace flame graph");
}

static const struct form {
	const char *option;
	out_writer *write;
} forms[] = {
	{ "--chrome", out_chrome },
	{ "--folded", out_folded },
	{ "--flame-svg", flame_svg },
	{ "--raw", out_raw },
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
	return out_file(in, out, form_of(how)->write, say_lost);
}

int cmd_dump(int argc, char **argv)
{
	const char *how = "--chrome", *out = "-";
	struct filter flt = FILTER_INIT;
	int i, r;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if ((r = filter_arg(&flt, argc, argv, &i)) != 0) {
			if (r < 0)
				return 2;
		} else if (form_of(argv[i])) {
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
	r = out_file_filtered(i < argc ? argv[i] : DEFAULT_FILE, out,
			      form_of(how)->write, true, &flt);
	filter_free(&flt);
	return r;
}
