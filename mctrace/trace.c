/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace.c - read the recorder's file (recorder/format.h): its blocks,
 * walked in order, then made calls (calls.c).
 *
 * A file is read for every whole block in it, whatever happened to the
 * rest, and what could not be read is said on stderr in one line:
 *   - cut short (a recording killed, a disk full, a copy stopped): the
 *     last block is incomplete, its bytes are lost, all before it stands;
 *   - damaged (a header or a block of events that does not decode): the
 *     block is skipped, and the reader finds the next block by trying
 *     each later byte for a header that is whole and sane (a kind it
 *     knows, a tid within Linux's limit, a size its kind allows and that
 *     fits in the file, a payload that decodes) and that is followed by
 *     another such header, the end of the file, or a last block cut
 *     short.  Blocks stand alone (format.h), so what follows is right.
 * Times come from the last whole MCT_CLOCK, which the recorder writes
 * as it goes.
 *
 * A trace read as a stream (trace_stream) is walked twice, with the
 * same blocks taken and skipped each time: first every block but the
 * events is taken (the events decoded only to check them), then the
 * events are decoded a block at a time and walked into calls
 * (calls.c), the rest checked again and left.  The mapped file's
 * pages behind the walk are given back as it goes.  A file that is not a trace, a directory, another version
 * of the format, is refused with its reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calls.h"
#include "procs.h"
#include "trace.h"

#define HEADER_BYTES sizeof(struct mct_header)
#define BLOCK_BYTES sizeof(struct mct_block)
#define TID_LIMIT 4194304u	/* Linux's PID_MAX_LIMIT */

/* What the walk over the blocks does with the events. */
enum events_way {
	EVENTS_KEEP,		/* decoded into raws, for calls_build */
	EVENTS_SKIP,		/* not even decoded (trace_opts.no_events) */
	EVENTS_CHECK,		/* decoded to check them, then dropped */
	EVENTS_WALK,		/* decoded and walked, the rest left */
};

struct reader {
	const char *path;
	enum events_way events;
	struct trace *t;
	const uint8_t *data;
	size_t size;
	bool mapped;		/* data is mmap'ed, not malloc'ed */
	struct raw *raws;	/* the events, by thread */
	size_t nraw, rcap, ncap, ucap;
	uint64_t clk[4];	/* the last MCT_CLOCK with two instants */
	struct raw scratch;	/* events decoded only to check a block */
	bool saw_events;	/* decoded some */
	struct calls_walk *walk;	/* EVENTS_WALK's */
	bool in_map;		/* data is in a mapped file (a process's
				   payload in the first's) */
	uintptr_t map_lo;	/* the page data starts in */
	uintptr_t released;	/* the mapped pages from map_lo given back
				   before this address */
	bool child;		/* an MCT_PROCESS's payload: nests none */
	/* an MCT_ARGS, for the MCT_EVENTS block that comes next */
	struct { const uint8_t *p; uint64_t bytes; uint32_t tid; } args;
	/* the MCT_PROCESS blocks' payloads (the first's only) */
	struct kid {
		const uint8_t *p;
		uint64_t bytes, missing;	/* in the file; past its end */
		uint32_t pid;
	} *kids;
	size_t nkids, kcap;
};

/* A block's header, and where its payload starts. */
struct block {
	uint32_t kind, tid;
	uint64_t bytes;
	const uint8_t *p;
};

static void block_at(const struct reader *rd, size_t pos, struct block *b)
{
	const uint8_t *h = rd->data + pos;

	b->kind = get_le32(h);
	b->tid = get_le32(h + 4);
	b->bytes = get_le64(h + 8);
	b->p = h + BLOCK_BYTES;
}

static struct thread *thread_of(struct reader *rd, uint32_t tid)
{
	struct trace *t = rd->t;

	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	t->threads = grow(t->threads, &t->threads_cap, t->nthreads + 1,
			  sizeof(*t->threads));
	t->threads[t->nthreads] = (struct thread){ .tid = tid };
	return &t->threads[t->nthreads++];
}

