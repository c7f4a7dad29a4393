/* SPDX-License-Identifier: MIT */
/*
 * boot.c - the boot pass over one image: each site of its table read,
 * classified (site.c) and put in its disabled form with plain stores,
 * while no thread may run the image's code.  The usual site, a hook
 * call like the one before it, is taken in runs without asking the
 * arch again (boot_calls_now); a prepatched program's sites likewise
 * (boot_disabled_now).  What the pass has learnt so far is one struct
 * boot_pass, made afresh for each image and passed down.
 */
#include "core.h"

/* bp->opcode_facts for a hook of `len` bytes that `arch` reads. */
static void know_opcode(struct boot_pass *bp, const struct mc_arch *arch,
			unsigned len)
{
	if (bp->opcode_facts.arch == arch && bp->opcode_facts.len == len)
		return;
	bp->opcode_facts.arch = arch;
	bp->opcode_facts.len = (uint8_t)len;
	bp->opcode_facts.now = arch->live_store_max && arch->live_opcode &&
			   !arch->live_prelude;
	if (bp->opcode_facts.now)
		bp->opcode_facts.op =
			(uint8_t)arch->live_opcode(arch, len, false,
						   &bp->opcode_facts.test);
}

/*
 * The boot pass's short way for the usual site: a hook call, just
 * classified (its bytes a call to a hook stub, every one read), where
 * the arch says which one byte its live forms differ in and its call
 * reaches the trampoline with no thunk.  Its disabled form is written
 * now, while its bytes and its entry are in the cache, rather than in
 * a second pass over every site: the call to the trampoline with that
 * byte changed, as write_opcode_form writes it.  It cannot already
 * hold that form (its opcode is a call's).  True if written and
 * counted; false leaves the site to write_disabled_forms, which also
 * says why when it cannot be written.
 */
static bool write_call_now(struct boot_pass *bp, struct rt_site *s)
{
	uint8_t form[MC_MAX_SITE_LEN];
	uintptr_t tramp;

	if (s->style == MCOUNT_STYLE_PAD)
		return false;
	know_opcode(bp, s->arch, s->len);
	if (!bp->opcode_facts.now)
		return false;
	tramp = trampoline(s);
	if (!tramp || !mc_encode_call(s->arch, form, s->len, site_at(s), tramp))
		return false;
	form[bp->opcode_facts.op] = bp->opcode_facts.test;
	if (!text_open(site_at(s), s->len, true))
		return false;
	/*
	 * Everything but the store first: a byte store may alias any of
	 * it, so that the compiler would load it all again after.  No
	 * note_written: image_boot flushes the span of every site once.
	 */
	s->head = (int8_t)bp->opcode_facts.op;
	s->head_len = 1;
	s->found = FOUND_WRITTEN;
	bp->img->counts.patched++;
	bp->wrote_now = true;
	mc_bytes_copy((uint8_t *)site_at(s), form, s->len);
	return true;
}

#ifdef MC_RT_CALL_REL32
/* A call's displacement (MC_RT_CALL_REL32: its last four bytes). */
static uint32_t rel32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_rel32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Does the call `len` bytes at `at` end reach `to`?  (x86_64: +-2 GiB) */
static bool rel32_reaches(uint32_t rel, uintptr_t at, size_t len,
			  uintptr_t to)
{
	return at + len + (uintptr_t)(intptr_t)(int32_t)rel == to;
}

/*
 * Keep site `s`'s call (`was`, its bytes before write_call_now wrote
 * over them) as the template of a run, if it and its written form have
 * the shape MC_RT_CALL_REL32 says, its one-byte head before the
 * displacement.
 */
static void keep_rel32_run(struct boot_pass *bp, const struct rt_site *s,
			   const uint8_t *was)
{
	uintptr_t at = site_at(s);
	size_t len = s->len;
	const uint8_t *form = (const uint8_t *)at;

	bp->rel32_run.ok = len > 4 && len <= MC_MAX_SITE_LEN &&
		       bp->last_call.op < len - 4 &&
		       rel32_reaches(rel32_at(was + len - 4), at, len,
				     (uintptr_t)bp->last_call.target) &&
		       rel32_reaches(rel32_at(form + len - 4), at, len,
				     bp->last_call.tramp);
	if (!bp->rel32_run.ok)
		return;
	mc_bytes_copy(bp->rel32_run.call, was, len);
	mc_bytes_copy(bp->rel32_run.form, form, len);
}
#endif

