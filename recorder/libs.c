/* SPDX-License-Identifier: MIT */
/*
 * libs.c - the libraries loaded and unloaded while recording.
 *
 * An event names its function by an address (format.h), and a library
 * closed while recording may have another (or itself again) opened at
 * the same address: an address then means different functions at
 * different times.  So each load is kept here with a copy of its
 * function names, made while it is loaded, and the ticks of its load
 * and unload; the writer names an event by the load that was at its
 * address when it happened (MCT_NAME_AT, MCT_UNLOAD), never by looking
 * at what is mapped there when it gets to the event.  A library that
 * was loaded before recording started and is closed during it gets its
 * names copied at the close, as loaded from the start.
 *
 * The runtime tells of loads and unloads through its image hooks
 * (runtime/client.h), under its patching lock: nothing here takes
 * another lock under `lock`, which is taken last.
 *
 * A load's names are needed until the writer has written every event
 * that ran in it, which it may meet well after the close.  So a closed
 * load is freed by the writer (rec_libs_release), once its MCT_UNLOAD
 * is in the file and every ring has been drained again since: an event
 * that ran in it was in a ring before the unload, so it is written by
 * then.  What is kept of it is its span, merged with the spans of the
 * others freed, so that an address there is still known to have been a
 * library's (unnamed, never named by what is mapped there later), for
 * an event that comes late anyway (a thread that was in the library as
 * it closed).  Up to GONE_MAX spans: a loader that puts each load at
 * another address (qemu-user does) makes as many, and past that a new
 * one takes the place of an earlier one.  A program that opens and
 * closes libraries in a loop keeps the loads the writer has not caught
 * up with, and the spans.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/client.h"
#include "recorder.h"

struct sym {
	uintptr_t start;
	size_t size;
	size_t name;		/* in its load's `text` */
};

struct load {
	uintptr_t lo, hi;	/* its PT_LOAD span */
	uint64_t loaded;	/* ticks; 0: before recording started */
	uint64_t unloaded;	/* ticks; 0: still loaded */
	struct sym *syms;	/* sorted by start */
	size_t nsyms, cap;
	char *text;		/* every name, NUL-terminated, one block */
	size_t text_len, text_cap;
	bool set;		/* its sites were set to the filters */
	bool unload_written;	/* its MCT_UNLOAD is in the file */
	unsigned written_pass;	/* the writer's pass that wrote it */
	struct load *older;
};

/* A span freed loads held (see above). */
struct span {
	uintptr_t lo, hi;
};

#define GONE_MAX 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct load *newest;
static unsigned generation;	/* atomic: bumped by every load */
static struct span *gone;	/* the spans of freed loads, disjoint */
static size_t ngone, gone_cap, gone_next;

/* `name` appended to l's text block; its offset there, or -1. */
static ptrdiff_t add_text(struct load *l, const char *name)
{
	size_t n = strlen(name) + 1, at = l->text_len;

	if (l->text_cap - l->text_len < n) {
		size_t cap = l->text_cap ? 2 * l->text_cap : 1024;
		char *v;

		while (cap - l->text_len < n)
			cap *= 2;
		v = realloc(l->text, cap);
		if (!v)
			return -1;
		l->text = v;
		l->text_cap = cap;
	}
	memcpy(l->text + at, name, n);
	l->text_len += n;
	return (ptrdiff_t)at;
}

static void copy_sym(uintptr_t start, size_t size, const char *name,
		     void *arg)
{
	struct load *l = arg;
	struct sym *v;
	ptrdiff_t at;

	if (start < l->lo || start >= l->hi)
		return;
	if (l->nsyms == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;

		v = realloc(l->syms, cap * sizeof(*v));
		if (!v)
			return;
		l->syms = v;
		l->cap = cap;
	}
	at = add_text(l, name);
	if (at < 0)
		return;
	l->syms[l->nsyms++] = (struct sym){ start, size, (size_t)at };
}

static void load_free(struct load *l)
{
	free(l->syms);
	free(l->text);
	free(l);
}

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start > y->start ? 1 : -1;
	return (x->size > y->size) - (x->size < y->size);
}

/* A load of `obj` at `ticks`, its names copied; NULL if out of memory. */
static struct load *load_new(struct host_obj *obj, uint64_t ticks)
{
	struct load *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	mc_host_obj_span(obj, &l->lo, &l->hi);
	l->loaded = ticks;
	mc_host_obj_funcs(obj, copy_sym, l);
	qsort(l->syms, l->nsyms, sizeof(*l->syms), by_start);
	return l;
}

