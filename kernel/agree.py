#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""agree.py OURS KERNEL_TOOL CAPTURE_DIR WORK_DIR [SHIFT] - run both recordmcount
programs over every captured raw object (each on its own fresh copy) and
compare what their tables name: the SET of (section, offset) sites,
read back with elfsites.py.  Also compares the bytes of every code and
data section afterwards, which covers the calls both tools turn into
NOPs (x86: hook calls in sections ftrace does not trace).

KERNEL_TOOL "--compiler-pads" (riscv64, whose objects hold pads, not calls,
and for which the kernel's C tool has no support): the reference is
the compiler's own table of each raw object (GCC's or clang's),
__patchable_function_entries, which
our tool must have moved into __mcount_loc whole (the same sites, no
__patchable_function_entries left), with every code and data section's
bytes as in the raw object.

Prints each disagreement with what differs, then the files the kernel's
tool failed on (not disagreements: its known limits, e.g. a section
left with weak symbols only), and a closing summary line.  Exits 1 when
there is a disagreement or our tool failed on a file."""
import os
import shutil
import struct
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
    # elfsites reads addends as 64-bit words: an entry before its
    # section's start (the kernel tool's first site at offset 0) wraps.
    return {(sec, (off + by) % (1 << 64)) for sec, off in sites}


# The sections the kernel's recordmcount records
# (is_mcounted_section_name): .text*, and these.
TRACED = {".init.text", ".ref.text", ".sched.text", ".spinlock.text",
          ".irqentry.text", ".softirqentry.text", ".kprobes.text",
          ".cpuidle.text"}


def mips_carried_fakes(data):
    """The sites the kernel's tool drops from a MIPS object by a flaw of
    its own: MIPS_is_fake_mcount() (scripts/recordmcount.c) calls a
    hook relocation "fake" (the second half of a long call's lui/addiu
    pair) when it lies 4 bytes after the previous one, but keeps that
    previous offset in a static across sections and files' sections
    alike, so a section whose first hook is 4 bytes past the last hook
    of the section handled before it loses that first hook.  Replayed
    here over the relocation sections in header order, as the kernel's
    tool walks them; returns the {(section, offset)} it drops that way
    (a first relocation of its section only: a pair inside one section
    is the real long call)."""
    elf = elfsites.Elf(data)
    if elf.machine != elfsites.EM_MIPS:
        return set()
    dropped, old = set(), None
    for i, sec in enumerate(elf.sections):
        if sec["type"] not in (elfsites.SHT_REL, elfsites.SHT_RELA):
            continue
        target = sec["info"]
        name = elf.sections[target]["name"]
        if not name.startswith(".text") and name not in TRACED:
            continue            # its relocations never reach the filter
        first = True
        for off, sym, _ in elf.relocations(target):
            if sym >= len(elf.symbols) or \
                    elf.symbols[sym]["name"] != "_mcount":
                continue
            if old is not None and off - old == 4 and first:
                dropped.add((elf.sections[target]["name"], off))
            old, first = off, False
    return dropped


# clang's -pg long call (-mlong-calls, what Kbuild gives MIPS modules),
# clang 14 and 16: "lui at, %hi(_mcount); addiu t9, at, %lo(_mcount);
# jalr t9" (n64: "lui at, %highest; daddiu at, at, %higher; dsll at, at,
# 16; daddiu at, at, %hi; dsll at, at, 16; daddiu t9, at, %lo; jalr
# t9"), the delay slot the function's own next instruction.  GCC's
# "move at, ra" is missing (at, where 6.1's _mcount finds the caller's
# return address, holds %hi(_mcount)) and so is o32's "addiu sp, sp,
# -8" (_mcount pops 8 bytes): the live call returns with ra and sp
# wrong, and ftrace's disabling of the site, "b 1f" over a GCC long
# call's 4 or 5 words, would skip the function's own instructions.
MIPS_CLANG_LONG_CALLS = (
    (0x3C010000, 0x24390000, 0x0320F809),
    (0x3C010000, 0x64210000, 0x00010C38, 0x64210000, 0x00010C38,
     0x64390000, 0x0320F809))


def mips_clang_long_calls(data):
    """The {(section, offset)} of the _mcount relocations inside clang's
    long _mcount calls (above) in a MIPS object: those on the words of
    such a sequence (the immediates the relocations fill in: 0), from a
    relocation against _mcount on its lui on (the kernel's tool records
    one to three of them a call)."""
    elf = elfsites.Elf(data)
    if elf.machine != elfsites.EM_MIPS:
        return set()
    found = set()
    for sec in elf.sections:
        if sec["type"] not in (elfsites.SHT_REL, elfsites.SHT_RELA):
            continue
        target = elf.sections[sec["info"]]
        code = elf.contents(target)
        hooks = sorted(off for off, sym, _ in elf.relocations(sec["info"])
                       if sym < len(elf.symbols) and
                       elf.symbols[sym]["name"] == "_mcount")
        for off in hooks:
            for seq in MIPS_CLANG_LONG_CALLS:
                end = off + 4 * len(seq)
                if end <= len(code) and struct.unpack_from(
                        elf.end + "%dI" % len(seq), code, off) == seq:
                    found.update((target["name"], o) for o in hooks
                                 if off <= o < end)
    return found


def main(ours, kernel_tool, capture, work, shift="0"):
    # SHIFT (bytes, lib.sh's KERNEL_TOOL_SHIFT): where the kernel's tool
    # puts every entry that many bytes before the site for a known
    # reason (s390x: its fixed -14 adjustment, made for the old -pg
    # block, on -mfentry calls), an object whose kernel table moved by
    # SHIFT names exactly our sites, with the same bytes, is counted
    # apart as "shifted", not as agreeing.
    shift = int(shift)
    shifted_objs = 0
    carried = []        # objects with sites dropped by the MIPS flaw
    clang_long = []     # objects with clang's MIPS long calls (above)
    in_r_addend = []    # objects whose kernel table ld misreads (SH)
    os.makedirs(work, exist_ok=True)
    objs = sorted(captured_objects(capture))
    agreed = disagreed = kernel_failed = ours_failed = 0
    sites_total = pad_sites = 0
    kernel_failures, problems = [], []
    for rel in objs:
        raw_path = os.path.join(capture, rel)
        k_path, o_path = os.path.join(work, "k.o"), os.path.join(work, "o.o")
        shutil.copyfile(raw_path, k_path)
        shutil.copyfile(raw_path, o_path)
        if kernel_tool == "--compiler-pads":
            k_rc, k_out = 0, ""
        else:
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
        why = []
        if kernel_tool == "--compiler-pads":
            k_sites = set(elfsites.table_sites(k_data, elfsites.PADS_TABLE))
            left = elfsites.table_sites(o_data, elfsites.PADS_TABLE)
            if left:
                why.append("our copy still has %d entries in %s" %
                           (len(left), elfsites.PADS_TABLE))
            pad_sites += len(k_sites)
        else:
            k_sites = set(elfsites.table_sites(k_data))
        sites_total += len(o_sites)
        if k_sites - o_sites:
            ref = ("the compiler's table" if kernel_tool == "--compiler-pads"
                   else "the kernel's table")
            why.append("only %s names %s" %
                       (ref, show_sites(k_sites - o_sites)))
        if o_sites - k_sites:
            why.append("only our table names %s" %
                       show_sites(o_sites - k_sites))
        diff = compare_bytes(o_data, k_data)
        if diff:
            why.append("section bytes differ in %s" % ", ".join(diff))
        if (why and shift and not diff and k_sites != o_sites and
                shifted(k_sites, shift) == o_sites):
            shifted_objs += 1
        elif (why and not diff and k_sites != o_sites and
              set(elfsites.table_sites(k_data, with_r_addend=True)) ==
              o_sites):
            # SH: the kernel's tool put each addend in r_addend and 0 in
            # the word; GNU ld reads the word (R_SH_DIR32 is partial in
            # place), so its entries link to the anchor symbol, not the
            # site.  Read with r_addend, they name exactly our sites.
            in_r_addend.append(rel)
        elif (why and not diff and k_sites < o_sites and
              o_sites - k_sites == mips_carried_fakes(
                  open(raw_path, "rb").read())):
            carried.append("%s: only ours names %s" %
                           (rel, show_sites(o_sites - k_sites)))
        elif (why and not diff and o_sites < k_sites and
              k_sites - o_sites <= mips_clang_long_calls(
                  open(raw_path, "rb").read())):
            clang_long.append("%s: only the kernel's names %s" %
                              (rel, show_sites(k_sites - o_sites)))
        elif why:
            disagreed += 1
            problems.append("%s: %s" % (rel, "; ".join(why)))
        else:
            agreed += 1
    print("agreement: %d objects, %d sites in our tables" %
          (len(objs), sites_total))
    if kernel_tool == "--compiler-pads":
        print("reference: the compiler's %s of each raw object, %d pads" %
              (elfsites.PADS_TABLE, pad_sites))
    for p in problems:
        print("  DISAGREE " + p)
    print("kernel tool failures (listed apart, not disagreements): %d" %
          kernel_failed)
    for k in kernel_failures:
        print("  " + k)
    print("sites the kernel's tool drops by MIPS_is_fake_mcount()'s "
          "offset carried over from the section before (its flaw, not "
          "disagreements): %d objects" % len(carried))
    for c in carried:
        print("  " + c)
    if clang_long:
        print("sites only the kernel's tool records, each clang's MIPS long "
              "call \"lui at; ...; (d)addiu t9, at; jalr t9\" without \"move "
              "at, ra\", which ours refuses (\"not a call\": 6.1's "
              "_mcount takes the caller from at, and ftrace's \"b 1f\" "
              "would skip the function's own code), listed apart: %d "
              "objects"
              % len(clang_long))
        for c in clang_long:
            print("  " + c)
    print("kernel tool tables with the addend in r_addend and 0 in the "
          "word, which GNU ld reads (SH's R_SH_DIR32 is partial in place): "
          "they link to the anchor symbol, not the site, and with r_addend "
          "added name exactly our sites (its flaw, not disagreements): "
          "%d objects" % len(in_r_addend))
    for r in in_r_addend[:5]:
        print("  " + r)
    if len(in_r_addend) > 5:
        print("  ...")
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
