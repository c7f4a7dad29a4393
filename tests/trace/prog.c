/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prog.c - the traced program of the trace suite (tests/trace/run.sh).
 * `prog MODE`: each mode exercises one thing a recorder must survive.
 * Built twice: with hooks for the recorder, and with
 * -finstrument-functions and counter.c as the independent count.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

/*
 * The hot mode's functions start on a 64-byte line in every build, so
 * that bench/trace/run.sh compares a hook against no hook, not one
 * layout against another: unaligned, a change elsewhere in this file
 * moved them and the same library's untraced cost went from +0.6% to
 * +15.7% over the build without hooks.
 */
#define HOT __attribute__((aligned(64))) NOINLINE

HOT int leaf(int x) { sink += x; return x * 3 + 1; }
HOT int mid(int x) { return leaf(x) + leaf(x + 1); }
HOT int top(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += mid(i);
	return s;
}

/*
 * Returned in memory: on i386 the callee pops the hidden pointer (`ret
 * $4`), so it returns to a stack pointer above its frame's key.
 */
struct triple { int a, b, c; };
NOINLINE struct triple triple(int x)
{
	return (struct triple){ leaf(x), x + 1, x + 2 };
}

/* Not a tail call, and nothing to turn into a loop: n frames deep. */
NOINLINE int recurse(int n)
{
	int r = n ? recurse(n - 1) : 0;

	sink = r;
	return leaf(r & 1);
}

static jmp_buf env;
NOINLINE void jumper(int n) { if (n == 0) longjmp(env, 1); jumper(n - 1); leaf(n); }
/*
 * Returns as soon as the jump lands, with no call between: its return
 * finds the frames the jump left above its own, which end with it.
 */
NOINLINE int jump_back(void)
{
	if (!setjmp(env))
		jumper(2);
	return 1;
}

NOINLINE void jump_test(void)
{
	for (int i = 0; i < 5; i++)
		if (!setjmp(env))
			jumper(3);
	jump_back();
	mid(1);
}

NOINLINE void handler(int sig) { (void)sig; mid(7); }
NOINLINE void signal_test(void)
{
	signal(SIGUSR1, handler);
	for (int i = 0; i < 5; i++) {
		raise(SIGUSR1);
		leaf(i);
	}
}

/*
 * A handler on a stack of its own (sigaltstack): its calls, handler's
 * and mid's and leaf's, are not on the thread's stack, where the
 * recorder follows frames, and are counted as lost on another stack.
 */
NOINLINE void altstack_test(void)
{
	static char stack[64 * 1024];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) };
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_ONSTACK };

	sigaltstack(&ss, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < 5; i++) {
		raise(SIGUSR2);
		leaf(i);
	}
}

/*
 * A timer's signal every 50 us, whose handler runs traced code, lands
 * anywhere: in the recorder's own entry and exit too.
 */
static volatile int alarms;
NOINLINE void alarm_handler(int sig) { (void)sig; alarms++; mid(7); }
NOINLINE void alarm_test(int n)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct sigaction sa = { .sa_handler = alarm_handler,
				.sa_flags = SA_RESTART };
	int r;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	r = top(n);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("%d %d\n", r, alarms);
}

NOINLINE void *worker(void *arg)
{
	top((int)(long)arg);
	return NULL;
}

NOINLINE void *exiter(void *arg)
{
	(void)arg;
	mid(1);
	pthread_exit(NULL);
}

NOINLINE void threads_test(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i * 100 + 50));
	top(30);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_create(&t[0], NULL, exiter, NULL);
	pthread_join(t[0], NULL);
}

NOINLINE void fork_test(void)
{
	pid_t pid;

	top(2);
	pid = fork();
	if (pid == 0) {
		top(3);
		exit(0);
	}
	waitpid(pid, NULL, 0);
	top(4);
}

/* A call that takes a while (about a microsecond): a program's rate. */
NOINLINE int spin(int x)
{
	for (int i = 0; i < 1000; i++)
		sink += x;
	return x;
}

NOINLINE int paced(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += spin(i);
	return s;
}

/*
 * `rounds` times: a quiet spell (no calls for 3 ms), then `calls` calls
 * of spin() as fast as they go.  A writer that sleeps on the rate it
 * saw in the quiet spell must be woken before the ring fills.
 */
NOINLINE void jumps_test(int rounds, int calls)
{
	struct timespec quiet = { 0, 3000000 };
	int s = 0;

	for (int r = 0; r < rounds; r++) {
		nanosleep(&quiet, NULL);
		s += paced(calls);
	}
	printf("%d\n", s);
}

NOINLINE void exec_test(const char *self)
{
	top(2);
	execl(self, self, "basic", (char *)NULL);
	perror("execl");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	if (!strcmp(mode, "basic"))
		printf("%d\n", top(10) + recurse(20) + triple(3).c);
	else if (!strcmp(mode, "recurse"))
		printf("%d\n", recurse(argc > 2 ? atoi(argv[2]) : 10000));
	else if (!strcmp(mode, "longjmp"))
		jump_test();
	else if (!strcmp(mode, "signal"))
		signal_test();
	else if (!strcmp(mode, "altstack"))
		altstack_test();
	else if (!strcmp(mode, "threads"))
		threads_test();
	else if (!strcmp(mode, "fork"))
		fork_test();
	else if (!strcmp(mode, "exec"))
		exec_test(argv[0]);
	else if (!strcmp(mode, "alarm"))
		alarm_test(200000);
	else if (!strcmp(mode, "jumps"))
		jumps_test(argc > 2 ? atoi(argv[2]) : 2,
			   argc > 3 ? atoi(argv[3]) : 200000);
	else if (!strcmp(mode, "hot"))
		printf("%d\n", top(atoi(argc > 2 ? argv[2] : "1000000")));
	else
		return 2;
	return 0;
}
