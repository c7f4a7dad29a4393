/*
 * engine.c - the portable half of the runtime: read the __mcount_loc
 * table, classify each site, NOP it, and later turn single sites into
 * calls to the trampoline and back.
 *
 * Freestanding: it uses arch/ and the hooks in platform.h, nothing else
 * (no libc, no allocation of its own).  Every byte read or written at a
 * site goes through the architecture's decode_site, site_neutral and
 * encode_call; which architecture, and which hook stubs exist, comes
 * from the backend platform.h selects (runtime/<arch>/backend.h).
 *
 * A site is accepted only when its bytes are what the linker leaves for
 * a hook: a call to one of the backend's stubs (__fentry__, mcount, ...),
 * a call through a pointer that holds one of them, or already neutral.
 * Anything else is refused, reported and never written: a wrong table
 * must not become corrupted code.
 */
#include <mcount.h>

#include "platform.h"

#define STYLE_UNKNOWN 0xff	/* a NOP site, until guess_nop_styles() */

/* The style of sites whose bytes do not tell: fentry if there is one. */
#ifdef MC_RT_FENTRY_STUB
#define STYLE_DEFAULT MCOUNT_STYLE_FENTRY
#else
#define STYLE_DEFAULT MCOUNT_STYLE_MCOUNT
#endif

struct rt_site {
	uintptr_t addr;
	uintptr_t func;		/* function start, set when enabled */
	const uint8_t *neutral;	/* `len` bytes that disable the hook */
	uint8_t len;
	uint8_t style;		/* enum mcount_style */
	uint8_t state;		/* enum mcount_state */
};

/* The table, placed by lds/mcount.lds.  Weak: absent means "no table". */
extern const uintptr_t __start_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;
extern const uintptr_t __stop_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;

static struct rt_site *sites;
static size_t nsites;
static struct mcount_counts counts;
static bool booted;
static mcount_callback_t callback;

/* ---- sorting, without libc --------------------------------------------- */

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

