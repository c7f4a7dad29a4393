/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump.c - mctrace dump: a trace in another tool's form, picked by an
 * option (chrome.c, folded.c, flame.c, raw.c, and pfconv.c, which reads
 * the trace as a stream rather than whole).  A form is one line of
 * `forms`; its option is made from it.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "output.h"
#include "perfetto.h"

static void flame_svg(const struct trace *t, FILE *f)
{
	out_flame_svg(t, f, "mctrace flame graph");
}

/* A form written from the whole trace (write), or as it is read (stream). */
static const struct form {
	const char *option;	/* without its "--" */
	out_writer *write;
	int (*stream)(const char *in, const char *out, bool say_lost,
		      const struct trace_opts *ro);
	const char *help;
} forms[] = {
	{ "chrome", out_chrome, NULL, "Chrome's trace-event JSON (the "
	  "default), for Perfetto\n                     or chrome://tracing" },
	{ "perfetto", NULL, perfetto_convert, "Perfetto's protobuf trace, "
	  "written as it is read" },
	{ "folded", out_folded, NULL, "folded stacks, for flame graph tools" },
	{ "flame-svg", flame_svg, NULL, "an SVG flame graph" },
	{ "raw", out_raw, NULL,
	  "one line an event: tid, ns, E or X, depth, name" },
};
#define NFORMS (sizeof(forms) / sizeof(forms[0]))
#define FORM_OPT 256	/* getopt's value of forms[0]'s option */

static void dump_usage(FILE *f)
{
	fprintf(f,
"Usage: mctrace dump [FORM] [-o OUT] [--no-demangle] [FILTERS] [FILE]\n"
"Write the trace FILE (mctrace.data unless given) in another tool's form,\n"
"into OUT (standard output unless given).  FORM is one of:\n");
	for (size_t i = 0; i < NFORMS; i++)
		fprintf(f, "  --%-16s %s\n", forms[i].option, forms[i].help);
	fprintf(f,
"\n"
"  -o, --output OUT   write into OUT\n"
CLI_NO_DEMANGLE_HELP
"  -h, --help         show this help and exit\n"
"The calls not recorded are said on standard error.  See mctrace(1).\n"
FILTER_HELP);
}

static const struct form *form_of(const char *option)
{
	for (size_t i = 0; i < NFORMS; i++)
		if (!strcmp(option, forms[i].option))
			return &forms[i];
	return NULL;
}

int dump_convert(const char *in, const char *out, const char *how,
		 bool say_lost, const struct trace_opts *ro)
{
	const struct form *form = form_of(how);

	if (form->stream)
		return form->stream(in, out, say_lost, ro);
	return out_file(in, out, form->write, say_lost, ro);
}

/*
 * A form written as the trace is read (Perfetto's) never holds the
 * whole trace, which the filters need: it takes none.
 */
static int dump_filtered(const struct form *form, const char *in,
			 const char *out, const struct trace_opts *ro,
			 struct filter *flt)
{
	int r;

	if (form->stream && filter_active(flt)) {
		fprintf(stderr, "mctrace dump: --%s is written as the trace is "
			"read: it takes no filters\n", form->option);
		filter_free(flt);
		return cli_try("dump");
	}
	r = form->stream ? form->stream(in, out, true, ro) :
		out_file_filtered(in, out, form->write, true, ro, flt);
	filter_free(flt);
	return r;
}

int cmd_dump(int argc, char **argv)
{
	struct option opts[NFORMS + NFILTER_OPTS + NCLI_DEMANGLE_OPTS + 3] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		CLI_DEMANGLE_LONGOPTS,
		FILTER_LONGOPTS,
	};
	struct trace_opts ro = { 0 };
	struct filter flt = FILTER_INIT("dump");
	const char *how = forms[0].option, *out = "-";
	const char *file;
	int c, r;

	for (size_t i = 0; i < NFORMS; i++)
		opts[2 + NCLI_DEMANGLE_OPTS + NFILTER_OPTS + i] =
			(struct option){ forms[i].option,
			no_argument, NULL, FORM_OPT + (int)i };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h" FILTER_SHORTOPTS, opts,
				NULL)) != -1) {
		if (c >= FORM_OPT && c < FORM_OPT + (int)NFORMS) {
			how = forms[c - FORM_OPT].option;
		} else if (c == 'o') {
			out = optarg;
		} else if ((r = cli_demangle_option("dump", c, optarg, &ro))) {
			if (r < 0)
				return 2;
		} else if (c == 'h') {
			dump_usage(stdout);
			return 0;
		} else if ((r = filter_option(&flt, c, optarg)) <= 0) {
			return r ? 2 : cli_bad_option("dump", c, argv);
		}
	}
	if ((r = cli_file_arg("dump", argc, argv, &file)))
		return r;
	return dump_filtered(form_of(how), file, out, &ro, &flt);
}
