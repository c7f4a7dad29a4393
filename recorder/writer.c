/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the writer thread: it drains every thread's ring into the
 * trace file, so the traced threads never write a file themselves.
 *
 * Two forms (format.h): the recorder's own, events in the compact form
 * with a name block for each function the first time it shows up, and
 * Chrome's trace-event JSON (a path ending in .json), one "B" or "E"
 * event a line, timestamps in microseconds since the recording began.
 * JSON needs the time in ns as it writes: ticks are converted through
 * the ratio of the clock's ticks to CLOCK_MONOTONIC's ns since the
 * start, which sharpens as the run goes on; each thread's timestamps
 * are kept from going back where the ratio moved.
 *
 * The thread wakes every millisecond while the rings are quiet, and
 * while they fill, when the fullest would hold a quarter of its room
 * (nap_ns).  That is a guess from the rate it saw last: a thread whose
 * ring passes half full wakes it at once (rec_writer_nudge).  A failed
 * write is reported once; the rings are drained all the same, so a full
 * disk never blocks the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <mcount.h>

#include "../runtime/client.h"
#include "recorder.h"

#define OUT_SIZE (64 * 1024)
#define SEEN_BITS 10
/*
 * Events encoded as one block (and given back to the thread) at a time:
 * the ring's room comes back in steps of 64 KiB, not of a whole backlog
 * (which lost calls at load, the ring staying full meanwhile).
 */
#define BLOCK_EVENTS (OUT_SIZE / sizeof(struct mct_event))

struct name {
	uintptr_t addr;
	const char *name;	/* NULL: none known */
};

static struct {
	int fd;
	bool json;
	bool failed;
	bool stop;
	bool first_json;
	uint32_t pid;
	pthread_t thread;
	pthread_mutex_t lock;	/* held around each pass over the rings */
	uint64_t t0, ns0;	/* ticks and ns at the start */
	uint64_t t1, ns1;	/* at the last pass */
	uint64_t clock_written;	/* ns1 when the last MCT_CLOCK went out */
	unsigned passes;	/* over the rings, so far */
	size_t used;
	char out[OUT_SIZE];
	struct name *names;	/* open addressing; addr 0 is empty */
	size_t nnames, names_cap;
	uintptr_t seen[1 << SEEN_BITS];	/* names recently found, by hash */
	/* libraries opened while recording (libs.c) */
	unsigned libs_gen;	/* rec_libs_generation() the caches are of */
	struct lib_seen {
		uintptr_t addr;
		uint64_t from, until;
		const char *name;
	} lib_seen[1 << SEEN_BITS];	/* MCT_NAME_AT blocks written */
	/* what the writer cost (MCOUNT_TRACE_STATS) */
	uint64_t busy_passes, events;	/* passes that found events, events */
	uint64_t fullest;	/* the most events a ring held at a pass */
	uint64_t longest_pass_ns, longest_gap_ns;	/* wall, and between
							   two passes' starts */
	uint64_t thread_cpu_ns;	/* the writer thread's, at its end */
	uint64_t wakes;		/* naps a ring's mark cut short */
	uint64_t test_nap_ns;	/* MCOUNT_TRACE_TEST_NAP: every nap's */
} w = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * 1 once a nudge came since the writer last woke: a wake-up each.  The
 * writer sleeps on it (a futex) while it is 0.
 */
uint32_t rec_writer_nudged;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The clock's ticks and CLOCK_MONOTONIC at one instant: ticks read on
 * both sides of the clock call, the tightest of a few tries.  A writer
 * preempted between two plain reads would pair ticks with a time
 * milliseconds later, and every timestamp converted through that pair
 * would be off by its share of the recording (a few percent, on a
 * loaded machine, for a recording of a second).
 */
static void clock_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = rec_ticks(), n = now_ns(), b = rec_ticks();

		if (i == 0 || (b >= a && b - a < best)) {
			best = b >= a ? b - a : UINT64_MAX;
			*ticks = a + (b >= a ? (b - a) / 2 : 0);
			*ns = n;
		}
	}
}

