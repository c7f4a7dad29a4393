/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * count.c - calls per function, counted two ways for tests/zlib/run.sh.
 *
 * Built plain, it is a libmcount user: a constructor (after the
 * runtime's boot) sets a callback and enables every site, and the
 * callback counts each function's calls.  Built with -DORACLE, it is
 * the independent count: __cyg_profile_func_enter for the same sources
 * built with -finstrument-functions, which does not go through
 * libmcount at all.  Linked into each of zlib's test programs (they
 * link with $(LDFLAGS)), either way writes, at exit, one line per
 * function called to $ZCOUNT_DIR/count.PID:
 *
 *	OBJECT OFFSET COUNT	(the object's file name, dladdr's; the
 *				function's offset from its load base,
 *				which is its nm value)
 *
 * The plain build also writes ZCOUNT_DIR/sites.PID: every site the
 * runtime reports, "OBJECT OFFSET", and the enable's result.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ORACLE
#include <mcount.h>
#endif

#define NOTRACE __attribute__((no_instrument_function))
#define SLOTS 8192

static struct { unsigned long fn, n; } tab[SLOTS];
static unsigned long overflow;

/* Count one call of `fn`: an open-addressed table, lock-free. */
NOTRACE static void note(unsigned long fn)
{
	unsigned h = (unsigned)((fn >> 4) % SLOTS);

	for (unsigned tries = 0; tries < SLOTS; tries++, h = (h + 1) % SLOTS) {
		unsigned long cur = __atomic_load_n(&tab[h].fn, __ATOMIC_ACQUIRE);

		if (!cur && __atomic_compare_exchange_n(&tab[h].fn, &cur, fn, 0,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			cur = fn;
		if (cur == fn) {
			__atomic_add_fetch(&tab[h].n, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&overflow, 1, __ATOMIC_RELAXED);
}

/* "OBJECT OFFSET" of an address, as dladdr sees it. */
NOTRACE static void print_place(FILE *f, unsigned long addr)
{
	Dl_info info;
	const char *name;

	if (!dladdr((void *)addr, &info) || !info.dli_fname) {
		fprintf(f, "? %lx", addr);
		return;
	}
	name = strrchr(info.dli_fname, '/');
	name = name ? name + 1 : info.dli_fname;
	fprintf(f, "%s %lx", *name ? name : "?",
		addr - (unsigned long)info.dli_fbase);
}

/* ZCOUNT_DIR/WHAT.PID, or NULL when ZCOUNT_DIR is not set. */
NOTRACE static FILE *open_out(const char *what)
{
	const char *dir = getenv("ZCOUNT_DIR");
	char path[4096];

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s.%ld", dir, what, (long)getpid());
	return fopen(path, "w");
}

#ifdef ORACLE
NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	note((unsigned long)fn);
}

NOTRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
#else
MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	(void)caller;
	note(func);
}

MCOUNT_NOTRACE static int print_site(const struct mcount_site_info *s,
				     void *arg)
{
	FILE *f = arg;

	print_place(f, s->addr);
	fprintf(f, " %s\n", s->state == MCOUNT_SITE_REFUSED ? "refused" :
		s->state == MCOUNT_SITE_ENABLED ? "enabled" : "nop");
	return 0;
}

/*
 * After the runtime's boot: libmcount.so's constructor runs before the
 * program's (a dependency's first), libmcount.a's has priority 101.
 */
MCOUNT_NOTRACE __attribute__((constructor)) static void start(void)
{
	FILE *f;
	int r;

	mcount_set_callback(on_call);
	r = mcount_enable_all();
	f = open_out("sites");
	if (!f)
		return;
	fprintf(f, "# enable_all: %d (%s), %zu sites\n", r,
		r < 0 ? mcount_strerror(r) : "ok", mcount_site_count());
	mcount_for_each_site(print_site, f);
	fclose(f);
}
#endif

NOTRACE __attribute__((destructor)) static void dump(void)
{
	FILE *f = open_out("count");

	if (!f)
		return;
	for (int i = 0; i < SLOTS; i++)
		if (tab[i].fn) {
			print_place(f, tab[i].fn);
			fprintf(f, " %lu\n", tab[i].n);
		}
	if (overflow)
		fprintf(f, "overflow - %lu\n", overflow);
	fclose(f);
}
