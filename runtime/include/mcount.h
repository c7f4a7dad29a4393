/* SPDX-License-Identifier: MIT */
/*
 * mcount.h - turn function-entry hooks on and off at run time.
 *
 * A program compiled with `gcc -pg [-mfentry]`, whose objects carry a
 * __mcount_loc table (from recordmcount or GCC's -mrecord-mcount), and
 * linked with lds/mcount.lds and libmcount.a (or, with tables recorded
 * `recordmcount --per-section`, with libmcount.a and no script by any
 * linker), starts with every hook
 * turned into a NOP by mcount_boot().  Code compiled with
 * -fpatchable-function-entry=N[,M] instead has NOP pads, which boot
 * checks and puts in their disabled form.  mcount_enable() turns one
 * function's hook into a call that reaches your callback; mcount_disable()
 * turns it back into a NOP.
 *
 * The hosted build runs mcount_boot() from a constructor.  To boot
 * yourself instead, either set MCOUNT_NO_AUTOBOOT=1 in the environment
 * or define, anywhere in the program:
 *	const int mcount_no_autoboot = 1;
 * Until boot, every hook calls a stub that only returns.
 *
 * Errors are negative MCOUNT_E* codes; nothing here aborts or exits.
 *
 * Threads.  mcount_boot() rewrites every site with plain stores: call it
 * (or let the constructor call it) before other threads run hooked code.
 * From then on every enable and disable call below is live: any thread
 * may make it at any time while any number of threads run the functions
 * being changed.  Boot puts each site in a form where only one aligned
 * word differs between on and off (x86: one byte, e8 call <-> a9 test;
 * aarch64, ppc64le: one instruction, for a pad its second one, after a
 * `mov x9, x30` or `mflr r0` written at boot; s390x: one bit of the
 * call's second byte (brasl <-> brcl 0 or lgfi); riscv64: the call's
 * last instruction, or at 2 mod 4 the
 * first halfword, swapped with a `c.j` over the site; ARM: the call
 * <-> a NOP, after a `mov ip, lr` that replaces the hook's push;
 * Thumb-2: that `mov` <-> a branch over it and the call, a halfword the
 * ARM ARM leaves UNPREDICTABLE to change under a running thread, see
 * arch/arm.c), and a toggle is that one store, the cache maintenance
 * the architecture needs, and on x86 membarrier(2)'s SYNC_CORE so that
 * every core fetches the new code.  A kernel without it (before Linux
 * 4.16) gets MCOUNT_ESYNC while the process has more than one thread,
 * never an unsafe patch.
 * A site whose two forms do not fit one store is rewritten whole only
 * while the process has one thread, and gets MCOUNT_ENOTLIVE otherwise.
 * Enable/disable calls are serialised by a lock; the traced path takes
 * none.  Taking that lock, they are not async-signal-safe: never call
 * them from a signal handler.  The callback may call them.
 *
 * A disable that returned means no call starting after it reaches the
 * callback; a call already past the site may still report once.
 *
 * Shared libraries (hosted).  Every loaded object whose file has a
 * table (or, built with pads and not recorded, the compiler's
 * __patchable_function_entries) is patched: the program and the libraries linked at start-up at
 * boot, a library opened later by dlopen before dlopen returns (libmcount
 * wraps dlopen and dlclose; its constructors still run with the hooks
 * calling the stubs), and a dlclosed one is forgotten before its text
 * goes.  Names: "fn" is the first object in load order defining fn;
 * "libfoo.so:fn" (file name, full path, or a prefix of the file name
 * before a dot) is that object's; globs take "libfoo.so:pat" too.
 * Listing indexes change when libraries are loaded or unloaded.
 *
 * Which libmcount.  libmcount.a (pkg-config mcount, CMake
 * mcount::mcount) for a program whose traced code is its own, and for
 * firmware; a program linking it that dlopens hooked libraries must
 * export the stubs and dlopen (-rdynamic).  libmcount.so (-lmcount,
 * CMake mcount::shared) when the traced code is in libraries, loaded
 * at start-up or with dlopen: its dlopen wraps every caller's, and its
 * stubs serve every object.  One runtime per process:
 * the first object in load order carrying one is it, and any other
 * copy's mcount_boot() returns MCOUNT_EOTHER.  Every backend patches
 * libraries (ppc64le's hooks there call a TOC-saving linker stub, and
 * `ld r2,24(r1)` follows them: a disabled one branches over that load,
 * an enabled one's trampoline saves r2 as the stub did).  An object
 * mapped farther from the trampoline than its calls reach (a PIE
 * against libmcount.so on x86_64) calls it through a thunk page the
 * runtime maps near the object's code (where no page is free within
 * reach, in the rest of the last page of the object's code segment); a
 * site still out of reach (no room near the object, an s390x pad, or a
 * freestanding build, which has no thunks) gets MCOUNT_ERANGE.
 *
 * fork: the child keeps the parent's sites and states and may toggle
 * on its own; exec boots the new program afresh.
 *
 * The callback may run on any thread, concurrently.  A per-thread guard
 * keeps it from recursing: while a thread is inside the callback, hooks
 * it reaches (traced functions the callback calls, or a signal handler
 * that runs traced code on that thread) do not call back.
 *
 * Recording (mctrace(1)): a hosted program records its calls' entries
 * and exits when MCOUNT_TRACE=FILE is set, on every backend above
 * (x86_64, i386, aarch64, arm, riscv64, ppc64le, s390x) with every hook
 * form it has; where it cannot follow a function it is to record (a
 * -pg prologue it cannot read, say) it says so on stderr at start and
 * records nothing, as on any other architecture.  While it records,
 * the recorder owns the hooks: the callback is not called for the
 * functions it enabled, and a function you enable is recorded (its
 * calls counted as not recorded, "return address not found", if it is
 * one the recorder cannot follow).  Calls not recorded are counted by
 * reason, as mctrace(1) says.  A library opened by libmcount's dlopen while recording has
 * its functions enabled by the recording's filters before dlopen
 * returns; its names are copied while it is loaded, so a call is named
 * by the library at its address when it was made, even once that
 * library is closed and another opened in its place.
 */
