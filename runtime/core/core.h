/* SPDX-License-Identifier: MIT */
/*
 * core.h - what the files of the portable runtime (runtime/core/)
 * share, and nothing outside core/ may use: a site's record, an image,
 * the boot pass's state, the text window.
 *
 * Freestanding: core/ uses arch/ and the hooks in platform.h, nothing
 * else (no libc, no allocation of its own).  Every byte read or written
 * at a site goes through the architecture's decode_site, site_neutral
 * and encode_call; which architecture, and which hook stubs exist,
 * comes from the backend platform.h selects (runtime/<arch>/backend.h).
 *
 * The files, by role: site.c classifies a site's bytes; text.c keeps
 * the write window and the flush of written code (window.h); forms.c
 * makes a site's live forms; table.c reads the __mcount_loc table;
 * boot.c is the boot pass over an image; runs.c keeps an image's sites
 * as runs until their first use; thunks.c makes an image's thunk page;
 * image.c is the registry of images and boots them; toggle.c enables,
 * disables and verifies; dispatch.c is the traced path; list.c lists
 * sites and counts; errors.c says what an error code means.  Calls go
 * one way between them, and from core/ to the platform only (which
 * calls back through struct mc_rt_engine).
 */
#ifndef MC_RT_CORE_H
#define MC_RT_CORE_H

#include <mcount.h>

#include "../platform.h"
#include "window.h"
#include "../../arch/search.h"

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
 * The image's own ELF header, where the linker maps it (GNU ld, gold and
 * lld define it on request); weak, so 0 where it is not mapped.
 */
extern const char __ehdr_start[] __attribute__((weak)) MC_RT_HIDDEN;

/*
 * An entry `recordmcount --finalize` (or the kernel's sorttable) cleared
 * because its function is gone: 0, or in a PIE, whose loader adds its
 * load address to every entry, that address (where the ELF header is).
 * Skipped as ftrace skips them, and not counted as sites.
 */
static inline bool is_cleared(uintptr_t entry)
{
	return entry == 0 || entry == (uintptr_t)__ehdr_start;
}

/*
 * One image per loaded object with a table: the program, and on a
 * hosted platform each shared library (linux/objects.c adds and removes
 * them).
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
	size_t ntab;		/* entries in tab, as boot was given them */
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

/*
 * The images (image.c): slots [0, mc_rt_nimages) have been used (atomic:
 * the traced path reads it with no lock); mc_rt_booted once boot ran.
 */
MC_RT_HIDDEN extern struct rt_image mc_rt_images[MC_RT_MAX_IMAGES];
MC_RT_HIDDEN extern size_t mc_rt_nimages;
MC_RT_HIDDEN extern bool mc_rt_booted;

/* Where site `s`'s hook bytes are. */
MC_RT_NOTRACE static inline uintptr_t site_at(const struct rt_site *s)
{
	return s->addr + s->at_off;
}

MC_RT_NOTRACE static inline bool site_below(const void *site, const void *a)
{
	return ((const struct rt_site *)site)->addr < *(const uintptr_t *)a;
}

/* Index in `img` of the first site with addr >= a (nsites if none). */
MC_RT_NOTRACE static inline size_t lower_bound(const struct rt_image *img,
					uintptr_t a)
{
	return mc_partition_point(img->sites, img->nsites, sizeof(*img->sites),
				  &a, site_below);
}

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

/* ---- the boot pass's state (boot.c, site.c) ---------------------------- */

/*
 * Whether boot_calls_now and boot_disabled_now may take a run of sites
 * without asking the backend about each one: only where it asks nothing
 * of a site's place (no MC_RT_SITE_* hook), and for the disabled runs
 * where calls are MC_RT_CALL_REL32's.
 */
#if defined(MC_RT_SITE_ARCH) || defined(MC_RT_SITE_STYLE) || \
	defined(MC_RT_SITE_CALLER) || defined(MC_RT_SITE_NEUTRAL)
#define MC_RT_SITE_HOOKS 1
#endif
#if defined(MC_RT_CALL_REL32) && !defined(MC_RT_SITE_HOOKS)
#define MC_RT_DISABLED_RUNS 1
#endif

/*
 * What one image's boot pass knows as it goes, made afresh for each
 * image (image_boot) and passed down to what classifies and writes
 * its sites.
 */
