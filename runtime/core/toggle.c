/* SPDX-License-Identifier: MIT */
/*
 * toggle.c - turning sites on and off while the program runs, one
 * function, many, or all, in batches under the patching lock; and
 * verifying that every site still holds what it should.
 */
#include "core.h"

/* mc_rt_image_sites for every image: MCOUNT_OK, or the first error. */
static int images_ready(void)
{
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		int err = mc_rt_image_sites(&mc_rt_images[k]);

		if (err)
			return err;
	}
	return MCOUNT_OK;
}

/*
 * The site of the function whose bytes are [code, hi) in `img`: the
 * first one inside them, or a pad that starts before them.
 */
static struct rt_site *find_site_in(struct rt_image *img, uintptr_t code,
				    uintptr_t hi)
{
	size_t i;

	if (!img->sites || hi <= img->lo || code > img->hi)
		return NULL;
	i = lower_bound(img, code);
	/* a pad may start before the entry (M > 0): the site before it */
	if (i > 0 && site_at(&img->sites[i - 1]) >= code &&
	    site_at(&img->sites[i - 1]) < hi)
		i--;
	else if (i == img->nsites || img->sites[i].addr >= hi)
		return NULL;
	return &img->sites[i];
}

/*
 * The site of the function at `func`, in whichever image holds it: the
 * first one inside its symbol when the platform knows it, else the
 * first within max_entry_offset.  *start receives the function start
 * the callback will report, *img the site's image.
 */
static struct rt_site *find_site(uintptr_t func, uintptr_t *start,
				 struct rt_image **img)
{
	uintptr_t lo = func, code;
	size_t size;

	/*
	 * [code, code + size): the function's bytes.  An ARM Thumb
	 * function's address and symbol are odd; its bytes start one below.
	 */
	if (!mc_plat_func_bounds(func, &lo, &size)) {
		lo = func;
		size = MC_RT_ARCH->max_entry_offset + 1;
	}
	code = lo & ~(uintptr_t)MC_RT_ISA_BITS;
	for (size_t k = 0; k < mc_rt_nimages; k++) {
		struct rt_site *s = find_site_in(&mc_rt_images[k], code,
						 code + size);

		if (s) {
			*img = &mc_rt_images[k];
			*start = lo;
			return s;
		}
	}
	return NULL;
}

/*
 * Store the head word of `s`'s live form `on` or off: the form's bytes
 * inside the word, the code around them as it is, in one store of the
 * word's own size and alignment, which the CPU makes whole.  Another
 * thread running the site fetches the old instruction or the new one.
 * A head of one byte may go through the platform's poke instead: one
 * byte is whole whichever way it is copied.
 */
static int store_head(const struct rt_image *img, struct rt_site *s,
		      bool on)
{
	uint8_t on_b[2 * MC_MAX_SITE_LEN], off_b[2 * MC_MAX_SITE_LEN];
	union {
		uint8_t b[8];
		uint16_t h;
		uint32_t w;
		uint64_t d;
	} word;
	const uint8_t *form;
	uintptr_t span, at = site_at(s) + (intptr_t)s->head;
	unsigned pre;

	if (!mc_rt_live_forms(img, s, on_b, off_b, &pre))
		return MCOUNT_ERANGE;
	span = site_at(s) - pre;
	form = on ? on_b : off_b;
	if (s->head_len > sizeof(word.b))	/* no store that wide below */
		return MCOUNT_ENOTLIVE;
	mc_bytes_copy(word.b, (const uint8_t *)at, s->head_len);
	for (unsigned i = 0; i < s->head_len; i++)
		if (at + i >= span && at + i < span + pre + s->len)
			word.b[i] = form[at + i - span];
	if (s->head_len == 1 && mc_rt_text_poke(at, word.b[0])) {
		note_written(at, 1);
		return MCOUNT_OK;
	}
	if (!text_open(at, s->head_len, false))
		return MCOUNT_EPROTECT;
	switch (s->head_len) {
	case 1:
		__atomic_store_n((uint8_t *)at, word.b[0], __ATOMIC_RELAXED);
		break;
	case 2:
		__atomic_store_n((uint16_t *)at, word.h, __ATOMIC_RELAXED);
		break;
	case 4:
		__atomic_store_n((uint32_t *)at, word.w, __ATOMIC_RELAXED);
		break;
#if UINTPTR_MAX > 0xffffffffu
	case 8:
		__atomic_store_n((uint64_t *)at, word.d, __ATOMIC_RELAXED);
		break;
#endif
	default:
		return MCOUNT_ENOTLIVE;
	}
	note_written(at, s->head_len);
	return MCOUNT_OK;
}

