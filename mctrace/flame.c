/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame.c - a flame graph as SVG, drawn from the calls themselves: each
 * box (a frame) a function in one stack, as wide as the time spent in it
 * (summed over its calls from that stack), its callers below it.
 *
 * One file, nothing fetched: plain SVG 1.1 with a tooltip per frame (its
 * <title>: the name, then a line of calls, time and share of the whole),
 * and a small script of our own (flame.js, embedded as flame_js[] by
 * mctrace.mk) that adds a details line, click to zoom and search.
 * Without the script (an <img>, a viewer that runs none) the picture and
 * its tooltips are all there.  The script reads the frames back from
 * what is written here: each a <g class="f"> of title, rect and text, in
 * preorder from the root ("all"), a child's rect within its parent's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define WIDTH 1200.0
#define ROW 16
#define TOP 40		/* the title and the controls */
#define BOTTOM 30	/* the details line */
#define PAD 10.0
#define CHAR_WIDTH 7.2	/* of 12px monospace, to fit labels; flame.js's too */

/* flame.js, with a NUL at its end (made by mctrace.mk) */
extern const char flame_js[];

struct node {
	uint64_t func;
	uint64_t total;		/* ns */
	uint64_t calls;
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

		if (!at) {
			fprintf(stderr, "mctrace: out of memory\n");
			exit(1);
		}
		at[0] = 0;
		for (size_t i = 0; i < th->ncalls; i++) {
			const struct call *c = &th->calls[i];
			size_t node = child_of(at[c->depth], c->func);

			tree.v[node].total += c->end - c->start;
			tree.v[node].calls++;
			/* the root's calls: the outermost ones */
			if (c->depth == 0) {
				tree.v[0].total += c->end - c->start;
				tree.v[0].calls++;
			}
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

/* ns as microseconds with all their digits: no rounding to undo */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64 " us", ns / 1000, ns % 1000);
}

/* A position in hundredths of a pixel, as pixels. */
static void put_px(FILE *f, const char *attr, long long hundredths)
{
	fprintf(f, " %s=\"%lld.%02lld\"", attr, hundredths / 100,
		hundredths % 100);
}

/*
 * The edges of the frame `ns_before` into the whole and `ns` wide, in
 * hundredths of a pixel: rounded from the ns edges, which nest, so that
 * a child's rect is within its parent's exactly, and widths add up.
 */
static void edges(uint64_t ns_before, uint64_t ns, long long *left,
		  long long *right)
{
	double per_ns = 100.0 * (WIDTH - 2 * PAD) /
		(double)(tree.v[0].total ? tree.v[0].total : 1);

	/* (rounded to nearest: both are positive) */
	*left = (long long)(100.0 * PAD + (double)ns_before * per_ns + 0.5);
	*right = (long long)(100.0 * PAD + (double)(ns_before + ns) * per_ns +
			     0.5);
}

/* The tooltip: the name, then a line of figures (flame.js reads both). */
static void frame_title(FILE *f, const struct node *n, const char *name)
{
	uint64_t all = tree.v[0].total ? tree.v[0].total : 1;

	fprintf(f, "<title>");
	xml_text(f, name, 4096);
	fprintf(f, "\n%" PRIu64 " call%s, ", n->calls,
		n->calls == 1 ? "" : "s");
	put_us(f, n->total);
	fprintf(f, ", %.2f%%</title>", 100.0 * (double)n->total / (double)all);
}

static void frame(const struct trace *t, FILE *f, size_t node,
		  uint64_t ns_before, double y)
{
	const struct node *n = &tree.v[node];
	const char *name = node ? trace_name(t, n->func) : "all";
	long long left, right;
	double w;
	unsigned r, g, b;

	edges(ns_before, n->total, &left, &right);
	w = (double)(right - left) / 100;
	colour(name, &r, &g, &b);
	fprintf(f, "<g class=\"f\">");
	frame_title(f, n, name);
	fprintf(f, "<rect");
	put_px(f, "x", left);
	fprintf(f, " y=\"%.0f\"", y);
	put_px(f, "width", right - left);
	fprintf(f, " height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.0f\">", ROW - 1, r, g, b,
		(double)left / 100 + 3, y + ROW - 4);
	/* at least 3 characters, or no label (flame.js: the same rule) */
	if (w - 6 >= 3 * CHAR_WIDTH)
		xml_text(f, name, (size_t)((w - 6) / CHAR_WIDTH));
	fprintf(f, "</text></g>\n");
}

/* The frame `node` and those above it, `ns_before` into the whole. */
static void draw(const struct trace *t, FILE *f, size_t node,
		 uint64_t ns_before, uint32_t depth, double height)
{
	const struct node *n = &tree.v[node];

	if (node && !n->total)
		return;
	frame(t, f, node, ns_before, height - BOTTOM - (depth + 1) * ROW);
	for (size_t c = n->child; c; c = tree.v[c].sibling) {
		draw(t, f, c, ns_before, depth + 1, height);
		ns_before += tree.v[c].total;
	}
}

/* The title, the controls flame.js works, its details line. */
static void header(FILE *f, const char *title, double height)
{
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f0\"/>\n<style>text { font-family: monospace; "
		"font-size: 12px; fill: #000; }\n"
		".f { cursor: pointer; } .f:hover rect { stroke: #000; "
		"stroke-width: 0.5; }\n"
		".ctl { cursor: pointer; fill: #236; }</style>\n"
		"<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
		"style=\"font-size:16px\">", WIDTH, height, WIDTH, height,
		WIDTH / 2);
	xml_text(f, title, 200);
	fprintf(f, "</text>\n"
		"<text id=\"reset\" class=\"ctl\" x=\"%.0f\" y=\"24\" "
		"display=\"none\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%.0f\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n"
		"<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"end\"></text>\n", PAD, WIDTH - PAD, PAD,
		height - 10, WIDTH - PAD, height - 10);
}

void out_flame_svg(const struct trace *t, FILE *f, const char *title)
{
	double height;

	build(t);
	height = TOP + (tree.depth + 1) * ROW + BOTTOM;
	header(f, title, height);
	if (tree.v[0].total)
		draw(t, f, 0, 0, 0, height);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]>"
		"</script>\n</svg>\n", flame_js);
	free(tree.v);
	tree.v = NULL;
	tree.cap = 0;
}
