/* SPDX-License-Identifier: MIT */
/*
 * filters.c - which functions a recording enables: the globs of
 * MCOUNT_TRACE_FILTER and MCOUNT_TRACE_NOTRACE at start, the later sets
 * of MCOUNT_TRACE_AT<k> (applied by the writer as they fall due), and
 * the same filters on a library opened while recording (start.c lists
 * the variables).
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mcount.h>

#include "../runtime/client.h"
#include "recorder.h"

/* The demangler the globs are matched with (globs.c), set at start. */
static rec_demangler_fn demangler;

/* The filters' later sets (MCOUNT_TRACE_AT<k>), applied by the writer. */
#define REC_PHASES 8
static struct phase {
	uint64_t at_ns;		/* after start_ns */
	const char *only, *never;
} phases[REC_PHASES];
static int n_phases, next_phase;
/* CLOCK_MONOTONIC, 0 until the trace's clock has started; a forked
 * child keeps it.  The writer thread reads it. */
static uint64_t start_ns;

/*
 * Glob k (from 0) of the comma-separated `globs` into buf: false when
 * there is none (or it does not fit: it then matches nothing).
 */
static bool nth_glob(const char *globs, int k, char *buf, size_t size)
{
	size_t n;

	for (;;) {
		n = strcspn(globs, ",");
		if (!k--)
			break;
		if (!globs[n])
			return false;
		globs += n + 1;
	}
	if (n >= size)
		n = 0;
	memcpy(buf, globs, n);
	buf[n] = '\0';
	return true;
}

/* True if `n` matches one of the comma-separated globs. */
static bool matches(const char *globs, struct rec_glob_name *n)
{
	char buf[256];

	for (int k = 0; nth_glob(globs, k, buf, sizeof(buf)); k++)
		if (buf[0] && rec_glob_picks(buf, n))
			return true;
	return false;
}

struct pick {
	const char *only, *never;
	uintptr_t lo, hi;		/* only sites in [lo, hi) (hi 0: all) */
	size_t enabled, failed;
	size_t unfit;			/* sites the backend cannot record */
	const char *unfit_name, *unfit_why;
	/* a later set: the functions to turn on and off, in two batches */
	unsigned long *on, *off;
	size_t n_on, n_off;
};

/* Whether the filters of `p` pick the function `name` (NULL: unknown). */
static bool picked(const struct pick *p, const char *name)
{
	struct rec_glob_name n = { .sym = name, .demangle = demangler };
	bool yes;

	if (!name)
		return !p->only;
	yes = (!p->only || matches(p->only, &n)) &&
	      !(p->never && matches(p->never, &n));
	rec_glob_name_free(&n);
	return yes;
}

/* True if recording wants site `s` enabled; its function's name in *name. */
static bool wanted(const struct pick *p, const struct mcount_site_info *s,
		   const char **name, unsigned long *off)
{
	*off = 0;
	*name = mcount_func_name(s->at, off);
	if (s->state == MCOUNT_SITE_REFUSED)
		return false;
	return picked(p, *name);
}

static int enable_one(const struct mcount_site_info *s, void *arg)
{
	struct pick *p = arg;
	unsigned long off;
	const char *name;

	if (!wanted(p, s, &name, &off))
		return 0;
	if (mcount_enable(name ? s->at - off : s->at) == MCOUNT_OK)
		p->enabled++;
	else
		p->failed++;
	return 0;
}

#ifdef REC_ARCH_SITES
/*
 * The backend reads every site first (rec_arch_site), wanted or not, so
 * that one the program enables itself later (mcount_enable*) is
 * followed too; only a wanted one it cannot read stops the recording.
 */
