/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame.c - a flame graph as SVG, drawn from the calls themselves: each
 * box a function in one stack, as wide as the time spent in it (summed
 * over its calls from that stack), its callers below it.  No script, no
 * package: plain SVG 1.1 any browser shows, with a tooltip per box.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define WIDTH 1200.0
#define ROW 16
#define TOP 40
#define PAD 10.0

struct node {
	uint64_t func;
	uint64_t total;
	size_t child, sibling;	/* indexes; 0: none (node 0 is the root) */
};

static struct {
	struct node *v;
	size_t n, cap;
	uint32_t depth;
} tree;

static size_t child_of(size_t parent, uint64_t func)
{
	size_t *link = &tree.v[parent].child;

	for (size_t c = *link; c; c = tree.v[c].sibling) {
		if (tree.v[c].func == func)
			return c;
		link = &tree.v[c].sibling;
	}
	if (tree.n == tree.cap) {
		tree.cap = tree.cap ? 2 * tree.cap : 256;
		tree.v = realloc(tree.v, tree.cap * sizeof(*tree.v));
		if (!tree.v) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		link = NULL;	/* moved: find the end again */
	}
	tree.v[tree.n] = (struct node){ .func = func };
	if (!link) {
		link = &tree.v[parent].child;
		while (*link)
			link = &tree.v[*link].sibling;
	}
	*link = tree.n;
	return tree.n++;
}

static void build(const struct trace *t)
{
	tree.cap = 256;
	tree.v = malloc(tree.cap * sizeof(*tree.v));
	if (!tree.v) {
		fprintf(stderr, "mctrace: out of memory\n");
		exit(1);
	}
	tree.v[0] = (struct node){ 0 };	/* the root, "all" */
	tree.n = 1;
	tree.depth = 0;
	for (size_t k = 0; k < t->nthreads; k++) {
		const struct thread *th = &t->threads[k];
		size_t *at = malloc((th->ncalls + 2) * sizeof(*at));

		at[0] = 0;
		for (size_t i = 0; i < th->ncalls; i++) {
			const struct call *c = &th->calls[i];
			size_t node = child_of(at[c->depth], c->func);

			tree.v[node].total += c->end - c->start;
			if (c->depth == 0)
				tree.v[0].total += c->end - c->start;
			at[c->depth + 1] = node;
			if (c->depth + 1 > tree.depth)
				tree.depth = c->depth + 1;
		}
		free(at);
	}
}

static void xml_text(FILE *f, const char *s, size_t max)
{
	size_t len = strlen(s);
	bool cut = len > max;

	for (size_t i = 0; i < len && i < (cut ? max - 2 : len); i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)s[i] >= 0x20)
				fputc(s[i], f);
		}
	}
	if (cut)
		fputs("..", f);
}

/* A warm colour from the name, stable from run to run. */
static void colour(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	unsigned h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	*r = 205 + h % 50;
	*g = 80 + (h >> 8) % 130;
	*b = 40 + (h >> 16) % 40;
}

static void draw(const struct trace *t, FILE *f, size_t node, double x,
		 uint32_t depth, double scale, double height)
{
	const struct node *n = &tree.v[node];
	double w = (double)n->total * scale;
	double y = height - (depth + 1) * ROW - PAD;
	const char *name = node ? trace_name(t, n->func) : "all";
	unsigned r, g, b;

	if (node && !n->total)
		return;
	colour(name, &r, &g, &b);
	fprintf(f, "<g><title>");
	xml_text(f, name, 4096);
	fprintf(f, " (%.3f us, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		n->total / 1e3, 100.0 * n->total /
		(tree.v[0].total ? tree.v[0].total : 1), x, y, w, ROW - 1,
		r, g, b);
	if (w > 24) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + ROW - 4);
		xml_text(f, name, (size_t)(w / 7));
		fprintf(f, "</text>");
	}
	fprintf(f, "</g>\n");
	for (size_t c = n->child; c; c = tree.v[c].sibling) {
		draw(t, f, c, x, depth + 1, scale, height);
		x += (double)tree.v[c].total * scale;
	}
}

void out_flame_svg(const struct trace *t, FILE *f, const char *title)
{
	double height, scale;

	build(t);
	height = TOP + (tree.depth + 1) * ROW + 2 * PAD;
	scale = tree.v[0].total ? (WIDTH - 2 * PAD) / tree.v[0].total : 0;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f0\"/>\n<style>text { font-family: monospace; "
		"font-size: 12px; fill: #000; }</style>\n"
		"<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-size:16px\">", WIDTH, height, WIDTH, height,
		WIDTH / 2);
	xml_text(f, title, 200);
	fprintf(f, "</text>\n");
	if (tree.v[0].total)
		draw(t, f, 0, PAD, 0, scale, height);
	fprintf(f, "</svg>\n");
	free(tree.v);
	tree.v = NULL;
	tree.cap = 0;
}
