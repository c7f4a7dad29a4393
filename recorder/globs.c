/* SPDX-License-Identifier: MIT */
/*
 * globs.c - how a glob picks a function, for every filter the recorder
 * has: -F/-N (filters.c) and -A/-R (args.c).
 *
 * A function is picked by its symbol, or for a C++ one by its name as
 * mctrace shows it (demangle.c: the name alone, `geo::*`,
 * `std::vector::push_back`), or by its name demangled whole but for a
 * template function's return type, whose scope is not the function's
 * (`geo::*` must not pick a function that returns a geo::Shape*).  The
 * demangler is the toolchain's, libstdc++'s __cxa_demangle.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "recorder.h"

bool rec_glob_picks(const char *glob, struct rec_glob_name *n)
{
	int status;

	if (!fnmatch(glob, n->sym, 0))
		return true;
	if (!n->tried) {
		n->tried = true;
		if (n->demangle && !strncmp(n->sym, "_Z", 2) &&
		    (n->full = n->demangle(n->sym, NULL, NULL, &status)))
			n->simple = rec_demangle_simple(n->full);
	}
	return (n->full &&
		!fnmatch(glob, rec_demangle_sans_return(n->full), 0)) ||
	       (n->simple && !fnmatch(glob, n->simple, 0));
}

void rec_glob_name_free(struct rec_glob_name *n)
{
	free(n->full);
	free(n->simple);
	n->full = n->simple = NULL;
	n->tried = false;
}

/*
 * The process's own demangler, looked up as libmcount is loaded: that
 * load holds the loader's lock already.  A lookup at an attach's start
 * would wait for that lock, which a thread mctrace holds stopped inside
 * an object's constructor or destructor (a dlopen or dlclose under way)
 * may hold; mctrace would give the call up with the patching lock held
 * by it, and every later attach and detach of that process would wait.
 */
static void *own_demangler;

__attribute__((constructor)) static void find_own_demangler(void)
{
	own_demangler = dlsym(RTLD_DEFAULT, "__cxa_demangle");
}

/*
 * Only globs need a demangler.  With none found at load, a later
 * lookup (libstdc++ loaded since), and libstdc++ itself for a glob
 * with a C++ scope in it, as nothing else could match it.
 */
rec_demangler_fn rec_find_demangler(const char *const *globs, size_t n)
{
	void *d = own_demangler, *lib;
	size_t k = 0;
	bool any = false;

	for (size_t j = 0; j < n; j++)
		any |= globs[j] != NULL;
	if (d || !any)
		return (rec_demangler_fn)d;
	d = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	while (k < n && !(globs[k] && strstr(globs[k], "::")))
		k++;
	if (d || k == n)
		return (rec_demangler_fn)d;
	lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	return lib ? (rec_demangler_fn)dlsym(lib, "__cxa_demangle") : NULL;
}
