/* SPDX-License-Identifier: MIT */
/*
 * runs.c - an image's sites kept as runs of like records until their
 * first use (struct rt_run): a boot that enables nothing writes no
 * record and touches no memory for them.  Their records are made when
 * first needed (image_sites), or during boot where a site needs a
 * second pass or the runs run out (mc_rt_boot_eager).
 */
#include "core.h"

/* Records [from, from + count) of `img`'s sites: `form` at each address. */
static void fill_records(struct rt_site *sites, const struct rt_image *img,
			 size_t from, size_t count, const struct rt_site *form)
{
	for (size_t i = from; i < from + count; i++) {
		sites[i] = *form;
		sites[i].addr = img->tab[i];
	}
}

/*
 * The records of `img`'s first `upto` sites, from its runs, in a new
 * array of `cap`; NULL if the platform has no storage for it.
 */
static struct rt_site *records_of_runs(const struct rt_image *img,
				       size_t upto, size_t cap)
{
	struct rt_site *sites = mc_plat_alloc(cap ? cap * sizeof(*sites) : 1);
	size_t from = 0;

	if (!sites)
		return NULL;
	for (unsigned r = 0; r < img->nruns && from < upto; r++) {
		size_t count = img->runs[r].count;

		if (count > upto - from)
			count = upto - from;
		fill_records(sites, img, from, count, &img->runs[r].form);
		from += count;
	}
	return sites;
}

/*
 * While an image boots: its sites as a record each from here on, the
 * first `upto` made from its runs (a site the second pass must write,
 * or more runs than it keeps).  False if out of storage.
 */
bool mc_rt_boot_eager(struct rt_image *img, size_t upto)
{
	img->sites = records_of_runs(img, upto, img->counts.sites);
	img->nruns = 0;
	return img->sites != NULL;
}

/*
 * While an image boots with runs: sites [from, from + count), each
 * `form` at its own address, final (nothing left for the second pass).
 * They extend the last run, start one, or, where no run is left, go
 * into records (boot_eager).  False if out of storage.
 */
bool mc_rt_keep_lazily(struct rt_image *img, const struct rt_site *form,
		       size_t from, size_t count)
{
	struct rt_run *last = img->nruns ? &img->runs[img->nruns - 1] : NULL;

	if (last && same_form(&last->form, form)) {
		last->count += count;
		return true;
	}
	if (img->nruns < MC_RT_RUNS) {
		last = &img->runs[img->nruns++];
		last->form = *form;
		last->count = count;
		return true;
	}
	if (!mc_rt_boot_eager(img, from))
		return false;
	fill_records(img->sites, img, from, count, form);
	return true;
}

/* Site `i` of `img`: its record, or one made in *tmp from its run. */
const struct rt_site *mc_rt_site_view(const struct rt_image *img, size_t i,
				      struct rt_site *tmp)
{
	size_t in = i;

	if (img->sites)
		return &img->sites[i];
	for (unsigned r = 0; r < img->nruns; r++) {
		if (in < img->runs[r].count) {
			*tmp = img->runs[r].form;
			tmp->addr = img->tab[i];
			return tmp;
		}
		in -= img->runs[r].count;
	}
	return NULL;	/* not reached: the runs cover the sites */
}

/*
 * The first use of `img`'s sites that needs their records (a change of
 * state, a search for a function, verification): made now from its
 * runs, and published for the dispatcher before any site is enabled.
 */
int mc_rt_image_sites(struct rt_image *img)
{
	struct rt_site *sites;

	if (img->sites || !img->used)
		return MCOUNT_OK;
	sites = records_of_runs(img, img->nsites, img->nsites);
	if (!sites)
		return MCOUNT_ENOMEM;
	__atomic_store_n(&img->sites, sites, __ATOMIC_RELEASE);
	img->nruns = 0;
	return MCOUNT_OK;
}
