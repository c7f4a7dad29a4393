/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto.c - Perfetto's protobuf trace format, written (perfetto.h).
 *
 * A Perfetto trace is a protobuf message Trace whose only field here is
 * a repeated TracePacket; written one packet after another, the file is
 * that message as a stream.  The messages and field numbers used are
 * those of Perfetto's published schema (protos/perfetto/trace/), listed
 * below; tests/trace/perfetto.proto states the same numbers for protoc
 * to decode what we write.
 *
 * The layout:
 *   - a packet per process describing its track (TrackDescriptor with a
 *     ProcessDescriptor: pid, name, command line), all on one sequence;
 *   - per thread, its own packet sequence (trusted_packet_sequence_id).
 *     Its first packet clears the sequence's incremental state, sets
 *     the sequence's defaults (its events go on the thread's track) and
 *     describes the thread's track (a ThreadDescriptor under the
 *     process's track).  Every later packet is one event, marked as
 *     needing that state: a TrackEvent SLICE_BEGIN or SLICE_END, at its
 *     timestamp.  A BEGIN names its function by an interned id; the
 *     first BEGIN of a function on a sequence carries the name in the
 *     packet's interned_data.  An END carries the values its call
 *     captured (-A/-R), if any, as debug annotations (a name and a
 *     string value each), which Perfetto adds to the slice's args.
 *
 * Timestamps carry no clock id: Perfetto takes them on its default
 * clock, BOOTTIME.  pfconv.c gives it the recording's CLOCK_MONOTONIC,
 * which runs as BOOTTIME does while the machine is not suspended; a
 * trace of ours has no other clock to be set against.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"
#include "perfetto.h"

/* Field numbers of Perfetto's schema. */
enum {
	TRACE_PACKET = 1,			/* Trace */

	PACKET_TIMESTAMP = 8,			/* TracePacket */
	PACKET_SEQUENCE_ID = 10,
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_DEFAULTS = 59,
	PACKET_TRACK_DESCRIPTOR = 60,

	DEFAULTS_TRACK_EVENT = 11,		/* TracePacketDefaults */
	EVENT_DEFAULTS_TRACK_UUID = 11,		/* TrackEventDefaults */

	TRACK_UUID = 1,				/* TrackDescriptor */
	TRACK_NAME = 2,
	TRACK_PROCESS = 3,
	TRACK_THREAD = 4,
	TRACK_PARENT_UUID = 5,

	PROCESS_PID = 1,			/* ProcessDescriptor */
	PROCESS_CMDLINE = 2,
	PROCESS_NAME = 6,

	THREAD_PID = 1,				/* ThreadDescriptor */
	THREAD_TID = 2,

	EVENT_NAME_IID = 10,			/* TrackEvent */
	EVENT_TYPE = 9,
	EVENT_DEBUG_ANNOTATIONS = 4,

	ANNOTATION_NAME = 10,			/* DebugAnnotation */
	ANNOTATION_STRING_VALUE = 6,

	INTERNED_EVENT_NAMES = 2,		/* InternedData */

	NAME_IID = 1,				/* EventName */
	NAME_NAME = 2,
};

enum { SLICE_BEGIN = 1, SLICE_END = 2 };			/* TrackEvent.Type */
enum { INCREMENTAL_STATE_CLEARED = 1, NEEDS_INCREMENTAL_STATE = 2 };

/* Packets are gathered in the buffer and written by the FLUSH_AT bytes. */
#define FLUSH_AT 65536
/* The processes' packet sequence; threads' are after it. */
#define PROCESS_SEQUENCE 1

struct pf_thread {
	uint32_t pid, tid, sequence;
	uint64_t uuid, process_uuid;
	bool started;		/* its sequence's first packet written */
	uint64_t *interned;	/* a bit per func: named on this sequence */
	size_t nwords;
};

struct pf {
	FILE *f;
	struct pb buf;
	uint64_t process_uuid;	/* the last process's */
	size_t nprocesses;
	struct pf_thread *threads;
	size_t nthreads, cap;
	bool failed;
};

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return p;
}

static void flush(struct pf *w)
{
	if (w->buf.n && fwrite(w->buf.p, 1, w->buf.n, w->f) != w->buf.n)
		w->failed = true;
	w->buf.n = 0;
}

struct pf *pf_open(FILE *f)
{
	struct pf *w = must(calloc(1, sizeof(*w)));

	w->f = f;
	return w;
}

/*
 * Track uuids need only be unique in the trace: a process's has the top
 * bit set and its place among them (two images of one pid, before and
 * after an exec, are two), a thread's is its place plus one.
 */
void pf_process(struct pf *w, const struct pf_process *proc)
{
	size_t packet, track, process;

	w->process_uuid = (uint64_t)1 << 63 | w->nprocesses++;
	packet = pb_open(&w->buf, TRACE_PACKET);
	pb_varint(&w->buf, PACKET_SEQUENCE_ID, PROCESS_SEQUENCE);
	track = pb_open(&w->buf, PACKET_TRACK_DESCRIPTOR);
	pb_varint(&w->buf, TRACK_UUID, w->process_uuid);
	process = pb_open(&w->buf, TRACK_PROCESS);
	pb_varint(&w->buf, PROCESS_PID, proc->pid);
	for (size_t i = 0; i < proc->ncmdline; i++)
		pb_string(&w->buf, PROCESS_CMDLINE, proc->cmdline[i]);
	if (proc->name)
		pb_string(&w->buf, PROCESS_NAME, proc->name);
	pb_close(&w->buf, process);
	pb_close(&w->buf, track);
	pb_close(&w->buf, packet);
}

