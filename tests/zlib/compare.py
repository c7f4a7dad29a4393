#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""compare.py - the zlib suite's oracles (tests/zlib/run.sh).

  compare.py counts GOT_DIR WANT_DIR RUN OBJECT...
      calls per function that count.c wrote in GOT_DIR/RUN/count.* (the
      libmcount callback's) equal those in WANT_DIR/RUN/count.* (the
      -finstrument-functions build's), summed over the run's processes,
      for the functions of each OBJECT (a file in GOT_DIR and in
      WANT_DIR, named through its own nm)
  compare.py trace GOT_RAW GOT_DIR WANT_DIR RUN OBJECT...
      the same with the calls of `mctrace dump --raw` output (its exit
      events, summed over the files given as GOT_RAW, a list separated by
      commas) in place of the callback's
  compare.py sites DIR RUN ENABLED_OBJECTS OBJECT...
      every hook call `objdump -d` shows in each OBJECT of DIR is a site
      that every process of the run reported (DIR/RUN/sites.*), and no
      other; the sites of the objects in ENABLED_OBJECTS (comma list) are
      all enabled, the others' all NOPs
Prints one line of figures; exit 1 with the reason when it does not hold.
"""
import bisect
import collections
import glob
import os
import re
import subprocess
import sys


def fail(why):
    print(why)
    sys.exit(1)


def symbols(path):
    """offset -> function name, from nm (global names first)."""
    out = subprocess.run([NM, "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    names = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in "tTWi":
            continue
        off = int(parts[0], 16)
        # a clone (f.constprop.0) counts as f: the other build may
        # have cloned differently
        name = CLONE.sub("", parts[2])
        if off not in names or parts[1] in "TW":
            names[off] = name
    return names


def counted(build, run, objects):
    """(object, function) -> calls, from count.c's files of one run."""
    files = glob.glob(os.path.join(build, run, "count.*"))
    if not files:
        fail("no count files in %s/%s" % (build, run))
    names = {o: symbols(os.path.join(build, o)) for o in objects}
    calls = collections.Counter()
    for path in files:
        with open(path) as f:
            for line in f:
                obj, off, n = line.split()
                if obj == "overflow":
                    fail("%s: the count table overflowed" % path)
                if obj not in names:
                    continue
                off = int(off, 16)
                # a Thumb function's address has bit 0 set, its symbol not
                fn = names[obj].get(off, names[obj].get(off & ~1))
                if fn is None:
                    fail("%s: %s+%s is no function of nm's" % (path, obj, off))
                calls[(obj, fn)] += int(n)
    return calls


def compare(got, want, what):
    bad = ["%s:%s %s %d, -finstrument-functions %d" % (o, f, what,
           got[(o, f)], want[(o, f)])
           for o, f in sorted(set(got) | set(want))
           if got[(o, f)] != want[(o, f)]]
    if bad:
        fail("%d functions differ: %s" % (len(bad), "; ".join(bad[:8])))
    if len(want) < 10:
        fail("the oracle saw only %d functions called" % len(want))
    print("%d functions, %d calls, equal" % (len(want), sum(want.values())))


def hooked_functions(build, objects):
    """(object, function) of every function with a hook in the object."""
    funcs = set()
    for o in objects:
        path = os.path.join(build, o)
        starts = sorted(symbols(path).items())
        for h in hooks(path):
            i = bisect.bisect_right(starts, (h, "\uffff")) - 1
            if i >= 0:
                funcs.add((o, starts[i][1]))
    return funcs


def oracle(got_dir, want_dir, run, objects):
    """The oracle's counts of the functions the hooked build has.

    A function the compiler left out of the hooked build (an empty static
    one whose calls -pg let it drop, while -finstrument-functions' calls
    kept it) has no hook to count; named on the figures' line.
    """
    want = counted(want_dir, run, objects)
    have = hooked_functions(got_dir, objects)
    gone = sorted({f for o, f in want if (o, f) not in have})
    if gone:
        print("not in the hooked build: %s" % " ".join(gone))
    return collections.Counter({k: n for k, n in want.items() if k in have})


def cmd_counts(got_dir, want_dir, run, *objects):
    compare(counted(got_dir, run, objects),
            oracle(got_dir, want_dir, run, objects), "callbacks")


def cmd_trace(raws, got_dir, want_dir, run, *objects):
    """By name alone: a trace file is one process's, of any object."""
    want = collections.Counter()
    for (o, f), n in oracle(got_dir, want_dir, run, objects).items():
        want[("*", f)] += n
    ours = {f for o, f in hooked_functions(got_dir, objects)}
    got = collections.Counter()
    for raw in raws.split(","):
        with open(raw) as f:
            for line in f:
                tid, ts, kind, depth, name = line.split(None, 4)
                name = CLONE.sub("", name.strip().split(":")[-1])
                if kind == "E" and name in ours:
                    got[("*", name)] += 1
    compare(got, want, "recorded")


# The target's tools ($NM, $OBJDUMP: the cross binutils for another
# architecture).  A hook: a direct call (through the PLT) or, in a
# shared object linked with -z now or without a PLT, through the GOT
# ("call *x(%rip) # a <__fentry__@V>"); bl _mcount on aarch64, bl
# __gnu_mcount_nc on arm, jal _mcount on riscv64.
NM = os.environ.get("NM", "nm")
OBJDUMP = os.environ.get("OBJDUMP", "objdump")
HOOK = re.compile(r"^\s*([0-9a-f]+):.*\b(call|bl|jal)\b.*"
                  r"<(__fentry__|_?mcount|__gnu_mcount_nc)(@[\w.]+)?>")
CLONE = re.compile(r"(\.(constprop|isra|part|cold|localalias)(\.\d+)?)+$")


def hooks(path):
    out = subprocess.run([OBJDUMP, "-d", path], check=True,
                         capture_output=True, text=True).stdout
    return {int(m.group(1), 16) for m in map(HOOK.match, out.splitlines())
            if m}


def cmd_sites(build, run, enabled, *objects):
    enabled = set(enabled.split(",")) if enabled else set()
    files = glob.glob(os.path.join(build, run, "sites.*"))
    if not files:
        fail("no site files in %s/%s" % (build, run))
    want = {o: hooks(os.path.join(build, o)) for o in objects}
    total = 0
    for path in files:
        sites = collections.defaultdict(dict)
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                obj, off, state = line.split()
                sites[obj][int(off, 16)] = state
        for o in objects:
            if o not in sites:
                continue    # not in this process (example, minigzip)
            if set(sites[o]) != want[o]:
                fail("%s: %s's sites %d, objdump's hooks %d, %d differ" % (
                    path, o, len(sites[o]), len(want[o]),
                    len(set(sites[o]) ^ want[o])))
            state = "enabled" if o in enabled else "nop"
            wrong = [a for a, s in sites[o].items() if s != state]
            if wrong:
                fail("%s: %d of %s's sites not %s (%#x)" % (
                    path, len(wrong), o, state, wrong[0]))
            total += len(want[o])
    print("%d processes, %d sites checked" % (len(files), total))


def main():
    if len(sys.argv) < 4:
        fail(__doc__)
    cmd = {"counts": cmd_counts, "trace": cmd_trace,
           "sites": cmd_sites}[sys.argv[1]]
    cmd(*sys.argv[2:])


if __name__ == "__main__":
    main()