struct boot_pass {
	struct rt_image *img;	/* the image being booted */
	/*
	 * The neutral bytes and the head of a disabled form `d`, which
	 * depend on its arch and length alone (arch.h's decode_disabled):
	 * asked of the arch once per length and image, not once per site.
	 * NULL neutral bytes: the form has none, and is not taken.
	 */
	struct {
		const struct mc_arch *arch;	/* NULL: nothing kept */
		uint8_t len;
		int8_t head;
		const uint8_t *neutral;
	} form_facts;
	/*
	 * Whether the last site classify() read was in its disabled form:
	 * a program is prepatched whole or not at all, so that form is
	 * tried first after such a site and last after any other.
	 */
	bool expect_disabled;
	/*
	 * The last direct hook call classify judged in full: its arch,
	 * length and target, the style hook_style gave that target and the
	 * neutral bytes the arch gave that decoded site.  Both answers
	 * depend on nothing else (the image's stubs are fixed while it
	 * boots, and site_neutral sees only the arch and the decoded site),
	 * so a site that decodes to the same call takes them from here: in
	 * a program built one way, every site but the first.
	 */
	struct {
		const struct mc_arch *arch;	/* NULL: nothing kept */
		uint64_t target;
		uint8_t len, style;
		const uint8_t *neutral;
		/*
		 * Where boot_site has written such a call in its disabled
		 * form (write_call_now): the trampoline it called, and the
		 * opcode byte changed (boot_calls_now); 0 until then.
		 */
		uintptr_t tramp;
		uint8_t op, test;
	} last_call;
	/*
	 * Whether write_call_now may write a hook of `len` bytes that
	 * `arch` reads (the arch says which one byte its live forms differ
	 * in, and it has no prelude), and if so that byte's offset and its
	 * value in the disabled form (arch.h's live_opcode): asked of the
	 * arch once per arch, length and image, not once per site.
	 */
	struct {
		const struct mc_arch *arch;	/* NULL: nothing kept */
		uint8_t len, op, test;
		bool now;
	} opcode_facts;
	bool wrote_now;		/* write_call_now wrote a site in this image */
#ifdef MC_RT_CALL_REL32
	/*
	 * A direct call whose last four bytes are its target's
	 * displacement from its end, little-endian (the backend's
	 * MC_RT_CALL_REL32: x86).  Its other bytes do not depend on where
	 * it is, so for a run of such calls to one hook stub boot_calls_now
	 * matches each site against the first one's bytes and writes the
	 * first one's form re-aimed, with no call to the arch's decoder or
	 * encoder: what they gave for the first call is checked to have
	 * that shape, once per run (keep_rel32_run).
	 */
	struct {
		bool ok;	/* the rest holds a run's first call */
		uint8_t call[MC_MAX_SITE_LEN];	/* its bytes as found */
		uint8_t form[MC_MAX_SITE_LEN];	/* its disabled form */
	} rel32_run;
#endif
#ifdef MC_RT_DISABLED_RUNS
	/* The site a run of prepatched sites is matched against. */
	struct {
		bool ok;	/* the rest holds a run's first site */
		uint8_t bytes[MC_MAX_SITE_LEN];	/* its bytes */
		uintptr_t tramp;	/* where its displacement reaches */
		struct rt_site form;		/* its record */
	} dis_run;
#endif
};

/*
 * site.c.  Classify: NULL if `s` is a hook we may patch; else why not.
 * Fills at, len, style and the bytes that neutralise it; *is_nop when
 * it needs no patching at boot.  Refuse: `s` is refused, and reported
 * with the `n` bytes found at `where`.
 */
MC_RT_HIDDEN const char *mc_rt_classify(struct boot_pass *bp,
					struct rt_site *s, const uint8_t *p,
					size_t n, bool *is_nop);
MC_RT_HIDDEN void mc_rt_refuse(struct rt_image *img, struct rt_site *s,
			       uintptr_t where, const uint8_t *p, size_t n,
			       const char *why);

/* ---- the text window (window.h, text.c) -------------------------------- */

/* mc_plat_mem_avail(addr, true), from the last answer when it covers addr. */
static inline size_t code_avail(uintptr_t addr)
{
	size_t n = window_code_avail(&mc_rt_text, addr);

	return n ? n : mc_rt_code_avail_far(addr);
}

/*
 * Make [addr, addr + len) writable.  `rest`: the boot pass, which goes
 * up through the sorted sites, asks the platform to open the rest of
 * the code mapping that holds it, so that the next sites need no call
 * (and only this test, inline); a live toggle opens only what it writes.
 */
static inline bool text_open(uintptr_t addr, size_t len, bool rest)
{
	if (addr >= mc_rt_text.open.lo && addr < mc_rt_text.open.hi &&
	    len <= mc_rt_text.open.hi - addr)
		return true;
	return mc_rt_text_open_more(addr, len, rest);
}

/*
 * Code just written at [addr, addr + len): flush now, or with the
 * batch.  Inline for the boot pass's usual case, a site just past the
 * last one written (the sites come sorted): the span grows.
 */
