/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.c - read the recorder's file (recorder/format.h) into calls.
 *
 * Events are matched per thread with a stack: an entry opens a call, an
 * exit closes the innermost open one, whose function must have the
 * exit's tag (a mismatch is counted, never trusted).  Timestamps are the
 * clock's ticks, converted to ns through the file's last MCT_CLOCK
 * block.  A block of events that does not decode whole makes the file
 * refused: its events cannot be placed, and the trace would be wrong.
 *
 * The file is read in two passes: the first reads every block but the
 * events (names, unloads, lost calls, clocks: small), skipping events
 * by their blocks' sizes; the second decodes one block of events at a
 * time into a sink (struct trace_sink), each block standing alone
 * (format.h), so that only each thread's open calls are carried from
 * one to the next.  trace_read's sink keeps the calls in memory;
 * Perfetto's conversion (pfconv.c) writes them out as they come.
 *
 * A call is named by the name its address had at its entry's ticks
 * (MCT_NAME from the start, MCT_NAME_AT from a library's load, both
 * ended by an MCT_UNLOAD over the address), and gets the function of
 * that address and name (trace.funcs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../recorder/format.h"
#include "trace.h"

/* An exit's `func` is its tag (format.h) until build_calls matches it. */
struct raw {
	uint32_t tid;
	struct mct_event *ev;
	size_t n, cap;
};

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap < need)
		*cap = need;
	v = realloc(v, *cap * size);
	if (!v) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return v;
}

static struct thread *thread_of(struct trace *t, uint32_t tid, size_t *cap)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	t->threads = grow(t->threads, cap, t->nthreads + 1, sizeof(*t->threads));
	t->threads[t->nthreads] = (struct thread){ .tid = tid };
	return &t->threads[t->nthreads++];
}

static int by_addr_from(const void *a, const void *b)
{
	const struct trace_name *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr > y->addr ? 1 : -1;
	if (x->from != y->from)
		return x->from > y->from ? 1 : -1;
	/* a library's name copied at its close wins over the lazy one */
	return (x->base > y->base) - (x->base < y->base);
}

static uint32_t func_add(struct trace *t, size_t *cap, uint64_t addr,
			 const char *name)
{
	t->funcs = grow(t->funcs, cap, t->nfuncs + 1, sizeof(*t->funcs));
	t->funcs[t->nfuncs].addr = addr;
	t->funcs[t->nfuncs].name = name;
	return (uint32_t)t->nfuncs++;
}

static int by_name_offset(const void *a, const void *b)
{
	const struct trace_name *x = *(struct trace_name *const *)a;
	const struct trace_name *y = *(struct trace_name *const *)b;
	uint64_t ox = x->addr - x->base, oy = y->addr - y->base;
	int c = strcmp(x->name, y->name);

	return c ? c : (ox > oy) - (ox < oy);
}

/* The ends of the names: the first unload over each after its start. */
static void names_end(struct trace *t)
{
	for (size_t i = 0; i < t->nnames; i++) {
		struct trace_name *n = &t->names[i];

		n->until = UINT64_MAX;
		for (size_t u = 0; u < t->nunloads; u++)
			if (n->addr >= t->unloads[u].lo &&
			    n->addr < t->unloads[u].hi &&
			    t->unloads[u].at > n->from &&
			    t->unloads[u].at < n->until)
				n->until = t->unloads[u].at;
	}
}

/*
 * Sort the names, end them, and give each (address, name) a function;
 * the names of libraries opened while recording are one function per
 * (name, offset in the library).
 */
static void names_settle(struct trace *t, size_t *fcap)
{
	struct trace_name **lib = malloc((t->nnames + 1) * sizeof(*lib));
	size_t nlib = 0;

	if (!lib) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	if (t->nnames)	/* qsort may not be given NULL */
		qsort(t->names, t->nnames, sizeof(*t->names), by_addr_from);
	names_end(t);
	for (size_t i = 0; i < t->nnames; i++) {
		struct trace_name *n = &t->names[i];

		if (n->base)
			lib[nlib++] = n;
		else if (i && n[-1].addr == n->addr && !n[-1].base &&
			 !strcmp(n[-1].name, n->name))
			n->func = n[-1].func;
		else
			n->func = func_add(t, fcap, n->addr,
					   n->name[0] ? n->name : NULL);
	}
	qsort(lib, nlib, sizeof(*lib), by_name_offset);
	for (size_t i = 0; i < nlib; i++)
		lib[i]->func = i && !by_name_offset(&lib[i - 1], &lib[i]) ?
			lib[i - 1]->func :
			func_add(t, fcap, lib[i]->addr,
				 lib[i]->name[0] ? lib[i]->name : NULL);
	free(lib);
}