/* Write the buffers whole, or report the first failure and give up. */
static void write_all(struct iovec *iov, int n)
{
	for (;;) {
		ssize_t k;

		while (n && !iov->iov_len) {
			iov++;
			n--;
		}
		if (!n || w.failed)
			return;
		k = writev(w.fd, iov, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "mcount: trace: cannot write: %s; "
				"the trace is incomplete\n",
				k < 0 ? strerror(errno) : "short write");
			w.failed = true;
			return;
		}
		for (; n && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
}

static void flush_out(void)
{
	struct iovec iov = { w.out, w.used };

	write_all(&iov, 1);
	w.used = 0;
}

static void put(const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		size_t k = OUT_SIZE - w.used < n ? OUT_SIZE - w.used : n;

		memcpy(w.out + w.used, c, k);
		w.used += k;
		c += k;
		n -= k;
		if (w.used == OUT_SIZE)
			flush_out();
	}
}

/*
 * The file's words are little-endian (format.h): a big-endian recorder
 * swaps them on the way out, the traced threads never do.
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static uint32_t le32(uint32_t v) { return __builtin_bswap32(v); }
static uint64_t le64(uint64_t v) { return __builtin_bswap64(v); }

static void put_words(const uint64_t *v, size_t n)
{
	uint64_t buf[64];

	while (n) {
		size_t k = n < 64 ? n : 64;

		for (size_t i = 0; i < k; i++)
			buf[i] = le64(v[i]);
		put(buf, k * 8);
		v += k;
		n -= k;
	}
}
#else
static uint32_t le32(uint32_t v) { return v; }
static uint64_t le64(uint64_t v) { return v; }
static void put_words(const uint64_t *v, size_t n) { put(v, n * 8); }
#endif

static void put_block_head(uint32_t kind, uint32_t tid, size_t n)
{
	struct mct_block b = { .kind = le32(kind), .tid = le32(tid),
			       .bytes = le64(n) };

	put(&b, sizeof(b));
}

/* A block whose payload is `n` u64 words. */
static void put_block(uint32_t kind, uint32_t tid, const uint64_t *v,
		      size_t n)
{
	put_block_head(kind, tid, n * 8);
	put_words(v, n);
}

