/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * values.c - the values a recording captured, made text (values.h).
 *
 * An integer is shown in its format's way at its size: the low `bits`
 * of the register, sign-extended for d.  A string is quoted, with C's
 * escapes for what would not print; one longer than the recorder's
 * bound ends in "...".  A null pointer shows as (null), a pointer to
 * no readable memory as <bad 0x...>: never as a string it is not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "values.h"

static void put(struct value_text *v, const char *s, size_t n)
{
	v->text = grow(v->text, &v->cap, v->len + n + 1, 1);
	memcpy(v->text + v->len, s, n);
	v->len += n;
	v->text[v->len] = '\0';
}

static void put_str(struct value_text *v, const char *s)
{
	put(v, s, strlen(s));
}

/* A string's byte, escaped as C would write it in quotes. */
static void put_byte(struct value_text *v, unsigned char c)
{
	static const char esc[] = "\n\\n\t\\t\r\\r\"\\\"\\\\\\";
	char hex[8];

	for (const char *e = esc; *e; e += 3)
		if ((unsigned char)*e == c) {
			put(v, e + 1, 2);
			return;
		}
	if (c < 0x20 || c == 0x7f) {
		snprintf(hex, sizeof(hex), "\\x%02x", c);
		put_str(v, hex);
	} else {
		put(v, (const char *)&c, 1);
	}
}

/* An integer's text: `bits` of `raw` in format `fmt`. */
static void put_int(struct value_text *v, char fmt, unsigned bits,
		    uint64_t raw)
{
	uint64_t mask = bits && bits < 64 ? ((uint64_t)1 << bits) - 1 :
		UINT64_MAX;
	uint64_t u = raw & mask;
	int64_t d = bits && bits < 64 && (u >> (bits - 1)) ?
		(int64_t)(u | ~mask) : (int64_t)u;
	char buf[48];

	switch (fmt) {
	case 'u': snprintf(buf, sizeof(buf), "%" PRIu64, u); break;
	case 'x':
	case 'p': snprintf(buf, sizeof(buf), "0x%" PRIx64, u); break;
	case 'c':
		put_str(v, "'");
		put_byte(v, (unsigned char)u);
		put_str(v, "'");
		return;
	default: snprintf(buf, sizeof(buf), "%" PRId64, d); break;
	}
	put_str(v, buf);
}

/* A string's end: its closing quote, and "..." if it was cut. */
static bool string_whole(struct value_text *v)
{
	put_str(v, v->cut ? "\"..." : "\"");
	v->open = false;
	return true;
}

/* The first event of a value: whole but for a string's bytes. */
static bool value_head(struct value_text *v, uint64_t w, uint64_t value)
{
	char bad[48];

	v->len = 0;
	put(v, "", 0);
	v->which = MCT_DATA_WHICH(w);
	v->open = false;
	if (MCT_DATA_FMT(w) != 's') {
		put_int(v, MCT_DATA_FMT(w), MCT_DATA_BITS(w), value);
		return true;
	}
	switch (MCT_DATA_BITS(w)) {
	case MCT_STR_NULL: put_str(v, "(null)"); return true;
	case MCT_STR_OK: case MCT_STR_CUT: break;
	default:
		snprintf(bad, sizeof(bad), "<bad 0x%" PRIx64 ">", value);
		put_str(v, bad);
		return true;
	}
	v->cut = MCT_DATA_BITS(w) == MCT_STR_CUT;
	v->left = MCT_DATA_LEN(w);
	v->open = true;
	put_str(v, "\"");
	return v->left ? false : string_whole(v);
}

bool value_feed(struct value_text *v, const struct mct_event *e)
{
	unsigned n = MCT_DATA_LEN(e->word);

	if (!(e->word & MCT_DATA_MORE))
		return value_head(v, e->word, e->func);
	if (!v->open)
		return false;	/* its head was lost: nothing to add to */
	if (n > v->left || n > 8)
		n = v->left < 8 ? v->left : 8;
	for (unsigned i = 0; i < n; i++)
		put_byte(v, (unsigned char)(e->func >> 8 * i));
	v->left -= n;
	return v->left ? false : string_whole(v);
}

bool value_end(struct value_text *v)
{
	if (!v->open)
		return false;
	v->cut = true;
	return string_whole(v);
}

void value_free(struct value_text *v)
{
	free(v->text);
	memset(v, 0, sizeof(*v));
}