static struct raw *raw_of(struct reader *rd, uint32_t tid)
{
	for (size_t i = 0; i < rd->nraw; i++)
		if (rd->raws[i].tid == tid)
			return &rd->raws[i];
	rd->raws = grow(rd->raws, &rd->rcap, rd->nraw + 1, sizeof(*rd->raws));
	rd->raws[rd->nraw] = (struct raw){ .tid = tid };
	return &rd->raws[rd->nraw++];
}

/* Whether a block of `kind` may be `bytes` long (format.h). */
static bool size_fits_kind(uint32_t kind, uint64_t bytes)
{
	switch (kind) {
	case MCT_EVENTS: return bytes >= sizeof(struct mct_events);
	case MCT_NAME: return bytes >= 8;
	case MCT_NAME_AT: return bytes >= 24;
	case MCT_LOST: return bytes == 8;
	case MCT_CLOCK: return bytes == 32;
	case MCT_UNLOAD: return bytes == 24;
	case MCT_LOST_WHY: return bytes % 8 == 0;
	case MCT_INFO: return true;
	case MCT_PROCESS: return bytes >= 8;
	case MCT_ARGS: return bytes >= 16 && bytes % 16 == 0;
	default: return kind >= MCT_BLOCK_KINDS; /* newer: skipped by size */
	}
}

/* A name's bytes (format.h: no NUL in them). */
static bool name_fits(const uint8_t *p, uint64_t bytes)
{
	return !memchr(p, 0, bytes);
}

/* Whether a block's payload is one of its kind, without keeping it. */
static bool block_valid(struct reader *rd, const struct block *b)
{
	switch (b->kind) {
	case MCT_EVENTS:
		rd->scratch.n = 0;
		return decode_events(&rd->scratch, b->p, b->bytes);
	case MCT_NAME: return name_fits(b->p + 8, b->bytes - 8);
	case MCT_NAME_AT: return name_fits(b->p + 24, b->bytes - 24);
	case MCT_INFO: return !b->bytes || !b->p[b->bytes - 1];
	case MCT_PROCESS: return !memcmp(b->p, MCT_MAGIC, 8);
	case MCT_ARGS: return args_valid(b->p, b->bytes);
	default: return size_fits_kind(b->kind, b->bytes);
	}
}

/* A header a recorder could have written at `pos`, its size aside. */
static bool header_sane(const struct reader *rd, size_t pos, struct block *b)
{
	if (rd->size - pos < BLOCK_BYTES)
		return false;
	block_at(rd, pos, b);
	return b->kind >= MCT_EVENTS && b->kind < MCT_BLOCK_KINDS &&
	       b->tid <= TID_LIMIT && size_fits_kind(b->kind, b->bytes);
}

/*
 * Where blocks start again after damage at `from` - 1: the first later
 * offset with a whole, sane, valid block followed by the end or another
 * sane header (of a last block cut short too); rd->size if none.
 */
static size_t resync(struct reader *rd, size_t from)
{
	for (size_t q = from; q + BLOCK_BYTES <= rd->size; q++) {
		struct block b, next;
		size_t end;

		if (rd->data[q] < MCT_EVENTS || rd->data[q] >= MCT_BLOCK_KINDS ||
		    !header_sane(rd, q, &b) ||
		    b.bytes > rd->size - q - BLOCK_BYTES)
			continue;
		end = q + BLOCK_BYTES + b.bytes;
		if ((end == rd->size || header_sane(rd, end, &next)) &&
		    block_valid(rd, &b))
			return q;
	}
	return rd->size;
}

/*
 * An MCT_LOST_WHY block's `n` counts; those of reasons this reader does
 * not know stay in the MCT_LOST sum only (out_lost: another reason).
 */
static void lost_why(struct thread *th, const uint8_t *p, uint64_t n)
{
	memset(th->lost_why, 0, sizeof(th->lost_why));
	memcpy(th->lost_why, p, (n < MCT_LOST_WHYS ? n : MCT_LOST_WHYS) * 8);
}


