/* SPDX-License-Identifier: MIT */
/*
 * platform.h - what the portable engine (core/) asks of its platform
 * and of its architecture's trampoline file.  Private to runtime/.
 *
 * linux/ implements the hooks for a Linux process; a firmware build
 * supplies its own (a static array for storage, its console for reports,
 * its cache maintenance routine).  The engine calls no other function.
 */
#ifndef MC_RT_PLATFORM_H
#define MC_RT_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arch/arch.h"

#define MC_RT_HIDDEN __attribute__((visibility("hidden")))

/* Code must not be hooked while it runs the hooks. */
#define MC_RT_NOTRACE __attribute__((no_instrument_function))

/* ---- the platform ------------------------------------------------------ */

/*
 * Storage for `bytes`, suitably aligned for any object; NULL if there is
 * none.  Called at an image's boot (its sites) and when its first site
 * is enabled (their functions).  Given back only with the image
 * (mc_plat_free, where the platform has it).
 */
MC_RT_HIDDEN void *mc_plat_alloc(size_t bytes);

/*
 * How many bytes from `addr` on are mapped (and executable when `code`),
 * up to the end of that mapping; 0 when `addr` is not ours.  Lets the
 * engine refuse a bad table entry instead of faulting on it.
 */
MC_RT_HIDDEN size_t mc_plat_mem_avail(uintptr_t addr, bool code);

/*
 * Make [addr, addr + len) writable, keeping it executable.  The platform
 * may keep a larger window open across calls; mc_plat_text_close()
 * restores the original protection of everything opened.  0 or -1.
 */
MC_RT_HIDDEN int mc_plat_text_open(uintptr_t addr, size_t len);
MC_RT_HIDDEN void mc_plat_text_close(void);

/*
 * Store one byte of code at `addr` without making any page writable
 * (Linux: through /proc/self/mem), for a live toggle that changes only
 * its opcode.  False if the platform has no such path, or it failed:
 * the engine then opens a window.  What it holds for the batch (a
 * descriptor) goes at mc_plat_text_close().
 */
MC_RT_HIDDEN bool mc_plat_text_poke(uintptr_t addr, uint8_t byte);

/* Make freshly written code visible to instruction fetch. */
MC_RT_HIDDEN void mc_plat_flush_icache(uintptr_t addr, size_t len);

/* One refused site: where, the bytes found there, and why. */
MC_RT_HIDDEN void mc_plat_report(uintptr_t addr, const uint8_t *bytes,
				 size_t n, const char *why);

/*
 * Where the table is when no linker script gathered entries between
 * __start_mcount_loc and __stop_mcount_loc (a program linked with no
 * script): 1 with the bounds, 0 if the platform knows of none, -1 if it
 * found one it refuses (and said why).
 */
MC_RT_HIDDEN int mc_plat_table(const uintptr_t **start,
			       const uintptr_t **stop);

/* The function containing `addr`, if the platform has symbols. */
MC_RT_HIDDEN bool mc_plat_func_bounds(uintptr_t addr, uintptr_t *start,
				      size_t *size);

/*
 * The patching lock: held by boot, every enable/disable and verify, so
 * that one thread at a time changes sites.  Never taken on the traced
 * path.  Not recursive; not to be taken from a signal handler.
 */
MC_RT_HIDDEN void mc_plat_lock(void);
MC_RT_HIDDEN void mc_plat_unlock(void);
/*
 * The patching lock as mc_plat_lock takes it if no other thread holds
 * it; false at once if one does.  For an attach, made while every
 * thread is held stopped: the holder cannot let go until they run.
 */
MC_RT_HIDDEN bool mc_plat_trylock(void);

/*
 * Before a live change: true if, once the new code is written and its
 * caches maintained, mc_plat_sync_cores() can make every other thread's
 * core fetch it.  `required`: the architecture needs that step for
 * cross-modified code (x86: a core-serialising instruction on each
 * core); elsewhere its cache maintenance suffices, and the step only
 * makes the change visible sooner.  False refuses the change
 * (MCOUNT_ESYNC) rather than patching unsafely.
 */