#ifndef MCOUNT_H
#define MCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Mark your callback (and what it calls) with this if built with hooks:
 * no -pg call, and (GCC 8 and later) no -fpatchable-function-entry pad.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define MCOUNT_NOTRACE __attribute__((no_instrument_function, \
				       patchable_function_entry(0, 0)))
#elif defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define MCOUNT_NOTRACE __attribute__((no_instrument_function, \
				       patchable_function_entry(0, 0)))
#endif
#endif
#ifndef MCOUNT_NOTRACE
#define MCOUNT_NOTRACE __attribute__((no_instrument_function))
#endif

enum {
	MCOUNT_OK = 0,
	MCOUNT_ENOTABLE = -1,	/* no __mcount_loc table linked in */
	MCOUNT_ENOTBOOTED = -2,	/* mcount_boot() has not succeeded */
	MCOUNT_ENOMEM = -3,	/* the platform gave no storage */
	MCOUNT_ENOSITE = -4,	/* no hook site in that function */
	MCOUNT_EREFUSED = -5,	/* the site was refused (boot, verify) */
	MCOUNT_EPROTECT = -6,	/* text could not be made writable */
	MCOUNT_ERANGE = -7,	/* trampoline out of the call's reach */
	MCOUNT_ENOSYM = -8,	/* no function of that name */
	MCOUNT_ENOSYMTAB = -9,	/* no symbol table to search */
	MCOUNT_ENOTLIVE = -10,	/* site cannot change in one store */
	MCOUNT_ESYNC = -11,	/* kernel cannot sync other cores */
	MCOUNT_ETOOMANY = -12,	/* more objects than the runtime's slots */
	MCOUNT_EOTHER = -13,	/* another copy of the runtime is in charge */
};

enum mcount_style {
	MCOUNT_STYLE_FENTRY,	/* hook is the first instruction */
	MCOUNT_STYLE_MCOUNT,	/* hook follows the frame set-up */
	MCOUNT_STYLE_PAD,	/* -fpatchable-function-entry NOP pad */
};

enum mcount_state {
	MCOUNT_SITE_NOP,	/* patched to a NOP (or found as one) */
	MCOUNT_SITE_ENABLED,	/* calls the trampoline */
	MCOUNT_SITE_REFUSED,	/* unrecognised bytes: never touched */
};