static void added(struct host_obj *obj)
{
	struct load *l;

	if (!__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return;
	l = load_new(obj, rec_ticks());
	if (!l)
		return;
	pthread_mutex_lock(&lock);
	l->older = newest;
	newest = l;
	__atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}

static struct load *live_load(uintptr_t lo, uintptr_t hi)
{
	for (struct load *l = newest; l; l = l->older)
		if (!l->unloaded && l->lo == lo && l->hi == hi)
			return l;
	return NULL;
}

static void removed(struct host_obj *obj)
{
	uint64_t now = rec_ticks();
	struct load *l, *made = NULL;
	uintptr_t lo, hi;

	if (!__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return;
	mc_host_obj_span(obj, &lo, &hi);
	pthread_mutex_lock(&lock);
	l = live_load(lo, hi);
	pthread_mutex_unlock(&lock);
	if (!l) {
		/* loaded before recording: its names, as from the start */
		made = l = load_new(obj, 0);
		if (!l)
			return;
	}
	pthread_mutex_lock(&lock);
	if (made) {
		made->set = true;
		made->older = newest;
		newest = made;
		__atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
	}
	l->unloaded = now ? now : 1;
	pthread_mutex_unlock(&lock);
}

/* filters.c's, passed in: the filters are above the libraries */
static void (*settle)(bool wait);

static void settled(void)
{
	settle(true);
}

void rec_libs_start(void (*settle_sites)(bool wait))
{
	static const struct mc_host_image_hooks hooks = {
		.added = added, .removed = removed, .settled = settled,
	};

	settle = settle_sites;
	mc_host_set_image_hooks(&hooks);
}

unsigned rec_libs_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

static const char *sym_name(const struct load *l, uintptr_t addr)
{
	size_t lo = 0, hi = l->nsyms;

	/* the last symbol starting at or before addr */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - l->syms[lo - 1].start >= l->syms[lo - 1].size)
		return NULL;
	return l->text + l->syms[lo - 1].name;
}

static bool in_gone(uintptr_t addr)
{
	for (size_t i = 0; i < ngone; i++)
		if (addr >= gone[i].lo && addr < gone[i].hi)
			return true;
	return false;
}

int rec_lib_name(uintptr_t addr, uint64_t ticks, struct rec_lib_name *out)
{
	const struct load *at = NULL;
	uint64_t until = UINT64_MAX;
	bool inside = false;

	if (!rec_libs_generation())
		return 0;	/* no library came or went: no lock */
	pthread_mutex_lock(&lock);
	for (const struct load *l = newest; l && !at; l = l->older) {
		if (addr < l->lo || addr >= l->hi)
			continue;
		inside = true;
		if (l->loaded <= ticks)
			at = l;
		else
			until = l->loaded;
	}
	if (at) {
		out->name = sym_name(at, addr);
		out->from = at->loaded;
		out->until = until;
		out->base = at->lo;
	}
	if (!at && !inside)
		inside = in_gone(addr);
	pthread_mutex_unlock(&lock);
	return at ? 1 : inside ? -1 : 0;
}

bool rec_lib_unset(uintptr_t *lo, uintptr_t *hi)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (struct load *l = newest; l && !found; l = l->older) {
		if (l->set || l->unloaded)
			continue;
		l->set = found = true;
		*lo = l->lo;
		*hi = l->hi;
	}
	pthread_mutex_unlock(&lock);
	return found;
}

void rec_libs_unloads(void (*put)(uintptr_t lo, uintptr_t hi, uint64_t ticks),
		      unsigned pass)
{
	pthread_mutex_lock(&lock);
	for (struct load *l = newest; l; l = l->older)
		if (l->unloaded && !l->unload_written) {
			l->unload_written = true;
			l->written_pass = pass;
			put(l->lo, l->hi, l->unloaded);
		}
	pthread_mutex_unlock(&lock);
}

/*
 * [lo, hi) added to the spans of freed loads, merged with those it
 * overlaps or touches (a library opened again lands where it was, or
 * beside); when there are GONE_MAX, in place of an earlier one.  If
 * there is no memory for it, the load is kept instead.
 */
static bool gone_add(uintptr_t lo, uintptr_t hi)
{
	size_t i = 0;

	while (i < ngone) {
		if (gone[i].hi < lo || gone[i].lo > hi) {
			i++;
			continue;
		}
		if (gone[i].lo < lo)
			lo = gone[i].lo;
		if (gone[i].hi > hi)
			hi = gone[i].hi;
		gone[i] = gone[--ngone];
		i = 0;		/* the wider span may reach others */
	}
	if (ngone == GONE_MAX) {
		gone[gone_next++ % GONE_MAX] = (struct span){ lo, hi };
		return true;
	}
	if (ngone == gone_cap) {
		size_t cap = gone_cap ? 2 * gone_cap : 16;
		struct span *v = realloc(gone, cap * sizeof(*v));

		if (!v)
			return false;
		gone = v;
		gone_cap = cap;
	}
	gone[ngone++] = (struct span){ lo, hi };
	return true;
}

/* Whether `l`'s names may go, now that the writer is in pass `pass`. */
static bool releasable(const struct load *l, unsigned pass,
		       bool (*in_use)(const char *lo, const char *hi))
{
	return l->unload_written && l->written_pass != pass &&
	       !(l->text && in_use(l->text, l->text + l->text_len));
}

unsigned rec_libs_release(unsigned pass,
			  bool (*in_use)(const char *lo, const char *hi))
{
	struct load **at, *l, *done = NULL;
	unsigned n = 0;

	pthread_mutex_lock(&lock);
	for (at = &newest; (l = *at);) {
		if (!releasable(l, pass, in_use) || !gone_add(l->lo, l->hi)) {
			at = &l->older;
			continue;
		}
		*at = l->older;
		l->older = done;
		done = l;
		n++;
	}
	pthread_mutex_unlock(&lock);
	while ((l = done)) {
		done = l->older;
		load_free(l);
	}
	return n;
}

/* In the child of fork: its own file needs the unloads again. */
void rec_libs_fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	lock = fresh;
	for (struct load *l = newest; l; l = l->older)
		l->unload_written = false;
}