MC_RT_HIDDEN bool mc_plat_sync_ready(bool required);
MC_RT_HIDDEN void mc_plat_sync_cores(void);

/*
 * True if no other thread can be running code now (a process of one
 * thread; a single-core firmware with its interrupts' code unhooked):
 * then a site without a live form may still be rewritten whole.
 */
MC_RT_HIDDEN bool mc_plat_quiescent(void);

/*
 * Recursion guard around the user callback: false if this thread is
 * already inside it (a traced callback must not recurse forever).
 */
MC_RT_HIDDEN bool mc_plat_enter(void);
MC_RT_HIDDEN void mc_plat_leave(void);

/*
 * Optional (weak: a platform may leave it out): give back what
 * mc_plat_alloc gave (`bytes` as asked); used when an image is removed.
 * Without it, that storage is kept.  mc_plat_images, below, is
 * optional too.
 */
MC_RT_HIDDEN void mc_plat_free(void *p, size_t bytes) __attribute__((weak));

/*
 * Optional too.  mc_plat_thunk_map: a new page of code holding the
 * `len` bytes at `code` (thunks, which work at any 8-byte aligned
 * address), mapped executable and not writable as near to the image
 * whose sites span [lo, hi) as the platform can find room, and at most
 * `reach` bytes from any byte of that span, both ways (where no page
 * is free that near, linux/mem.c uses room at the end of the image's own
 * code segment, which is executable already); its address, or 0 if
 * there is no such room.  Called under the patching lock, at
 * an image's boot.  mc_plat_thunk_unmap gives it back, when the image
 * is removed and none of its sites is left.  Without them, a site whose
 * call cannot reach the trampoline is MCOUNT_ERANGE.
 */
MC_RT_HIDDEN uintptr_t mc_plat_thunk_map(uintptr_t lo, uintptr_t hi,
					 uint64_t reach, const uint8_t *code,
					 size_t len) __attribute__((weak));
MC_RT_HIDDEN void mc_plat_thunk_unmap(uintptr_t addr, size_t len)
	__attribute__((weak));

/* ---- images: what the platform may ask of the engine --------------------- */

/*
 * Call targets an image may have for the hook stubs besides the stubs,
 * and the pointers its indirect hook calls may load: what they point
 * to is bound by name, maybe to another object's stub of that name
 * (glibc's own __fentry__ and mcount, gprof's, for a library linked
 * without libmcount).
 */
#define MC_RT_IMAGE_STUBS 8

/*
 * One object's table, for mc_rt_image_add.  `handle` names the object
 * to the platform (its load bias, say) and is what removal takes;
 * `name` is its file, shown in mcount_site_info and kept while the
 * image is; `got` its GOT base where hooks call through it
 * (MC_SITE_CALL_GOT) or its stubs read from it (MC_RT_STUB_SLOT), else
 * 0; stub[0, nstubs) more addresses a hook
 * call may target or load its target from, with the style each means
 * (a shared library's PLT entries and GOT slots for __fentry__ or
 * _mcount).
 */
struct mc_rt_image_desc {
	const uintptr_t *start, *stop;
	uintptr_t handle;
	const char *name;
	uintptr_t got;
	uintptr_t stub[MC_RT_IMAGE_STUBS];
	uint8_t stub_style[MC_RT_IMAGE_STUBS];
	unsigned nstubs;
};

/*
 * With the patching lock held.  Add: classify the image's sites and put
 * each in its disabled form with plain stores, so no thread may run
 * the object's code yet (it is being loaded); MCOUNT_OK also when the
 * handle is known already, MCOUNT_ETOOMANY past the engine's slots.
 * Remove: forget it, before or after its text is unmapped (nothing of
 * the object is read).
 */
