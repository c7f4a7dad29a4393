/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * prog.c - the runtime across objects: a program linked with
 * libmcount.so and two libraries (liba.so in C, libb.so in C++), which
 * dlopens libdyn.so.  Modes (argv[1]):
 *   sites        print every site as "SITE <object> <offset>" for
 *                run.sh to compare with objdump -d of each object
 *   names        names and callbacks across objects
 *   loop N       dlopen/dlclose libdyn.so N times while two threads
 *                call it and a third toggles its functions
 *   fork         fork with a toggling thread; the child toggles alone
 *   toc          a library function whose hook is followed by a load of
 *                a global, called over a scrawled stack, its hook
 *                disabled, enabled, disabled (liba.c says why)
 *   exec-child N booted afresh after exec: N sites expected
 * Prints PASS:/FAIL: lines; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mcount.h>

int sa_add(int a, int b);
int sa_twice(int a);
int sb_sum(int n);
int sa_toc(void);
int sa_token_read(int i);

#ifdef __thumb__
#define MC_ISA_BIT 1
#else
#define MC_ISA_BIT 0
#endif

static int fails;

#define CHECK(cond, ...) do {						\
	int ok_ = (cond);						\
									\
	printf(ok_ ? "PASS: " : "FAIL: ");				\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
	fails += !ok_;							\
} while (0)

static unsigned long watched[4];
static unsigned long hits[4];
static unsigned long strays;	/* callbacks for a function not watched */
static unsigned long dyn_lo, dyn_hi;	/* libdyn.so's functions, if loaded */