/* Functions of addresses no name is in force for, by address. */
struct unnamed {
	uint64_t *addr;		/* open addressing; 0 is empty */
	uint32_t *func;
	size_t cap, n;
};

static uint32_t unnamed_func(struct trace *t, size_t *fcap,
			     struct unnamed *u, uint64_t addr)
{
	size_t h;

	if (2 * (u->n + 1) > u->cap) {
		struct unnamed v = { .cap = u->cap ? 2 * u->cap : 256 };

		v.addr = calloc(v.cap, sizeof(*v.addr));
		v.func = calloc(v.cap, sizeof(*v.func));
		if (!v.addr || !v.func) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < u->cap; i++) {
			if (!u->addr[i])
				continue;
			for (h = (u->addr[i] >> 2) & (v.cap - 1); v.addr[h];
			     h = (h + 1) & (v.cap - 1))
				;
			v.addr[h] = u->addr[i];
			v.func[h] = u->func[i];
		}
		v.n = u->n;
		free(u->addr);
		free(u->func);
		*u = v;
	}
	for (h = (addr >> 2) & (u->cap - 1); u->addr[h] && u->addr[h] != addr;
	     h = (h + 1) & (u->cap - 1))
		;
	if (!u->addr[h]) {
		u->addr[h] = addr;
		u->func[h] = func_add(t, fcap, addr, NULL);
		u->n++;
	}
	return u->func[h];
}

/* The function of a call entered at `addr` at `ticks`. */
static uint32_t func_of(struct trace *t, size_t *fcap, struct unnamed *u,
			uint64_t addr, uint64_t ticks)
{
	size_t lo = 0, hi = t->nnames;

	/* the last name of addr from at or before ticks */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct trace_name *n = &t->names[mid];

		if (n->addr < addr || (n->addr == addr && n->from <= ticks))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && t->names[lo - 1].addr == addr &&
	    ticks < t->names[lo - 1].until)
		return t->names[lo - 1].func;
	return unnamed_func(t, fcap, u, addr);
}

/*
 * A thread's place in the walk, from block to block: the addresses of
 * its open calls (their exits' tags are checked against them), and the
 * time of its last event (times never go back within a thread).
 */
struct walk_thread {
	uint64_t *addr;
	size_t depth, cap;
	uint64_t last;
};

/* The walk over a file's events (trace_stream). */
struct walk {
	struct trace *t;
	const struct trace_sink *sink;
	struct walk_thread *th;		/* one per t->threads */
	uint64_t clk[4];		/* the last whole MCT_CLOCK */
	double ratio;			/* ns per tick */
	size_t fcap;
	struct unnamed u;
	struct raw block;		/* one block's events */
	char *payload;			/* one block's bytes */
	size_t pcap, tcap, ncap, ucap;
};

static uint64_t ns_of(const struct walk *w, struct walk_thread *wt,
		      uint64_t ticks)
{
	uint64_t ns = ticks > w->clk[0] ?
		(uint64_t)((double)(ticks - w->clk[0]) * w->ratio) : 0;

	if (ns < wt->last)
		ns = wt->last;
	return wt->last = ns;
}

/* One block's events of thread `k`, as calls begun and ended. */
static void walk_events(struct walk *w, size_t k)
{
	struct walk_thread *wt = &w->th[k];
	const struct trace_sink *s = w->sink;

	for (size_t i = 0; i < w->block.n; i++) {
		const struct mct_event *e = &w->block.ev[i];
		uint64_t ticks = MCT_TICKS(e->word), ns = ns_of(w, wt, ticks);

		if (MCT_KIND(e->word) == MCT_ENTRY) {
			wt->addr = grow(wt->addr, &wt->cap, wt->depth + 1,
					sizeof(*wt->addr));
			wt->addr[wt->depth++] = e->func;
			s->begin(s->ctx, k, ns, func_of(w->t, &w->fcap, &w->u,
							e->func, ticks));
		} else if (wt->depth &&
			   mct_exit_tag(wt->addr[wt->depth - 1]) == e->func) {
			wt->depth--;
			s->end(s->ctx, k, ns, true);
		} else {
			w->t->bad_exits++;
		}
	}
}

