/* SPDX-License-Identifier: MIT */
/*
 * thunks.c - an image's thunk page: where some of its sites cannot
 * reach a trampoline, the platform maps a page of jumps near the
 * image's code, which those sites call instead.  And where an image's
 * sites lie, which the page must be near (and the traced path's
 * bounds of the image).
 */
#include "core.h"

/*
 * Where the image's sites lie: from the first one's bytes to the end of
 * the last one's.  The sites are sorted by address, and each one's
 * bytes end less than 2 * MC_MAX_SITE_LEN past it (a pad's slot is
 * inside the bytes classify read, its len at most that many), so the
 * end is among the last few, which are read from the top down.
 */
void mc_rt_image_span(const struct rt_image *img, uintptr_t *lo,
		      uintptr_t *hi)
{
	struct rt_site tmp;

	*lo = img->nsites ? mc_rt_site_view(img, 0, &tmp)->addr : 0;
	*hi = 0;
	for (size_t i = img->nsites; i-- > 0;) {
		const struct rt_site *s = mc_rt_site_view(img, i, &tmp);

		if (s->addr + 2 * MC_MAX_SITE_LEN <= *hi)
			break;
		if (site_at(s) + s->len > *hi)
			*hi = site_at(s) + s->len;
	}
}

/*
 * Add a thunk to `tramp` to the code `code` holds for the image (`n` so
 * far), if there is room and the arch has one for this kind of call.
 */
static void want_thunk(struct rt_image *img, uint8_t *code, uintptr_t tramp,
		       bool pad)
{
	unsigned len = MC_RT_ARCH->thunk_len;

	for (unsigned i = 0; i < img->nthunks; i++)
		if (img->thunk_to[i] == tramp)
			return;
	if (img->nthunks == MC_RT_MAX_THUNKS || len > MC_MAX_THUNK_LEN ||
	    !mc_encode_thunk(MC_RT_ARCH, code + img->nthunks * len, tramp, pad))
		return;
	img->thunk_to[img->nthunks++] = tramp;
}

/* How far the call the engine writes at `s` reaches, either way. */
static uint64_t site_reach(const struct rt_site *s)
{
	const struct mc_arch *arch = s->arch;

	return arch->site_reach ?
	       arch->site_reach(arch, s->len, s->style == MCOUNT_STYLE_PAD) :
	       arch->call_reach;
}

/*
 * At boot, once every site's trampoline is known: where a site's call
 * cannot reach its trampoline (a library mapped gigabytes from
 * libmcount.so), the platform maps a page of thunks as near the image's
 * code as it can (mc_plat_thunk_map), one per trampoline so far away,
 * and those sites call their thunk instead (encode_hook).  The page is
 * asked within the reach of the shortest of those calls (riscv64's
 * relaxed `jal`: 1 MiB); where there is no room that near, within the
 * longest, for the calls that reach so far.  A platform without that
 * hook (firmware: one image, linked with the runtime) has no thunks,
 * and such a site stays MCOUNT_ERANGE.
 */
void mc_rt_image_thunks(struct rt_image *img)
{
	uint8_t code[MC_RT_MAX_THUNKS * MC_MAX_THUNK_LEN];
	uint8_t call[MC_MAX_SITE_LEN];
	uint64_t reach = MC_RT_ARCH->call_reach, far = 0;
	uintptr_t lo, hi;

	/*
	 * Booted again (mc_rt_images_reboot): the page and what each of its
	 * thunks jumps to still stand, and a thread may be in it.
	 */
	if (img->thunk)
		return;
	img->nthunks = 0;
	if (!mc_plat_thunk_map || !MC_RT_ARCH->thunk_len)
		return;
	for (size_t i = 0; i < img->nsites; i++) {
		const struct rt_site *s = &img->sites[i];
		/*
		 * a disabled form read at boot, or written by the
		 * classifying pass, reaches: it holds the call
		 */
		uintptr_t tramp = s->state == MCOUNT_SITE_REFUSED ||
				  s->found == FOUND_DISABLED ||
				  s->found == FOUND_WRITTEN ? 0 :
				  trampoline(s);

		if (tramp && s->arch && !encode_call_to(s, call, tramp)) {
			uint64_t r = site_reach(s);

			want_thunk(img, code, tramp,
				   s->style == MCOUNT_STYLE_PAD);
			reach = r < reach ? r : reach;
			far = r > far ? r : far;
		}
	}
	if (!img->nthunks)
		return;
	mc_rt_image_span(img, &lo, &hi);
	img->thunk_size = img->nthunks * MC_RT_ARCH->thunk_len;
	img->thunk = mc_plat_thunk_map(lo, hi, reach, code, img->thunk_size);
	if (!img->thunk && far > reach)
		img->thunk = mc_plat_thunk_map(lo, hi, far, code,
					       img->thunk_size);
	if (!img->thunk)
		img->nthunks = 0;
}

