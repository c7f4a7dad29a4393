#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""kernel/gate.py CHECK-JSON DUMP-JSON NM-S - the CI gate (--check) on a
real vmlinux, judged against nm.

CHECK-JSON is `recordmcount --check --format=json vmlinux`, DUMP-JSON
`recordmcount --dump --format=json vmlinux` (the table's addresses),
NM-S `nm -S vmlinux`.  Before --finalize, the only problems a correct
kernel table may have are "stale" entries: sites of __weak bodies that
another object overrode, whose code the linker keeps but whose symbol
it drops.  Which entries those are is decided here independently: an
entry that lies inside no function symbol's [value, value + size) in
nm's list.  Prints the figures and "stale=N"; exits 1 if --check found
another class of problem or another set of stale entries.
"""
import json
import sys


def functions(nm_path, mask):
    spans = []
    with open(nm_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tTwW":
                start, size = int(parts[0], 16) & mask, int(parts[1], 16)
                if size:
                    spans.append((start, start + size))
    spans.sort()
    return spans


def inside(spans, addr):
    lo, hi = 0, len(spans)
    while lo < hi:                      # last span starting at or before addr
        mid = (lo + hi) // 2
        if spans[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    # Spans may nest or overlap (aliases): look back a little.
    for s, e in reversed(spans[max(0, lo - 8):lo]):
        if s <= addr < e:
            return True
    return False


def main():
    check = json.load(open(sys.argv[1]))
    dump = json.load(open(sys.argv[2]))
    # nm prints a 32-bit MIPS image's addresses sign-extended to 64 bits
    # (ffffffff80100000): where the table's addresses are 32-bit, so are
    # nm's.
    wide = any(e["address"] >= 1 << 32 for e in dump["entries"])
    spans = functions(sys.argv[3], (1 << (64 if wide else 32)) - 1)
    want = {e["index"] for e in dump["entries"]
            if e["address"] and not inside(spans, e["address"])}
    classes = {}
    got = set()
    for p in check["problems"]:
        classes[p["class"]] = classes.get(p["class"], 0) + 1
        if p["class"] == "stale":
            got.add(p["entry"])
    print("gate: %d entries, --check problems %s; entries in no nm function: %d"
          % (check["entries"], classes or "{}", len(want)))
    ok = set(classes) <= {"stale"} and got == want
    if not ok:
        print("gate: stale by --check only: %s; by nm only: %s"
              % (sorted(got - want)[:10], sorted(want - got)[:10]))
    print("stale=%d" % len(got))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
