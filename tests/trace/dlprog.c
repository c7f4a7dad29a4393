/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dlprog.c - libraries opened and closed while recording (dllib.c built
 * as liba.so and libb.so, in the folder given as the second argument).
 *
 *   dlprog swap DIR     liba: a_one 3 times, a_two 5 (each calls a_one
 *                       twice); closed; libb, where liba was: b_one 7,
 *                       b_two 2.  Prints "same address" or "moved".
 *   dlprog swapself DIR the same, the program enabling each library's
 *                       functions itself (mcount_enable_glob)
 *   dlprog loop DIR N   3 threads, each opening liba or libb in turn N
 *                       times (the libraries' counts of opens overlap),
 *                       calling its two() and closing it
 *   dlprog cycles DIR N liba opened, a_two called, liba closed, N
 *                       times; prints how much the heap in use grew
 *                       from the 100th time to the last (below)
 *   dlprog inside DIR   a thread is inside a_wait, called back into
 *                       the program, when liba is closed and libb opened
 *                       (where liba was); it leaves a_wait by longjmp,
 *                       never returning into the closed library's text
 *
 * Built -rdynamic: the libraries' hooks call the program's stubs, and
 * the counter's build names functions with dladdr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*fn1)(int);
typedef int (*waitfn)(int (*)(int), int);

static const char *dir;
static int self;	/* enable the library's functions ourselves */

/* (weak: the counted build has no libmcount) */
int mcount_enable_glob(const char *pattern) __attribute__((weak));

__attribute__((noinline)) void *open_lib(const char *l)
{
	char path[512];	/* (a frame riscv64's reader follows: under 2 KiB) */
	void *h;

	snprintf(path, sizeof(path), "%s/lib%s.so", dir, l);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlprog: %s\n", dlerror());
		exit(2);
	}
	return h;
}

static void *sym(void *h, const char *l, const char *f)
{
	char name[64];
	void *p;

	snprintf(name, sizeof(name), "%s_%s", l, f);
	p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "dlprog: no %s\n", name);
		exit(2);
	}
	return p;
}

static void *base_of(void *fn)
{
	Dl_info info;

	return dladdr(fn, &info) ? info.dli_fbase : NULL;
}

__attribute__((noinline)) int use_lib(const char *l, int ones, int twos,
				      void **base)
{
	void *h = open_lib(l);
	fn1 one = (fn1)sym(h, l, "one"), two = (fn1)sym(h, l, "two");
	char glob[8];
	int s = 0;

	snprintf(glob, sizeof(glob), "%s_*", l);
	if (self && mcount_enable_glob && mcount_enable_glob(glob) < 0)
		fprintf(stderr, "dlprog: cannot enable %s\n", glob);
	for (int i = 0; i < ones; i++)
		s += one(i);
	for (int i = 0; i < twos; i++)
		s += two(i);
	*base = base_of((void *)one);
	dlclose(h);
	return s;
}

__attribute__((noinline)) int swap_test(void)
{
	void *a, *b;
	int s = use_lib("a", 3, 5, &a);

	s += use_lib("b", 7, 2, &b);
	printf("sum %d, %s\n", s, a == b ? "same address" : "moved");
	return 0;
}

static int rounds;

__attribute__((noinline)) void *looper(void *arg)
{
	long k = (long)arg;
	long s = 0;

	for (int i = 0; i < rounds; i++) {
		const char *l = (i + k) % 2 ? "b" : "a";
		void *h = open_lib(l);

		s += ((fn1)sym(h, l, "two"))(i);
		dlclose(h);
	}
	return (void *)s;
}

__attribute__((noinline)) int loop_test(void)
{
	pthread_t t[3];
	long s = 0;

	for (long k = 0; k < 3; k++)
		pthread_create(&t[k], NULL, looper, (void *)k);
	for (int k = 0; k < 3; k++) {
		void *r;

		pthread_join(t[k], &r);
		s += (long)r;
	}
	printf("sum %ld\n", s);
	return 0;
}

/* ---- cycles: the recorder's memory over many loads ----------------------- */

/* The heap in use: the recorder's allocations, and libc's own. */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * The heap in use once the recorder's writer has caught up: it frees a
 * closed library's names a pass or two (a millisecond or so) after the
 * close.  Read every 20 ms, at least 5 times and while it shrinks.
 */
static size_t heap_settled(void)
{
	struct timespec step = { 0, 20000000 };
	size_t now = heap_used(), before;
	int i = 0;

	do {
		before = now;
		nanosleep(&step, NULL);
		now = heap_used();
	} while (++i < 5 || (now < before && i < 100));
	return now;
}

__attribute__((noinline)) int cycles_test(void)
{
	size_t first = 0, last;
	long s = 0;

	for (int i = 0; i < rounds; i++) {
		void *h = open_lib("a");

		s += ((fn1)sym(h, "a", "two"))(i);
		dlclose(h);
		if (i == 99)
			first = heap_settled();
	}
	last = heap_settled();
	printf("sum %ld, heap grew %ld bytes from the 100th load to the %dth\n",
	       s, (long)last - (long)first, rounds);
	return 0;
}

/* ---- inside: a thread in a_wait when liba goes ------------------------- */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;
static jmp_buf out;
static waitfn a_wait;

static void wait_stage(int want)
{
	pthread_mutex_lock(&m);
	while (stage < want)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
}

static void set_stage(int s)
{
	pthread_mutex_lock(&m);
	stage = s;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&m);
}

/* Called by a_wait: waits for liba to be gone, then leaves by longjmp. */
__attribute__((noinline)) int held(int x)
{
	set_stage(1);
	wait_stage(2);
	longjmp(out, x);
}

__attribute__((noinline)) int after(int x)
{
	return x + 1;
}

__attribute__((noinline)) void *inside_thread(void *arg)
{
	int r;

	(void)arg;
	r = setjmp(out);
	if (!r)
		a_wait(held, 1);
	return (void *)(long)after(r);
}

__attribute__((noinline)) int inside_test(void)
{
	void *a = open_lib("a"), *b, *base_a, *r;
	pthread_t t;
	int s;

	a_wait = (waitfn)sym(a, "a", "wait");
	base_a = base_of((void *)a_wait);
	pthread_create(&t, NULL, inside_thread, NULL);
	wait_stage(1);
	dlclose(a);
	b = open_lib("b");
	s = ((fn1)sym(b, "b", "two"))(3);
	printf("sum %d, %s\n", s, base_of(sym(b, "b", "one")) == base_a ?
	       "same address" : "moved");
	set_stage(2);
	pthread_join(t, &r);
	dlclose(b);
	return (int)(long)r == 5 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	dir = argv[2];
	rounds = argc > 3 ? atoi(argv[3]) : 100;
	self = !strcmp(argv[1], "swapself");
	if (!strcmp(argv[1], "swap") || self)
		return swap_test();
	if (!strcmp(argv[1], "loop"))
		return loop_test();
	if (!strcmp(argv[1], "inside"))
		return inside_test();
	if (!strcmp(argv[1], "cycles"))
		return cycles_test();
	return 2;
}
