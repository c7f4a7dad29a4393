/* SPDX-License-Identifier: MIT */
/*
 * compact.c - the recorder's own trace format (format.h): its header,
 * its blocks, and events in the compact form, with a name block for
 * each function the first time it shows up.  The writer thread's alone.
 */
#define _GNU_SOURCE
#include <string.h>

#include "recorder.h"

#define BLOCK_EVENTS REC_BLOCK_EVENTS

/* names whose block is out, recently found, by hash (name_once) */
static uintptr_t seen[1 << REC_SEEN_BITS];

static void put_block_head(uint32_t kind, uint32_t tid, size_t n)
{
	struct mct_block b = { .kind = rec_le32(kind), .tid = rec_le32(tid),
			       .bytes = rec_le64(n) };

	rec_out_put(&b, sizeof(b));
}

/* A block whose payload is `n` u64 words. */
static void put_block(uint32_t kind, uint32_t tid, const uint64_t *v,
		      size_t n)
{
	put_block_head(kind, tid, n * 8);
	rec_out_words(v, n);
}

void rec_compact_header(uint32_t pid)
{
	struct mct_header h = { .magic = MCT_MAGIC, .pid = rec_le32(pid),
				.min_time_ns = rec_le64(rec_cfg.min_time_ns) };

	memcpy(h.magic, MCT_MAGIC, 8);
	rec_out_put(&h, sizeof(h));
}

void rec_compact_clock(const struct rec_clock *c)
{
	uint64_t v[4] = { c->t0, c->ns0, c->t1, c->ns1 };

	put_block(MCT_CLOCK, 0, v, 4);
}

void rec_compact_unload(uintptr_t lo, uintptr_t hi, uint64_t ticks)
{
	uint64_t v[3] = { lo, hi, ticks };

	put_block(MCT_UNLOAD, 0, v, 3);
}

/*
 * Thread `t`'s lost calls, if they changed: an MCT_LOST_WHY block of
 * them by reason and an MCT_LOST of their sum (format.h).  The thread
 * counts them as it runs: the copy is what it had counted by then.
 */
void rec_compact_lost(struct rec_thread *t)
{
	uint64_t v[MCT_LOST_WHYS], sum = 0;

	memcpy(v, t->lost, sizeof(v));
	if (!memcmp(v, t->lost_written, sizeof(v)))
		return;
	for (unsigned k = 0; k < MCT_LOST_WHYS; k++)
		sum += v[k];
	memcpy(t->lost_written, v, sizeof(v));
	put_block(MCT_LOST_WHY, t->tid, v, MCT_LOST_WHYS);
	put_block(MCT_LOST, t->tid, &sum, 1);
}

void rec_compact_info(uint32_t pid, const char *info, size_t len)
{
	put_block_head(MCT_INFO, pid, len);
	rec_out_put(info, len);
}

/* ---- names ------------------------------------------------------------- */

static void put_name(uintptr_t addr, const char *name)
{
	uint64_t a = addr;
	size_t len = name ? strlen(name) : 0;

	if (len > 4096)
		len = 4096;
	put_block_head(MCT_NAME, 0, 8 + len);
	rec_out_words(&a, 1);
	rec_out_put(name ? name : "", len);
}

static void put_name_at(uintptr_t addr, const struct rec_name_at *at)
{
	uint64_t v[3] = { addr, at->from, at->base };
	size_t len = at->name ? strlen(at->name) : 0;

	if (len > 4096)
		len = 4096;
	put_block_head(MCT_NAME_AT, 0, 24 + len);
	rec_out_words(v, 3);
	rec_out_put(at->name ? at->name : "", len);
}

/*
 * The name of every entry event, which only needs its block written
 * once: most events name a function seen a moment ago, found here with
 * one compare.  True for an address of a library opened or closed while
 * recording, its name in *at.
 */