/* Heapsort: O(n log n), no recursion, no scratch memory. */
static void sort_sites(struct rt_site *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		site_swap(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}

/* Index of the first site with addr >= a (nsites if none). */
MC_RT_NOTRACE static size_t lower_bound(uintptr_t a)
{
	size_t lo = 0, hi = nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sites[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- classifying a site at boot ---------------------------------------- */

static const char *hook_style(uintptr_t target, uint8_t *style)
{
#ifdef MC_RT_FENTRY_STUB
	if (target == (uintptr_t)&MC_RT_FENTRY_STUB) {
		*style = MCOUNT_STYLE_FENTRY;
		return NULL;
	}
#endif
#ifdef MC_RT_MCOUNT_STUB
	if (target == (uintptr_t)&MC_RT_MCOUNT_STUB) {
		*style = MCOUNT_STYLE_MCOUNT;
		return NULL;
	}
#endif
	return "call to something other than " MC_RT_STUB_NAMES;
}

/* The pointer an indirect hook call would load (a GOT slot). */
static const char *slot_style(uintptr_t slot, uint8_t *style)
{
	uintptr_t target;

	if (mc_plat_mem_avail(slot, false) < sizeof(target))
		return "indirect call through an unmapped pointer";
	mc_bytes_copy((uint8_t *)&target, (const uint8_t *)slot,
		      sizeof(target));
	return hook_style(target, style);
}

/* The same, for a pointer `offset` bytes from the program's GOT. */
static const char *got_slot_style(uint64_t offset, uint8_t *style)
{
#if MC_RT_HAVE_GOT_BASE
	return slot_style(mc_rt_got_base() + (uintptr_t)offset, style);
#else
	(void)offset;
	(void)style;
	return "call through the GOT, whose address this backend does not know";
#endif
}

/*
 * The arch/ entry that reads the site at `addr`: MC_RT_ARCH, unless the
 * machine has two instruction sets that a table address does not tell
 * apart and the backend tells them from the code before the site
 * (MC_RT_SITE_ARCH: ARM and Thumb-2).  NULL when that code fits none.
 */
static const struct mc_arch *site_arch(uintptr_t addr)
{
#ifdef MC_RT_SITE_ARCH
	return MC_RT_SITE_ARCH(addr);
#else
	(void)addr;
	return MC_RT_ARCH;
#endif
}

static const char *classify_kind(struct rt_site *s, const struct mc_site *d,
				 bool *is_nop)
{
	*is_nop = false;
	switch (d->kind) {
	case MC_SITE_CALL:
		return hook_style((uintptr_t)d->target, &s->style);
	case MC_SITE_CALL_INDIRECT:
		return slot_style((uintptr_t)d->target, &s->style);
	case MC_SITE_CALL_GOT:
		return got_slot_style(d->target, &s->style);
	case MC_SITE_NOP:
		*is_nop = true;
		return NULL;
	default:
		return "not a hook call or NOP";
	}
}

/*
 * NULL if `s` is a hook we may patch; else why not.  Fills len, style
 * and the bytes that neutralise it.
 */
static const char *classify(struct rt_site *s, const uint8_t *p, size_t n,
			    bool *is_nop)
{
	const struct mc_arch *arch = site_arch(s->addr);
	struct mc_site d;
	const char *why;

	if (!arch)
		return "not preceded by the code its hook needs";
	d = arch->decode_site(p, n, s->addr);
	why = classify_kind(s, &d, is_nop);

	s->len = d.len;
	if (why)
		return why;
#ifdef MC_RT_SITE_STYLE
	s->style = MC_RT_SITE_STYLE(s->addr, s->style);
#endif
	if (arch->site_neutral)
		s->neutral = arch->site_neutral(&d);
	if (!s->neutral || d.len == 0 || d.len > MC_MAX_SITE_LEN)
		return "no neutral form for this hook";
	return NULL;
}

static void refuse(struct rt_site *s, const uint8_t *p, size_t n,
		   const char *why)
{
	s->state = MCOUNT_SITE_REFUSED;
	s->style = STYLE_DEFAULT;
	counts.refused++;
	mc_plat_report(s->addr, p, n, why);
}

/* Write `len` bytes of code; the caller closes the text window. */
static int write_code(uintptr_t addr, const uint8_t *code, unsigned len)
{
	if (mc_plat_text_open(addr, len) != 0)
		return MCOUNT_EPROTECT;
	mc_bytes_copy((uint8_t *)addr, code, len);
	mc_plat_flush_icache(addr, len);
	return MCOUNT_OK;
}

static void boot_site(struct rt_site *s)
{
	size_t n = mc_plat_mem_avail(s->addr, true);
	const uint8_t *p = (const uint8_t *)s->addr;
	const char *why;
	bool is_nop;

	if (n == 0) {
		refuse(s, NULL, 0, "not in the program's code");
		return;
	}
	if (n > MC_MAX_SITE_LEN)
		n = MC_MAX_SITE_LEN;
	why = classify(s, p, n, &is_nop);
	if (why) {
		refuse(s, p, n, why);
		return;
	}
	s->state = MCOUNT_SITE_NOP;
	if (is_nop) {
		counts.nops++;
		return;
	}
	if (write_code(s->addr, s->neutral, s->len) != MCOUNT_OK) {
		refuse(s, p, n, "text not writable");
		return;
	}
	counts.patched++;
}

/*
 * A site found as a NOP does not say whether it was an fentry or an
 * mcount hook.  Programs are built one way throughout, so give such
 * sites the style of the calls we did see (STYLE_DEFAULT if none).
 */
static void guess_nop_styles(void)
{
	size_t fentry = 0, mcount_ = 0;

	for (size_t i = 0; i < nsites; i++) {
		if (sites[i].style == MCOUNT_STYLE_MCOUNT)
			mcount_++;
		else if (sites[i].state != MCOUNT_SITE_REFUSED &&
			 sites[i].style == MCOUNT_STYLE_FENTRY)
			fentry++;
	}
	for (size_t i = 0; i < nsites; i++)
		if (sites[i].style == STYLE_UNKNOWN)
			sites[i].style = mcount_ > fentry ? MCOUNT_STYLE_MCOUNT :
				fentry > mcount_ ? MCOUNT_STYLE_FENTRY :
				STYLE_DEFAULT;
}

/* Copy the table, sort it, drop (and report) repeated entries. */
static void load_table(const uintptr_t *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sites[i] = (struct rt_site){ .addr = tab[i],
					     .style = STYLE_UNKNOWN };
	sort_sites(sites, n);
	nsites = 0;
	for (size_t i = 0; i < n; i++) {
		if (nsites && sites[nsites - 1].addr == sites[i].addr) {
			counts.refused++;
			counts.duplicates++;
			mc_plat_report(sites[i].addr, NULL, 0,
				       "duplicate table entry");
			continue;
		}
		sites[nsites++] = sites[i];
	}
}

int mcount_boot(void)
{
	const uintptr_t *tab = __start_mcount_loc;
	size_t n;

	if (booted)
		return MCOUNT_OK;
	if (!tab || !__stop_mcount_loc)
		return MCOUNT_ENOTABLE;
	n = (size_t)(__stop_mcount_loc - tab);
	sites = mc_plat_alloc(n ? n * sizeof(*sites) : 1);
	if (!sites)
		return MCOUNT_ENOMEM;
	counts.sites = n;
	load_table(tab, n);
	for (size_t i = 0; i < nsites; i++)
		boot_site(&sites[i]);
	mc_plat_text_close();
	guess_nop_styles();
	booted = true;
	return MCOUNT_OK;
}

bool mcount_booted(void)
{
	return booted;
}

void mcount_get_counts(struct mcount_counts *out)
{
	*out = counts;
}

/* ---- enabling and disabling -------------------------------------------- */

/*
 * The site of the function at `func`: the first one inside its symbol
 * when the platform knows it, else the first within max_entry_offset.
 * *start receives the function start the callback will report.
 */
static struct rt_site *find_site(uintptr_t func, uintptr_t *start)
{
	uintptr_t lo = func, hi;
	size_t size, i;

	if (mc_plat_func_bounds(func, &lo, &size))
		hi = lo + size;
	else
		hi = func + MC_RT_ARCH->max_entry_offset + 1;
	i = lower_bound(lo);
	if (i == nsites || sites[i].addr >= hi)
		return NULL;
	*start = lo;
	return &sites[i];
}

/* The trampoline an enabled site of this style calls; 0 if none. */
static uintptr_t trampoline(uint8_t style)
{
	switch (style) {
#ifdef MC_RT_FENTRY_STUB
	case MCOUNT_STYLE_FENTRY:
		return (uintptr_t)&mc_rt_tramp_fentry;
#endif
#ifdef MC_RT_MCOUNT_STUB
	case MCOUNT_STYLE_MCOUNT:
		return (uintptr_t)&mc_rt_tramp_mcount;
#endif
	default:
		return 0;
	}
}

static int set_site(struct rt_site *s, bool on, uintptr_t start)
{
	uint8_t call[MC_MAX_SITE_LEN];
	uintptr_t tramp = trampoline(s->style);
	int err;

	if (on && (!tramp ||
		   !site_arch(s->addr)->encode_call(call, s->len, s->addr,
						    tramp)))
		return MCOUNT_ERANGE;
	/* the dispatcher must see func before the call can happen */
	if (on)
		__atomic_store_n(&s->func, start, __ATOMIC_RELEASE);
	err = write_code(s->addr, on ? call : s->neutral, s->len);
	mc_plat_text_close();
	if (err)
		return err;
	s->state = on ? MCOUNT_SITE_ENABLED : MCOUNT_SITE_NOP;
	if (on)
		counts.enabled++;
	else
		counts.enabled--;
	return MCOUNT_OK;
}

static int set_func(uintptr_t func, bool on)
{
	struct rt_site *s;
	uintptr_t start;

	if (!booted)
		return MCOUNT_ENOTBOOTED;
	s = find_site(func, &start);
	if (!s)
		return MCOUNT_ENOSITE;
	if (s->state == MCOUNT_SITE_REFUSED)
		return MCOUNT_EREFUSED;
	if ((s->state == MCOUNT_SITE_ENABLED) == on)
		return MCOUNT_OK;
	return set_site(s, on, start);
}

int mcount_enable(unsigned long func)
{
	return set_func((uintptr_t)func, true);
}

int mcount_disable(unsigned long func)
{
	return set_func((uintptr_t)func, false);
}

void mcount_set_callback(mcount_callback_t cb)
{
	__atomic_store_n(&callback, cb, __ATOMIC_RELEASE);
}

/* The bytes `s` must hold in its current state (NOP or enabled). */
static bool expected_code(const struct rt_site *s, uint8_t *code)
{
	if (s->state == MCOUNT_SITE_NOP) {
		mc_bytes_copy(code, s->neutral, s->len);
		return true;
	}
	return site_arch(s->addr)->encode_call(code, s->len, s->addr,
					       trampoline(s->style));
}

int mcount_verify(void)
{
	int changed = 0;

	if (!booted)
		return MCOUNT_ENOTBOOTED;
	for (size_t i = 0; i < nsites; i++) {
		struct rt_site *s = &sites[i];
		const uint8_t *p = (const uint8_t *)s->addr;
		uint8_t want[MC_MAX_SITE_LEN];

		if (s->state == MCOUNT_SITE_REFUSED ||
		    (expected_code(s, want) && mc_bytes_equal(p, want, s->len)))
			continue;
		if (s->state == MCOUNT_SITE_ENABLED)
			counts.enabled--;
		refuse(s, p, s->len, "changed since it was patched");
		changed++;
	}
	return changed;
}

/*
 * From the trampoline.  `ret` is just past the hook instruction, so the
 * site is the last one below it.  A site disabled while a thread was on
 * its way here still reports: harmless, and cheaper than a lock.
 */
MC_RT_NOTRACE void mc_rt_dispatch(uintptr_t ret, uintptr_t caller)
{
	mcount_callback_t cb = __atomic_load_n(&callback, __ATOMIC_ACQUIRE);
	size_t i = lower_bound(ret);
	uintptr_t func;

	if (!cb || i == 0)
		return;
	func = __atomic_load_n(&sites[i - 1].func, __ATOMIC_ACQUIRE);
	if (!func || !mc_plat_enter())
		return;
	cb((unsigned long)func, (unsigned long)caller);
	mc_plat_leave();
}

/* ---- listing ----------------------------------------------------------- */

size_t mcount_site_count(void)
{
	return nsites;
}

static void site_info(const struct rt_site *s, struct mcount_site_info *out)
{
	*out = (struct mcount_site_info){
		.addr = (unsigned long)s->addr,
		.func = s->state == MCOUNT_SITE_ENABLED ?
			(unsigned long)s->func : 0,
		.len = s->len,
		.style = (enum mcount_style)s->style,
		.state = (enum mcount_state)s->state,
	};
}

int mcount_site_get(size_t index, struct mcount_site_info *out)
{
	if (index >= nsites)
		return MCOUNT_ENOSITE;
	site_info(&sites[index], out);
	return MCOUNT_OK;
}

int mcount_for_each_site(int (*fn)(const struct mcount_site_info *site,
				   void *arg), void *arg)
{
	for (size_t i = 0; i < nsites; i++) {
		struct mcount_site_info info;
		int r;

		site_info(&sites[i], &info);
		r = fn(&info, arg);
		if (r)
			return r;
	}
	return 0;
}

const char *mcount_strerror(int err)
{
	switch (err) {
	case MCOUNT_OK:		return "success";
	case MCOUNT_ENOTABLE:	return "no __mcount_loc table (link with lds/mcount.lds)";
	case MCOUNT_ENOTBOOTED:	return "mcount_boot() has not run";
	case MCOUNT_ENOMEM:	return "no storage for the site list";
	case MCOUNT_ENOSITE:	return "no hook site in that function";
	case MCOUNT_EREFUSED:	return "the site was refused";
	case MCOUNT_EPROTECT:	return "program text could not be made writable";
	case MCOUNT_ERANGE:	return "trampoline out of reach of the site";
	case MCOUNT_ENOSYM:	return "no function of that name";
	case MCOUNT_ENOSYMTAB:	return "no symbol table";
	default:		return "unknown error";
	}
}
