/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lock.c - the runtime's lock on its list of loaded objects, which name
 * lookups (mcount_func_name, any thread) hold to read and dlopen and
 * dlclose hold to write.  Linked with libmcount.a, for the lock's own
 * hidden calls (runtime/linux/linux.h).
 *
 * writer-first: this thread holds the list without a gap, each new
 *   hold taken before the last one ends (try_read, never waiting), up
 *   to RELAY times, while another thread dlopens LIBDYN.  A lock that
 *   lets readers in past a waiting writer keeps that dlopen waiting
 *   through every hand-off, for as long as the holds overlap; a writer-
 *   first one refuses the next hold once the writer waits.  Nothing
 *   here is timed: the count of hand-offs is the measure, and the old
 *   lock reaches RELAY whatever the load.
 * nested: with that writer waiting, a lookup from a signal handler on
 *   this thread, which still holds the list, gets its answer: the
 *   writer waits for this very thread, so the nested read must not
 *   wait behind it.  A hang here is the failure (alarm ends it).
 *
 *   lock LIBDYN [RELAY]   prints "PASS: ..." or "FAIL: ..." lines
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mcount.h>

/* runtime/linux/linux.h's, hidden in libmcount.a */
bool mc_host_objs_read(void);
bool mc_host_objs_try_read(void);
void mc_host_objs_done(void);

static const char *lib;
static void *handle;
static int opened;
static const char *volatile nested_name;

__attribute__((noinline)) int lock_probe(int x)
{
	return x + 1;
}

static void *opener(void *arg)
{
	(void)arg;
	handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	__atomic_store_n(&opened, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	nested_name = mcount_func_name((unsigned long)lock_probe, NULL);
}

/*
 * Hold the list without a gap while a thread dlopens: how many holds
 * were handed on before the lock refused one (relay if none was).
 * Returns with the last hold still taken and the opener running.
 */
static long relay_until_refused(pthread_t *t, long relay)
{
	long k;

	mc_host_objs_read();
	pthread_create(t, NULL, opener, NULL);
	for (k = 0; k < relay; k++) {
		if (__atomic_load_n(&opened, __ATOMIC_ACQUIRE)) {
			printf("FAIL: lock: dlopen returned while the list "
			       "was held\n");
			exit(1);
		}
		if (!mc_host_objs_try_read())
			break;
		mc_host_objs_done();	/* the hold before this one */
		sched_yield();		/* the opener's turn to reach the lock */
	}
	return k;
}

static int finish(pthread_t t)
{
	mc_host_objs_done();
	pthread_join(t, NULL);
	if (!handle) {
		printf("FAIL: lock: dlopen %s: %s\n", lib, dlerror());
		return 1;
	}
	dlclose(handle);
	handle = NULL;
	__atomic_store_n(&opened, 0, __ATOMIC_RELAXED);
	return 0;
}

int main(int argc, char **argv)
{
	long relay = argc > 2 ? atol(argv[2]) : 200000, k;
	int failed = 0;
	pthread_t t;

	if (argc < 2)
		return 2;
	lib = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);	/* what passed, if a hang ends it */
	alarm(600);		/* a deadlock fails, rather than hangs */
	signal(SIGUSR1, on_signal);

	k = relay_until_refused(&t, relay);
	failed |= finish(t);
	if (k == relay) {
		printf("FAIL: lock: writer-first: dlopen waited through all "
		       "%ld hand-offs of overlapping read holds\n", relay);
		failed = 1;
	} else {
		printf("PASS: lock: writer-first: a read hold refused after "
		       "%ld of at most %ld hand-offs, dlopen waiting\n", k,
		       relay);
	}

	k = relay_until_refused(&t, relay);
	raise(SIGUSR1);		/* a lookup nested in this thread's hold */
	failed |= finish(t);
	if (k == relay)
		printf("SKIP: lock: nested: no writer waited (the lock lets "
		       "readers past it)\n");
	else if (!nested_name || strcmp(nested_name, "lock_probe") != 0)
		failed = 1, printf("FAIL: lock: nested: a signal handler's "
				   "lookup under a waiting writer said %s\n",
				   nested_name ? nested_name : "nothing");
	else
		printf("PASS: lock: nested: a signal handler's lookup on a "
		       "thread holding the list, a writer waiting: %s\n",
		       nested_name);
	if (lock_probe(1) != 2)
		failed = 1;
	return failed;
}