MC_RT_HIDDEN int mc_rt_image_add(const struct mc_rt_image_desc *d);
MC_RT_HIDDEN void mc_rt_image_remove(uintptr_t handle);

/*
 * Classify every image's sites afresh from its table and put each in
 * its disabled form with plain stores, as the first boot did: for the
 * end of an attach (recorder/attach.c), after which the sites hold the
 * bytes they had before the runtime was loaded, whatever the engine
 * wrote since.  Only while no other thread runs (all stopped by a
 * tracer).  Thunk pages are kept.  MCOUNT_OK, or the first error (its
 * image then left out, as a failed boot leaves one).
 */
MC_RT_HIDDEN int mc_rt_images_reboot(void);

/*
 * The table a linker script gathered between __start_mcount_loc and
 * __stop_mcount_loc in the object the engine is linked into (they are
 * hidden, so only the engine sees them); false if none or empty.
 */
MC_RT_HIDDEN bool mc_rt_own_table(const uintptr_t **start,
				  const uintptr_t **stop);

/*
 * The engine's registry of images, handed down to mc_plat_images: a
 * platform calls the engine back through it, never by name, so that
 * calls go one way between the two (the engine calls the platform).
 */
struct mc_rt_engine {
	int (*image_add)(const struct mc_rt_image_desc *d);
	void (*image_remove)(uintptr_t handle);
	bool (*own_table)(const uintptr_t **start, const uintptr_t **stop);
};

/*
 * Optional (weak): the platform knows of several objects (linux/: the
 * program and its shared libraries, dl_iterate_phdr) and adds each with
 * a table through engine->image_add, itself included; it may keep
 * `engine` (static storage) to add and remove objects loaded and
 * unloaded later.  Called by boot under the patching lock; 0 or a
 * negative MCOUNT_E* code.  Without it, boot's one image is the
 * script's table or mc_plat_table's.
 */
MC_RT_HIDDEN int mc_plat_images(const struct mc_rt_engine *engine)
	__attribute__((weak));

/* ---- the architecture -------------------------------------------------- */

/*
 * What the engine tells a backend's hooks about the code around a site,
 * passed down to every hook that reads beyond the site's own bytes, so
 * that a backend calls nothing of the platform's itself:
 *   room(addr)              bytes of code readable from addr on, up to
 *                           the end of its mapping; 0 when not ours
 *                           (the platform's mc_plat_mem_avail)
 *   func_start(addr, start) true, with *start, where the platform's
 *                           symbols put a function around addr
 *                           (mc_plat_func_bounds)
 */
struct mc_rt_code {
	size_t (*room)(uintptr_t addr);
	bool (*func_start)(uintptr_t addr, uintptr_t *start);
};

/* The engine's answers, which it passes to the hooks below. */
MC_RT_HIDDEN extern const struct mc_rt_code mc_rt_site_code;