static void add_name(struct reader *rd, const struct block *b)
{
	struct trace *t = rd->t;
	struct trace_name *n;
	size_t at = b->kind == MCT_NAME ? 8 : 24;

	t->names = grow(t->names, &rd->ncap, t->nnames + 1, sizeof(*t->names));
	n = &t->names[t->nnames++];
	memset(n, 0, sizeof(*n));
	n->addr = get_le64(b->p);
	if (b->kind == MCT_NAME_AT) {
		n->from = get_le64(b->p + 8);
		n->base = get_le64(b->p + 16);
	}
	n->name = xmalloc(b->bytes - at + 1);
	memcpy(n->name, b->p + at, b->bytes - at);
	n->name[b->bytes - at] = '\0';
}

/*
 * The values of the MCT_ARGS block just before, if it names this
 * events block (decoded into r->ev[from, r->n)): put among them.
 */
static void take_args(struct reader *rd, const struct block *b,
		      struct raw *r, size_t from)
{
	if (rd->args.p && rd->args.tid == b->tid)
		insert_args(r, from, get_le64(b->p), rd->args.p,
			    rd->args.bytes);
	rd->args.p = NULL;
}

/* One block's events, decoded and walked into calls (EVENTS_WALK). */
static bool walk_events(struct reader *rd, const struct block *b)
{
	size_t k;

	rd->scratch.n = 0;
	if (!decode_events(&rd->scratch, b->p, b->bytes))
		return false;
	take_args(rd, b, &rd->scratch, 0);
	k = (size_t)(thread_of(rd, b->tid) - rd->t->threads);
	if (rd->walk)
		calls_walk_events(rd->walk, k, &rd->scratch);
	return true;
}

static bool add_events(struct reader *rd, const struct block *b)
{
	size_t before = rd->nraw, from;
	struct raw *r;

	if (rd->events == EVENTS_SKIP)
		return true;
	rd->saw_events = true;
	if (rd->events == EVENTS_WALK)
		return walk_events(rd, b);
	if (rd->events == EVENTS_CHECK) {
		thread_of(rd, b->tid);
		return block_valid(rd, b);
	}
	r = raw_of(rd, b->tid);
	from = r->n;
	if (decode_events(r, b->p, b->bytes)) {
		take_args(rd, b, r, from);
		return true;
	}
	if (rd->nraw > before) {	/* the thread's first: none */
		free(r->ev);
		rd->nraw--;
	}
	return false;
}

static void add_info(struct reader *rd, const struct block *b)
{
	if (rd->t->info)
		return;		/* the first process's */
	rd->t->info = xmalloc(b->bytes);
	memcpy(rd->t->info, b->p, b->bytes);
	rd->t->info_bytes = b->bytes;
}

/* An MCT_PROCESS's payload, `bytes` of it, to read once the file is. */
static void add_kid(struct reader *rd, const struct block *b, uint64_t bytes)
{
	if (rd->child)
		return;
	rd->kids = grow(rd->kids, &rd->kcap, rd->nkids + 1, sizeof(*rd->kids));
	rd->kids[rd->nkids++] = (struct kid){ b->p, bytes, b->bytes - bytes,
					      b->tid };
}

/*
 * A last block cut short that is an MCT_PROCESS whole enough to show
 * its magic: its process is read as a trace cut short (true).  Not
 * looked through for blocks after it, which would be its process's
 * taken for the first's.
 */
static bool cut_kid(struct reader *rd, const struct block *b, size_t left)
{
	struct block h;

	if (rd->child || b->kind != MCT_PROCESS ||
	    !header_sane(rd, (size_t)(b->p - BLOCK_BYTES - rd->data), &h) ||
	    left - BLOCK_BYTES < 8 || memcmp(b->p, MCT_MAGIC, 8))
		return false;
	if (rd->events != EVENTS_WALK)
		add_kid(rd, b, left - BLOCK_BYTES);
	return true;
}

static void add_clock(struct reader *rd, const struct block *b)
{
	uint64_t c[4];

	for (int i = 0; i < 4; i++)
		c[i] = get_le64(b->p + 8 * i);
	/* two instants whose ns go back calibrate nothing */
	if ((c[2] > c[0] && c[3] >= c[1]) || !rd->clk[0])
		memcpy(rd->clk, c, sizeof(c));
}

