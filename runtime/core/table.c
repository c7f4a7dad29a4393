/* SPDX-License-Identifier: MIT */
/*
 * table.c - reading an image's __mcount_loc table: whether its entries
 * come in order (as the tool and the linkers other than gold leave
 * them), and where they do not, a sorted copy without repeats, sorted
 * without libc.
 */
#include "core.h"

static void site_swap(struct rt_site *a, struct rt_site *b)
{
	struct rt_site t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct rt_site *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1].addr > v[child].addr)
			child++;
		if (v[root].addr >= v[child].addr)
			return;
		site_swap(&v[root], &v[child]);
		root = child;
	}
}

static bool sites_sorted(const struct rt_site *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1].addr > v[i].addr)
			return false;
	return true;
}

/*
 * Heapsort: O(n log n), no recursion, no scratch memory.  Skipped when
 * the table is in order already, as recordmcount --finalize (or a
 * linker that keeps link order) leaves it: the check is one pass, the
 * sort a large share of the whole boot.
 */
static void sort_by_addr(struct rt_site *v, size_t n)
{
	if (sites_sorted(v, n))
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		site_swap(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}

/*
 * Copy the table, sort it, drop (and report) repeated entries.  The
 * copy notes whether the table is already in order without repeats (as
 * the tool and the linkers other than gold leave it), and then that is
 * all: one pass over the table.
 */
size_t mc_rt_load_table(struct rt_image *img, struct rt_site *sites,
			const uintptr_t *tab, size_t n)
{
	size_t live = 0, nsites;
	bool in_order = true;

	for (size_t i = 0; i < n; i++) {
		if (is_cleared(tab[i]))
			continue;
		if (live && tab[i] <= sites[live - 1].addr)
			in_order = false;
		sites[live++] = (struct rt_site){
			.addr = tab[i], .style = STYLE_UNKNOWN };
	}
	img->nsites = live;
	if (in_order)
		return live;
	sort_by_addr(sites, live);
	nsites = 0;
	for (size_t i = 0; i < live; i++) {
		if (nsites && sites[nsites - 1].addr == sites[i].addr) {
			img->counts.refused++;
			img->counts.duplicates++;
			mc_plat_report(sites[i].addr, NULL, 0,
				       "duplicate table entry");
			continue;
		}
		if (nsites != i)	/* only once a duplicate was dropped */
			sites[nsites] = sites[i];
		nsites++;
	}
	img->nsites = nsites;
	return live;
}

/*
 * True if the table's live entries rise strictly, as the tool and the
 * linkers other than gold leave them: then boot_in_order classifies
 * them straight from the table, with no sort and no repeat to drop.
 */
bool mc_rt_table_in_order(const uintptr_t *tab, size_t n)
{
	uintptr_t top = 0;	/* the highest entry so far */

	for (size_t i = 0; i < n; i++) {
		if (tab[i] > top)
			top = tab[i];
		else if (!is_cleared(tab[i]))
			return false;
	}
	return true;
}

/*
 * True if the table's entries rise strictly with none cleared: then
 * site i is tab[i], and boot may keep the sites as runs (keep_lazily)
 * rather than a record each.
 */
bool mc_rt_table_lazy(const uintptr_t *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_cleared(tab[i]) || (i && tab[i] <= tab[i - 1]))
			return false;
	return true;
}