static int check_one(const struct mcount_site_info *s, void *arg)
{
	struct pick *p = arg;
	unsigned long off;
	const char *name, *why;
	bool want = wanted(p, s, &name, &off);

	if (s->state == MCOUNT_SITE_REFUSED)
		return 0;
	why = rec_arch_site(s, name ? s->at - off : 0);
	if (why && want && !p->unfit++) {
		p->unfit_name = name ? name : "a function with no symbol";
		p->unfit_why = why;
	}
	return 0;
}
#endif

/*
 * False, having said why, if the backend cannot record some function
 * the recording wants: then nothing is recorded, rather than a trace
 * that is wrong or silently short.
 */
static bool sites_fit(struct pick *p)
{
#ifdef REC_ARCH_SITES
	mcount_for_each_site(check_one, p);
	if (p->unfit) {
		fprintf(stderr, "mcount: trace: cannot record %s on %s: %s "
			"(%zu such functions; leave them out with "
			"MCOUNT_TRACE_NOTRACE or mctrace -N): nothing "
			"recorded\n", p->unfit_name, MC_RT_ARCH->name,
			p->unfit_why, p->unfit);
		return false;
	}
#else
	(void)p;
#endif
	return true;
}

/* Sort a site into the batch it needs to be in the state `p` picks. */
static void sort_one(const struct mcount_site_info *s, struct pick *p)
{
	unsigned long off = 0, func;
	const char *name;
	bool want;

	if (p->hi && (s->at < p->lo || s->at >= p->hi))
		return;	/* (before the name: most sites are elsewhere) */
	name = mcount_func_name(s->at, &off);
	func = name ? s->at - off : s->at;
	want = picked(p, name);
#ifdef REC_ARCH_SITES
	/*
	 * A library opened while recording: every site read now, so that
	 * the program may enable its functions itself and have them
	 * recorded (the backend follows only the sites it read).
	 */
	if (p->hi && !want && s->state != MCOUNT_SITE_REFUSED)
		(void)rec_arch_site(s, name ? func : 0);
#endif
	if (s->state == MCOUNT_SITE_REFUSED ||
	    want == (s->state == MCOUNT_SITE_ENABLED))
		return;
#ifdef REC_ARCH_SITES
	if (want && rec_arch_site(s, name ? func : 0)) {
		p->unfit++;	/* never enabled: its trace would be wrong */
		return;
	}
#endif
	if (want)
		p->on[p->n_on++] = func;
	else
		p->off[p->n_off++] = func;
}

/*
 * Every site as it is now, in *n; NULL if out of memory.  One copy by
 * the engine, under its lock, not mcount_for_each_site: that walks by
 * index, and a library another thread loads or unloads meanwhile
 * shifts the indices, so the walk skips sites (a new library's site
 * skipped stays disabled: its calls missed, and nothing says so).
 */
static struct mcount_site_info *sites_now(size_t *n)
{
	size_t cap = mcount_site_count() + 16;
	struct mcount_site_info *v;

	for (;;) {
		v = malloc(cap * sizeof(*v));
		if (!v)
			return NULL;
		*n = mc_rt_sites_copy(v, cap);
		if (*n <= cap)
			return v;
		free(v);
		cap = *n + 16;
	}
}

