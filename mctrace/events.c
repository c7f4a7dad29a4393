/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events.c - an MCT_EVENTS block decoded (recorder/format.h), and the
 * reader's small helpers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "events.h"

void *grow(void *v, size_t *cap, size_t need, size_t size)
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

void *xmalloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return p;
}

uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t get_le64(const uint8_t *p)
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

bool decode_events(struct raw *r, const uint8_t *p, size_t bytes)
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
 * An MCT_ARGS block's items (format.h) checked: whole items, in the
 * order of their places, none past the `count` events it names.
 */
bool args_valid(const uint8_t *p, uint64_t bytes)
{
	uint32_t count, last = 0;

	if (bytes < 16 || bytes % 16)
		return false;
	count = get_le32(p + 8);
	for (uint64_t at = 16; at < bytes; at += 16) {
		uint32_t place = get_le32(p + at);

		if (place < last || place > count ||
		    (get_le32(p + at + 4) & 3) != MCT_DATA)
			return false;
		last = place;
	}
	return true;
}

/*
 * The values of a valid MCT_ARGS block (`p`, `bytes`) put among the
 * events of its MCT_EVENTS block, r->ev[from, r->n), as MCT_DATA
 * events: false, `r` as it was, if that block is not the one it names.
 */
bool insert_args(struct raw *r, size_t from, uint64_t ticks,
		 const uint8_t *p, uint64_t bytes)
{
	size_t items = (size_t)(bytes - 16) / 16, n = r->n - from;
	struct mct_event *ev;

	if (get_le64(p) != ticks || get_le32(p + 8) != n)
		return false;
	r->ev = grow(r->ev, &r->cap, r->n + items, sizeof(*r->ev));
	ev = r->ev + from;
	/* from the back: each event moves up by the items before it */
	for (size_t i = items, e = n; i > 0; i--) {
		const uint8_t *it = p + 16 * i;
		uint32_t place = get_le32(it);

		while (e > place) {
			e--;
			ev[e + i] = ev[e];
		}
		ev[e + i - 1] = (struct mct_event){ .word = get_le32(it + 4),
						    .func = get_le64(it + 8) };
	}
	r->n += items;
	return true;
}