/* Take in a whole block; false if it is damaged (nothing taken). */
static bool take_block(struct reader *rd, const struct block *b)
{
	struct trace *t = rd->t;

	if (!size_fits_kind(b->kind, b->bytes))
		return false;
	if (b->kind == MCT_EVENTS)
		return add_events(rd, b);
	rd->args.p = NULL;	/* an MCT_ARGS names the block right after */
	if (!block_valid(rd, b))
		return false;
	if (b->kind == MCT_ARGS) {
		rd->args.p = b->p;
		rd->args.bytes = b->bytes;
		rd->args.tid = b->tid;
		return true;
	}
	if (rd->events == EVENTS_WALK)
		return true;	/* taken by the first walk */
	if (b->kind == MCT_NAME || b->kind == MCT_NAME_AT) {
		add_name(rd, b);
	} else if (b->kind == MCT_UNLOAD) {
		t->unloads = grow(t->unloads, &rd->ucap, t->nunloads + 1,
				  sizeof(*t->unloads));
		t->unloads[t->nunloads].lo = get_le64(b->p);
		t->unloads[t->nunloads].hi = get_le64(b->p + 8);
		t->unloads[t->nunloads++].at = get_le64(b->p + 16);
	} else if (b->kind == MCT_LOST) {
		thread_of(rd, b->tid)->lost = get_le64(b->p);
	} else if (b->kind == MCT_LOST_WHY) {
		lost_why(thread_of(rd, b->tid), b->p, b->bytes / 8);
	} else if (b->kind == MCT_CLOCK) {
		add_clock(rd, b);
	} else if (b->kind == MCT_INFO) {
		add_info(rd, b);
	} else if (b->kind == MCT_PROCESS) {
		add_kid(rd, b, b->bytes);
	}
	return true;
}

/* Damage from `pos` to `next`, skipped: where reading goes on. */
static size_t skip_damage(struct reader *rd, size_t pos, size_t next)
{
	rd->t->damaged++;
	rd->t->damaged_bytes += next - pos;
	return next;
}

/*
 * A stream's walks give back the mapped pages behind `pos` (they stay
 * in the page cache), a MiB at a time, so that the file does not
 * count in the reader's memory however long it is.
 */
#define RELEASE_STEP ((size_t)1 << 20)

static uintptr_t page_of(const void *p)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	return (uintptr_t)p / page * page;
}

static void release_behind(struct reader *rd, size_t pos)
{
	uintptr_t to = page_of(rd->data + pos);

	if (!rd->in_map || rd->events < EVENTS_CHECK ||
	    to < rd->released + RELEASE_STEP)
		return;
	madvise((void *)rd->released, to - rd->released, MADV_DONTNEED);
	rd->released = to;
}

/* Reading from `data`, in the file mapped (in_map) or not. */
static void reader_at(struct reader *rd, const uint8_t *data, bool in_map)
{
	rd->data = data;
	rd->in_map = in_map;
	rd->map_lo = rd->released = page_of(data);
}

static void read_blocks(struct reader *rd)
{
	size_t pos = HEADER_BYTES;

	rd->args.p = NULL;
	while (pos < rd->size) {
		size_t left = rd->size - pos, next;
		struct block b;

		release_behind(rd, pos);
		if (left < BLOCK_BYTES) {
			rd->t->cut_bytes = left;
			break;
		}
		block_at(rd, pos, &b);
		if (b.bytes > left - BLOCK_BYTES) {
			if (cut_kid(rd, &b, left))
				break;
			/* cut short, or a damaged size: blocks after it? */
			next = resync(rd, pos + 1);
			if (next == rd->size) {
				rd->t->cut_bytes = left;
				break;
			}
			pos = skip_damage(rd, pos, next);
		} else if (!take_block(rd, &b)) {
			pos = skip_damage(rd, pos, resync(rd, pos + 1));
		} else {
			rd->t->blocks++;
			pos += BLOCK_BYTES + b.bytes;
		}
	}
	for (size_t i = 0; i < rd->nraw; i++)
		thread_of(rd, rd->raws[i].tid);
}

static bool ends_with_json(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && !strcmp(path + n - 5, ".json");
}

