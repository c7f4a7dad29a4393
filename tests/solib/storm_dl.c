/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * storm_dl.c - the toggle storm (tests/runtime/storm.c) with its hooked
 * functions in a library opened by dlopen: libstorm.so holds storm.c,
 * built with main renamed storm_main, and storm_funcs.c, hooked.  This
 * program has no hook of its own; it links libmcount.so, whose dlopen
 * patches the library's sites before it returns.
 *
 *   storm_dl LIBSTORM [seconds]
 *
 * Runs the storm inside the library (its own checks, "N passed, M
 * failed"), then closes it and checks that the runtime forgot its sites.
 * Exits 0 when every check passed.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <mcount.h>

int main(int argc, char **argv)
{
	size_t before = mcount_site_count(), loaded, after;
	int (*storm_main)(int, char **);
	void *h;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: storm_dl LIBSTORM [seconds]\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "storm_dl: %s\n", dlerror());
		return 2;
	}
	*(void **)&storm_main = dlsym(h, "storm_main");
	if (!storm_main) {
		fprintf(stderr, "storm_dl: %s\n", dlerror());
		return 2;
	}
	loaded = mcount_site_count();
	r = storm_main(argc - 1, argv + 1);
	if (dlclose(h) != 0) {
		fprintf(stderr, "storm_dl: dlclose: %s\n", dlerror());
		return 2;
	}
	after = mcount_site_count();
	printf("storm_dl: sites %zu before dlopen, %zu loaded, %zu after dlclose\n",
	       before, loaded, after);
	if (loaded <= before || after != before) {
		printf("FAIL: storm_dl: the library's sites added by dlopen and "
		       "forgotten by dlclose\n");
		return 1;
	}
	printf("PASS: storm_dl: the library's sites added by dlopen and "
	       "forgotten by dlclose\n");
	return r;
}
