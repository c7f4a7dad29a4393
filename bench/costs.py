#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""costs.py OURS KERNEL-TOOL CAPTURE [DEBUG-CAPTURE] - per-object costs
that wall time over a whole corpus does not show (part of bench.sh):

  instructions  callgrind's count of every instruction of the process,
                ours against the kernel tool's, over BENCH_SAMPLE
                objects of CAPTURE (default 32, spread evenly over the
                sorted list): steady on a shared machine where wall time
                is not.
  -g            with DEBUG-CAPTURE (the same kernel folders built with
                -g), the objects present in both: wall time per object
                (BENCH_DEBUG_ROUNDS rounds, default 15, the two builds
                alternating, the median per object) and instructions,
                with -g against without.  Reported as the ratio of the
                totals and the median and 90th percentile of the ratios
                per object.

Every run works on a fresh copy in a scratch folder (/dev/shm when there
is one).  Objects the kernel's tool fails on are left out of the
instruction comparison (both tools must do the same work).
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def objects(capture):
    return sorted(os.path.relpath(os.path.join(root, f), capture)
                  for root, _, files in os.walk(capture)
                  for f in files if f.endswith(".o"))


def instructions(tool, src, scratch):
    """callgrind's instruction count of `tool` on a copy of src, or None
    when the tool fails on it."""
    shutil.copyfile(src, scratch)
    p = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=/dev/null", tool, scratch],
                       capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        return None
    return int(m.group(1))


def wall(tool, src, scratch):
    shutil.copyfile(src, scratch)
    start = time.perf_counter()
    subprocess.run([tool, scratch], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def summary(pairs):
    """Totals' ratio, median and 90th percentile of (a, b) -> b / a."""
    ratios = sorted(b / a for a, b in pairs)
    total = sum(b for _, b in pairs) / sum(a for a, _ in pairs)
    return total, statistics.median(ratios), ratios[int(0.9 * len(ratios))]


def against_kernel(ours, kernel, capture, scratch, sample):
    objs = objects(capture)
    step = max(1, len(objs) // sample)
    pairs, left_out = [], []
    for rel in objs[::step][:sample]:
        k = instructions(kernel, os.path.join(capture, rel), scratch)
        o = instructions(ours, os.path.join(capture, rel), scratch)
        if k is None:
            left_out.append(rel)
        elif o is not None:
            pairs.append((k, o))
    total, median, p90 = summary(pairs)
    print("### Instructions per object against the kernel tool\n")
    print("%d objects of the %s capture (every %dth), callgrind, fresh "
          "copies%s.\n"
          % (len(pairs), os.path.basename(os.path.dirname(capture)), step,
             "; left out (the kernel's tool fails): " + ", ".join(left_out)
             if left_out else ""))
    print("| kernel tool | ours | ours / kernel (total) | median per object "
          "| 90th percentile |")
    print("|---:|---:|---:|---:|---:|")
    print("| %d | %d | %.3f | %.3f | %.3f |\n"
          % (sum(k for k, _ in pairs), sum(o for _, o in pairs), total,
             median, p90))


def debug_against_plain(ours, capture, debug, scratch, rounds):
    objs = [rel for rel in objects(debug)
            if os.path.exists(os.path.join(capture, rel))]
    times = {rel: ([], []) for rel in objs}
    for _ in range(rounds):
        for rel in objs:
            for k, top in enumerate((capture, debug)):
                times[rel][k].append(wall(ours, os.path.join(top, rel),
                                          scratch))
    walls = [(statistics.median(p), statistics.median(g))
             for p, g in times.values()]
    counts = [(instructions(ours, os.path.join(capture, rel), scratch),
               instructions(ours, os.path.join(debug, rel), scratch))
              for rel in objs]
    print("### The -g objects against the same objects without -g\n")
    print("%d objects in both captures; wall: %d rounds, alternating, the "
          "median per object.\n" % (len(objs), rounds))
    print("| measure | without -g | with -g | total ratio | median ratio "
          "| 90th percentile |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, pairs, fmt in (("wall time (s)", walls, "%.3f"),
                             ("instructions", counts, "%d")):
        total, median, p90 = summary(pairs)
        print(("| %s | " + fmt + " | " + fmt + " | %.3f | %.3f | %.3f |")
              % (name, sum(a for a, _ in pairs), sum(b for _, b in pairs),
                 total, median, p90))
    print()


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.splitlines()[0])
    ours, kernel, capture = sys.argv[1:4]
    debug = sys.argv[4] if len(sys.argv) == 5 else None
    sample = int(os.environ.get("BENCH_SAMPLE", "32"))
    rounds = int(os.environ.get("BENCH_DEBUG_ROUNDS", "15"))
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        scratch = os.path.join(tmp, "w.o")
        against_kernel(ours, kernel, capture, scratch, sample)
        if debug:
            debug_against_plain(ours, capture, debug, scratch, rounds)


if __name__ == "__main__":
    main()