/* A file that is no regular one (a pipe): read whole into memory. */
static int read_stream(struct reader *rd, int fd)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;
	ssize_t got;

	do {
		buf = grow(buf, &cap, n + 65536, 1);
		got = read(fd, buf + n, cap - n);
		if (got > 0)
			n += (size_t)got;
	} while (got > 0 || (got < 0 && errno == EINTR));
	if (got < 0) {
		fprintf(stderr, "mctrace: %s: %s\n", rd->path, strerror(errno));
		free(buf);
		return -1;
	}
	rd->data = buf;
	rd->size = n;
	return 0;
}

/* The file's bytes into rd->data; 0, or -1 after saying why. */
static int load_file(struct reader *rd)
{
	struct stat st;
	int fd = open(rd->path, O_RDONLY | O_CLOEXEC), err = 0;
	void *map;

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "mctrace: %s: %s\n", rd->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "mctrace: %s: a directory, not a trace\n",
			rd->path);
		err = -1;
	} else if (!S_ISREG(st.st_mode)) {
		err = read_stream(rd, fd);
	} else if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (map == MAP_FAILED) {
			err = read_stream(rd, fd);
		} else {
			reader_at(rd, map, true);
			rd->size = (size_t)st.st_size;
			rd->mapped = true;
		}
	}
	close(fd);
	return err;
}

static void unload_file(struct reader *rd)
{
	if (rd->mapped)
		munmap((void *)rd->data, rd->size);
	else
		free((void *)rd->data);
	rd->data = NULL;
}

/*
 * The file's header: 0 to read its blocks, 1 when it is cut short
 * within the header (nothing to read), -1 after saying why it is no
 * trace this reader reads.
 */
static int read_header(struct reader *rd)
{
	size_t stem = MCT_MAGIC_STEM, n = rd->size < 8 ? rd->size : 8;

	if (rd->size > stem && !memcmp(rd->data, MCT_MAGIC, stem) &&
	    rd->data[stem] != (uint8_t)MCT_MAGIC[stem]) {
		fprintf(stderr, "mctrace: %s: trace format version %c; this "
			"mctrace reads version %d only (read it with the mctrace "
			"that recorded it, or record it again)\n", rd->path,
			rd->data[stem], MCT_VERSION);
		return -1;
	}
	if (!rd->size || memcmp(rd->data, MCT_MAGIC, n) != 0) {
		fprintf(stderr, "mctrace: %s: %s\n", rd->path, !rd->size ?
			"empty: not a trace (recording stopped as it began?)" :
			ends_with_json(rd->path) ? "not a trace of mctrace's own "
			"format (a JSON trace is for Perfetto or chrome://tracing)" :
			"not a trace of mctrace's own format");
		return -1;
	}
	if (rd->size < HEADER_BYTES) {
		rd->t->cut_bytes = rd->size;
		return 1;
	}
	rd->t->pid = get_le32(rd->data + 8);
	rd->t->min_time = get_le64(rd->data + 16);
	return 0;
}

/* What could not be read, one line each on stderr. */
static void say_losses(const struct reader *rd)
{
	const struct trace *t = rd->t;
	const char *p = rd->path;

	if (t->cut_bytes && rd->size < HEADER_BYTES)
		fprintf(stderr, "mctrace: %s: cut short in its header (%llu "
			"bytes): no block to read\n", p,
			(unsigned long long)t->cut_bytes);
	else if (t->cut_bytes)
		fprintf(stderr, "mctrace: %s: cut short: 1 block lost (the "
			"last %llu bytes); %zu whole blocks read\n", p,
			(unsigned long long)t->cut_bytes, t->blocks);
	else if (t->missing_bytes)
		fprintf(stderr, "mctrace: %s: cut short between two of its "
			"blocks: %llu bytes past the file's end lost; %zu "
			"whole blocks read\n", p,
			(unsigned long long)t->missing_bytes, t->blocks);
	if (t->damaged)
		fprintf(stderr, "mctrace: %s: damaged: %zu stretch%s of blocks "
			"skipped (%llu bytes); %zu whole blocks read\n", p,
			t->damaged, t->damaged > 1 ? "es" : "",
			(unsigned long long)t->damaged_bytes, t->blocks);
	if (rd->clk[2] <= rd->clk[0] && rd->saw_events)
		fprintf(stderr, "mctrace: %s: no clock calibration (the "
			"program ended abruptly?): times are in raw ticks\n", p);
}

