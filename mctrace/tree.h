/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tree.h - the aggregated call tree (mctrace/tree.c): each distinct call
 * path once, with its calls and their total time, as `graph` shows it.
 */
#ifndef MCTRACE_TREE_H
#define MCTRACE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Node 0 is the root, no function: the threads' outermost calls' parent. */
struct tree_node {
	uint64_t func;			/* of trace.funcs */
	uint64_t calls, total;		/* total: ns, summed over the calls */
	size_t parent, child, last, next;	/* 0: none */
};

struct tree {
	struct tree_node *node;
	size_t n, cap;
	size_t *slot, nslot;		/* (parent, func) -> node; 0: empty */
};

void tree_init(struct tree *tr);
void tree_free(struct tree *tr);
/*
 * Add a thread's calls.  With `root` (a glob), only the calls of
 * matching functions and their callees, each match's outermost call at
 * the top (graph FUNC's callees).
 */
void tree_add_thread(struct tree *tr, const struct trace *t,
		     const struct thread *th, const char *root);
/*
 * Add the paths that lead to each call of a function matching `glob`:
 * the count and time are the matching call's, at the path's end node
 * (graph FUNC's callers).
 */
void tree_add_callers(struct tree *tr, const struct trace *t,
		      const struct thread *th, const char *glob);
/*
 * The node after `i` in depth-first order, with its depth in *depth
 * (the root's children are 0); 0 after the last.
 */
size_t tree_walk(const struct tree *tr, size_t i, uint32_t *depth);

#endif