/* Calls still open at the end of the file end at their thread's last event. */
static void walk_end(struct walk *w)
{
	for (size_t k = 0; k < w->t->nthreads; k++) {
		struct walk_thread *wt = &w->th[k];

		while (wt->depth) {
			wt->depth--;
			w->sink->end(w->sink->ctx, k, wt->last, false);
		}
		free(wt->addr);
	}
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << 8 * i;
	return v;
}

/* A LEB128 of at most 64 bits at *p, before `end`; false if there is none. */
static bool get_leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * Append an MCT_EVENTS block's events to `r`; false if it does not
 * decode to exactly the count it gives.
 */
static bool decode_events(struct raw *r, const uint8_t *p, size_t bytes)
{
	const uint8_t *end = p + bytes;
	uint64_t slot[MCT_SLOTS], ticks, count;
	unsigned named = 0;

	if (bytes < sizeof(struct mct_events))
		return false;
	ticks = get_le64(p);
	count = get_le64(p + 8);
	if (count >> 32 || count > bytes)	/* flags 0; an event is a byte */
		return false;
	p += sizeof(struct mct_events);
	r->ev = grow(r->ev, &r->cap, r->n + count, sizeof(*r->ev));
	for (uint64_t i = 0; i < count; i++) {
		struct mct_event *e = &r->ev[r->n + i];
		unsigned op;
		uint64_t zz;

		if (p >= end)
			return false;
		op = *p++;
		if (op < MCT_OP_EXIT_END) {
			e->func = op;
		} else if (op == MCT_OP_NEW) {
			if (end - p < 8)
				return false;
			e->func = get_le64(p);
			p += 8;
			if (named < MCT_SLOTS)
				slot[named++] = e->func;
		} else if (op - MCT_OP_SLOT0 < named) {
			e->func = slot[op - MCT_OP_SLOT0];
		} else {
			return false;	/* a slot the block has not named */
		}
		if (!get_leb(&p, end, &zz))
			return false;
		ticks += zz & 1 ? ~(zz >> 1) : zz >> 1;
		e->word = (ticks & (UINT64_MAX >> 2)) << 2 |
			  (op < MCT_OP_EXIT_END ? MCT_EXIT : MCT_ENTRY);
	}
	if (p != end)
		return false;
	r->n += count;
	return true;
}

/*
 * An MCT_LOST_WHY block's `n` counts; those of reasons this reader does
 * not know stay in the MCT_LOST sum only (out_lost: another reason).
 */
static void lost_why(struct thread *th, const char *p, uint64_t n)
{
	memset(th->lost_why, 0, sizeof(th->lost_why));
	memcpy(th->lost_why, p, (n < MCT_LOST_WHYS ? n : MCT_LOST_WHYS) * 8);
}

/* A block that is not events: a name, an unload, lost calls, the clock. */
static void read_meta(struct walk *w, const struct mct_block *b, char *p)
{
	struct trace *t = w->t;

	if ((b->kind == MCT_NAME && b->bytes >= 8) ||
	    (b->kind == MCT_NAME_AT && b->bytes >= 24)) {
		struct trace_name *n;
		size_t at = b->kind == MCT_NAME ? 8 : 24;

		t->names = grow(t->names, &w->ncap, t->nnames + 1,
				sizeof(*t->names));
		n = &t->names[t->nnames++];
		memset(n, 0, sizeof(*n));
		memcpy(&n->addr, p, 8);
		if (b->kind == MCT_NAME_AT) {
			memcpy(&n->from, p + 8, 8);
			memcpy(&n->base, p + 16, 8);
		}
		n->name = strdup(p + at);
		if (!n->name) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
	} else if (b->kind == MCT_UNLOAD && b->bytes == 24) {
		t->unloads = grow(t->unloads, &w->ucap, t->nunloads + 1,
				  sizeof(*t->unloads));
		memcpy(&t->unloads[t->nunloads++], p, 24);
	} else if (b->kind == MCT_LOST && b->bytes == 8) {
		memcpy(&thread_of(t, b->tid, &w->tcap)->lost, p, 8);
	} else if (b->kind == MCT_LOST_WHY && b->bytes % 8 == 0) {
		lost_why(thread_of(t, b->tid, &w->tcap), p, b->bytes / 8);
	} else if (b->kind == MCT_CLOCK && b->bytes == 32) {
		uint64_t c[4];

		memcpy(c, p, 32);
		if (c[2] > c[0] || !w->clk[0])
			memcpy(w->clk, c, 32);
	}
}