static void free_raws(struct reader *rd)
{
	for (size_t i = 0; i < rd->nraw; i++)
		free(rd->raws[i].ev);
	free(rd->raws);
	free(rd->scratch.ev);
	rd->raws = NULL;
	rd->scratch.ev = NULL;
	rd->nraw = 0;
}

/*
 * MCT_PROCESS `k` of `rd`'s file opened as a trace of its own, into
 * `sub`, and its blocks walked as rd's were: 0, or -1 after saying why
 * it is no trace.  sub->path and sub->t are malloc'ed.
 */
static int kid_open(const struct reader *rd, const struct kid *k,
		    struct reader *sub)
{
	size_t n = strlen(rd->path) + 32;
	char *label = xmalloc(n);
	struct trace *own = xmalloc(sizeof(*own));
	int head;

	snprintf(label, n, "%s, process %u", rd->path, k->pid);
	memset(own, 0, sizeof(*own));
	*sub = (struct reader){ .path = label, .t = own, .child = true,
		.events = rd->events, .size = k->bytes };
	reader_at(sub, k->p, rd->in_map);
	head = read_header(sub);
	if (head < 0) {
		free(own);
		free(label);
		return -1;
	}
	if (head == 0)
		read_blocks(sub);
	if (!own->pid)	/* its header cut short */
		own->pid = k->pid;
	/* cut at one of its own blocks' ends: read whole, yet not all */
	own->missing_bytes = k->missing;
	return 0;
}

/* Every MCT_PROCESS's process read, with its calls, into rd's trace. */
static void read_kids(struct reader *rd, const struct trace_opts *o)
{
	for (size_t i = 0; i < rd->nkids; i++) {
		struct reader sub;

		if (kid_open(rd, &rd->kids[i], &sub) != 0)
			continue;
		say_losses(&sub);
		calls_build(sub.t, sub.raws, sub.nraw, sub.clk,
			    o->demangle);
		free_raws(&sub);
		procs_add(rd->t, sub.t, sub.t->pid);
		free((char *)sub.path);
	}
}

int trace_read_opts(const char *path, struct trace *t,
		    const struct trace_opts *o)
{
	struct reader rd = { .path = path, .t = t,
		.events = o->no_events ? EVENTS_SKIP : EVENTS_KEEP };
	int head;

	memset(t, 0, sizeof(*t));
	if (load_file(&rd) != 0)
		return -1;
	head = read_header(&rd);
	if (head == 0)
		read_blocks(&rd);
	if (head < 0) {
		unload_file(&rd);
		free_raws(&rd);
		return -1;
	}
	say_losses(&rd);
	calls_build(t, rd.raws, rd.nraw, rd.clk, o->demangle);
	free_raws(&rd);
	procs_first(t);
	read_kids(&rd, o);
	procs_align(t);
	procs_count(t);
	unload_file(&rd);
	free(rd.kids);
	if (t->min_time)
		trace_min_time(t, t->min_time);
	return 0;
}

/* The second walk: counts of what was read made again, by it. */
static void walk_again(struct reader *rd)
{
	rd->t->blocks = rd->t->damaged = 0;
	rd->t->cut_bytes = rd->t->damaged_bytes = 0;
	rd->events = EVENTS_WALK;
	if (rd->in_map)
		madvise((void *)rd->map_lo, rd->released - rd->map_lo,
			MADV_DONTNEED);
	rd->released = rd->map_lo;
	read_blocks(rd);
}

/*
 * A stream's processes: rd's trace and each MCT_PROCESS's, first
 * walked (rd's already), their walks started into `sink` through
 * ps[i], which moves them to the whole trace.  How many of them.
 */
