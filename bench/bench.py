#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench.py - time recordmcount programs over corpora of raw kernel
objects (captured by kernel/build.sh) and print a Markdown table.

    bench.py --ours TOOL --kernel KTOOL --rounds N --work DIR \\
             NAME=CAPTURE_DIR...

Every measured run works on a fresh copy of the corpus (copied and
synced to disk before the clock starts).  Each row is one command line run under GNU time:
  wall   perf_counter around the run; the median of the rounds
  RSS    GNU time's %M: the largest resident set of any process of the
         run (xargs reports its children's through wait4)
  write  wchar of /proc/self/io over the run: bytes the run's processes
         passed to write(2) and friends, summed over reaped children
Objects the kernel's tool fails on are left out of the corpus, so both
tools do the same work; they are listed."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def wchar():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def objects(capture):
    out = []
    for root, _, files in os.walk(capture):
        out += [os.path.relpath(os.path.join(root, f), capture)
                for f in files if f.endswith(".o")]
    return sorted(out)


def kernel_tool_failures(ktool, capture, objs, work):
    """Objects the kernel's recordmcount fails on (checked on copies)."""
    bad = []
    scratch = os.path.join(work, "probe.o")
    for rel in objs:
        shutil.copyfile(os.path.join(capture, rel), scratch)
        if subprocess.run([ktool, scratch], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode:
            bad.append(rel)
    return bad


def fresh_copy(capture, objs, dest):
    shutil.rmtree(dest, ignore_errors=True)
    for rel in objs:
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copyfile(os.path.join(capture, rel), os.path.join(dest, rel))


def rows(ours, ktool, jobs, listing, tree):
    """(name, process model, argv run in the copy of the corpus)."""
    per = ["xargs", "-n1", "-a", listing]
    one = ["xargs", "-a", listing]
    return [
        ("cp, one process per object", "per",
         ["xargs", "-a", listing, "-I{}", "cp", "{}", "{}.copy"]),
        ("cp -r, one process", "one", ["cp", "-r", tree, tree + ".copy"]),
        ("kernel recordmcount, one process per object", "per", per + [ktool]),
        ("kernel recordmcount, one process", "one", one + [ktool]),
        ("ours, one process per object", "per", per + [ours]),
        ("ours, one process, -j1", "one", one + [ours, "-j1"]),
        ("ours, one process, -j%d" % jobs, "one", one + [ours, "-j%d" % jobs]),
    ]


def measure(argv, cwd, work):
    rss_file = os.path.join(work, "rss")
    before = wchar()
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                       cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    written = wchar() - before
    if p.returncode:
        sys.exit("bench: %s failed: %s" % (" ".join(argv), p.stderr[-500:]))
    with open(rss_file) as f:
        rss = int(f.read().split()[-1])
    return wall, rss, written


def bench_corpus(name, capture, args):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    objs = objects(capture)
    failed = kernel_tool_failures(args.kernel, capture, objs, work)
    objs = [o for o in objs if o not in failed]
    size = sum(os.path.getsize(os.path.join(capture, o)) for o in objs)
    tree = os.path.join(work, "tree")
    listing = os.path.join(work, "objects.txt")
    with open(listing, "w") as f:
        f.write("".join(o + "\n" for o in objs))
    table = rows(args.ours, args.kernel, args.jobs, listing, tree)
    samples = {r[0]: [] for r in table}
    for _ in range(args.rounds):
        for rname, _, argv in table:
            fresh_copy(capture, objs, tree)
            shutil.rmtree(tree + ".copy", ignore_errors=True)
            os.sync()  # no writeback of the copy during the run
            samples[rname].append(measure(argv, tree, work))
    return objs, failed, size, table, samples


def print_table(name, objs, failed, size, table, samples, rounds):
    med = {r: statistics.median(s[0] for s in v) for r, v in samples.items()}
    kernel = med["kernel recordmcount, one process per object"]
    cp = {"per": med["cp, one process per object"],
          "one": med["cp -r, one process"]}
    print("\n### Corpus `%s`: %d objects, %.1f MiB, %d rounds\n"
          % (name, len(objs), size / 2**20, rounds))
    if failed:
        print("Left out (the kernel's tool fails on them): %s\n"
              % ", ".join(failed))
    print("| command | wall median (s) | min–max (s) | × kernel tool "
          "| × cp | peak RSS (KiB) | written (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for rname, model, _ in table:
        walls = [s[0] for s in samples[rname]]
        rss = max(s[1] for s in samples[rname])
        written = statistics.median(s[2] for s in samples[rname])
        print("| %s | %.3f | %.3f–%.3f | %.2f | %.2f | %d | %.1f |"
              % (rname, med[rname], min(walls), max(walls),
                 med[rname] / kernel, med[rname] / cp[model], rss,
                 written / 2**20))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--work", required=True)
    ap.add_argument("corpora", nargs="+", metavar="NAME=DIR")
    args = ap.parse_args()
    if args.rounds < 3:
        sys.exit("bench: at least 3 rounds")
    for spec in args.corpora:
        name, capture = spec.split("=", 1)
        print_table(name, *bench_corpus(name, capture, args), args.rounds)


if __name__ == "__main__":
    main()
