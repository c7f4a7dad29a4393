/* SPDX-License-Identifier: MIT */
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
 * a call through a pointer that holds one of them, already neutral, or
 * a -fpatchable-function-entry pad of the architecture's NOPs (where the
 * backend has a trampoline for pads).  Anything else is refused,
 * reported and never written: a wrong table must not become corrupted
 * code.
 *
 * A pad's table entry is its first NOP, which may lie before the
 * function's symbol (M > 0) or after its entry marker (endbr64, bti c).
 * Its call goes at the first NOP at or after the entry, so that it runs
 * on every call (find_pad_slot); `at` is that address, and for every
 * other site the table's own.
 */
#include <mcount.h>

#include "platform.h"
#include "../arch/search.h"

#define STYLE_UNKNOWN 0xff	/* a NOP site, until guess_nop_styles() */

/* The style of sites whose bytes do not tell: fentry if there is one. */
#ifdef MC_RT_FENTRY_STUB
#define STYLE_DEFAULT MCOUNT_STYLE_FENTRY
#else
#define STYLE_DEFAULT MCOUNT_STYLE_MCOUNT
#endif

/* What a site held when boot found it. */
enum found {
	FOUND_NOP,		/* a NOP or a pad */
	FOUND_CALL,		/* a hook call */
	FOUND_DISABLED,		/* its disabled live form (classify_disabled) */
	FOUND_WRITTEN,		/* a hook call, disabled as classified (write_call_now) */
};

/*
 * One for every site, made by the boot pass or, where it kept the sites
 * as runs (struct rt_run), by their first use: kept small, since each
 * byte here is a byte more of memory touched per site.  What only an
 * enabled site needs (its function's start) is in the image's funcs,
 * made when its first site is enabled.
 */
struct rt_site {
	uintptr_t addr;		/* the table's entry */
	const uint8_t *neutral;	/* `len` bytes that disable the hook */
	const struct mc_arch *arch;	/* what reads it (ARM or Thumb) */
	/*
	 * Where the hook's `len` bytes are, from addr (site_at): 0, or a
	 * pad's slot, inside the MC_MAX_SITE_LEN bytes classify reads.
	 */
	uint8_t at_off;
	uint8_t len;
	uint8_t style;		/* enum mcount_style */
	uint8_t state;		/* enum mcount_state */
	uint8_t caller;		/* MC_RT_SITE_CALLER's answer, if any */
	uint8_t found;		/* enum found: what boot found there */
	/*
	 * The word live toggling stores: head_len bytes (0: none, the site
	 * cannot change while threads run) at `at + head`.
	 */
	int8_t head;
	uint8_t head_len;
};

/*
 * The table, placed by lds/mcount.lds (or lds/mcount-section.lds in a
 * script of one's own), which defines these two around the pieces it
 * gathers.  Weak: absent means "not linked with the script".
 */
extern const uintptr_t __start_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;
extern const uintptr_t __stop_mcount_loc[] __attribute__((weak)) MC_RT_HIDDEN;

/*
 * The image's own ELF header, where the linker maps it (GNU ld, gold and
 * lld define it on request); weak, so 0 where it is not mapped.
 */
extern const char __ehdr_start[] __attribute__((weak)) MC_RT_HIDDEN;

/*
 * One image per loaded object with a table: the program, and on a
 * hosted platform each shared library (hosted.c adds and removes them).
 * A fixed array, so that the traced path can read it with no lock and
 * nothing it reads is ever moved: a slot is filled under the patching
 * lock and published by its bounds, emptied by its bounds before its
 * sites are freed (mc_rt_image_remove says why that is safe).
 *
 * [lo, hi] holds every site's bytes and the return address just past
 * each: what mc_rt_dispatch() matches `ret` against.  Images do not
 * overlap (their objects' text does not), so at most one holds `ret`.
 * A handful of objects is the usual case, so dispatch scans the used
 * slots in order (the program's comes first) rather than keeping a
 * sorted index that every load would have to republish.
 */
#ifndef MC_RT_MAX_IMAGES
#if __STDC_HOSTED__
#define MC_RT_MAX_IMAGES 256
#else
#define MC_RT_MAX_IMAGES 4	/* firmware: its image and a few modules */
#endif
#endif

/* Trampolines a backend has: fentry, mcount (two on riscv64), pad. */
#define MC_RT_MAX_THUNKS 4

/*
 * A run of consecutive sites whose records boot left alike but for
 * their addresses, which are the table's own: how an image keeps its
 * sites until they are first used (image_sites).  A program built one
 * way throughout is one run, so a boot that enables nothing writes no
 * record and touches no memory for them: on a machine that hands free
 * memory back to its host, every page first touched is costly.
 */
struct rt_run {
	size_t count;		/* sites in it */
	struct rt_site form;	/* every field of each but addr */
};

/* Runs an image keeps; one more, and boot writes its records after all. */
#define MC_RT_RUNS 4

struct rt_image {
	uintptr_t lo, hi;	/* atomic: hi == 0 while the slot is free */
	/*
	 * atomic: every site's record, in address order; NULL while its
	 * sites are kept as runs (image_sites makes it on first use)
	 */
	struct rt_site *sites;
	size_t nsites;
	bool used;		/* the slot holds an image */
	/* runs[0, nruns) cover the sites, tab[i] the address of the i-th */
	const uintptr_t *tab;
	struct rt_run runs[MC_RT_RUNS];
	unsigned nruns;
	/*
	 * atomic: funcs[i] is sites[i]'s function start, set when it is
	 * enabled (0 before); NULL until a site of the image first is.
	 */
	uintptr_t *funcs;
	uintptr_t handle;	/* the platform's name for the object */
	const char *name;	/* its file, for mcount_site_info */
	uintptr_t got;		/* its GOT base (MC_SITE_CALL_GOT), or 0 */
	/* more call targets that are hook stubs: its PLT entries for them */
	uintptr_t stub[MC_RT_IMAGE_STUBS];
	uint8_t stub_style[MC_RT_IMAGE_STUBS];
	unsigned nstubs;
	struct mcount_counts counts;
	/*
	 * Its thunk page, where some of its sites cannot reach a trampoline
	 * (image_thunks): thunk_to[i] is what the thunk at
	 * thunk + i * the arch's thunk_len jumps to.  0 when it has none.
	 */
	uintptr_t thunk;
	size_t thunk_size;
	uintptr_t thunk_to[MC_RT_MAX_THUNKS];
	unsigned nthunks;
};

static struct rt_image images[MC_RT_MAX_IMAGES];

/* Where site `s`'s hook bytes are. */
MC_RT_NOTRACE static inline uintptr_t site_at(const struct rt_site *s)
{
	return s->addr + s->at_off;
}
static size_t nimages;		/* atomic: slots in use are below it */
static struct rt_image *cur;	/* the image being booted (under the lock) */
static bool booted;
static mcount_callback_t callback;
static mc_rt_slot_hook_t slot_hook;
mc_rt_slot_hook_t mc_rt_gpr_slot_hook;	/* atomic; read by trampolines */
#ifdef MC_RT_ENTRY_TAKEOVER
mc_rt_entry_t mc_rt_fentry_takeover;	/* atomic; read by trampolines */
mc_rt_entry_t mc_rt_mcount_takeover;
#endif

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
static void sort_sites(struct rt_site *v, size_t n)
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

MC_RT_NOTRACE static bool site_below(const void *site, const void *a)
{
	return ((const struct rt_site *)site)->addr < *(const uintptr_t *)a;
}

/* Index in `img` of the first site with addr >= a (nsites if none). */
MC_RT_NOTRACE static size_t lower_bound(const struct rt_image *img,
					uintptr_t a)
{
	return mc_partition_point(img->sites, img->nsites, sizeof(*img->sites),
				  &a, site_below);
}

/* ---- classifying a site at boot ---------------------------------------- */

static size_t code_room(uintptr_t addr)
{
	return mc_plat_mem_avail(addr, true);
}

static bool code_func_start(uintptr_t addr, uintptr_t *start)
{
	size_t size;

	return mc_plat_func_bounds(addr, start, &size);
}

const struct mc_rt_code mc_rt_site_code = { code_room, code_func_start };

#ifdef MC_RT_PAD_TRAMP
#define PADS_PATCHABLE 1
#else
#define PADS_PATCHABLE 0
#endif

static const char *hook_style(uintptr_t target, uint8_t *style)
{
	/* the image's own way to the stubs (a shared library's PLT) */
	for (unsigned i = 0; i < cur->nstubs; i++) {
		if (target == cur->stub[i]) {
			*style = cur->stub_style[i];
			return NULL;
		}
	}
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
#ifdef MC_RT_STUB_SLOT
	/*
	 * Last (it reads the target's code): a linker stub in the image's
	 * text that jumps through a slot bound to a stub (ppc64le's)
	 */
	uintptr_t slot = MC_RT_STUB_SLOT(&mc_rt_site_code, target, cur->got);

	for (unsigned i = 0; slot && i < cur->nstubs; i++) {
		if (slot == cur->stub[i]) {
			*style = cur->stub_style[i];
			return NULL;
		}
	}
#endif
	return "call to something other than " MC_RT_STUB_NAMES;
}

