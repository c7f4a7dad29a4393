/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * main.c - command line of recordmcount.
 *
 * Accepts the kernel's `recordmcount [-w] file.o...` unchanged, and
 * exits 0 only when every file succeeded.  With -j N, N worker
 * processes share out the files.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../elf/object.h"
#include "check.h"
#include "dump.h"
#include "finalize.h"
#include "options.h"
#include "record.h"

#ifndef MC_VERSION
#define MC_VERSION "0.1"
#endif

enum { EXIT_USAGE = 2 };

enum {
	OPT_SECTION = 256,
	OPT_NO_SECTION,
	OPT_FORMAT,
	OPT_KEEP_PATCHABLE,
	OPT_FIND_NOPS,
	OPT_CHECK,
	OPT_SORTED,
	OPT_FINALIZE,
	OPT_PREPATCH,
	OPT_STRICT,
	OPT_PRINT_LDS,
	OPT_PER_SECTION,
	OPT_PER_OBJECT,
};

static const struct option long_options[] = {
	{ "nop", no_argument, NULL, 'n' },
	{ "warn-untraced", no_argument, NULL, 'w' },
	{ "symbol", required_argument, NULL, 's' },
	{ "section", required_argument, NULL, OPT_SECTION },
	{ "no-section", required_argument, NULL, OPT_NO_SECTION },
	{ "keep-patchable", no_argument, NULL, OPT_KEEP_PATCHABLE },
	{ "find-nops", no_argument, NULL, OPT_FIND_NOPS },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "per-section", no_argument, NULL, OPT_PER_SECTION },
	{ "per-object", no_argument, NULL, OPT_PER_OBJECT },
	{ "dump", no_argument, NULL, 'd' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "sorted", no_argument, NULL, OPT_SORTED },
	{ "finalize", no_argument, NULL, OPT_FINALIZE },
	{ "prepatch", no_argument, NULL, OPT_PREPATCH },
	{ "jobs", required_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "print-lds", no_argument, NULL, OPT_PRINT_LDS },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("Usage: recordmcount [OPTION]... FILE.o...\n"
	      "       recordmcount --dump [--format=text|json] FILE...\n"
	      "       recordmcount --check [--sorted] [--format=text|json] FILE...\n"
	      "       recordmcount --finalize [--prepatch] IMAGE...\n"
	      "       recordmcount --print-lds\n"
	      "Record every function-entry hook call (__fentry__, mcount, ...)\n"
	      "of each relocatable object in a new __mcount_loc section.\n"
	      "\n"
	      "  -n, --nop              also turn every recorded call into a NOP\n"
	      "  -w, --warn-untraced    warn about hook calls in untraced sections\n"
	      "                         (always turned into NOPs)\n"
	      "  -s, --symbol=NAME      treat calls to NAME as hooks too (give it\n"
	      "                         to --dump and --check as well)\n"
	      "      --section=GLOB     also trace sections matching GLOB\n"
	      "      --no-section=GLOB  do not trace sections matching GLOB\n"
	      "                         (hook calls only: pads stay listed)\n"
	      "      --keep-patchable   leave -fpatchable-function-entry pads in\n"
	      "                         __patchable_function_entries (default:\n"
	      "                         move them into __mcount_loc)\n"
	      "      --find-nops        also record the entry NOPs -mnop-mcount\n"
	      "                         leaves without a table (a heuristic)\n"
	      "      --per-section      one table piece (.mcount_loc) per traced\n"
	      "                         section, linked to it and writable: links\n"
	      "                         with no linker script (GNU ld, gold, lld,\n"
	      "                         mold), and --gc-sections drops a dead\n"
	      "                         function's entries with it\n"
	      "      --per-object       one piece (__mcount_loc) per object and\n"
	      "                         COMDAT group, the kernel's form (default;\n"
	      "                         undoes an earlier --per-section)\n"
	      "      --strict           fail a file (left as it was) when any\n"
	      "                         hook site or pad in it is reported and\n"
	      "                         not recorded\n"
	      "  -d, --dump             print the table and hooks of each FILE\n"
	      "                         (objects, executables, shared objects)\n"
	      "      --check            judge each FILE's table against its code\n"
	      "                         (hooks called directly, through the GOT or\n"
	      "                         a PLT entry), change nothing; exit 1 on any\n"
	      "                         problem, or a call it cannot follow\n"
	      "      --sorted           with --check: a linked table must be sorted\n"
	      "      --finalize         clear the entries of functions that are gone\n"
	      "                         (overridden weak ones) and sort the table of\n"
	      "                         each linked IMAGE (.ko: clear only)\n"
	      "      --prepatch         with --finalize, of an image linked with\n"
	      "                         libmcount.a (x86): write each hook call in\n"
	      "                         the disabled form its runtime would write\n"
	      "                         at boot, so that boot writes no code\n"
	      "      --format=FORMAT    dump or check as 'text' (default) or 'json'\n"
	      "                         (JSON Lines: one document per file)\n"
	      "  -j, --jobs=N           process up to N files at once\n"
	      "  -v, --verbose          say what was done to each file, and the\n"
	      "                         totals over several files\n"
	      "  -q, --quiet            print errors only (--check: problems only)\n"
	      "      --print-lds        print the path of the linker-script\n"
	      "                         fragment (mcount.lds) and exit\n"
	      "  -h, --help             print this help and exit\n"
	      "  -V, --version          print the version and exit\n"
	      "\n"
	      "Traced sections by default: .text* .init.text .ref.text .sched.text\n"
	      "  .spinlock.text .irqentry.text .softirqentry.text .kprobes.text\n"
	      "  .cpuidle.text\n"
	      "Exit status: 0 if every file succeeded (--check: was clean), 1 if\n"
	      "any failed (--check: had a problem), 2 on a usage error.\n",
	      out);
	fputs("Architectures:", out);
	for (const struct mc_arch *const *a = mc_all_arches; *a; a++)
		fprintf(out, " %s", (*a)->name);
	fputs("\n", out);
}