MCOUNT_NOTRACE static void callback(unsigned long func, unsigned long caller)
{
	(void)caller;
	for (int i = 0; i < 4; i++) {
		if (func == __atomic_load_n(&watched[i], __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
			return;
		}
	}
	if (func < __atomic_load_n(&dyn_lo, __ATOMIC_ACQUIRE) ||
	    func > __atomic_load_n(&dyn_hi, __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&strays, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) int prog_own(int x)
{
	return x + 1;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "?";
}

MCOUNT_NOTRACE static int print_site(const struct mcount_site_info *s,
				     void *arg)
{
	Dl_info info;

	(void)arg;
	if (!dladdr((void *)s->addr, &info))
		return 1;
	printf("SITE %s %lx %s\n", base_name(s->object),
	       s->addr - (unsigned long)info.dli_fbase,
	       s->state == MCOUNT_SITE_REFUSED ? "refused" : "ok");
	return 0;
}

static int sites_mode(void)
{
	void *h = dlopen("libdyn.so", RTLD_NOW);

	if (!h)
		return 1;
	mcount_for_each_site(print_site, NULL);
	dlclose(h);
	return 0;
}

/*
 * The object of the site in `func`: the first within 256 bytes of its
 * start (ppc64le's -pg hook follows the register saves, up to 192 bytes
 * in; objects lie pages apart).
 */
static const char *object_of(unsigned long func)
{
	struct mcount_site_info s;

	for (size_t i = 0; mcount_site_get(i, &s) == MCOUNT_OK; i++)
		if (s.at >= func && s.at < func + 256)
			return base_name(s.object);
	return "";
}

/*
 * A library's function where its code is: in a program linked without
 * -pie (far/prog), &sa_add is the program's PLT entry for it, which
 * C makes the function's one address.
 */
static unsigned long lib_func(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	unsigned long f = h ? (unsigned long)dlsym(h, name) : 0;

	if (h)
		dlclose(h);
	return f;
}

static int names_mode(void)
{
	unsigned long off = 1, sa = lib_func("liba.so", "sa_add");
	unsigned long sb = lib_func("libb.so", "sb_sum");
	/* its code: a Thumb function's address has bit 0 set */
	unsigned long sa_code = sa & ~(unsigned long)MC_ISA_BIT;
	const char *n = mcount_func_name(sa_code + 2, &off);
	struct mcount_counts c;
	int err;

	mcount_get_counts(&c);
	CHECK(c.refused == 0, "no site refused in any object (%zu sites)",
	      c.sites);
	CHECK(n && strcmp(n, "sa_add") == 0 && off == 2,
	      "mcount_func_name names liba.so's sa_add");
	n = mcount_func_name(sb, NULL);
	CHECK(n && strcmp(n, "sb_sum") == 0, "... and libb.so's sb_sum");
	CHECK(strcmp(object_of(sa), "liba.so") == 0,
	      "sa_add's site names liba.so");
	CHECK(strcmp(object_of((unsigned long)prog_own), "prog") == 0,
	      "prog_own's site names the program");
	mcount_set_callback(callback);
	watched[0] = sa;
	watched[1] = sb;
	watched[2] = (unsigned long)prog_own;
	CHECK(mcount_enable_name("sa_add") == MCOUNT_OK,
	      "enable \"sa_add\" (a library's, by its name alone)");
	CHECK(mcount_enable_name("libb.so:sb_sum") == MCOUNT_OK,
	      "enable \"libb.so:sb_sum\"");
	/*
	 * The program is mapped farther from libmcount.so than its calls
	 * reach (a PIE on x86_64; run.sh's far/prog everywhere): its sites
	 * call the trampoline through a thunk page near its text.
	 */
	err = mcount_enable_name("prog:prog_own");
	CHECK(err == MCOUNT_OK, "enable \"prog:prog_own\" (%s)",
	      mcount_strerror(err));
	CHECK(mcount_enable_name("liba.so:sb_sum") == MCOUNT_ENOSYM,
	      "\"liba.so:sb_sum\": no such function there");
	CHECK(sa_twice(2) == 4 && sb_sum(4) == 6 && prog_own(1) == 2,
	      "traced functions still compute");
	CHECK(hits[0] == 1 && hits[1] == 1 && hits[2] == 1 && !strays,
	      "one callback each, from three objects (%lu %lu %lu, %lu stray)",
	      hits[0], hits[1], hits[2], strays);
	CHECK(mcount_enable_glob("libb.so:*") > 0,
	      "a glob over libb.so's functions (its COMDAT ones too)");
	CHECK(mcount_disable_all() > 0 && sb_sum(3) == 3,
	      "disable_all across objects");
	return 0;
}

/* ---- dlopen/dlclose loop ------------------------------------------------ */

static int stop_toggling;
static int toggle_all;	/* the loop's toggler also turns every site on and off */
static unsigned long toggles;

/* Not traced: enable_all would make them report as strays. */
MCOUNT_NOTRACE static void *toggler(void *arg)
{
	const char *pattern = arg;

	while (!__atomic_load_n(&stop_toggling, __ATOMIC_RELAXED)) {
		mcount_enable_glob(pattern);
		mcount_disable_glob(pattern);
		if (++toggles % 64 == 0 && toggle_all) {
			mcount_enable_all();
			mcount_disable_all();
		}
	}
	return NULL;
}

static int (*dyn_call)(int);
static int bad_results;

MCOUNT_NOTRACE static void *caller(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		if (dyn_call(i) != 3 * i)
			__atomic_fetch_add(&bad_results, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int loop_mode(int n)
{
	size_t base = mcount_site_count(), per_load = 0, wrong = 0;
	pthread_t tog, call[2];
	int loads = 0;

	mcount_set_callback(callback);
	toggle_all = 1;
	pthread_create(&tog, NULL, toggler, "libdyn.so:*");
	for (int i = 0; i < n; i++) {
		void *h = dlopen("libdyn.so", RTLD_NOW | RTLD_LOCAL);
		size_t now;

		if (!h)
			break;
		loads++;
		now = mcount_site_count() - base;
		if (!per_load)
			per_load = now;
		wrong += now != per_load || now == 0;
		dyn_call = (int (*)(int))dlsym(h, "dyn_call");
		__atomic_store_n(&dyn_lo, (unsigned long)dlsym(h, "dyn_leaf") - 4096,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&dyn_hi, (unsigned long)dyn_call + 4096,
				 __ATOMIC_RELEASE);
		for (int t = 0; t < 2; t++)
			pthread_create(&call[t], NULL, caller, NULL);
		for (int t = 0; t < 2; t++)
			pthread_join(call[t], NULL);
		dlclose(h);
		wrong += mcount_site_count() != base;
	}
	__atomic_store_n(&stop_toggling, 1, __ATOMIC_RELAXED);
	pthread_join(tog, NULL);
	CHECK(loads == n, "libdyn.so loaded %d times of %d", loads, n);
	CHECK(per_load > 0 && wrong == 0,
	      "each load counts its %zu sites once, each unload removes them "
	      "(%zu wrong)", per_load, wrong);
	CHECK(bad_results == 0, "every call through the library computed");
	CHECK(strays == 0, "no callback for a function outside the library "
	      "(%lu toggles)", toggles);
	return 0;
}

/* ---- fork and exec ------------------------------------------------------ */

/*
 * exec this program again: through SOLIB_RUNNER (qemu-user and its
 * options) when it runs under one, for the kernel would not know how
 * to run it; by a shell, which splits the runner's words.
 */
static void exec_self(const char *self, const char *n)
{
	const char *runner = getenv("SOLIB_RUNNER");

	if (runner && *runner)
		execl("/bin/sh", "sh", "-c",
		      "exec $SOLIB_RUNNER \"$0\" exec-child \"$1\"", self, n,
		      (char *)NULL);
	else
		execl(self, self, "exec-child", n, (char *)NULL);
}

static int fork_mode(const char *self)
{
	pthread_t tog;
	int status = -1;
	pid_t pid;

	mcount_set_callback(callback);
	watched[0] = lib_func("liba.so", "sa_add");
	CHECK(mcount_enable_name("sa_add") == MCOUNT_OK, "parent enables sa_add");
	pthread_create(&tog, NULL, toggler, "liba.so:sa_twice");
	pid = fork();
	if (pid == 0) {
		/* the child: one thread, the parent's state */
		int ok = mcount_booted() && sa_add(1, 2) == 3 && hits[0] == 1;

		ok &= mcount_disable_name("sa_add") == MCOUNT_OK;
		ok &= sa_add(1, 1) == 2 && hits[0] == 1;
		ok &= mcount_enable_name("libb.so:sb_sum") == MCOUNT_OK;
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child keeps the parent's state and toggles on its own");
	__atomic_store_n(&stop_toggling, 1, __ATOMIC_RELAXED);
	pthread_join(tog, NULL);
	CHECK(sa_add(2, 2) == 4 && hits[0] == 1,
	      "the parent's sa_add still enabled (%lu)", hits[0]);

	pid = fork();
	if (pid == 0) {
		char n[32];

		snprintf(n, sizeof(n), "%zu", mcount_site_count());
		exec_self(self, n);
		_exit(2);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "after exec the program boots afresh");
	return 0;
}

static int exec_child(const char *want)
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	return mcount_booted() && c.enabled == 0 &&
	       mcount_site_count() == strtoul(want, NULL, 10) ? 0 : 1;
}

static int toc_mode(void)
{
	mcount_set_callback(callback);
	watched[0] = lib_func("liba.so", "sa_token_read");
	CHECK(sa_toc() == 1234,
	      "a disabled hook's TOC restore, over a scrawled stack");
	CHECK(mcount_enable_name("liba.so:sa_token_read") == MCOUNT_OK &&
	      sa_toc() == 1234 && hits[0] == 1,
	      "... enabled: the trampoline keeps r2 (%lu callback)", hits[0]);
	CHECK(mcount_disable_name("liba.so:sa_token_read") == MCOUNT_OK &&
	      sa_toc() == 1234 && hits[0] == 1,
	      "... disabled again (%lu callback)", hits[0]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "names";

	if (strcmp(mode, "exec-child") == 0)
		return exec_child(argc > 2 ? argv[2] : "0");
	CHECK(mcount_booted(), "booted (%s)", mode);
	if (strcmp(mode, "sites") == 0)
		return sites_mode();
	if (strcmp(mode, "loop") == 0)
		loop_mode(argc > 2 ? atoi(argv[2]) : 1000);
	else if (strcmp(mode, "fork") == 0)
		fork_mode(argv[0]);
	else if (strcmp(mode, "toc") == 0)
		toc_mode();
	else
		names_mode();
	return fails ? 1 : 0;
}
