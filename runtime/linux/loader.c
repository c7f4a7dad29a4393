/* SPDX-License-Identifier: MIT */
/*
 * loader.c - keeping the runtime in step with the dynamic loader: the
 * objects found at boot (dl_iterate_phdr), the libraries dlopen loads
 * and dlclose unloads, fork, and the constructor that boots the engine;
 * and the patching lock, which every one of them takes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"

/*
 * Recursive, for one case only: dlclose (below) holds it while the
 * loader runs the library's destructors, which may call the API on the
 * same thread; the engine is then between operations, never inside one.
 */
static pthread_mutex_t patch_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void reconcile(void);
static void fork_lock_patching(void);
static void fork_unlock_patching(void);
static void fork_afresh_child(void);

void mc_plat_lock(void)
{
	pthread_mutex_lock(&patch_lock);
	reconcile();
}

bool mc_plat_trylock(void)
{
	if (pthread_mutex_trylock(&patch_lock) != 0)
		return false;
	reconcile();
	return true;
}

void mc_plat_unlock(void)
{
	pthread_mutex_unlock(&patch_lock);
}

/* dl_iterate_phdr: note each object as seen, adding the new ones. */
static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct host_obj *o = mc_host_obj_by_phdr(info->dlpi_phdr);
	int *err = arg;

	(void)size;
	if (o && o->bias == info->dlpi_addr) {
		o->seen = true;
		return 0;
	}
	o = mc_host_obj_new(info);
	if (!o) {
		*err = MCOUNT_ETOOMANY;
		return 0;
	}
	if (mc_host_obj_add_image(o) == MCOUNT_ETOOMANY)
		*err = MCOUNT_ETOOMANY;
	return 0;
}

/* The loader's counts of loads and unloads when the list was last made. */
static unsigned long long seen_adds, seen_subs;
/* dlopen calls of ours under way: what they load is added as they end */
static int wrapped_loads;
/* this thread is in the dlopen below: what it loaded is not running yet */
static _Thread_local bool loading_here;

static int mark_seen(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct host_obj *o = mc_host_obj_by_phdr(info->dlpi_phdr);

	(void)size;
	(void)arg;
	if (o && o->bias == info->dlpi_addr)
		o->seen = true;
	return 0;
}

static int loader_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *c = arg;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) +
		   sizeof(info->dlpi_subs))
		return 1;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

/*
 * Bring the list and the engine's images up to date with the loader:
 * objects gone are removed (their images first), new ones added.
 * Under the patching lock.  Returns 0 or MCOUNT_ETOOMANY.
 */
static int rescan(void)
{
	int err = 0;

	for (size_t k = 0; k < mc_host_nobjs; k++)
		mc_host_objs[k].seen = false;
	dl_iterate_phdr(scan_one, &err);
	for (size_t k = 0; k < mc_host_nobjs; k++)
		if (mc_host_objs[k].phdr && !mc_host_objs[k].seen)
			mc_host_obj_free(&mc_host_objs[k]);
	return err;
}

/*
 * Whenever the lock is taken: if the loader loaded or unloaded objects
 * since the list was made (its adds and subs counters, one callback's
 * worth of dl_iterate_phdr), make it again.  The dlopen and dlclose
 * below do that themselves before returning; this catches loads that
 * did not go through them (a library calling the loader's dlopen when
 * the program that links libmcount.a does not export ours), so that no
 * toggle ever writes into an object that is gone.  A library found that
 * way is added only while the process has one thread: its boot pass
 * writes with plain stores.
 */
static void reconcile(void)
{
	static unsigned long long skipped_adds;
	unsigned long long c[2] = { 0, 0 };
	static int depth;

	if (!mc_host_owned() || depth)
		return;
	dl_iterate_phdr(loader_counts, c);
	if (c[0] == seen_adds && c[1] == seen_subs)
		return;
	/* loads already passed over, until the one that loaded them locks */
	if (c[0] == skipped_adds && c[1] == seen_subs && !loading_here)
		return;
	if (c[0] != seen_adds && !loading_here && !mc_plat_quiescent()) {
		/* removals still, never a boot pass under running threads */
		static bool told;

		for (size_t k = 0; k < mc_host_nobjs; k++)
			mc_host_objs[k].seen = false;
		depth++;
		dl_iterate_phdr(mark_seen, NULL);
		for (size_t k = 0; k < mc_host_nobjs; k++)
			if (mc_host_objs[k].phdr && !mc_host_objs[k].seen)
				mc_host_obj_free(&mc_host_objs[k]);
		depth--;
		skipped_adds = c[0];
		seen_subs = c[1];
		if (!told && !__atomic_load_n(&wrapped_loads, __ATOMIC_RELAXED))
			fprintf(stderr, "mcount: a library was loaded without "
				"libmcount's dlopen while threads run: its "
				"hooks stay unpatched (link libmcount.so, or "
				"export dlopen from the program: -rdynamic)\n");
		told = !__atomic_load_n(&wrapped_loads, __ATOMIC_RELAXED);
		return;
	}
	depth++;
	(void)rescan();
	depth--;
	seen_adds = c[0];
	seen_subs = c[1];
}

