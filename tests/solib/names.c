/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.c - names asked for while a library comes and goes: one thread
 * opens and closes LIBDYN (tests/solib/libdyn.c, hooked) ROUNDS times;
 * two others ask mcount_func_name about its dyn_call, whose address is
 * kept after the close, without pause.  The runtime must never follow a
 * pointer into the closed library (its program headers): a crash fails
 * the test, and so does a wrong name, or none, for dyn_call while it is
 * loaded (asked by the opening thread: the name a lookup returns is
 * valid only while its library stays loaded, so the askers do not read
 * theirs).
 *
 *   names LIBDYN [ROUNDS]   prints "PASS: ..." or "FAIL: ..." lines
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcount.h>

static unsigned long dyn_addr;	/* dyn_call's address in the last load */
static int stop, loaded;
static unsigned long asked, named;

static void *asker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long a = __atomic_load_n(&dyn_addr, __ATOMIC_ACQUIRE);

		if (!a)
			continue;
		if (mcount_func_name(a, NULL))
			__atomic_add_fetch(&named, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&asked, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 2000, wrong = 0;
	pthread_t t[2];

	if (argc < 2)
		return 2;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, asker, NULL);
	for (int r = 0; r < rounds; r++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		const char *n;
		void *f;

		if (!h || !(f = dlsym(h, "dyn_call"))) {
			fprintf(stderr, "names: %s\n", dlerror());
			return 2;
		}
		__atomic_store_n(&dyn_addr, (unsigned long)f, __ATOMIC_RELEASE);
		loaded++;
		n = mcount_func_name((unsigned long)f, NULL);
		if (!n || strcmp(n, "dyn_call") != 0)
			wrong++;
		dlclose(h);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("names: %d loads, %lu names asked by the other threads, %lu "
	       "given; %d wrong while loaded\n", loaded, asked, named, wrong);
	if (wrong) {
		printf("FAIL: names: dyn_call named while loaded\n");
		return 1;
	}
	printf("PASS: names: %d loads and closes while two threads ask "
	       "names: no crash, dyn_call named while loaded\n", loaded);
	return 0;
}