/* Sort every site into p's batches.  Returns 0, or -1 if out of memory. */
static int sort_into_batches(struct pick *p)
{
	size_t n = 0;
	struct mcount_site_info *v = sites_now(&n);

	free(p->on);
	free(p->off);
	p->n_on = p->n_off = p->unfit = 0;
	p->on = calloc(n + 1, sizeof(*p->on));
	p->off = calloc(n + 1, sizeof(*p->off));
	if (!v || !p->on || !p->off) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		sort_one(&v[i], p);
	free(v);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rec_filters_read(void)
{
	uint64_t last = 0;
	char name[32];

	__atomic_store_n(&start_ns, 0, __ATOMIC_RELEASE);
	n_phases = next_phase = 0;	/* an attach reads them again */
	for (int k = 1; k <= REC_PHASES; k++) {
		struct phase *ph = &phases[n_phases];

		snprintf(name, sizeof(name), "MCOUNT_TRACE_AT%d", k);
		if (!rec_getenv(name))
			break;
		ph->at_ns = rec_env_size(name, 0);
		if (ph->at_ns < last) {
			fprintf(stderr, "mcount: trace: %s: times must increase; "
				"it and the later ones are ignored\n", name);
			break;
		}
		last = ph->at_ns;
		snprintf(name, sizeof(name), "MCOUNT_TRACE_FILTER%d", k);
		ph->only = rec_getenv(name);
		if (ph->only && !*ph->only)
			ph->only = NULL;
		snprintf(name, sizeof(name), "MCOUNT_TRACE_NOTRACE%d", k);
		ph->never = rec_getenv(name);
		n_phases++;
	}
}

/*
 * The filters in force: those of the start, then of each set as it is
 * applied.  The lock is held while a set or a library's sites are
 * being applied, so that a library loaded meanwhile gets the filters
 * the others end up with.  Taken before the runtime's patching lock.
 */
static pthread_mutex_t filter_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *active_only, *active_never;

/*
 * Make the enabled functions of the sites `p` covers those it picks:
 * two batches, each one synchronisation of the other cores, while the
 * program runs.  A call already recorded keeps its exit; one that began
 * before its function was enabled is not recorded at all.  `what` names
 * the filters in messages.  With filter_lock held.
 */
static void apply_pick(struct pick *p, const char *what)
{
	int on, off, tries = 0;

	/*
	 * The patching lock held from the copy of the sites to the end of
	 * the batches: no library loaded or unloaded through our dlopen
	 * and dlclose in between.  One the loader loaded or unloaded
	 * behind them is caught as the batch locks (MCOUNT_ENOSITE, a
	 * function gone): then again.
	 */
	mc_plat_lock();
	do {
		if (sort_into_batches(p) != 0) {
			mc_plat_unlock();
			fprintf(stderr, "mcount: trace: no memory for %s\n",
				what);
			goto out;
		}
		on = p->n_on ? mcount_enable_many(p->on, p->n_on) : 0;
		off = p->n_off ? mcount_disable_many(p->off, p->n_off) : 0;
	} while ((on == MCOUNT_ENOSITE || off == MCOUNT_ENOSITE) &&
		 ++tries < 8);
	mc_plat_unlock();
	if (on < 0 || off < 0)
		fprintf(stderr, "mcount: trace: %s: %s\n", what,
			mcount_strerror(on < 0 ? on : off));
	if (p->unfit)
		fprintf(stderr, "mcount: trace: %s: %zu functions %s cannot "
			"record left out\n", what, p->unfit, MC_RT_ARCH->name);
out:
	free(p->on);
	free(p->off);
}

static void apply_phase(const struct phase *ph)
{
	struct pick p = { .only = ph->only, .never = ph->never };
	char what[64];

	snprintf(what, sizeof(what), "the filters at %llu ns",
		 (unsigned long long)ph->at_ns);
	pthread_mutex_lock(&filter_lock);
	active_only = ph->only;
	active_never = ph->never;
	apply_pick(&p, what);
	pthread_mutex_unlock(&filter_lock);
}

/*
 * From the writer thread, never a traced one: the sets now due.  The ns
 * until the next one is, UINT64_MAX when none is left.
 */
uint64_t rec_phases_due(void)
{
	uint64_t now = 0, start = __atomic_load_n(&start_ns, __ATOMIC_ACQUIRE);

	if (!start)	/* not started yet: ask again soon */
		return next_phase < n_phases ? 1000000 : UINT64_MAX;
	while (next_phase < n_phases &&
	       (now = mono_ns() - start) >= phases[next_phase].at_ns)
		apply_phase(&phases[next_phase++]);
	return next_phase < n_phases ? phases[next_phase].at_ns - now
				     : UINT64_MAX;
}

/*
 * A library opened while recording: its sites (all disabled) set to the
 * filters in force, before the dlopen that loaded it returns (the
 * runtime's image hooks, libs.c), or by the writer for a library loaded
 * another way.
 */
void rec_libs_settle(bool wait)
{
	struct pick p;
	uintptr_t lo, hi;

	if (!__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return;
	if (!wait) {
		if (pthread_mutex_trylock(&filter_lock))
			return;
	} else {
		pthread_mutex_lock(&filter_lock);
	}
	while (rec_lib_unset(&lo, &hi)) {
		p = (struct pick){ .only = active_only, .never = active_never,
				   .lo = lo, .hi = hi };
		apply_pick(&p, "the filters on a library opened while "
			   "recording");
	}
	pthread_mutex_unlock(&filter_lock);
}


/* Globs of MCOUNT_TRACE_FILTER, each a bit once some function matched. */
struct unmatched {
	const char *globs;
	uint64_t matched;
};

static int mark_matched(const struct mcount_site_info *s, void *arg)
{
	struct unmatched *u = arg;
	unsigned long off = 0;
	struct rec_glob_name n = { .sym = mcount_func_name(s->at, &off),
				   .demangle = demangler };
	char buf[256];

	if (!n.sym || s->state == MCOUNT_SITE_REFUSED)
		return 0;
	for (int k = 0; k < 64 && nth_glob(u->globs, k, buf, sizeof(buf));
	     k++)
		if (!(u->matched >> k & 1) && buf[0] && rec_glob_picks(buf, &n))
			u->matched |= (uint64_t)1 << k;
	rec_glob_name_free(&n);
	return 0;
}

/*
 * Say each glob of the filter that picks no function now: a misspelt
 * name would otherwise record nothing of it, and say nothing.
 */
static void say_unmatched(const char *globs)
{
	struct unmatched u = { .globs = globs };
	char buf[256];

	mcount_for_each_site(mark_matched, &u);
	for (int k = 0; k < 64 && nth_glob(globs, k, buf, sizeof(buf)); k++)
		if (!(u.matched >> k & 1))
			fprintf(stderr, "mcount: trace: the filter '%s' "
				"(mctrace -F, MCOUNT_TRACE_FILTER) picks no "
				"function at start%s\n", buf,
				demangler || !strstr(buf, "::") ? "" :
				" (no C++ demangler in the program)");
}

/*
 * The filters at start, while this is the only thread (sites without a
 * live form too): false, having said why, if the backend cannot record
 * a function they pick.  *failed: the functions that could not be
 * enabled.
 */
bool rec_filters_enable(size_t *failed)
{
	struct pick pick = { .only = rec_getenv("MCOUNT_TRACE_FILTER"),
			     .never = rec_getenv("MCOUNT_TRACE_NOTRACE") };
	const char *globs[2 + 2 * REC_PHASES] = { pick.only, pick.never };

	if (pick.only && !*pick.only)
		pick.only = NULL;
	for (int k = 0; k < n_phases; k++) {
		globs[2 + 2 * k] = phases[k].only;
		globs[3 + 2 * k] = phases[k].never;
	}
	demangler = rec_find_demangler(globs, 2 + 2 * (size_t)n_phases);
	if (!sites_fit(&pick))
		return false;
	mcount_for_each_site(enable_one, &pick);
	if (pick.only)
		say_unmatched(pick.only);
	active_only = pick.only;
	active_never = pick.never;
	*failed = pick.failed;
	return true;
}

/*
 * The writer has started, its clock read: the sets are timed from now,
 * after the trace's time zero, so that none falls due before the time
 * the trace shows for it (enabling the sites and opening the file may
 * take long after rec_filters_read).
 */
void rec_filters_started(void)
{
	__atomic_store_n(&start_ns, mono_ns(), __ATOMIC_RELEASE);
}

/* In the child of fork: the lock as new (another thread may have held it). */
void rec_filters_fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	filter_lock = fresh;
}