int mc_plat_images(const struct mc_rt_engine *engine)
{
	unsigned long long c[2] = { 0, 0 };
	int err;

	if (!mc_host_first_runtime())
		return MCOUNT_EOTHER;
	pthread_atfork(fork_lock_patching, fork_unlock_patching,
		       fork_afresh_child);
	mc_host_set_engine(engine);
	dl_iterate_phdr(loader_counts, c);
	err = rescan();
	seen_adds = c[0];
	seen_subs = c[1];
	mc_host_set_owned();
	return err;
}

/*
 * Libraries loaded later: this dlopen and dlclose interpose on the
 * loader's (found with dlsym(RTLD_NEXT), as uftrace's libmcount does)
 * wherever they are the first definition: always with libmcount.so,
 * which comes before libc in the lookup order; with libmcount.a, for
 * the program's own calls, and for its libraries' when the program
 * exports them (-rdynamic).  Why wrap rather than look only at the
 * loader's counters on the next toggle (reconcile, kept as a net): a
 * library's boot pass writes with plain stores, which is safe only
 * before anything can call into it, i.e. before dlopen returns; and a
 * dlclose must drop the image before another thread's toggle can write
 * into the unmapped text, which holding the patching lock across the
 * loader's dlclose guarantees.  A library's constructors still run
 * before its hooks are patched (they call the stubs, which return),
 * with the patching lock held by their thread: one that waits for
 * another thread calling the API waits for ever.
 */
static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
	real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
}

/*
 * The loader searches a bare name in the RPATH and RUNPATH of the
 * object that called dlopen, which it takes from dlopen's return
 * address: ours, once wrapped.  So the wrapper asks the loader for the
 * caller's search path (dlinfo RTLD_DI_SERINFO) and opens the first
 * file found there by its path; a name already loaded, or found in no
 * folder of that path, goes to the loader as it was given.
 */
static void *open_as(const void *caller, const char *file, int mode)
{
	struct link_map *map = NULL;
	Dl_serinfo size, *info;
	Dl_info where;
	void *h = NULL;
	char *path;

	if (!file || strchr(file, '/') ||
	    (h = real_dlopen(file, mode | RTLD_NOLOAD)) ||
	    !dladdr1(caller, &where, (void **)&map, RTLD_DL_LINKMAP) || !map ||
	    dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0)
		return h ? h : real_dlopen(file, mode);
	info = malloc(size.dls_size);
	path = malloc(4096);
	if (info && path) {
		*info = size;
		if (dlinfo(map, RTLD_DI_SERINFO, info) != 0)
			info->dls_cnt = 0;
		for (unsigned i = 0; i < info->dls_cnt && !h; i++) {
			snprintf(path, 4096, "%s/%s", info->dls_serpath[i].dls_name,
				 file);
			if (access(path, F_OK) == 0)
				h = real_dlopen(path, mode);
		}
	}
	free(path);
	free(info);
	return h ? h : real_dlopen(file, mode);
}

void *dlopen(const char *file, int mode)
{
	void *h;

	pthread_once(&real_once, find_real);
	if (!real_dlopen)
		return NULL;
	__atomic_fetch_add(&wrapped_loads, 1, __ATOMIC_RELAXED);
	if (!mc_host_owned()) {
		h = open_as(__builtin_return_address(0), file, mode);
	} else {
		/*
		 * The lock held across the load as dlclose holds it across
		 * the unload: else a library could be mapped where one just
		 * unloaded was, with the same program headers' address,
		 * before that dlclose's reconcile() forgot the old one, and
		 * be taken for it.
		 */
		mc_plat_lock();
		h = open_as(__builtin_return_address(0), file, mode);
		loading_here = true;
		reconcile();		/* adds what it loaded */
		loading_here = false;
		mc_plat_unlock();
		if (h)
			mc_host_images_settled();
	}
	__atomic_fetch_sub(&wrapped_loads, 1, __ATOMIC_RELAXED);
	return h;
}

int dlclose(void *handle)
{
	int r;

	pthread_once(&real_once, find_real);
	if (!real_dlclose)
		return -1;
	if (!mc_host_owned())
		return real_dlclose(handle);
	mc_plat_lock();
	r = real_dlclose(handle);
	reconcile();		/* removes what it unloaded */
	mc_plat_unlock();
	return r;
}

/*
 * fork: the child has one thread and the parent's state, its text its
 * own copy.  The patching lock is held across fork so that no other
 * thread's toggle is half done in the copy; the child re-registers
 * for membarrier's SYNC_CORE (registration belongs to the address
 * space, which the child gets anew).  exec boots afresh: the new
 * program runs its own constructor.
 */
static void fork_lock_patching(void)
{
	pthread_mutex_lock(&patch_lock);
}

static void fork_unlock_patching(void)
{
	pthread_mutex_unlock(&patch_lock);
}

/*
 * The child's one thread is not the one that locked (a recursive
 * mutex's owner is the locking thread's id): the locks start afresh,
 * as do the list's and the symbols' (which no writer held: writers
 * hold the patching lock too, and a symbol load under way is published
 * only when done).
 */
static void fork_afresh_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	patch_lock = fresh;
	mc_host_objs_fork();
	mc_host_syms_fork();
	mc_host_sync_fork();
}

static _Thread_local bool in_callback;

MC_RT_NOTRACE bool mc_plat_enter(void)
{
	if (in_callback)
		return false;
	in_callback = true;
	return true;
}

MC_RT_NOTRACE void mc_plat_leave(void)
{
	in_callback = false;
}
