#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""figures.py TABLE.json NM SYSTEM.map WORD MAX_OFFSET - what boot.sh
predicts of the boot from the vmlinux table, printed as shell
assignments for boot.sh to eval.

TABLE.json is "recordmcount --dump --format=json vmlinux", NM the
output of nm on vmlinux, WORD the size of a table entry, MAX_OFFSET
ftrace's FTRACE_MCOUNT_MAX_OFFSET on this architecture, or "" where the
architecture defines none (see kernel/README.md).

  table_dump     entries of the table, from the dump
  table_syms     (__stop_mcount_loc - __start_mcount_loc) / WORD, from nm
  table_init     entries in .init.text (ftrace drops them after boot)
  table_cleared  entries --finalize zeroed (ftrace skips them)
  table_unnamed  entries outside .init.text in no function the dump can
                 name: bodies of __weak functions another object
                 overrode, whose code the linker keeps without a symbol
  pred_invalid   lines of available_filter_functions that will read
                 "__ftrace_invalid_address___N"
  pred_repeated  lines of available_filter_functions equal to the line
                 before

For the last two, each site outside .init.text is named as kallsyms
would: after the closest symbol of System.map (the symbols kallsyms
holds) at or below it, at some offset.  Where the architecture defines
MAX_OFFSET, ftrace names a site past that offset
"__ftrace_invalid_address___<offset>" and disables it; elsewhere the
site keeps the name of the function before it."""
import bisect
import json
import sys


def text_symbols(system_map, mask):
    """Sorted (address, name) of the text symbols of System.map."""
    out = []
    for line in open(system_map):
        f = line.split()
        if len(f) == 3 and f[1] in "tTW":
            out.append((int(f[0], 16) & mask, f[2]))
    return sorted(out)


def kallsyms_names(addresses, syms, max_offset):
    """The name available_filter_functions shows for each address."""
    starts = [a for a, _ in syms]
    names = []
    for addr in addresses:
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            names.append("__ftrace_invalid_address___%d" % addr)
            continue
        start, name = syms[i]
        if max_offset is not None and addr - start > max_offset:
            name = "__ftrace_invalid_address___%d" % (addr - start)
        names.append(name)
    return names


def main(table_json, nm_out, system_map, word, max_offset):
    entries = json.load(open(table_json))["entries"]
    # Entries --finalize zeroed: ftrace skips them (no record at all).
    cleared = sum(1 for e in entries if e["address"] == 0)
    kept = [e for e in entries
            if e["address"] != 0 and e.get("section") != ".init.text"]
    unnamed = sum(1 for e in kept if e.get("function") is None)
    # nm (and System.map, its output) sign-extends a 32-bit MIPS image's
    # addresses to 64 bits: an address is WORD bytes wide.
    mask = (1 << (8 * int(word))) - 1
    syms = {}
    for line in open(nm_out):
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16) & mask
    span = syms.get("__stop_mcount_loc", 0) - syms.get("__start_mcount_loc", 0)
    names = kallsyms_names(sorted(e["address"] for e in kept),
                           text_symbols(system_map, mask),
                           int(max_offset) if max_offset else None)
    invalid = sum(1 for n in names if n.startswith("__ftrace_invalid_address__"))
    repeated = sum(1 for a, b in zip(names, names[1:]) if a == b)
    init = sum(1 for e in entries
               if e["address"] != 0 and e.get("section") == ".init.text")
    print("table_dump=%d table_syms=%d table_init=%d table_cleared=%d "
          "table_unnamed=%d pred_invalid=%d pred_repeated=%d"
          % (len(entries), span // int(word), init, cleared,
             unnamed, invalid, repeated))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
