/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pb.c - protocol buffers' wire format, written (pb.h).
 *
 * A field is its key, (field number << 3 | wire type) as a varint,
 * then its value.  A varint is 7 bits a byte, least significant first,
 * the top bit set on every byte but the last.  Length-delimited values
 * (strings, bytes, nested messages) are a varint length, then the
 * bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

/* The most bytes a varint of 64 bits takes. */
#define PB_VARINT_MAX 10

static void grow(struct pb *b, size_t more)
{
	b->cap = b->cap ? b->cap * 2 : 256;
	if (b->cap < b->n + more)
		b->cap = b->n + more;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
}

/* Room for `more` bytes: the common case, inline, with no call. */
static inline void reserve(struct pb *b, size_t more)
{
	if (b->n + more > b->cap)
		grow(b, more);
}

static size_t varint_at(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void raw_varint(struct pb *b, uint64_t v)
{
	reserve(b, PB_VARINT_MAX);
	b->n += varint_at(b->p + b->n, v);
}

void pb_varint(struct pb *b, unsigned field, uint64_t v)
{
	raw_varint(b, (uint64_t)field << 3 | PB_VARINT);
	raw_varint(b, v);
}

void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	raw_varint(b, (uint64_t)field << 3 | PB_LEN);
	raw_varint(b, len);
	reserve(b, len);
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

void pb_string(struct pb *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/*
 * One byte is kept for the length, which most nested messages here fit
 * in; pb_close moves the message up when its length takes more.
 */
size_t pb_open(struct pb *b, unsigned field)
{
	raw_varint(b, (uint64_t)field << 3 | PB_LEN);
	reserve(b, 1);
	b->p[b->n++] = 0;
	return b->n;
}

void pb_close(struct pb *b, size_t start)
{
	size_t len = b->n - start, k = varint_size(len);

	if (k > 1) {
		reserve(b, k - 1);
		memmove(b->p + start + k - 1, b->p + start, len);
		b->n += k - 1;
	}
	varint_at(b->p + start - 1, len);
}

void pb_free(struct pb *b)
{
	free(b->p);
	*b = (struct pb){ 0 };
}