/*
 * Check one site, neutralise it if it is a call.  *end is where the
 * previous accepted site's bytes end: two entries of one pad (its first
 * NOP and the one at the entry, say) would patch the same bytes twice.
 * A hook call is written here when it can be (write_call_now).  True
 * if disable_site has something to do for it: accepted, and not
 * already in its disabled form (counted here, then).
 */
static bool boot_site(struct boot_pass *bp, struct rt_site *s, uintptr_t *end)
{
	size_t n = code_avail(s->addr);
	const uint8_t *p = (const uint8_t *)s->addr;
	const char *why;
	bool is_nop;

	if (n == 0) {
		mc_rt_refuse(bp->img, s, s->addr, NULL, 0,
			     "not in the program's code");
		return false;
	}
	if (n > MC_MAX_SITE_LEN)
		n = MC_MAX_SITE_LEN;
	why = mc_rt_classify(bp, s, p, n, &is_nop);
	if (!why && site_at(s) < *end) {
		bp->img->counts.duplicates++;
		why = "the same hook as the table's previous entry";
	}
	if (why) {
		/* where the bad bytes are: a pad's slot, if it got that far */
		size_t off = s->at_off;

		mc_rt_refuse(bp->img, s, s->addr + off, p + off, n - off, why);
		return false;
	}
	*end = site_at(s) + s->len;
	s->state = MCOUNT_SITE_NOP;
	if (s->found == FOUND_DISABLED) {	/* classify_disabled did it all */
		bp->img->counts.nops++;
		return false;
	}
	s->found = is_nop ? FOUND_NOP : FOUND_CALL;
	if (is_nop)
		return true;
#ifdef MC_RT_CALL_REL32
	uint8_t was[MC_MAX_SITE_LEN];

	mc_bytes_copy(was, p + s->at_off, s->len);
#endif
	if (!write_call_now(bp, s))
		return true;
	if (s->arch == bp->last_call.arch && s->len == bp->last_call.len &&
	    s->style == bp->last_call.style) {
		bp->last_call.tramp = trampoline(s);
		bp->last_call.op = bp->opcode_facts.op;
		bp->last_call.test = bp->opcode_facts.test;
#ifdef MC_RT_CALL_REL32
		keep_rel32_run(bp, s, was);
#endif
	}
	return false;
}

/*
 * Second pass, once every site's style is known (guess_nop_styles):
 * write the disabled form of each accepted site the first pass did not
 * write (write_call_now).
 */
static void disable_site(struct rt_image *img, struct rt_site *s)
{
	if (s->state == MCOUNT_SITE_REFUSED || s->found == FOUND_DISABLED ||
	    s->found == FOUND_WRITTEN)
		return;
	if (mc_rt_write_disabled_form(img, s, s->found == FOUND_CALL) !=
	    MCOUNT_OK) {
		mc_rt_refuse(img, s, s->addr, (const uint8_t *)s->addr, s->len,
			     "text not writable");
		return;
	}
	if (s->found != FOUND_CALL) {
		img->counts.nops++;
		img->counts.pads += s->style == MCOUNT_STYLE_PAD;
	} else {
		img->counts.patched++;
	}
}

/*
 * A site found as a NOP does not say whether it was an fentry or an
 * mcount hook.  Programs are built one way throughout, so give such
 * sites the style of the calls we did see (STYLE_DEFAULT if none).
 * Only an image with such sites pays for the count.
 */
static void guess_nop_styles(struct rt_site *sites, size_t nsites)
{
	size_t fentry = 0, mcount = 0;
	uint8_t style;

	for (size_t i = 0; i < nsites; i++) {
		if (sites[i].style == MCOUNT_STYLE_MCOUNT)
			mcount++;
		else if (sites[i].state != MCOUNT_SITE_REFUSED &&
			 sites[i].style == MCOUNT_STYLE_FENTRY)
			fentry++;
	}
	style = mcount > fentry ? MCOUNT_STYLE_MCOUNT :
		fentry > mcount ? MCOUNT_STYLE_FENTRY : STYLE_DEFAULT;
	for (size_t i = 0; i < nsites; i++)
		if (sites[i].style == STYLE_UNKNOWN)
			sites[i].style = style;
}

#ifndef MC_RT_SITE_HOOKS
/*
 * For boot_calls_now: whether the bytes at `addr` are a call of `len`
 * bytes to `target`, exactly as the run's first one decoded, and if so
 * its call to `tramp` in `form`.
 */
