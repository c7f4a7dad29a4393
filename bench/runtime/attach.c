/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attach.c - the target of bench-runtime's attach and detach costs
 * (attach.sh), linked with gen.py's functions built with pads alone
 * (-fpatchable-function-entry=5) and no libmcount: `mctrace record -p`
 * loads it.  Two threads call every function (the table table.py
 * makes) all along; it prints its pid and "ready", and exits 0 on
 * SIGTERM.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

extern int (*const bench_funcs[])(int);
extern const size_t bench_nfuncs;

static volatile sig_atomic_t stop;

static void *caller(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	while (!stop)
		for (size_t i = 0; i < bench_nfuncs; i++)
			sum += (unsigned long)bench_funcs[i]((int)i);
	return (void *)sum;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	pthread_t t[2];

	signal(SIGTERM, on_term);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	printf("%ld ready\n", (long)getpid());
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