static inline void note_written(uintptr_t addr, size_t len)
{
	if (mc_rt_text.flush.on && mc_rt_text.flush.lo < mc_rt_text.flush.hi &&
	    addr >= mc_rt_text.flush.lo &&
	    addr <= mc_rt_text.flush.hi + FLUSH_GAP) {
		if (addr + len > mc_rt_text.flush.hi)
			mc_rt_text.flush.hi = addr + len;
		return;
	}
	mc_rt_note_written_far(addr, len);
}

/*
 * Write `len` bytes of code with plain stores: only where no other
 * thread runs it (boot, or a process of one thread).  The caller closes
 * the text window.
 */
static inline int write_code(uintptr_t addr, const uint8_t *code,
			     unsigned len)
{
	if (!text_open(addr, len, mc_rt_text.whole))
		return MCOUNT_EPROTECT;
	mc_bytes_copy((uint8_t *)addr, code, len);
	note_written(addr, len);
	return MCOUNT_OK;
}

/* ---- live forms (forms.c) ---------------------------------------------- */

/* The trampoline enabled site `s` calls; 0 if none. */
static inline uintptr_t trampoline(const struct rt_site *s)
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

/* A call from `s` to `target` into `out`, if it reaches. */
static inline bool encode_call_to(const struct rt_site *s,
					uint8_t *out, uintptr_t target)
{
	if (s->style == MCOUNT_STYLE_PAD)
		return mc_encode_pad_call(s->arch, out, s->len, site_at(s),
					  target);
	return mc_encode_call(s->arch, out, s->len, site_at(s), target);
}

/* The call that enables `s` of `img`, into `out` (its trampoline or thunk). */
MC_RT_HIDDEN bool mc_rt_encode_hook(const struct rt_image *img,
				    const struct rt_site *s, uint8_t *out);
/*
 * The live span [at - pre, at + len) of `s` enabled (`on`) and disabled
 * (`off`), from the arch's live_forms; false if it has none.
 */
MC_RT_HIDDEN bool mc_rt_live_forms(const struct rt_image *img,
				   const struct rt_site *s, uint8_t *on,
				   uint8_t *off, unsigned *pre);
/*
 * Whether every site of `img` the engine took still holds what it last
 * wrote there (toggle.c): an image whose text was put back as the
 * engine left it needs no boot again (mc_rt_images_reboot).
 */
MC_RT_HIDDEN bool mc_rt_image_intact(const struct rt_image *img);
/*
 * At boot, while nothing else runs: write the disabled form of `s`'s
 * live forms over its bytes (and its prelude), or, where it has none,
 * its neutral bytes if it was a call (`was_call`).
 */
MC_RT_HIDDEN int mc_rt_write_disabled_form(const struct rt_image *img,
					   struct rt_site *s, bool was_call);

/* ---- the table (table.c) ----------------------------------------------- */

/*
 * Copy the table [tab, tab + n) into `sites`, sorted, and drop (and
 * report) repeated entries: img->nsites is what is left; returns the
 * live entries.  In order: the table's live entries rise strictly.
 * Lazy: they rise strictly, none cleared.
 */
MC_RT_HIDDEN size_t mc_rt_load_table(struct rt_image *img,
				     struct rt_site *sites,
				     const uintptr_t *tab, size_t n);
MC_RT_HIDDEN bool mc_rt_table_in_order(const uintptr_t *tab, size_t n);
MC_RT_HIDDEN bool mc_rt_table_lazy(const uintptr_t *tab, size_t n);

/* ---- sites kept as runs (runs.c) --------------------------------------- */

MC_RT_HIDDEN bool mc_rt_boot_eager(struct rt_image *img, size_t upto);
MC_RT_HIDDEN bool mc_rt_keep_lazily(struct rt_image *img,
				    const struct rt_site *form, size_t from,
				    size_t count);
MC_RT_HIDDEN const struct rt_site *mc_rt_site_view(const struct rt_image *img,
						   size_t i,
						   struct rt_site *tmp);
/*
 * The first use of `img`'s sites that needs their records (a change of
 * state, a search for a function, verification): made now from its
 * runs, and published for the dispatcher before any site is enabled.
 */
MC_RT_HIDDEN int mc_rt_image_sites(struct rt_image *img);

/* ---- boot and images (boot.c, image.c) --------------------------------- */

/*
 * Classify the sites of the table [tab, tab + n) into `img` and write
 * each one's disabled form (boot.c).
 */
MC_RT_HIDDEN int mc_rt_image_boot(struct rt_image *img, const uintptr_t *tab,
				  size_t n);
/* Where the image's sites lie: from the first one's bytes to the last's end. */
MC_RT_HIDDEN void mc_rt_image_span(const struct rt_image *img, uintptr_t *lo,
				   uintptr_t *hi);
/* The thunk page `img`'s far sites need, if any (thunks.c). */
MC_RT_HIDDEN void mc_rt_image_thunks(struct rt_image *img);
MC_RT_HIDDEN void mc_rt_counts_clear(struct mcount_counts *c);

#endif
