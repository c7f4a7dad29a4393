/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * toggle.c - the cost of live patching, linked with the boot program's
 * generated functions (gen.py).
 *
 *   toggle [BATCH] [BUSY]
 *
 * After boot: (1) one function enabled and disabled again, 2,000 times,
 * as µs per toggle; (2) BATCH functions (default 10,000) enabled in one
 * mcount_enable_many() call and disabled in another, as µs per function.
 * With BUSY set (non-zero), a second thread calls hooked functions all
 * along, so that each toggle's membarrier has another core to reach.
 * Prints one line of figures.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "mcount.h"

static atomic_bool stop;
static unsigned long *funcs;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* CPU time of this thread, user and system, in µs: steadier than wall
 * time on a loaded machine. */
static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void *busy(void *arg)
{
	size_t n = (size_t)arg;
	unsigned long sum = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		for (size_t i = 0; i < n; i += 97)
			sum += ((int (*)(int))funcs[i])((int)i);
	return (void *)sum;
}

static void on_entry(unsigned long func, unsigned long caller)
{
	(void)func;
	(void)caller;
}

int main(int argc, char **argv)
{
	size_t batch = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	int with_busy = argc > 2 && atoi(argv[2]);
	size_t n = mcount_site_count(), rounds = 2000;
	struct mcount_site_info si;
	pthread_t t;
	double t0, c0, single, single_cpu, on_us, off_us;

	if (!mcount_booted() || n < batch || !batch) {
		fprintf(stderr, "toggle: not booted or fewer than %zu sites\n",
			batch);
		return 1;
	}
	funcs = malloc(n * sizeof(*funcs));
	for (size_t i = 0; i < n; i++) {
		mcount_site_get(i, &si);
		funcs[i] = si.addr;
	}
	mcount_set_callback(on_entry);
	if (with_busy)
		pthread_create(&t, NULL, busy, (void *)n);

	t0 = now_us();
	c0 = cpu_us();
	for (size_t r = 0; r < rounds; r++)
		if (mcount_enable(funcs[r % n]) || mcount_disable(funcs[r % n]))
			return 1;
	single = (now_us() - t0) / (2.0 * rounds);
	single_cpu = (cpu_us() - c0) / (2.0 * rounds);

	t0 = now_us();
	if (mcount_enable_many(funcs, batch) != (int)batch)
		return 1;
	on_us = (now_us() - t0) / (double)batch;
	t0 = now_us();
	if (mcount_disable_many(funcs, batch) != (int)batch)
		return 1;
	off_us = (now_us() - t0) / (double)batch;

	if (with_busy) {
		atomic_store(&stop, true);
		pthread_join(t, NULL);
	}
	printf("single_us %.2f single_cpu_us %.2f batch %zu "
	       "enable_us_per_fn %.3f disable_us_per_fn %.3f busy %d\n",
	       single, single_cpu, batch, on_us, off_us, with_busy);
	return 0;
}
