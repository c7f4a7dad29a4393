/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * counter.c - the independent count: linked into prog built with
 * -finstrument-functions, it counts each function's entries and prints
 * "ADDRESS COUNT" lines to $COUNTS at exit (names come from nm); and,
 * when $EDGES names a file, each function's entries by the address it
 * was called from, "ADDRESS SITE COUNT" lines there: the caller is the
 * function the site is in, whatever a longjmp left behind.  A child by
 * fork counts its own calls from the fork on, into $COUNTS.PID (and
 * $EDGES.PID): one count per process, as a trace of a process tree
 * holds them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 4096
#define NOTRACE __attribute__((no_instrument_function))

static struct { void *fn; unsigned long n; } tab[N];
static struct { void *fn, *site; unsigned long n; } edges[N];
static __thread int in;

NOTRACE static void count(void *fn)
{
	for (unsigned h = ((unsigned long)fn >> 4) % N;; h = (h + 1) % N) {
		void *cur = __atomic_load_n(&tab[h].fn, __ATOMIC_ACQUIRE);

		if (!cur && __atomic_compare_exchange_n(&tab[h].fn, &cur,
			fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			cur = fn;
		if (cur == fn) {
			__atomic_add_fetch(&tab[h].n, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

/*
 * Keyed by the pair, under a lock: a site may call several functions
 * (through a pointer), and the hooks run on several threads.  `in`
 * keeps a signal handler's hook out while its thread holds the lock.
 */
static char edges_lock;
static int want_edges;
static pid_t forked;	/* this process's pid, if a child by fork */

/* The child's counts start at the fork, as its trace does. */
NOTRACE static void fork_child(void)
{
	memset(tab, 0, sizeof(tab));
	memset(edges, 0, sizeof(edges));
	forked = getpid();
}

NOTRACE __attribute__((constructor)) static void want(void)
{
	want_edges = getenv("EDGES") != NULL;
	pthread_atfork(NULL, NULL, fork_child);
}

/* $NAME, or $NAME.PID in a child by fork; NULL if NAME is unset. */
NOTRACE static FILE *open_out(const char *name)
{
	const char *path = getenv(name);
	char buf[4096];

	if (!path)
		return NULL;
	if (forked) {
		snprintf(buf, sizeof(buf), "%s.%ld", path, (long)forked);
		path = buf;
	}
	return fopen(path, "w");
}

NOTRACE static void count_edge(void *fn, void *site)
{
	unsigned h = ((unsigned long)site >> 2 ^ (unsigned long)fn >> 4) % N;

	while (__atomic_test_and_set(&edges_lock, __ATOMIC_ACQUIRE))
		;
	for (;; h = (h + 1) % N) {
		if (!edges[h].site) {
			edges[h].fn = fn;
			edges[h].site = site;
		}
		if (edges[h].site == site && edges[h].fn == fn) {
			edges[h].n++;
			break;
		}
	}
	__atomic_clear(&edges_lock, __ATOMIC_RELEASE);
}

NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	if (in++ == 0) {
		count(fn);
		if (want_edges)
			count_edge(fn, site);
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
	FILE *f = open_out("COUNTS");

	if (f) {
		for (int i = 0; i < N; i++)
			if (tab[i].fn)
				fprintf(f, "%lx %lu\n", (unsigned long)tab[i].fn,
					tab[i].n);
		fclose(f);
	}
	f = open_out("EDGES");
	if (!f)
		return;
	for (int i = 0; i < N; i++)
		if (edges[i].site)
			fprintf(f, "%lx %lx %lu\n", (unsigned long)edges[i].fn,
				(unsigned long)edges[i].site, edges[i].n);
	fclose(f);
}
