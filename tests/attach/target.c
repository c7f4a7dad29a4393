/* SPDX-License-Identifier: GPL-2.0-only */
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
 * With "fp", the main thread holds known values in the floating-point
 * and vector registers across a sleep in a system call, where an attach
 * stops it and makes its calls on it (mctrace calls on the first thread
 * found in a system call other than futex's, and stops the recorder on
 * the main one), and checks them after each sleep: a register changed
 * under it makes the sums wrong.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

/*
 * fp_sleep(set, seen, ts): every register of the machine's FP_SET set
 * from `set`, a nanosleep of `ts` (the system call itself, so that no
 * code of the C library's runs between), then the registers stored in
 * `seen`.  The kernel keeps them across the system call; nothing else
 * may change them.
 */
#if defined(__x86_64__)
/* xmm0 to xmm15, 16 bytes each */
#define FP_SET 256
#define FP_LOAD(n) "movdqu " #n "*16(%[set]), %%xmm" #n "\n\t"
#define FP_STORE(n) "movdqu %%xmm" #n ", " #n "*16(%[seen])\n\t"
#define FP_EACH(m)                                                        \
	m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11)     \
	m(12) m(13) m(14) m(15)
static void fp_sleep(const unsigned char *set, unsigned char *seen,
		     const struct timespec *ts)
{
	__asm__ volatile(FP_EACH(FP_LOAD)
			 "mov %[nr], %%eax\n\t"
			 "mov %[ts], %%rdi\n\t"
			 "xor %%esi, %%esi\n\t"
			 "syscall\n\t"
			 FP_EACH(FP_STORE)
			 :
			 : [set] "r"(set), [seen] "r"(seen), [ts] "r"(ts),
			   [nr] "i"(SYS_nanosleep)
			 : "rax", "rdi", "rsi", "rcx", "r11", "memory",
			   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15");
}
#elif defined(__i386__)
/* xmm0 to xmm7, 16 bytes each; the system call through int $0x80 */
#define FP_SET 128
#define FP_LOAD(n) "movdqu " #n "*16(%[set]), %%xmm" #n "\n\t"
#define FP_STORE(n) "movdqu %%xmm" #n ", " #n "*16(%[seen])\n\t"
#define FP_EACH(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
/* (i686's default has no SSE registers to name as clobbered) */
__attribute__((target("sse2"))) static void fp_sleep(const unsigned char *set, unsigned char *seen,
		     const struct timespec *ts)
{
	long ret;

	__asm__ volatile(FP_EACH(FP_LOAD)
			 "int $0x80\n\t"
			 FP_EACH(FP_STORE)
			 : "=a"(ret)
			 : "a"(SYS_nanosleep), "b"(ts), "c"(0),
			   [set] "r"(set), [seen] "r"(seen)
			 : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
			   "xmm5", "xmm6", "xmm7");
	(void)ret;
}
#elif defined(__aarch64__)
/* v0 to v31, 16 bytes each, two to an ldp/stp */
#define FP_SET 512
#define FP_LOAD(a, b) "ldp q" #a ", q" #b ", [%[set], #" #a "*16]\n\t"
#define FP_STORE(a, b) "stp q" #a ", q" #b ", [%[seen], #" #a "*16]\n\t"
#define FP_EACH(m)                                                        \
	m(0, 1) m(2, 3) m(4, 5) m(6, 7) m(8, 9) m(10, 11) m(12, 13)       \
	m(14, 15) m(16, 17) m(18, 19) m(20, 21) m(22, 23) m(24, 25)       \
	m(26, 27) m(28, 29) m(30, 31)
static void fp_sleep(const unsigned char *set, unsigned char *seen,
		     const struct timespec *ts)
{
	__asm__ volatile(FP_EACH(FP_LOAD)
			 "mov x8, %[nr]\n\t"
			 "mov x0, %[ts]\n\t"
			 "mov x1, #0\n\t"
			 "svc #0\n\t"
			 FP_EACH(FP_STORE)
			 :
			 : [set] "r"(set), [seen] "r"(seen), [ts] "r"(ts),
			   [nr] "i"(SYS_nanosleep)
			 : "x0", "x1", "x8", "memory", "v0", "v1", "v2", "v3",
			   "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",
			   "v12", "v13", "v14", "v15", "v16", "v17", "v18",
			   "v19", "v20", "v21", "v22", "v23", "v24", "v25",
			   "v26", "v27", "v28", "v29", "v30", "v31");
}
#elif defined(__riscv) && defined(__riscv_flen) && __riscv_flen == 64
/* f0 to f31, 8 bytes each */
#define FP_SET 256
#define FP_LOAD(n) "fld f" #n ", " #n "*8(%[set])\n\t"
#define FP_STORE(n) "fsd f" #n ", " #n "*8(%[seen])\n\t"
#define FP_EACH(m)                                                        \
	m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11)     \
	m(12) m(13) m(14) m(15) m(16) m(17) m(18) m(19) m(20) m(21)       \
	m(22) m(23) m(24) m(25) m(26) m(27) m(28) m(29) m(30) m(31)