static bool push_arg(const char ***list, size_t *n, const char *arg)
{
	const char **v = realloc(*list, (*n + 1) * sizeof(**list));

	if (!v)
		return false;
	v[(*n)++] = arg;
	*list = v;
	return true;
}

static bool parse_jobs(const char *arg, unsigned *jobs)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 1 || v > 1024)
		return false;
	*jobs = (unsigned)v;
	return true;
}

/*
 * A usage error: one line saying what is wrong, one pointing at --help
 * (the whole help would bury the line that matters), exit status 2.
 */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("recordmcount: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'recordmcount --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* getopt's complaint, in our words and with our prefix (opterr = 0). */
static int bad_option(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	bool is_long = strncmp(arg, "--", 2) == 0;

	if (c == ':')
		return is_long ? usage_error("option '%s' needs an argument", arg)
			       : usage_error("option '-%c' needs an argument",
					     optopt);
	if (is_long)
		return usage_error("unknown option '%s'", arg);
	return usage_error("unknown option '-%c'", optopt);
}

/* Options that only mean something in another mode. */
static int check_modes(const struct mc_options *opt, bool format_given)
{
	if (opt->dump + opt->check + opt->finalize > 1)
		return usage_error("--dump, --check and --finalize do not go "
				   "together");
	if (format_given && !opt->dump && !opt->check)
		return usage_error("--format goes with --dump or --check");
	if (opt->sorted && !opt->check)
		return usage_error("--sorted goes with --check");
	if (opt->prepatch && !opt->finalize)
		return usage_error("--prepatch goes with --finalize");
	return -1;
}

/*
 * --print-lds: where the linker-script fragment is, for a Makefile's
 * `-Wl,-T,$(shell recordmcount --print-lds)`: run from a build tree
 * (build/ or build/asan/), the tree's lds/; installed, PREFIX/share/
 * recordmcount beside PREFIX/bin (the default DATADIR; nothing is built
 * into the binary, so a moved installation still finds its own).  An
 * install with another DATADIR has pkg-config's `ldscript` variable.
 * Only a file that exists is printed.
 */
static bool print_if_there(const char *dir, const char *rel)
{
	char path[4200], *real;

	snprintf(path, sizeof(path), "%s%s/mcount.lds", dir, rel);
	if (access(path, R_OK) != 0 || !(real = realpath(path, NULL)))
		return false;
	puts(real);
	free(real);
	return true;
}

static int print_lds(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
	} else {
		exe[0] = 0;
	}
	/* A build tree first: its own fragment, not an older install's. */
	if (exe[0] && (print_if_there(exe, "/../lds") ||
		       print_if_there(exe, "/../../lds")))
		return EXIT_SUCCESS;
	if (exe[0] && print_if_there(exe, "/../share/recordmcount"))
		return EXIT_SUCCESS;
	fprintf(stderr, "recordmcount: cannot find mcount.lds (not installed "
		"where this program looks, nor in a build tree)\n");
	return EXIT_FAILURE;
}

