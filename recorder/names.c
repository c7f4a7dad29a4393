/* SPDX-License-Identifier: MIT */
/*
 * names.c - the writer's names of the functions events name by address:
 * each looked up once and copied (the program may close the library
 * before the trace ends), and for a library opened or closed while
 * recording, the name the load at that address had at the event's ticks
 * (libs.c).  Each lookup says whether it is the first of its name, so
 * that the recorder's own form writes its name block once (compact.c);
 * JSON writes names with every event.  The writer thread's alone.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../runtime/client.h"
#include "recorder.h"

struct name {
	uintptr_t addr;
	const char *name;	/* NULL: none known */
};

static struct name *names;	/* open addressing; addr 0 is empty */
static size_t nnames, names_cap;
static unsigned libs_gen;	/* rec_libs_generation() lib_seen is of */
static struct lib_seen {
	uintptr_t addr;
	uint64_t from, until;
	const char *name;
} lib_seen[1 << REC_SEEN_BITS];	/* the last load found, by hash */

static size_t name_hash(uintptr_t a, size_t cap)
{
	return (size_t)((a >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

static void names_grow(void)
{
	size_t cap = names_cap ? 2 * names_cap : 1024;
	struct name *v = calloc(cap, sizeof(*v));

	if (!v)
		return;
	for (size_t i = 0; i < names_cap; i++) {
		size_t h;

		if (!names[i].addr)
			continue;
		for (h = name_hash(names[i].addr, cap); v[h].addr;
		     h = (h + 1) & (cap - 1))
			;
		v[h] = names[i];
	}
	free(names);
	names = v;
	names_cap = cap;
}

bool rec_name_of(uintptr_t addr, const char **name, bool *fresh)
{
	static char copy[4096];	/* the writer thread's alone */
	struct name *n;
	size_t h;

	*name = NULL;
	*fresh = false;
	if (2 * (nnames + 1) > names_cap)
		names_grow();
	if (!names_cap)
		return false;
	for (h = name_hash(addr, names_cap); names[h].addr;
	     h = (h + 1) & (names_cap - 1))
		if (names[h].addr == addr) {
			*name = names[h].name;
			return true;
		}
	n = &names[h];
	n->addr = addr;
	/* a copy: the program may close the library before the trace ends */
	n->name = mc_host_func_name_copy(addr, copy, sizeof(copy)) ?
		  strdup(copy) : NULL;
	nnames++;
	*name = n->name;
	*fresh = true;
	return true;
}

void rec_lib_name_of(uintptr_t addr, uint64_t ticks, struct rec_name_at *at)
{
	uint64_t h = ((uint64_t)addr >> 4) * 0x9e3779b97f4a7c15ull;
	struct lib_seen *seen = &lib_seen[h >> (64 - REC_SEEN_BITS)];
	struct rec_lib_name n;
	int found;

	*at = (struct rec_name_at){ .lib = true };
	if (seen->addr == addr && seen->from <= ticks && ticks < seen->until) {
		at->name = seen->name;	/* its block is out */
		at->from = seen->from;
		at->until = seen->until;
		return;
	}
	found = rec_lib_name(addr, ticks, &n);
	at->lib = found != 0;
	if (found <= 0)
		return;
	at->fresh = !(seen->addr == addr && seen->from == n.from);
	*seen = (struct lib_seen){ addr, n.from, n.until, n.name };
	at->name = n.name;
	at->from = n.from;
	at->until = n.until;
	at->base = n.base;
}

const char *rec_name_at(uintptr_t addr, uint64_t ticks)
{
	struct rec_name_at at;
	const char *name;
	bool fresh;

	rec_lib_name_of(addr, ticks, &at);
	if (at.lib)
		return at.name;
	rec_name_of(addr, &name, &fresh);
	return name;
}

bool rec_names_check(void)
{
	unsigned gen = rec_libs_generation();

	if (gen == libs_gen)
		return false;
	memset(lib_seen, 0, sizeof(lib_seen));
	libs_gen = gen;
	return true;
}

void rec_names_release(unsigned pass,
		       bool (*in_use)(const char *lo, const char *hi))
{
	if (rec_libs_release(pass, in_use))
		memset(lib_seen, 0, sizeof(lib_seen));
}

void rec_names_fork_child(void)
{
	for (size_t i = 0; i < names_cap; i++)
		free((char *)names[i].name);
	free(names);
	names = NULL;
	nnames = names_cap = 0;
	memset(lib_seen, 0, sizeof(lib_seen));
}
