/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gated.c - a program whose malloc first passes a gate (a mutex) that a
 * thread of it takes and keeps for good once the program is ready: any
 * malloc after that waits for ever.  The dlopen an attach makes to load
 * libmcount.so takes the loader's lock, then mallocs, and waits there;
 * given up, it leaves the loader's lock taken, which the attach must
 * say rather than try again.  Built with pads, so that mctrace loads
 * libmcount.so into it.  Prints "PID ready" and runs until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void pass_gate(void)
{
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
}

void *malloc(size_t n)
{
	pass_gate();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	pass_gate();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	pass_gate();
	return __libc_realloc(p, n);
}

static atomic_int gate_closed;

static void *keeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate);
	atomic_store(&gate_closed, 1);
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static unsigned work(unsigned x)
{
	return x * 2654435761u >> 7;
}

int main(void)
{
	struct timespec nap = { 0, 1000000 };
	pthread_t t;
	volatile unsigned acc = 0;
	char line[32];
	int n;

	/* "ready" only once the gate is shut, and written with no malloc
	 * (stdio's first write to a file allocates its buffer): a printf
	 * after the keeper shut it would wait there for good. */
	pthread_create(&t, NULL, keeper, NULL);
	while (!atomic_load(&gate_closed))
		nanosleep(&nap, NULL);
	n = snprintf(line, sizeof(line), "%ld ready\n", (long)getpid());
	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		return 1;
	for (unsigned i = 0;; i++) {
		acc += work(i);
		nanosleep(&nap, NULL);
	}
}