/*
 * The backend for the compiler's target: runtime/<arch>/backend.h names
 * the arch/ table (MC_RT_ARCH), the hook stubs its trampoline.S defines
 * and what else the engine may use there.  Contract, per backend:
 *   MC_RT_ARCH           the struct mc_arch whose decode_site,
 *                        encode_call and site_neutral the engine uses
 *   MC_RT_FENTRY_STUB    the stub `-pg -mfentry` hooks call, if the
 *                        compiler has that style; with it, trampoline.S
 *                        defines mc_rt_tramp_fentry
 *   MC_RT_MCOUNT_STUB    the same for plain `-pg` (mc_rt_tramp_mcount)
 *   MC_RT_STUB_NAMES     both names, for the refusal message
 *   MC_RT_PAD_TRAMP      the trampoline a -fpatchable-function-entry
 *                        pad calls once enabled (the call the arch's
 *                        encode_pad_call writes), if the backend takes
 *                        pads: mc_rt_tramp_fentry where that call is
 *                        the fentry one (x86), else mc_rt_tramp_pad
 *   MC_RT_HAVE_GOT_BASE  1 if trampoline.S defines mc_rt_got_base(),
 *                        so that MC_SITE_CALL_GOT sites can be checked
 *   MC_RT_SITE_STYLE(code, addr, style) optional, where both styles call
 *                        the same stub (ppc64le's _mcount): the style
 *                        of the accepted site at addr, from the code
 *                        around it; `style` is the one its call target
 *                        gave, or 0xff (not known) for a neutral site
 *   MC_RT_SITE_ARCH(code, addr) optional, where a table address does not say
 *                        which instruction set the site is in (ARM and
 *                        Thumb-2): the arch/ entry that reads it, from
 *                        the code before it; NULL when that fits none
 *   MC_RT_ISA_BITS       optional, address bits that name an
 *                        instruction set rather than a byte (ARM's bit
 *                        0 of a Thumb function): masked wherever a
 *                        function's address is compared with its code
 *   MC_RT_LOCAL_ENTRY(code, addr) optional, true where `addr` is an entry
 *                        point no symbol starts at (ppc64le's local
 *                        entry, past the TOC set-up): a pad there is
 *                        a function's pad
 *   MC_RT_LIVE_SYNC_CORE 1 where other cores must execute a
 *                        core-serialising instruction before they may
 *                        run code another core changed (x86)
 *   MC_RT_PAD_REFUSE(code, end) optional: why a pad whose NOPs end at `end`
 *                        cannot be patched (ppc64le: a TOC set-up
 *                        follows, which local calls skip), or NULL
 *   MC_RT_PLT_ARCH 1     optional, where a shared object's hook calls
 *                        the stub through its PLT: the entries are
 *                        decoded by the arch's plt_slot (every
 *                        plt_step bytes of .plt and .plt.sec; `got`,
 *                        the object's GOT base, where entries index
 *                        from it); with MC_RT_PLT_ALIAS 1, the Thumb
 *                        stub before an entry (ARM) is another way
 *                        into it
 *   MC_RT_STUB_SLOT(code, target, got) optional, where a shared object's hook
 *                        calls a linker stub in its text rather than a
 *                        PLT section (ppc64le): the slot the stub at a
 *                        call's `target` jumps through (the arch's
 *                        plt_slot), or 0; `got` is
 *                        the image's base, from MC_RT_GOT_SECTION
 *   MC_RT_GOT_SECTION, MC_RT_GOT_BIAS optional: the section whose start
 *                        plus the bias is a shared object's `got` for
 *                        MC_RT_STUB_SLOT (ppc64le's TOC pointer)
 *   MC_RT_SITE_NEUTRAL(code, at, call, neutral) optional: where the code after
 *                        a hook may need other neutral bytes (ppc64le:
 *                        `b +8` over a TOC restore), NULL with *neutral
 *                        kept or replaced; else why the site (a call,
 *                        or a NOP if !call) cannot be disabled safely.
 *                        A hook's disabled live form is then *neutral.
 *   MC_RT_SITE_CALLER(code, at, caller) optional, where the trampoline
 *                        must be told how a hook passes its caller
 *                        (riscv64: in a0, or in the frame): NULL with a
 *                        byte of the backend's in *caller, kept with the
 *                        site; else why the code before the hook at `at`
 *                        does not say, and the site is refused
 *   MC_RT_MCOUNT_TRAMP(caller) optional, with MC_RT_SITE_CALLER: the
 *                        trampoline an mcount-style site whose byte is
 *                        `caller` calls, instead of mc_rt_tramp_mcount
 *   MC_RT_CALL_REL32 1   optional, where a direct call's last four bytes
 *                        are its target's displacement from its end,
 *                        little-endian, and its other bytes do not
 *                        depend on where it is (x86): the boot pass then
 *                        matches and re-aims runs of such calls without
 *                        the arch's decoder and encoder
 *   MC_RT_DISPATCH_SLOT 1 the trampolines call mc_rt_dispatch_slot, with
 *                        the slot of the function's return address
 *                        (below: MC_RT_SLOT_FROM_SP, MC_RT_CFA_FROM_SP)
 *   MC_RT_SLOT_CALLER(addr) optional: the caller's address from the word
 *                        in that slot, where it is not the word itself
 *                        (aarch64: its pointer authentication code
 *                        stripped)
 *   MC_RT_GPR_SLOT_HOOK 1, MC_RT_ENTRY_TAKEOVER 1 optional: the
 *                        trampolines' two fast ways into a slot hook
 *                        (below)
 *
 * Every hook given `code` reads memory only where code->room says it
 * may, and asks the platform nothing but through `code`.
 */