static size_t stream_procs(struct reader *rd, struct reader *subs,
			   struct procs_sink *ps, const struct trace_opts *o,
			   const struct trace_sink *sink)
{
	struct trace *t = rd->t;
	size_t n = 1;

	/* a trace of one process needs no moving: its walk feeds `sink` */
	rd->walk = calls_walk_start(t, rd->clk, o->demangle,
				    rd->nkids ? &ps[0].sink : sink);
	procs_first(t);
	procs_sink_init(&ps[0], t, 0, sink);
	for (size_t i = 0; i < rd->nkids; i++) {
		struct reader *sub = &subs[n];

		if (kid_open(rd, &rd->kids[i], sub) != 0)
			continue;
		sub->walk = calls_walk_start(sub->t, sub->clk, o->demangle,
					     &ps[n].sink);
		procs_add(t, sub->t, sub->t->pid);
		procs_sink_init(&ps[n++], t, t->nprocs - 1, sink);
	}
	procs_align(t);
	return n;
}

/* The processes' second walks, the calls into the sink. */
static void stream_walk(struct reader *rd, struct reader *subs, size_t n)
{
	walk_again(rd);
	for (size_t i = 1; i < n; i++)
		walk_again(&subs[i]);
}

static void stream_end(struct reader *rd, struct reader *subs, size_t n,
		       bool say)
{
	calls_walk_end(rd->walk);
	if (say)
		say_losses(rd);
	for (size_t i = 1; i < n; i++) {
		calls_walk_end(subs[i].walk);
		if (say)
			say_losses(&subs[i]);
		free_raws(&subs[i]);
		free((char *)subs[i].path);
	}
	procs_count(rd->t);
}

int trace_stream(const char *path, struct trace *t,
		 const struct trace_opts *o, const struct trace_sink *sink)
{
	struct reader rd = { .path = path, .t = t,
		.events = o->no_events ? EVENTS_SKIP : EVENTS_CHECK };
	struct reader *subs = NULL;
	struct procs_sink *ps = NULL;
	int head, err = 0;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (load_file(&rd) != 0)
		return -1;
	head = read_header(&rd);
	if (head == 0)
		read_blocks(&rd);
	if (head >= 0) {
		subs = xmalloc((rd.nkids + 1) * sizeof(*subs));
		ps = xmalloc((rd.nkids + 1) * sizeof(*ps));
		n = stream_procs(&rd, subs, ps, o, sink);
		err = sink->start ? sink->start(sink->ctx, t) : 0;
		if (!err && head == 0 && !o->no_events)
			stream_walk(&rd, subs, n);
		stream_end(&rd, subs, n, !err);
	}
	unload_file(&rd);
	free_raws(&rd);
	free(rd.kids);
	free(subs);
	free(ps);
	return head < 0 || err ? -1 : 0;
}

int trace_read(const char *path, struct trace *t)
{
	static const struct trace_opts defaults;

	return trace_read_opts(path, t, &defaults);
}

static const char *info_value(const char *info, size_t bytes,
			      const char *key, size_t nth)
{
	size_t klen = strlen(key);

	for (size_t at = 0; at < bytes;) {
		const char *s = info + at;
		size_t len = strnlen(s, bytes - at);

		if (len > klen && !strncmp(s, key, klen) && s[klen] == '=' &&
		    len < bytes - at && !nth--)
			return s + klen + 1;
		at += len + 1;
	}
	return NULL;
}

const char *trace_info(const struct trace *t, const char *key, size_t nth)
{
	return info_value(t->info, t->info_bytes, key, nth);
}

const char *trace_proc_info(const struct trace *t, size_t proc,
			    const char *key, size_t nth)
{
	if (proc >= t->nprocs)
		return NULL;
	return info_value(t->procs[proc].info, t->procs[proc].info_bytes, key,
			  nth);
}

void thread_free(struct thread *th)
{
	free(th->calls);
	for (size_t v = 0; v < th->nvalues; v++)
		free(th->values[v].text);
	free(th->values);
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		thread_free(&t->threads[i]);
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i].name);
	free(t->threads);
	free(t->names);
	free(t->unloads);
	for (size_t i = 0; i < t->nfuncs; i++)
		free(t->funcs[i].demangled);
	free(t->funcs);
	free(t->info);
	for (size_t i = 0; i < t->nprocs; i++) {
		if (t->procs[i].own) {
			trace_free(t->procs[i].own);
			free(t->procs[i].own);
		}
		free(t->procs[i].func_map);
	}
	free(t->procs);
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