static inline bool run_call_form(const struct boot_pass *bp, uint8_t *form,
				 const struct mc_arch *arch, uintptr_t addr,
				 uint8_t len, uintptr_t target, uintptr_t tramp)
{
#ifdef MC_RT_CALL_REL32
	if (bp->rel32_run.ok) {
		const uint8_t *p = (const uint8_t *)addr;
		uint32_t rel = (uint32_t)(tramp - (addr + len));

		for (unsigned j = 0; j < len - 4u; j++)
			if (p[j] != bp->rel32_run.call[j])
				return false;
		if (!rel32_reaches(rel32_at(p + len - 4), addr, len, target) ||
		    !rel32_reaches(rel, addr, len, tramp))
			return false;
		mc_bytes_copy(form, bp->rel32_run.form, len);
		put_rel32(form + len - 4, rel);
		return true;
	}
#else
	(void)bp;
#endif
	struct mc_site d = mc_decode_site(arch, (const uint8_t *)addr,
					  MC_MAX_SITE_LEN, addr);

	return d.kind == MC_SITE_CALL && d.target == target && d.len == len &&
	       mc_encode_call(arch, form, len, addr, tramp);
}
#endif

/*
 * boot_site for a run of the usual site, where the backend asks nothing
 * of a site's place (no MC_RT_SITE_* hook): from tab[i] on, each entry
 * whose bytes decode exactly as the call boot_site last classified in
 * full and wrote (last_call), so that classify's and write_call_now's
 * answers are its own, and whose bytes lie in the open window at least
 * MC_MAX_SITE_LEN before its end (so that the decoder sees what
 * classify would have).  Each such site is read, matched, written and
 * filled into sites[*live] in one step (with `sites` NULL, not filled:
 * the record they share, but for addr, is *form_of), in locals: the
 * indirect calls to the arch would otherwise make the compiler load
 * every fact again for each site.  Returns the first entry it left to
 * boot_site.  Only once such a call was written (bp->last_call.tramp).
 */
static size_t boot_calls_now(struct boot_pass *bp, struct rt_site *sites,
			     size_t *live, const uintptr_t *tab, size_t step,
			     size_t i, size_t n, uintptr_t *end,
			     struct rt_site *form_of)
{
#ifdef MC_RT_SITE_HOOKS
	(void)bp;
	(void)sites;
	(void)form_of;
	(void)live;
	(void)tab;
	(void)step;
	(void)n;
	(void)end;
	return i;
#else
	const struct mc_arch *arch = MC_RT_ARCH;
	const uintptr_t tramp = bp->last_call.tramp;
	const uintptr_t target = bp->last_call.target;
	const uint8_t *const neutral = bp->last_call.neutral;
	const uint8_t len = bp->last_call.len, op = bp->last_call.op;
	const uint8_t test = bp->last_call.test, style = bp->last_call.style;
	/* the lowest and highest address such a site may start at */
	uintptr_t e = *end > mc_rt_text.open.lo ? *end : mc_rt_text.open.lo;
	const uintptr_t top = mc_rt_text.open.hi - MC_MAX_SITE_LEN;
	size_t k = *live;

	*form_of = (struct rt_site){
		.neutral = neutral, .arch = arch, .len = len, .style = style,
		.state = MCOUNT_SITE_NOP, .found = FOUND_WRITTEN,
		.head = (int8_t)op, .head_len = 1 };
	if (mc_rt_text.open.hi - mc_rt_text.open.lo < MC_MAX_SITE_LEN)
		return i;
	for (const uintptr_t *t = tab + i * step; i < n; i++, k++, t += step) {
		uintptr_t addr = *t;
		uint8_t form[MC_MAX_SITE_LEN];

		if (addr < e || addr > top)
			break;
		if (!run_call_form(bp, form, arch, addr, len, target, tramp))
			break;
		form[op] = test;
		if (sites) {	/* else the run's form says it (keep_lazily) */
			sites[k] = *form_of;
			sites[k].addr = addr;
		}
		e = addr + len;
		mc_bytes_copy((uint8_t *)addr, form, len);
	}
	if (k > *live)
		bp->expect_disabled = false;
	bp->img->counts.patched += k - *live;
	*live = k;
	*end = e;
	return i;
#endif
}

/*
 * The prepatched twin of boot_calls_now, for a boot that keeps its
 * sites as runs (keep_lazily): a run of sites in their disabled form
 * (`recordmcount --finalize --prepatch`), each matched byte for byte
 * against the one boot_site last took whole (classify_disabled), every
 * byte before the displacement equal and the displacement reaching the
 * same trampoline, so that classify's answers are that site's, and
 * nothing is written.  Backends as boot_calls_now's, with
 * MC_RT_CALL_REL32.
 */
