/* SPDX-License-Identifier: MIT */
/*
 * sitekeys.c - what recorder/<arch>/frame.c learnt about each site when
 * recording started, found again on the traced path by the hook's
 * return address (the `func` rec_entry gets).
 *
 * An open-addressing hash table with room for twice the program's sites
 * (mcount_site_count()), filled on one thread while recording starts and
 * only read afterwards, so readers need no lock.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include <mcount.h>

#include "recorder.h"

static struct rec_site_key *keys;
static size_t keys_mask, keys_used;

static bool keys_alloc(void)
{
	size_t n = 64;

	while (n < 2 * mcount_site_count())
		n <<= 1;
	keys = mmap(NULL, n * sizeof(*keys), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (keys == MAP_FAILED) {
		keys = NULL;
		return false;
	}
	keys_mask = n - 1;
	return true;
}

/* The entry of `ret`, or the free one where it would go. */
static struct rec_site_key *keys_find(uintptr_t ret)
{
	for (size_t h = (ret >> 1) * (size_t)0x9e3779b97f4a7c15u;; h++) {
		struct rec_site_key *e = &keys[h & keys_mask];

		if (e->ret == ret || e->ret == 0)
			return e;
	}
}

/* False if out of room: the table stays half empty, so that a search
 * for a site never read (keys_find) ends at a free entry. */
bool rec_site_key_put(const struct rec_site_key *k)
{
	struct rec_site_key *e;

	if (!keys && !keys_alloc())
		return false;
	e = keys_find(k->ret);
	if (!e->ret && 2 * (keys_used + 1) > keys_mask + 1)
		return false;
	keys_used += !e->ret;
	*e = *k;
	return true;
}

const struct rec_site_key *rec_site_key_get(uintptr_t ret)
{
	const struct rec_site_key *e = keys ? keys_find(ret) : NULL;

	return e && e->ret == ret ? e : NULL;
}
