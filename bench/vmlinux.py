#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/vmlinux.py OURS KERNEL-TOOL VMLINUX.O WORK-DIR - a real
vmlinux.o recorded whole by both tools (issue 30, item 4).

VMLINUX.O is the `ld -r` of every object of a kernel build (Kbuild's
vmlinux.o), whose tables were written object by object.  Its
__mcount_loc and .rela__mcount_loc are taken out (`objcopy -R`), which
leaves the hook calls and their relocations as they are: the object
LTO- and objtool-style builds record whole, one big .text and the
kernel's other code sections.  Both tools then record cold copies of
it (bench/scale.py's: just written, never mapped by a run).

Prints the tables compared (the set of (section, offset) each names,
read back with kernel/elfsites.py, and the bytes of every code and data
section), then per tool: callgrind's instruction count (one run;
steady on a shared machine), and over BENCH_VMLINUX_ROUNDS runs
(default 11) the median wall, user and system seconds, minor faults and
the largest peak MB; ours / kernel for each; and the load beside them.

Entries only the kernel's tool writes are listed with the reason when
ours reported the same place as "not a call" (the kernel's x86 code
takes any relocation against __fentry__ for a call: ftrace's own
`cmp $__fentry__, %rdx`); any other difference fails the row (exit 1).
"""

import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "kernel"))
import costs  # noqa: E402
import elfsites  # noqa: E402
import scale  # noqa: E402

# "SECTION+0xOFF: reference to SYM (TYPE) is not a call": a site ours
# refused, at the relocation's offset
NOT_A_CALL = re.compile(r"(\S+)\+0x([0-9a-f]+): reference to \S+ "
                        r"\(\S+\) is not a call")


def record(tool, src, work):
    """(exit status, stderr, file bytes) of one run on a cold copy."""
    scale.cold_copy(src, work)
    p = subprocess.run([tool, work], capture_output=True, text=True)
    with open(work, "rb") as f:
        return p.returncode, p.stderr, f.read()


def cost(tool, src, work, rounds):
    """Instructions, and medians of wall, user, system, faults; peak MB."""
    counts, secs, mbs = {}, [], []
    for _ in range(rounds):
        scale.cold_copy(src, work)
        s, mb, rc = scale.timed([tool, work], 3600, counts)
        if rc != 0:
            sys.exit("vmlinux: %s exited %d" % (tool, rc))
        secs.append(s)
        mbs.append(mb)
    med = statistics.median
    return {"instructions": costs.instructions(tool, src, work),
            "wall": med(secs), "user": med(counts["user"]),
            "sys": med(counts["sys"]), "faults": med(counts["faults"]),
            "MB": max(mbs)}


def compare(ours_out, ours_err, kernel_out):
    """Lines saying how the two tables and the code compare, and
    whether they agree (differences explained by a refusal of ours
    allowed)."""
    o = set(elfsites.table_sites(ours_out))
    k = set(elfsites.table_sites(kernel_out))
    refused = {(sec, int(off, 16) - 1)
               for sec, off in NOT_A_CALL.findall(ours_err)}
    lines = ["- entries: ours %d, the kernel tool's %d, in both %d"
             % (len(o), len(k), len(o & k))]
    ok = not (o - k)
    if o - k:
        lines.append("- **only ours**: %s" % sorted(o - k)[:8])
    for sec, off in sorted(k - o):
        why = ("ours: \"not a call\" (a reference to the hook that is no "
               "call, which the kernel's tool records)"
               if (sec, off) in refused else "**unexplained**")
        ok = ok and (sec, off) in refused
        lines.append("- only the kernel tool's: %s+0x%x: %s" % (sec, off, why))
    a, b = elfsites.section_bytes(ours_out), elfsites.section_bytes(kernel_out)
    differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
    lines.append("- code and data sections: %s"
                 % ("the same bytes" if not differ
                    else "differ in " + ", ".join(differ)))
    return lines, ok and not differ


def describe(src):
    out = subprocess.run(["readelf", "-SW", src], capture_output=True,
                         text=True, check=True).stdout
    text = sections = 0
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 7 and f[0].startswith("[") and f[0] != "[Nr]":
            sections += 1
            if f[1] == ".text":
                text = int(f[5], 16)
    return sections, text


def main():
    ours, kernel, vmlinux, work_dir = sys.argv[1:5]
    rounds = int(os.environ.get("BENCH_VMLINUX_ROUNDS", "11"))
    os.makedirs(work_dir, exist_ok=True)
    src = os.path.join(work_dir, "vmlinux-untabled.o")
    work = os.path.join(work_dir, "work.o")
    subprocess.run(["objcopy", "-R", "__mcount_loc", "-R",
                    ".rela__mcount_loc", vmlinux, src], check=True)
    n_sec, text = describe(src)
    print("- input: %s without its table: %.1f MB, %d sections, .text "
          "%.2f MB" % (vmlinux, os.path.getsize(src) / 1e6, n_sec, text / 1e6))
    o_rc, o_err, o_out = record(ours, src, work)
    k_rc, k_err, k_out = record(kernel, src, work)
    if o_rc or k_rc:
        sys.exit("vmlinux: exit status ours %d, kernel %d: %s %s"
                 % (o_rc, k_rc, o_err.strip(), k_err.strip()))
    lines, agree = compare(o_out, o_err, k_out)
    print("\n".join(lines))
    load_before = scale.load()
    o = cost(ours, src, work, rounds)
    k = cost(kernel, src, work, rounds)
    print("\n| tool | instructions | wall s | user s | sys s | faults "
          "| peak MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, c in (("ours", o), ("kernel", k)):
        print("| %s | %s | %.4f | %.3f | %.3f | %d | %.1f |"
              % (name, "{:,}".format(c["instructions"] or 0), c["wall"],
                 c["user"], c["sys"], c["faults"], c["MB"]))
    ratio = {key: (o[key] / k[key] if k[key] else float("nan"))
             for key in ("instructions", "wall", "faults", "MB")}
    print("| ours / kernel | %.2f | %.2f | | | %.2f | %.2f |"
          % (ratio["instructions"], ratio["wall"], ratio["faults"],
             ratio["MB"]))
    print("\n- %d rounds, medians (peak: the largest); load %.2f to %.2f"
          % (rounds, load_before, scale.load()))
    print("%s: vmlinux.o tables %s" % ("PASS" if agree else "FAIL",
                                       "agree" if agree else "differ"))
    sys.exit(0 if agree else 1)


if __name__ == "__main__":
    main()
