/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output.c - what mctrace's outputs share: reading a trace into a file
 * of one form, times as people read them, self time, the lost calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"
#include "output.h"

uint64_t out_self_time(const struct thread *th, size_t i)
{
	const struct call *c = &th->calls[i];
	uint64_t self = c->end - c->start;

	for (size_t k = i + 1; k < th->ncalls && th->calls[k].depth > c->depth;
	     k++) {
		uint64_t d = th->calls[k].end - th->calls[k].start;

		if (th->calls[k].depth == c->depth + 1)
			self = self > d ? self - d : 0;
	}
	return self;
}

void out_time(FILE *f, uint64_t ns)
{
	if (ns < 10000)
		fprintf(f, "%8llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		fprintf(f, "%8.3f us", ns / 1e3);
	else if (ns < 10000000000ull)
		fprintf(f, "%8.3f ms", ns / 1e6);
	else
		fprintf(f, "%8.3f  s", ns / 1e9);
}

uint64_t out_lost_calls(const struct trace *t, uint64_t why[MCT_LOST_WHYS])
{
	uint64_t lost = 0;

	memset(why, 0, MCT_LOST_WHYS * sizeof(*why));
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		uint64_t sum = 0;

		for (unsigned r = 0; r < MCT_LOST_WHYS; r++) {
			why[r] += th->lost_why[r];
			sum += th->lost_why[r];
		}
		/* (a file cut short between the two blocks) */
		lost += th->lost > sum ? th->lost : sum;
	}
	return lost;
}

void out_lost(const struct trace *t, FILE *f, const char *prefix)
{
	uint64_t why[MCT_LOST_WHYS], lost = out_lost_calls(t, why), told = 0;
	const char *sep = ": ";

	if (!lost)
		return;
	fprintf(f, "%s%llu calls not recorded", prefix,
		(unsigned long long)lost);
	for (unsigned r = 0; r < MCT_LOST_WHYS; r++)
		if (why[r]) {
			fprintf(f, "%s%llu %s", sep, (unsigned long long)why[r],
				mct_lost_why_text(r));
			sep = ", ";
			told += why[r];
		}
	/* an older recorder's file (no reasons), or a newer one's reasons */
	if (!told)
		fputs(" (the file does not say why)", f);
	else if (told < lost)
		fprintf(f, "%s%llu another reason", sep,
			(unsigned long long)(lost - told));
	/* the one loss an option cures: rings the writer could not empty */
	if (why[MCT_LOST_RING])
		fputs(" (record with a larger --bufsize to keep them)", f);
	fputc('\n', f);
}

void out_lost_footer(const struct trace *t, FILE *f)
{
	out_lost(t, f, "# ");
	if (t->bad_exits)
		fprintf(f, "# %zu exits that matched no entry\n", t->bad_exits);
}

void out_thread_head(const struct trace *t, size_t k, FILE *f)
{
	const struct thread *th = &t->threads[k];
	const char *arg;

	if (t->nprocs < 2) {
		fprintf(f, "# tid %u: %zu calls\n", th->tid, th->ncalls);
		return;
	}
	if (!k || t->threads[k - 1].proc != th->proc) {
		fprintf(f, "# process %u:", th->pid);
		for (size_t n = 0;
		     (arg = trace_proc_info(t, th->proc, "arg", n)); n++)
			fprintf(f, " %s", arg);
		fputc('\n', f);
	}
	fprintf(f, "# pid %u tid %u: %zu calls\n", th->pid, th->tid,
		th->ncalls);
}

/*
 * Its mode, not root's access(), says whether a file may be written:
 * one with no write bit is one its owner asked to keep, as recordmcount
 * judges its objects.
 */
int out_refuse_read_only(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH))) {
		fprintf(stderr, "mctrace: %s: read-only file (mode %04o): left "
			"as it is; make it writable or remove it\n", path,
			(unsigned)(st.st_mode & 07777));
		return 1;
	}
	if (access(path, W_OK) != 0) {
		fprintf(stderr, "mctrace: %s: not writable: left as it is\n",
			path);
		return 1;
	}
	return 0;
}

int out_file(const char *in, const char *out, out_writer *write,
	     bool say_lost, const struct trace_opts *ro)
{
	return out_file_filtered(in, out, write, say_lost, ro, NULL);
}

int out_file_filtered(const char *in, const char *out, out_writer *write,
		      bool say_lost, const struct trace_opts *ro,
		      const struct filter *flt)
{
	struct trace t;
	FILE *f = stdout;
	int err = 0;

	if (strcmp(out, "-") && out_refuse_read_only(out))
		return 1;
	if (filter_read(in, ro, flt, &t) != 0)
		return 1;
	if (strcmp(out, "-") && !(f = fopen(out, "w"))) {
		fprintf(stderr, "mctrace: %s: %s\n", out, strerror(errno));
		trace_free(&t);
		return 1;
	}
	if (say_lost) {
		char prefix[4200];

		snprintf(prefix, sizeof(prefix), "mctrace: %s: ", in);
		out_lost(&t, stderr, prefix);
	}
	write(&t, f);
	if (ferror(f) || (f != stdout && fclose(f) != 0)) {
		fprintf(stderr, "mctrace: %s: write error\n", out);
		err = 1;
	}
	trace_free(&t);
	return err;
}

int out_done(FILE *f, const char *name)
{
	if (fflush(f) != 0 || ferror(f)) {
		fprintf(stderr, "mctrace: %s: write error\n", name);
		return 1;
	}
	return 0;
}
