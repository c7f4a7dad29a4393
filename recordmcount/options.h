/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * options.h - what the command line asked for, passed explicitly to
 * every step (no global option state).
 */
#ifndef MC_OPTIONS_H
#define MC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum mc_format { MC_FORMAT_TEXT, MC_FORMAT_JSON };

struct mc_options {
	bool nop;			/* --nop: NOP every recorded call */
	bool warn_untraced;		/* -w */
	bool keep_patchable;		/* --keep-patchable */
	bool find_nops;			/* --find-nops */
	bool per_section;		/* --per-section: a piece per section */
	bool strict;			/* --strict: reported = failed */
	bool dump;			/* --dump */
	bool check;			/* --check */
	bool finalize;			/* --finalize */
	bool prepatch;			/* --prepatch: with --finalize */
	bool sorted;			/* --sorted: a linked table must be */
	enum mc_format format;
	int verbosity;			/* -1 quiet, 0 normal, 1+ verbose */
	unsigned jobs;
	/*
	 * Set by main for the last file of a run in this process: nothing
	 * follows it, so its memory is left to the exit (mc_record_file).
	 */
	bool last_file;
	const char **symbols;		/* --symbol, extra hook names */
	size_t n_symbols;
	const char **sections;		/* --section, extra traced globs */
	size_t n_sections;
	const char **no_sections;	/* --no-section, excluded globs */
	size_t n_no_sections;
};

#endif