#ifdef MC_RT_DISABLED_RUNS
/* Keep site `s`, just taken whole as a disabled form, as a run's first. */
static void keep_disabled_run(struct boot_pass *bp, const struct rt_site *s)
{
	const uint8_t *p = (const uint8_t *)s->addr;
	size_t len = s->len;

	bp->dis_run.ok = s->found == FOUND_DISABLED && s->at_off == 0 &&
		     len > 4 && len <= MC_MAX_SITE_LEN &&
		     code_avail(s->addr) >= MC_MAX_SITE_LEN;
	if (!bp->dis_run.ok)
		return;
	mc_bytes_copy(bp->dis_run.bytes, p, len);
	bp->dis_run.tramp = s->addr + len +
			(uintptr_t)(intptr_t)(int32_t)rel32_at(p + len - 4);
	bp->dis_run.form = *s;
}

/*
 * From tab[i] on (a table of live entries in order), each site that
 * holds the run's disabled form, aimed at the same trampoline, with
 * MC_MAX_SITE_LEN bytes readable from it (what classify would have
 * read) and past the previous site's bytes (*end): counted as a NOP
 * site, nothing written.  Returns the first entry it left to boot_site.
 */
static size_t boot_disabled_now(struct boot_pass *bp, const uintptr_t *tab,
				size_t i, size_t n,
				uintptr_t *end)
{
	const size_t len = bp->dis_run.form.len;
	const uintptr_t tramp = bp->dis_run.tramp, lo = mc_rt_text.code.lo;
	const uintptr_t top = mc_rt_text.code.hi - MC_MAX_SITE_LEN;
	uintptr_t e = *end;
	size_t from = i;

	if (mc_rt_text.code.hi - mc_rt_text.code.lo < MC_MAX_SITE_LEN)
		return i;
	for (; i < n; i++) {
		uintptr_t addr = tab[i];
		const uint8_t *p = (const uint8_t *)addr;
		unsigned j;

		if (addr < e || addr < lo || addr > top)
			break;
		for (j = 0; j < len - 4 && p[j] == bp->dis_run.bytes[j]; j++)
			;
		if (j < len - 4 ||
		    !rel32_reaches(rel32_at(p + len - 4), addr, len, tramp))
			break;
		e = addr + len;
	}
	bp->img->counts.nops += i - from;
	*end = e;
	return i;
}
#endif

/*
 * From tab[i * step] on, the runs of sites boot_calls_now and
 * boot_disabled_now take whole, without boot_site: *i becomes the
 * first entry they left.  MCOUNT_ENOMEM if records were needed and
 * there is no storage.
 */
static int boot_runs(struct boot_pass *bp, const uintptr_t *tab, size_t step,
		     size_t *i, size_t n, size_t *live, uintptr_t *end)
{
	struct rt_image *img = bp->img;
	struct rt_site form;

	if (bp->last_call.tramp) {
		size_t from = *live;

		*i = boot_calls_now(bp, img->sites, live, tab, step, *i, n, end,
				    &form);
		if (!img->sites && *live > from &&
		    !mc_rt_keep_lazily(img, &form, from, *live - from))
			return MCOUNT_ENOMEM;
		if (*i == n)
			return MCOUNT_OK;
	}
#ifdef MC_RT_DISABLED_RUNS
	if (bp->dis_run.ok && !img->sites) {	/* step 1, site i is tab[i] */
		size_t from = *i;

		*i = boot_disabled_now(bp, tab, *i, n, end);
		if (*i > from && !mc_rt_keep_lazily(img, &bp->dis_run.form,
						    from, *i - from))
			return MCOUNT_ENOMEM;
		*live += *i - from;
	}
#endif
	return MCOUNT_OK;
}

/*
 * The boot pass over the addresses tab[0], tab[step], ... tab[(n - 1) *
 * step], in order: each one classified and written as it is read, runs
 * of the usual site by boot_calls_now, any other by boot_site.  Either
 * a table in order (table_in_order; step 1), whose cleared entries are
 * skipped here, or the sites load_table sorted (the addr of each; step
 * the site's size in words), each of which is filled again in its own
 * place.  With img->sites NULL (a table in order with no cleared entry:
 * site i is tab[i]), the sites go into runs (keep_lazily) for as long
 * as each is final after this pass; else into img->sites from the
 * first on.  Fills img->nsites, counts in *to_write the sites boot_site
 * left for the second pass and in *unknown those whose style the calls
 * decide.  MCOUNT_ENOMEM if records were needed and there is no
 * storage (every site written so far holds its disabled form).
 */