static void fp_sleep(const unsigned char *set, unsigned char *seen,
		     const struct timespec *ts)
{
	__asm__ volatile(FP_EACH(FP_LOAD)
			 "li a7, %[nr]\n\t"
			 "mv a0, %[ts]\n\t"
			 "li a1, 0\n\t"
			 "ecall\n\t"
			 FP_EACH(FP_STORE)
			 :
			 : [set] "r"(set), [seen] "r"(seen), [ts] "r"(ts),
			   [nr] "i"(SYS_nanosleep)
			 : "a0", "a1", "a7", "memory", "f0", "f1", "f2", "f3",
			   "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11",
			   "f12", "f13", "f14", "f15", "f16", "f17", "f18",
			   "f19", "f20", "f21", "f22", "f23", "f24", "f25",
			   "f26", "f27", "f28", "f29", "f30", "f31");
}
#else
#define FP_SET 0
#endif

static bool fp_bad;

/* Sleep with known registers until SIGTERM; fp_bad if one changed. */
static void fp_hold(void)
{
#if FP_SET
	const struct timespec ts = { 0, 2000000 };
	unsigned char set[FP_SET], seen[FP_SET];
	unsigned long fp_rounds = 0;

	while (!stop && !fp_bad) {
		for (unsigned i = 0; i < FP_SET; i++)
			set[i] = (unsigned char)(i * 7 + fp_rounds + 1);
		fp_sleep(set, seen, &ts);
		fp_bad = memcmp(set, seen, FP_SET) != 0;
		fp_rounds++;
	}
	if (fp_bad)
		fprintf(stderr, "target: a register changed in round %lu\n",
			fp_rounds);
#else
	fprintf(stderr, "target: no \"fp\" mode on this machine\n");
	fp_bad = true;
#endif
}

/*
 * A fault, for the test's log: where, and the process's mappings then
 * (which a page that went away leaves out), on stderr; then the fault's
 * own end.  Only calls that may be made in a signal handler, and no pad
 * of its own: a site that faults calls nothing here.
 */
__attribute__((patchable_function_entry(0, 0)))
static void on_fault(int sig, siginfo_t *si, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	char line[64] = "target: fault at 0x", buf[512];
	uintptr_t at = (uintptr_t)si->si_addr;
	size_t n = strlen(line);
	ssize_t got;
	int fd;

	(void)ctx;
	for (int shift = (int)sizeof(at) * 8 - 4; shift >= 0; shift -= 4)
		line[n++] = hex[(at >> shift) & 15];
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		_exit(128 + sig);
	fd = open("/proc/self/maps", O_RDONLY);
	while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
		if (write(2, buf, (size_t)got) < 0)
			break;
	signal(sig, SIG_DFL);
	raise(sig);
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
	bad |= fp_bad;
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
	struct sigaction fault = { .sa_sigaction = on_fault,
				   .sa_flags = SA_SIGINFO };
	sigaction(SIGSEGV, &fault, NULL);
	sigaction(SIGBUS, &fault, NULL);
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, serve, (void *)t);
	if (forks)
		pthread_create(&fk, NULL, forker, NULL);
	if (dl_path)
		pthread_create(&dl, NULL, opener, NULL);
	printf("%ld ready\n", (long)getpid());
	fflush(stdout);
	if (!strcmp(mode, "fp"))
		fp_hold();
	if (strcmp(mode, "mainexit"))
		finish(NULL);
	/* the main thread leaves; another one ends the process */
	pthread_create(&fin, NULL, finish, NULL);
	pthread_exit(NULL);
}
