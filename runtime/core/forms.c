/* SPDX-License-Identifier: MIT */
/*
 * forms.c - a site's live forms: the call that enables it (to its
 * trampoline, or to its image's thunk where that is out of reach), the
 * bytes that disable it, and the one word that differs between them,
 * which a toggle stores while other threads run.  The boot pass writes
 * the disabled form; toggle.c stores the head word.
 */
#include "core.h"

/* The thunk of `img` that jumps to `tramp`; 0 if it has none. */
static uintptr_t thunk_of(const struct rt_image *img, uintptr_t tramp)
{
	for (unsigned i = 0; i < img->nthunks; i++)
		if (img->thunk_to[i] == tramp)
			return img->thunk + i * MC_RT_ARCH->thunk_len;
	return 0;
}

/*
 * The call that enables `s` (in `img`), into `out`: to its trampoline,
 * or where that is out of the call's reach, to the image's thunk that
 * jumps there.  Which one is fixed from the image's boot on, so that
 * the live forms computed then still hold.
 */
bool mc_rt_encode_hook(const struct rt_image *img, const struct rt_site *s,
		       uint8_t *out)
{
	uintptr_t tramp = trampoline(s), thunk;

	/* No entry reads the site now: its code changed under us. */
	if (!tramp || !s->arch)
		return false;
	if (encode_call_to(s, out, tramp))
		return true;
	thunk = thunk_of(img, tramp);
	return thunk && encode_call_to(s, out, thunk);
}

/* Bytes before a site that its live forms cover (ARM's push). */
static unsigned live_prelude(const struct rt_site *s)
{
	return s->style == MCOUNT_STYLE_PAD ? 0 : s->arch->live_prelude;
}

bool mc_rt_live_forms(const struct rt_image *img, const struct rt_site *s,
		      uint8_t *on, uint8_t *off, unsigned *pre)
{
	const struct mc_arch *arch = s->arch;

	*pre = live_prelude(s);
	if (*pre > site_at(s) || code_avail(site_at(s) - *pre) < *pre + s->len)
		return false;
	mc_bytes_copy(on, (const uint8_t *)(site_at(s) - *pre), *pre);
	if (!mc_rt_encode_hook(img, s, on + *pre))
		return false;
	if (arch->live_forms) {
		if (!arch->live_forms(arch, on, off, *pre, s->len,
				      s->style == MCOUNT_STYLE_PAD, site_at(s)))
			return false;
#ifdef MC_RT_SITE_NEUTRAL
		/* a hook's disabled form: the neutral bytes the backend chose */
		if (s->style != MCOUNT_STYLE_PAD && !*pre)
			mc_bytes_copy(off, s->neutral, s->len);
#endif
		return true;
	}
	mc_bytes_copy(off, on, *pre);
	mc_bytes_copy(off + *pre, s->neutral, s->len);
	return true;
}

/*
 * The naturally aligned word of at most the arch's live_store_max bytes
 * that holds every byte where `on` and `off` differ, as head and
 * head_len of `s`; head_len 0 when there is none.  `span` is the
 * address of on[0].
 */
static void find_head(struct rt_site *s, const uint8_t *on, const uint8_t *off,
		      unsigned n, uintptr_t span)
{
	unsigned first = n, last = 0;

	s->head_len = 0;
	for (unsigned i = 0; i < n; i++) {
		if (on[i] == off[i])
			continue;
		if (first == n)
			first = i;
		last = i;
	}
	if (first == n)
		return;
	for (unsigned size = 1; size <= s->arch->live_store_max; size *= 2) {
		uintptr_t word = (span + first) & ~(uintptr_t)(size - 1);

		if (span + last < word + size) {
			s->head = (int8_t)((intptr_t)word -
					   (intptr_t)site_at(s));
			s->head_len = (uint8_t)size;
			return;
		}
	}
}

/*
 * mc_rt_write_disabled_form where the arch says which one byte a hook's live
 * forms differ in (arch.h's live_opcode): the disabled form is the
 * call with that byte changed, and that byte is the head.  The site's
 * len bytes are code: classification read them.
 */
static int write_opcode_form(const struct rt_image *img, struct rt_site *s,
			     bool was_call)
{
	uint8_t form[MC_MAX_SITE_LEN], test;
	unsigned op;

	if (!mc_rt_encode_hook(img, s, form))	/* no live form: as below */
		return was_call ? write_code(site_at(s), s->neutral, s->len) :
		       MCOUNT_OK;
	op = s->arch->live_opcode(s->arch, s->len,
				  s->style == MCOUNT_STYLE_PAD, &test);
	form[op] = test;
	s->head = (int8_t)op;
	s->head_len = 1;
	if (mc_bytes_equal((const uint8_t *)site_at(s), form, s->len))
		return MCOUNT_OK;
	return write_code(site_at(s), form, s->len);
}

int mc_rt_write_disabled_form(const struct rt_image *img, struct rt_site *s,
			      bool was_call)
{
	uint8_t on[2 * MC_MAX_SITE_LEN], off[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	s->head_len = 0;
	if (s->arch && s->arch->live_store_max && s->arch->live_opcode &&
	    !live_prelude(s))
		return write_opcode_form(img, s, was_call);
	if (s->arch && s->arch->live_store_max &&
	    mc_rt_live_forms(img, s, on, off, &pre)) {
		uintptr_t from = site_at(s) - pre;

		find_head(s, on, off, pre + s->len, from);
		if (s->head_len &&
		    !mc_bytes_equal((const uint8_t *)from, off, pre + s->len))
			return write_code(from, off, pre + s->len);
		if (s->head_len)
			return MCOUNT_OK;
	}
	if (!was_call)
		return MCOUNT_OK;
	return write_code(site_at(s), s->neutral, s->len);
}