/* Why `s`, whose state is to change, cannot be toggled while threads run. */
static int not_live_why(const struct rt_image *img,
			const struct rt_site *s)
{
	uint8_t on[2 * MC_MAX_SITE_LEN], off[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	return mc_rt_live_forms(img, s, on, off, &pre) ? MCOUNT_ENOTLIVE :
	       MCOUNT_ERANGE;
}

/*
 * Keep `start` as enabled site `s`'s function (in `img`), before the
 * call to the dispatcher can happen.  The image's funcs are made when
 * its first site is enabled: a boot that enables nothing never touches
 * them.
 */
static int note_func(struct rt_image *img, const struct rt_site *s,
		     uintptr_t start)
{
	uintptr_t *funcs = img->funcs;

	if (!funcs) {
		funcs = mc_plat_alloc(img->nsites * sizeof(*funcs));
		if (!funcs)
			return MCOUNT_ENOMEM;
		for (size_t i = 0; i < img->nsites; i++)
			funcs[i] = 0;
		__atomic_store_n(&img->funcs, funcs, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&funcs[s - img->sites], start, __ATOMIC_RELEASE);
	return MCOUNT_OK;
}

/* `s` is now on or off: its state and the image's count say so. */
static void mark_site(struct rt_image *img, struct rt_site *s, bool on)
{
	s->state = on ? MCOUNT_SITE_ENABLED : MCOUNT_SITE_NOP;
	if (on)
		img->counts.enabled++;
	else
		img->counts.enabled--;
}

/*
 * A site without a live form, rewritten whole with plain stores: only
 * while no other thread can be running it (mc_plat_quiescent).
 */
static int set_site_quiescent(struct rt_image *img, struct rt_site *s, bool on,
			      uintptr_t start)
{
	uint8_t call[MC_MAX_SITE_LEN];
	int err;

	if (!mc_plat_quiescent())
		return not_live_why(img, s);
	if (on && !mc_rt_encode_hook(img, s, call))
		return MCOUNT_ERANGE;
	err = on ? note_func(img, s, start) : MCOUNT_OK;
	if (err)
		return err;
	err = write_code(site_at(s), on ? call : s->neutral, s->len);
	if (err)
		return err;
	mark_site(img, s, on);
	return 1;
}

/*
 * Turn `s` on (calling back with `start` as the function) or off.  1 if
 * its code changed, 0 if it already was so, else an error.  The caller
 * holds the patching lock and has opened a batch.
 */
static int set_site(struct rt_image *img, struct rt_site *s, bool on,
		    uintptr_t start)
{
	int err;

	if (s->state == MCOUNT_SITE_REFUSED)
		return MCOUNT_EREFUSED;
	if ((s->state == MCOUNT_SITE_ENABLED) == on)
		return 0;
	if (!s->head_len)
		return set_site_quiescent(img, s, on, start);
	/* the dispatcher must see func before the call can happen */
	err = on ? note_func(img, s, start) : MCOUNT_OK;
	if (err)
		return err;
	err = store_head(img, s, on);
	if (err)
		return err;
	mark_site(img, s, on);
	return 1;
}

/*
 * A batch: every change between batch_begin() and batch_end() is made
 * visible to instruction fetch once, with one synchronisation of the
 * other threads' cores, under the patching lock taken here.  The traced
 * path takes no lock: it reads an image's records, which never change
 * while the image is published once made (before its funcs, which the
 * traced path reads first: image_sites), and a site's func, which is
 * set before its call is written.
 */
static int batch_begin(void)
{
	mc_plat_lock();
	if (!mc_rt_booted) {
		mc_plat_unlock();
		return MCOUNT_ENOTBOOTED;
	}
	if (!mc_plat_sync_ready(MC_RT_LIVE_SYNC_CORE)) {
		mc_plat_unlock();
		return MCOUNT_ESYNC;
	}
	mc_rt_flush_begin();
	return MCOUNT_OK;
}

static void batch_end(bool changed)
{
	mc_rt_flush_end();
	mc_rt_text_close();
	if (changed)
		mc_plat_sync_cores();
	mc_plat_unlock();
}

static int set_func(uintptr_t func, bool on)
{
	struct rt_image *img;
	struct rt_site *s;
	uintptr_t start;
	int r = batch_begin();

	if (r)
		return r;
	r = images_ready();
	s = r ? NULL : find_site(func, &start, &img);
	r = r ? r : s ? set_site(img, s, on, start) : MCOUNT_ENOSITE;
	batch_end(r > 0);
	return r < 0 ? r : MCOUNT_OK;
}

int mcount_enable(unsigned long func)
{
	return set_func((uintptr_t)func, true);
}

int mcount_disable(unsigned long func)
{
	return set_func((uintptr_t)func, false);
}

/*
 * What a batch has done so far: sites now in the state asked for, the
 * first error met, whether any code changed.
 */
struct tally {
	size_t done;
	int err;
	bool changed;
};

/* Count set_site's answer `r`; false once the batch must stop. */
static bool tally_site(struct tally *t, int r)
{
	t->changed |= r > 0;
	if (r >= 0)
		t->done++;
	else if (!t->err)
		t->err = r;
	return r != MCOUNT_EPROTECT;
}

static int tally_result(const struct tally *t)
{
	if (t->err)
		return t->err;
	return t->done > 0x7fffffff ? 0x7fffffff : (int)t->done;
}

/*
 * Many functions in one batch.  Every function must have a site, or
 * nothing changes (MCOUNT_ENOSITE), unless `skip_missing` (a name
 * pattern matches functions without hooks too).  Returns how many of
 * them are now in the state asked for, or the first error met on the
 * way (the other sites are still changed).
 */
int mc_rt_set_many(const uintptr_t *funcs, size_t n, bool on,
		   bool skip_missing)
{
	struct rt_image *img;
	uintptr_t start;
	struct tally t = { 0 };
	int r;

	/* a list that is not there names no function */
	if (n && !funcs)
		return MCOUNT_ENOSITE;
	r = batch_begin();
	if (r)
		return r;
	r = images_ready();
	if (r) {
		batch_end(false);
		return r;
	}
	for (size_t i = 0; i < n && !skip_missing; i++) {
		if (!find_site(funcs[i], &start, &img)) {
			batch_end(false);
			return MCOUNT_ENOSITE;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct rt_site *s = find_site(funcs[i], &start, &img);

		if (s && !tally_site(&t, set_site(img, s, on, start)))
			break;
	}
	batch_end(t.changed);
	return tally_result(&t);
}

int mcount_enable_many(const unsigned long *funcs, size_t n)
{
	return mc_rt_set_many((const uintptr_t *)funcs, n, true, false);
}

int mcount_disable_many(const unsigned long *funcs, size_t n)
{
	return mc_rt_set_many((const uintptr_t *)funcs, n, false, false);
}

/* The function start a site's callback reports, when found by its site. */
static uintptr_t site_function(const struct rt_site *s)
{
	uintptr_t start;
	size_t size;

	if (mc_plat_func_bounds(site_at(s), &start, &size))
		return start;
	return site_at(s);
}

/*
 * Every site but the refused ones.  Returns how many are now in the
 * state asked for, or the first error met (MCOUNT_ENOTLIVE where a site
 * cannot be toggled while threads run; the others are still changed).
 */
static int set_all(bool on)
{
	struct tally t = { 0 };
	int r = batch_begin();
	bool go = true;

	if (r)
		return r;
	r = images_ready();
	if (r) {
		batch_end(false);
		return r;
	}
	for (size_t k = 0; k < mc_rt_nimages && go; k++) {
		struct rt_image *img = &mc_rt_images[k];
		struct rt_site *sites = img->sites;

		for (size_t i = 0; sites && i < img->nsites && go; i++) {
			if (sites[i].state == MCOUNT_SITE_REFUSED)
				continue;
			go = tally_site(&t, set_site(img, &sites[i], on, on ?
					site_function(&sites[i]) : 0));
		}
	}
	batch_end(t.changed);
	return tally_result(&t);
}

int mcount_enable_all(void)
{
	return set_all(true);
}

int mcount_disable_all(void)
{
	return set_all(false);
}

/*
 * The bytes `s` must hold in its current state, from `*from` on: its
 * live form in that state, or where it has none its neutral bytes.
 */
static unsigned expected_code(const struct rt_image *img,
			      const struct rt_site *s, uint8_t *code,
			      uintptr_t *from)
{
	uint8_t other[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	if (s->head_len) {
		if (s->state == MCOUNT_SITE_ENABLED ?
		    !mc_rt_live_forms(img, s, code, other, &pre) :
		    !mc_rt_live_forms(img, s, other, code, &pre))
			return 0;
		*from = site_at(s) - pre;
		return pre + s->len;
	}
	if (s->state != MCOUNT_SITE_NOP)
		return 0;
	mc_bytes_copy(code, s->neutral, s->len);
	*from = site_at(s);
	return s->len;
}

bool mc_rt_image_intact(const struct rt_image *img)
{
	for (size_t i = 0; img->sites && i < img->nsites; i++) {
		const struct rt_site *s = &img->sites[i];
		uint8_t want[2 * MC_MAX_SITE_LEN];
		uintptr_t from = site_at(s);
		unsigned n;

		if (s->state == MCOUNT_SITE_REFUSED)
			continue;
		n = expected_code(img, s, want, &from);
		if (!n || !mc_bytes_equal((const uint8_t *)from, want, n))
			return false;
	}
	return true;
}

/* 1 if `s` (in `img`) no longer holds what it should, and is refused. */
static int verify_site(struct rt_image *img, struct rt_site *s)
{
	uint8_t want[2 * MC_MAX_SITE_LEN];
	uintptr_t from = site_at(s);
	unsigned n;

	if (s->state == MCOUNT_SITE_REFUSED)
		return 0;
	n = expected_code(img, s, want, &from);
	if (n && mc_bytes_equal((const uint8_t *)from, want, n))
		return 0;
	if (s->state == MCOUNT_SITE_ENABLED)
		img->counts.enabled--;
	mc_rt_refuse(img, s, site_at(s), (const uint8_t *)site_at(s), s->len,
		     "changed since it was patched");
	return 1;
}

int mcount_verify(void)
{
	int changed = 0, err;

	mc_plat_lock();
	if (!mc_rt_booted) {
		mc_plat_unlock();
		return MCOUNT_ENOTBOOTED;
	}
	err = images_ready();
	for (size_t k = 0; k < mc_rt_nimages && !err; k++) {
		struct rt_image *img = &mc_rt_images[k];

		for (size_t i = 0; img->sites && i < img->nsites; i++)
			changed += verify_site(img, &img->sites[i]);
	}
	mc_plat_unlock();
	return err ? err : changed;
}
