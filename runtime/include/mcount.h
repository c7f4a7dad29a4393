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
 * -fpatchable-function-entry=N[,M] instead (x86_64, i386, aarch64,
 * riscv64) has NOP pads, which boot checks and leaves as they are.  mcount_enable() turns one
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
 * Threads: patching rewrites a few bytes of code without stopping other
 * threads.  Call mcount_boot/enable/disable only while no other thread
 * can be executing the function being changed (in practice: at start-up
 * or when the program is quiescent).  The callback may run on any
 * thread, concurrently.
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
};

struct mcount_counts {
	size_t sites;		/* entries in the table */
	size_t patched;		/* hook calls turned into NOPs at boot */
	size_t nops;		/* sites that already were NOPs (pads too) */
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

/* Sites in address order, duplicates left out.  Returns their number. */
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
 * MCOUNT_ENOTBOOTED.
 */
int mcount_verify(void);

/* NULL stops callbacks without touching any site. */
void mcount_set_callback(mcount_callback_t cb);

/*
 * By address: the site is searched within the function's symbol bounds
 * when the platform knows them, otherwise within the arch's
 * max_entry_offset bytes after `func`.
 */
int mcount_enable(unsigned long func);
int mcount_disable(unsigned long func);

/* Hosted only: by name, from the program's own .symtab. */
int mcount_enable_name(const char *name);
int mcount_disable_name(const char *name);

/*
 * Hosted only: the function containing `addr`, or NULL.  `offset` (may
 * be NULL) receives addr minus the function's start.
 */
const char *mcount_func_name(unsigned long addr, unsigned long *offset);

const char *mcount_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
