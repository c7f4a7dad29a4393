/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * toggle.c - the cost of live patching, linked with the boot program's
 * generated functions (gen.py).
 *
 *   toggle [BATCH] [BUSY]
 *
 * After boot: (1) one function enabled and disabled again, 2,000 times:
 * each toggle timed on its own (median and 90th percentile of wall
 * time), the mean of this thread's CPU, and per toggle the context
 * switches this thread took (voluntary: it slept; involuntary: the
 * scheduler ran something else on its core) and its page faults; (2)
 * BATCH functions (default 10,000) enabled in one mcount_enable_many()
 * call and disabled in another, as µs per function.  With BUSY set
 * (non-zero), a second thread calls hooked functions all along, so that
 * each toggle's membarrier has another core to reach.  Prints one line
 * of figures.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define ROUNDS 2000

/* What one run of single toggles took, per toggle. */
struct single {
	double median_us, p90_us, cpu_us, vol, invol, faults;
};

/*
 * ROUNDS functions enabled and disabled again, each toggle timed on its
 * own; 0, or 1 if a toggle failed.
 */
static int single_toggles(size_t n, struct single *out)
{
	static double took[2 * ROUNDS];
	struct rusage r0, r1;
	double c0, t;

	getrusage(RUSAGE_THREAD, &r0);
	c0 = cpu_us();
	for (size_t r = 0; r < ROUNDS; r++) {
		t = now_us();
		if (mcount_enable(funcs[r % n]))
			return 1;
		took[2 * r] = now_us() - t;
		t = now_us();
		if (mcount_disable(funcs[r % n]))
			return 1;
		took[2 * r + 1] = now_us() - t;
	}
	out->cpu_us = (cpu_us() - c0) / (2.0 * ROUNDS);
	getrusage(RUSAGE_THREAD, &r1);
	qsort(took, 2 * ROUNDS, sizeof(took[0]), by_value);
	out->median_us = took[ROUNDS];
	out->p90_us = took[2 * ROUNDS * 9 / 10];
	out->vol = (double)(r1.ru_nvcsw - r0.ru_nvcsw) / (2.0 * ROUNDS);
	out->invol = (double)(r1.ru_nivcsw - r0.ru_nivcsw) / (2.0 * ROUNDS);
	out->faults = (double)(r1.ru_minflt - r0.ru_minflt) / (2.0 * ROUNDS);
	return 0;
}

int main(int argc, char **argv)
{
	size_t batch = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	int with_busy = argc > 2 && atoi(argv[2]);
	size_t n = mcount_site_count();
	struct mcount_site_info si;
	struct single one;
	pthread_t t;
	double t0, on_us, off_us;

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

	if (single_toggles(n, &one))
		return 1;

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
	printf("single_us %.2f single_p90_us %.2f single_cpu_us %.2f "
	       "vcsw %.3f ivcsw %.3f minflt %.3f batch %zu "
	       "enable_us_per_fn %.3f disable_us_per_fn %.3f busy %d\n",
	       one.median_us, one.p90_us, one.cpu_us, one.vol, one.invol,
	       one.faults, batch, on_us, off_us, with_busy);
	return 0;
}