#if defined(__x86_64__)
#include "x86_64/backend.h"
#elif defined(__i386__)
#include "i386/backend.h"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && _CALL_ELF == 2
#include "ppc64le/backend.h"
#elif defined(__s390x__)
#include "s390x/backend.h"
#elif defined(__aarch64__)
#include "aarch64/backend.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "riscv64/backend.h"
#elif defined(__arm__)
#include "arm/backend.h"
#else
#error "runtime: no backend for this architecture yet (runtime/<arch>/)"
#endif

#ifndef MC_RT_HAVE_GOT_BASE
#define MC_RT_HAVE_GOT_BASE 0
#endif

#ifndef MC_RT_ISA_BITS
#define MC_RT_ISA_BITS 0
#endif

/* MC_RT_LIVE_SYNC_CORE: 1 where mc_plat_sync_ready(true) is needed. */
#ifndef MC_RT_LIVE_SYNC_CORE
#define MC_RT_LIVE_SYNC_CORE 0
#endif

/*
 * From runtime/<arch>/trampoline.S.  The stubs (MC_RT_*_STUB) only
 * return, so that hooks reached before boot cost nothing (after undoing
 * what the hook sequence expects of them: ARM's __gnu_mcount_nc pops the
 * word its caller pushed).  The trampolines save the argument registers
 * and call mc_rt_dispatch().
 */
MC_RT_HIDDEN void mc_rt_tramp_fentry(void);
MC_RT_HIDDEN void mc_rt_tramp_mcount(void);
MC_RT_HIDDEN void mc_rt_tramp_pad(void);

/* The run-time address of this program's GOT (MC_RT_HAVE_GOT_BASE). */
MC_RT_HIDDEN uintptr_t mc_rt_got_base(void);

/*
 * From the engine to the platform's by-name calls: turn the functions
 * at funcs[0, n) on or off in one batch (mcount_enable_many's contract;
 * `skip_missing`: a function without a site is passed over, not an
 * error, as when a name pattern chose them).
 */
MC_RT_HIDDEN int mc_rt_set_many(const uintptr_t *funcs, size_t n, bool on,
				bool skip_missing);

/* Every site's info at one instant (core/list.c); returns their number. */
struct mcount_site_info;
MC_RT_HIDDEN size_t mc_rt_sites_copy(struct mcount_site_info *out,
				     size_t cap);

/* ret: return address into the hooked function; caller: its caller. */
MC_RT_HIDDEN void mc_rt_dispatch(uintptr_t ret, uintptr_t caller);

