/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dlcounter.c - the independent count for programs that open and close
 * libraries: linked into a program built with -finstrument-functions
 * (and -rdynamic), it names each function entered with dladdr while it
 * is loaded, counts entries per name, and prints "NAME COUNT" lines to
 * $COUNTS at exit.  Addresses would not do: two libraries opened in
 * turn may put two functions at one address.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define NOTRACE __attribute__((no_instrument_function))

static struct { char name[64]; unsigned long n; } tab[N];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int in;

NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	Dl_info info;
	const char *name;

	(void)site;
	if (in++ == 0) {
		name = dladdr(fn, &info) && info.dli_sname ? info.dli_sname : "?";
		pthread_mutex_lock(&lock);
		for (int i = 0; i < N; i++) {
			if (!tab[i].name[0])
				snprintf(tab[i].name, sizeof(tab[i].name), "%s",
					 name);
			if (!strcmp(tab[i].name, name)) {
				tab[i].n++;
				break;
			}
		}
		pthread_mutex_unlock(&lock);
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
	for (int i = 0; i < N && tab[i].name[0]; i++)
		fprintf(f, "%s %lu\n", tab[i].name, tab[i].n);
	fclose(f);
}
