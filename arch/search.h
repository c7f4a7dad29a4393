/* SPDX-License-Identifier: MIT */
/*
 * search.h - the one binary search every layer uses (arch/, elf/, the
 * CLI and the runtime, freestanding too): a header of its own, with
 * nothing in it but the search, so that elf/ can have it without the
 * architecture tables.
 */
#ifndef MC_SEARCH_H
#define MC_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * How many of the `n` entries of `size` bytes at `base` come before
 * `key`, when `before(entry, key)` holds for a leading run of them and
 * for none after it (a sorted array, with "entry < key" for a lower
 * bound or "entry <= key" for an upper bound); so the index of the
 * first entry that does not, or n.  bsearch()'s arguments, but a
 * position instead of a match.  Inline, so that each caller's `before`
 * is inlined too.
 */
static inline size_t mc_partition_point(const void *base, size_t n,
					size_t size, const void *key,
					bool (*before)(const void *entry,
						       const void *key))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before((const char *)base + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
