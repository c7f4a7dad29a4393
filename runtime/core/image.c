/* SPDX-License-Identifier: MIT */
/*
 * image.c - the registry of images: one per loaded object with a table
 * (the program, and on a hosted platform each shared library, which
 * the platform adds and removes), each booted once (boot.c, its thunks
 * by thunks.c) and published by its bounds for the traced path.
 */
#include "core.h"

/*
 * The table, placed by lds/mcount.lds (or lds/mcount-section.lds in a
 * script of one's own), which defines these two around the pieces it
 * gathers.  Weak: absent means "not linked with the script".
 */
extern const uintptr_t __start_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;
extern const uintptr_t __stop_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;

struct rt_image mc_rt_images[MC_RT_MAX_IMAGES];
size_t mc_rt_nimages;
bool mc_rt_booted;

/* Publish `img`'s bounds: from here on, dispatch may search its sites. */
static void image_publish(struct rt_image *img)
{
	uintptr_t lo, hi;

	mc_rt_image_span(img, &lo, &hi);
	__atomic_store_n(&img->lo, lo ? lo - 1 : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&img->hi, hi, __ATOMIC_RELEASE);
}

static struct rt_image *image_by_handle(uintptr_t handle)
{
	for (size_t k = 0; k < mc_rt_nimages; k++)
		if (mc_rt_images[k].used && mc_rt_images[k].handle == handle)
			return &mc_rt_images[k];
	return NULL;
}

void mc_rt_counts_clear(struct mcount_counts *c)
{
	c->sites = c->patched = c->nops = c->refused = c->duplicates = 0;
	c->enabled = c->pads = 0;
}

/* A free slot: a released one first, else the next; NULL when full. */
static struct rt_image *free_slot(void)
{
	for (size_t k = 0; k < mc_rt_nimages; k++)
		if (!mc_rt_images[k].used)
			return &mc_rt_images[k];
	return mc_rt_nimages < MC_RT_MAX_IMAGES ? &mc_rt_images[mc_rt_nimages] :
	       NULL;
}

int mc_rt_image_add(const struct mc_rt_image_desc *d)
{
	struct rt_image *img;
	int err;

	if (image_by_handle(d->handle))
		return MCOUNT_OK;
	img = free_slot();
	if (!img)
		return MCOUNT_ETOOMANY;
	/* field by field: a struct copy this size is a memset call */
	mc_rt_counts_clear(&img->counts);
	img->lo = img->hi = 0;
	img->nsites = 0;
	img->funcs = NULL;
	img->handle = d->handle;
	img->name = d->name;
	img->got = d->got;
	img->nstubs = 0;
	for (unsigned i = 0; i < d->nstubs && i < MC_RT_IMAGE_STUBS; i++) {
		img->stub[i] = d->stub[i];
		img->stub_style[i] = d->stub_style[i];
		img->nstubs++;
	}
	err = mc_rt_image_boot(img, d->start, (size_t)(d->stop - d->start));
	if (err) {
		if (img->sites && mc_plat_free)	/* made before it ran out */
			mc_plat_free(img->sites,
				     img->counts.sites * sizeof(*img->sites));
		img->sites = NULL;
		return err;
	}
	img->used = true;
	image_publish(img);
	if (img == &mc_rt_images[mc_rt_nimages])
		__atomic_store_n(&mc_rt_nimages, mc_rt_nimages + 1,
				 __ATOMIC_RELEASE);
	return MCOUNT_OK;
}

/* Free what `img`'s boot made, as mc_rt_image_remove does, but its page. */
static void image_forget_sites(struct rt_image *img)
{
	__atomic_store_n(&img->hi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&img->lo, 0, __ATOMIC_RELEASE);
	if (mc_plat_free && img->sites)
		mc_plat_free(img->sites, img->counts.sites * sizeof(*img->sites));
	if (mc_plat_free && img->funcs)
		mc_plat_free(img->funcs, img->nsites * sizeof(*img->funcs));
	img->sites = NULL;
	img->funcs = NULL;
	img->nruns = 0;
	img->nsites = 0;
	mc_rt_counts_clear(&img->counts);
}

/*
 * The object is being unloaded (dlclose).  By the program's own
 * contract no thread runs an object's code while it is unloaded, so no
 * dispatch can be searching this image's sites for a return address in
 * it: emptying its bounds first (and a dispatch for another image never
 * matches an empty range) makes the free that follows safe, and nothing
 * here reads the object's text, which may already be unmapped.
 *
 * Its thunk page goes last, once no site is left to call it, and by
 * the same contract no thread is in it: a thread reaches a thunk only
 * from one of this image's sites (the page is the image's alone, never
 * shared), in the middle of calling the object's function, which it
 * returns into after the trampoline; a thread still there would be
 * running the object's code as it is unloaded, already undefined
 * behaviour of the program's.  A site disabled while a thread was on
 * its way through the thunk is the same case: that thread is inside
 * the object's function too.
 */