/* Returns -1 to go on, or the exit status to leave with. */
static int parse_options(int argc, char **argv, struct mc_options *opt)
{
	int c;
	bool ok = true, format_given = false;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":nws:dj:vqhV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'n': opt->nop = true; break;
		case 'w': opt->warn_untraced = true; break;
		case 's':
			ok = push_arg(&opt->symbols, &opt->n_symbols, optarg);
			break;
		case OPT_SECTION:
			ok = push_arg(&opt->sections, &opt->n_sections, optarg);
			break;
		case OPT_NO_SECTION:
			ok = push_arg(&opt->no_sections, &opt->n_no_sections,
				      optarg);
			break;
		case OPT_KEEP_PATCHABLE: opt->keep_patchable = true; break;
		case OPT_FIND_NOPS: opt->find_nops = true; break;
		case OPT_STRICT: opt->strict = true; break;
		case OPT_PER_SECTION: opt->per_section = true; break;
		case OPT_PER_OBJECT: opt->per_section = false; break;
		case 'd': opt->dump = true; break;
		case OPT_CHECK: opt->check = true; break;
		case OPT_SORTED: opt->sorted = true; break;
		case OPT_FINALIZE: opt->finalize = true; break;
		case OPT_PREPATCH: opt->prepatch = true; break;
		case OPT_FORMAT:
			format_given = true;
			if (strcmp(optarg, "text") == 0) {
				opt->format = MC_FORMAT_TEXT;
			} else if (strcmp(optarg, "json") == 0) {
				opt->format = MC_FORMAT_JSON;
			} else {
				return usage_error("unknown format '%s' (text "
						   "or json)", optarg);
			}
			break;
		case 'j':
			/* "-j foo.o": the count is missing, not bad. */
			if (!isdigit((unsigned char)optarg[0]))
				return usage_error("-j needs a number (-jN, -j N "
						   "or --jobs=N), not '%s'",
						   optarg);
			if (!parse_jobs(optarg, &opt->jobs))
				return usage_error("bad job count '%s' (1 to "
						   "1024)", optarg);
			break;
		case 'v': opt->verbosity++; break;
		case 'q': opt->verbosity = -1; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		case OPT_PRINT_LDS: return print_lds();
		case 'V':
			printf("recordmcount %s\n", MC_VERSION);
			return EXIT_SUCCESS;
		default:
			return bad_option(c, argv);
		}
		if (!ok) {
			fprintf(stderr, "recordmcount: out of memory\n");
			return EXIT_FAILURE;
		}
	}
	if (optind >= argc)
		return usage_error("no input files");
	return check_modes(opt, format_given);
}

static int process(const char *path, const struct mc_options *opt)
{
	if (opt->check)
		return mc_check_file(path, opt);
	if (opt->finalize)
		return mc_finalize_file(path, opt);
	return opt->dump ? mc_dump_file(path, opt) : mc_record_file(path, opt);
}

/* What the workers of a -j run share: the next file, files done, failed. */
struct shared {
	atomic_int next;
	atomic_int done;
	atomic_int failed;
};

