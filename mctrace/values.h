/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * values.h - the values a recording captured (mctrace record -A/-R),
 * from their MCT_DATA events to the text every view shows, as uftrace
 * shows them: 42, -1, 0x1f, 'c', "a string", (null).  For calls.c.
 */
#ifndef MCTRACE_VALUES_H
#define MCTRACE_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "../recorder/format.h"

/* One value being made from its events (format.h: a string's take more). */
struct value_text {
	char *text;		/* NUL-ended once whole */
	size_t len, cap;
	unsigned which;		/* 0: a return value; n: the nth argument */
	unsigned left;		/* a string's bytes still to come */
	bool cut;		/* a string longer than its bytes */
	bool open;		/* a value begun, not yet whole */
};

/*
 * An MCT_DATA event taken into `v`: true when a value is whole (its
 * text in v->text, until the next call).
 */
bool value_feed(struct value_text *v, const struct mct_event *e);
/*
 * Another event came: a value still open ends as it is (a string whose
 * bytes were lost, shown cut): true if there was one.
 */
bool value_end(struct value_text *v);
void value_free(struct value_text *v);

#endif
