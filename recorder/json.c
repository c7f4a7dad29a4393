/* SPDX-License-Identifier: MIT */
/*
 * json.c - Chrome's trace-event JSON (a path ending in .json): one "B"
 * or "E" event a line, timestamps in microseconds since the recording
 * began.  JSON needs the time in ns as it writes: ticks are converted
 * through the ratio of the clock's ticks to CLOCK_MONOTONIC's ns since
 * the start (struct rec_clock, the writer's), which sharpens as the
 * run goes on; each thread's timestamps are kept from going back where
 * the ratio moved.  The writer thread's alone.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "recorder.h"

static bool first;	/* no event written yet: no comma before it */
static uint32_t pid;

void rec_json_start(uint32_t process)
{
	pid = process;
	first = true;
	rec_out_text("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
}

static void put_json_string(const char *s)
{
	rec_out_put("\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			rec_out_put(e, 2);
		} else if (c < 0x20) {
			rec_out_text("\\u%04x", c);
		} else {
			rec_out_put(s, 1);
		}
	}
	rec_out_put("\"", 1);
}

static uint64_t ticks_to_ns(const struct rec_clock *c, uint64_t ticks)
{
	double ratio;

	if (ticks <= c->t0)
		return 0;
	ratio = c->t1 > c->t0 ? (double)(c->ns1 - c->ns0) /
				(double)(c->t1 - c->t0) : 1.0;
	return (uint64_t)((double)(ticks - c->t0) * ratio);
}

/*
 * The JSON name of event `e` of thread `t`: an exit gets its entry's,
 * kept on a stack per thread, for the library at its address may have
 * been closed, and another opened there, since the entry.  The stack is
 * as deep as the shadow stack, which the thread's open calls never
 * pass; without it (no memory), exits are named by their own time.
 */
static const char *json_name(struct rec_thread *t, const struct mct_event *e)
{
	bool entry = MCT_KIND(e->word) == MCT_ENTRY;
	const char *name;

	if (!t->json_cap && (t->json_names = malloc((t->max_frames + 1) *
						    sizeof(*t->json_names))))
		t->json_cap = t->max_frames + 1;
	if (!entry && t->json_depth)
		return t->json_names[--t->json_depth];
	name = rec_name_at((uintptr_t)e->func, MCT_TICKS(e->word));
	if (entry && t->json_depth < t->json_cap)
		t->json_names[t->json_depth++] = name;
	return name;
}

static void put_json_event(struct rec_thread *t, const struct mct_event *e,
			   const struct rec_clock *c)
{
	const char *name = json_name(t, e);
	uint64_t ns = ticks_to_ns(c, MCT_TICKS(e->word));
	char hex[32];

	if (ns < t->json_last)
		ns = t->json_last;
	t->json_last = ns;
	if (!name) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)e->func);
		name = hex;
	}
	rec_out_text("%s{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%llu.%03u,"
		 "\"name\":", first ? "" : ",\n",
		 MCT_KIND(e->word) == MCT_ENTRY ? "B" : "E", pid, t->tid,
		 (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
	put_json_string(name);
	rec_out_put("}", 1);
	first = false;
}

void rec_json_events(struct rec_thread *t, const struct mct_event *e,
		     size_t n, const struct rec_clock *c)
{
	for (size_t i = 0; i < n; i++)
		if (MCT_KIND(e[i].word) != MCT_DATA)	/* values: not here */
			put_json_event(t, &e[i], c);
}

/*
 * Whether a name in [lo, hi) is on a thread's stack of open JSON calls
 * (json_name): its exit, still to come, is named by it.
 */
bool rec_json_names_in(const char *lo, const char *hi)
{
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		for (size_t i = 0; i < t->json_depth; i++) {
			uintptr_t a = (uintptr_t)t->json_names[i];

			if (a >= (uintptr_t)lo && a < (uintptr_t)hi)
				return true;
		}
	return false;
}

/* The lost calls, in sum and by reason, as JSON metadata at the end. */
void rec_json_end(uint64_t lost, const uint64_t why[MCT_LOST_WHYS])
{
	rec_out_text("%s{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\","
		 "\"args\":{\"name\":\"pid %u\"}}\n],\n\"otherData\":"
		 "{\"lost_calls\":\"%llu\"", first ? "" : ",\n",
		 pid, pid, (unsigned long long)lost);
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		rec_out_text(",\"%s\":\"%llu\"", mct_lost_why_key(k),
			 (unsigned long long)why[k]);
	rec_out_text("}}\n");
}

/* A thread's names, once its ring is drained and gone. */
void rec_json_thread_gone(struct rec_thread *t)
{
	free(t->json_names);
	t->json_names = NULL;
	t->json_cap = t->json_depth = 0;
}

/* In the child of fork: the names of the parent's open calls were freed. */
void rec_json_fork_child(void)
{
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		t->json_depth = 0;
}
