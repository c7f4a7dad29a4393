/* SPDX-License-Identifier: GPL-2.0-only */
/* memtouch MB ROUNDS SLEEP_S (bench/probe, issue 30): touch MB of fresh anonymous memory per round
   (one write a 4 KiB page), ns a page of wall and CPU, sleeping between. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
static double ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char **argv)
{
	size_t mb = atol(argv[1]), pages = mb * 256; int rounds = atoi(argv[2]); double sl = atof(argv[3]);
	for (int r = 0; r < rounds; r++) {
		struct rusage a, b;
		char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		getrusage(RUSAGE_SELF, &a);
		double w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; i < pages; i++) p[i * 4096] = 1;
		double c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
		getrusage(RUSAGE_SELF, &b);
		printf("round %d: wall %.0f cpu %.0f ns/page, user %.3f sys %.3f s, faults %ld\n", r,
		       (w1 - w0) / pages, (c1 - c0) / pages,
		       (b.ru_utime.tv_sec - a.ru_utime.tv_sec) + (b.ru_utime.tv_usec - a.ru_utime.tv_usec) / 1e6,
		       (b.ru_stime.tv_sec - a.ru_stime.tv_sec) + (b.ru_stime.tv_usec - a.ru_stime.tv_usec) / 1e6,
		       b.ru_minflt - a.ru_minflt);
		fflush(stdout);
		munmap(p, pages * 4096);
		if (sl > 0) usleep(sl * 1e6);
	}
	return 0;
}
