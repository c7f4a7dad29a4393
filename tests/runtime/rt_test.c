/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rt_test.c - end-to-end test of the runtime, run by run.sh.
 *
 *   rt_test auto|manual fentry|mcount|pad
 *
 * auto: the constructor has booted.  manual: MCOUNT_NO_AUTOBOOT is set;
 * the test first corrupts fx_victim's hook (a call to rt_dummy instead
 * of the hook stub; for a pad, bad.S's pad_junk over its first NOPs at
 * the entry) and then boots, so the runtime must refuse it.
 *
 * Prints PASS/FAIL lines, plus SITE/PAD/TABLE lines that run.sh checks
 * against readelf and objdump of the same binary.  Built without hooks.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mcount.h>

#include "../../runtime/platform.h"
#include "fixture.h"

/* The same arch/ table the runtime's backend uses. */
#define ARCH MC_RT_ARCH

#ifdef __arm__
#include "../../runtime/linux/linux.h"

extern const struct mc_arch mc_arch_thumb2;
#endif

/*
 * The entry that reads the site at `addr`.  ARM: Thumb-2 if the function
 * symbol holding it has bit 0 set, else ARM; told independently of the
 * code, which the engine rewrites at boot (its push before a hook, which
 * MC_RT_SITE_ARCH reads, is gone then).  Code no symbol covers: as the
 * engine told it.
 */
static const struct mc_arch *arch_at(unsigned long addr)
{
#ifdef __arm__
	uintptr_t start;

	if (mc_host_sym_by_addr(addr, &start, NULL, NULL))
		return start & 1 ? &mc_arch_thumb2 : &mc_arch_arm;
#endif
#ifdef MC_RT_SITE_ARCH
	return MC_RT_SITE_ARCH(&mc_rt_site_code, addr);
#else
	(void)addr;
	return ARCH;
#endif
}

/* Bytes before `s` that its live form covers (ARM's push). */
static unsigned live_prelude(const struct mcount_site_info *s)
{
	const struct mc_arch *a = arch_at(s->at);

	return s->style == MCOUNT_STYLE_PAD || !a ? 0 : a->live_prelude;
}

/*
 * Before boot, where the runtime knows no object yet (so no symbol and
 * no mapping): the entry for code of the function `func` points to,
 * told on ARM by the pointer's bit 0.
 */
static const struct mc_arch *arch_of_func(unsigned long addr,
					  unsigned long func)
{
#ifdef __arm__
	(void)addr;
	return func & 1 ? &mc_arch_thumb2 : &mc_arch_arm;
#else
	(void)func;
	return arch_at(addr);
#endif
}

extern const uintptr_t __start_mcount_loc[]
	__attribute__((weak, visibility("hidden")));
extern const uintptr_t __stop_mcount_loc[]
	__attribute__((weak, visibility("hidden")));

/*
 * From bad.S, where the architecture has them (riscv64, without
 * -DRT_PAD): real hooks the runtime must refuse because their code does
 * not say where the hook's caller is.  rt_unknown_site is a function,
 * whose hook must be left calling the stub; rt_nosym_site the hook
 * itself, in code no function symbol covers.
 */
extern int rt_unknown_site(int x) __attribute__((weak));
extern const uint8_t rt_nosym_site[] __attribute__((weak));

/* From bad.S, with -DRT_PAD only: what fx_victim's pad is corrupted with. */
extern const uint8_t pad_junk[] __attribute__((weak));
extern const uint8_t pad_junk_end[] __attribute__((weak));

/*
 * From bad.S, with -DRT_PAD, where the arch has one: a pad too short for
 * the runtime's call, which it must refuse.
 */
extern const uint8_t short_pad[] __attribute__((weak));
/* ppc64le, -DRT_PAD: a pad at the local entry point (x + 4). */
extern int local_pad(int) __attribute__((weak));

static int failures;
static unsigned long bias;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (!ok)
		failures++;
}

/* ---- the callback ------------------------------------------------------ */

#define MAX_EVENTS 64
static struct event { unsigned long func, caller; } events[MAX_EVENTS];
static int nevents;
static int nested_calls;

/*
 * Loads every integer and floating-point argument register with values
 * of its own, so the traced function's arguments survive only if the
 * trampoline restores them.
 */