struct mcount_site_info {
	unsigned long addr;	/* the table's entry: the hook instruction,
				   or a pad's first NOP */
	unsigned long func;	/* function start, once enabled; else 0 */
	unsigned len;		/* bytes the engine rewrites, from `at` */
	enum mcount_style style;
	enum mcount_state state;
	unsigned long at;	/* where those bytes are: addr, but for a
				   pad its first NOP at or after the
				   function's entry (past endbr64/bti c) */
	const char *object;	/* the file of the object holding the site
				   (hosted; valid while it stays loaded),
				   or NULL */
};

struct mcount_counts {
	size_t sites;		/* entries in the table */
	size_t patched;		/* hook calls turned into NOPs at boot */
	size_t nops;		/* sites that already were NOPs (pads too),
				   or in their disabled form (recordmcount
				   --finalize --prepatch): none written */
	size_t refused;		/* left alone, including duplicates */
	size_t duplicates;	/* repeated table entries (in refused) */
	size_t enabled;		/* sites currently calling the callback */
	size_t pads;		/* NOP pads accepted at boot (in nops) */
};

/* func: the traced function's start; caller: its return address. */
typedef void (*mcount_callback_t)(unsigned long func, unsigned long caller);

/*
 * Patch every hook call to a NOP; check every pad.  Once only; later
 * calls return MCOUNT_OK.
 */
int mcount_boot(void);
bool mcount_booted(void);
void mcount_get_counts(struct mcount_counts *out);

/*
 * Sites in address order, duplicates left out.  Returns their number.
 * An index names a site until a library is loaded or unloaded: a walk
 * while other threads do that may skip sites or see one twice.
 */
size_t mcount_site_count(void);
int mcount_site_get(size_t index, struct mcount_site_info *out);

/* Stop early by returning non-zero; that value is passed back. */
int mcount_for_each_site(int (*fn)(const struct mcount_site_info *site,
				   void *arg), void *arg);

/*
 * Check that every site still holds what the engine last wrote there:
 * its neutral form, or the call to the trampoline when enabled.  A site
 * that does not is reported like a refusal at boot and is refused from
 * then on, never written again.  Returns how many sites changed, or
 * MCOUNT_ENOTBOOTED, or MCOUNT_ENOMEM (below).
 */
int mcount_verify(void);

/* NULL stops callbacks without touching any site. */
void mcount_set_callback(mcount_callback_t cb);

/*
 * By address: the site is searched within the function's symbol bounds
 * when the platform knows them, otherwise within the arch's
 * max_entry_offset bytes after `func`.  The first site enabled in an
 * object takes storage for its functions' starts (a word a site; boot
 * does not make it): MCOUNT_ENOMEM if the platform has none.  So may
 * the first enable, disable or verify after boot (the batches too):
 * where every site of a table in order was written or taken as it was
 * found (x86's boot), boot keeps no record a site, and that first call
 * makes them, a few dozen bytes a site; without storage it returns
 * MCOUNT_ENOMEM and changes nothing.  Listing sites needs none.
 */
int mcount_enable(unsigned long func);
int mcount_disable(unsigned long func);

/*
 * Batches: many functions at once, with one synchronisation of the
 * other cores for the whole batch.  Each returns how many of the
 * functions are now in the state asked for (>= 0), or a negative error:
 * the first met, the other sites still changed; for the _many forms,
 * MCOUNT_ENOSITE when one of `funcs` has no site, and then nothing
 * changed.  _all covers every site but the refused ones.
 */
int mcount_enable_many(const unsigned long *funcs, size_t n);
int mcount_disable_many(const unsigned long *funcs, size_t n);
int mcount_enable_all(void);
int mcount_disable_all(void);

/* Hosted only: by name, from the program's own .symtab. */
int mcount_enable_name(const char *name);
int mcount_disable_name(const char *name);

/*
 * Hosted only: every function whose name matches the fnmatch(3)
 * pattern, in one batch; functions without a hook are passed over
 * (MCOUNT_ENOSYM if no name matches).
 */
int mcount_enable_glob(const char *pattern);
int mcount_disable_glob(const char *pattern);

/*
 * Hosted only: the function containing `addr`, or NULL.  `offset` (may
 * be NULL) receives addr minus the function's start.  A lookup waits
 * for a dlopen or dlclose that is changing the list of loaded objects,
 * and one waiting for it goes first; from a signal handler it never
 * waits for its own thread: NULL when that thread was interrupted in
 * the middle of such a change.
 */
const char *mcount_func_name(unsigned long addr, unsigned long *offset);

const char *mcount_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
