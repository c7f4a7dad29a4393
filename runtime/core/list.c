/* SPDX-License-Identifier: MIT */
/*
 * list.c - what the runtime tells of its sites: their counts, and each
 * site's info by index or all at one instant.
 */
#include "core.h"

void mcount_get_counts(struct mcount_counts *out)
{
	mc_rt_counts_clear(out);
	mc_plat_lock();
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		const struct mcount_counts *c = &mc_rt_images[k].counts;

		if (!mc_rt_images[k].used)
			continue;
		out->sites += c->sites;
		out->patched += c->patched;
		out->nops += c->nops;
		out->refused += c->refused;
		out->duplicates += c->duplicates;
		out->enabled += c->enabled;
		out->pads += c->pads;
	}
	mc_plat_unlock();
}

/*
 * Every image's sites, image by image in the order of their slots; an
 * index stays valid until a library is loaded or unloaded.
 */
size_t mcount_site_count(void)
{
	size_t n = 0;

	mc_plat_lock();
	for (size_t k = 0; k < mc_rt_nimages; k++)
		n += mc_rt_images[k].nsites;
	mc_plat_unlock();
	return n;
}

static void site_info(const struct rt_image *img, const struct rt_site *s,
		      struct mcount_site_info *out)
{
	*out = (struct mcount_site_info){
		.addr = (unsigned long)s->addr,
		.func = s->state == MCOUNT_SITE_ENABLED ?
			(unsigned long)img->funcs[s - img->sites] : 0,
		.len = s->len,
		.style = (enum mcount_style)s->style,
		.state = (enum mcount_state)s->state,
		.at = (unsigned long)site_at(s),
		.object = img->name,
	};
}

int mcount_site_get(size_t index, struct mcount_site_info *out)
{
	int err = MCOUNT_ENOSITE;

	mc_plat_lock();
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		if (index < mc_rt_images[k].nsites) {
			const struct rt_image *img = &mc_rt_images[k];
			struct rt_site tmp;

			site_info(img, mc_rt_site_view(img, index, &tmp), out);
			err = MCOUNT_OK;
			break;
		}
		index -= mc_rt_images[k].nsites;
	}
	mc_plat_unlock();
	return err;
}

/*
 * Every site's info in out[0, cap), in mcount_site_get's order, copied
 * under one hold of the lock: a walk by index may skip or repeat sites
 * when another thread loads or unloads a library between two steps.
 * Returns how many sites there are (more than cap: copy again).
 */
size_t mc_rt_sites_copy(struct mcount_site_info *out, size_t cap)
{
	size_t n = 0;

	mc_plat_lock();
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		const struct rt_image *img = &mc_rt_images[k];

		for (size_t i = 0; i < img->nsites; i++, n++)
			if (n < cap) {
				struct rt_site tmp;

				site_info(img, mc_rt_site_view(img, i, &tmp),
					  &out[n]);
			}
	}
	mc_plat_unlock();
	return n;
}

/* The lock is not held while `fn` runs: it may toggle sites. */
int mcount_for_each_site(int (*fn)(const struct mcount_site_info *site,
				   void *arg), void *arg)
{
	struct mcount_site_info info;

	for (size_t i = 0; mcount_site_get(i, &info) == MCOUNT_OK; i++) {
		int r = fn(&info, arg);

		if (r)
			return r;
	}
	return 0;
}
