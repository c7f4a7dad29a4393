/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame.js - the script inside mctrace's flame graph SVG (flame.c embeds
 * this file whole, in a CDATA section: it must never hold the three
 * characters that end one).  Plain ECMAScript for a browser, nothing
 * fetched, no library:
 *
 *   - hover a frame: the details line at the bottom names it, with its
 *     calls, time and share (its <title> is the tooltip as well);
 *   - click a frame: its subtree fills the width, its callers stay below
 *     at full width, the rest hides; "Reset zoom" (or Escape, or a click
 *     on "all") undoes it;
 *   - "Search" (or Ctrl-F, or "/"): a regular expression, or text if it
 *     is not one; matching frames turn purple and the bottom right says
 *     the share of time they cover, each nanosecond counted once.
 *   - the page's address may end in #zoom=NAME&s=QUERY (either part):
 *     zoom into the widest frame named NAME, search for QUERY, on load.
 *     A test drives the script through it.
 *
 * What it reads, as flame.c writes it: each frame a <g class="f"> of a
 * <title> (the name, a newline, the figures), a <rect> and a <text>, in
 * preorder from the root ("all"); a child's rect lies within its
 * parent's, and a higher row has a smaller y.
 */
(function () {
	"use strict";

	var CHAR_WIDTH = 7.2;	/* as flame.c's: 12px monospace */
	var EPSILON = 0.001;	/* positions are in hundredths of a pixel */
	var MATCH_FILL = "rgb(190,70,230)";
	var frames = [];
	var root;
	var zoomed = null;
	var query = null;

	function byId(id) {
		return document.getElementById(id);
	}

	function readFrame(g) {
		var title = g.getElementsByTagName("title")[0].textContent;
		var cut = title.lastIndexOf("\n");
		var rect = g.getElementsByTagName("rect")[0];
		var figures = title.slice(cut + 1);
		var us = /([0-9.]+) us/.exec(figures);

		return {
			g: g, rect: rect,
			text: g.getElementsByTagName("text")[0],
			name: title.slice(0, cut), figures: figures,
			ns: us ? Math.round(parseFloat(us[1]) * 1000) : 0,
			x: parseFloat(rect.getAttribute("x")),
			w: parseFloat(rect.getAttribute("width")),
			y: parseFloat(rect.getAttribute("y")),
			fill: rect.getAttribute("fill")
		};
	}

	/* The label that fits `w` pixels: 3 characters at least, or none. */
	function label(name, w) {
		var fits = Math.floor((w - 6) / CHAR_WIDTH);

		if (fits < 3)
			return "";
		if (name.length <= fits)
			return name;
		return name.slice(0, fits - 2) + "..";
	}

	function place(f, x, w) {
		f.g.removeAttribute("display");
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = label(f.name, w);
	}

	function within(inner, outer) {
		return inner.x >= outer.x - EPSILON &&
			inner.x + inner.w <= outer.x + outer.w + EPSILON;
	}

	/* Zoom into frame `z` (null: the whole). */
	function zoom(z) {
		var base = z || root;
		var scale = root.w / (base.w || 1);

		zoomed = z;
		frames.forEach(function (f) {
			if (f.y > base.y && within(base, f))
				place(f, root.x, root.w);	/* a caller */
			else if (f.y <= base.y && within(f, base))
				place(f, root.x + (f.x - base.x) * scale,
				      f.w * scale);
			else
				f.g.setAttribute("display", "none");
		});
		if (z)
			byId("reset").removeAttribute("display");
		else
			byId("reset").setAttribute("display", "none");
	}

	function matcher(q) {
		var re;

		try {
			re = new RegExp(q);
		} catch (e) {
			return function (name) { return name.indexOf(q) >= 0; };
		}
		return function (name) { return re.test(name); };
	}

	/*
	 * The time the frames cover, a frame inside another counted in that
	 * one only: frames either nest or do not overlap, so, in order of
	 * their left edge (the outer first), a frame ending no further than
	 * the last one counted is inside it.
	 */
	function coveredNs(hits) {
		var end = -Infinity;
		var ns = 0;

		hits.sort(function (a, b) {
			return a.x - b.x || b.w - a.w || b.y - a.y;
		});
		hits.forEach(function (f) {
			if (f.x + f.w > end + EPSILON) {
				ns += f.ns;
				end = f.x + f.w;
			}
		});
		return ns;
	}

	function search(q) {
		var match = q ? matcher(q) : null;
		var hits = [];
		var share;

		query = q || null;
		frames.forEach(function (f) {
			var hit = match && f !== root && match(f.name);

			f.rect.setAttribute("fill", hit ? MATCH_FILL : f.fill);
			if (hit)
				hits.push(f);
		});
		byId("search").textContent = query ? "Clear search" : "Search";
		share = 100 * coveredNs(hits) / (root.ns || 1);
		byId("matched").textContent =
			query ? "Matched: " + share.toFixed(2) + "%" : "";
	}

	function askSearch() {
		var q;

		if (query) {
			search(null);
			return;
		}
		q = window.prompt("Search: a regular expression, or text", "");
		if (q)
			search(q);
	}

	function listen(f) {
		f.g.addEventListener("click", function () {
			zoom(f === root ? null : f);
		});
		f.g.addEventListener("mouseover", function () {
			byId("details").textContent =
				f.name + " (" + f.figures + ")";
		});
		f.g.addEventListener("mouseout", function () {
			byId("details").textContent = " ";
		});
	}

	function onKey(e) {
		if (e.key === "Escape") {
			zoom(null);
		} else if (e.key === "/" ||
			   (e.ctrlKey || e.metaKey) && e.key === "f") {
			e.preventDefault();
			askSearch();
		}
	}

	/* #zoom=NAME&s=QUERY, each part optional, each URI-encoded */
	function fromAddress() {
		var parts = window.location.hash.slice(1).split("&");

		parts.forEach(function (part) {
			var eq = part.indexOf("=");
			var key = part.slice(0, eq);
			var value = decodeURIComponent(part.slice(eq + 1));
			var widest = null;

			if (eq < 0)
				return;
			if (key === "zoom") {
				frames.forEach(function (f) {
					if (f.name === value &&
					    (!widest || f.w > widest.w))
						widest = f;
				});
				if (widest)
					zoom(widest === root ? null : widest);
			} else if (key === "s") {
				search(value);
			}
		});
	}

	var groups = document.getElementsByTagName("g");

	for (var i = 0; i < groups.length; i++) {
		if (groups[i].getAttribute("class") === "f")
			frames.push(readFrame(groups[i]));
	}
	if (!frames.length)
		return;
	root = frames[0];
	frames.forEach(listen);
	byId("reset").addEventListener("click", function () { zoom(null); });
	byId("search").addEventListener("click", askSearch);
	document.addEventListener("keydown", onKey);
	fromAddress();
})();
