/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tlsprobe.c - does a thread keep its own thread-local storage after a
 * signal handler returns, while another thread lives?  Exits 0 if so,
 * 1 if not (qemu-i386 7.2 reloads %gs at sigreturn from a table every
 * thread shares, and the main thread wakes with the newest thread's
 * TLS).  The recorder keeps its per-thread state in TLS, so where this
 * fails run.sh does not run its traced signal handlers (a SKIP line).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static __thread int mine;
static volatile int done;

static void on_signal(int sig) { (void)sig; }

/* Called through a volatile pointer, so that the address is computed
 * anew each time with any compiler (within one function, or once
 * inlined, it may be taken once: it is constant there; clang ignores
 * GCC's noipa and so hid the bug). */
static __attribute__((noinline)) void *where_is_mine(void) { return &mine; }
static void *(*volatile where)(void) = where_is_mine;

static void *other(void *arg)
{
	while (!done)
		usleep(1000);
	return arg;
}

int main(void)
{
	void *before = where(), *after;
	pthread_t t;

	if (pthread_create(&t, NULL, other, NULL))
		return 2;
	usleep(20000);
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	after = where();
	done = 1;
	pthread_join(t, NULL);
	if (after != before) {
		printf("TLS %p became %p after a signal handler\n", before, after);
		return 1;
	}
	return 0;
}
