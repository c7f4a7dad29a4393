/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * counter.c - the independent count: linked into prog built with
 * -finstrument-functions, it counts each function's entries and prints
 * "ADDRESS COUNT" lines to $COUNTS at exit (names come from nm).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define NOTRACE __attribute__((no_instrument_function))

static struct { void *fn; unsigned long n; } tab[N];
static __thread int in;

NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	if (in++ == 0)
		for (unsigned h = ((unsigned long)fn >> 4) % N;; h = (h + 1) % N) {
			void *cur = __atomic_load_n(&tab[h].fn, __ATOMIC_ACQUIRE);

			if (!cur && __atomic_compare_exchange_n(&tab[h].fn, &cur,
				fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				cur = fn;
			if (cur == fn) {
				__atomic_add_fetch(&tab[h].n, 1, __ATOMIC_RELAXED);
				break;
			}
		}
	in--;
}

NOTRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

NOTRACE __attribute__((destructor)) static void dump(void)
{
	const char *path = getenv("COUNTS");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	for (int i = 0; i < N; i++)
		if (tab[i].fn)
			fprintf(f, "%lx %lu\n", (unsigned long)tab[i].fn, tab[i].n);
	fclose(f);
}
