/* SPDX-License-Identifier: GPL-2.0-only */
/* syswrap.c (bench/probe, issue 30): CPU time (this thread: user + kernel) and minor
   faults inside each system call libmcount.a makes, linked with
   -Wl,--wrap=mmap,--wrap=madvise,... (see bench/RESULTS.md); printed at exit. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>
#include <sys/resource.h>
static double acc[8]; static long cnt[8], flt[8];
static const char *nm[8] = {"mmap", "madvise", "mprotect", "pread", "munmap", "open", "readlink", "realpath"};
static double ns(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static long mf(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_minflt; }
#define T(i, call) ({ long f0 = mf(); double t0 = ns(); __typeof__(call) r_ = call; acc[i] += ns() - t0; flt[i] += mf() - f0; cnt[i]++; r_; })
void *__real_mmap(void *, size_t, int, int, int, off_t);
void *__wrap_mmap(void *a, size_t l, int p, int f, int fd, off_t o) { return T(0, __real_mmap(a, l, p, f, fd, o)); }
int __real_madvise(void *, size_t, int);
int __wrap_madvise(void *a, size_t l, int adv) { return T(1, __real_madvise(a, l, adv)); }
int __real_mprotect(void *, size_t, int);
int __wrap_mprotect(void *a, size_t l, int p) { return T(2, __real_mprotect(a, l, p)); }
ssize_t __real_pread(int, void *, size_t, off_t);
ssize_t __wrap_pread(int fd, void *b, size_t n, off_t o) { return T(3, __real_pread(fd, b, n, o)); }
int __real_munmap(void *, size_t);
int __wrap_munmap(void *a, size_t l) { return T(4, __real_munmap(a, l)); }
int __real_open(const char *, int, ...);
int __wrap_open(const char *p, int f, ...) { return T(5, __real_open(p, f)); }
ssize_t __real_readlink(const char *, char *, size_t);
ssize_t __wrap_readlink(const char *p, char *b, size_t n) { return T(6, __real_readlink(p, b, n)); }
char *__real_realpath(const char *, char *);
char *__wrap_realpath(const char *p, char *b) { return T(7, __real_realpath(p, b)); }
__attribute__((destructor)) static void report(void)
{
	for (int i = 0; i < 8; i++)
		if (cnt[i])
			fprintf(stderr, "  %-9s %3ld calls %7.0f us cpu %4ld faults\n", nm[i], cnt[i], acc[i] / 1e3, flt[i]);
}