/*
 * The slot hook, for a recorder of exits (recorder/): called at every
 * enabled site with `ret`, the return address into the function (just
 * past its hook), and where the function's own return address lives
 * (`slot`), so that it may swap in a return trampoline.  The
 * trampolines of a backend that defines MC_RT_DISPATCH_SLOT call
 * mc_rt_dispatch_slot(ret, slot) instead of mc_rt_dispatch, which calls
 * the hook when one is set and the callback (caller = *slot) when not.
 * mc_rt_set_slot_hook() is false where the backend does not.
 *
 * Where the slot lies is the backend's: MC_RT_SLOT_FROM_SP, in bytes
 * from the stack pointer the function was called with, where that is
 * fixed (one word below, where a call pushed the return address, unless
 * the backend says otherwise: s390x's %r14 save slot, ppc64's LR save
 * doubleword); MC_RT_CFA_FROM_SP, the DWARF CFA less that stack pointer
 * (0 unless the backend says).  aarch64, arm and riscv64 hand a slot
 * that depends on each function's prologue (recorder/<arch>/frame.c).
 */
#ifndef MC_RT_SLOT_FROM_SP
#define MC_RT_SLOT_FROM_SP (-(intptr_t)sizeof(uintptr_t))
#endif
#ifndef MC_RT_CFA_FROM_SP
#define MC_RT_CFA_FROM_SP 0
#endif
typedef void (*mc_rt_slot_hook_t)(uintptr_t ret, uintptr_t *slot);
MC_RT_HIDDEN bool mc_rt_set_slot_hook(mc_rt_slot_hook_t hook);
MC_RT_HIDDEN void mc_rt_dispatch_slot(uintptr_t ret, uintptr_t *slot);

/*
 * A slot hook that changes no register but the general ones a C callee
 * may clobber: no vector, x87 or mask register, by any path that
 * returns.  A backend that defines MC_RT_GPR_SLOT_HOOK has trampolines
 * that call such a hook directly (mc_rt_gpr_slot_hook, when not NULL)
 * and save no vector argument registers around it; elsewhere it is set
 * as an ordinary slot hook.  Setting either hook clears the other.
 */
MC_RT_HIDDEN bool mc_rt_set_gpr_slot_hook(mc_rt_slot_hook_t hook);
MC_RT_HIDDEN extern mc_rt_slot_hook_t mc_rt_gpr_slot_hook;

/*
 * Taking over a trampoline's entry, for a client whose own code does
 * the common case of its slot hook faster than a call can (the
 * recorder's recorder/<arch>/entry.S).  A backend that defines
 * MC_RT_ENTRY_TAKEOVER has trampolines that, when
 * mc_rt_fentry_takeover (for mc_rt_tramp_fentry, and so pads) or
 * mc_rt_mcount_takeover (mc_rt_tramp_mcount) is set, jump to it first
 * thing, before they build a frame.  On x86_64: the stack and every
 * register as the site's call left them, but %r11, which holds the
 * routine's address (so it begins with endbr64 under IBT).  The routine
 * either returns into the function itself, having changed no register
 * but %r11 and the flags, or jumps, with everything as it got it and a
 * general-register slot hook in %r11, to mc_rt_tramp_fentry_gpr
 * (mc_rt_tramp_mcount_gpr): the trampoline's own path that saves the
 * general argument registers and calls that hook with the arguments
 * mc_rt_gpr_slot_hook gets.  Another backend's trampoline.S says which
 * register holds the routine's address, which it may change, and where
 * it goes back to (aarch64, riscv64: the trampoline's body past the
 * test, which calls the slot hook as it would have).  NULL gives a
 * trampoline its own entry back; setting a slot hook (either kind)
 * clears both.
 * Elsewhere mc_rt_set_entry_takeover is false unless both are NULL.
 */
typedef void (*mc_rt_entry_t)(void);
MC_RT_HIDDEN bool mc_rt_set_entry_takeover(mc_rt_entry_t of_fentry,
					   mc_rt_entry_t of_mcount);
MC_RT_HIDDEN extern mc_rt_entry_t mc_rt_fentry_takeover;
MC_RT_HIDDEN extern mc_rt_entry_t mc_rt_mcount_takeover;
MC_RT_HIDDEN void mc_rt_tramp_fentry_gpr(void);
MC_RT_HIDDEN void mc_rt_tramp_mcount_gpr(void);

#endif
