/* SPDX-License-Identifier: MIT */
/*
 * target.c - the process tests/attach/attach.sh attaches to: four
 * threads serving "requests" until SIGTERM, each request calling
 * helper() twice and leaf() once per helper, so that any window of a
 * trace holds twice as many helper calls as requests (within the calls
 * in flight at its edges).  At the end it checks its own sums, which a
 * site left broken by an attach would upset, and exits 0 only if they
 * hold.  It prints its pid and "ready" once every thread runs.  With
 * the argument "fork", a fifth thread forks all along, each child
 * serving one request and leaving with _exit; with "mainexit", the main
 * thread leaves (pthread_exit) once the others run; with "dlopen LIB",
 * a fifth thread opens the library LIB (dlib.c), makes DL_CALLS calls of
 * its dl_request, checks each answer and closes it again, all along.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4

static volatile sig_atomic_t stop;
static unsigned long served[THREADS], leaves[THREADS];

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) unsigned long helper(int t, unsigned long x)
{
	leaves[t]++;
	return leaf(x) ^ x;
}

__attribute__((noinline)) unsigned long request(int t, unsigned long x)
{
	unsigned long r = helper(t, x) + helper(t, x + 1);

	served[t]++;
	return r;
}

static void *serve(void *arg)
{
	int t = (int)(long)arg;
	unsigned long acc = 0;

	while (!stop) {
		acc += request(t, served[t]);
		if (served[t] % 64 == 0)
			usleep(100);
	}
	return (void *)acc;
}

static void *forker(void *arg)
{
	(void)arg;
	while (!stop) {
		pid_t child = fork();

		if (child == 0) {
			request(0, 1);
			_exit(0);
		}
		if (child > 0)
			waitpid(child, NULL, 0);
		usleep(2000);
	}
	return NULL;
}

#define DL_CALLS 32

static const char *dl_path;
static unsigned long dl_loads;
static bool dl_bad;

/*
 * One load of the library: DL_CALLS requests, each answer checked
 * against dlib.c's arithmetic; false if it failed to load or answered
 * wrong.
 */
static bool dl_round(unsigned long x)
{
	void *h = dlopen(dl_path, RTLD_NOW | RTLD_LOCAL);
	unsigned long (*req)(unsigned long);
	bool ok;

	if (!h) {
		fprintf(stderr, "target: %s\n", dlerror());
		return false;
	}
	*(void **)&req = dlsym(h, "dl_request");
	ok = req != NULL;
	for (unsigned i = 0; ok && i < DL_CALLS; i++)
		ok = req(x + i) == 10 * (x + i) + 9;
	dlclose(h);
	return ok;
}

static void *opener(void *arg)
{
	(void)arg;
	while (!stop && !dl_bad) {
		dl_bad = !dl_round(dl_loads);
		dl_loads++;
		usleep(500);
	}
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static pthread_t th[THREADS], fk, dl;
static bool forks;

/* Join the threads, check the sums, exit with the verdict. */
static void *finish(void *arg)
{
	int bad = 0;

	(void)arg;
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		bad |= leaves[t] != 2 * served[t];
	}
	if (forks)
		pthread_join(fk, NULL);
	if (dl_path) {
		pthread_join(dl, NULL);
		bad |= dl_bad || !dl_loads;
	}
	printf("%s\n", bad ? "sums wrong" : "sums right");
	fflush(stdout);
	exit(bad);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t fin;

	forks = !strcmp(mode, "fork");
	dl_path = !strcmp(mode, "dlopen") && argc > 2 ? argv[2] : NULL;
	signal(SIGTERM, on_term);
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, serve, (void *)t);
	if (forks)
		pthread_create(&fk, NULL, forker, NULL);
	if (dl_path)
		pthread_create(&dl, NULL, opener, NULL);
	printf("%ld ready\n", (long)getpid());
	fflush(stdout);
	if (strcmp(mode, "mainexit"))
		finish(NULL);
	/* the main thread leaves; another one ends the process */
	pthread_create(&fin, NULL, finish, NULL);
	pthread_exit(NULL);
}