FX_NOINLINE static double
scramble(long a, long b, long c, long d, long e, long f, long g, long h,
	 double p, double q, double r, double s, double t, double u,
	 double v, double w)
{
	return (double)(a + b + c + d + e + f + g + h) +
	       p + q + r + s + t + u + v + w;
}

static volatile double scrambled;

static void record(unsigned long func, unsigned long caller)
{
	long k = (long)(func & 0xff);
	double x = (double)(caller & 0xff) + 0.5;

	if (nevents < MAX_EVENTS)
		events[nevents] = (struct event){ func, caller };
	nevents++;
	scrambled = scramble(k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6,
			     k + 7, x, x + 1, x + 2, x + 3, x + 4, x + 5,
			     x + 6, x + 7);
}

/* Calls a traced function from inside the callback: must not recurse. */
static void record_and_nest(unsigned long func, unsigned long caller)
{
	record(func, caller);
	nested_calls += fx_other(1) == 1 - 7;
}

/* Adding 1 after the call keeps it from becoming a tail jump. */
__attribute__((noinline)) static int drive_traced(int x)
{
	return fx_traced(x) + 1;
}

/* ---- helpers ----------------------------------------------------------- */

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	bias = info->dlpi_addr;
	return 1;
}

static size_t table_entries(void)
{
	return __start_mcount_loc ?
		(size_t)(__stop_mcount_loc - __start_mcount_loc) : 0;
}

/* The site whose bytes are in func's first bytes (a pad's may start before). */
static int find_site_info(unsigned long func, struct mcount_site_info *out)
{
	func &= ~(unsigned long)MC_RT_ISA_BITS;	/* Thumb: code starts below */
	for (size_t i = 0; i < mcount_site_count(); i++) {
		if (mcount_site_get(i, out))
			return -1;
		if (out->at >= func && out->at <= func + ARCH->max_entry_offset)
			return 0;
	}
	return -1;
}

/* A call from the site to `target`, as the engine would write it. */
static int forge_call(const struct mcount_site_info *si, unsigned long target,
		      uint8_t *out)
{
	if (si->style == MCOUNT_STYLE_PAD)
		return mc_encode_pad_call(arch_at(si->at), out, si->len,
					  si->at, target);
	return mc_encode_call(arch_at(si->at), out, si->len, si->at, target);
}

/*
 * True if a direct call to `func` may land at `target`: the function
 * itself or, on ppc64le (ELFv2), its local entry point, past the global
 * entry's `addis r2,r12,hi; addi r2,r2,lo` (`lis r2,hi` once ld knows
 * the TOC's absolute address) that a local `bl` skips.  `&func` and the
 * callback's address are the global entry point.
 */
static int is_entry_of(uint64_t target, unsigned long func)
{
#if defined(__powerpc64__) && _CALL_ELF == 2
	const uint8_t *p = (const uint8_t *)func;
	uint32_t first = mc_get_le32(p) & 0xffff0000;

	if (target == func + 8 &&
	    (first == 0x3c4c0000 || first == 0x3c400000) &&
	    (mc_get_le32(p + 4) & 0xffff0000) == 0x38420000)
		return 1;
#endif
	return target == func;
}

/* True if the instruction ending at `ret` is a call to `target`. */
static int is_call_to(unsigned long ret, unsigned long target)
{
#ifdef __arm__
	/* bit 0 of a return address is the caller's state, not a byte */
	unsigned long thumb = ret & 1;

	ret &= ~1ul;
#else
	unsigned long thumb = 0;
#endif
	for (unsigned len = 1; len <= MC_MAX_SITE_LEN; len++) {
		struct mc_site d = mc_decode_site(
			ARCH, (const uint8_t *)(ret - len), len,
			(ret - len) | thumb);

		if (d.kind == MC_SITE_CALL && d.len == len &&
		    is_entry_of(d.target, target))
			return 1;
	}
	return 0;
}

/* True if the symbols put `a` and `b` in one function. */
static int same_function(unsigned long a, unsigned long b)
{
	const char *na = mcount_func_name(a, NULL);
	const char *nb = mcount_func_name(b, NULL);

	return na && nb && strcmp(na, nb) == 0;
}