static void put_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put_text(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- names ------------------------------------------------------------- */

static size_t name_hash(uintptr_t a, size_t cap)
{
	return (size_t)((a >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static void names_grow(void)
{
	size_t cap = w.names_cap ? 2 * w.names_cap : 1024;
	struct name *v = calloc(cap, sizeof(*v));

	if (!v)
		return;
	for (size_t i = 0; i < w.names_cap; i++) {
		size_t h;

		if (!w.names[i].addr)
			continue;
		for (h = name_hash(w.names[i].addr, cap); v[h].addr;
		     h = (h + 1) & (cap - 1))
			;
		v[h] = w.names[i];
	}
	free(w.names);
	w.names = v;
	w.names_cap = cap;
}

/*
 * The name of the function at `addr`, looked up once; the first time,
 * in the recorder's own form, a name block goes out for it.
 */
static const char *name_of(uintptr_t addr)
{
	static char copy[4096];	/* the writer thread's alone */
	struct name *n;
	size_t h;

	if (2 * (w.nnames + 1) > w.names_cap)
		names_grow();
	if (!w.names_cap)
		return NULL;
	for (h = name_hash(addr, w.names_cap); w.names[h].addr;
	     h = (h + 1) & (w.names_cap - 1))
		if (w.names[h].addr == addr)
			return w.names[h].name;
	n = &w.names[h];
	n->addr = addr;
	/* a copy: the program may close the library before the trace ends */
	n->name = mc_host_func_name_copy(addr, copy, sizeof(copy)) ?
		  strdup(copy) : NULL;
	w.nnames++;
	if (!w.json) {
		uint64_t a = addr;
		size_t len = n->name ? strlen(n->name) : 0;

		if (len > 4096)
			len = 4096;
		put_block_head(MCT_NAME, 0, 8 + len);
		put_words(&a, 1);
		put(n->name ? n->name : "", len);
	}
	return n->name;
}

/*
 * An address of a library opened or closed while recording: its name
 * at `ticks`, from the load that was there then (libs.c); in the
 * recorder's own form, an MCT_NAME_AT block the first time.  *lib is
 * false for other addresses, which name_of answers.
 */
static const char *lib_name_of(uintptr_t addr, uint64_t ticks, bool *lib)
{
	uint64_t h = ((uint64_t)addr >> 4) * 0x9e3779b97f4a7c15ull;
	struct lib_seen *seen = &w.lib_seen[h >> (64 - SEEN_BITS)];
	struct rec_lib_name n;
	int found;

	*lib = true;
	if (seen->addr == addr && seen->from <= ticks && ticks < seen->until)
		return seen->name;	/* its block is out */
	found = rec_lib_name(addr, ticks, &n);
	*lib = found != 0;
	if (found <= 0)
		return NULL;
	if (!w.json && !(seen->addr == addr && seen->from == n.from)) {
		uint64_t v[3] = { addr, n.from, n.base };
		size_t len = n.name ? strlen(n.name) : 0;

		if (len > 4096)
			len = 4096;
		put_block_head(MCT_NAME_AT, 0, 24 + len);
		put_words(v, 3);
		put(n.name ? n.name : "", len);
	}
	*seen = (struct lib_seen){ addr, n.from, n.until, n.name };
	return n.name;
}

/* The name of the function at `addr` for an event at `ticks`. */
static const char *name_at(uintptr_t addr, uint64_t ticks)
{
	bool lib;
	const char *name = lib_name_of(addr, ticks, &lib);

	return lib ? name : name_of(addr);
}

/*
 * name_at for every entry event of the recorder's own form, which only
 * needs the name block written once: most events name a function seen
 * a moment ago, found here with one compare.  A library loaded since
 * the caches were made may be at an address they hold: they start over.
 */
static bool name_once(uintptr_t addr, uint64_t ticks)
{
	uint64_t h = ((uint64_t)addr >> 4) * 0x9e3779b97f4a7c15ull;
	uintptr_t *seen = &w.seen[h >> (64 - SEEN_BITS)];
	bool lib;

	if (*seen == addr)
		return false;
	lib_name_of(addr, ticks, &lib);
	if (lib)
		return true;
	name_of(addr);
	if (w.names_cap)	/* else not kept: try again next time */
		*seen = addr;
	return false;
}

/*
 * name_once, and the ticks its name holds for: all of them, but for an
 * address of a library opened or closed while recording, whose name
 * ends at its unload (an empty span when not known: asked every time).
 */
static void name_span(uintptr_t addr, uint64_t ticks, uint64_t *from,
		      uint64_t *until)
{
	uint64_t h = ((uint64_t)addr >> 4) * 0x9e3779b97f4a7c15ull;
	const struct lib_seen *seen = &w.lib_seen[h >> (64 - SEEN_BITS)];

	*from = 0;
	*until = UINT64_MAX;
	if (!name_once(addr, ticks))
		return;
	if (seen->addr == addr && seen->from <= ticks && ticks < seen->until) {
		*from = seen->from;
		*until = seen->until;
	} else {
		*until = 0;
	}
}

static void caches_check(void)
{
	unsigned gen = rec_libs_generation();

	if (gen != w.libs_gen) {
		memset(w.seen, 0, sizeof(w.seen));
		memset(w.lib_seen, 0, sizeof(w.lib_seen));
		w.libs_gen = gen;
	}
}

static void put_unload(uintptr_t lo, uintptr_t hi, uint64_t ticks)
{
	uint64_t v[3] = { lo, hi, ticks };

	if (!w.json)
		put_block(MCT_UNLOAD, 0, v, 3);
}

/* ---- JSON ---------------------------------------------------------------- */

static void put_json_string(const char *s)
{
	put("\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			put(e, 2);
		} else if (c < 0x20) {
			put_text("\\u%04x", c);
		} else {
			put(s, 1);
		}
	}
	put("\"", 1);
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
	double ratio;

	if (ticks <= w.t0)
		return 0;
	ratio = w.t1 > w.t0 ? (double)(w.ns1 - w.ns0) / (double)(w.t1 - w.t0)
			    : 1.0;
	return (uint64_t)((double)(ticks - w.t0) * ratio);
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
	name = name_at((uintptr_t)e->func, MCT_TICKS(e->word));
	if (entry && t->json_depth < t->json_cap)
		t->json_names[t->json_depth++] = name;
	return name;
}

static void put_json_event(struct rec_thread *t, const struct mct_event *e)
{
	const char *name = json_name(t, e);
	uint64_t ns = ticks_to_ns(MCT_TICKS(e->word));
	char hex[32];

	if (ns < t->json_last)
		ns = t->json_last;
	t->json_last = ns;
	if (!name) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)e->func);
		name = hex;
	}
	put_text("%s{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%llu.%03u,"
		 "\"name\":", w.first_json ? "" : ",\n",
		 MCT_KIND(e->word) == MCT_ENTRY ? "B" : "E", w.pid, t->tid,
		 (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
	put_json_string(name);
	put("}", 1);
	w.first_json = false;
}

/* ---- the compact events (format.h) ---------------------------------------- */

#define SLOT_BITS 9	/* a table twice MCT_SLOTS, so probes stay short */

/*
 * The functions the block being encoded has named, by address (0: an
 * empty slot; a function's address never is).  The table is cleared for
 * each block: 8 KiB, less than the compare of a generation would cost
 * over a block's 4,096 events.  A slot's `op` is 0 (no op is) while its
 * name holds only for a span of ticks (a library opened or closed while
 * recording), kept apart with the op, so that the common entry costs a
 * compare of its address and a test of its op.
 */
static struct slot {
	uint64_t addr;
	uint64_t op;		/* its op, or 0: see spans[] */
} slots[1 << SLOT_BITS];
static struct span {
	uint64_t from, until;	/* the ticks its name block holds for */
	uint8_t op;
} spans[1 << SLOT_BITS];
static unsigned slots_used;
static uint8_t enc[sizeof(struct mct_events) + BLOCK_EVENTS * MCT_EVENT_MAX];

static uint8_t *put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> 8 * i);
	return p;
}

