/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock.c - what one timestamp costs here, for the recorder's choice of
 * clock (recorder/recorder.h, rec_ticks): CPU ns per read of rdtsc,
 * rdtscp, lfence;rdtsc and clock_gettime(CLOCK_MONOTONIC), each the
 * best of 7 rounds of 10^7 reads in a loop that keeps every value.
 * Prints Markdown table rows.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define READS 10000000L
#define ROUNDS 7

static volatile uint64_t sink;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t tsc(void) { return __rdtsc(); }
static uint64_t tscp(void) { unsigned aux; return __rdtscp(&aux); }
static uint64_t fenced(void) { _mm_lfence(); return __rdtsc(); }
#endif

/* The inner loop is inlined per clock: no call in what is measured. */
#define BEST(name, read)						\
	do {								\
		double best = 1e30;					\
		for (int r = 0; r < ROUNDS; r++) {			\
			double t0 = cpu_ns(), d;			\
			uint64_t s = 0;					\
			for (long i = 0; i < READS; i++)		\
				s += read();				\
			sink = s;					\
			d = (cpu_ns() - t0) / READS;			\
			if (d < best)					\
				best = d;				\
		}							\
		printf("| one timestamp: %s, CPU (ns) | %.1f |\n", name, best); \
	} while (0)

int main(void)
{
#if defined(__x86_64__) || defined(__i386__)
	BEST("rdtsc (the recorder's)", tsc);
	BEST("rdtscp", tscp);
	BEST("lfence; rdtsc", fenced);
#endif
	BEST("clock_gettime(CLOCK_MONOTONIC)", monotonic);
	return 0;
}