/* A block's payload, into w->payload; false if the file ends first. */
static bool read_payload(struct walk *w, FILE *f, const struct mct_block *b)
{
	w->payload = grow(w->payload, &w->pcap, b->bytes + 1, 1);
	if (fread(w->payload, 1, b->bytes, f) != b->bytes)
		return false;
	w->payload[b->bytes] = '\0';
	return true;
}

/*
 * The first pass: every block but the events, whose payloads are
 * skipped (their threads noted).  `whole` becomes the end of the last
 * whole block: -1 if the file is cut short before its end.
 */
static int read_heads(struct walk *w, FILE *f, off_t size, off_t *whole)
{
	struct mct_block b;

	*whole = ftello(f);
	while (fread(&b, sizeof(b), 1, f) == 1) {
		if (b.bytes > (uint64_t)(size - *whole - sizeof(b)))
			return -1;	/* cut short: what came before stands */
		if (b.kind == MCT_EVENTS) {
			thread_of(w->t, b.tid, &w->tcap);
			if (fseeko(f, (off_t)b.bytes, SEEK_CUR) != 0)
				return -1;
		} else if (!read_payload(w, f, &b)) {
			return -1;
		} else {
			read_meta(w, &b, w->payload);
		}
		*whole = ftello(f);
	}
	return *whole == size ? 0 : -1;
}

static size_t thread_index(const struct trace *t, uint32_t tid)
{
	size_t k = 0;

	while (k < t->nthreads && t->threads[k].tid != tid)
		k++;
	return k;
}

/*
 * The second pass: the events, a block at a time, into the sink; -2 if
 * a block does not decode.
 */
static int walk_blocks(struct walk *w, FILE *f, off_t whole)
{
	struct mct_block b;

	if (fseeko(f, sizeof(struct mct_header), SEEK_SET) != 0)
		return -1;
	while (ftello(f) < whole && fread(&b, sizeof(b), 1, f) == 1) {
		if (b.kind != MCT_EVENTS) {
			if (fseeko(f, (off_t)b.bytes, SEEK_CUR) != 0)
				return -1;
			continue;
		}
		if (!read_payload(w, f, &b))
			return -1;
		w->block.n = 0;
		if (!decode_events(&w->block, (const uint8_t *)w->payload,
				   b.bytes))
			return -2;
		walk_events(w, thread_index(w->t, b.tid));
	}
	walk_end(w);
	return 0;
}

/* The header of `f`; 0, or -1 after saying why it is not a trace. */
static int read_header(FILE *f, const char *path, struct trace *t)
{
	struct mct_header h;
	bool got = fread(&h, sizeof(h), 1, f) == 1;

	if (got && memcmp(h.magic, MCT_MAGIC, MCT_MAGIC_STEM) == 0 &&
	    memcmp(h.magic, MCT_MAGIC, 8) != 0) {
		fprintf(stderr, "mctrace: %s: trace format version %.1s; this "
			"mctrace reads version %d only (read it with the mctrace "
			"that recorded it, or record it again)\n", path,
			&h.magic[MCT_MAGIC_STEM], MCT_VERSION);
		return -1;
	}
	if (!got || memcmp(h.magic, MCT_MAGIC, 8) != 0) {
		fprintf(stderr, "mctrace: %s: not a trace of mctrace's own "
			"format%s\n", path, path[0] && strstr(path, ".json") ?
			" (a JSON trace is for Perfetto or chrome://tracing)" :
			"");
		return -1;
	}
	t->pid = h.pid;
	t->min_time = h.min_time_ns;
	return 0;
}

/* The first pass, and what follows from it: names settled, the clock. */
static int walk_start(struct walk *w, FILE *f, const char *path,
		      off_t *whole)
{
	struct stat st;

	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "mctrace: %s: not a regular file\n", path);
		return -1;
	}
	if (read_header(f, path, w->t) != 0)
		return -1;
	if (read_heads(w, f, st.st_size, whole) != 0)
		fprintf(stderr, "mctrace: %s: cut short; reading what is "
			"whole\n", path);
	if (w->clk[2] <= w->clk[0] && w->t->nthreads)
		fprintf(stderr, "mctrace: %s: no clock calibration (the "
			"program ended abruptly?): times are in raw ticks\n",
			path);
	w->ratio = w->clk[2] > w->clk[0] ? (double)(w->clk[3] - w->clk[1]) /
		(double)(w->clk[2] - w->clk[0]) : 1.0;
	w->t->clock_ns = w->clk[2] > w->clk[0] ? w->clk[1] : 0;
	names_settle(w->t, &w->fcap);
	w->th = calloc(w->t->nthreads + 1, sizeof(*w->th));
	if (!w->th) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return 0;
}