static int set_text(unsigned long addr, const uint8_t *code, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long lo = addr & ~(unsigned long)(page - 1);
	size_t span = addr + len - lo;

	if (mprotect((void *)lo, span, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy((void *)addr, code, len);
	__builtin___clear_cache((char *)addr, (char *)addr + len);
	return mprotect((void *)lo, span, PROT_READ | PROT_EXEC);
}

/* ---- the checks -------------------------------------------------------- */

/* RT_PREPATCHED: recordmcount --finalize --prepatch wrote every hook's
   disabled form (x86), which boot must take without a write */
static int prepatched;
static unsigned long victim_site;
static uint8_t victim_code[MC_MAX_SITE_LEN];
static unsigned victim_len;
static int pad_style;

/* Each accepted site's bytes right after boot, to compare at the end. */
#define MAX_SITES 64
static uint8_t boot_bytes[MAX_SITES][MC_MAX_SITE_LEN];

/*
 * Before boot every hook still calls its stub, which must leave the
 * function as it found it (ARM's also pops the word the hook pushed).
 */
static void check_stubs(void)
{
	check(fx_traced(2) == 7 && drive_traced(1) == 5 &&
	      fx_many(1, 2, 3, 4, 5, 6, 7, 8) == 204 &&
	      fx_fp(1, 2, 3, 4, 5, 10, 7, 8) == 1 - 2 + 12 - 0.5 + 56,
	      "hooked functions run right before boot (the stubs)");
}

/*
 * Before boot: bad.S's pad_junk over fx_victim's pad, at the entry (past
 * endbr64 / bti c), where the engine would write its call.
 */
static void corrupt_victim_pad(void)
{
	unsigned long f = (unsigned long)fx_victim;
	unsigned len = 0, k;
	const uint8_t *window = NULL;
	const struct mc_arch *a;

	f &= ~(unsigned long)MC_RT_ISA_BITS;	/* Thumb: code starts below */
	victim_site = f + mc_match_insn(ARCH->entry_prefixes,
					ARCH->n_entry_prefixes,
					(const uint8_t *)f, 16);
	a = arch_of_func(victim_site, (unsigned long)fx_victim);
	if (a)
		window = mc_pad_neutral(a, (const uint8_t *)victim_site,
					MC_MAX_SITE_LEN, &len);
	victim_len = (unsigned)(pad_junk_end - pad_junk);
	memcpy(victim_code, pad_junk, victim_len);
	/*
	 * The rest of the call's window becomes NOPs, so that fx_victim
	 * still runs when the junk cut one of clang's long NOPs in two.
	 */
	while (window && victim_len < len) {
		for (k = len - victim_len < 8 ? len - victim_len : 8;
		     k && !mc_encode_nop(ARCH, victim_code + victim_len, k);
		     k--)
			;
		if (k == 0)
			break;
		victim_len += k;
	}
	check(window && len <= sizeof(victim_code) &&
	      set_text(victim_site, victim_code, victim_len) == 0,
	      "corrupt fx_victim's pad before boot");
}

/* Before boot: make fx_victim's hook call rt_dummy instead. */
static void corrupt_victim(void)
{
	unsigned long f = (unsigned long)fx_victim;

	if (pad_style) {
		corrupt_victim_pad();
		return;
	}

	for (size_t i = 0; i < table_entries(); i++) {
		unsigned long a = __start_mcount_loc[i];
		struct mc_site d;

		if (a < (f & ~1ul) || a > f + ARCH->max_entry_offset ||
		    !arch_of_func(a, f))
			continue;
		d = mc_decode_site(arch_of_func(a, f), (const uint8_t *)a,
				   MC_MAX_SITE_LEN, a);
		if (prepatched)
			d = ARCH->decode_disabled(ARCH, (const uint8_t *)a,
						  MC_MAX_SITE_LEN, a);
		victim_site = a;
		victim_len = d.len;
		break;
	}
	check(victim_site && victim_len &&
	      mc_encode_call(arch_of_func(victim_site, f), victim_code,
			     victim_len, victim_site, (unsigned long)rt_dummy),
	      "fx_victim's hook found, a call to rt_dummy made for it");
	/* --prepatch: the disabled form of that call, aimed at rt_dummy */
	if (prepatched) {
		uint8_t test;
		unsigned op = ARCH->live_opcode(ARCH, victim_len, 0, &test);

		victim_code[op] = test;
	}
	check(set_text(victim_site, victim_code, victim_len) == 0,
	      "corrupt fx_victim's hook before boot");
}

static int sites_ok = 1, refused_ok = 1;

/* True if the table entry `addr` is the pad of the function at `func`. */
static int pad_of(unsigned long addr, const void *func)
{
	unsigned long f = (unsigned long)func;

	return func && addr <= f && f - addr < 16;
}

/*
 * A pad the runtime must refuse for its shape, besides bad.S's bad_site
 * and duplicate: bad.S's short_pad, and on ppc64le with GCC 12 (which
 * puts the pad before the global entry's TOC set-up, where calls through
 * the local entry never reach it) fx_static_ptr's, the one fixture
 * that needs the TOC; PC-relative code (power10) has no TOC set-up.
 */
static int refused_pad(unsigned long addr)
{
	if (!pad_style)
		return 0;
#if defined(__powerpc64__) && _CALL_ELF == 2 && !defined(__clang__) && \
	__GNUC__ < 13 && !defined(__PCREL__)
	if (pad_of(addr, (const void *)fx_static_ptr))
		return 1;
#endif
	return pad_of(addr, short_pad);
}

static size_t refused_pads(void)
{
	size_t n = 0;

	for (size_t i = 0; i < table_entries(); i++)
		n += refused_pad(__start_mcount_loc[i]);
	return n;
}

/* How many of bad.S's rt_unknown_site and rt_nosym_site there are. */
static size_t unknown_caller_sites(void)
{
	return (rt_unknown_site != NULL) + (rt_nosym_site != NULL);
}

/* True if `addr` is the hook of one of them. */
static int is_unknown_caller_site(unsigned long addr)
{
	unsigned long f = (unsigned long)rt_unknown_site;

	return (rt_unknown_site && addr >= f &&
		addr <= f + ARCH->max_entry_offset) ||
	       (rt_nosym_site && addr == (unsigned long)rt_nosym_site);
}

/*
 * True if the enabled bytes `p` of a site of `len` bytes hold a call: at
 * the site, or for a pad whose call has a lead instruction (ppc64le's
 * `mflr r0; bl`) further in, at a multiple of the pad NOP's size; or,
 * for a pad, the arch's pad call to the pad trampoline, whose link
 * register the decoder does not know as a hook's (aarch64's `mov x9,
 * x30; bl`, riscv64's `auipc t0; jalr t0`).
 */
static int holds_call(const struct mcount_site_info *s, const uint8_t *p,
		      unsigned len)
{
	const struct mc_arch *arch = arch_at(s->at);
	unsigned step = s->style == MCOUNT_STYLE_PAD && arch->n_pad_nops ?
		arch->pad_nops[0].len : len;

#ifdef MC_RT_PAD_TRAMP
	if (s->style == MCOUNT_STYLE_PAD) {
		uint8_t call[MC_MAX_SITE_LEN];

		if (len <= sizeof(call) &&
		    mc_encode_pad_call(arch, call, len, s->at,
				       (uintptr_t)&MC_RT_PAD_TRAMP) &&
		    memcmp(call, p, len) == 0)
			return 1;
	}
#endif
	for (unsigned i = 0; i < len; i += step) {
		struct mc_site d = mc_decode_site(arch, p + i, len - i,
						  s->at + i);

		if (d.kind == MC_SITE_CALL)
			return 1;
		if (d.kind != MC_SITE_UNKNOWN)
			return 0;
	}
	return 0;
}

/*
 * A disabled site in its live form (runtime/core/forms.c): enabling it
 * changes only bytes inside one naturally aligned word of at most 8
 * bytes (4 on a 32-bit machine), from up to 8 bytes before the site (an
 * ARM push) to its end; enabled, the site holds a call; disabled
 * again, it holds its bytes as before.  Judged from the outside: bytes
 * read back around two calls of the API.
 */
#define LIVE_BEFORE 8
static int is_live_off(const struct mcount_site_info *s)
{
	uint8_t off[LIVE_BEFORE + MC_MAX_SITE_LEN], on[sizeof(off)];
	const uint8_t *p = (const uint8_t *)(s->at - LIVE_BEFORE);
	unsigned n = LIVE_BEFORE + s->len, first = n, last = 0;
	unsigned long word;
	int ok;

	memcpy(off, p, n);
	if (mcount_enable(s->at) != MCOUNT_OK)
		return 0;
	memcpy(on, p, n);
	ok = mcount_disable(s->at) == MCOUNT_OK && memcmp(off, p, n) == 0 &&
	     holds_call(s, on + LIVE_BEFORE, s->len);
	for (unsigned i = 0; i < n; i++) {
		if (on[i] == off[i])
			continue;
		if (first == n)
			first = i;
		last = i;
	}
	if (first == n)
		return 0;
	for (unsigned size = 1; size <= sizeof(void *); size *= 2) {
		word = (s->at - LIVE_BEFORE + first) & ~(unsigned long)(size - 1);
		if (s->at - LIVE_BEFORE + last < word + size)
			return ok;
	}
	return 0;
}

/*
 * The site holds, as decoded, the neutral form of its own length; a pad,
 * the arch's pad NOPs; or the live form the engine toggles in one store.
 */
static int is_neutral(const struct mcount_site_info *s)
{
	const uint8_t *p = (const uint8_t *)s->at;
	unsigned len = s->len;
	unsigned long addr = s->at;
	const struct mc_arch *arch = arch_at(addr);
	struct mc_site d;
	const uint8_t *neutral;

	if (!arch)
		return 0;
	if (s->style == MCOUNT_STYLE_PAD) {
		unsigned n;
		const uint8_t *w = mc_pad_neutral(arch, p, len, &n);

		return (w && n == len && memcmp(w, p, len) == 0) ||
		       is_live_off(s);
	}
	d = mc_decode_site(arch, p, len, addr);
	neutral = mc_site_neutral(arch, &d);
	return (d.kind == MC_SITE_NOP && d.len == len && neutral &&
		memcmp(neutral, p, len) == 0) || is_live_off(s);
}

static int show_site(const struct mcount_site_info *s, void *arg)
{
	const uint8_t *p = (const uint8_t *)s->at;
	int want_nop = *(int *)arg;

	if (s->state == MCOUNT_SITE_REFUSED) {
		printf("REFUSED %lx\n", s->addr - bias);
		if (s->addr != (unsigned long)bad_site &&
		    s->addr != victim_site && s->at != victim_site &&
		    !refused_pad(s->addr) && !is_unknown_caller_site(s->addr))
			refused_ok = 0;
		return 0;
	}
	/* from the bytes before it that its live form covers */
	printf("SITE %lx %u", s->addr - bias, s->len);
	for (const uint8_t *b = p - live_prelude(s); b < p + s->len; b++)
		printf(" %02x", *b);
	printf("\n");
	if (s->style == MCOUNT_STYLE_PAD) {
		printf("PAD %lx %lx %u", s->addr - bias, s->at - bias, s->len);
		for (unsigned i = 0; i < s->len; i++)
			printf(" %02x", p[i]);
		printf("\n");
	}
	if (want_nop && (s->state != MCOUNT_SITE_NOP || !is_neutral(s)))
		sites_ok = 0;
	return 0;
}

/* Keep (at boot) or compare (at the end) each accepted site's bytes. */
static int boot_bytes_same(int keep)
{
	struct mcount_site_info s;
	int same = mcount_site_count() <= MAX_SITES;

	for (size_t i = 0; same && i < mcount_site_count(); i++) {
		if (mcount_site_get(i, &s) || s.state == MCOUNT_SITE_REFUSED)
			continue;
		if (keep)
			memcpy(boot_bytes[i], (const void *)s.at, s.len);
		else
			same = memcmp(boot_bytes[i], (const void *)s.at,
				      s.len) == 0;
	}
	return same;
}

static void check_boot(int manual, int style)
{
	struct mcount_counts c;
	struct mcount_site_info si;
	size_t want_refused = (manual ? 3 : 2) + refused_pads() +
			      unknown_caller_sites();
	int want_nop = 1;

	mcount_get_counts(&c);
	printf("TABLE %zu\n", table_entries());
	printf("UNKNOWN_CALLER %zu\n", unknown_caller_sites());
	printf("COUNTS sites=%zu patched=%zu nops=%zu refused=%zu dup=%zu\n",
	       c.sites, c.patched, c.nops, c.refused, c.duplicates);
	check(mcount_booted(), "booted");
	check(c.sites == table_entries() && c.sites > 0,
	      "site count equals table entries");
	printf("REFUSED_PADS %zu\n", refused_pads());
	check(c.refused == want_refused && c.duplicates == 1,
	      "refused: bad_site, the duplicate (and the victim, and the "
	      "pads too short or out of reach, hooks whose caller cannot be "
	      "told)");
	if (pad_style)
		check(c.nops + c.refused == c.sites && c.patched == 0 &&
		      c.pads == c.nops && c.pads > 0,
		      "every other site a pad, left as it was at boot");
	else if (prepatched)
		check(c.nops + c.refused == c.sites && c.patched == 0 &&
		      c.nops > 0 && c.pads == 0,
		      "every other site in its disabled form from the file: "
		      "none written at boot");
	else
		check(c.patched + c.nops + c.refused == c.sites &&
		      c.nops == 0 && c.pads == 0,
		      "every other site patched at boot");
	check(boot_bytes_same(1), "site bytes kept after boot");
	mcount_for_each_site(show_site, &want_nop);
	check(sites_ok, "every accepted site holds the arch's neutral form");
	check(refused_ok, "only the expected sites are refused");
	check(mc_decode_site(ARCH, (const uint8_t *)(uintptr_t)bad_site, 8,
			     (unsigned long)bad_site).kind == MC_SITE_UNKNOWN,
	      "bad_site left untouched");
	if (manual) {
		check(memcmp((void *)victim_site, victim_code, victim_len) == 0,
		      "corrupted victim site left untouched");
		check(fx_victim(1) == (1 ^ 0x55), "fx_victim still runs");
	}
	check(find_site_info((unsigned long)fx_traced, &si) == 0 &&
	      si.style == (enum mcount_style)style,
	      "fx_traced's site has the expected style");
}

static void check_tracing(void)
{
	unsigned long traced = (unsigned long)fx_traced;
	const char *name;
	int ok = 1, sum = 0;

	mcount_set_callback(record);
	check(mcount_enable_name("fx_traced") == MCOUNT_OK, "enable by name");
	for (int i = 0; i < 5; i++)
		sum += drive_traced(i) - 1;
	fx_other(3);
	check(nevents == 5, "callback fired once per call (5)");
	for (int i = 0; i < nevents && i < MAX_EVENTS; i++)
		ok &= events[i].func == traced &&
		      is_call_to(events[i].caller, traced);
	check(ok, "func == &fx_traced, caller ends with a call to it");
	name = nevents ? mcount_func_name(events[0].caller, NULL) : NULL;
	check(name && strcmp(name, "drive_traced") == 0,
	      "caller resolves to drive_traced");
	check(sum == 3 * (0 + 1 + 2 + 3 + 4) + 5, "results unchanged");

	check(mcount_disable_name("fx_traced") == MCOUNT_OK, "disable");
	nevents = 0;
	drive_traced(1);
	check(nevents == 0, "no callback after disable");
}

static void check_by_address(void)
{
	int (*st)(int) = fx_static_ptr();

	nevents = 0;
	check(mcount_enable((unsigned long)st) == MCOUNT_OK &&
	      mcount_enable((unsigned long)fx_many) == MCOUNT_OK &&
	      mcount_enable((unsigned long)fx_fp) == MCOUNT_OK,
	      "enable by address (static, many args, fp args)");
	check(st(9) == 81, "static function result");
	check(fx_many(1, 2, 3, 4, 5, 6, 7, 8) == 204,
	      "integer and stack arguments survive the trampoline");
	check(fx_fp(1, 2, 3, 4, 5, 10, 7, 8) == 1 - 2 + 12 - 0.5 + 56,
	      "floating-point arguments survive the trampoline");
	check(nevents == 3 && events[0].func == (unsigned long)st &&
	      events[1].func == (unsigned long)fx_many &&
	      events[2].func == (unsigned long)fx_fp,
	      "callback reports each function's own address");
	/*
	 * The callers too: fx_many's and fx_fp's prologues are the longest
	 * (GCC schedules its `mv a0, ra` well before the hook there); st is
	 * called through a pointer, from the same function as they are.
	 */
	check(nevents == 3 &&
	      is_call_to(events[1].caller, (unsigned long)fx_many) &&
	      is_call_to(events[2].caller, (unsigned long)fx_fp) &&
	      same_function(events[0].caller, events[1].caller),
	      "callback reports each call's own caller");
	check(mcount_disable((unsigned long)st) == MCOUNT_OK &&
	      mcount_disable((unsigned long)fx_many) == MCOUNT_OK &&
	      mcount_disable((unsigned long)fx_fp) == MCOUNT_OK,
	      "disable by address");
}

/* A pad at a function's second (local) entry point, where calls enter. */
static void check_local_pad(void)
{
	if (!pad_style || !local_pad)
		return;
	nevents = 0;
	mcount_set_callback(record);
	check(mcount_enable((unsigned long)local_pad) == MCOUNT_OK &&
	      local_pad(1) == 5 && nevents == 1 &&
	      events[0].func == (unsigned long)local_pad &&
	      mcount_disable((unsigned long)local_pad) == MCOUNT_OK &&
	      local_pad(2) == 6 && nevents == 1,
	      "a pad at the local entry point: enabled, traced, disabled");
	mcount_set_callback(NULL);
}

static void check_nesting(void)
{
	nevents = 0;
	mcount_set_callback(record_and_nest);
	mcount_enable((unsigned long)fx_traced);
	mcount_enable((unsigned long)fx_other);
	fx_traced(1);
	check(nevents == 1 && nested_calls == 1,
	      "a traced call inside the callback does not recurse");
	mcount_disable((unsigned long)fx_other);
	mcount_disable((unsigned long)fx_traced);
	mcount_set_callback(NULL);
}

static void check_errors(void)
{
	check(mcount_enable((unsigned long)bad_site) == MCOUNT_EREFUSED,
	      "enabling a refused site fails");
	if (rt_unknown_site)
		check(mcount_enable((unsigned long)rt_unknown_site) ==
		      MCOUNT_EREFUSED && rt_unknown_site(4) == 7,
		      "a hook whose caller cannot be told is refused, and "
		      "its function runs (the stub)");
	if (rt_nosym_site)
		check(mcount_enable((unsigned long)rt_nosym_site) ==
		      MCOUNT_EREFUSED,
		      "a hook in no function symbol is refused");
	check(mcount_enable((unsigned long)check_errors) == MCOUNT_ENOSITE,
	      "enabling a function without a hook fails");
	check(mcount_enable_name("no_such_function") == MCOUNT_ENOSYM,
	      "enabling an unknown name fails");
	check(mcount_boot() == MCOUNT_OK, "a second boot is harmless");
}

/* mcount_verify(): nothing changed, then one site forged behind its back. */
static void check_verify(void)
{
	unsigned long f = (unsigned long)fx_other;
	struct mcount_site_info si;
	uint8_t forged[MC_MAX_SITE_LEN];

	check(mcount_verify() == 0, "verify: every site as the engine left it");
	check(mcount_enable(f) == MCOUNT_OK && mcount_verify() == 0 &&
	      mcount_disable(f) == MCOUNT_OK, "verify: an enabled site too");
	check(find_site_info(f, &si) == 0 &&
	      forge_call(&si, (unsigned long)rt_dummy, forged) &&
	      set_text(si.at, forged, si.len) == 0,
	      "forge a call in fx_other's site");
	check(mcount_verify() == 1 && mcount_verify() == 0,
	      "verify finds the forged site, once");
	check(mcount_enable(f) == MCOUNT_EREFUSED, "the forged site is refused");
}

int main(int argc, char **argv)
{
	int manual, style, want_nop = 1;
	struct mcount_counts c;

	if (argc != 3) {
		fprintf(stderr, "usage: rt_test auto|manual fentry|mcount|pad\n");
		return 2;
	}
	manual = strcmp(argv[1], "manual") == 0;
	style = strcmp(argv[2], "mcount") == 0 ? MCOUNT_STYLE_MCOUNT :
		strcmp(argv[2], "pad") == 0 ? MCOUNT_STYLE_PAD :
		MCOUNT_STYLE_FENTRY;
	pad_style = style == MCOUNT_STYLE_PAD;
	prepatched = getenv("RT_PREPATCHED") != NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	dl_iterate_phdr(first_object, NULL);

	if (manual) {
		check(!mcount_booted(), "MCOUNT_NO_AUTOBOOT kept boot away");
		check_stubs();
		corrupt_victim();
		check(mcount_boot() == MCOUNT_OK, "explicit boot");
	}
	check_boot(manual, style);
	check_tracing();
	check_by_address();
	check_local_pad();
	check_nesting();
	check_errors();
	check_verify();

	sites_ok = 1;
	printf("-- after all tests --\n");
	mcount_for_each_site(show_site, &want_nop);
	mcount_get_counts(&c);
	check(sites_ok && c.enabled == 0, "every site is a NOP again");
	check(boot_bytes_same(0),
	      "every site holds exactly its bytes after boot again");
	printf("%s: rt_test %s %s\n", failures ? "FAIL" : "PASS", argv[1],
	       argv[2]);
	return failures ? 1 : 0;
}
