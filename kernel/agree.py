#!/usr/bin/env python3
"""agree.py OURS KERNEL_TOOL CAPTURE_DIR WORK_DIR [SHIFT] - run both recordmcount
programs over every captured raw object (each on its own fresh copy) and
compare what their tables name: the SET of (section, offset) sites,
read back with elfsites.py.  Also compares the bytes of every code and
data section afterwards, which covers the calls both tools turn into
NOPs (x86: hook calls in sections ftrace does not trace).

Prints each disagreement with what differs, then the files the kernel's
tool failed on (not disagreements: its known limits, e.g. a section
left with weak symbols only), and a closing summary line.  Exits 1 when
there is a disagreement or our tool failed on a file."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elfsites  # noqa: E402


def run(tool, path):
    p = subprocess.run([tool, path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def captured_objects(capture):
    for root, _, files in os.walk(capture):
        for f in files:
            if f.endswith(".o"):
                yield os.path.relpath(os.path.join(root, f), capture)


def compare_bytes(ours, theirs):
    """Names of sections whose bytes the two tools left different."""
    a, b = elfsites.section_bytes(ours), elfsites.section_bytes(theirs)
    return sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))


def show_sites(sites, limit=6):
    text = ", ".join("%s+0x%x" % s for s in sorted(sites)[:limit])
    return text + (", ..." if len(sites) > limit else "")


def shifted(sites, by):
    return {(sec, off + by) for sec, off in sites}


def main(ours, kernel_tool, capture, work, shift="0"):
    # SHIFT (bytes, lib.sh's KERNEL_TOOL_SHIFT): where the kernel's tool
    # puts every entry that many bytes before the site for a known
    # reason (s390x: its fixed -14 adjustment, made for the old -pg
    # block, on -mfentry calls), an object whose kernel table moved by
    # SHIFT names exactly our sites, with the same bytes, is counted
    # apart as "shifted", not as agreeing.
    shift = int(shift)
    shifted_objs = 0
    os.makedirs(work, exist_ok=True)
    objs = sorted(captured_objects(capture))
    agreed = disagreed = kernel_failed = ours_failed = 0
    sites_total = 0
    kernel_failures, problems = [], []
    for rel in objs:
        raw_path = os.path.join(capture, rel)
        k_path, o_path = os.path.join(work, "k.o"), os.path.join(work, "o.o")
        shutil.copyfile(raw_path, k_path)
        shutil.copyfile(raw_path, o_path)
        k_rc, k_out = run(kernel_tool, k_path)
        o_rc, o_out = run(ours, o_path)
        with open(o_path, "rb") as f:
            o_data = f.read()
        o_sites = set(elfsites.table_sites(o_data)) if o_rc == 0 else set()
        if o_rc != 0:
            ours_failed += 1
            problems.append("%s: our tool failed: %s" % (rel, o_out))
            continue
        if k_rc != 0:
            kernel_failed += 1
            kernel_failures.append("%s: kernel tool: %s; ours: %d sites" %
                                   (rel, k_out.replace("\n", " / "),
                                    len(o_sites)))
            sites_total += len(o_sites)
            continue
        with open(k_path, "rb") as f:
            k_data = f.read()
        k_sites = set(elfsites.table_sites(k_data))
        sites_total += len(o_sites)
        why = []
        if k_sites - o_sites:
            why.append("only the kernel's table names %s" %
                       show_sites(k_sites - o_sites))
        if o_sites - k_sites:
            why.append("only our table names %s" %
                       show_sites(o_sites - k_sites))
        diff = compare_bytes(o_data, k_data)
        if diff:
            why.append("section bytes differ in %s" % ", ".join(diff))
        if (why and shift and not diff and k_sites != o_sites and
                shifted(k_sites, shift) == o_sites):
            shifted_objs += 1
        elif why:
            disagreed += 1
            problems.append("%s: %s" % (rel, "; ".join(why)))
        else:
            agreed += 1
    print("agreement: %d objects, %d sites in our tables" %
          (len(objs), sites_total))
    for p in problems:
        print("  DISAGREE " + p)
    print("kernel tool failures (listed apart, not disagreements): %d" %
          kernel_failed)
    for k in kernel_failures:
        print("  " + k)
    if shift:
        print("kernel tool entries %d bytes before each of our sites, "
              "bytes equal (the known shift, not disagreements): %d objects"
              % (shift, shifted_objs))
    print("agreement: %d agree, %d disagree, %d kernel-tool failures, "
          "%d failures of ours" % (agreed, disagreed, kernel_failed,
                                    ours_failed))
    return 1 if disagreed or ours_failed or not objs else 0


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
