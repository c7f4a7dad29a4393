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

/* Out of line, so that the address is computed anew each time (within
 * one function the compiler may take it once: it is constant there). */
static __attribute__((noipa)) void *where(void) { return &mine; }

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
