#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""kernel/sortagree.py RAW-DUMP OURS-DUMP KERNEL-DUMP - does our --finalize
zero the same __mcount_loc entries as the kernel's scripts/sorttable?

Each argument is `recordmcount --dump --format=json` of one vmlinux: the
linker's (RAW, before either tool), RAW after our --finalize (OURS), and
RAW after the kernel's own scripts/sorttable (KERNEL, as link-vmlinux.sh
leaves it; 6.12's sorttable zeroes every entry that lies in no function
of `nm -S`, the overridden __weak bodies).  An entry is zeroed by a tool
when its address is in RAW's table and no longer in the tool's (counted
as a multiset: a site may be recorded twice).  Prints the figures and
exits 1 unless both tools zeroed the same entries, left the same table
word for word (both sort it), and neither zeroed an address the other
kept.
"""
import collections
import json
import sys


def addresses(path):
    with open(path) as f:
        return [e["address"] or 0 for e in json.load(f)["entries"]]


def zeroed(raw, done):
    """The addresses of RAW that DONE no longer holds, as a Counter."""
    left = collections.Counter(a for a in raw if a)
    left.subtract(a for a in done if a)
    return collections.Counter({a: n for a, n in left.items() if n > 0})


def show(counter, limit=5):
    items = sorted(counter.elements())
    text = " ".join(hex(a) for a in items[:limit])
    return text + (" ..." if len(items) > limit else "") if items else "none"


def main(raw_path, ours_path, kernel_path):
    raw, ours, kernel = (addresses(p) for p in (raw_path, ours_path, kernel_path))
    by_ours, by_kernel = zeroed(raw, ours), zeroed(raw, kernel)
    only_ours, only_kernel = by_ours - by_kernel, by_kernel - by_ours
    print(f"entries={len(raw)} zeroed: sorttable={sum(by_kernel.values())} "
          f"ours={sum(by_ours.values())} both={sum((by_ours & by_kernel).values())}")
    print(f"zeroed by ours only: {show(only_ours)}")
    print(f"zeroed by sorttable only: {show(only_kernel)}")
    same_words = ours == kernel
    print(f"tables word for word: {'same' if same_words else 'different'}")
    if not same_words and len(ours) == len(kernel):
        first = next(i for i, (a, b) in enumerate(zip(ours, kernel)) if a != b)
        print(f"first difference: entry {first}: ours {hex(ours[first])}, "
              f"sorttable {hex(kernel[first])}")
    return 0 if same_words and not only_ours and not only_kernel else 1


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.splitlines()[0])
    sys.exit(main(*sys.argv[1:]))