/*
 * -j N: N worker processes for the whole run, each taking the next file
 * from a counter they share, so a long file never holds up the rest and
 * a run pays for N forks, not one per file (kernel objects take about as
 * long to process as a fork costs).
 */
static void work_through(char **files, int n, struct shared *sh,
			 const struct mc_options *opt)
{
	for (int i; (i = atomic_fetch_add(&sh->next, 1)) < n;) {
		if (process(files[i], opt))
			atomic_fetch_add(&sh->failed, 1);
		atomic_fetch_add(&sh->done, 1);
	}
}

/* Reap one worker, if one has ended; -1 when none is left. */
static int reap_any(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) < 0)
		if (errno != EINTR)
			return -1;
	return pid > 0;
}

/* "\rrecordmcount: 57/200 files", only where stderr is a terminal. */
static void progress(int done, int n, bool on)
{
	if (on)
		fprintf(stderr, "\rrecordmcount: %d/%d files\033[K", done, n);
}

/* Returns how many files failed. */
static int process_parallel(char **files, int n, const struct mc_options *opt)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned workers = opt->jobs < (unsigned)n ? opt->jobs : (unsigned)n;
	unsigned running = 0;
	bool show = opt->verbosity >= 0 && isatty(STDERR_FILENO);
	int failed, shown = -1;

	if (sh == MAP_FAILED) {
		struct shared alone = { 0 };
		work_through(files, n, &alone, opt);
		return atomic_load(&alone.failed);
	}
	atomic_init(&sh->next, 0);
	atomic_init(&sh->done, 0);
	atomic_init(&sh->failed, 0);
	fflush(NULL);
	for (unsigned w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid == 0) {
			work_through(files, n, sh, opt);
			_exit(0);
		}
		if (pid > 0)
			running++;
	}
	/* No worker could be forked: do it all here. */
	if (running == 0)
		work_through(files, n, sh, opt);
	while (running > 0) {
		int r = reap_any();

		if (r < 0)
			break;
		running -= (unsigned)r;
		if (atomic_load(&sh->done) != shown) {
			shown = atomic_load(&sh->done);
			progress(shown, n, show);
		}
		if (r == 0)
			usleep(50000);
	}
	if (show)
		fputs("\r\033[K", stderr);
	/* A worker that died of a signal finished none of its own file. */
	failed = atomic_load(&sh->failed) + (n - atomic_load(&sh->done));
	munmap(sh, sizeof(*sh));
	return failed;
}

/* Interrupted: leave no temporary file behind, then die of the signal. */
static void on_fatal_signal(int sig)
{
	mc_remove_pending_output();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void clean_up_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_fatal_signal);
	/*
	 * Past a file size limit (ulimit -f) a write fails with EFBIG and
	 * the file is reported and left as it was, instead of the process
	 * dying mid-write.
	 */
	signal(SIGXFSZ, SIG_IGN);
}

int main(int argc, char **argv)
{
	struct mc_options opt = { .jobs = 1 };
	int failed = 0;
	int status = parse_options(argc, argv, &opt);

	if (status >= 0)
		return status;
	clean_up_on_signals();
	if (!mc_elf_init()) {
		fprintf(stderr, "recordmcount: libelf is out of date\n");
		return EXIT_FAILURE;
	}
	/* Dump and check output must not interleave: they run in order. */
	if (opt.jobs > 1 && !opt.dump && !opt.check && argc - optind > 1) {
		failed = process_parallel(argv + optind, argc - optind, &opt);
	} else {
		for (int i = optind; i < argc; i++) {
			opt.last_file = i == argc - 1;
			failed += process(argv[i], &opt) != 0;
		}
	}
	/* Over many files, one line of totals when asked to say more. */
	if (argc - optind > 1 && opt.verbosity >= 0 &&
	    (opt.verbosity > 0 || (opt.check && opt.format == MC_FORMAT_TEXT)))
		fprintf(stderr, "recordmcount: %d files: %d ok, %d failed\n",
			argc - optind, argc - optind - failed, failed);
	free(opt.symbols);
	free(opt.sections);
	free(opt.no_sections);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