static uint8_t *put_leb(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A delta of ticks, which may be negative, as LEB128 takes it. */
static uint64_t zigzag(uint64_t d)
{
	return d << 1 ^ (uint64_t)((int64_t)d >> 63);
}

/* Slot `s` names its function with `op`, for all ticks or a span. */
static void slot_span(struct slot *s, uint8_t op, uint64_t from,
		      uint64_t until)
{
	spans[s - slots] = (struct span){ from, until, op };
	s->op = from != 0 || until != UINT64_MAX ? 0 : op;
}

/*
 * The op of a slot whose name holds for a span: a library closed and
 * another opened at its address within one block moves the span to the
 * new one's name (the slot stays).
 */
static __attribute__((noinline)) uint8_t span_op(struct slot *s,
						 uint64_t ticks)
{
	struct span *sp = &spans[s - slots];
	uint64_t from, until;

	if (ticks < sp->from || ticks >= sp->until) {
		name_span((uintptr_t)s->addr, ticks, &from, &until);
		slot_span(s, sp->op, from, until);
	}
	return sp->op;
}

/*
 * An entry's op the long way, written at `p` with what follows it;
 * returns past them.  `s` is where the function's address hashes: the
 * function is found from there, else it is new to the block
 * (MCT_OP_NEW with its address after it; it takes a slot while there
 * are slots, and its name goes out if it never has).  A slot whose name
 * holds for a span of ticks gets its op from span_op.
 */
static __attribute__((noinline)) uint8_t *put_entry_op(uint8_t *p,
						       struct slot *s,
						       uint64_t func,
						       uint64_t ticks)
{
	uint64_t from, until;

	while (s->addr != func) {
		if (!s->addr)
			goto new;
		s = s + 1 < slots + (1 << SLOT_BITS) ? s + 1 : slots;
	}
	*p = s->op ? (uint8_t)s->op : span_op(s, ticks);
	return p + 1;
new:
	name_span((uintptr_t)func, ticks, &from, &until);
	if (slots_used < MCT_SLOTS) {
		s->addr = func;
		slot_span(s, (uint8_t)(MCT_OP_SLOT0 + slots_used++), from,
			  until);
	}
	*p++ = MCT_OP_NEW;
	return put_le64(p, func);
}

/*
 * One MCT_EVENTS block of `n` ring events, into enc; its length.  The
 * loop is the writer's cost per event, so the common event, an exit or
 * an entry of a function in its hashed slot with a delta of one byte,
 * takes one path with no call: its op and delta go out as two bytes.
 */
static size_t encode_events(const struct mct_event *e, size_t n)
{
	const struct mct_event *end = e + n;
	uint64_t prev = MCT_TICKS(e[0].word);
	uint8_t *p = enc;

	memset(slots, 0, sizeof(slots));
	slots_used = 0;
	p = put_le64(p, prev);
	p = put_le64(p, (uint64_t)n);	/* count, then flags 0 */
	for (; e < end; e++) {
		uint64_t word = e->word, func = e->func;
		uint64_t ticks = MCT_TICKS(word), d = ticks - prev;
		uint8_t op;

		prev = ticks;
		if (MCT_KIND(word) == MCT_ENTRY) {
			struct slot *s = &slots[(func * 0x9e3779b97f4a7c15ull)
						>> (64 - SLOT_BITS)];

			if (__builtin_expect(s->addr != func || !s->op, 0)) {
				p = put_entry_op(p, s, func, ticks);
				p = put_leb(p, zigzag(d));
				continue;
			}
			op = (uint8_t)s->op;
		} else {
			op = (uint8_t)mct_exit_tag(func);
		}
		p[0] = op;
		if (__builtin_expect(d < 0x40, 1)) {	/* zigzag: d << 1 */
			p[1] = (uint8_t)(d << 1);
			p += 2;
		} else {
			p = put_leb(p + 1, zigzag(d));
		}
	}
	return (size_t)(p - enc);
}

/* ---- draining ------------------------------------------------------------ */

static void put_events(struct rec_thread *t, const struct mct_event *e,
		       size_t n)
{
	size_t len;

	if (w.json) {
		for (size_t i = 0; i < n; i++)
			put_json_event(t, &e[i]);
		return;
	}
	len = encode_events(e, n);
	put_block_head(MCT_EVENTS, t->tid, len);
	put(enc, len);
}

/*
 * Thread `t`'s lost calls, if they changed: an MCT_LOST_WHY block of
 * them by reason and an MCT_LOST of their sum (format.h).  The thread
 * counts them as it runs: the copy is what it had counted by then.
 */
static void put_lost(struct rec_thread *t)
{
	uint64_t v[MCT_LOST_WHYS], sum = 0;

	memcpy(v, t->lost, sizeof(v));
	if (w.json || !memcmp(v, t->lost_written, sizeof(v)))
		return;
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		sum += v[k];
	memcpy(t->lost_written, v, sizeof(v));
	put_block(MCT_LOST_WHY, t->tid, v, MCT_LOST_WHYS);
	put_block(MCT_LOST, t->tid, &sum, 1);
}

/* Write out what thread `t` recorded since the last pass; how many. */
static uint64_t drain(struct rec_thread *t)
{
	uint64_t head, tail, size, n;

	if (t->unmapped)
		return 0;
	head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	caches_check();		/* after: a library these events ran in */
	tail = t->tail;
	size = t->mask + 1;
	n = head - tail;
	while (tail != head) {
		uint64_t at = tail & t->mask;
		uint64_t k = head - tail < size - at ? head - tail : size - at;

		if (k > BLOCK_EVENTS)
			k = BLOCK_EVENTS;
		put_events(t, &t->ring[at], (size_t)k);
		tail += k;
		__atomic_store_n(&t->tail, tail, __ATOMIC_RELEASE);
	}
	put_lost(t);
	if (__atomic_load_n(&t->dead, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&t->head, __ATOMIC_ACQUIRE) == tail) {
		munmap(t->ring, (t->mask + 1) * sizeof(*t->ring));
		munmap(t->frames - 1, REC_FRAMES_BYTES(t->max_frames));
		munmap(t->fixes, 2 * t->max_frames * sizeof(*t->fixes));
		free(t->json_names);
		t->json_names = NULL;
		t->json_cap = t->json_depth = 0;
		t->unmapped = true;
	}
	return n;
}

static void put_clock(void)
{
	uint64_t c[4] = { w.t0, w.ns0, w.t1, w.ns1 };

	if (!w.json)
		put_block(MCT_CLOCK, 0, c, 4);
	w.clock_written = w.ns1;
}

/*
 * Whether a name in [lo, hi) is on a thread's stack of open JSON calls
 * (json_name): its exit, still to come, is named by it.
 */
static bool json_names_in(const char *lo, const char *hi)
{
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		for (size_t i = 0; i < t->json_depth; i++) {
			uintptr_t a = (uintptr_t)t->json_names[i];

			if (a >= (uintptr_t)lo && a < (uintptr_t)hi)
				return true;
		}
	return false;
}

/*
 * The names of libraries closed before the last pass: every ring has
 * been drained since, so no event to come ran in them (libs.c).
 */
static void release_names(void)
{
	if (rec_libs_release(w.passes, json_names_in))
		memset(w.lib_seen, 0, sizeof(w.lib_seen));
}

/* Drain every ring; the most events one of them held. */
static uint64_t pass(void)
{
	uint64_t fullest = 0, all = 0;

	pthread_mutex_lock(&w.lock);
	w.passes++;
	clock_pair(&w.t1, &w.ns1);
	for (struct rec_thread *t = __atomic_load_n(&rec_threads,
						    __ATOMIC_ACQUIRE);
	     t; t = t->next) {
		uint64_t n = drain(t);

		all += n;
		if (n > fullest)
			fullest = n;
	}
	if (fullest > w.fullest)
		w.fullest = fullest;
	release_names();
	rec_libs_unloads(put_unload, w.passes);
	if (all && w.ns1 - w.clock_written > 10000000u)
		put_clock();
	flush_out();
	w.busy_passes += all != 0;
	w.events += all;
	pthread_mutex_unlock(&w.lock);
	return fullest;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * How long the writer sleeps after a pass that found `fullest` events in
 * one ring, `since` ns after the pass before: until that ring, filling
 * as fast, holds a quarter of its room.  The writer then reads lines
 * the traced thread wrote milliseconds ago, long gone from its cache,
 * in a few large passes: one that woke often would, with a CPU of its
 * own, chase the traced threads through their rings' newest lines, and
 * every call would pay for the lines moved between the two CPUs, and
 * the writer for each wake-up (bench/RESULTS.md).  A quarter leaves the
 * thread room to write four times as fast meanwhile.  At least 100 us,
 * and at most the time a thread writing an event every 4 ns takes to
 * fill half its ring (1 ms for smaller rings, as when all are empty):
 * a thread quiet for a while may start writing at full speed, and one
 * whose ring passes half full cuts the nap short anyway (mind_mark in
 * record.c).  A ring found half full or more says the writer is late:
 * no sleep.
 */
static uint64_t nap_ns(uint64_t fullest, uint64_t since)
{
	uint64_t ring = rec_cfg.ring_events, most = ring * 2, ns;

	if (most < 1000000)
		most = 1000000;
	if (!fullest)
		return 1000000;
	if (fullest >= ring / 2)
		return 0;
	ns = (uint64_t)((double)since * (double)(ring / 4) / (double)fullest);
	if (ns < 100000)
		return 100000;
	return ns < most ? ns : most;
}

/* MCOUNT_TRACE_STATS: the longest gap between passes, and pass. */
static void note_times(uint64_t gap, uint64_t took)
{
	if (gap > w.longest_gap_ns)
		w.longest_gap_ns = gap;
	if (took > w.longest_pass_ns)
		w.longest_pass_ns = took;
}

/*
 * A thread's ring passed its mark (record.c), or the recording ends:
 * the writer stops sleeping.  Called from a traced thread, anywhere (a
 * signal handler too): at most one system call, not a cancellation
 * point, errno as it was.
 */
void rec_writer_nudge(void)
{
	int saved = errno;

	if (__atomic_exchange_n(&rec_writer_nudged, 1, __ATOMIC_ACQ_REL))
		return;
#ifdef SYS_futex
	(void)syscall(SYS_futex, &rec_writer_nudged, FUTEX_WAKE_PRIVATE, 1,
		      NULL, NULL, 0);
#endif
	errno = saved;
}

/*
 * Sleep `ns`, or until a nudge (none since `rec_writer_nudged` was last
 * cleared).  SYS_futex takes the kernel's timespec of longs, which on a
 * 32-bit target may not be libc's struct timespec.
 */
static void nap(uint64_t ns)
{
#ifdef SYS_futex
	struct { long tv_sec, tv_nsec; } ts = {
		(long)(ns / 1000000000u), (long)(ns % 1000000000u) };

	(void)syscall(SYS_futex, &rec_writer_nudged, FUTEX_WAIT_PRIVATE, 0,
		      &ts, NULL, 0);
	if (__atomic_load_n(&rec_writer_nudged, __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE))
		w.wakes++;	/* a ring's mark; not the end */
#else
	struct timespec ts = { (time_t)(ns / 1000000000u),
			       (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
#endif
}

static void *writer_main(void *arg)
{
	uint64_t last = now_ns();

	(void)arg;
	while (!__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE)) {
		uint64_t fullest, ns, phase;

		phase = rec_phases_due();
		rec_libs_settle(false);	/* loaded not by our dlopen */
		/* before the pass: a ring past its mark in it wakes the nap */
		__atomic_store_n(&rec_writer_nudged, 0, __ATOMIC_RELEASE);
		fullest = pass();
		note_times(w.ns1 - last, now_ns() - w.ns1);
		ns = nap_ns(fullest, w.ns1 - last);
		if (w.test_nap_ns)
			ns = w.test_nap_ns;
		if (ns > phase)	/* mctrace --at: on time */
			ns = phase;
		last = w.ns1;
		if (ns)
			nap(ns);
	}
	w.thread_cpu_ns = thread_cpu_ns();
	return NULL;
}

/* Every thread's lost calls by reason; their sum. */
static uint64_t lost_calls(uint64_t why[MCT_LOST_WHYS])
{
	uint64_t lost = 0;

	memset(why, 0, MCT_LOST_WHYS * sizeof(*why));
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		for (unsigned k = 0; k < MCT_LOST_WHYS; k++) {
			why[k] += t->lost[k];
			lost += t->lost[k];
		}
	return lost;
}

/* "mcount: trace: 9 calls not recorded: 5 buffers full, 4 ..." */
static void say_lost(uint64_t lost, const uint64_t why[MCT_LOST_WHYS])
{
	const char *sep = ": ";

	if (!lost)
		return;
	fprintf(stderr, "mcount: trace: %llu calls not recorded",
		(unsigned long long)lost);
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		if (why[k]) {
			fprintf(stderr, "%s%llu %s", sep,
				(unsigned long long)why[k],
				mct_lost_why_text(k));
			sep = ", ";
		}
	fputc('\n', stderr);
}

/* The lost calls, in sum and by reason, as JSON metadata at the end. */
static void put_json_trailer(uint64_t lost, const uint64_t why[MCT_LOST_WHYS])
{
	put_text("%s{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\","
		 "\"args\":{\"name\":\"pid %u\"}}\n],\n\"otherData\":"
		 "{\"lost_calls\":\"%llu\"", w.first_json ? "" : ",\n",
		 w.pid, w.pid, (unsigned long long)lost);
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		put_text(",\"%s\":\"%llu\"", mct_lost_why_key(k),
			 (unsigned long long)why[k]);
	put_text("}}\n");
}

static int open_trace(const char *path, bool truncate)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC |
		    (truncate ? O_TRUNC : O_EXCL);

	w.fd = open(path, flags, 0644);
	return w.fd;
}

/*
 * MCOUNT_TRACE_TEST_NAP=NS, for tests: the writer sleeps NS after every
 * pass, whatever it guessed, as one kept off its CPU would, so that only
 * a ring's mark wakes it in time.  0 (unset): its own guess.
 */
static uint64_t test_nap_ns(void)
{
	const char *v = getenv("MCOUNT_TRACE_TEST_NAP");

	return v ? strtoull(v, NULL, 10) : 0;
}

/*
 * Open `path` (truncated, or created new when !truncate) and start the
 * writer thread.  0, or -1 with errno.
 */
int rec_writer_start(const char *path, bool truncate)
{
	sigset_t all, old;
	int err;

	if (open_trace(path, truncate) < 0)
		return -1;
	w.json = rec_cfg.json;
	w.failed = w.stop = false;
	w.first_json = true;
	w.used = 0;
	w.busy_passes = w.events = w.thread_cpu_ns = 0;
	w.fullest = w.longest_pass_ns = w.longest_gap_ns = w.wakes = 0;
	w.test_nap_ns = test_nap_ns();
	w.pid = (uint32_t)getpid();
	clock_pair(&w.t0, &w.ns0);
	w.t1 = w.t0;
	w.ns1 = w.ns0;
	w.clock_written = 0;
	if (w.json) {
		put_text("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	} else {
		struct mct_header h = { .magic = MCT_MAGIC,
					.pid = le32(w.pid),
					.min_time_ns = le64(rec_cfg.min_time_ns) };

		memcpy(h.magic, MCT_MAGIC, 8);
		put(&h, sizeof(h));
		put_clock();
	}
	/* the program's signals are the program's: none for the writer */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(w.fd);
		w.fd = -1;
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * MCOUNT_TRACE_STATS: what the writer cost, apart from the traced
 * threads (a process's CPU time holds both): the writer thread's CPU
 * time, and the last pass's, which the exiting thread runs.
 */
static void report_stats(uint64_t last_pass_ns)
{
	if (!rec_cfg.stats)
		return;
	fprintf(stderr, "mcount: trace: writer thread CPU %llu ns, "
		"last pass %llu ns, %llu passes, %llu events\n",
		(unsigned long long)w.thread_cpu_ns,
		(unsigned long long)last_pass_ns,
		(unsigned long long)w.busy_passes, (unsigned long long)w.events);
	fprintf(stderr, "mcount: trace: fullest ring %llu of %zu events, "
		"longest pass %llu ns, longest gap between passes %llu ns, "
		"%llu naps cut short by a ring past half full\n",
		(unsigned long long)w.fullest, rec_cfg.ring_events,
		(unsigned long long)w.longest_pass_ns,
		(unsigned long long)w.longest_gap_ns,
		(unsigned long long)w.wakes);
}

/* Stop the thread, write what is left and the trailer, close. */
void rec_writer_stop(void)
{
	uint64_t lost, why[MCT_LOST_WHYS], last_pass_ns;

	if (w.fd < 0)
		return;
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	__atomic_store_n(&rec_writer_nudged, 0, __ATOMIC_RELEASE);
	rec_writer_nudge();	/* out of its nap now */
	pthread_join(w.thread, NULL);
	last_pass_ns = thread_cpu_ns();
	pass();
	last_pass_ns = thread_cpu_ns() - last_pass_ns;
	report_stats(last_pass_ns);
	pthread_mutex_lock(&w.lock);
	lost = lost_calls(why);
	say_lost(lost, why);
	if (w.json) {
		put_json_trailer(lost, why);
	} else {
		for (struct rec_thread *t = rec_threads; t; t = t->next)
			put_lost(t);
		put_clock();
	}
	flush_out();
	close(w.fd);
	w.fd = -1;
	pthread_mutex_unlock(&w.lock);
}

/* fork: no pass may be half done in the child. */
void rec_writer_fork_prepare(void)
{
	pthread_mutex_lock(&w.lock);
}

void rec_writer_fork_parent(void)
{
	pthread_mutex_unlock(&w.lock);
}

/*
 * In the child: the parent's writer thread and file are not ours (the
 * file is closed without a trailer); start() opens the child's own.
 */
void rec_writer_fork_child(void)
{
	pthread_mutex_init(&w.lock, NULL);
	if (w.fd >= 0)
		close(w.fd);
	w.fd = -1;
	w.used = 0;
	for (size_t i = 0; i < w.names_cap; i++)
		free((char *)w.names[i].name);
	free(w.names);
	w.names = NULL;
	w.nnames = w.names_cap = 0;
	memset(w.seen, 0, sizeof(w.seen));
	/* the names of the parent's open JSON calls were just freed */
	for (struct rec_thread *t = rec_threads; t; t = t->next)
		t->json_depth = 0;
	memset(w.lib_seen, 0, sizeof(w.lib_seen));
}