int trace_stream(const char *path, struct trace *t,
		 const struct trace_sink *sink)
{
	FILE *f = fopen(path, "rb");
	struct walk w = { .t = t, .sink = sink };
	off_t whole;
	int err;

	memset(t, 0, sizeof(*t));
	if (!f) {
		fprintf(stderr, "mctrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	err = walk_start(&w, f, path, &whole);
	if (!err && sink->start)
		err = sink->start(sink->ctx, t);
	if (!err)
		err = walk_blocks(&w, f, whole);
	if (err == -1 && ferror(f))
		fprintf(stderr, "mctrace: %s: %s\n", path, strerror(errno));
	else if (err == -2)
		fprintf(stderr, "mctrace: %s: a block of events does not "
			"decode: the trace is damaged\n", path);
	fclose(f);
	free(w.th);
	free(w.payload);
	free(w.block.ev);
	free(w.u.addr);
	free(w.u.func);
	return err ? -1 : 0;
}

/* The loader's sink: calls in memory, each thread's open ones stacked. */
struct load {
	struct trace *t;
	struct { size_t *call, depth, cap; } *open;
};

static int load_start(void *ctx, const struct trace *t)
{
	struct load *l = ctx;

	l->open = calloc(t->nthreads + 1, sizeof(*l->open));
	if (!l->open) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return 0;
}

static void load_begin(void *ctx, size_t k, uint64_t ns, uint32_t func)
{
	struct load *l = ctx;
	struct thread *th = &l->t->threads[k];

	th->calls = grow(th->calls, &th->cap, th->ncalls + 1,
			 sizeof(*th->calls));
	th->calls[th->ncalls] = (struct call){ .func = func, .start = ns,
		.end = ns, .depth = (uint32_t)l->open[k].depth, .open = true };
	l->open[k].call = grow(l->open[k].call, &l->open[k].cap,
			       l->open[k].depth + 1, sizeof(size_t));
	l->open[k].call[l->open[k].depth++] = th->ncalls++;
}

static void load_end(void *ctx, size_t k, uint64_t ns, bool exited)
{
	struct load *l = ctx;
	struct call *c = &l->t->threads[k].calls[
		l->open[k].call[--l->open[k].depth]];

	c->end = ns;
	c->open = !exited;
}

int trace_read(const char *path, struct trace *t)
{
	struct load l = { .t = t };
	struct trace_sink sink = { .ctx = &l, .start = load_start,
				   .begin = load_begin, .end = load_end };
	int err = trace_stream(path, t, &sink);

	for (size_t k = 0; l.open && k < t->nthreads; k++)
		free(l.open[k].call);
	free(l.open);
	if (err) {
		trace_free(t);
		memset(t, 0, sizeof(*t));
		return -1;
	}
	if (t->min_time)
		trace_min_time(t, t->min_time);
	return 0;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		free(t->threads[i].calls);
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i].name);
	free(t->threads);
	free(t->names);
	free(t->unloads);
	free(t->funcs);
}

const char *trace_name(const struct trace *t, uint64_t func)
{
	static char hex[32];

	if (func >= t->nfuncs)
		return "?";
	if (t->funcs[func].name)
		return t->funcs[func].name;
	snprintf(hex, sizeof(hex), "0x%llx",
		 (unsigned long long)t->funcs[func].addr);
	return hex;
}

void trace_min_time(struct trace *t, uint64_t ns)
{
	for (size_t k = 0; k < t->nthreads; k++) {
		struct thread *th = &t->threads[k];
		size_t out = 0;

		for (size_t i = 0; i < th->ncalls;) {
			struct call *c = &th->calls[i];

			if (c->end - c->start >= ns) {
				th->calls[out++] = *c;
				i++;
				continue;
			}
			/* drop the call and everything it called */
			for (i++; i < th->ncalls &&
				  th->calls[i].depth > c->depth; i++)
				;
		}
		th->ncalls = out;
	}
}
