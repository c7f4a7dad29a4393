/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chrome.c - dump --chrome: Chrome's trace-event JSON, for Perfetto
 * and chrome://tracing.
 */
#include <stdbool.h>

#include "output.h"

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * The values call `c` captured (-A/-R), as its args: "arg1", ...,
 * "retval", each the text replay shows.
 */
static void json_args(FILE *f, const struct thread *th, const struct call *c)
{
	const char *sep = ",\"args\":{";

	for (const struct call_value *v = call_values(th, c); v;
	     v = call_value_next(th, v), sep = ",") {
		if (v->which)
			fprintf(f, "%s\"arg%u\":", sep, v->which);
		else
			fprintf(f, "%s\"retval\":", sep);
		json_string(f, v->text);
	}
	if (c->values)
		fputc('}', f);
}

/* Complete ("X") events, ts and dur in microseconds. */
void out_chrome(const struct trace *t, FILE *f)
{
	uint64_t why[MCT_LOST_WHYS], lost = out_lost_calls(t, why);
	bool first = true;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];

		for (size_t i = 0; i < th->ncalls; i++) {
			const struct call *c = &th->calls[i];
			uint64_t d = c->end - c->start;

			fprintf(f, "%s{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
				"\"ts\":%llu.%03u,\"dur\":%llu.%03u,\"name\":",
				first ? "" : ",\n", th->pid, th->tid,
				(unsigned long long)(c->start / 1000),
				(unsigned)(c->start % 1000),
				(unsigned long long)(d / 1000),
				(unsigned)(d % 1000));
			json_string(f, trace_name(t, c->func));
			json_args(f, th, c);
			fputc('}', f);
			first = false;
		}
	}
	for (size_t i = 0; i < t->nprocs || (!i && !t->nprocs); i++) {
		uint32_t pid = t->nprocs ? t->procs[i].pid : t->pid;

		fprintf(f, "%s{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":"
			"\"process_name\",\"args\":{\"name\":\"pid %u\"}}",
			first ? "" : ",\n", pid, pid);
		first = false;
	}
	fprintf(f, "\n],\n\"otherData\":{\"lost_calls\":\"%llu\"",
		(unsigned long long)lost);
	for (unsigned r = 0; r < MCT_LOST_WHYS; r++)
		fprintf(f, ",\"%s\":\"%llu\"", mct_lost_why_key(r),
			(unsigned long long)why[r]);
	fprintf(f, "}}\n");
}