static bool name_once(uintptr_t addr, uint64_t ticks, struct rec_name_at *at)
{
	uint64_t h = ((uint64_t)addr >> 4) * 0x9e3779b97f4a7c15ull;
	uintptr_t *s = &seen[h >> (64 - REC_SEEN_BITS)];
	const char *name;
	bool fresh;

	if (*s == addr)
		return false;
	rec_lib_name_of(addr, ticks, at);
	if (at->fresh)
		put_name_at(addr, at);
	if (at->lib)
		return true;
	if (!rec_name_of(addr, &name, &fresh))
		return false;	/* not kept: try again next time */
	if (fresh)
		put_name(addr, name);
	*s = addr;
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
	struct rec_name_at at;

	*from = 0;
	*until = UINT64_MAX;
	if (!name_once(addr, ticks, &at))
		return;
	if (at.from <= ticks && ticks < at.until) {
		*from = at.from;
		*until = at.until;
	} else {
		*until = 0;
	}
}

/* A library came or went: the addresses seen may name another now. */
void rec_compact_forget(void)
{
	memset(seen, 0, sizeof(seen));
}

/* ---- events ------------------------------------------------------------ */

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
/*
 * The values captured among a block's events (format.h's MCT_ARGS):
 * two words of head, then two a value.
 */
static uint64_t data[2 + 2 * BLOCK_EVENTS];
static size_t ndata;

/*
 * A value among the events (MCT_DATA): into data[], at the place of the
 * `done` events before it.  Out of the common path: only the functions
 * whose values are captured have them.
 */
static __attribute__((noinline)) void put_data(const struct mct_event *e,
					       size_t done)
{
	data[2 + ndata++] = (uint64_t)done | (e->word & 0xffffffffu) << 32;
	data[2 + ndata++] = e->func;
}

/* The ticks of the first entry or exit of e[0, n), or 0. */
static uint64_t first_ticks(const struct mct_event *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (MCT_KIND(e[i].word) != MCT_DATA)
			return MCT_TICKS(e[i].word);
	return 0;
}

static size_t encode_events(const struct mct_event *e, size_t n)
{
	const struct mct_event *start = e, *end = e + n;
	uint64_t prev = first_ticks(e, n);
	uint8_t *p = enc;

	memset(slots, 0, sizeof(slots));
	slots_used = 0;
	ndata = 0;
	p = put_le64(p, prev);
	p = put_le64(p, (uint64_t)n);	/* count, then flags 0 */
	for (; e < end; e++) {
		uint64_t word = e->word, func = e->func;
		uint64_t ticks = MCT_TICKS(word), d = ticks - prev;
		uint8_t op;

		if (MCT_KIND(word) == MCT_ENTRY) {
			struct slot *s = &slots[(func * 0x9e3779b97f4a7c15ull)
						>> (64 - SLOT_BITS)];

			prev = ticks;
			if (__builtin_expect(s->addr != func || !s->op, 0)) {
				p = put_entry_op(p, s, func, ticks);
				p = put_leb(p, zigzag(d));
				continue;
			}
			op = (uint8_t)s->op;
		} else if (__builtin_expect(MCT_KIND(word) == MCT_EXIT, 1)) {
			prev = ticks;
			op = (uint8_t)mct_exit_tag(func);
		} else {	/* a value, which has no ticks */
			put_data(e, (size_t)(e - start) - ndata / 2);
			continue;
		}
		p[0] = op;
		if (__builtin_expect(d < 0x40, 1)) {	/* zigzag: d << 1 */
			p[1] = (uint8_t)(d << 1);
			p += 2;
		} else {
			p = put_leb(p + 1, zigzag(d));
		}
	}
	if (ndata)	/* the count of entries and exits alone */
		put_le64(enc + 8, (uint64_t)n - ndata / 2);
	return (size_t)(p - enc);
}

/* The `ticks` of the block in enc (its first word, little-endian). */
static uint64_t enc_first_ticks(void)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)enc[i] << 8 * i;
	return v;
}

void rec_compact_events(uint32_t tid, const struct mct_event *e, size_t n)
{
	size_t len = encode_events(e, n);

	if (ndata) {	/* before its events block, which it names */
		data[0] = enc_first_ticks();
		data[1] = (uint64_t)n - ndata / 2;
		put_block(MCT_ARGS, tid, data, 2 + ndata);
	}
	put_block_head(MCT_EVENTS, tid, len);
	rec_out_put(enc, len);
}
