/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tree.c - the aggregated call tree: the calls of every thread folded
 * into one node per distinct path from the outermost call (uftrace's
 * graph), children in the order they were first called.  A node is found
 * from its parent and function through a hash table, so a hot loop's
 * millions of calls cost one probe each.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	return p;
}

void tree_init(struct tree *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->cap = 64;
	tr->node = must(calloc(tr->cap, sizeof(*tr->node)));
	tr->n = 1;		/* the root */
	tr->nslot = 128;
	tr->slot = must(calloc(tr->nslot, sizeof(*tr->slot)));
}

void tree_free(struct tree *tr)
{
	free(tr->node);
	free(tr->slot);
	memset(tr, 0, sizeof(*tr));
}

static size_t hash(size_t parent, uint64_t func, size_t nslot)
{
	uint64_t h = ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^
		     (func * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29)) & (nslot - 1);
}

static size_t *slot_of(const struct tree *tr, size_t parent, uint64_t func)
{
	size_t h = hash(parent, func, tr->nslot);

	while (tr->slot[h] && (tr->node[tr->slot[h]].parent != parent ||
			       tr->node[tr->slot[h]].func != func))
		h = (h + 1) & (tr->nslot - 1);
	return &tr->slot[h];
}

static void rehash(struct tree *tr)
{
	free(tr->slot);
	tr->nslot *= 2;
	tr->slot = must(calloc(tr->nslot, sizeof(*tr->slot)));
	for (size_t i = 1; i < tr->n; i++)
		*slot_of(tr, tr->node[i].parent, tr->node[i].func) = i;
}

/* The child of `parent` for `func`, made if there is none. */
static size_t child_of(struct tree *tr, size_t parent, uint64_t func)
{
	size_t *s = slot_of(tr, parent, func), i;

	if (*s)
		return *s;
	if (tr->n == tr->cap) {
		tr->cap *= 2;
		tr->node = must(realloc(tr->node, tr->cap * sizeof(*tr->node)));
	}
	i = tr->n++;
	tr->node[i] = (struct tree_node){ .func = func, .parent = parent };
	if (tr->node[parent].last)
		tr->node[tr->node[parent].last].next = i;
	else
		tr->node[parent].child = i;
	tr->node[parent].last = i;
	*s = i;
	if (2 * tr->n > tr->nslot)
		rehash(tr);
	return i;
}

static bool matches(const struct trace *t, uint64_t func, const char *glob)
{
	return fnmatch(glob, trace_name(t, func), 0) == 0;
}

void tree_add_thread(struct tree *tr, const struct trace *t,
		     const struct thread *th, const char *root)
{
	size_t *at = must(malloc((th->ncalls + 1) * sizeof(*at)));
	uint32_t base = 0;	/* depth of the open root match */
	bool inside = !root;

	for (size_t i = 0; i < th->ncalls; i++) {
		const struct call *c = &th->calls[i];
		uint32_t d;
		size_t node;

		if (root && inside && c->depth <= base)
			inside = false;
		if (!inside) {
			if (!matches(t, c->func, root))
				continue;
			inside = true;
			base = c->depth;
		}
		d = c->depth - base;
		node = child_of(tr, d ? at[d - 1] : 0, c->func);
		at[d] = node;
		tr->node[node].calls++;
		tr->node[node].total += c->end - c->start;
	}
	free(at);
}

void tree_add_callers(struct tree *tr, const struct trace *t,
		      const struct thread *th, const char *glob)
{
	size_t *path = must(malloc((th->ncalls + 1) * sizeof(*path)));

	for (size_t i = 0; i < th->ncalls; i++) {
		const struct call *c = &th->calls[i];
		size_t node = 0;

		path[c->depth] = i;
		if (!matches(t, c->func, glob))
			continue;
		for (uint32_t d = 0; d <= c->depth; d++)
			node = child_of(tr, node, th->calls[path[d]].func);
		tr->node[node].calls++;
		tr->node[node].total += c->end - c->start;
	}
	free(path);
}

size_t tree_walk(const struct tree *tr, size_t i, uint32_t *depth)
{
	if (tr->node[i].child) {
		if (i)
			++*depth;
		return tr->node[i].child;
	}
	while (i && !tr->node[i].next) {
		i = tr->node[i].parent;
		if (i)
			--*depth;
	}
	return i ? tr->node[i].next : 0;
}