void mc_rt_image_remove(uintptr_t handle)
{
	struct rt_image *img = image_by_handle(handle);

	if (!img)
		return;
	image_forget_sites(img);
	img->used = false;
	if (img->thunk && mc_plat_thunk_unmap)
		mc_plat_thunk_unmap(img->thunk, img->thunk_size);
	img->thunk = 0;
	img->nthunks = 0;
}

int mc_rt_images_reboot(void)
{
	int first = MCOUNT_OK;

	mc_plat_lock();
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		struct rt_image *img = &mc_rt_images[k];
		int err;

		/*
		 * Untouched since the engine wrote it (a program linked
		 * with libmcount, its sites disabled again): kept as it is.
		 * Booting it again would have to read the engine's own
		 * disabled forms as sites, which not every backend can
		 * (riscv64's `c.j` over a call at 2 mod 4).
		 */
		if (!img->used || mc_rt_image_intact(img))
			continue;
		image_forget_sites(img);
		err = mc_rt_image_boot(img, img->tab, img->ntab);
		if (!err) {
			image_publish(img);
			continue;
		}
		image_forget_sites(img);
		img->used = false;
		if (first == MCOUNT_OK)
			first = err;
	}
	mc_plat_unlock();
	return first;
}

/*
 * The table of the object the engine is linked into: the script's pair
 * when it was used and holds entries (it may also gather
 * __patchable_function_entries), else NULL.  "Holds entries", not "is
 * defined": in a PIE, gold resolves an undefined weak hidden symbol to
 * the load address rather than 0, so the script's pair is never null
 * there, but it is empty.
 */
bool mc_rt_own_table(const uintptr_t **start, const uintptr_t **stop)
{
	if ((uintptr_t)__start_mcount_loc >= (uintptr_t)__stop_mcount_loc)
		return false;
	*start = __start_mcount_loc;
	*stop = __stop_mcount_loc;
	return true;
}

/* What mc_plat_images calls back (platform.h). */
static const struct mc_rt_engine engine = {
	.image_add = mc_rt_image_add,
	.image_remove = mc_rt_image_remove,
	.own_table = mc_rt_own_table,
};

/*
 * The table of a platform that does not add images itself: the
 * script's, else where the platform finds it (mc_plat_table), else the
 * script's empty range (a program with nothing recorded); false if
 * there is none, or the platform refused what it found.
 */
static bool table_bounds(const uintptr_t **start, const uintptr_t **stop)
{
	int found;

	if (mc_rt_own_table(start, stop))
		return true;
	found = mc_plat_table(start, stop);
	if (found)
		return found > 0;
	*start = *stop = __start_mcount_loc;
	return __start_mcount_loc != NULL;
}

/*
 * A platform that knows of several objects (linux/: the program and
 * its shared libraries) adds each through the engine's image_add from
 * mc_plat_images; else the one table table_bounds finds is the only
 * image.  MCOUNT_ENOTABLE when that platform finds no table at all.
 * A platform of several objects boots with none (0 sites) when none
 * has a table yet: a library opened later may bring one, as a program
 * linked with the script but nothing recorded always booted with an
 * empty table.
 */
static int boot_locked(void)
{
	const uintptr_t *tab, *stop;
	int err;

	if (mc_rt_booted)
		return MCOUNT_OK;
	if (mc_plat_images) {
		err = mc_plat_images(&engine);
	} else {
		struct mc_rt_image_desc d;

		if (!table_bounds(&tab, &stop))
			return MCOUNT_ENOTABLE;
		d.start = tab;
		d.stop = stop;
		d.handle = 0;
		d.name = NULL;
		d.nstubs = 0;
#if MC_RT_HAVE_GOT_BASE
		d.got = mc_rt_got_base();
#else
		d.got = 0;
#endif
		err = mc_rt_image_add(&d);
	}
	if (err)
		return err;
	__atomic_store_n(&mc_rt_booted, true, __ATOMIC_RELEASE);
	return MCOUNT_OK;
}

int mcount_boot(void)
{
	int err;

	mc_plat_lock();
	err = boot_locked();
	mc_plat_unlock();
	return err;
}

bool mcount_booted(void)
{
	return __atomic_load_n(&mc_rt_booted, __ATOMIC_ACQUIRE);
}
