/* SPDX-License-Identifier: GPL-2.0-only */
/* names_dlopen.c (bench/probe): how long dlopen + dlclose of a hooked
   library takes while N threads ask mcount_func_name without pause,
   the writer against the readers of the runtime's object list (see
   bench/RESULTS.md).  Built like tests/solib's prog: hooked, recorded
   with --per-section, linked with libmcount.so or libmcount.a;
     names_dlopen LIBDYN THREADS ROUNDS
   prints the rounds' median, 99th percentile and slowest wall time,
   and how many lookups the other threads made during a round. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mcount.h>

static int stop;
static unsigned long lookups;

__attribute__((noinline)) int probe_target(int x)
{
	return x * 2 + 1;
}

static void *asker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		mcount_func_name((unsigned long)probe_target, NULL);
		__atomic_add_fetch(&lookups, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	int rounds = argc > 3 ? atoi(argv[3]) : 300;
	pthread_t t[64];
	double *d, start;
	unsigned long most = 0, all = 0;

	if (argc < 2 || threads < 0 || threads > 64 || rounds < 1 ||
	    !(d = calloc(rounds, sizeof(*d))))
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, asker, NULL);
	start = now();
	for (int r = 0; r < rounds; r++) {
		unsigned long l0 = __atomic_load_n(&lookups, __ATOMIC_RELAXED);
		double s = now();
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "names_dlopen: %s\n", dlerror());
			return 2;
		}
		dlclose(h);
		d[r] = now() - s;
		l0 = __atomic_load_n(&lookups, __ATOMIC_RELAXED) - l0;
		all += l0;
		most = l0 > most ? l0 : most;
	}
	start = now() - start;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	qsort(d, rounds, sizeof(*d), by_value);
	printf("%d threads asking: %d rounds in %.2f s; a round: median %.0f "
	       "us, p99 %.0f us, slowest %.0f us; lookups during a round: "
	       "mean %lu, most %lu (%d)\n", threads, rounds, start,
	       d[rounds / 2] * 1e6, d[rounds * 99 / 100] * 1e6,
	       d[rounds - 1] * 1e6, all / rounds, most, probe_target(1));
	return 0;
}