/* The pointer an indirect hook call would load (a GOT slot). */
static const char *slot_style(uintptr_t slot, uint8_t *style)
{
	uintptr_t target;

	/* a slot the image's relocations bind to a stub, whichever it is */
	for (unsigned i = 0; i < cur->nstubs; i++) {
		if (slot == cur->stub[i]) {
			*style = cur->stub_style[i];
			return NULL;
		}
	}
	if (mc_plat_mem_avail(slot, false) < sizeof(target))
		return "indirect call through an unmapped pointer";
	mc_bytes_copy((uint8_t *)&target, (const uint8_t *)slot,
		      sizeof(target));
	return hook_style(target, style);
}

/* The same, for a pointer `offset` bytes from the image's GOT. */
static const char *got_slot_style(uint64_t offset, uint8_t *style)
{
	if (!cur->got)
		return "call through the GOT, whose address this backend "
		       "does not know";
	return slot_style(cur->got + (uintptr_t)offset, style);
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
	return MC_RT_SITE_ARCH(&mc_rt_site_code, addr);
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

/* True if the platform's symbols say a function starts at `addr`. */
static bool is_entry(uintptr_t addr)
{
	uintptr_t start;
	size_t size;

	/* a Thumb function's start carries MC_RT_ISA_BITS; addr does not */
	if (mc_plat_func_bounds(addr, &start, &size) &&
	    (start & ~(uintptr_t)MC_RT_ISA_BITS) == addr)
		return true;
#ifdef MC_RT_LOCAL_ENTRY
	return MC_RT_LOCAL_ENTRY(&mc_rt_site_code, addr);	/* ppc64le's second entry point */
#else
	return false;
#endif
}

/* True if an entry prefix (endbr64, bti c) ends right at `addr`. */
static bool prefix_ends_at(const struct mc_arch *arch, uintptr_t addr)
{
	for (unsigned i = 0; i < arch->n_entry_prefixes; i++) {
		unsigned len = arch->entry_prefixes[i].len;

		if (addr >= len && mc_plat_mem_avail(addr - len, true) >= len &&
		    mc_match_insn(&arch->entry_prefixes[i], 1,
				  (const uint8_t *)(addr - len), len))
			return true;
	}
	return false;
}

/* A pad as find_pad_slot() measured it, offsets from the table's entry. */
struct pad {
	size_t nops;		/* bytes of pad NOPs and prefix from the entry */
	size_t slot;		/* first NOP at or after the function's entry */
	unsigned len;		/* bytes of whole NOPs the call takes there */
	bool at_entry;		/* symbols or an entry prefix say where that is */
};

/*
 * The pad at `addr` (p, n bytes readable): pad NOPs, with at most one
 * entry prefix among them, which GCC puts at the function's entry.  The
 * entry is where the platform's symbols start a function inside the
 * pad, else that prefix, else `addr` itself (M = 0; when M > 0 and the
 * platform has no symbols the call lands in NOPs a call skips, and
 * simply never fires).  NULL when the NOPs from the entry on (past the
 * prefix) take the hook call, as mc_pad_unusable() judges them, the
 * same question recordmcount asks (pad->len bytes of them); else why
 * not.
 */
static const char *find_pad_slot(const struct mc_arch *arch, uintptr_t addr,
				 const uint8_t *p, size_t n, struct pad *pad)
{
	size_t off = 0, entry = MC_MAX_SITE_LEN, pre = MC_MAX_SITE_LEN, post = 0;
	unsigned k;

	for (;; off += k) {
		if (entry == MC_MAX_SITE_LEN && is_entry(addr + off))
			entry = off;
		k = mc_match_insn(arch->pad_nops, arch->n_pad_nops, p + off,
				  n - off);
		if (k)
			continue;
		if (pre != MC_MAX_SITE_LEN)
			break;
		k = mc_match_insn(arch->entry_prefixes, arch->n_entry_prefixes,
				  p + off, n - off);
		if (!k)
			break;
		pre = off;
		post = off + k;
	}
	pad->nops = off;
	pad->at_entry = entry != MC_MAX_SITE_LEN || pre != MC_MAX_SITE_LEN ||
			prefix_ends_at(arch, addr);
	if (entry == MC_MAX_SITE_LEN)
		entry = pre != MC_MAX_SITE_LEN ? pre : 0;
	pad->slot = entry == pre ? post : entry;
	if (off == 0)
		return "not a hook call, NOP or NOP pad";
#ifdef MC_RT_PAD_REFUSE
	/* what follows the pad may say no call there can work (ppc64le) */
	{
		const char *refused = MC_RT_PAD_REFUSE(&mc_rt_site_code,
						   addr + off);

		if (refused)
			return refused;
	}
#endif
	/* the NOPs from the slot on, up to the prefix if it comes later */
	size_t end = pad->slot < pre && pre < off ? pre : off;

	return mc_pad_unusable(arch, p + pad->slot,
			       pad->slot < end ? end - pad->slot : 0,
			       &pad->len);
}

/*
 * Is the site at s->addr, which decoded as `d` (a NOP or nothing), a
 * pad?  Bytes that also read as a hook call's neutral form (x86's
 * 5-byte nopl, a riscv64 `nop; nop`, an aarch64 `nop`) are a pad only
 * where they hold pad NOPs and either start at a function's entry (by
 * its symbol or entry prefix), or fit a pad where no known function
 * says otherwise; else they are a -pg or -mfentry site patched before.
 * NULL if `s` is a pad we may patch (filling at, len, style, neutral);
 * else why not, with site_at(s) where the pad went wrong when known.
 * *taken: the answer is about a pad, not the hook's NOP.
 */
static const char *classify_pad(struct rt_site *s, const struct mc_arch *arch,
				const struct mc_site *d, const uint8_t *p,
				size_t n, bool *taken)
{
	uintptr_t start;
	size_t size;
	struct pad pad;
	const char *why;

	*taken = d->kind != MC_SITE_NOP;
	if (!PADS_PATCHABLE || !arch->pad_call_len)
		return "not a hook call or NOP";
	why = find_pad_slot(arch, s->addr, p, n, &pad);
	if (d->kind == MC_SITE_NOP)
		*taken = pad.nops &&
			 (pad.at_entry ||
			  (!why && !mc_plat_func_bounds(s->addr, &start, &size)));
	if (!*taken)
		return why;
	if (pad.slot < n)	/* n <= MC_MAX_SITE_LEN: it fits the byte */
		s->at_off = (uint8_t)pad.slot;
	if (why)
		return why;
	s->style = MCOUNT_STYLE_PAD;
	s->neutral = mc_pad_neutral(arch, p + pad.slot, n - pad.slot, &pad.len);
	s->len = (uint8_t)pad.len;
	return NULL;
}

/* The style whose trampoline is `target`; false if none is. */
static bool tramp_style(uintptr_t target, uint8_t *style)
{
#ifdef MC_RT_FENTRY_STUB
	if (target == (uintptr_t)&mc_rt_tramp_fentry) {
		*style = MCOUNT_STYLE_FENTRY;
		return true;
	}
#endif
#if defined(MC_RT_MCOUNT_STUB) && !defined(MC_RT_MCOUNT_TRAMP)
	if (target == (uintptr_t)&mc_rt_tramp_mcount) {
		*style = MCOUNT_STYLE_MCOUNT;
		return true;
	}
#endif
	(void)target;
	(void)style;
	return false;
}

/*
 * The neutral bytes and the head of a disabled form `d`, which depend
 * on its arch and length alone (arch.h's decode_disabled): asked of the
 * arch once per length and image, not once per site.  NULL neutral
 * bytes: the form has none, and is not taken.
 */
static struct {
	const struct mc_arch *arch;	/* NULL: nothing kept (image_boot) */
	uint8_t len;
	int8_t head;
	const uint8_t *neutral;
} form_facts;

static bool disabled_facts(const struct mc_arch *arch, const struct mc_site *d,
			   struct rt_site *s)
{
	uint8_t test;

	if (form_facts.arch != arch || form_facts.len != d->len) {
		form_facts.arch = arch;
		form_facts.len = d->len;
		form_facts.neutral = mc_site_neutral(arch, d);
		form_facts.head = (int8_t)arch->live_opcode(arch, d->len,
							    false, &test);
	}
	s->neutral = form_facts.neutral;
	s->head = form_facts.head;
	return s->neutral != NULL;
}

/*
 * A hook left in its disabled live form by `recordmcount --finalize
 * --prepatch` (arch.h's decode_disabled: every byte of it read).  Taken
 * only when the call it stands for goes to the trampoline this runtime
 * calls for that style: the bytes are then exactly what boot would
 * write (write_opcode_form), so the site is classified here, its head
 * known, and nothing is written.  A form aimed anywhere else (another
 * copy of the runtime, a stale link) is not taken, and is refused as
 * bytes that are no hook.
 */
static bool classify_disabled(struct rt_site *s, const struct mc_arch *arch,
			      const uint8_t *p, size_t n)
{
	struct mc_site d;
	uint8_t style;

	if (!arch->decode_disabled || !arch->live_opcode)
		return false;
	d = arch->decode_disabled(arch, p, n, s->addr);
	if (d.kind != MC_SITE_CALL ||
	    !tramp_style((uintptr_t)d.target, &style) ||
	    !disabled_facts(arch, &d, s))
		return false;
	s->style = style;
	s->len = d.len;
	s->head_len = 1;
	s->found = FOUND_DISABLED;
	return true;
}

/*
 * Whether the last site classify() read was in its disabled form: a
 * program is prepatched whole or not at all, so that form is tried
 * first after such a site and last after any other.
 */
static bool expect_disabled;

/*
 * The last direct hook call classify judged in full: its arch, length
 * and target, the style hook_style gave that target and the neutral
 * bytes the arch gave that decoded site.  Both answers depend on
 * nothing else (the image's stubs are fixed while it boots, and
 * site_neutral sees only the arch and the decoded site), so a site
 * that decodes to the same call takes them from here: in a program
 * built one way, every site but the first.  Forgotten by image_boot.
 */
static struct {
	const struct mc_arch *arch;	/* NULL: nothing kept */
	uint64_t target;
	uint8_t len, style;
	const uint8_t *neutral;
	/*
	 * Where boot_site has written such a call in its disabled form
	 * (write_call_now): the trampoline it called, and the opcode byte
	 * changed (boot_calls_now); 0 until then.
	 */
	uintptr_t tramp;
	uint8_t op, test;
} last_call;

static bool same_call(const struct mc_arch *arch, const struct mc_site *d)
{
	return d->kind == MC_SITE_CALL && arch == last_call.arch &&
	       d->target == last_call.target && d->len == last_call.len;
}

static void keep_call(const struct mc_arch *arch, const struct mc_site *d,
		      uint8_t style, const uint8_t *neutral)
{
	if (d->kind != MC_SITE_CALL)
		return;
	last_call.arch = arch;
	last_call.target = d->target;
	last_call.len = d->len;
	last_call.style = style;
	last_call.neutral = neutral;
	last_call.tramp = 0;
}

/*
 * The part of classify that asks about the site's own place, not its
 * call (the backend's hooks), and whether it has neutral bytes: NULL
 * if `s`, its style and neutral bytes filled (or NULL: none), may be
 * patched; else why not.  `call`: it holds a call.
 */
static const char *classify_place(struct rt_site *s, bool call)
{
#ifdef MC_RT_SITE_STYLE
	s->style = MC_RT_SITE_STYLE(&mc_rt_site_code, s->addr, s->style);
#endif
#ifdef MC_RT_SITE_CALLER
	/*
	 * Optional, where the backend's trampoline must be told how a hook
	 * passes its caller (riscv64: in a0, or in the frame): NULL with
	 * a byte of the backend's in s->caller, which MC_RT_MCOUNT_TRAMP
	 * turns into the trampoline to call; else why the code before the
	 * hook does not say, and the site is refused.
	 */
	const char *why = MC_RT_SITE_CALLER(&mc_rt_site_code, site_at(s),
					    &s->caller);

	if (why)
		return why;
#endif
	if (!s->neutral)
		return "no neutral form for this hook";
#ifdef MC_RT_SITE_NEUTRAL
	/*
	 * Optional, where the code after a hook may need other neutral
	 * bytes than the arch's (ppc64le's TOC restore after a call through
	 * a linker stub, which the disabled form branches over): NULL with
	 * s->neutral kept or replaced; else why no neutral form is safe.
	 */
	return MC_RT_SITE_NEUTRAL(&mc_rt_site_code, site_at(s), call,
				  &s->neutral);
#else
	(void)call;
	return NULL;
#endif
}

/*
 * NULL if `s` is a hook we may patch; else why not.  Fills at, len,
 * style and the bytes that neutralise it; *is_nop when it needs no
 * patching at boot.
 */
static const char *classify(struct rt_site *s, const uint8_t *p, size_t n,
			    bool *is_nop)
{
	const struct mc_arch *arch = site_arch(s->addr);
	struct mc_site d;
	const char *why;
	bool pad;

	if (!arch)
		/* ARM: no push {lr} before it, no pad NOP (or push) at it */
		return "not a hook call, NOP or NOP pad (nor preceded by the "
		       "code a hook call needs)";
	s->arch = arch;
	if (expect_disabled && classify_disabled(s, arch, p, n)) {
		*is_nop = true;
		return NULL;
	}
	d = mc_decode_site(arch, p, n, s->addr);
	expect_disabled = d.kind == MC_SITE_UNKNOWN && !expect_disabled &&
			  classify_disabled(s, arch, p, n);
	if (expect_disabled) {
		*is_nop = true;
		return NULL;
	}
	if (same_call(arch, &d)) {
		*is_nop = false;
		s->len = d.len;
		s->style = last_call.style;
		s->neutral = last_call.neutral;
		return classify_place(s, true);
	}
	why = classify_kind(s, &d, is_nop);
	if (d.kind == MC_SITE_NOP || d.kind == MC_SITE_UNKNOWN) {
		const char *pad_why = classify_pad(s, arch, &d, p, n, &pad);

		*is_nop = true;
		if (pad)
			return pad_why;
	}

	s->len = d.len;
	if (why)
		return why;
	if (arch->site_neutral && d.len > 0 && d.len <= MC_MAX_SITE_LEN)
		s->neutral = mc_site_neutral(arch, &d);
	if (s->neutral)
		keep_call(arch, &d, s->style, s->neutral);
	return classify_place(s, d.kind != MC_SITE_NOP);
}

/* Refused, and reported with the `n` bytes found at `where`. */
static void refuse(struct rt_site *s, uintptr_t where, const uint8_t *p,
		   size_t n, const char *why)
{
	s->state = MCOUNT_SITE_REFUSED;
	s->style = STYLE_DEFAULT;
	cur->counts.refused++;
	mc_plat_report(where, p, n, why);
}

/*
 * Code written by the boot pass and not yet made visible to instruction
 * fetch: [lo, hi).  Nothing runs the patched code until mcount_boot()
 * returns (the engine and the platform are not traced), so one flush of
 * the whole span at the end serves every site.
 */
static struct {
	bool on;
	uintptr_t lo, hi;
} deferred_flush;

/* An image's boot pass is running (image_boot): it may open whole spans. */
static bool boot_pass;

/*
 * The platform's last answers, so that the boot pass asks once per
 * mapping rather than once per site (the table is sorted, so its sites
 * come in runs inside one text segment): code readable in
 * [code.lo, code.hi), and writable in [open.lo, open.hi) until
 * text_close().  Both are forgotten when the window closes.
 */
static struct {
	uintptr_t lo, hi;
} code_span, open_span;

/* mc_plat_mem_avail(addr, true), from the last answer when it covers addr. */
static size_t code_avail(uintptr_t addr)
{
	size_t n;

	if (addr >= code_span.lo && addr < code_span.hi)
		return code_span.hi - addr;
	n = mc_plat_mem_avail(addr, true);
	code_span.lo = addr;
	code_span.hi = addr + n;
	return n;
}

static void text_close(void)
{
	mc_plat_text_close();
	code_span.lo = code_span.hi = 0;
	open_span.lo = open_span.hi = 0;
}

/* text_open's answer when [addr, addr + len) is not open yet. */
static bool open_more(uintptr_t addr, size_t len, bool rest)
{
	size_t n = code_avail(addr);

	if (n < len || mc_plat_text_open(addr, rest ? n : len) != 0)
		return false;
	open_span.lo = addr;
	open_span.hi = addr + (rest ? n : len);
	return true;
}

/*
 * Make [addr, addr + len) writable.  `rest`: the boot pass, which goes
 * up through the sorted sites, asks the platform to open the rest of
 * the code mapping that holds it, so that the next sites need no call
 * (and only this test, inline); a live toggle opens only what it writes.
 */
static inline bool text_open(uintptr_t addr, size_t len, bool rest)
{
	if (addr >= open_span.lo && addr < open_span.hi &&
	    len <= open_span.hi - addr)
		return true;
	return open_more(addr, len, rest);
}

/*
 * Writes farther than this from the span gathered so far start a span
 * of their own, the old one flushed first: a batch across objects (the
 * program's sites and a library's, gigabytes apart) must not make the
 * platform clean every cache line in between (on aarch64, a `dc cvau`
 * per 64 bytes of the gap).
 */
#define FLUSH_GAP ((uintptr_t)64 * 1024)

/*
 * note_written's answer where `addr` is not just past (or inside) the
 * span gathered so far: flush now, start a span, or widen it downward.
 */
static void note_written_far(uintptr_t addr, size_t len)
{
	if (!deferred_flush.on) {
		mc_plat_flush_icache(addr, len);
		return;
	}
	if (deferred_flush.hi > deferred_flush.lo &&
	    (addr + len + FLUSH_GAP < deferred_flush.lo ||
	     addr > deferred_flush.hi + FLUSH_GAP)) {
		mc_plat_flush_icache(deferred_flush.lo,
				     deferred_flush.hi - deferred_flush.lo);
		deferred_flush.lo = deferred_flush.hi = 0;
	}
	if (deferred_flush.lo == deferred_flush.hi || addr < deferred_flush.lo)
		deferred_flush.lo = addr;
	if (addr + len > deferred_flush.hi)
		deferred_flush.hi = addr + len;
}

/*
 * Code just written at [addr, addr + len): flush now, or with the
 * batch.  Inline for the boot pass's usual case, a site just past the
 * last one written (the sites come sorted): the span grows.
 */
static inline void note_written(uintptr_t addr, size_t len)
{
	if (deferred_flush.on && deferred_flush.lo < deferred_flush.hi &&
	    addr >= deferred_flush.lo &&
	    addr <= deferred_flush.hi + FLUSH_GAP) {
		if (addr + len > deferred_flush.hi)
			deferred_flush.hi = addr + len;
		return;
	}
	note_written_far(addr, len);
}

/*
 * Write `len` bytes of code with plain stores: only where no other
 * thread runs it (boot, or a process of one thread).  The caller closes
 * the text window.
 */
static inline int write_code(uintptr_t addr, const uint8_t *code,
			     unsigned len)
{
	if (!text_open(addr, len, boot_pass))
		return MCOUNT_EPROTECT;
	mc_bytes_copy((uint8_t *)addr, code, len);
	note_written(addr, len);
	return MCOUNT_OK;
}

/* ---- live forms -------------------------------------------------------- */

static uintptr_t trampoline(const struct rt_site *s);

/* A call from `s` to `target` into `out`, if it reaches. */
static bool encode_call_to(const struct rt_site *s, uint8_t *out,
			   uintptr_t target)
{
	if (s->style == MCOUNT_STYLE_PAD)
		return mc_encode_pad_call(s->arch, out, s->len, site_at(s),
					  target);
	return mc_encode_call(s->arch, out, s->len, site_at(s), target);
}

/* The thunk of `cur` that jumps to `tramp`; 0 if it has none. */
static uintptr_t thunk_of(uintptr_t tramp)
{
	for (unsigned i = 0; i < cur->nthunks; i++)
		if (cur->thunk_to[i] == tramp)
			return cur->thunk + i * MC_RT_ARCH->thunk_len;
	return 0;
}

/*
 * The call that enables `s` (in `cur`), into `out`: to its trampoline,
 * or where that is out of the call's reach, to the image's thunk that
 * jumps there.  Which one is fixed from the image's boot on, so that
 * the live forms computed then still hold.
 */
static bool encode_hook(const struct rt_site *s, uint8_t *out)
{
	uintptr_t tramp = trampoline(s), thunk;

	/* No entry reads the site now: its code changed under us. */
	if (!tramp || !s->arch)
		return false;
	if (encode_call_to(s, out, tramp))
		return true;
	thunk = thunk_of(tramp);
	return thunk && encode_call_to(s, out, thunk);
}

/* Bytes before a site that its live forms cover (ARM's push). */
static unsigned live_prelude(const struct rt_site *s)
{
	return s->style == MCOUNT_STYLE_PAD ? 0 : s->arch->live_prelude;
}

/*
 * The live span [at - pre, at + len) of `s` enabled (`on`) and disabled
 * (`off`), from the arch's live_forms; false if it has none.
 */
static bool live_forms(const struct rt_site *s, uint8_t *on, uint8_t *off,
		       unsigned *pre)
{
	const struct mc_arch *arch = s->arch;

	*pre = live_prelude(s);
	if (*pre > site_at(s) || code_avail(site_at(s) - *pre) < *pre + s->len)
		return false;
	mc_bytes_copy(on, (const uint8_t *)(site_at(s) - *pre), *pre);
	if (!encode_hook(s, on + *pre))
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
 * write_disabled_form where the arch says which one byte a hook's live
 * forms differ in (arch.h's live_opcode): the disabled form is the
 * call with that byte changed, and that byte is the head.  The site's
 * len bytes are code: classification read them.
 */
static int write_opcode_form(struct rt_site *s, bool was_call)
{
	uint8_t form[MC_MAX_SITE_LEN], test;
	unsigned op;

	if (!encode_hook(s, form))	/* no live form: as write_disabled_form */
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

/*
 * At boot, while nothing else runs: write the disabled form of `s`'s
 * live forms over its bytes (and its prelude), or, where it has none,
 * its neutral bytes if it was a call (`was_call`).
 */
static int write_disabled_form(struct rt_site *s, bool was_call)
{
	uint8_t on[2 * MC_MAX_SITE_LEN], off[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	s->head_len = 0;
	if (s->arch && s->arch->live_store_max && s->arch->live_opcode &&
	    !live_prelude(s))
		return write_opcode_form(s, was_call);
	if (s->arch && s->arch->live_store_max && live_forms(s, on, off, &pre)) {
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

/*
 * Whether write_call_now may write a hook of `len` bytes that `arch`
 * reads (the arch says which one byte its live forms differ in, and it
 * has no prelude), and if so that byte's offset and its value in the
 * disabled form (arch.h's live_opcode): asked of the arch once per
 * arch, length and image (image_boot forgets it), not once per site.
 */
static struct {
	const struct mc_arch *arch;	/* NULL: nothing kept */
	uint8_t len, op, test;
	bool now;
} opcode_facts;

static void know_opcode(const struct mc_arch *arch, unsigned len)
{
	if (opcode_facts.arch == arch && opcode_facts.len == len)
		return;
	opcode_facts.arch = arch;
	opcode_facts.len = (uint8_t)len;
	opcode_facts.now = arch->live_store_max && arch->live_opcode &&
			   !arch->live_prelude;
	if (opcode_facts.now)
		opcode_facts.op = (uint8_t)arch->live_opcode(arch, len, false,
							     &opcode_facts.test);
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
static bool wrote_now;	/* write_call_now wrote a site in this image */

static bool write_call_now(struct rt_site *s)
{
	uint8_t form[MC_MAX_SITE_LEN];
	uintptr_t tramp;

	if (s->style == MCOUNT_STYLE_PAD)
		return false;
	know_opcode(s->arch, s->len);
	if (!opcode_facts.now)
		return false;
	tramp = trampoline(s);
	if (!tramp || !mc_encode_call(s->arch, form, s->len, site_at(s), tramp))
		return false;
	form[opcode_facts.op] = opcode_facts.test;
	if (!text_open(site_at(s), s->len, true))
		return false;
	/*
	 * Everything but the store first: a byte store may alias any of
	 * it, so that the compiler would load it all again after.  No
	 * note_written: image_boot flushes the span of every site once.
	 */
	s->head = (int8_t)opcode_facts.op;
	s->head_len = 1;
	s->found = FOUND_WRITTEN;
	cur->counts.patched++;
	wrote_now = true;
	mc_bytes_copy((uint8_t *)site_at(s), form, s->len);
	return true;
}

#ifdef MC_RT_CALL_REL32
/*
 * A direct call whose last four bytes are its target's displacement
 * from its end, little-endian (the backend's MC_RT_CALL_REL32: x86).
 * Its other bytes do not depend on where it is, so for a run of such
 * calls to one hook stub boot_calls_now matches each site against the
 * first one's bytes and writes the first one's form re-aimed, with no
 * call to the arch's decoder or encoder: what they gave for the first
 * call is checked here to have that shape, once per run.
 */
static struct {
	bool ok;			/* the rest holds a run's first call */
	uint8_t call[MC_MAX_SITE_LEN];	/* its bytes as found */
	uint8_t form[MC_MAX_SITE_LEN];	/* its disabled form, as written */
} rel32_run;

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
static void keep_rel32_run(const struct rt_site *s, const uint8_t *was)
{
	uintptr_t at = site_at(s);
	size_t len = s->len;
	const uint8_t *form = (const uint8_t *)at;

	rel32_run.ok = len > 4 && len <= MC_MAX_SITE_LEN &&
		       last_call.op < len - 4 &&
		       rel32_reaches(rel32_at(was + len - 4), at, len,
				     (uintptr_t)last_call.target) &&
		       rel32_reaches(rel32_at(form + len - 4), at, len,
				     last_call.tramp);
	if (!rel32_run.ok)
		return;
	mc_bytes_copy(rel32_run.call, was, len);
	mc_bytes_copy(rel32_run.form, form, len);
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
static bool boot_site(struct rt_site *s, uintptr_t *end)
{
	size_t n = code_avail(s->addr);
	const uint8_t *p = (const uint8_t *)s->addr;
	const char *why;
	bool is_nop;

	if (n == 0) {
		refuse(s, s->addr, NULL, 0, "not in the program's code");
		return false;
	}
	if (n > MC_MAX_SITE_LEN)
		n = MC_MAX_SITE_LEN;
	why = classify(s, p, n, &is_nop);
	if (!why && site_at(s) < *end) {
		cur->counts.duplicates++;
		why = "the same hook as the table's previous entry";
	}
	if (why) {
		/* where the bad bytes are: a pad's slot, if it got that far */
		size_t off = s->at_off;

		refuse(s, s->addr + off, p + off, n - off, why);
		return false;
	}
	*end = site_at(s) + s->len;
	s->state = MCOUNT_SITE_NOP;
	if (s->found == FOUND_DISABLED) {	/* classify_disabled did it all */
		cur->counts.nops++;
		return false;
	}
	s->found = is_nop ? FOUND_NOP : FOUND_CALL;
	if (is_nop)
		return true;
#ifdef MC_RT_CALL_REL32
	uint8_t was[MC_MAX_SITE_LEN];

	mc_bytes_copy(was, p + s->at_off, s->len);
#endif
	if (!write_call_now(s))
		return true;
	if (s->arch == last_call.arch && s->len == last_call.len &&
	    s->style == last_call.style) {
		last_call.tramp = trampoline(s);
		last_call.op = opcode_facts.op;
		last_call.test = opcode_facts.test;
#ifdef MC_RT_CALL_REL32
		keep_rel32_run(s, was);
#endif
	}
	return false;
}

/*
 * Second pass, once every site's style is known (guess_nop_styles):
 * write the disabled form of each accepted site the first pass did not
 * write (write_call_now).
 */
static void disable_site(struct rt_site *s)
{
	if (s->state == MCOUNT_SITE_REFUSED || s->found == FOUND_DISABLED ||
	    s->found == FOUND_WRITTEN)
		return;
	if (write_disabled_form(s, s->found == FOUND_CALL) != MCOUNT_OK) {
		refuse(s, s->addr, (const uint8_t *)s->addr, s->len,
		       "text not writable");
		return;
	}
	if (s->found != FOUND_CALL) {
		cur->counts.nops++;
		cur->counts.pads += s->style == MCOUNT_STYLE_PAD;
	} else {
		cur->counts.patched++;
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

/*
 * An entry `recordmcount --finalize` (or the kernel's sorttable) cleared
 * because its function is gone: 0, or in a PIE, whose loader adds its
 * load address to every entry, that address (where the ELF header is).
 * Skipped as ftrace skips them, and not counted as sites.
 */
static bool is_cleared(uintptr_t entry)
{
	return entry == 0 || entry == (uintptr_t)__ehdr_start;
}

/*
 * Copy the table, sort it, drop (and report) repeated entries.  The
 * copy notes whether the table is already in order without repeats (as
 * the tool and the linkers other than gold leave it), and then that is
 * all: one pass over the table.
 */
static size_t load_table(struct rt_site *sites, const uintptr_t *tab,
			 size_t n)
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
	cur->nsites = live;
	if (in_order)
		return live;
	sort_sites(sites, live);
	nsites = 0;
	for (size_t i = 0; i < live; i++) {
		if (nsites && sites[nsites - 1].addr == sites[i].addr) {
			cur->counts.refused++;
			cur->counts.duplicates++;
			mc_plat_report(sites[i].addr, NULL, 0,
				       "duplicate table entry");
			continue;
		}
		if (nsites != i)	/* only once a duplicate was dropped */
			sites[nsites] = sites[i];
		nsites++;
	}
	cur->nsites = nsites;
	return live;
}

/*
 * True if the table's live entries rise strictly, as the tool and the
 * linkers other than gold leave them: then boot_in_order classifies
 * them straight from the table, with no sort and no repeat to drop.
 */
static bool table_in_order(const uintptr_t *tab, size_t n)
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
static bool table_lazy(const uintptr_t *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_cleared(tab[i]) || (i && tab[i] <= tab[i - 1]))
			return false;
	return true;
}

/*
 * For boot_calls_now: whether the bytes at `addr` are a call of `len`
 * bytes to `target`, exactly as the run's first one decoded, and if so
 * its call to `tramp` in `form`.
 */
static inline bool run_call_form(uint8_t *form, const struct mc_arch *arch,
				 uintptr_t addr, uint8_t len, uintptr_t target,
				 uintptr_t tramp)
{
#ifdef MC_RT_CALL_REL32
	if (rel32_run.ok) {
		const uint8_t *p = (const uint8_t *)addr;
		uint32_t rel = (uint32_t)(tramp - (addr + len));

		for (unsigned j = 0; j < len - 4u; j++)
			if (p[j] != rel32_run.call[j])
				return false;
		if (!rel32_reaches(rel32_at(p + len - 4), addr, len, target) ||
		    !rel32_reaches(rel, addr, len, tramp))
			return false;
		mc_bytes_copy(form, rel32_run.form, len);
		put_rel32(form + len - 4, rel);
		return true;
	}
#endif
	struct mc_site d = mc_decode_site(arch, (const uint8_t *)addr,
					  MC_MAX_SITE_LEN, addr);

	return d.kind == MC_SITE_CALL && d.target == target && d.len == len &&
	       mc_encode_call(arch, form, len, addr, tramp);
}

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
 * boot_site.  Only once such a call was written (last_call.tramp).
 */
static size_t boot_calls_now(struct rt_site *sites, size_t *live,
			     const uintptr_t *tab, size_t step, size_t i,
			     size_t n, uintptr_t *end, struct rt_site *form_of)
{
#if defined(MC_RT_SITE_ARCH) || defined(MC_RT_SITE_STYLE) || \
	defined(MC_RT_SITE_CALLER) || defined(MC_RT_SITE_NEUTRAL)
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
	const uintptr_t tramp = last_call.tramp, target = last_call.target;
	const uint8_t *const neutral = last_call.neutral;
	const uint8_t len = last_call.len, op = last_call.op;
	const uint8_t test = last_call.test, style = last_call.style;
	/* the lowest and highest address such a site may start at */
	uintptr_t e = *end > open_span.lo ? *end : open_span.lo;
	const uintptr_t top = open_span.hi - MC_MAX_SITE_LEN;
	size_t k = *live;

	*form_of = (struct rt_site){
		.neutral = neutral, .arch = arch, .len = len, .style = style,
		.state = MCOUNT_SITE_NOP, .found = FOUND_WRITTEN,
		.head = (int8_t)op, .head_len = 1 };
	if (open_span.hi - open_span.lo < MC_MAX_SITE_LEN)
		return i;
	for (const uintptr_t *t = tab + i * step; i < n; i++, k++, t += step) {
		uintptr_t addr = *t;
		uint8_t form[MC_MAX_SITE_LEN];

		if (addr < e || addr > top)
			break;
		if (!run_call_form(form, arch, addr, len, target, tramp))
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
		expect_disabled = false;
	cur->counts.patched += k - *live;
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
#if defined(MC_RT_CALL_REL32) && !defined(MC_RT_SITE_ARCH) && \
	!defined(MC_RT_SITE_STYLE) && !defined(MC_RT_SITE_CALLER) && \
	!defined(MC_RT_SITE_NEUTRAL)
#define MC_RT_DISABLED_RUNS 1
static struct {
	bool ok;			/* the rest holds a run's first site */
	uint8_t bytes[MC_MAX_SITE_LEN];	/* its bytes */
	uintptr_t tramp;		/* where its displacement reaches */
	struct rt_site form;		/* its record */
} dis_run;

/* Keep site `s`, just taken whole as a disabled form, as a run's first. */
static void keep_disabled_run(const struct rt_site *s)
{
	const uint8_t *p = (const uint8_t *)s->addr;
	size_t len = s->len;

	dis_run.ok = s->found == FOUND_DISABLED && s->at_off == 0 &&
		     len > 4 && len <= MC_MAX_SITE_LEN &&
		     code_avail(s->addr) >= MC_MAX_SITE_LEN;
	if (!dis_run.ok)
		return;
	mc_bytes_copy(dis_run.bytes, p, len);
	dis_run.tramp = s->addr + len +
			(uintptr_t)(intptr_t)(int32_t)rel32_at(p + len - 4);
	dis_run.form = *s;
}

/*
 * From tab[i] on (a table of live entries in order), each site that
 * holds the run's disabled form, aimed at the same trampoline, with
 * MC_MAX_SITE_LEN bytes readable from it (what classify would have
 * read) and past the previous site's bytes (*end): counted as a NOP
 * site, nothing written.  Returns the first entry it left to boot_site.
 */
static size_t boot_disabled_now(const uintptr_t *tab, size_t i, size_t n,
				uintptr_t *end)
{
	const size_t len = dis_run.form.len;
	const uintptr_t tramp = dis_run.tramp, lo = code_span.lo;
	const uintptr_t top = code_span.hi - MC_MAX_SITE_LEN;
	uintptr_t e = *end;
	size_t from = i;

	if (code_span.hi - code_span.lo < MC_MAX_SITE_LEN)
		return i;
	for (; i < n; i++) {
		uintptr_t addr = tab[i];
		const uint8_t *p = (const uint8_t *)addr;
		unsigned j;

		if (addr < e || addr < lo || addr > top)
			break;
		for (j = 0; j < len - 4 && p[j] == dis_run.bytes[j]; j++)
			;
		if (j < len - 4 ||
		    !rel32_reaches(rel32_at(p + len - 4), addr, len, tramp))
			break;
		e = addr + len;
	}
	cur->counts.nops += i - from;
	*end = e;
	return i;
}
#endif

/* ---- sites kept as runs ---------------------------------------------- */

/* Whether `a` and `b` are alike in every field but addr. */
static inline bool same_form(const struct rt_site *a,
			     const struct rt_site *b)
{
	return a->neutral == b->neutral && a->arch == b->arch &&
	       a->at_off == b->at_off && a->len == b->len &&
	       a->style == b->style && a->state == b->state &&
	       a->caller == b->caller && a->found == b->found &&
	       a->head == b->head && a->head_len == b->head_len;
}

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
static bool boot_eager(struct rt_image *img, size_t upto)
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
static bool keep_lazily(struct rt_image *img, const struct rt_site *form,
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
	if (!boot_eager(img, from))
		return false;
	fill_records(img->sites, img, from, count, form);
	return true;
}

/* Site `i` of `img`: its record, or one made in *tmp from its run. */
static const struct rt_site *site_view(const struct rt_image *img, size_t i,
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
static int image_sites(struct rt_image *img)
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

/* image_sites for every image: MCOUNT_OK, or the first error. */
static int images_ready(void)
{
	for (size_t k = 0; k < nimages; k++) {
		int err = image_sites(&images[k]);

		if (err)
			return err;
	}
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
static int boot_in_order(struct rt_image *img, const uintptr_t *tab,
			 size_t step, size_t n, size_t *to_write,
			 size_t *unknown)
{
	uintptr_t end = 0;
	size_t live = 0;

	for (size_t i = 0; i < n; i++) {
		struct rt_site one, *s;
		uintptr_t addr;
		bool left;

		if (last_call.tramp) {
			size_t from = live;

			i = boot_calls_now(img->sites, &live, tab, step, i, n,
					   &end, &one);
			if (!img->sites && live > from &&
			    !keep_lazily(img, &one, from, live - from))
				return MCOUNT_ENOMEM;
			if (i == n)
				break;
		}
#ifdef MC_RT_DISABLED_RUNS
		if (dis_run.ok && !img->sites) {	/* step 1, site i is tab[i] */
			size_t from = i;

			i = boot_disabled_now(tab, i, n, &end);
			if (i > from && !keep_lazily(img, &dis_run.form, from,
						     i - from))
				return MCOUNT_ENOMEM;
			live += i - from;
			if (i == n)
				break;
		}
#endif
		addr = tab[i * step];
		if (is_cleared(addr))
			continue;
		s = img->sites ? &img->sites[live] : &one;
		*s = (struct rt_site){ .addr = addr, .style = STYLE_UNKNOWN };
		left = boot_site(s, &end);
		if (!img->sites && !left && img->nruns &&
		    same_form(&img->runs[img->nruns - 1].form, s))
			img->runs[img->nruns - 1].count++;	/* the usual case */
		else if (!img->sites &&
			 !(left ? boot_eager(img, live) :
			   keep_lazily(img, s, live, 1)))
			return MCOUNT_ENOMEM;
		if (left && s == &one) {
			img->sites[live] = one;
			s = &img->sites[live];
		}
		*to_write += left;
		*unknown += s->style == STYLE_UNKNOWN;
#ifdef MC_RT_DISABLED_RUNS
		if (!img->sites)
			keep_disabled_run(s);
#endif
		live++;
	}
	img->nsites = live;
	return MCOUNT_OK;
}

/* ---- thunks ------------------------------------------------------------ */

/*
 * Where the image's sites lie: from the first one's bytes to the end of
 * the last one's.  The sites are sorted by address, and each one's
 * bytes end less than 2 * MC_MAX_SITE_LEN past it (a pad's slot is
 * inside the bytes classify read, its len at most that many), so the
 * end is among the last few, which are read from the top down.
 */
static void image_span(const struct rt_image *img, uintptr_t *lo,
		       uintptr_t *hi)
{
	struct rt_site tmp;

	*lo = img->nsites ? site_view(img, 0, &tmp)->addr : 0;
	*hi = 0;
	for (size_t i = img->nsites; i-- > 0;) {
		const struct rt_site *s = site_view(img, i, &tmp);

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
static void image_thunks(struct rt_image *img)
{
	uint8_t code[MC_RT_MAX_THUNKS * MC_MAX_THUNK_LEN];
	uint8_t call[MC_MAX_SITE_LEN];
	uint64_t reach = MC_RT_ARCH->call_reach, far = 0;
	uintptr_t lo, hi;

	img->thunk = 0;
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
	image_span(img, &lo, &hi);
	img->thunk_size = img->nthunks * MC_RT_ARCH->thunk_len;
	img->thunk = mc_plat_thunk_map(lo, hi, reach, code, img->thunk_size);
	if (!img->thunk && far > reach)
		img->thunk = mc_plat_thunk_map(lo, hi, far, code,
					       img->thunk_size);
	if (!img->thunk)
		img->nthunks = 0;
}

/* ---- images ------------------------------------------------------------ */

/*
 * With every site classified and every style known: the thunks its
 * calls need, then each accepted site the classifying pass left gets
 * its disabled form.
 */
static void write_disabled_forms(struct rt_image *img)
{
	image_thunks(img);
	for (size_t i = 0; i < img->nsites; i++)
		disable_site(&img->sites[i]);
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
static int image_boot(struct rt_image *img, const uintptr_t *tab, size_t n)
{
	bool lazy = table_lazy(tab, n);
	struct rt_site *sites = NULL;
	size_t to_write = 0, unknown = 0;
	int err = MCOUNT_OK;

	if (!lazy) {
		sites = mc_plat_alloc(n ? n * sizeof(*sites) : 1);
		if (!sites)
			return MCOUNT_ENOMEM;
	}
	cur = img;
	boot_pass = true;
	form_facts.arch = NULL;
	opcode_facts.arch = NULL;
	last_call.arch = NULL;
	last_call.tramp = 0;	/* another image's stub is no hook here */
#ifdef MC_RT_DISABLED_RUNS
	dis_run.ok = false;
#endif
	wrote_now = false;
	expect_disabled = false;
	img->sites = sites;
	img->tab = tab;
	img->nruns = 0;
	deferred_flush.on = true;
	deferred_flush.lo = deferred_flush.hi = 0;
	if (lazy || table_in_order(tab, n)) {
		img->counts.sites = n;	/* what boot_eager makes room for */
		err = boot_in_order(img, tab, 1, n, &to_write, &unknown);
		img->counts.sites = img->nsites;
	} else {
		img->counts.sites = load_table(sites, tab, n);
		err = boot_in_order(img, &sites[0].addr,
				    sizeof(*sites) / sizeof(sites[0].addr),
				    img->nsites, &to_write, &unknown);
	}
	if (!err && unknown)
		guess_nop_styles(img->sites, img->nsites);
	if (!err && to_write)	/* else all written or as --prepatch left them */
		write_disabled_forms(img);
	if (!err && wrote_now) {	/* the span of every site holds what it wrote */
		uintptr_t lo, hi;

		image_span(img, &lo, &hi);
		note_written(lo, hi - lo);
	}
	deferred_flush.on = false;
	if (deferred_flush.hi > deferred_flush.lo)
		mc_plat_flush_icache(deferred_flush.lo,
				     deferred_flush.hi - deferred_flush.lo);
	text_close();
	boot_pass = false;
	return err;
}

/* Publish `img`'s bounds: from here on, dispatch may search its sites. */
static void image_publish(struct rt_image *img)
{
	uintptr_t lo, hi;

	image_span(img, &lo, &hi);
	__atomic_store_n(&img->lo, lo ? lo - 1 : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&img->hi, hi, __ATOMIC_RELEASE);
}

static struct rt_image *image_by_handle(uintptr_t handle)
{
	for (size_t k = 0; k < nimages; k++)
		if (images[k].used && images[k].handle == handle)
			return &images[k];
	return NULL;
}

static void counts_clear(struct mcount_counts *c)
{
	c->sites = c->patched = c->nops = c->refused = c->duplicates = 0;
	c->enabled = c->pads = 0;
}

/* A free slot: a released one first, else the next; NULL when full. */
static struct rt_image *free_slot(void)
{
	for (size_t k = 0; k < nimages; k++)
		if (!images[k].used)
			return &images[k];
	return nimages < MC_RT_MAX_IMAGES ? &images[nimages] : NULL;
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
	counts_clear(&img->counts);
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
	err = image_boot(img, d->start, (size_t)(d->stop - d->start));
	if (err) {
		if (img->sites && mc_plat_free)	/* made before it ran out */
			mc_plat_free(img->sites,
				     img->counts.sites * sizeof(*img->sites));
		img->sites = NULL;
		return err;
	}
	img->used = true;
	image_publish(img);
	if (img == &images[nimages])
		__atomic_store_n(&nimages, nimages + 1, __ATOMIC_RELEASE);
	return MCOUNT_OK;
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
	__atomic_store_n(&img->hi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&img->lo, 0, __ATOMIC_RELEASE);
	if (mc_plat_free && img->sites)
		mc_plat_free(img->sites, img->counts.sites * sizeof(*img->sites));
	if (mc_plat_free && img->funcs)
		mc_plat_free(img->funcs, img->nsites * sizeof(*img->funcs));
	img->used = false;
	img->sites = NULL;
	img->nruns = 0;
	img->funcs = NULL;
	img->nsites = 0;
	if (img->thunk && mc_plat_thunk_unmap)
		mc_plat_thunk_unmap(img->thunk, img->thunk_size);
	img->thunk = 0;
	img->nthunks = 0;
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
 * A platform that knows of several objects (hosted.c: the program and
 * its shared libraries) adds each through mc_rt_image_add from
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

	if (booted)
		return MCOUNT_OK;
	if (mc_plat_images) {
		err = mc_plat_images();
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
	__atomic_store_n(&booted, true, __ATOMIC_RELEASE);
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
	return __atomic_load_n(&booted, __ATOMIC_ACQUIRE);
}

void mcount_get_counts(struct mcount_counts *out)
{
	counts_clear(out);
	mc_plat_lock();
	for (size_t k = 0; k < nimages; k++) {
		const struct mcount_counts *c = &images[k].counts;

		if (!images[k].used)
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

/* ---- enabling and disabling -------------------------------------------- */

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
 * the callback will report; `cur` becomes the site's image.
 */
static struct rt_site *find_site(uintptr_t func, uintptr_t *start)
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
	for (size_t k = 0; k < nimages; k++) {
		struct rt_site *s = find_site_in(&images[k], code, code + size);

		if (s) {
			cur = &images[k];
			*start = lo;
			return s;
		}
	}
	return NULL;
}

/* The trampoline enabled site `s` calls; 0 if none. */
static uintptr_t trampoline(const struct rt_site *s)
{
	switch (s->style) {
#ifdef MC_RT_FENTRY_STUB
	case MCOUNT_STYLE_FENTRY:
		return (uintptr_t)&mc_rt_tramp_fentry;
#endif
#ifdef MC_RT_MCOUNT_STUB
	case MCOUNT_STYLE_MCOUNT:
#ifdef MC_RT_MCOUNT_TRAMP
		return MC_RT_MCOUNT_TRAMP(s->caller);
#else
		return (uintptr_t)&mc_rt_tramp_mcount;
#endif
#endif
#ifdef MC_RT_PAD_TRAMP
	case MCOUNT_STYLE_PAD:
		return (uintptr_t)&MC_RT_PAD_TRAMP;
#endif
	default:
		return 0;
	}
}

/*
 * Store the head word of `s`'s live form `on` or off: the form's bytes
 * inside the word, the code around them as it is, in one store of the
 * word's own size and alignment, which the CPU makes whole.  Another
 * thread running the site fetches the old instruction or the new one.
 */
static int store_head(struct rt_site *s, bool on)
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

	if (!live_forms(s, on_b, off_b, &pre))
		return MCOUNT_ERANGE;
	span = site_at(s) - pre;
	form = on ? on_b : off_b;
	if (s->head_len > sizeof(word.b))	/* no store that wide below */
		return MCOUNT_ENOTLIVE;
	mc_bytes_copy(word.b, (const uint8_t *)at, s->head_len);
	for (unsigned i = 0; i < s->head_len; i++)
		if (at + i >= span && at + i < span + pre + s->len)
			word.b[i] = form[at + i - span];
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
static int not_live_why(const struct rt_site *s)
{
	uint8_t on[2 * MC_MAX_SITE_LEN], off[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	return live_forms(s, on, off, &pre) ? MCOUNT_ENOTLIVE : MCOUNT_ERANGE;
}

/*
 * Keep `start` as enabled site `s`'s function (in `cur`), before the
 * call to the dispatcher can happen.  The image's funcs are made when
 * its first site is enabled: a boot that enables nothing never touches
 * them.
 */
static int note_func(const struct rt_site *s, uintptr_t start)
{
	uintptr_t *funcs = cur->funcs;

	if (!funcs) {
		funcs = mc_plat_alloc(cur->nsites * sizeof(*funcs));
		if (!funcs)
			return MCOUNT_ENOMEM;
		for (size_t i = 0; i < cur->nsites; i++)
			funcs[i] = 0;
		__atomic_store_n(&cur->funcs, funcs, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&funcs[s - cur->sites], start, __ATOMIC_RELEASE);
	return MCOUNT_OK;
}

/*
 * A site without a live form, rewritten whole with plain stores: only
 * while no other thread can be running it (mc_plat_quiescent).
 */
static int set_site_quiescent(struct rt_site *s, bool on, uintptr_t start)
{
	uint8_t call[MC_MAX_SITE_LEN];
	int err;

	if (!mc_plat_quiescent())
		return not_live_why(s);
	if (on && !encode_hook(s, call))
		return MCOUNT_ERANGE;
	err = on ? note_func(s, start) : MCOUNT_OK;
	if (err)
		return err;
	err = write_code(site_at(s), on ? call : s->neutral, s->len);
	if (err)
		return err;
	s->state = on ? MCOUNT_SITE_ENABLED : MCOUNT_SITE_NOP;
	if (on)
		cur->counts.enabled++;
	else
		cur->counts.enabled--;
	return 1;
}

/*
 * Turn `s` on (calling back with `start` as the function) or off.  1 if
 * its code changed, 0 if it already was so, else an error.  The caller
 * holds the patching lock and has opened a batch.
 */
static int set_site(struct rt_site *s, bool on, uintptr_t start)
{
	int err;

	if (s->state == MCOUNT_SITE_REFUSED)
		return MCOUNT_EREFUSED;
	if ((s->state == MCOUNT_SITE_ENABLED) == on)
		return 0;
	if (!s->head_len)
		return set_site_quiescent(s, on, start);
	/* the dispatcher must see func before the call can happen */
	err = on ? note_func(s, start) : MCOUNT_OK;
	if (err)
		return err;
	err = store_head(s, on);
	if (err)
		return err;
	s->state = on ? MCOUNT_SITE_ENABLED : MCOUNT_SITE_NOP;
	if (on)
		cur->counts.enabled++;
	else
		cur->counts.enabled--;
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
	if (!booted) {
		mc_plat_unlock();
		return MCOUNT_ENOTBOOTED;
	}
	if (!mc_plat_sync_ready(MC_RT_LIVE_SYNC_CORE)) {
		mc_plat_unlock();
		return MCOUNT_ESYNC;
	}
	deferred_flush.on = true;
	deferred_flush.lo = deferred_flush.hi = 0;
	return MCOUNT_OK;
}

static void batch_end(bool changed)
{
	deferred_flush.on = false;
	if (deferred_flush.hi > deferred_flush.lo)
		mc_plat_flush_icache(deferred_flush.lo,
				     deferred_flush.hi - deferred_flush.lo);
	text_close();
	if (changed)
		mc_plat_sync_cores();
	mc_plat_unlock();
}

static int set_func(uintptr_t func, bool on)
{
	struct rt_site *s;
	uintptr_t start;
	int r = batch_begin();

	if (r)
		return r;
	r = images_ready();
	s = r ? NULL : find_site(func, &start);
	r = r ? r : s ? set_site(s, on, start) : MCOUNT_ENOSITE;
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
		if (!find_site(funcs[i], &start)) {
			batch_end(false);
			return MCOUNT_ENOSITE;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct rt_site *s = find_site(funcs[i], &start);

		if (s && !tally_site(&t, set_site(s, on, start)))
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
	for (size_t k = 0; k < nimages && go; k++) {
		struct rt_site *sites = images[k].sites;

		cur = &images[k];
		for (size_t i = 0; sites && i < images[k].nsites && go; i++) {
			if (sites[i].state == MCOUNT_SITE_REFUSED)
				continue;
			go = tally_site(&t, set_site(&sites[i], on, on ?
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

void mcount_set_callback(mcount_callback_t cb)
{
	__atomic_store_n(&callback, cb, __ATOMIC_RELEASE);
}

/*
 * The bytes `s` must hold in its current state, from `*from` on: its
 * live form in that state, or where it has none its neutral bytes.
 */
static unsigned expected_code(const struct rt_site *s, uint8_t *code,
			      uintptr_t *from)
{
	uint8_t other[2 * MC_MAX_SITE_LEN];
	unsigned pre;

	if (s->head_len) {
		if (s->state == MCOUNT_SITE_ENABLED ?
		    !live_forms(s, code, other, &pre) :
		    !live_forms(s, other, code, &pre))
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

/* 1 if `s` (in `cur`) no longer holds what it should, and is refused. */
static int verify_site(struct rt_site *s)
{
	uint8_t want[2 * MC_MAX_SITE_LEN];
	uintptr_t from = site_at(s);
	unsigned n;

	if (s->state == MCOUNT_SITE_REFUSED)
		return 0;
	n = expected_code(s, want, &from);
	if (n && mc_bytes_equal((const uint8_t *)from, want, n))
		return 0;
	if (s->state == MCOUNT_SITE_ENABLED)
		cur->counts.enabled--;
	refuse(s, site_at(s), (const uint8_t *)site_at(s), s->len,
	       "changed since it was patched");
	return 1;
}

int mcount_verify(void)
{
	int changed = 0, err;

	mc_plat_lock();
	if (!booted) {
		mc_plat_unlock();
		return MCOUNT_ENOTBOOTED;
	}
	err = images_ready();
	for (size_t k = 0; k < nimages && !err; k++) {
		cur = &images[k];
		for (size_t i = 0; cur->sites && i < cur->nsites; i++)
			changed += verify_site(&cur->sites[i]);
	}
	mc_plat_unlock();
	return err ? err : changed;
}

/*
 * The image whose code holds `ret`, or NULL.  Lock-free: a slot's
 * bounds are published (release) after its sites and emptied before
 * they are freed (mc_rt_image_remove).
 */
MC_RT_NOTRACE static const struct rt_image *image_of(uintptr_t ret)
{
	size_t n = __atomic_load_n(&nimages, __ATOMIC_ACQUIRE);

	for (size_t k = 0; k < n; k++) {
		uintptr_t hi = __atomic_load_n(&images[k].hi, __ATOMIC_ACQUIRE);

		if (ret <= hi &&
		    ret > __atomic_load_n(&images[k].lo, __ATOMIC_RELAXED))
			return &images[k];
	}
	return NULL;
}

/*
 * From the trampoline.  `ret` is just past the hook instruction, so the
 * site is the last one below it in the image that holds it.  A site
 * disabled while a thread was on its way here still reports: harmless,
 * and cheaper than a lock.
 */
MC_RT_NOTRACE void mc_rt_dispatch(uintptr_t ret, uintptr_t caller)
{
	mcount_callback_t cb = __atomic_load_n(&callback, __ATOMIC_ACQUIRE);
	const struct rt_image *img = cb ? image_of(ret) : NULL;
	/*
	 * funcs first: it is made after the image's records
	 * (image_sites), which lower_bound searches
	 */
	const uintptr_t *funcs = img ? __atomic_load_n(&img->funcs,
						       __ATOMIC_ACQUIRE) : NULL;
	size_t i = funcs ? lower_bound(img, ret) : 0;
	uintptr_t func;

	if (!cb || i == 0 || !funcs)
		return;
	func = __atomic_load_n(&funcs[i - 1], __ATOMIC_ACQUIRE);
	if (!func || !mc_plat_enter())
		return;
	cb((unsigned long)func, (unsigned long)caller);
	mc_plat_leave();
}

bool mc_rt_set_slot_hook(mc_rt_slot_hook_t hook)
{
#ifdef MC_RT_DISPATCH_SLOT
	mc_rt_set_entry_takeover(NULL, NULL);
	__atomic_store_n(&mc_rt_gpr_slot_hook, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&slot_hook, hook, __ATOMIC_RELEASE);
	return true;
#else
	(void)hook;
	return false;
#endif
}

bool mc_rt_set_gpr_slot_hook(mc_rt_slot_hook_t hook)
{
#ifdef MC_RT_GPR_SLOT_HOOK
	if (!mc_rt_set_slot_hook(NULL))
		return false;
	__atomic_store_n(&mc_rt_gpr_slot_hook, hook, __ATOMIC_RELEASE);
	return true;
#else
	return mc_rt_set_slot_hook(hook);
#endif
}

bool mc_rt_set_entry_takeover(mc_rt_entry_t of_fentry,
			      mc_rt_entry_t of_mcount)
{
#ifdef MC_RT_ENTRY_TAKEOVER
	__atomic_store_n(&mc_rt_fentry_takeover, of_fentry, __ATOMIC_RELEASE);
	__atomic_store_n(&mc_rt_mcount_takeover, of_mcount, __ATOMIC_RELEASE);
	return true;
#else
	return !of_fentry && !of_mcount;
#endif
}

/*
 * From the trampolines of a backend that passes the slot of the
 * function's return address (MC_RT_DISPATCH_SLOT): to the slot hook when
 * one is set, else to the callback as mc_rt_dispatch (the caller as the
 * backend reads it from the slot: MC_RT_SLOT_CALLER).  The hook gets the
 * return address into the function, which names it as well as its
 * start does, without a search on the traced path; it keeps its own
 * recursion guard, per thread.
 */
#ifndef MC_RT_SLOT_CALLER
#define MC_RT_SLOT_CALLER(addr) (addr)
#endif
MC_RT_NOTRACE void mc_rt_dispatch_slot(uintptr_t ret, uintptr_t *slot)
{
	mc_rt_slot_hook_t hook = __atomic_load_n(&slot_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(ret, slot);
	else
		mc_rt_dispatch(ret, MC_RT_SLOT_CALLER(*slot));
}

/* ---- listing ----------------------------------------------------------- */

/*
 * Every image's sites, image by image in the order of their slots; an
 * index stays valid until a library is loaded or unloaded.
 */
size_t mcount_site_count(void)
{
	size_t n = 0;

	mc_plat_lock();
	for (size_t k = 0; k < nimages; k++)
		n += images[k].nsites;
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
	for (size_t k = 0; k < nimages; k++) {
		if (index < images[k].nsites) {
			struct rt_site tmp;

			site_info(&images[k], site_view(&images[k], index, &tmp),
				  out);
			err = MCOUNT_OK;
			break;
		}
		index -= images[k].nsites;
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
	for (size_t k = 0; k < nimages; k++)
		for (size_t i = 0; i < images[k].nsites; i++, n++)
			if (n < cap) {
				struct rt_site tmp;

				site_info(&images[k],
					  site_view(&images[k], i, &tmp),
					  &out[n]);
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

const char *mcount_strerror(int err)
{
	switch (err) {
	case MCOUNT_OK:		return "success";
	case MCOUNT_ENOTABLE:	return "no __mcount_loc table linked in";
	case MCOUNT_ENOTBOOTED:	return "mcount_boot() has not run";
	case MCOUNT_ENOMEM:	return "no storage for the site list";
	case MCOUNT_ENOSITE:	return "no hook site in that function";
	case MCOUNT_EREFUSED:	return "the site was refused";
	case MCOUNT_EPROTECT:	return "program text could not be made writable";
	case MCOUNT_ERANGE:	return "trampoline out of reach of the site";
	case MCOUNT_ENOSYM:	return "no function of that name";
	case MCOUNT_ENOSYMTAB:	return "no symbol table";
	case MCOUNT_ENOTLIVE:	return "the site cannot be changed in one store "
				       "while threads run";
	case MCOUNT_ESYNC:	return "the kernel cannot synchronise other "
				       "threads' instruction fetch (membarrier)";
	case MCOUNT_ETOOMANY:	return "more objects with tables than the "
				       "runtime has slots for";
	case MCOUNT_EOTHER:	return "another copy of the runtime serves "
				       "this process";
	default:		return "unknown error";
	}
}
