#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""includes.py [TOP] - the include arrows between the tree's C files.

Every `#include "..."` (resolved from the including file's folder, then
from runtime/include) and every `#include <...>` that names a file of
runtime/include (<mcount.h>) is an arrow from one file to another.  Two
rules, one line each on stdout for every breach, exit 1 if any:

  circle  no files include each other in a loop, inside a folder or
          across folders;
  up      an arrow between two of the folders below points down: a
          folder includes only from the folders LAYERS lets it.

Files outside these folders (tests, fixtures, bench, kernel) are users
of them all and are not judged; an arrow from a judged folder into one
of them is a breach like any other.
"""

import os
import re
import sys

# What each folder may include from, besides itself: arch/ and elf/ are
# the foundations (arch/ depends on nothing, not even libelf, so that the
# runtime builds freestanding); recordmcount/ uses both; runtime/ uses
# arch/ alone; the recorder sits on the runtime, mctrace reads the
# recorder's format; fuzz/ and examples/ drive what they test or show.
LAYERS = {
    "arch": set(),
    "elf": {"arch"},
    "recordmcount": {"arch", "elf"},
    "runtime": {"arch"},
    "recorder": {"runtime", "arch"},
    "mctrace": {"recorder"},
    "fuzz": {"arch", "elf", "recordmcount", "mctrace"},
    "examples": {"runtime", "arch"},
}
INCLUDE_DIRS = ("runtime/include",)
SOURCE = re.compile(r"\.(c|h|S|def)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def top_folder(path):
    return path.split("/", 1)[0]


def sources(top):
    """Paths, from TOP, of the C files of the judged folders."""
    for folder in sorted(LAYERS):
        for d, dirs, files in os.walk(os.path.join(top, folder)):
            dirs.sort()
            for f in sorted(files):
                if SOURCE.search(f):
                    yield os.path.relpath(os.path.join(d, f), top)


def resolve(top, src, kind, name):
    """The tree file `#include <name>` or `"name"` in src means, or None
    (a system header)."""
    tries = [] if kind == "<" else [os.path.join(os.path.dirname(src), name)]
    tries += [os.path.join(d, name) for d in INCLUDE_DIRS]
    for t in tries:
        path = os.path.normpath(t)
        if os.path.isfile(os.path.join(top, path)):
            return path
    return None


def arrows(top):
    """{file: [included file, ...]} over the judged folders."""
    graph = {}
    todo = list(sources(top))
    while todo:
        src = todo.pop()
        if src in graph:
            continue
        with open(os.path.join(top, src), errors="replace") as f:
            text = f.read()
        graph[src] = []
        for kind, name in INCLUDE.findall(text):
            dst = resolve(top, src, kind, name)
            if dst:
                graph[src].append(dst)
                todo.append(dst)
    return graph


def circles(graph):
    """The strongly connected components of more than one file (or of one
    that includes itself), each a sorted list (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def breaches(top):
    graph = arrows(top)
    found = []
    for comp in circles(graph):
        found.append("circle: %s include each other" % ", ".join(comp))
    for src in sorted(graph):
        a = top_folder(src)
        if a not in LAYERS:
            continue
        for dst in sorted(set(graph[src])):
            b = top_folder(dst)
            if b != a and b not in LAYERS[a]:
                allowed = ", ".join(sorted(f + "/" for f in LAYERS[a]))
                found.append("up: %s includes %s (%s/ may include %s)" %
                             (src, dst, a, allowed or "nothing else"))
    return found, len(graph), sum(len(v) for v in graph.values())


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
    found, files, n = breaches(top)
    for line in found:
        print(line)
    if not found:
        print("%d files, %d include arrows: no circle, none pointing up"
              % (files, n))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
