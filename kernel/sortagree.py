#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""kernel/sortagree.py RAW-DUMP OURS-DUMP KERNEL-DUMP [NM-LIST] - does our
--finalize zero the same __mcount_loc entries as the kernel's
scripts/sorttable?

Each DUMP is `recordmcount --dump --format=json` of one vmlinux: the
linker's (RAW, before either tool), RAW after our --finalize (OURS), and
RAW after the kernel's own scripts/sorttable (KERNEL, as link-vmlinux.sh
leaves it; 6.12's sorttable zeroes every entry that lies in no function
of `nm -S`, the overridden __weak bodies).  An entry is zeroed by a tool
when its address is in RAW's table and no longer in the tool's (counted
as a multiset: a site may be recorded twice).  Prints the figures and
exits 1 unless both tools zeroed the same entries, left the same table
word for word (both sort it), and neither zeroed an address the other
kept.

NM-LIST is the `nm -S` list sorttable itself read (link-vmlinux.sh's
.tmp_vmlinux.nm-sort, kept by build.sh).  With it, one known flaw of
6.12's sorttable is named instead of failed on, entry by entry: its list
takes every t/T/W line, and llvm-nm (LLVM=1) prints the sizeless marker
symbols (__lock_text_start, ...) with size 0 where GNU nm prints no
size (and sorttable skips the line).  Its binary search over functions
sorted by address alone then meets such a zero-size symbol at a
function's address, takes it for a function that ends before the
entry, and may step past the function that holds it: the entry of a
live function is zeroed.  An entry zeroed by sorttable only is taken
for that flaw, and printed on a line of its own, only if it lies in a
function of NM-LIST with a size and a zero-size function symbol of
NM-LIST lies between that function's start and the entry; the tables
must then be the same once ours has those entries zeroed too.

