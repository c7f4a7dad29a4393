/* SPDX-License-Identifier: MIT */
/*
 * site.c - classify one site at boot: read its bytes and say whether
 * they are a hook this runtime may patch, and how.
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
 *
 * What the pass has learnt from the sites before (struct boot_pass)
 * spares asking the arch the same question for each site of a program
 * built one way.
 */
#include "core.h"

/* What the backend's hooks are told of the code around a site. */
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

static const char *hook_style(const struct rt_image *img, uintptr_t target,
			      uint8_t *style)
{
	/* the image's own way to the stubs (a shared library's PLT) */
	for (unsigned i = 0; i < img->nstubs; i++) {
		if (target == img->stub[i]) {
			*style = img->stub_style[i];
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
	uintptr_t slot = MC_RT_STUB_SLOT(&mc_rt_site_code, target, img->got);

	for (unsigned i = 0; slot && i < img->nstubs; i++) {
		if (slot == img->stub[i]) {
			*style = img->stub_style[i];
			return NULL;
		}
	}
#endif
	return "call to something other than " MC_RT_STUB_NAMES;
}

/* The pointer an indirect hook call would load (a GOT slot). */
static const char *slot_style(const struct rt_image *img, uintptr_t slot,
			      uint8_t *style)
{
	uintptr_t target;

	/* a slot the image's relocations bind to a stub, whichever it is */
	for (unsigned i = 0; i < img->nstubs; i++) {
		if (slot == img->stub[i]) {
			*style = img->stub_style[i];
			return NULL;
		}
	}
	if (mc_plat_mem_avail(slot, false) < sizeof(target))
		return "indirect call through an unmapped pointer";
	mc_bytes_copy((uint8_t *)&target, (const uint8_t *)slot,
		      sizeof(target));
	return hook_style(img, target, style);
}

/* The same, for a pointer `offset` bytes from the image's GOT. */
static const char *got_slot_style(const struct rt_image *img, uint64_t offset,
				  uint8_t *style)
{
	if (!img->got)
		return "call through the GOT, whose address this backend "
		       "does not know";
	return slot_style(img, img->got + (uintptr_t)offset, style);
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

static const char *classify_kind(const struct rt_image *img, struct rt_site *s,
				 const struct mc_site *d, bool *is_nop)
{
	*is_nop = false;
	switch (d->kind) {
	case MC_SITE_CALL:
		return hook_style(img, (uintptr_t)d->target, &s->style);
	case MC_SITE_CALL_INDIRECT:
		return slot_style(img, (uintptr_t)d->target, &s->style);
	case MC_SITE_CALL_GOT:
		return got_slot_style(img, d->target, &s->style);
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
	/* ppc64le's second entry point */
	return MC_RT_LOCAL_ENTRY(&mc_rt_site_code, addr);
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

static bool disabled_facts(struct boot_pass *bp, const struct mc_arch *arch,
			   const struct mc_site *d, struct rt_site *s)
{
	uint8_t test;

	if (bp->form_facts.arch != arch || bp->form_facts.len != d->len) {
		bp->form_facts.arch = arch;
		bp->form_facts.len = d->len;
		bp->form_facts.neutral = mc_site_neutral(arch, d);
		bp->form_facts.head = (int8_t)arch->live_opcode(arch, d->len,
							    false, &test);
	}
	s->neutral = bp->form_facts.neutral;
	s->head = bp->form_facts.head;
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
static bool classify_disabled(struct boot_pass *bp, struct rt_site *s,
			      const struct mc_arch *arch, const uint8_t *p,
			      size_t n)
{
	struct mc_site d;
	uint8_t style;

	if (!arch->decode_disabled || !arch->live_opcode)
		return false;
	d = arch->decode_disabled(arch, p, n, s->addr);
	if (d.kind != MC_SITE_CALL ||
	    !tramp_style((uintptr_t)d.target, &style) ||
	    !disabled_facts(bp, arch, &d, s))
		return false;
	s->style = style;
	s->len = d.len;
	s->head_len = 1;
	s->found = FOUND_DISABLED;
	return true;
}

static bool same_call(const struct boot_pass *bp, const struct mc_arch *arch,
		      const struct mc_site *d)
{
	return d->kind == MC_SITE_CALL && arch == bp->last_call.arch &&
	       d->target == bp->last_call.target && d->len == bp->last_call.len;
}

static void keep_call(struct boot_pass *bp, const struct mc_arch *arch,
		      const struct mc_site *d, uint8_t style,
		      const uint8_t *neutral)
{
	if (d->kind != MC_SITE_CALL)
		return;
	bp->last_call.arch = arch;
	bp->last_call.target = d->target;
	bp->last_call.len = d->len;
	bp->last_call.style = style;
	bp->last_call.neutral = neutral;
	bp->last_call.tramp = 0;
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

const char *mc_rt_classify(struct boot_pass *bp, struct rt_site *s,
			   const uint8_t *p, size_t n, bool *is_nop)
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
	if (bp->expect_disabled && classify_disabled(bp, s, arch, p, n)) {
		*is_nop = true;
		return NULL;
	}
	d = mc_decode_site(arch, p, n, s->addr);
	bp->expect_disabled = d.kind == MC_SITE_UNKNOWN &&
			      !bp->expect_disabled &&
			      classify_disabled(bp, s, arch, p, n);
	if (bp->expect_disabled) {
		*is_nop = true;
		return NULL;
	}
	if (same_call(bp, arch, &d)) {
		*is_nop = false;
		s->len = d.len;
		s->style = bp->last_call.style;
		s->neutral = bp->last_call.neutral;
		return classify_place(s, true);
	}
	why = classify_kind(bp->img, s, &d, is_nop);
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
		keep_call(bp, arch, &d, s->style, s->neutral);
	return classify_place(s, d.kind != MC_SITE_NOP);
}

void mc_rt_refuse(struct rt_image *img, struct rt_site *s, uintptr_t where,
		  const uint8_t *p, size_t n, const char *why)
{
	s->state = MCOUNT_SITE_REFUSED;
	s->style = STYLE_DEFAULT;
	img->counts.refused++;
	mc_plat_report(where, p, n, why);
}
