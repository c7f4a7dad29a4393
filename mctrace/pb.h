/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pb.h - the protocol buffers wire format, written: just what the
 * Perfetto writer (perfetto.c) needs.
 *
 * A message is built in a struct pb buffer, then written whole.  Its
 * fields are varints (wire type 0) and length-delimited bytes (wire
 * type 2); a nested message is opened with pb_open, which returns where
 * it starts, and closed with pb_close, which puts its length before it
 * once the length is known.  Opens and closes nest like brackets.
 */
#ifndef MCTRACE_PB_H
#define MCTRACE_PB_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *p;
	size_t n, cap;
};

void pb_varint(struct pb *b, unsigned field, uint64_t v);
void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len);
void pb_string(struct pb *b, unsigned field, const char *s);
/* A nested message in `field`: its start, for pb_close. */
size_t pb_open(struct pb *b, unsigned field);
void pb_close(struct pb *b, size_t start);
void pb_free(struct pb *b);

#endif
