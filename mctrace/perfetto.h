/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto.h - Perfetto's protobuf trace, written as a stream of calls'
 * beginnings and ends (perfetto.c).
 *
 * One track per process; one thread track, and one packet sequence, per
 * thread, made as its first event comes; function names interned per
 * sequence, each the first time its sequence uses it.
 */
#ifndef MCTRACE_PERFETTO_H
#define MCTRACE_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct pf_process {
	uint32_t pid;
	const char *name;		/* NULL: none */
	const char *const *cmdline;	/* the program's arguments */
	size_t ncmdline;
};

struct pf;

/* A writer into `f`, which stays the caller's. */
struct pf *pf_open(FILE *f);
/* A process's track written; the threads given next are its. */
void pf_process(struct pf *w, const struct pf_process *proc);
/* The next thread (k = 0, 1, ... in the order given) of process `pid`. */
void pf_thread(struct pf *w, uint32_t pid, uint32_t tid);
/*
 * A call of function `func` (a small number: its iid is func + 1),
 * named `name`, begins on thread k at `ns`; the innermost call begun
 * on k and not ended ends at `ns`.  Times in ns, on Perfetto's default
 * clock, never going back on one thread.
 */
void pf_begin(struct pf *w, size_t k, uint64_t ns, uint32_t func,
	      const char *name);
void pf_end(struct pf *w, size_t k, uint64_t ns);
/*
 * pf_end with the values the call captured (mctrace record -A/-R) as
 * the slice's debug annotations, `n` pairs of name and text in `nv`
 * (Perfetto merges an end event's annotations into its slice's args).
 */
void pf_end_values(struct pf *w, size_t k, uint64_t ns,
		   const char *const *nv, size_t n);
/* Write what is left; 0, or -1 if some write failed (ferror). */
int pf_close(struct pf *w);

struct trace_opts;
/*
 * The trace `in`, read as `ro` says (trace.h), converted into `out`
 * ("-": stdout) as a stream (pfconv.c); `say_lost` says the lost calls
 * on stderr.  0, or 1 after saying why (no `out` left behind).
 */
int perfetto_convert(const char *in, const char *out, bool say_lost,
		     const struct trace_opts *ro);

#endif
