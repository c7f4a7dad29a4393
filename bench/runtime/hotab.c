/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hotab.c - the disabled form's cost against the kernel's choice, a
 * multi-byte NOP, in one process: calls per second of a small hooked
 * function with its site as the runtime left it (x86: `test $rel32,
 * %eax`, which a toggle turns into the call with one byte) and with
 * the same bytes overwritten by the NOP of that length, interleaved
 * over ROUNDS rounds so that a busy machine weighs on both alike.
 * x86 only (the NOP bytes are x86's).  Prints the median rate of each
 * and their ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mcount.h"

__attribute__((noinline)) int hot(int x)
{
	return x * 3 + 1;
}

MCOUNT_NOTRACE static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

MCOUNT_NOTRACE static double rate(long n)
{
	volatile int sink = 0;
	double t0 = now_s();

	for (long i = 0; i < n; i++)
		sink = hot(sink);
	return n / (now_s() - t0) / 1e6;
}

MCOUNT_NOTRACE static void put(unsigned long at, const unsigned char *b, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *lo = (void *)(at & ~(unsigned long)(pg - 1));

	mprotect(lo, (size_t)pg * 2, PROT_READ | PROT_WRITE | PROT_EXEC);
	memcpy((void *)at, b, len);
	mprotect(lo, (size_t)pg * 2, PROT_READ | PROT_EXEC);
}

MCOUNT_NOTRACE static int by_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

MCOUNT_NOTRACE int main(int argc, char **argv)
{
	static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const unsigned char nop6[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	enum { ROUNDS = 11 };
	long n = argc > 1 ? atol(argv[1]) : 50000000L;
	double live[ROUNDS], nop[ROUNDS];
	unsigned char saved[8];
	struct mcount_site_info si;

	if (mcount_site_count() != 1 || mcount_site_get(0, &si) ||
	    (si.len != 5 && si.len != 6)) {
		fprintf(stderr, "hotab: want one 5- or 6-byte site\n");
		return 1;
	}
	memcpy(saved, (void *)si.at, si.len);
	for (int r = 0; r < ROUNDS; r++) {
		live[r] = rate(n);
		put(si.at, si.len == 5 ? nop5 : nop6, si.len);
		nop[r] = rate(n);
		put(si.at, saved, si.len);
	}
	qsort(live, ROUNDS, sizeof(double), by_rate);
	qsort(nop, ROUNDS, sizeof(double), by_rate);
	printf("live_form_mcalls %.1f nop_mcalls %.1f ratio %.3f\n",
	       live[ROUNDS / 2], nop[ROUNDS / 2], live[ROUNDS / 2] / nop[ROUNDS / 2]);
	return 0;
}
