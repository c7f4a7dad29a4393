#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_link.py RECORDMCOUNT SCRATCH-DIR - the per-section table
(`recordmcount --per-section`) linked by every linker Debian ships, with
no linker script (issue 20).

Programs:
  c       tests/link/prog.c (-ffunction-sections: a section per
          function, one of them in a named section, dead_code() never
          called) and main.c (no hooks), by gcc, clang and clang-16
  gtest   Debian's googletest (gtest-all.cc, a multi-file C++ library
          with COMDAT groups: inline functions, templates, the standard
          library's) with gt_test.cc (templates and inline functions of
          its own) and gt_main.cc (no hooks), by g++ and clang++.
          gtest-all.cc takes a minute to compile on a busy 2-core
          machine, so it is compiled once per compiler and the same
          objects serve every link; clang-16 compiles only the C program
          for the same reason.

Every object is compiled -O2 -pg -mfentry -ffunction-sections
-fdata-sections -fPIE (so one set of objects serves PIE, no-PIE and
static links) and recorded with --per-section, and its pieces are read
back (elfmini): each named .mcount_loc, writable, SHF_LINK_ORDER, linked
to a code section, in that section's COMDAT group or in none as it is,
one per section, and referred back to by exactly one R_X86_64_NONE
relocation of that section; `--check` passes the object and `--dump`
lists exactly objdump -dr's hook calls of the unrecorded object.  An
unrecorded copy is kept as the baseline.  Each (program, compiler, linker, mode, gc) is
linked with -fuse-ld=bfd|gold|lld|mold, as -pie, -no-pie and -static,
with and without --gc-sections, and never with a linker script:

  link   it links
  run    it runs and exits 0, and the runtime booted the table: every
         entry patched (sites == patched), none refused, mcount_verify()
         found no site changed
  table  the image's __mcount_loc slots (read from the file, a PIE's
         through its R_X86_64_RELATIVE relocations from readelf) are
         exactly the hook calls `objdump -d` shows, one each: no zero,
         dangling or duplicate entry, none missing; and the runtime saw
         as many sites
  check  `recordmcount --check` passes the image; after --finalize
         (which sorts gold's table) --check --sorted passes too, and the
         finalized program boots every entry again
  text   (--gc-sections) the image's code is within 2% of the same
         objects unrecorded, linked the same way, and it defines no
         function that one does not (nm's view, read with elfmini; the
         C program's dead_code() is one): the table kept no dead
         function alive.  No linker is given anything but
         --gc-sections.

Both forms at once, with no script (prog.c recorded --per-section,
other.c in the kernel's form; gcc, each linker, no-PIE): the program must refuse to boot
(exit status and the runtime's message) and --check must fail, never a
half table.  A stripped program (strip keeps section headers) boots
whole.

Every architecture (cross_gc.c, and cross_stubs.c for the hook
symbols: aarch64, arm, riscv64, ppc64le, ppc32, s390x, mips, mips64el,
sparc64, sh4, i386; -pg, freestanding, static), linked by the target's
GNU ld and, where Debian's cross binutils or lld take it, gold and lld:
with --per-section and no script the table holds the same entries
(function+offset, from the image's symbols) as the kernel form's, and
under --gc-sections exactly those of the functions an unrecorded
--gc-sections link keeps, dead_code() gone with its entry.  A linker
that cannot link the unrecorded objects for a target is a SKIP with its
message.

Linker scripts (script_a.c and script_b.c, freestanding, recorded in
both forms, linked with ld.bfd, ld.gold and ld.lld -T; mold reads no
SECTIONS):
  kernel.lds    the kernel's shape: KEEP(*(__mcount_loc)) between two
                symbols inside the init data output section, with the
                kernel's form (Kbuild's): the table between them is
                exactly objdump's hook calls; --check passes
  full.lds      a complete script with lds/mcount-section.lds (KEEP),
                --gc-sections: complete in both forms
  full-gc.lds   with lds/mcount-section-gc.lds (no KEEP on .mcount_loc),
                --gc-sections: complete in both forms; for --per-section
                unused() is gone and the table sorted (bfd and lld sort
                SHF_LINK_ORDER pieces by their sections; gold keeps input
                order, so there only complete)
"""

import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "oracle"))

import elfmini  # noqa: E402
from harness import (Failure, Log, check, finish_scratch, must,  # noqa: E402
                     parallel, run, scratch_arg)

GTEST = "/usr/src/googletest/googletest"
LINKERS = ("bfd", "gold", "lld", "mold")
MODES = {"pie": ["-pie"], "no-pie": ["-no-pie"], "static": ["-static"]}
HOOK_FLAGS = ["-O2", "-pg", "-mfentry", "-ffunction-sections",
              "-fdata-sections", "-fPIE"]
PLAIN_FLAGS = ["-O2", "-fPIE"]
INCLUDES = ["-I" + os.path.join(TOP, "runtime", "include"),
            "-I" + os.path.join(GTEST, "include"), "-I" + GTEST]
# What every linker is given under --gc-sections: nothing else.
GC_FLAGS = ["-Wl,--gc-sections"]
PIECE = ".mcount_loc"
TEXT_TOLERANCE = 0.02

# A hook call as objdump -d shows it: direct (`call <__fentry__>`, or
# `addr32 call` where the linker relaxed a GOT load) or through the GOT
# (`call *0x..(%rip)  # addr <__fentry__$got>`, mold; `@GOT...`).
HOOK_CALL_RE = re.compile(r"^\s*([0-9a-f]+):\s.*\bcall[lq]?\s.*"
                          r"<__fentry__(?:[@$][^>]*)?>")
COUNTS_RE = re.compile(r"sites (\d+) patched (\d+) nops (\d+) refused (\d+) "
                       r"verify (-?\d+)")


class Program:
    def __init__(self, name, cc, cxx, hooked, plain, libs):
        self.name, self.cc, self.cxx = name, cc, cxx
        self.hooked = hooked        # sources compiled with hooks
        self.plain = plain          # sources compiled without
        self.libs = libs
        self.recorded = []          # objects, recorded
        self.unrecorded = []        # the same objects, not recorded
        self.objects = []           # the objects without hooks


def compiler_for(prog, src):
    return prog.cxx if src.endswith(".cc") else prog.cc


def build_objects(tool, scratch, prog):
    """Compile and record a program's objects once."""
    out = os.path.join(scratch, "%s-%s" % (prog.name, prog.cc))
    os.makedirs(out, exist_ok=True)
    for src in prog.hooked:
        base = os.path.join(out, os.path.basename(src).rsplit(".", 1)[0])
        must([compiler_for(prog, src)] + HOOK_FLAGS + INCLUDES +
             ["-c", src, "-o", base + ".raw.o"])
        with open(base + ".raw.o", "rb") as f:
            raw = f.read()
        with open(base + ".o", "wb") as f:
            f.write(raw)
        must([tool, "--per-section", base + ".o"])
        check_pieces(base + ".o")
        check_object(tool, base + ".raw.o", base + ".o")
        prog.unrecorded.append(base + ".raw.o")
        prog.recorded.append(base + ".o")
    for src in prog.plain:
        obj = os.path.join(out, os.path.basename(src).rsplit(".", 1)[0] +
                           ".o")
        must([compiler_for(prog, src)] + PLAIN_FLAGS + INCLUDES +
             ["-c", src, "-o", obj])
        prog.objects.append(obj)


SHF_WRITE, SHF_LINK_ORDER, SHT_GROUP = 0x1, 0x80, 17
R_X86_64_NONE = 0
# A hook call in objdump -dr -w of an object: the instruction's address,
# and its relocation on the same line.
OBJ_HOOK_RE = re.compile(r"^\s*([0-9a-f]+):\s.*\bcall[lq]?\s.*\s[0-9a-f]+: "
                         r"R_X86_64_\w+\s+__fentry__\b")
DUMP_SITE_RE = re.compile(r"^\s*\d+\s+(\S+)\+0x([0-9a-f]+)\s")


def object_hooks(obj):
    """(section, offset) of every hook call objdump -dr shows in an
    object."""
    out, _ = must(["objdump", "-dr", "-w", obj])
    hooks, sec = [], None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            sec = m.group(1)
            continue
        m = OBJ_HOOK_RE.match(line)
        if m:
            hooks.append((sec, int(m.group(1), 16)))
    return sorted(hooks)


def check_object(tool, raw, obj):
    """--check passes the recorded object, and --dump lists exactly the
    hook calls objdump -dr finds in the unrecorded one."""
    rc, out, err = run([tool, "--check", "-q", obj])
    check(rc == 0, "--check %s: exit %d: %s" % (obj, rc,
                                                (out + err).strip()[:300]))
    out, _ = must([tool, "--dump", obj])
    dumped = sorted((m.group(1), int(m.group(2), 16)) for m in
                    (DUMP_SITE_RE.match(line) for line in out.splitlines())
                    if m)
    want = object_hooks(raw)
    check(want, "objdump found no hook call in %s" % raw)
    check(dumped == want, "--dump lists %d sites, objdump %d hook calls "
          "(first difference: %s)" % (
              len(dumped), len(want),
              next(((a, b) for a, b in zip(dumped, want) if a != b),
                   None)))


def check_pieces(obj):
    """Every piece of a --per-section object: named .mcount_loc (and no
    __mcount_loc), writable, SHF_LINK_ORDER, linked to a code section, in
    that section's COMDAT group when it has one (and in none otherwise),
    with its relocation section beside it, and referred back to by one
    R_X86_64_NONE relocation of that code section; and one piece per
    code section at most."""
    elf = elfmini.Elf(obj)
    group_of = {}
    for g in (s for s in elf.sections if s.type == SHT_GROUP):
        body = elf.contents(g)
        for k in range(4, len(body), 4):
            group_of[struct.unpack_from(elf.e + "I", body, k)[0]] = g.index
    linked = []
    check(not any(s.name == "__mcount_loc" for s in elf.sections),
          "a __mcount_loc section in a --per-section object")
    for p in (s for s in elf.sections if s.name == PIECE):
        want = elfmini.SHF_ALLOC | SHF_WRITE | SHF_LINK_ORDER
        check(p.flags & want == want, "piece %d flags 0x%x" % (p.index,
                                                                p.flags))
        code = elf.sections[p.link]
        check(code.flags & elfmini.SHF_EXECINSTR,
              "piece %d linked to %s" % (p.index, code.name))
        check(group_of.get(p.index) == group_of.get(code.index),
              "piece %d (group %s) and %s (group %s)" % (
                  p.index, group_of.get(p.index), code.name,
                  group_of.get(code.index)))
        rels = elf.reloc_sections_for(p)
        check(len(rels) == 1 and group_of.get(rels[0].index) ==
              group_of.get(p.index), "piece %d's relocations" % p.index)
        back = [r for rs in elf.reloc_sections_for(code)
                for r in elf.relocs(rs)
                if r.type == R_X86_64_NONE and r.sym and
                elf.symbols[r.sym].shndx == p.index]
        check(len(back) == 1, "%s refers to its piece %d %d times" %
              (code.name, p.index, len(back)))
        linked.append(p.link)
    check(linked, "no .mcount_loc piece")
    check(len(set(linked)) == len(linked), "two pieces for one section")
    return len(linked)


def link(prog, objs, out, ld, mode, gc):
    cmd = [prog.cxx if prog.name == "gtest" else prog.cc, "-fuse-ld=" + ld]
    cmd += MODES[mode] + (GC_FLAGS if gc else [])
    must(cmd + ["-o", out] + prog.objects + objs +
         [os.environ["LIBMCOUNT"]] + prog.libs)
    return out


def hook_calls(image):
    out, _ = must(["objdump", "-d", "-w", image])
    return sorted(int(m.group(1), 16) for m in
                  (HOOK_CALL_RE.match(line) for line in out.splitlines()) if m)


def relative_addends(image):
    """{place: addend} of the image's R_X86_64_RELATIVE relocations."""
    out, _ = must(["readelf", "-rW", image])
    rel = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[2] == "R_X86_64_RELATIVE":
            rel[int(f[0], 16)] = int(f[3], 16)
    return rel


def table_slots(image):
    """The entries of the image's .mcount_loc output section."""
    elf = elfmini.Elf(image)
    sec = elf.section(PIECE)
    check(sec is not None, "no .mcount_loc section in the image")
    check(len([s for s in elf.sections if s.name == PIECE]) == 1,
          "more than one .mcount_loc output section")
    body = elf.contents(sec)
    rel = relative_addends(image) if elf.type == elfmini.ET_DYN else {}
    slots = []
    for off in range(0, sec.size, 8):
        slots.append(rel.get(sec.addr + off, elf.word(body, off)))
    return slots


def functions(image):
    """Names of the functions defined in a linked image (STT_FUNC)."""
    return {s.name for s in elfmini.Elf(image).symbols
            if s.type == 2 and s.shndx != 0}


def code_size(image):
    elf = elfmini.Elf(image)
    return sum(s.size for s in elf.sections
               if s.flags & elfmini.SHF_ALLOC and s.flags & elfmini.SHF_EXECINSTR)


def one_link(log, tool, scratch, prog, ld, mode, gc):
    name = "%s/%s/%s/%s%s" % (prog.name, prog.cc, ld, mode,
                              "/gc" if gc else "")
    image = os.path.join(scratch, name.replace("/", "-"))
    state = {}

    def do_link():
        link(prog, prog.recorded, image, ld, mode, gc)
        state["linked"] = True

    def do_run():
        rc, out, err = run([image])
        check(rc == 0, "exit %d: %s" % (rc, (out + err).strip()[-300:]))
        m = COUNTS_RE.search(out)
        check(m, "no counts line in the output")
        sites, patched, _nops, refused, verify = map(int, m.groups())
        check(sites > 0, "the runtime found no table")
        check(patched == sites and refused == 0,
              "%d sites, %d patched, %d refused" % (sites, patched, refused))
        check(verify == 0, "mcount_verify(): %d sites changed" % verify)
        state["sites"] = sites

    def do_table():
        slots = table_slots(image)
        calls = hook_calls(image)
        check(0 not in slots, "%d zero entries" % slots.count(0))
        check(len(set(slots)) == len(slots), "duplicate entries")
        dangling = sorted(set(slots) - set(calls))
        missing = sorted(set(calls) - set(slots))
        check(not dangling, "%d entries on no hook call (first 0x%x)" %
              (len(dangling), dangling[0]) if dangling else "")
        check(not missing, "%d hook calls not in the table (first 0x%x)" %
              (len(missing), missing[0]) if missing else "")
        check(state.get("sites") in (None, len(slots)),
              "the runtime saw %s sites, the table has %d" %
              (state.get("sites"), len(slots)))
        state["entries"] = len(slots)

    def do_check():
        rc, out, err = run([tool, "--check", "-q", image])
        check(rc == 0, "--check exit %d: %s" % (rc, (out + err).strip()[:300]))
        # gold leaves the pieces in input order: --finalize sorts any
        # linker's table, and the sorted program still boots whole.
        final = image + ".final"
        # cp, not a copy by this process: a write descriptor of ours,
        # inherited by another thread's fork until its exec, would make
        # running the copy fail with ETXTBSY
        must(["cp", "-p", image, final])
        must([tool, "--finalize", final])
        rc, out, err = run([tool, "--check", "--sorted", "-q", final])
        check(rc == 0, "--check --sorted after --finalize: exit %d: %s" %
              (rc, (out + err).strip()[:300]))
        rc, out, err = run([final])
        m = COUNTS_RE.search(out)
        check(rc == 0 and m and m.group(1) == m.group(2) and
              int(m.group(1)) == state.get("sites", int(m.group(1))),
              "finalized program: exit %d, %s" % (rc, out.strip()[:200]))

    def do_text():
        base = link(prog, prog.unrecorded, image + ".unrecorded", ld, mode,
                    gc)
        ratio = code_size(image) / code_size(base)
        kept = sorted(functions(image) - functions(base))
        state["ratio"] = ratio
        problems = []
        if abs(ratio - 1) > TEXT_TOLERANCE:
            problems.append("text %.3fx the unrecorded image's" % ratio)
        if kept:
            problems.append("%d functions --gc-sections drops without the "
                            "table kept (%s)" % (len(kept), kept[0]))
        check(not problems, "; ".join(problems))

    log.case(name + ": link", do_link)
    if not state.get("linked"):
        return name, state
    log.case(name + ": run", do_run)
    log.case(name + ": table", do_table)
    log.case(name + ": check", do_check)
    if gc:
        log.case(name + ": text", do_text)
    return name, state


# -- linker scripts -------------------------------------------------------

SCRIPT_FLAGS = ["-O2", "-pg", "-mfentry", "-ffunction-sections", "-fno-pie",
                "-ffreestanding", "-fno-asynchronous-unwind-tables",
                "-fno-stack-protector"]
# (script, form, --gc-sections, what the table must hold)
SCRIPT_CASES = (
    ("kernel.lds", "per-object", False, "complete"),
    ("full.lds", "per-section", True, "complete"),
    ("full.lds", "per-object", True, "complete"),
    ("full-gc.lds", "per-section", True, "sorted"),
    ("full-gc.lds", "per-object", True, "complete"),
)
SCRIPT_LINKERS = ("ld.bfd", "ld.gold", "ld.lld")


def script_objects(tool, scratch):
    """script_a.o and script_b.o, recorded in each form."""
    objs = {}
    for form in ("per-section", "per-object"):
        d = os.path.join(scratch, "script-" + form)
        os.makedirs(d, exist_ok=True)
        objs[form] = []
        for src in ("script_a.c", "script_b.c"):
            obj = os.path.join(d, src[:-2] + ".o")
            must(["gcc"] + SCRIPT_FLAGS + ["-c", os.path.join(HERE, src),
                                           "-o", obj])
            must([tool] + (["--per-section"] if form == "per-section"
                           else []) + [obj])
            objs[form].append(obj)
    return objs


def script_table(image):
    """The slots between __start_mcount_loc and __stop_mcount_loc."""
    elf = elfmini.Elf(image)
    syms = {s.name: s.value for s in elf.symbols if s.shndx != 0}
    check("__start_mcount_loc" in syms and "__stop_mcount_loc" in syms,
          "no __start_mcount_loc/__stop_mcount_loc")
    start, stop = syms["__start_mcount_loc"], syms["__stop_mcount_loc"]
    if start == stop:
        return []
    sec = elf.section_at(start)
    body = elf.contents(sec)
    return [elf.word(body, start - sec.addr + off)
            for off in range(0, stop - start, 8)]


def one_script(log, tool, scratch, objs, ld, case):
    script, form, gc, want = case
    name = "script/%s/%s/%s%s" % (ld, script, form, "/gc" if gc else "")
    image = os.path.join(scratch, name.replace("/", "-"))

    def do():
        must([ld, "-L", os.path.join(TOP, "lds"), "-T",
              os.path.join(HERE, script), "-o", image] +
             (["--gc-sections"] if gc else []) + objs[form])
        slots = script_table(image)
        calls = hook_calls(image)
        check(calls, "no hook calls in the image")
        check(sorted(slots) == calls,
              "table %s, objdump's hook calls %s" %
              ([hex(a) for a in slots], [hex(a) for a in calls]))
        # gold puts SHF_LINK_ORDER pieces in input order, not in the
        # order of their sections.
        if want == "sorted" and ld != "ld.gold":
            check(slots == calls, "table not in address order: %s" %
                  [hex(a) for a in slots])
        if gc and script == "full-gc.lds" and form == "per-section":
            check("unused" not in functions(image),
                  "--gc-sections kept unused()")
        rc, out, err = run([tool, "--check", "-q"] +
                           (["--sorted"] if want == "sorted" and
                            ld != "ld.gold" else []) +
                           [image])
        check(rc == 0, "--check exit %d: %s" % (rc, (out + err).strip()[:300]))

    log.case(name, do)


def one_mixed_and_stripped(log, tool, scratch, prog, ld):
    """The C program with one more object in the kernel's form, linked
    with no script: refused by the runtime and by --check.  The program
    alone, stripped: boots every entry (the runtime reads the section
    headers, which strip keeps)."""
    name = "%s/%s/%s/pie" % (prog.name, prog.cc, ld)
    base = os.path.join(scratch, name.replace("/", "-"))

    def mixed():
        obj = base + "-other.o"
        must([prog.cc] + HOOK_FLAGS + ["-c", os.path.join(HERE, "other.c"),
                                       "-o", obj])
        must([tool, obj])
        # no-pie: lld refuses a read-only piece's absolute relocations
        # in a PIE whatever else is linked
        image = link(prog, prog.recorded + [obj], base + "-mixed", ld,
                     "no-pie", False)
        rc, out, err = run([image])
        m = COUNTS_RE.search(out)
        check(m and m.group(1) == "0", "booted a table: %s" % out.strip())
        check("two tables" in err, "no refusal on stderr: %r" % err[-300:])
        rc, out, err = run([tool, "--check", "-q", image])
        check(rc == 1 and "two tables" in out + err,
              "--check exit %d: %s" % (rc, (out + err).strip()[:300]))

    def stripped():
        image = link(prog, prog.recorded, base + "-stripped", ld, "pie",
                     True)
        entries = len(table_slots(image))
        must(["strip", image])
        check(not any(s.type == 2 for s in elfmini.Elf(image).symbols),
              "strip left function symbols")
        rc, out, err = run([image])
        m = COUNTS_RE.search(out)
        check(rc == 0 and m and int(m.group(1)) == entries and
              m.group(1) == m.group(2),
              "exit %d, %s, table %d entries" % (rc, out.strip(), entries))

    log.case(name[:-len("pie")] + "no-pie: both forms, no script: refused",
             mixed)
    log.case(name + "/gc: stripped", stripped)


# -- every architecture ----------------------------------------------------

# (name, the Debian cross triplet, extra flags, linkers to try)
CROSS = (
    ("aarch64", "aarch64-linux-gnu", [], ("bfd", "gold", "lld")),
    ("arm", "arm-linux-gnueabihf", [], ("bfd", "gold", "lld")),
    ("riscv64", "riscv64-linux-gnu", [], ("bfd", "lld")),
    ("ppc64le", "powerpc64le-linux-gnu", [], ("bfd", "gold", "lld")),
    ("ppc32", "powerpc-linux-gnu", [], ("bfd", "gold")),
    ("s390x", "s390x-linux-gnu", [], ("bfd", "gold")),
    ("mips", "mips-linux-gnu", ["-mno-abicalls"], ("bfd", "gold")),
    ("mips64el", "mips64el-linux-gnuabi64", ["-mno-abicalls"],
     ("bfd", "gold")),
    ("sparc64", "sparc64-linux-gnu", [], ("bfd",)),
    ("sh4", "sh4-linux-gnu", [], ("bfd",)),
    ("i386", "i686-linux-gnu", [], ("bfd", "gold", "lld")),
)
CROSS_FLAGS = ["-O2", "-pg", "-ffunction-sections", "-ffreestanding",
               "-fno-pic", "-fno-stack-protector"]
# Where the linker relaxes code, two links of the same object may place a
# hook at different offsets of its function: compare functions there.
RELAXES = ("riscv64",)


def image_entries(image, name):
    """The entries of output section `name` as (function, offset), with
    the function from the image's own symbols (an ARM Thumb symbol's bit
    0 cleared); (None, address) for an entry in no function."""
    elf = elfmini.Elf(image)
    sec = elf.section(name)
    check(sec is not None, "no %s section in %s" % (name, image))
    body = elf.contents(sec)
    size = elf.addr_size
    funcs = [(s.value & ~1, s.size, s.name) for s in elf.symbols
             if s.type == 2 and s.shndx != 0 and s.size]
    out = []
    for off in range(0, sec.size, size):
        addr = elf.word(body, off)
        f = [(addr - v, n) for v, sz, n in funcs if v <= addr < v + sz]
        out.append((f[0][1], f[0][0]) if f else (None, addr))
    return out


def one_cross(log, tool, scratch, arch):
    name, triplet, flags, linkers = arch
    d = os.path.join(scratch, "cross-" + name)
    os.makedirs(d, exist_ok=True)
    cc = triplet + "-gcc"
    objs = {}

    def build():
        src = os.path.join(HERE, "cross_gc.c")
        raw = os.path.join(d, "gc.raw.o")
        must([cc] + CROSS_FLAGS + flags + ["-c", src, "-o", raw])
        stubs = os.path.join(d, "stubs.o")
        must([cc] + CROSS_FLAGS[:1] + CROSS_FLAGS[2:] + flags +
             ["-c", os.path.join(HERE, "cross_stubs.c"), "-o", stubs])
        for form in ("per-object", "per-section"):
            obj = os.path.join(d, "gc.%s.o" % form)
            shutil.copy2(raw, obj)
            must([tool, "--" + form, obj])
            objs[form] = obj
        objs["raw"], objs["stubs"] = raw, stubs

    try:
        build()
    except Failure as e:
        log.result("cross/%s: compile and record" % name, e)
        return
    log.result("cross/%s: compile and record" % name)

    # A cross gcc runs -fuse-ld=lld as TRIPLET-ld.lld, which Debian's
    # lld does not install: a link to ld.lld under that name, on PATH.
    lld_bin = os.path.join(d, "bin")
    os.makedirs(lld_bin, exist_ok=True)
    if not os.path.lexists(os.path.join(lld_bin, triplet + "-ld.lld")):
        os.symlink(shutil.which("ld.lld") or "/usr/bin/ld.lld",
                   os.path.join(lld_bin, triplet + "-ld.lld"))
    env = dict(os.environ, PATH=lld_bin + os.pathsep + os.environ["PATH"])

    def link(ld, form, gc):
        out = os.path.join(d, "%s-%s%s" % (ld, form, "-gc" if gc else ""))
        rc, o, e = run([cc, "-fuse-ld=" + ld, "-nostdlib", "-static",
                        "-no-pie", "-Wl,-e,_start", "-o", out, objs[form],
                        objs["stubs"]] + (["-Wl,--gc-sections"] if gc else []),
                       env=env)
        check(rc == 0, "%s exited %d: %s" % (cc, rc, (o + e).strip()[:300]))
        return out

    def key(entries):
        return sorted((f,) if name in RELAXES else (f, off)
                      for f, off in entries)

    for ld in linkers:
        case = "cross/%s/%s" % (name, ld)
        try:
            plain = link(ld, "raw", True)
        except Failure as e:
            log.skip(case, "the linker does not link this target's "
                     "unrecorded objects either: %s" % str(e)[:200])
            continue

        def do():
            whole = image_entries(link(ld, "per-object", False),
                                  "__mcount_loc")
            both = image_entries(link(ld, "per-section", False),
                                 ".mcount_loc")
            gc = image_entries(link(ld, "per-section", True), ".mcount_loc")
            live = functions(plain)
            check("dead_code" not in live and "live_one" in live,
                  "unrecorded --gc-sections image: %s" % sorted(live))
            check(all(f for f, _ in whole), "an entry in no function: %s"
                  % whole)
            check(key(both) == key(whole),
                  "per-section %s, per-object %s" % (both, whole))
            want = key(e for e in whole if e[0] in live)
            check(key(gc) == want and len(set(gc)) == len(gc),
                  "--gc-sections table %s, want %s" % (gc, want))
            check(functions(os.path.join(d, "%s-per-section-gc" % ld)) ==
                  live, "--gc-sections kept other functions than the "
                  "unrecorded link")

        log.case(case, do)


def programs():
    progs = []
    for cc, cxx in (("gcc", "g++"), ("clang", "clang++"),
                    ("clang-16", "clang++-16")):
        progs.append(Program("c", cc, cxx, [os.path.join(HERE, "prog.c")],
                             [os.path.join(HERE, "main.c")], []))
        if cc == "clang-16":
            continue
        progs.append(Program("gtest", cc, cxx,
                             [os.path.join(GTEST, "src", "gtest-all.cc"),
                              os.path.join(HERE, "gt_test.cc")],
                             [os.path.join(HERE, "gt_main.cc")],
                             ["-pthread"]))
    return progs


def missing_tools():
    tools = ["ld.bfd", "ld.gold", "ld.lld", "ld.mold", "objdump", "readelf"]
    return [t for t in tools if not any(
        os.access(os.path.join(d, t), os.X_OK)
        for d in os.environ.get("PATH", "").split(os.pathsep))]


def main():
    tool, scratch, results = scratch_arg()
    log = Log(os.path.join(results, "link.log"))
    missing = missing_tools()
    if missing:
        log.result("link: tools", "missing: %s" % " ".join(missing))
        return finish_scratch(log, scratch)
    progs = []
    for prog in programs():
        if not any(os.access(os.path.join(d, prog.cc), os.X_OK)
                   for d in os.environ.get("PATH", "").split(os.pathsep)):
            log.skip("%s/%s" % (prog.name, prog.cc), "no %s" % prog.cc)
            continue
        if prog.name == "gtest" and not os.path.isdir(GTEST):
            log.skip("gtest/%s" % prog.cc, "no %s (googletest)" % GTEST)
            continue
        progs.append(prog)

    def build(prog):
        try:
            build_objects(tool, scratch, prog)
        except Failure as e:
            log.result("%s/%s: compile and record" % (prog.name, prog.cc), e)
            return None
        log.result("%s/%s: compile and record" % (prog.name, prog.cc))
        return prog

    try:
        objs = script_objects(tool, scratch)
    except Failure as e:
        log.result("script: compile and record", e)
    else:
        parallel(lambda c: one_script(log, tool, scratch, objs, *c),
                 [(ld, case) for ld in SCRIPT_LINKERS
                  for case in SCRIPT_CASES])
    parallel(lambda a: one_cross(log, tool, scratch, a),
             [a for a in CROSS if any(
                 os.access(os.path.join(p, a[1] + "-gcc"), os.X_OK)
                 for p in os.environ.get("PATH", "").split(os.pathsep))])
    progs = [p for p in parallel(build, progs) if p]
    combos = [(p, ld, mode, gc) for p in progs for ld in LINKERS
              for mode in MODES for gc in (False, True)]
    done = parallel(lambda c: one_link(log, tool, scratch, *c), combos)
    parallel(lambda c: one_mixed_and_stripped(log, tool, scratch, *c),
             [(p, ld) for p in progs if p.name == "c" and p.cc == "gcc"
              for ld in LINKERS])
    print("figures (entries; text recorded / unrecorded under --gc-sections):")
    for name, state in done:
        if "entries" in state:
            print("  %-36s %5d entries%s" % (
                name, state["entries"],
                "  text %.4fx" % state["ratio"] if "ratio" in state else ""))
    return finish_scratch(log, scratch)


if __name__ == "__main__":
    sys.exit(main())
