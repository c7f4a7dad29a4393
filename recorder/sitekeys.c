/* SPDX-License-Identifier: MIT */
/*
 * sitekeys.c - what recorder/<arch>/frame.c learnt about each site
 * recording enables (at start, by a set of filters, in a library opened
 * while recording), found again on the traced path by the hook's return
 * address (the `func` rec_entry gets).
 *
 * An open-addressing hash table, filled under one lock at a time
 * (recording's start, then the filters' lock of filters.c: sets applied
 * while the program runs, libraries opened while recording) and read
 * without one on the traced path.  It starts with room for twice the
 * sites there are and doubles when half full: the larger copy is
 * published whole with one pointer, and the old one is kept, since a
 * thread may still be searching it (every table made is at most twice
 * the size of the one before it, so they add up to less than the last
 * one twice over).  A site's entry is written before its site is
 * enabled, so no reader looks for it meanwhile.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include <mcount.h>

#include "recorder.h"

/* atomic: readers load it once (so does <arch>/entry.S) */
struct rec_site_table *rec_site_keys;

static struct rec_site_table *table_new(size_t n)
{
	struct rec_site_table *t;

	t = mmap(NULL, sizeof(*t) + n * sizeof(t->v[0]),
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->mask = n - 1;
	return t;
}

/* The entry of `ret`, or the free one where it would go. */
static struct rec_site_key *keys_find(struct rec_site_table *t,
				      uintptr_t ret)
{
	for (size_t h = (ret >> 1) * (size_t)REC_SITE_HASH;; h++) {
		struct rec_site_key *e = &t->v[h & t->mask];

		if (e->ret == ret || e->ret == 0)
			return e;
	}
}

/* A table with room for `more` entries more: the one, or a larger copy. */
static struct rec_site_table *keys_room(size_t more)
{
	struct rec_site_table *t = rec_site_keys, *n;
	size_t size = 64;

	if (t && 2 * (t->used + more) <= t->mask + 1)
		return t;
	while (size < 2 * (mcount_site_count() + more) ||
	       (t && size < 2 * (t->mask + 1)))
		size <<= 1;
	n = table_new(size);
	if (!n)
		return NULL;
	for (size_t i = 0; t && i <= t->mask; i++)
		if (t->v[i].ret) {
			*keys_find(n, t->v[i].ret) = t->v[i];
			n->used++;
		}
	__atomic_store_n(&rec_site_keys, n, __ATOMIC_RELEASE);
	return n;
}

bool rec_site_key_put(const struct rec_site_key *k)
{
	struct rec_site_table *t = keys_room(1);
	struct rec_site_key *e;

	if (!t)
		return false;
	e = keys_find(t, k->ret);
	if (!e->ret)
		t->used++;
	*e = *k;
	return true;
}

const struct rec_site_key *rec_site_key_get(uintptr_t ret)
{
	struct rec_site_table *t = __atomic_load_n(&rec_site_keys,
						   __ATOMIC_ACQUIRE);
	const struct rec_site_key *e = t ? keys_find(t, ret) : NULL;

	return e && e->ret == ret ? e : NULL;
}
