/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * events.h - the reader's lowest floor (events.c): one MCT_EVENTS
 * block's bytes decoded into a thread's events, and the growing arrays
 * the reader keeps.  For trace.c and calls.c only.
 */
#ifndef MCTRACE_EVENTS_H
#define MCTRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../recorder/format.h"

/*
 * One thread's events in file order.  An exit's `func` is its tag
 * (format.h) until calls.c matches it with its entry.
 */
struct raw {
	uint32_t tid;
	struct mct_event *ev;
	size_t n, cap;
};

/* `v` with room for `need` items of `size` (exits on no memory). */
void *grow(void *v, size_t *cap, size_t need, size_t size);
void *xmalloc(size_t bytes);
uint64_t get_le64(const uint8_t *p);
uint32_t get_le32(const uint8_t *p);

/*
 * Append an MCT_EVENTS block's events to `r`; false, with `r` as it
 * was, if the block does not decode to exactly the count it gives.
 */
bool decode_events(struct raw *r, const uint8_t *p, size_t bytes);
/* An MCT_ARGS payload's shape (format.h). */
bool args_valid(const uint8_t *p, uint64_t bytes);
/*
 * A valid MCT_ARGS payload's values put among r->ev[from, r->n), the
 * events of the block whose first ticks are `ticks`, as MCT_DATA
 * events; false if that block is not the one the payload names.
 */
bool insert_args(struct raw *r, size_t from, uint64_t ticks,
		 const uint8_t *p, uint64_t bytes);

#endif