A second flaw, with GNU nm too: sorttable reads the list with
fscanf("%16s %16s %c %*s\n"), and a line without a size whose name is
one character (x86's absolute symbol `i`, "00000020 a i") leaves the
name for %c and lets %*s swallow the next line's address: that line is
read as garbage and its function is lost from the list, so its entries
are zeroed (6.12's i386 build: i386_reserve_resources).  An entry
zeroed by sorttable only is taken for that flaw, on a line of its own,
only if it lies in a function of NM-LIST whose line sorttable's parse,
done here as fscanf does it, never read as a record of its own, and
the line before it is such a sizeless one-character line.
"""
import bisect
import collections
import json
import sys

FUNCTION_TYPES = ("t", "T", "W")


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


def read_functions(path):
    """The function symbols of an `nm -S` list as sorttable reads it
    (address, size, type, name): (sized, sorted by address; zero-size,
    sorted by address)."""
    sized, empty = [], []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 4 or fields[2] not in FUNCTION_TYPES:
                continue
            addr, size = int(fields[0], 16), int(fields[1], 16)
            (sized if size else empty).append((addr, size, fields[3]))
    sized.sort()
    empty.sort()
    return sized, empty


def hex_prefix(word):
    """strtoull(word, NULL, 16) for nm's words: the leading hex digits."""
    digits = len(word) - len(word.lstrip("0123456789abcdefABCDEF"))
    return int(word[:digits], 16) if digits else 0


def sorttable_records(text):
    """{line number (0-based): (address, size, type)} for each record
    sorttable's fscanf("%16s %16s %c %*s\\n") loop reads whole, by the
    line where it starts: what it read, which need not be that line's."""
    pos, n, records = 0, len(text), {}

    def skip():
        nonlocal pos
        while pos < n and text[pos].isspace():
            pos += 1

    def word(width=None):
        nonlocal pos
        start = pos
        while pos < n and not text[pos].isspace() and \
                (width is None or pos - start < width):
            pos += 1
        return text[start:pos]

    while True:
        skip()
        line = text.count("\n", 0, pos)
        addr = word(16)
        skip()
        size = word(16)
        skip()
        if not addr or not size or pos >= n:
            return records
        kind = text[pos]
        pos += 1
        skip()
        word()
        records[line] = (hex_prefix(addr), hex_prefix(size), kind)


def lost_lines(path):
    """{(address, size): (name, the line before)} for each sized function
    line of an `nm -S` list that sorttable's parse loses after a
    sizeless line with a one-character name."""
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    records = sorttable_records(text)
    lost = {}
    for i, line in enumerate(lines):
        fields = line.split()
        if len(fields) < 4 or fields[2] not in FUNCTION_TYPES:
            continue
        addr, size = int(fields[0], 16), int(fields[1], 16)
        if records.get(i) == (addr, size, fields[2]):
            continue
        before = lines[i - 1].split() if i else []
        if len(before) == 3 and len(before[2]) == 1:
            lost[(addr, size)] = (fields[3], lines[i - 1])
    return lost


def lost_line_flaw(address, sized, lost):
    """A line naming ADDRESS as sorttable's lost-line miss, or None."""
    i = bisect.bisect_right(sized, (address, float("inf"))) - 1
    if i < 0 or address >= sized[i][0] + sized[i][1]:
        return None
    start, size, name = sized[i]
    if (start, size) not in lost:
        return None
    return (f"known sorttable flaw: {hex(address)} <{name}+{hex(address - start)}> "
            f"zeroed by sorttable only: its function's line in the nm list is lost "
            f"to sorttable's fscanf, which reads the sizeless one-character line "
            f"before it (\"{lost[(start, size)][1]}\") into this line's address")


def known_flaw(address, sized, empty):
    """A line naming ADDRESS as sorttable's zero-size-symbol miss, or None
    where the rule does not hold for it."""
    i = bisect.bisect_right(sized, (address, float("inf"))) - 1
    if i < 0 or address >= sized[i][0] + sized[i][1]:
        return None
    start, size, name = sized[i]
    lo = bisect.bisect_left(empty, (start, -1, ""))
    hi = bisect.bisect_right(empty, (address, float("inf"), ""))
    markers = [e[2] for e in empty[lo:hi]]
    if not markers:
        return None
    return (f"known sorttable flaw: {hex(address)} <{name}+{hex(address - start)}> "
            f"zeroed by sorttable only: a function of size {hex(size)} in its nm list, "
            f"at the address of size-0 symbols of that list "
            f"({' '.join(markers[:3])}{' ...' if len(markers) > 3 else ''})")


def explain(only_kernel, nm_path):
    """(lines naming each entry the known flaw explains, the Counter of
    those explained)."""
    if not nm_path or not only_kernel:
        return [], collections.Counter()
    sized, empty = read_functions(nm_path)
    lost = lost_lines(nm_path)
    lines, explained = [], collections.Counter()
    for address, count in sorted(only_kernel.items()):
        line = known_flaw(address, sized, empty) or \
            lost_line_flaw(address, sized, lost)
        if line:
            lines.append(line)
            explained[address] = count
    return lines, explained


def main(raw_path, ours_path, kernel_path, nm_path=None):
    raw, ours, kernel = (addresses(p) for p in (raw_path, ours_path, kernel_path))
    by_ours, by_kernel = zeroed(raw, ours), zeroed(raw, kernel)
    only_ours, only_kernel = by_ours - by_kernel, by_kernel - by_ours
    flaw_lines, explained = explain(only_kernel, nm_path)
    unexplained = only_kernel - explained
    print(f"entries={len(raw)} zeroed: sorttable={sum(by_kernel.values())} "
          f"ours={sum(by_ours.values())} both={sum((by_ours & by_kernel).values())}")
    print(f"zeroed by ours only: {show(only_ours)}")
    print(f"zeroed by sorttable only: {show(only_kernel)}")
    for line in flaw_lines:
        print(line)
    print(f"zeroed by sorttable only, unexplained: {show(unexplained)}")
    # Ours with the explained entries zeroed too, sorted as both sort.
    pending = collections.Counter(explained)
    adjusted = []
    for a in ours:
        if pending[a] > 0:
            pending[a] -= 1
            a = 0
        adjusted.append(a)
    adjusted.sort()
    same_words = adjusted == kernel
    label = "same" if same_words else "different"
    print(f"tables word for word{' (ours with the known flaw applied)' if explained else ''}: {label}")
    if not same_words and len(adjusted) == len(kernel):
        first = next(i for i, (a, b) in enumerate(zip(adjusted, kernel)) if a != b)
        print(f"first difference: entry {first}: ours {hex(adjusted[first])}, "
              f"sorttable {hex(kernel[first])}")
    return 0 if same_words and not only_ours and not unexplained else 1


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.splitlines()[0])
    sys.exit(main(*sys.argv[1:]))