void pf_thread(struct pf *w, uint32_t pid, uint32_t tid)
{
	if (w->nthreads == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->threads = must(realloc(w->threads,
					  w->cap * sizeof(*w->threads)));
	}
	w->threads[w->nthreads] = (struct pf_thread){ .pid = pid, .tid = tid,
		.uuid = w->nthreads + 1, .process_uuid = w->process_uuid,
		.sequence = PROCESS_SEQUENCE + 1 + (uint32_t)w->nthreads };
	w->nthreads++;
}

/* The first packet of a thread's sequence: its state, defaults, track. */
static void thread_start(struct pf *w, const struct pf_thread *th)
{
	size_t packet, defaults, event, track, thread;

	packet = pb_open(&w->buf, TRACE_PACKET);
	pb_varint(&w->buf, PACKET_SEQUENCE_ID, th->sequence);
	pb_varint(&w->buf, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
	defaults = pb_open(&w->buf, PACKET_DEFAULTS);
	event = pb_open(&w->buf, DEFAULTS_TRACK_EVENT);
	pb_varint(&w->buf, EVENT_DEFAULTS_TRACK_UUID, th->uuid);
	pb_close(&w->buf, event);
	pb_close(&w->buf, defaults);
	track = pb_open(&w->buf, PACKET_TRACK_DESCRIPTOR);
	pb_varint(&w->buf, TRACK_UUID, th->uuid);
	pb_varint(&w->buf, TRACK_PARENT_UUID, th->process_uuid);
	thread = pb_open(&w->buf, TRACK_THREAD);
	pb_varint(&w->buf, THREAD_PID, th->pid);
	pb_varint(&w->buf, THREAD_TID, th->tid);
	pb_close(&w->buf, thread);
	pb_close(&w->buf, track);
	pb_close(&w->buf, packet);
}

/* Thread `k`'s state, its sequence started the first time. */
static struct pf_thread *thread_of(struct pf *w, size_t k)
{
	struct pf_thread *th = &w->threads[k];

	if (!th->started) {
		thread_start(w, th);
		th->started = true;
	}
	return th;
}

/* Whether `func` is named on the thread's sequence yet; now it is. */
static bool interned(struct pf_thread *th, uint32_t func)
{
	size_t word = func / 64;
	uint64_t bit = (uint64_t)1 << (func % 64);
	bool was;

	if (word >= th->nwords) {
		size_t n = th->nwords ? th->nwords : 4;

		while (n <= word)
			n *= 2;
		th->interned = must(realloc(th->interned,
					    n * sizeof(*th->interned)));
		memset(th->interned + th->nwords, 0,
		       (n - th->nwords) * sizeof(*th->interned));
		th->nwords = n;
	}
	was = th->interned[word] & bit;
	th->interned[word] |= bit;
	return was;
}

static size_t event_packet(struct pf *w, const struct pf_thread *th,
			   uint64_t ns)
{
	size_t packet = pb_open(&w->buf, TRACE_PACKET);

	pb_varint(&w->buf, PACKET_TIMESTAMP, ns);
	pb_varint(&w->buf, PACKET_SEQUENCE_ID, th->sequence);
	pb_varint(&w->buf, PACKET_SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE);
	return packet;
}

static void event_done(struct pf *w, size_t packet)
{
	pb_close(&w->buf, packet);
	if (w->buf.n >= FLUSH_AT)
		flush(w);
}

void pf_begin(struct pf *w, size_t k, uint64_t ns, uint32_t func,
	      const char *name)
{
	struct pf_thread *th = thread_of(w, k);
	size_t packet = event_packet(w, th, ns), event;

	if (!interned(th, func)) {
		size_t data = pb_open(&w->buf, PACKET_INTERNED_DATA);
		size_t entry = pb_open(&w->buf, INTERNED_EVENT_NAMES);

		pb_varint(&w->buf, NAME_IID, (uint64_t)func + 1);
		pb_string(&w->buf, NAME_NAME, name);
		pb_close(&w->buf, entry);
		pb_close(&w->buf, data);
	}
	event = pb_open(&w->buf, PACKET_TRACK_EVENT);
	pb_varint(&w->buf, EVENT_TYPE, SLICE_BEGIN);
	pb_varint(&w->buf, EVENT_NAME_IID, (uint64_t)func + 1);
	pb_close(&w->buf, event);
	event_done(w, packet);
}

void pf_end_values(struct pf *w, size_t k, uint64_t ns,
		   const char *const *nv, size_t n)
{
	struct pf_thread *th = thread_of(w, k);
	size_t packet = event_packet(w, th, ns), event;

	event = pb_open(&w->buf, PACKET_TRACK_EVENT);
	pb_varint(&w->buf, EVENT_TYPE, SLICE_END);
	for (size_t i = 0; i < n; i++) {
		size_t a = pb_open(&w->buf, EVENT_DEBUG_ANNOTATIONS);

		pb_string(&w->buf, ANNOTATION_NAME, nv[2 * i]);
		pb_string(&w->buf, ANNOTATION_STRING_VALUE, nv[2 * i + 1]);
		pb_close(&w->buf, a);
	}
	pb_close(&w->buf, event);
	event_done(w, packet);
}

void pf_end(struct pf *w, size_t k, uint64_t ns)
{
	pf_end_values(w, k, ns, NULL, 0);
}

int pf_close(struct pf *w)
{
	int err;

	flush(w);
	err = w->failed ? -1 : 0;
	for (size_t i = 0; i < w->nthreads; i++)
		free(w->threads[i].interned);
	free(w->threads);
	pb_free(&w->buf);
	free(w);
	return err;
}