static int boot_in_order(struct boot_pass *bp, const uintptr_t *tab,
			 size_t step, size_t n, size_t *to_write,
			 size_t *unknown)
{
	struct rt_image *img = bp->img;
	uintptr_t end = 0;
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		struct rt_site one, *s;
		uintptr_t addr;
		bool left;

		if (boot_runs(bp, tab, step, &i, n, &live, &end))
			return MCOUNT_ENOMEM;
		if (i == n)
			break;
		addr = tab[i * step];
		if (is_cleared(addr))
			continue;
		s = img->sites ? &img->sites[live] : &one;
		*s = (struct rt_site){ .addr = addr, .style = STYLE_UNKNOWN };
		left = boot_site(bp, s, &end);
		if (!img->sites && !left && img->nruns &&
		    same_form(&img->runs[img->nruns - 1].form, s))
			img->runs[img->nruns - 1].count++;	/* the usual case */
		else if (!img->sites &&
			 !(left ? mc_rt_boot_eager(img, live) :
			   mc_rt_keep_lazily(img, s, live, 1)))
			return MCOUNT_ENOMEM;
		if (left && s == &one) {
			img->sites[live] = one;
			s = &img->sites[live];
		}
		*to_write += left;
		*unknown += s->style == STYLE_UNKNOWN;
#ifdef MC_RT_DISABLED_RUNS
		if (!img->sites)
			keep_disabled_run(bp, s);
#endif
		live++;
	}
	img->nsites = live;
	return MCOUNT_OK;
}

/*
 * With every site classified and every style known: the thunks its
 * calls need, then each accepted site the classifying pass left gets
 * its disabled form.
 */
static void write_disabled_forms(struct rt_image *img)
{
	mc_rt_image_thunks(img);
	for (size_t i = 0; i < img->nsites; i++)
		disable_site(img, &img->sites[i]);
}

/* A fresh boot pass over `img`: nothing known yet of its sites. */
static void pass_start(struct boot_pass *bp, struct rt_image *img)
{
	bp->img = img;
	bp->form_facts.arch = NULL;
	bp->opcode_facts.arch = NULL;
	bp->last_call.arch = NULL;
	/* another image's stub is no hook here */
	bp->last_call.tramp = 0;
#ifdef MC_RT_CALL_REL32
	bp->rel32_run.ok = false;
#endif
#ifdef MC_RT_DISABLED_RUNS
	bp->dis_run.ok = false;
#endif
	bp->wrote_now = false;
	bp->expect_disabled = false;
}

/*
 * Classify the sites of the table [tab, tab + n) into `img` and write
 * each one's disabled form with plain stores: no thread may run the
 * image's code yet (the program's before main, a library's before
 * dlopen returns).  A hook call whose call reaches its trampoline is
 * written as soon as it is classified (write_call_now); NOPs, whose
 * style the calls decide, and calls that need a thunk are written in a
 * second pass once every style is known.  The whole span written is
 * flushed once at the end; where every site already holds its form,
 * nothing is written.
 */
int mc_rt_image_boot(struct rt_image *img, const uintptr_t *tab, size_t n)
{
	bool lazy = mc_rt_table_lazy(tab, n);
	struct rt_site *sites = NULL;
	size_t to_write = 0, unknown = 0;
	struct boot_pass bp;
	int err = MCOUNT_OK;

	if (!lazy) {
		sites = mc_plat_alloc(n ? n * sizeof(*sites) : 1);
		if (!sites)
			return MCOUNT_ENOMEM;
	}
	pass_start(&bp, img);
	mc_rt_text.whole = true;
	img->sites = sites;
	img->tab = tab;
	img->ntab = n;
	img->nruns = 0;
	mc_rt_flush_begin();
	if (lazy || mc_rt_table_in_order(tab, n)) {
		img->counts.sites = n;	/* what boot_eager makes room for */
		err = boot_in_order(&bp, tab, 1, n, &to_write, &unknown);
		img->counts.sites = img->nsites;
	} else {
		img->counts.sites = mc_rt_load_table(img, sites, tab, n);
		err = boot_in_order(&bp, &sites[0].addr,
				    sizeof(*sites) / sizeof(sites[0].addr),
				    img->nsites, &to_write, &unknown);
	}
	if (!err && unknown)
		guess_nop_styles(img->sites, img->nsites);
	if (!err && to_write)	/* else all written or as --prepatch left them */
		write_disabled_forms(img);
	/* the span of every site holds what the pass wrote */
	if (!err && bp.wrote_now) {
		uintptr_t lo, hi;

		mc_rt_image_span(img, &lo, &hi);
		note_written(lo, hi - lo);
	}
	mc_rt_flush_end();
	mc_rt_text_close();
	mc_rt_text.whole = false;
	return err;
}
