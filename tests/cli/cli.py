#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cli.py RECORDMCOUNT SCRATCH-DIR - the command line's promises.

--nop and untraced sections (checked with objdump, readelf, the linker
and by running the program), idempotency, objects left alone, every
class of bad input (exit 1, one line, file untouched), several files in
one run, -j, mode bits, usage errors, --symbol, --section and
--no-section, -q.  Expected values come from GCC's -mrecord-mcount,
readelf, objdump and ld, never from recordmcount itself.
"""

import os
import random
import re
import shutil
import stat
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "oracle"))

import fnmatch  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402

import dump_oracle  # noqa: E402
import elfmini  # noqa: E402
from harness import (FIXTURE_FLAGS, HOOKS, NOP, SUPPORT, Config, cc,  # noqa
                     Log, age, check, compile_c, fixture, must,
                     objdump_insns, objdump_reloc_sites, parallel,
                     readelf_relocs, run, scratch_arg, finish_scratch,
                     snapshot, traced)

TOOL = SCRATCH = None
_count = itertools.count(1)  # next() is atomic: cases run in threads


def fresh(src_obj, name=None):
    """A private copy of an object for one test case."""
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, name or os.path.basename(src_obj))
    shutil.copyfile(src_obj, dst)
    return dst


def tool(*args):
    return run([TOOL] + list(args))


def sites_of(path):
    """(section, offset) of every entry of a table, or None."""
    e = elfmini.Elf(path)
    ents = elfmini.table_entries(e)
    if ents is None:
        return None
    return {(e.sections[x[0]].name, x[1]) for x in ents}


def gcc_sites(path, **globs):
    """GCC's table restricted to the sections traced with globs."""
    return {x for x in sites_of(path) if traced(x[0], **globs)}


class Objects:
    """Every object the cases start from, compiled once."""

    def __init__(self):
        self.d = os.path.join(SCRATCH, "objs")
        os.makedirs(self.d, exist_ok=True)
        self.jobs = []
        self.made = {}

    def want(self, key, src, flags):
        self.jobs.append((key, src, flags))

    def build(self):
        def one(job):
            key, src, flags = job
            path = os.path.join(self.d, key + ".o")
            compile_c(fixture(src) if "/" not in src else src, path,
                      flags + FIXTURE_FLAGS.get(src, []))
            return key, path
        self.made.update(parallel(one, self.jobs))

    def __getitem__(self, key):
        return self.made[key]


NOP_CONFIGS = [Config("x86_64", "fentry", True, "-O2"),
               Config("x86_64", "fentry", False, "-O2"),
               Config("i386", "fentry", False, "-O2"),
               Config("x86_64", "mcount", True, "-O2"),
               Config("i386", "mcount", True, "-O2"),
               Config("i386", "mcount", False, "-O0"),
               # clang has no -mrecord-mcount on x86: its oracle is the
               # hook relocations objdump -dr shows (original_sites).
               Config("x86_64", "fentry", True, "-O2", "clang"),
               Config("x86_64", "fentry", False, "-O2", "clang-16"),
               Config("x86_64", "mcount", True, "-O2", "clang")]


def declare(objs):
    for c in NOP_CONFIGS:
        for fx in ("basic", "sections"):
            flags = c.base_flags + c.opt.split() + c.pg_flags
            objs.want("%s-%s" % (fx, c.name), fx + ".c", flags)
            if c.compiler == "gcc":
                objs.want("%s-%s-gcc" % (fx, c.name), fx + ".c",
                          flags + ["-mrecord-mcount"])
        objs.want("plain-%s" % c.name, "basic.c", c.base_flags + ["-O2"])
        for n in ("run_main", "hooks", "start"):
            objs.want("%s-%s" % (n, c.name), os.path.join(SUPPORT, n + ".c"),
                      c.base_flags + ["-O2"])
    for fx in ("recursion", "big", "weakonly"):
        objs.want(fx, fx + ".c", ["-O2", "-pg", "-mfentry"])
    for c in (Config("x86_64", "none", True, "-O2"),
              Config("x86_64", "none", False, "-O2"),
              Config("i386", "none", True, "-O2"),
              Config("i386", "none", False, "-O0")):
        objs.want("custom-%s" % c.name, "customhook.c",
                  c.base_flags + c.opt.split())
    objs.want("hookaddr", "hookaddr.c",
              ["-O2", "-pg", "-mfentry", "-fno-pie"])


# -- --nop and untraced sections ---------------------------------------

def original_sites(gcc_obj, in_obj):
    """{(section, offset): length} of every hook call GCC recorded, in
    any section (gcc_obj None: every call objdump -dr shows relocated
    against a hook, for clang); the length is read from the original
    instruction."""
    insns = objdump_insns(in_obj)
    if gcc_obj is None:
        places = set()
        for h in HOOKS:
            places |= objdump_reloc_sites(in_obj, h)
        check(places, "test is void: objdump shows no hook call")
    else:
        e = elfmini.Elf(gcc_obj)
        places = [(e.sections[shndx].name, off) for shndx, off, _t, _s
                  in elfmini.table_entries(e)]
    out = {}
    for sec, off in places:
        b = insns.get(sec, {}).get(off)
        check(b is not None, "objdump shows no instruction at %s+%#x"
              % (sec, off))
        check(b[0][:1] == b"\xe8" or b[0][:2] in (b"\xff\x15", b"\xff\x93"),
              "%s+%#x is %s, not a call" % (sec, off, b[1]))
        out[(sec, off)] = len(b[0])
    return out


def nop_checks(c, objs, fx, nop):
    src = objs["%s-%s" % (fx, c.name)]
    gcc = objs["%s-%s-gcc" % (fx, c.name)] if c.compiler == "gcc" else None
    sites = original_sites(gcc, src)
    obj = fresh(src)
    args = ["-n", obj] if nop else [obj]
    rc, out, err = tool(*args)
    check(rc == 0 and not err, "exit %d: %s" % (rc, err.strip()))
    insns = objdump_insns(obj)
    for (sec, off), n in sorted(sites.items()):
        expect_nop = nop or not traced(sec)
        got = insns[sec].get(off)
        check(got is not None, "no instruction at %s+%#x" % (sec, off))
        if expect_nop:
            check(got[0] == NOP[n], "%s+%#x: want the %d-byte NOP, got %s"
                  % (sec, off, n, got[1]))
        else:
            check(got[0][:1] in (b"\xe8", b"\xff"),
                  "%s+%#x: call became %s" % (sec, off, got[1]))
    after = readelf_relocs(obj)
    for rsec, rels in readelf_relocs(src).items():
        target = rsec[5:] if rsec.startswith(".rela") else rsec[4:]
        check(len(after.get(rsec, ())) == len(rels),
              "%s lost or gained relocations" % rsec)
        for (off, _t, sym), (off2, typ, _s) in zip(rels, after[rsec]):
            if (sym.split() or [""])[0] not in HOOKS:
                continue
            check(off == off2, "%s: relocations reordered" % rsec)
            if nop or not traced(target):
                check(typ == c.none_reloc, "%s+%#x: %s, want %s"
                      % (rsec, off, typ, c.none_reloc))
            else:
                check(typ != c.none_reloc, "%s+%#x: traced call's "
                      "relocation voided" % (rsec, off))
    want = {s for s in sites if traced(s[0])}
    got = sites_of(obj)
    check(got == want, "table %s, GCC's traced sites %s"
          % (sorted(got or ()), sorted(want)))
    return obj


def link_bare(c, prog, objs_in):
    """Link with no C library at all: nothing defines any hook."""
    return run(cc(c.base_flags + ["-nostdlib", "-static", "-no-pie",
                                  "-o", prog] + objs_in))


def nop_link_run(c, objs):
    """Link the NOPed object with NO hook definition: any call left would
    be an undefined reference.  Then run it against a -pg-free build."""
    obj = nop_checks(c, objs, "basic", True)
    d = os.path.dirname(obj)
    start_o = objs["start-%s" % c.name]
    prog, ref = os.path.join(d, "prog"), os.path.join(d, "ref")
    rc, _o, err = link_bare(c, prog, [start_o, obj])
    check(rc == 0, "link without hooks failed: %s" % err.strip()[:300])
    rc, _o, err = link_bare(c, ref, [start_o, objs["plain-%s" % c.name]])
    check(rc == 0, "reference link failed: %s" % err.strip()[:300])
    got, want = run([prog])[0], run([ref])[0]
    check(got == want, "program exited %d, the -pg-free one %d"
          % (got, want))


def nop_link_glibc(c, objs):
    """The NOPed object links into an ordinary program even though the
    C library defines __fentry__ and mcount, and computes the same."""
    obj = nop_checks(c, objs, "basic", True)
    d = os.path.dirname(obj)
    main_o = objs["run_main-%s" % c.name]
    prog, ref = os.path.join(d, "prog"), os.path.join(d, "ref")
    must(cc(c.link_flags + ["-o", prog, main_o, obj]))
    must(cc(c.link_flags + ["-o", ref, main_o, objs["plain-%s" % c.name]]))
    got, _ = must([prog])
    want, _ = must([ref])
    check(got == want, "program printed %r, the -pg-free one %r"
          % (got, want))


def nop_control(c, objs):
    """The proof above means something: without -n the same link fails
    on the live hook calls."""
    obj = fresh(objs["basic-%s" % c.name])
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    hook = "__fentry__" if c.hook == "fentry" else "mcount"
    rc, _o, err = link_bare(c, obj + ".prog",
                            [objs["start-%s" % c.name], obj])
    check(rc != 0 and "undefined reference to `%s'" % hook in err,
          "linking live %s calls without a definition worked" % hook)


def undefined_bindings(path, name):
    """The bindings readelf gives the undefined symbols called `name`."""
    out, _ = must(["readelf", "-sW", path])
    return [f[4] for f in (line.split() for line in out.splitlines())
            if len(f) >= 8 and f[6] == "UND" and f[7] == name]


def nop_weak_hook(c, objs):
    """After -n no relocation names the hook, and the undefined hook is
    WEAK (readelf): Linux's modpost rejects a module whose symbol table
    holds an undefined GLOBAL nobody defines, used or not (the s390
    kernel has no __fentry__).  Without -n the traced calls still name
    it, and it stays GLOBAL, as GCC wrote it."""
    hook = "__fentry__" if c.hook == "fentry" else "mcount"
    src = objs["basic-%s" % c.name]
    check(undefined_bindings(src, hook) == ["GLOBAL"],
          "GCC's object: %s is %s" % (hook, undefined_bindings(src, hook)))
    obj, plain = fresh(src), fresh(src)
    for args in (["-n", obj], [plain]):
        rc, _o, err = tool(*args)
        check(rc == 0, "exit %d: %s" % (rc, err.strip()))
    got = undefined_bindings(obj, hook)
    check(got == ["WEAK"], "after -n, %s is %s, want WEAK" % (hook, got))
    got = undefined_bindings(plain, hook)
    check(got == ["GLOBAL"], "without -n, %s is %s, want GLOBAL"
          % (hook, got))


WEAK_BODY_ASM = {
    # f's weak body, its hook NOPed by --nop, ends right before g: the
    # NOP lies 6 bytes before g, inside the reach of the look-ahead for
    # pads before an entry, but a ret, no NOP, separates it from g.
    "weak.s": """\t.text
\t.weak f
\t.type f, @function
f:\tcall __fentry__
\tret
\t.size f, .-f
\t.globl g
\t.type g, @function
g:\tcall __fentry__
\tret
\t.size g, .-g
\t.globl _start
\t.type _start, @function
_start:\tcall f
\tcall g
\tret
\t.size _start, .-_start
""",
    "strong.s": """\t.section .text.strong,"ax",@progbits
\t.globl f
\t.type f, @function
f:\tcall __fentry__
\tret
\t.size f, .-f
"""}


def nm_values(path):
    out, _ = must(["nm", path])
    return {f[2]: int(f[0], 16) for f in (line.split()
                                          for line in out.splitlines())
            if len(f) == 3}


def nopped_weak_body_stale():
    """A program whose overridden __weak body keeps its hook as a NOP
    (--nop, as the s390 kernel build does) right before the next
    function: --check must call that entry stale, and --finalize zero
    it.  Expected address from nm: g's address in the program, less
    g's distance from the weak f in the object."""
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    objs_in = []
    for name, text in sorted(WEAK_BODY_ASM.items()):
        src = os.path.join(d, name)
        with open(src, "w") as f:
            f.write(text)
        must(["as", "-o", src[:-2] + ".o", src])
        objs_in.append(src[:-2] + ".o")
    rc, _o, err = tool("--nop", *objs_in)
    check(rc == 0, "exit %d: %s" % (rc, err.strip()))
    prog = os.path.join(d, "prog")
    must(["ld", "-o", prog] + objs_in)
    weak = nm_values(os.path.join(d, "weak.o"))
    want = nm_values(prog)["g"] - (weak["g"] - weak["f"])
    rc, out, err = tool("--check", "--format=json", prog)
    check(rc == 1, "--check exit %d (want 1, a problem): %s"
          % (rc, err.strip()))
    stale = [p["address"] for p in json.loads(out)["problems"]
             if p["class"] == "stale"]
    check(stale == [want], "stale entries %s, want [%#x] (the weak body)"
          % ([hex(a) for a in stale], want))
    must([TOOL, "--finalize", prog])
    out, _ = must([TOOL, "--check", prog])
    check("(1 cleared)" in out and " 0 problems" in out,
          "after --finalize: %s" % out.strip())


# linux-6.1 riscv with DYNAMIC_FTRACE: mcount.S makes _mcount an alias
# of ftrace_stub, and ftrace_caller (mcount-dyn.S) calls ftrace_stub at
# its global label ftrace_call, the call ftrace_update_ftrace_func
# patches.  That call reaches _mcount's address but is the tracer's own,
# not a function-entry hook.  "label" is how the kernel writes it; with
# it taken out, the same call must still count as an unrecorded hook.
TRACER_CALL_ASM = """\t.text
\t.globl stub, _mcount, tracer, %s
\t.type stub, @function
stub:
_mcount:
\tret
\t.size stub, .-stub
\t.type tracer, @function
tracer:
\taddi sp, sp, -16
\tsd ra, 8(sp)
\tmv a3, sp
%s:
\tcall stub
\tld ra, 8(sp)
\taddi sp, sp, 16
\tret
\t.size tracer, .-tracer
"""


def labelled_tracer_call(labelled):
    """--check of a linked riscv64 image: a call to _mcount's address at a
    global label inside its function (the tracer's patched call) is no
    hook; the same call without the label is one, unrecorded."""
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    label = "tracer_call" if labelled else ".Lcall"
    src = os.path.join(d, "tracer.s")
    with open(src, "w") as f:
        f.write(TRACER_CALL_ASM % ("tracer" if not labelled else label,
                                   label))
    must(["riscv64-linux-gnu-as", "-o", src[:-2] + ".o", src])
    prog = os.path.join(d, "prog")
    must(["riscv64-linux-gnu-ld", "--no-relax", "-e", "tracer", "-o", prog,
          src[:-2] + ".o"])
    rc, out, err = tool("--check", "--format=json", prog)
    classes = [p["class"] for p in json.loads(out)["problems"]] if out \
        else None
    if labelled:
        check(rc == 0 and classes == [],
              "--check exit %d, problems %s (want none): %s"
              % (rc, classes, err.strip()))
    else:
        check(rc == 1 and classes == ["no-table"],
              "--check exit %d, problems %s (want no-table): %s"
              % (rc, classes, err.strip()))


def warn_untraced(objs, c):
    src = objs["basic-%s" % c.name]
    obj = fresh(src)
    rc, _o, err = tool(obj)
    check(rc == 0 and err == "", "without -w: exit %d, stderr %r"
          % (rc, err))
    obj = fresh(src)
    rc, _o, err = tool("-w", obj)
    lines = err.splitlines()
    check(rc == 0, "-w: exit %d" % rc)
    check(len(lines) == 1 and ".fixture.notrace" in lines[0] and
          lines[0].startswith("recordmcount: %s: " % obj),
          "-w: want one warning naming .fixture.notrace, got %r" % err)


def quiet_checks(objs):
    loud = fresh(objs["hookaddr"])
    rc, _o, err = tool(loud)
    check(rc == 0, "exit %d: %s" % (rc, err))
    check(err.startswith("recordmcount: %s: " % loud) and
          "__fentry__" in err,
          "a reference to __fentry__ that is not a call gave no warning: "
          "%r" % err)
    obj = fresh(objs["hookaddr"])
    rc, out, err = tool("-q", obj)
    check(rc == 0 and err == "" and out == "",
          "-q: exit %d, printed %r" % (rc, out + err))
    check(sites_of(obj) == sites_of(loud), "-q changed what was recorded")


def quiet_w(objs):
    """-q means errors only: -w's warning is a warning."""
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    rc, out, err = tool("-q", "-w", obj)
    check(rc == 0 and err == "" and out == "",
          "-q -w: exit %d, printed %r" % (rc, out + err))


# -- untouched files ---------------------------------------------------

def untouched_after(args, path, want_rc):
    before = snapshot(path)
    rc, out, err = tool(*args)
    after = snapshot(path)
    check(rc == want_rc, "exit %d, want %d (%s)" % (rc, want_rc,
                                                   err.strip()))
    check(before[0] == after[0], "contents changed")
    check(before[1] == after[1], "mtime changed")
    check(before[2] == after[2], "mode changed")
    return out, err


def idempotent(objs, key):
    obj = fresh(objs[key])
    rc, _o, err = tool(obj)
    check(rc == 0, "first run: exit %d: %s" % (rc, err))
    age(obj)
    _o, err = untouched_after([obj], obj, 0)
    check(err == "", "second run printed %r" % err)
    age(obj)
    untouched_after(["-n", obj], obj, 0)


def all_untraced(objs):
    """Every hook in an untraced section: NOPed, no table; later runs,
    with or without the option, leave the file alone and say nothing."""
    src = objs["sections-x86_64-fentry-nopie-O2"]
    obj = fresh(src)
    rc, _o, err = tool("--no-section", "*", obj)
    check(rc == 0 and not err, "exit %d: %s" % (rc, err))
    check(sites_of(obj) is None, "a table was added")
    insns = objdump_insns(obj)
    for (sec, off), n in original_sites(objs[
            "sections-x86_64-fentry-nopie-O2-gcc"], src).items():
        check(insns[sec][off][0] == NOP[n], "%s+%#x not NOPed" % (sec, off))
    for args in (["--no-section", "*"], [], ["-n", "-w"]):
        age(obj)
        _o, err = untouched_after(args + [obj], obj, 0)
        check(err == "", "%s printed %r" % (" ".join(args), err))


def no_hooks(objs, key):
    obj = fresh(objs[key])
    age(obj)
    _o, err = untouched_after([obj], obj, 0)
    check(err == "", "printed %r" % err)
    untouched_after(["-n", "-w", obj], obj, 0)


def gcc_table_untouched(objs):
    """An object GCC already gave a table is left alone."""
    obj = fresh(objs["basic-x86_64-fentry-pie-O2-gcc"])
    age(obj)
    untouched_after([obj], obj, 0)
    untouched_after(["-n", obj], obj, 0)


# -- bad input ---------------------------------------------------------

def ehdr_fields(data):
    is64 = data[4] == 2
    fmt = "<HHIQQQIHHHHHH" if is64 else "<HHIIIIIHHHHHH"
    return is64, fmt, list(struct.unpack_from(fmt, data, 16))


def set_ehdr(data, idx, value):
    is64, fmt, f = ehdr_fields(data)
    f[idx] = value
    b = bytearray(data)
    struct.pack_into(fmt, b, 16, *f)
    return bytes(b)


def first_hook_rel(e):
    """(relocation section, index) of the first relocation of code."""
    for s in e.sections:
        if s.type in (elfmini.SHT_REL, elfmini.SHT_RELA) and \
                e.sections[s.info].flags & elfmini.SHF_EXECINSTR:
            rels = e.relocs(s)
            for i, r in enumerate(rels):
                if e.symbols[r.sym].name in HOOKS:
                    return s, i
    raise AssertionError("no hook relocation")


def patch_reloc(data, offset_fn=None, sym_fn=None):
    e = elfmini.Elf(data)
    s, i = first_hook_rel(e)
    b = bytearray(data)
    size = s.entsize
    at = s.offset + i * size
    if e.is64:
        off, info = struct.unpack_from("<QQ", b, at)
        sym, typ = info >> 32, info & 0xFFFFFFFF
    else:
        off, info = struct.unpack_from("<II", b, at)
        sym, typ = info >> 8, info & 0xFF
    if offset_fn:
        off = offset_fn(e.sections[s.info])
    if sym_fn:
        sym = sym_fn(e)
    if e.is64:
        struct.pack_into("<QQ", b, at, off, (sym << 32) | typ)
    else:
        struct.pack_into("<II", b, at, off, (sym << 8) | typ)
    return bytes(b)


def patch_shdr(data, name, field, value):
    e = elfmini.Elf(data)
    s = e.section(name)
    fmt = "<IIQQQQIIQQ" if e.is64 else "<IIIIIIIIII"
    at = e.shoff + s.index * e.shentsize
    f = list(struct.unpack_from(fmt, data, at))
    f[field] = value
    b = bytearray(data)
    struct.pack_into(fmt, b, at, *f)
    return bytes(b)


SH_OFFSET, SH_SIZE, SH_LINK, SH_INFO, SH_ENTSIZE = 4, 5, 6, 7, 9


def bad_inputs(objs):
    """name -> bytes of a corrupted copy (None: not a file)."""
    good64 = open(objs["basic-x86_64-fentry-pie-O2"], "rb").read()
    good32 = open(objs["basic-i386-mcount-pie-O2"], "rb").read()
    out = {}
    for tag, good in (("x86_64", good64), ("i386", good32)):
        e = elfmini.Elf(good)
        out["%s-unknown-machine" % tag] = set_ehdr(good, 1, 0x1234)
        out["%s-reloc-offset-past-section" % tag] = patch_reloc(
            good, offset_fn=lambda t: t.size + 16)
        out["%s-reloc-offset-at-section-end" % tag] = patch_reloc(
            good, offset_fn=lambda t: t.size)
        out["%s-reloc-offset-huge" % tag] = patch_reloc(
            good, offset_fn=lambda t: 0xFFFFFFF0)
        out["%s-symbol-index-out-of-range" % tag] = patch_reloc(
            good, sym_fn=lambda e: len(e.symbols) + 5)
        out["%s-symbol-index-huge" % tag] = patch_reloc(
            good, sym_fn=lambda e: 0xFFFFFF)
        for n in (0, 1, 4, 16, 40, 52, 63, 64, 200, len(good) // 2,
                  e.shoff + 3, len(good) - 1):
            out["%s-truncated-%d" % (tag, n)] = good[:n]
        out["%s-shoff-past-end" % tag] = set_ehdr(good, 5, len(good) + 4096)
        out["%s-shnum-too-big" % tag] = set_ehdr(good, 11, 4000)
        out["%s-shstrndx-out-of-range" % tag] = set_ehdr(good, 12, 999)
        out["%s-text-offset-past-end" % tag] = patch_shdr(
            good, ".text", SH_OFFSET, len(good) + 100)
        out["%s-text-size-past-end" % tag] = patch_shdr(
            good, ".text", SH_SIZE, len(good) * 2)
        rel = ".rela.text" if tag == "x86_64" else ".rel.text"
        out["%s-reloc-entsize-wrong" % tag] = patch_shdr(
            good, rel, SH_ENTSIZE, 7)
        out["%s-reloc-size-past-end" % tag] = patch_shdr(
            good, rel, SH_SIZE, len(good) * 4)
        out["%s-symtab-link-out-of-range" % tag] = patch_shdr(
            good, ".symtab", SH_LINK, 500)
        out["%s-symtab-entsize-wrong" % tag] = patch_shdr(
            good, ".symtab", SH_ENTSIZE, 5)
        out["%s-bad-class" % tag] = good[:4] + b"\x07" + good[5:]
        out["%s-et-core" % tag] = set_ehdr(good, 0, 4)
    rnd = random.Random(1234)
    out["garbage"] = bytes(rnd.randrange(256) for _ in range(4096))
    out["garbage-with-elf-magic"] = b"\x7fELF" + bytes(
        rnd.randrange(256) for _ in range(4092))
    out["empty"] = b""
    out["text-file"] = b"int main(void) { return 0; }\n"
    out["ar-archive"] = b"!<arch>\n"
    return out


# -- hostile input: numbers that must be checked before use -----------

SH_ADDRALIGN = 8
MIPS64_CC = "mips64el-linux-gnuabi64-gcc"
FSIZE_LIMIT = 64 << 20  # a run that tries to write more dies of SIGXFSZ


def limited_tool(*args):
    """The tool under a file size limit, so a regression to unbounded
    output fails fast instead of filling the disk."""
    rc, _out, err = run(["sh", "-c", 'ulimit -f %d && exec "$@"' %
                         (FSIZE_LIMIT // 512), "sh", TOOL] + list(args))
    return rc, err


def hostile_case(data, name, want):
    """Record and dump a hostile file: exit 1, one line that says what
    is wrong (contains `want`), the file byte-for-byte as it was, and no
    other file left in its directory."""
    path = fresh(os.devnull, name + ".o")
    with open(path, "wb") as f:
        f.write(data)
    age(path)
    d = os.path.dirname(path)
    for args in ([path], ["-n", path], ["--dump", path],
                 ["--dump", "--format=json", path]):
        before = snapshot(path)
        rc, err = limited_tool(*args)
        check(rc == 1, "%s: exit %d, want 1 (%s)" % (args[0], rc,
                                                    err.strip()[:200]))
        check(snapshot(path) == before, "%s: file changed" % args[0])
        check(os.listdir(d) == [os.path.basename(path)],
              "%s: files left behind: %r" % (args[0], os.listdir(d)))
        lines = err.splitlines()
        check(len(lines) == 1 and lines[0].startswith(
            "recordmcount: %s: " % path), "want one line, got %r" % err)
        check(want in lines[0], "%r does not say %r" % (lines[0], want))


def mips64_object():
    """A small MIPS64 object with -pg, or None without the compiler."""
    if not shutil.which(MIPS64_CC):
        return None
    out = os.path.join(SCRATCH, "objs", "basic-mips64el.o")
    if not os.path.exists(out):
        must([MIPS64_CC, "-O2", "-pg", "-c", "-o", out, fixture("basic.c")])
    return open(out, "rb").read()


def hostile_mips64(log):
    """The object AFL++ found: .rela.pdr claims alignment 2^34, which
    made libelf's re-layout write 16 GB of padding."""
    name = "cli/hostile/mips64-rela-pdr-align-2^34"
    data = mips64_object()
    if data is None:
        log.line("SKIP: %s: %s not installed" % (name, MIPS64_CC))
        return
    e = elfmini.Elf(data)
    idx = e.section(".rela.pdr").index
    log.case(name, hostile_case,
             patch_shdr(data, ".rela.pdr", SH_ADDRALIGN, 1 << 34),
             "mips64-align", "section %d alignment 17179869184 is not "
             "plausible" % idx)
    for n, want in ((e.shoff + 100, "section headers at %d extend past the "
                     "end of the file (%d bytes)" % (e.shoff, e.shoff + 100)),
                    (40, "shorter than the ELF header (64 bytes)")):
        log.case("cli/hostile/mips64-truncated-%d" % n, hostile_case,
                 data[:n], "mips64-trunc-%d" % n, want)


def all_shdrs(data, field, value):
    """Every section but the null one given the same header field."""
    e = elfmini.Elf(data)
    for s in e.sections[1:]:
        data = patch_shdr(data, s.name, field, value)
    return data


def hostile_inputs(objs):
    """name -> (bytes, what the error line must say)."""
    good = open(objs["basic-x86_64-fentry-pie-O2"], "rb").read()
    e = elfmini.Elf(good)
    text = e.section(".text").index
    rela = e.section(".rela.text").index
    size = len(good)
    return {
        "truncated-10": (good[:10], "10 bytes, shorter than the ELF "
                         "identification (16 bytes)"),
        "truncated-40": (good[:40], "40 bytes, shorter than the ELF header "
                         "(64 bytes)"),
        "truncated-in-shdrs": (
            good[:e.shoff + 3], "section headers at %d extend past the "
            "end of the file (%d bytes)" % (e.shoff, e.shoff + 3)),
        "truncated-last-byte": (
            good[:-1], "%d section headers at %d extend past the end of the "
            "file (%d bytes)" % (e.shnum, e.shoff, size - 1)),
        "shentsize-wrong": (set_ehdr(good, 10, 40),
                            "section header size 40, expected 64"),
        "no-section-headers": (set_ehdr(good, 5, 0), "no section headers"),
        "phdrs-past-end": (
            set_ehdr(set_ehdr(set_ehdr(good, 4, size - 56), 8, 56), 9, 2),
            "program headers at %d (2 of 56 bytes) extend past the end of "
            "the file (%d bytes)" % (size - 56, size)),
        "text-align-2^40": (patch_shdr(good, ".text", SH_ADDRALIGN, 1 << 40),
                            "section %d alignment 1099511627776 is not "
                            "plausible" % text),
        "text-align-not-power-of-2": (
            patch_shdr(good, ".text", SH_ADDRALIGN, 24),
            "section %d alignment 24 is not plausible" % text),
        "every-section-align-2MiB": (
            all_shdrs(good, SH_ADDRALIGN, 2 << 20),
            "would pad the output by more than"),
        "rela-entsize-0": (patch_shdr(good, ".rela.text", SH_ENTSIZE, 0),
                           "section %d entry size 0, expected 24" % rela),
        "rela-size-not-multiple": (
            patch_shdr(good, ".rela.text", SH_SIZE,
                       e.sections[rela].size - 5),
            "section %d size %d is not a multiple of its entry size 24"
            % (rela, e.sections[rela].size - 5)),
        "rela-info-out-of-range": (
            patch_shdr(good, ".rela.text", SH_INFO, 4000),
            "section %d: relocated section 4000 out of range" % rela),
        "text-past-end": (
            patch_shdr(good, ".text", SH_OFFSET, size - 2),
            "section %d (%d bytes at %d) extends past the end of the file "
            "(%d bytes)" % (text, e.sections[text].size, size - 2, size)),
    }


def linked_table(path, extra):
    """The sorted entries of .mcount_loc in `path` linked by GNU ld
    (entry f0, __fentry__ defined), and the sorted addresses nm gives
    the functions f<N> the link kept."""
    exe = path + ".exe"
    must(["ld", "-e", "f0", "--defsym", "__fentry__=0x1000", "-o", exe,
          path] + extra)
    e = elfmini.Elf(exe)
    pieces = [x for x in e.sections if x.name == ".mcount_loc"]
    data = b"".join(e.contents(x) for x in pieces)
    entries = sorted(struct.unpack("<%dQ" % (len(data) // 8), data))
    out, _ = must(["nm", exe])
    funcs = sorted(int(f[0], 16) for f in (ln.split() for ln in
                                          out.splitlines())
                   if re.fullmatch(r"f[0-9]+", f[-1]))
    return entries, funcs


def per_section_extended_index():
    """An object of 16,400 functions, each in its own section, has
    32,808 sections and no SHT_SYMTAB_SHNDX; --per-section adds two
    sections a function (a piece and its relocations) and a section
    symbol for each piece, whose indexes pass 65,280: the tool adds the
    extended index table (linked to .symtab) that the symbols need.
    Oracles: readelf reads the symbols without a warning, and GNU ld's
    link puts in .mcount_loc exactly the addresses nm gives the
    functions, with and without --gc-sections (which keeps f0 alone)."""
    n = 16400
    d = os.path.dirname(fresh(os.devnull, "x"))
    src, obj = os.path.join(d, "many.s"), os.path.join(d, "many.o")
    with open(src, "w") as f:
        for i in range(n):
            f.write('.section .text.f%d,"ax",@progbits\n.globl f%d\n'
                    '.type f%d,@function\nf%d:\n\tcall __fentry__\n'
                    '\tret\n.size f%d,.-f%d\n' % ((i,) * 6))
    must(["as", "--64", "-o", obj, src])
    out, _ = must(["readelf", "-SW", obj])
    check("SYMTAB SECTION INDICES" not in out,
          "the assembler made an extended index table already")
    rc, _o, err = tool("--per-section", obj)
    check(rc == 0, "exit %d: %s" % (rc, err.strip()))
    out, err = must(["readelf", "-SsW", obj])
    check("Warning" not in err, "readelf: %s" % err.strip()[:300])
    shdrs = {}
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+(?: \S+)*?)\s+"
                     r"[0-9a-f]{16}", line)
        if m:
            shdrs[m.group(2)] = (int(m.group(1)), line)
    check(".symtab_shndx" in shdrs, "no .symtab_shndx")
    check("SYMTAB SECTION INDICES" in shdrs[".symtab_shndx"][1],
          "wrong type: %s" % shdrs[".symtab_shndx"][1])
    link = int(shdrs[".symtab_shndx"][1].split()[-3])
    check(link == shdrs[".symtab"][0],
          ".symtab_shndx links %d, .symtab is %d" % (link,
                                                     shdrs[".symtab"][0]))
    entries, funcs = linked_table(obj, [])
    check(len(entries) == n and entries == funcs,
          "%d entries for %d functions, equal: %s" %
          (len(entries), len(funcs), entries == funcs))
    entries, funcs = linked_table(obj, ["--gc-sections"])
    check(len(funcs) == 1 and entries == funcs,
          "--gc-sections: entries %r, functions %r" % (entries[:4],
                                                       funcs[:4]))


def sections_modulo_offsets(data):
    """Every section's header but its offset, and its bytes."""
    e = elfmini.Elf(data)
    return [(s.name, s.type, s.flags, s.addr, s.size, s.link, s.info,
             s.addralign, s.entsize, e.contents(s) if s.type != 8 else b"")
            for s in e.sections]


def output_bound(objs):
    """The largest alignments the input check lets through (2 MiB, on
    .text, which the append writer leaves in place, and on .shstrtab,
    which it moves): both writers, the append one and (the file having a
    second name) the rename one, stay within the input plus the padding
    budget of elf/validate.c (4x the input + 2x 2 MiB) plus the tables,
    write the same sections, and the append one keeps the input's bytes
    where they were."""
    good = open(objs["basic-x86_64-fentry-pie-O2"], "rb").read()
    data = patch_shdr(patch_shdr(good, ".text", SH_ADDRALIGN, 2 << 20),
                      ".shstrtab", SH_ADDRALIGN, 2 << 20)
    bound = len(data) + 4 * len(data) + (4 << 20) + (64 << 10)
    outs = []
    for linked in (False, True):
        path = fresh(os.devnull, "bound.o")
        with open(path, "wb") as f:
            f.write(data)
        if linked:
            os.link(path, path + ".other")
        rc, err = limited_tool(path)
        check(rc == 0, "exit %d: %s" % (rc, err.strip()))
        out = open(path, "rb").read()
        check(len(out) <= bound, "%d bytes out of %d in, more than %d" %
              (len(out), len(data), bound))
        rc, _o, err = run([TOOL, "--check", path])
        check(rc == 0, "--check: exit %d: %s" % (rc, err.strip()))
        if linked:
            check(open(path + ".other", "rb").read() == data,
                  "the other name changed")
        else:
            check(out[64:len(data)] == data[64:],
                  "the append writer moved an input byte")
            check(len(out) <= len(data) + (2 << 20) + (64 << 10),
                  "appended %d bytes: more than .shstrtab's padding and "
                  "the tables" % (len(out) - len(data)))
        outs.append(sections_modulo_offsets(out))
    check(outs[0] == outs[1], "the two writers wrote different sections")


def bad_case(path, want_prefix):
    age(path)
    _o, err = untouched_after([path], path, 1)
    lines = err.splitlines()
    check(len(lines) == 1, "want one line on stderr, got %r" % err)
    check(lines[0].startswith(want_prefix) and
          len(lines[0]) > len(want_prefix),
          "line %r does not start with %r" % (lines[0], want_prefix))


def bad_file(data, name):
    path = fresh(os.devnull, name + ".o")
    with open(path, "wb") as f:
        f.write(data)
    bad_case(path, "recordmcount: %s: " % path)


def bad_exec(objs, kind):
    c = NOP_CONFIGS[0]
    d = os.path.dirname(fresh(os.devnull, "x"))
    path = os.path.join(d, kind)
    if kind == "shared.so":
        must(["gcc", "-shared", "-o", path, objs["hooks-%s" % c.name]])
    else:
        must(["gcc", "-o", path, objs["run_main-%s" % c.name],
              objs["plain-%s" % c.name]])
    bad_case(path, "recordmcount: %s: " % path)


def bad_et_exec_object(objs):
    """A real object whose e_type says ET_EXEC."""
    data = open(objs["basic-x86_64-fentry-pie-O2"], "rb").read()
    bad_file(set_ehdr(data, 0, elfmini.ET_EXEC), "et-exec-flag")


def bad_dir():
    d = os.path.join(SCRATCH, "cases", "a-directory.o")
    os.makedirs(d, exist_ok=True)
    rc, _o, err = tool(d)
    check(rc == 1, "exit %d" % rc)
    lines = err.splitlines()
    check(len(lines) == 1 and lines[0].startswith(
        "recordmcount: %s: " % d), "stderr %r" % err)


def bad_missing():
    p = os.path.join(SCRATCH, "cases", "no-such-file.o")
    rc, _o, err = tool(p)
    lines = err.splitlines()
    check(rc == 1, "exit %d" % rc)
    check(len(lines) == 1 and lines[0].startswith(
        "recordmcount: %s: " % p), "stderr %r" % err)
    check(not os.path.exists(p), "the missing file was created")


def mixed(objs, bad_first):
    good = fresh(objs["basic-x86_64-fentry-pie-O2"])
    bad = fresh(os.devnull, "bad.o")
    with open(bad, "wb") as f:
        f.write(b"\x7fELF garbage" * 10)
    age(bad)
    before = snapshot(bad)
    args = [bad, good] if bad_first else [good, bad]
    rc, _o, err = tool(*args)
    check(rc == 1, "exit %d" % rc)
    check(snapshot(bad) == before, "bad file changed")
    lines = err.splitlines()
    check(len(lines) == 1 and lines[0].startswith(
        "recordmcount: %s: " % bad), "stderr %r" % err)
    want = gcc_sites(objs["basic-x86_64-fentry-pie-O2-gcc"])
    check(sites_of(good) == want, "the good file was not processed right")


# -- -j, modes ---------------------------------------------------------

def jobs_same(objs):
    keys = ["basic-%s" % c.name for c in NOP_CONFIGS] + \
        ["sections-%s" % c.name for c in NOP_CONFIGS] + \
        ["recursion", "big", "weakonly"]
    outs = {}
    for j in ("1", "2", "3"):
        d = os.path.join(SCRATCH, "cases", "jobs-%s" % j)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        files = []
        for k in keys:
            p = os.path.join(d, k + ".o")
            shutil.copyfile(objs[k], p)
            files.append(p)
        rc, _o, err = tool("-j", j, *files)
        check(rc == 0, "-j %s: exit %d: %s" % (j, rc, err))
        outs[j] = [open(p, "rb").read() for p in files]
    for j in ("2", "3"):
        for k, a, b in zip(keys, outs["1"], outs[j]):
            check(a == b, "%s differs between -j 1 and -j %s" % (k, j))
    for k, a, src in zip(keys, outs["1"], keys):
        check(a != open(objs[src], "rb").read(), "%s not processed" % k)


def jobs_with_bad(objs):
    d = os.path.dirname(fresh(os.devnull, "x"))
    files = []
    for i in range(6):
        p = os.path.join(d, "f%d.o" % i)
        shutil.copyfile(objs["basic-x86_64-fentry-pie-O2"], p)
        files.append(p)
    bad = os.path.join(d, "bad.o")
    with open(bad, "wb") as f:
        f.write(b"junk")
    rc, _o, err = tool("-j", "2", files[0], bad, *files[1:])
    check(rc == 1, "exit %d" % rc)
    check(len(err.splitlines()) == 1, "stderr %r" % err)
    want = gcc_sites(objs["basic-x86_64-fentry-pie-O2-gcc"])
    for p in files:
        check(sites_of(p) == want, "%s not processed" % p)


def mode_kept(objs, mode):
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    os.chmod(obj, mode)
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    got = stat.S_IMODE(os.stat(obj).st_mode)
    check(got == mode, "mode %o, was %o" % (got, mode))
    check(sites_of(obj) is not None, "not processed")
    leftovers = [n for n in os.listdir(os.path.dirname(obj))
                 if n != os.path.basename(obj)]
    check(not leftovers, "left behind %s" % leftovers)


def read_only_refused(objs, mode, args):
    """A file with no write bit: exit 1, one line naming the file and
    saying it is read-only, the file untouched (the tests run as root,
    which access() would let write it)."""
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    os.chmod(obj, mode)
    age(obj)
    _out, err = untouched_after(args + [obj], obj, 1)
    check(err == "recordmcount: %s: read-only file (mode %04o): left as "
          "it is; make it writable to record it\n" % (obj, mode),
          "stderr %r" % err)
    leftovers = [n for n in os.listdir(os.path.dirname(obj))
                 if n != os.path.basename(obj)]
    check(not leftovers, "left behind %s" % leftovers)


def read_only_linked(objs):
    """A read-only file with a second name (ccache's hard-link mode): this
    name gets the recorded object, the other keeps the old bytes."""
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    other = obj + ".cache"
    os.link(obj, other)
    os.chmod(obj, 0o444)
    before = snapshot(other)
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    check(sites_of(obj) is not None, "not recorded")
    check(snapshot(other) == before, "the other name's file changed")
    check(stat.S_IMODE(os.stat(obj).st_mode) == 0o444, "mode not kept")


def totals(objs, args):
    """-v or --check over several files: the last stderr line counts them
    (one of three is bad)."""
    a = fresh(objs["basic-x86_64-fentry-pie-O2"])
    b = fresh(objs["basic-x86_64-fentry-nopie-O2"])
    bad = fresh(os.devnull, "bad.o")
    with open(bad, "w") as f:
        f.write("not an object\n")
    if "--check" in args:
        rc, _o, err = tool(a, b)
        check(rc == 0, "record: exit %d: %s" % (rc, err))
    rc, _o, err = tool(*(args + [a, bad, b]))
    check(rc == 1, "exit %d, want 1" % rc)
    last = err.splitlines()[-1] if err else ""
    check(last == "recordmcount: 3 files: 2 ok, 1 failed",
          "last stderr line %r" % last)
    rc, _o, err = tool(*(["-q"] + args + [a, b]))
    check("files:" not in err, "-q printed the totals: %r" % err)


def progress_on_a_terminal(objs):
    """-j over several files: a progress line on stderr when it is a
    terminal (cleared at the end), none when it is not."""
    import pty
    files = [fresh(objs["basic-x86_64-fentry-pie-O2"]) for _ in range(4)]
    master, slave = pty.openpty()
    p = subprocess.run([TOOL, "-j2"] + files, stderr=slave,
                       stdout=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    check(p.returncode == 0, "exit %d" % p.returncode)
    check(b"\rrecordmcount: 4/4 files" in out and out.endswith(b"\r\x1b[K"),
          "terminal stderr %r" % out)
    piped = [fresh(objs["basic-x86_64-fentry-pie-O2"]) for _ in range(4)]
    rc, _o, err = tool("-j2", *piped)
    check(rc == 0 and err == "", "piped: exit %d, stderr %r" % (rc, err))


# -- usage -------------------------------------------------------------

# What a usage error's line must say, where the wording matters.
USAGE_SAYS = {
    "jobs-before-a-file": "-j needs a number (-jN, -j N or --jobs=N)",
    "jobs-not-a-number": "-j needs a number",
    "jobs-zero": "bad job count '0' (1 to 1024)",
}


def usage_cases(objs):
    obj = objs["basic-x86_64-fentry-pie-O2"]
    cases = {
        "no-arguments": [],
        "unknown-option": ["--no-such-option", obj],
        "unknown-short-option": ["-Z", obj],
        "jobs-zero": ["-j", "0", obj],
        "jobs-not-a-number": ["-j", "two", obj],
        "jobs-missing": ["-j"],
        # The file is no count: say a number is missing, not "bad count".
        "jobs-before-a-file": ["-j", obj],
        "symbol-missing": ["--symbol"],
        "bad-format": ["--format=xml", obj],
        "options-only": ["-n", "-w"],
        # Used to record the file as if no --format had been given.
        "format-without-dump": ["--format=json", obj],
    }
    out = []
    for name, args in cases.items():
        def fn(args=args, name=name):
            copy = fresh(obj)
            args = [copy if a == obj else a for a in args]
            age(copy)
            before = snapshot(copy)
            rc, _o, err = tool(*args)
            check(rc == 2, "exit %d, want 2" % rc)
            lines = err.splitlines()
            # What is wrong, then where to look: not the whole help.
            check(len(lines) == 2 and lines[0].startswith("recordmcount: ")
                  and len(lines[0]) > len("recordmcount: ") and
                  lines[1] == "Try 'recordmcount --help' for more "
                  "information.", "stderr %r" % err)
            check(snapshot(copy) == before, "file touched")
            if name in USAGE_SAYS:
                check(USAGE_SAYS[name] in err, "stderr %r does not say %r"
                      % (err, USAGE_SAYS[name]))
        out.append(("cli/usage/" + name, fn))
    return out


# -- objects that hold no code yet, and asking twice -------------------

def lto_case(compiler, flags, want):
    """An -flto object: exit 1, one line naming LTO, file untouched."""
    d = os.path.dirname(fresh(os.devnull, "x"))
    src = os.path.join(d, "f.c")
    with open(src, "w") as f:
        f.write("int f(int x) { return x + 1; }\n")
    obj = os.path.join(d, "f.o")
    must([compiler, "-O2", "-pg", "-mfentry", "-c", "-o", obj, src] + flags)
    age(obj)
    _o, err = untouched_after([obj], obj, 1)
    check(len(err.splitlines()) == 1 and want in err and "LTO link" in err,
          "stderr %r" % err)


def fat_lto_recorded():
    """-ffat-lto-objects keeps real code: recorded like any object."""
    d = os.path.dirname(fresh(os.devnull, "x"))
    src = os.path.join(d, "f.c")
    with open(src, "w") as f:
        f.write("int f(int x) { return x + 1; }\n")
    obj = os.path.join(d, "f.o")
    must(["gcc", "-O2", "-pg", "-mfentry", "-flto", "-ffat-lto-objects",
          "-c", "-o", obj, src])
    want = objdump_reloc_sites(obj, "__fentry__")
    rc, _o, err = tool(obj)
    check(rc == 0 and not err, "exit %d: %s" % (rc, err))
    check(want and sites_of(obj) == want,
          "table %s, objdump's hooks %s" % (sites_of(obj), want))


def ar_archive(objs):
    """An archive of hooked objects: refused, saying what to do."""
    d = os.path.dirname(fresh(os.devnull, "x"))
    lib = os.path.join(d, "lib.a")
    must(["ar", "rcs", lib, objs["basic-x86_64-fentry-pie-O2"]])
    age(lib)
    _o, err = untouched_after([lib], lib, 1)
    check(len(err.splitlines()) == 1 and "archive" in err and
          "recordmcount-cc" in err, "stderr %r" % err)


def nop_on_recorded(objs):
    """-n on an object recorded before: says why nothing was NOPed."""
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    rc, _o, err = tool(obj)
    check(rc == 0 and not err, "record: exit %d: %s" % (rc, err))
    age(obj)
    _o, err = untouched_after(["-n", obj], obj, 0)
    check("already has __mcount_loc" in err and "NOP" in err,
          "-n said %r" % err)
    _o, err = untouched_after(["-q", "-n", obj], obj, 0)
    check(err == "", "-q -n printed %r" % err)


def help_version():
    rc, out, err = tool("-h")
    check(rc == 0 and "Usage" in out and not err, "-h: exit %d" % rc)
    for opt in ("--nop", "--symbol", "--section", "--no-section", "--dump",
                "--strict", "--check", "--sorted", "--finalize", "--format",
                "--print-lds", "--keep-patchable", "--find-nops",
                "--jobs", "--quiet", "--verbose", "--version"):
        check(opt in out, "--help does not mention %s" % opt)
    # Every long option --help shows is in the man page, and back.
    with open(os.path.join(ASM, "..", "..", "man", "recordmcount.1")) as f:
        man = f.read().replace("\\-", "-")
    in_help = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]+)", out, re.M))
    in_man = set(re.findall(r"^\.BR? .*?(--[a-z][a-z-]+)", man, re.M))
    check(in_help == in_man, "--help and the man page's options differ: "
          "only in --help %s, only in the man page %s"
          % (sorted(in_help - in_man), sorted(in_man - in_help)))
    rc, out, err = tool("--help")
    check(rc == 0 and "Usage" in out, "--help: exit %d" % rc)
    rc, out, err = tool("-V")
    check(rc == 0 and out.startswith("recordmcount ") and not err,
          "-V: exit %d, %r" % (rc, out))
    rc2, out2, _ = tool("--version")
    check(rc2 == 0 and out2 == out, "--version differs from -V")


# -- --dump against readelf and objdump ----------------------------------

DUMP_CASES = {
    # name: (object key or asm fixture, recordmcount options or None)
    "call-got": ("basic-x86_64-fentry-pie-O2", []),
    "call-rel32": ("basic-x86_64-fentry-nopie-O2", []),
    "call-mcount-i386": ("basic-i386-mcount-pie-O2", []),
    "nop": ("basic-x86_64-fentry-nopie-O2", ["--nop"]),
    "unrecorded": ("basic-x86_64-fentry-pie-O2", None),
    "gcc-table": ("basic-x86_64-fentry-nopie-O2-gcc", None),
    "find-nops": ("dump-mnop-mcount", ["--find-nops"]),
    "pad": ("dump-pad-2", []),
    "pad-before-entry": ("dump-pad-3-1", []),
    "pad-compiler-list": ("dump-pad-2", None),
    "unexpected-pad": ("asm:unknown-pad", []),
}


def declare_dump(objs):
    objs.want("dump-mnop-mcount", "basic.c",
              ["-O2", "-fno-pic", "-pg", "-mfentry", "-mnop-mcount"])
    objs.want("dump-pad-2", "basic.c",
              ["-O2", "-fpatchable-function-entry=2"])
    objs.want("dump-pad-3-1", "basic.c",
              ["-O2", "-fpatchable-function-entry=3,1"])


def dump_object(objs, key, args):
    """Record (unless args is None), then --dump must say what readelf
    and objdump say, in text and JSON."""
    obj = asm_object(key[4:]) if key.startswith("asm:") else fresh(
        objs[key])
    if args is not None:
        rc, _o, err = tool(*(args + [obj]))
        check(rc == 0, "recording: exit %d: %s" % (rc, err))
    want = dump_oracle.check_object_dump(tool, obj)
    check(want or args is None, "test is void: no table entries")


def dump_linked(objs):
    """A recorded object linked with lds/mcount.lds: --dump of the program
    against nm and objdump."""
    obj = fresh(objs["basic-x86_64-fentry-nopie-O2"])
    must([TOOL, obj])
    prog = obj + ".prog"
    lds = os.path.join(ASM, "..", "..", "lds", "mcount.lds")
    must(["gcc", "-no-pie", "-o", prog, objs["run_main-x86_64-fentry-nopie-O2"],
          obj, "-Wl,-T," + lds, "-Wl,-u,__start_mcount_loc",
          "-Wl,-u,__stop_mcount_loc"])
    dump_oracle.check_linked_dump(tool, prog)


def dump_crash_free(objs):
    """--dump --find-nops on a --find-nops object (used to segfault)."""
    obj = fresh(objs["dump-mnop-mcount"])
    must([TOOL, "--find-nops", obj])
    rc, out, err = tool("--dump", "--find-nops", obj)
    check(rc == 0 and not err and "nop" in out,
          "--dump --find-nops: exit %d: %s" % (rc, err))


def dump_json_lines(objs):
    """--dump --format=json of a good file, a bad one and a good one: one
    JSON document per line and per file, each with schema_version 1; the
    bad file's document names it and says why (the same reason as the
    stderr line), and the run exits 1."""
    good = fresh(objs["basic-x86_64-fentry-pie-O2"])
    must([TOOL, good])
    bad = fresh(os.devnull, "not-elf.o")
    with open(bad, "w") as f:
        f.write("not an object\n")
    rc, out, err = tool("--dump", "--format=json", good, bad, good)
    check(rc == 1, "exit %d, want 1" % rc)
    docs = [json.loads(line) for line in out.splitlines()]
    check([d.get("file") for d in docs] == [good, bad, good],
          "documents for %r" % [d.get("file") for d in docs])
    check(all(d.get("schema_version") == 1 for d in docs),
          "schema_version %r" % [d.get("schema_version") for d in docs])
    why = err.strip().split(": ", 2)[-1]
    check(docs[1].get("error") == why and "entries" not in docs[1],
          "failed file's record %r, stderr %r" % (docs[1], err))
    check(docs[0] == docs[2] and docs[0]["entries"], "good file %r"
          % docs[0])


def no_section_pads_kept(objs):
    """--no-section over pads: the compiler's pads stay in the table
    (readelf's list of them before recording), and the tool says so once
    per section it made no difference for."""
    src = objs["dump-pad-2"]
    e = elfmini.Elf(src)
    want = {(e.sections[x[0]].name, x[1]) for x in
            elfmini.all_table_entries(e, "__patchable_function_entries")}
    check(want, "test is void: no pads")
    obj = fresh(src)
    rc, _o, err = tool("--no-section", ".text*", obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    got = elfmini.Elf(obj)
    got = {(got.sections[x[0]].name, x[1]) for x in
           elfmini.all_table_entries(got)}
    check(got == want, "table %s, the compiler listed %s"
          % (sorted(got or ()), sorted(want)))
    # Where the option made a difference: .fixture.notrace is not traced
    # anyway, and .init.text does not match.
    secs = sorted({sec for sec, _ in want if fnmatch.fnmatch(sec, ".text*")})
    check(len(secs) < len({sec for sec, _ in want}), "test is void: every "
          "pad section matches")
    # 2-byte pads are also too short for x86_64's runtime: one line more.
    lines = err.splitlines()
    unusable = [x for x in lines if "libmcount cannot enable" in x]
    check(len(unusable) == 1, "want one unusable-pads line: %r" % err)
    lines = [x for x in lines if x not in unusable]
    check(len(lines) == len(secs) and all(
        "%s: warning: %s: --no-section applies to hook calls only" %
        (obj, sec) in line for sec, line in zip(secs, lines)),
        "want one note per section %s, got %r" % (secs, err))
    rc, _o, err = tool("-q", "--no-section", ".text*", fresh(src))
    check(rc == 0 and err == "", "-q: exit %d, %r" % (rc, err))


# -- the compiler's information is never lost; --strict ----------------

ASM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "fixtures", "asm")


def asm_object(name):
    """fixtures/asm/NAME.s assembled with GNU as, in a fresh case dir."""
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    obj = os.path.join(d, name + ".o")
    must(["gcc", "-c", "-o", obj, os.path.join(ASM, name + ".s")])
    return obj


def objdump_bytes_at(path, section, offset):
    """The bytes objdump -d shows for the instruction at section+offset,
    as hex ("cc")."""
    return objdump_insns(path, section)[section][offset][0].hex(" ")


def unknown_pad_kept(quiet):
    """A pad holding an int3 stays listed where the assembler listed it;
    the hook call beside it is still recorded."""
    obj = asm_object("unknown-pad")
    pads_before = readelf_relocs(obj)[".rela__patchable_function_entries"]
    want = objdump_reloc_sites(obj, "__fentry__")
    int3 = objdump_bytes_at(obj, ".text", 0)
    rc, _o, err = tool(*(["-q"] if quiet else []) + [obj])
    check(rc == 0, "exit %d: %s" % (rc, err))
    relocs = readelf_relocs(obj)
    check(relocs.get(".rela__patchable_function_entries") == pads_before,
          "the compiler's pad list changed: %s -> %s"
          % (pads_before, relocs.get(".rela__patchable_function_entries")))
    got = sites_of(obj)
    check(got == want, "recorded %s, objdump shows the hook at %s"
          % (sorted(got or ()), sorted(want)))
    if quiet:
        check(err == "", "-q printed %r" % err)
    else:
        check(".text+0x0" in err and ("bytes: " + int3) in err,
              "the warning does not name the pad with its bytes (%s): %r"
              % (int3, err))


def strict_fails(name, what):
    """--strict: a site or pad reported and not recorded fails the file,
    which is left byte for byte as it was."""
    obj = asm_object(name)
    before = snapshot(obj)
    rc, _o, err = tool("--strict", obj)
    check(rc == 1, "--strict with %s: exit %d" % (what, rc))
    last = err.strip().splitlines()[-1] if err.strip() else ""
    check(last.startswith("recordmcount: %s: --strict" % obj),
          "no --strict error line: %r" % err)
    check(snapshot(obj) == before, "--strict failure changed the file")
    rc, _o, err = tool(obj)
    check(rc == 0 and "warning" in err,
          "without --strict: exit %d, %r" % (rc, err))


def not_a_call_names_relocation():
    """The warning for a hook reference that is no call names its
    relocation type as readelf does (R_X86_64_REX_GOTPCRELX), not as
    "relocation type 42"."""
    obj = asm_object("not-a-call")
    want = [t for off, t, _s in readelf_relocs(obj)[".rela.text"]
            if off == 3]
    check(len(want) == 1, "readelf shows no relocation at .text+0x3")
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    check(err == "recordmcount: %s: warning: .text+0x3: reference to "
          "__fentry__ (%s) is not a call; not recorded\n" % (obj, want[0]),
          "stderr %r, want the relocation named %s" % (err, want[0]))


def hook_relocs_reordered(data, how):
    """DATA with .rela.text's hook relocations reversed ("reversed"), or
    the second one moved onto the first one's offset ("repeated"), the
    other relocations where they were."""
    e = elfmini.Elf(data)
    s = e.section(".rela.text")
    rels = e.relocs(s)
    hooks = [i for i, r in enumerate(rels) if e.symbols[r.sym].name in HOOKS]
    check(len(hooks) >= 2, "fewer than two hook relocations")
    entries = [data[s.offset + i * 24:s.offset + (i + 1) * 24]
               for i in range(len(rels))]
    if how == "reversed":
        moved = [entries[i] for i in reversed(hooks)]
        for i, m in zip(hooks, moved):
            entries[i] = m
    else:
        entries[hooks[1]] = entries[hooks[0]][:8] + entries[hooks[1]][8:]
    b = bytearray(data)
    b[s.offset:s.offset + len(rels) * 24] = b"".join(entries)
    return bytes(b)


def table_in_order(how):
    """Hook relocations out of offset order, or two on one call: the
    table still lists each call once, in address order (what sorting
    the sites gives), the oracle being the input's own relocations."""
    obj = asm_object("hooks-in-order")
    with open(obj, "rb") as f:
        data = hook_relocs_reordered(f.read(), how)
    with open(obj, "wb") as f:
        f.write(data)
    e = elfmini.Elf(data)
    text = e.section(".text")
    want = sorted({r.offset - 1 for r in e.relocs(e.section(".rela.text"))
                   if e.symbols[r.sym].name in HOOKS})
    rc, _o, err = tool(obj)
    check(rc == 0 and err == "", "exit %d: %s" % (rc, err))
    got = elfmini.table_entries(elfmini.Elf(obj))
    check(got is not None, "no table")
    check([(x[0], x[1]) for x in got] == [(text.index, o) for o in want],
          "table %r, want .text+%r in order" % (got, want))
    check([x[3] for x in got] == [8 * k for k in range(len(got))],
          "slots %r" % [x[3] for x in got])


# Per architecture, GCC's cross compiler and the hook symbol a C function
# refers to other than by a hook call: by address (absolute, or through
# the GOT with -fPIC) and by a tail call.  (ppc32 -fPIC is left out: its
# address comes from .got2, outside the code, and its "tail call" is a
# `bl`, a hook call like any other.)
NOT_A_CALL_ARCHES = (
    ("x86_64-linux-gnu", "__fentry__"), ("i686-linux-gnu", "mcount"),
    ("aarch64-linux-gnu", "_mcount"),
    ("arm-linux-gnueabihf", "__gnu_mcount_nc"),
    ("riscv64-linux-gnu", "_mcount"), ("powerpc-linux-gnu", "_mcount"),
    ("s390x-linux-gnu", "_mcount"), ("mips-linux-gnu", "_mcount"),
    ("mips64el-linux-gnuabi64", "_mcount"),
    ("sparc64-linux-gnu", "_mcount"), ("sh4-linux-gnu", "mcount"),
    ("loongarch64-linux-gnu", "mcount"),
)
# Where Debian has no GCC and binutils for the machine: the compiler and
# readelf instead of <triplet>-gcc and <triplet>-readelf.
NOT_A_CALL_TOOLS = {
    "loongarch64-linux-gnu": (["clang-16", "--target=loongarch64-linux-gnu"],
                              "llvm-readelf-16"),
}


def not_a_call_tools(triplet):
    return NOT_A_CALL_TOOLS.get(triplet, (["%s-gcc" % triplet],
                                          "%s-readelf" % triplet))
NOT_A_CALL_RE = re.compile(r"warning: \.text\+0x([0-9a-f]+): reference to "
                           r"(\S+) \(([^)]*)\) is not a call")


def not_a_call_names_relocation_on(triplet, hook, pic):
    """Each warning about a reference to the hook that is no call names
    the relocation at that place as the architecture's readelf does;
    none says "relocation type N"."""
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    src, obj = os.path.join(d, "ref.c"), os.path.join(d, "ref.o")
    with open(src, "w") as f:
        f.write("extern void %s(void);\n"
                "void *hook_address(void) { return (void *)%s; }\n"
                "void tail(void) { %s(); }\n" % (hook, hook, hook))
    compiler, readelf = not_a_call_tools(triplet)
    must(compiler + ["-O2", pic, "-c", src, "-o", obj])
    out, _ = must([readelf, "-rW", obj])
    want, in_text = {}, False
    for line in out.splitlines():
        if line.startswith("Relocation section"):
            in_text = re.search(r"'\.rela?\.text'", line) is not None
            continue
        f = line.split()
        if in_text and len(f) >= 5 and f[4] == hook:
            want[int(f[0], 16)] = f[2]
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    check("relocation type" not in err, "a type printed as a number: %r"
          % err)
    got = NOT_A_CALL_RE.findall(err)
    check(got, "no warning about a reference to %s: %r" % (hook, err))
    for off, sym, name in got:
        check(sym == hook and want.get(int(off, 16)) == name,
              ".text+0x%s named %s, readelf says %s" %
              (off, name, want.get(int(off, 16))))


# clang hook protocols neither --nop nor the runtime can undo: each call
# is reported with its place (never taken for an object without hooks),
# --strict fails the file, and the object is left as it was.
UNSUPPORTED_CLANG = {
    "arm": (["--target=arm-linux-gnueabihf", "-O2", "-pg"], "mcount",
            "arm-linux-gnueabihf-objdump"),
    "s390x": (["--target=s390x-linux-gnu", "-O2", "-pg"], "mcount",
              "s390x-linux-gnu-objdump"),
}


def unsupported_clang_hooks(arch):
    flags, hook, objdump = UNSUPPORTED_CLANG[arch]
    d = os.path.join(SCRATCH, "cases", "%03d" % next(_count))
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "f.c")
    with open(src, "w") as f:
        f.write("int f(int x) { return x * 3; }\n"
                "int g(int x) { return f(x) + 1; }\n")
    obj = os.path.join(d, "f.o")
    must(["clang"] + flags + ["-c", src, "-o", obj])
    # the oracle: objdump -dr's relocations naming the hook
    out = subprocess.run([objdump, "-dr", obj], capture_output=True,
                         text=True, check=True).stdout
    want = sorted(int(m.group(1), 16) for m in re.finditer(
        r"^\s*([0-9a-f]+):\s+R_\w+\s+%s(?:[-+]0x[0-9a-f]+)?$" % hook,
        out, re.M))
    check(len(want) == 2, "objdump shows %d calls to %s" % (len(want), hook))
    before = snapshot(obj)
    rc, _o, err = tool(obj)
    check(rc == 0, "exit %d: %s" % (rc, err))
    got = sorted(int(m.group(1), 16) for m in re.finditer(
        r"warning: \.text\+0x([0-9a-f]+): call to %s: .*not supported"
        % hook, err))
    # a reported site is where its call's relocation field is, or the
    # call before it: both name the same instruction
    check(len(got) == len(want) and
          all(0 <= w - g < 8 for g, w in zip(got, want)),
          "reported %s, objdump's hook calls at %s: %r"
          % ([hex(g) for g in got], [hex(w) for w in want], err))
    check(snapshot(obj) == before, "the object changed")
    rc, _o, err = tool("--strict", obj)
    check(rc == 1 and "--strict" in err, "--strict: exit %d, %r" % (rc, err))
    check(snapshot(obj) == before, "--strict failure changed the file")


def strict_clean(objs, key):
    """--strict changes nothing for an object with nothing to report."""
    src = objs[key]
    want = gcc_sites(objs[key + "-gcc"])
    obj = fresh(src)
    rc, _o, err = tool("--strict", obj)
    check(rc == 0 and not err, "exit %d: %s" % (rc, err))
    got = sites_of(obj)
    check(got == want, "recorded %s, GCC's table %s" % (sorted(got or ()),
                                                       sorted(want)))


def verbose(objs):
    obj = fresh(objs["basic-x86_64-fentry-pie-O2"])
    rc, _o, err = tool("-v", obj)
    check(rc == 0 and obj in err, "-v said nothing about the file: %r"
          % err)


# -- --symbol, --section, --no-section ---------------------------------

def dump_without_symbol(objs, key):
    """Recorded with --symbol=my_hook, dumped without it: each entry says
    it holds a call to my_hook, which is not a hook, and how to make it
    one, rather than "unexpected 0x8" (the call's unrelocated field)."""
    obj = fresh(objs[key])
    rc, _o, err = tool("--symbol=my_hook", obj)
    check(rc == 0, "record: exit %d: %s" % (rc, err))
    n = len(objdump_reloc_sites(objs[key], "my_hook"))
    rc, out, err = tool("--dump", obj)
    check(rc == 0, "--dump: exit %d: %s" % (rc, err))
    want = ("unexpected call to my_hook, not a hook; --symbol=my_hook if "
            "it is one")
    rows = [x for x in out.splitlines() if re.match(r"^\s+\d+\s", x)]
    check(len(rows) == n and all(x.endswith(want) for x in rows),
          "%d entries (objdump: %d my_hook calls), want each to end %r: %r"
          % (len(rows), n, want, rows[:2]))


def custom_symbol(objs, key):
    src = objs[key]
    want = objdump_reloc_sites(src, "my_hook")
    # Three functions call it; at -O2 inlined copies add more calls.
    check(len(want) >= 3, "objdump shows %d my_hook calls, want 3 or more"
          % len(want))
    obj = fresh(src)
    age(obj)
    untouched_after([obj], obj, 0)
    rc, _o, err = tool("--symbol", "my_hook", obj)
    check(rc == 0 and not err, "exit %d: %s" % (rc, err))
    got = sites_of(obj)
    check(got == want, "recorded %s, objdump shows %s"
          % (sorted(got or ()), sorted(want)))
    other = objdump_reloc_sites(src, "other_call")
    check(other and not (other & got), "other_call recorded")
    obj2 = fresh(src)
    rc, _o, err = tool("-s", "my_hook", "-n", obj2)
    check(rc == 0, "-s -n: exit %d" % rc)
    insns = objdump_insns(obj2)
    for sec, off in want:
        check(insns[sec][off][0] == NOP[5], "%s+%#x not NOPed" % (sec, off))


def section_globs(objs, args, globs):
    key = "sections-x86_64-fentry-nopie-O2"
    want = gcc_sites(objs[key + "-gcc"], **globs)
    obj = fresh(objs[key])
    rc, _o, err = tool(*(args + [obj]))
    check(rc == 0 and not err, "exit %d: %s" % (rc, err))
    got = sites_of(obj)
    check(got == want, "recorded %s, want %s" % (sorted(got or ()),
                                                 sorted(want)))
    default = gcc_sites(objs[key + "-gcc"])
    check(want != default, "test is void: same as the default set")
    # Sections taken out of tracing get their calls NOPed.
    allsites = original_sites(objs[key + "-gcc"], objs[key])
    insns = objdump_insns(obj)
    for (sec, off), n in allsites.items():
        if not traced(sec, **globs):
            check(insns[sec][off][0] == NOP[n], "%s+%#x untraced but not "
                  "NOPed" % (sec, off))


def main():
    global TOOL, SCRATCH
    TOOL, SCRATCH, results = scratch_arg()
    log = Log(os.path.join(results, "cli.log"))
    objs = Objects()
    declare(objs)
    declare_dump(objs)
    objs.build()

    cases = []
    for c in NOP_CONFIGS:
        for fx in ("basic", "sections"):
            cases.append(("cli/nop/%s/%s" % (fx, c.name),
                          lambda c=c, fx=fx: nop_checks(c, objs, fx, True)))
            cases.append(("cli/untraced-nopped/%s/%s" % (fx, c.name),
                          lambda c=c, fx=fx: nop_checks(c, objs, fx, False)))
        cases.append(("cli/nop-link-run/%s" % c.name,
                      lambda c=c: nop_link_run(c, objs)))
        cases.append(("cli/nop-link-glibc/%s" % c.name,
                      lambda c=c: nop_link_glibc(c, objs)))
        cases.append(("cli/nop-link-control/%s" % c.name,
                      lambda c=c: nop_control(c, objs)))
        cases.append(("cli/nop-hook-weak/%s" % c.name,
                      lambda c=c: nop_weak_hook(c, objs)))
        cases.append(("cli/warn-untraced/%s" % c.name,
                      lambda c=c: warn_untraced(objs, c)))
    cases.append(("cli/check/nopped-weak-body-stale",
                  nopped_weak_body_stale))
    cases.append(("cli/check/riscv64-labelled-tracer-call-no-hook",
                  lambda: labelled_tracer_call(True)))
    cases.append(("cli/check/riscv64-unlabelled-call-unrecorded",
                  lambda: labelled_tracer_call(False)))
    cases.append(("cli/quiet", lambda: quiet_checks(objs)))
    cases.append(("cli/quiet-silences-w", lambda: quiet_w(objs)))
    for key in ("basic-x86_64-fentry-pie-O2", "basic-i386-mcount-pie-O2",
                "sections-i386-fentry-nopie-O2", "big", "weakonly"):
        cases.append(("cli/idempotent/%s" % key,
                      lambda key=key: idempotent(objs, key)))
    for c in NOP_CONFIGS[:3]:
        cases.append(("cli/no-hooks-untouched/%s" % c.name,
                      lambda c=c: no_hooks(objs, "plain-%s" % c.name)))
    cases.append(("cli/idempotent/all-untraced", lambda: all_untraced(
        objs)))
    cases.append(("cli/has-table-untouched", lambda: gcc_table_untouched(
        objs)))
    for name, data in sorted(bad_inputs(objs).items()):
        cases.append(("cli/bad/%s" % name,
                      lambda data=data, name=name: bad_file(data, name)))
    cases.append(("cli/output-bound", lambda: output_bound(objs)))
    cases.append(("cli/per-section-extended-index",
                  per_section_extended_index))
    for name, (data, want) in sorted(hostile_inputs(objs).items()):
        cases.append(("cli/hostile/%s" % name,
                      lambda data=data, name=name, want=want:
                      hostile_case(data, name, want)))
    hostile_mips64(log)
    cases.append(("cli/bad/et-exec-program",
                  lambda: bad_exec(objs, "program")))
    cases.append(("cli/bad/et-dyn-shared", lambda: bad_exec(objs,
                                                             "shared.so")))
    cases.append(("cli/bad/et-exec-header",
                  lambda: bad_et_exec_object(objs)))
    cases.append(("cli/bad/directory", bad_dir))
    cases.append(("cli/bad/missing-file", bad_missing))
    cases.append(("cli/mixed/good-then-bad", lambda: mixed(objs, False)))
    cases.append(("cli/mixed/bad-then-good", lambda: mixed(objs, True)))
    cases.append(("cli/jobs/same-as-j1", lambda: jobs_same(objs)))
    cases.append(("cli/jobs/with-bad-file", lambda: jobs_with_bad(objs)))
    for mode in (0o640, 0o755, 0o600):
        cases.append(("cli/mode-kept/%o" % mode,
                      lambda mode=mode: mode_kept(objs, mode)))
    for mode, args in ((0o444, []), (0o400, ["--nop"])):
        cases.append(("cli/read-only/%o%s" % (mode, "".join(args)),
                      lambda mode=mode, args=args:
                      read_only_refused(objs, mode, args)))
    cases.append(("cli/read-only/second-name-recorded",
                  lambda: read_only_linked(objs)))
    cases.append(("cli/totals/verbose", lambda: totals(objs, ["-v"])))
    cases.append(("cli/totals/verbose-j2",
                  lambda: totals(objs, ["-v", "-j2"])))
    cases.append(("cli/totals/check", lambda: totals(objs, ["--check"])))
    cases.append(("cli/progress/terminal-only",
                  lambda: progress_on_a_terminal(objs)))
    cases += usage_cases(objs)
    cases.append(("cli/help-version", help_version))
    cases.append(("cli/lto/gcc-slim", lambda: lto_case(
        "gcc", ["-flto"], "GCC LTO object")))
    cases.append(("cli/lto/clang-bitcode", lambda: lto_case(
        "clang", ["-flto"], "LLVM bitcode")))
    cases.append(("cli/lto/gcc-fat-recorded", fat_lto_recorded))
    cases.append(("cli/archive-refused", lambda: ar_archive(objs)))
    cases.append(("cli/nop-on-recorded-says-why", lambda: nop_on_recorded(
        objs)))
    for name, (key, args) in sorted(DUMP_CASES.items()):
        cases.append(("cli/dump/%s" % name,
                      lambda key=key, args=args: dump_object(objs, key,
                                                             args)))
    cases.append(("cli/dump/linked", lambda: dump_linked(objs)))
    cases.append(("cli/dump/find-nops-twice", lambda: dump_crash_free(objs)))
    cases.append(("cli/dump/json-lines", lambda: dump_json_lines(objs)))
    cases.append(("cli/section/no-section-pads-kept",
                  lambda: no_section_pads_kept(objs)))
    cases.append(("cli/verbose", lambda: verbose(objs)))
    cases.append(("cli/unknown-pad/kept", lambda: unknown_pad_kept(False)))
    cases.append(("cli/unknown-pad/kept-quiet",
                  lambda: unknown_pad_kept(True)))
    cases.append(("cli/strict/unknown-pad",
                  lambda: strict_fails("unknown-pad", "an unknown pad")))
    cases.append(("cli/strict/not-a-call",
                  lambda: strict_fails("not-a-call", "a non-call")))
    cases.append(("cli/not-a-call/names-relocation",
                  not_a_call_names_relocation))
    for how in ("reversed", "repeated"):
        cases.append(("cli/table-order/" + how,
                      lambda how=how: table_in_order(how)))
    for triplet, hook in NOT_A_CALL_ARCHES:
        for pic in ("-fno-pic", "-fPIC"):
            if triplet.startswith("powerpc-") and pic == "-fPIC":
                continue
            name = "cli/not-a-call/names-relocation/%s%s" % (
                triplet.split("-")[0], pic)
            compiler = not_a_call_tools(triplet)[0][0]
            if shutil.which(compiler):
                cases.append((name, lambda t=triplet, h=hook, p=pic:
                              not_a_call_names_relocation_on(t, h, p)))
            else:
                log.skip(name, "no %s" % compiler)
    for arch in sorted(UNSUPPORTED_CLANG):
        cases.append(("cli/strict/unsupported-clang-hook/%s" % arch,
                      lambda arch=arch: unsupported_clang_hooks(arch)))
    for key in ("basic-x86_64-fentry-pie-O2", "sections-i386-mcount-pie-O2"):
        cases.append(("cli/strict/clean/%s" % key,
                      lambda key=key: strict_clean(objs, key)))
    cases.append(("cli/dump/without-symbol", lambda: dump_without_symbol(
        objs, sorted(k for k in objs.made if k.startswith("custom-"))[0])))
    for key in sorted(k for k in objs.made if k.startswith("custom-")):
        cases.append(("cli/symbol/%s" % key[7:],
                      lambda key=key: custom_symbol(objs, key)))
    for name, args, globs in (
            ("no-section-sched", ["--no-section", ".sched.text"],
             {"no_sections": [".sched.text"]}),
            ("no-section-text-glob", ["--no-section", ".text*"],
             {"no_sections": [".text*"]}),
            ("section-custom", ["--section", ".fixture.notrace"],
             {"sections": [".fixture.notrace"]}),
            ("section-glob", ["--section", ".fixture.*"],
             {"sections": [".fixture.*"]}),
            ("section-and-no-section",
             ["--section", ".fixture.*", "--no-section", ".fixture.other",
              "--no-section", ".init.text"],
             {"sections": [".fixture.*"],
              "no_sections": [".fixture.other", ".init.text"]})):
        cases.append(("cli/section/%s" % name,
                      lambda args=args, globs=globs:
                      section_globs(objs, args, globs)))

    parallel(lambda nc: log.case(nc[0], nc[1]), cases)
    sys.exit(finish_scratch(log, SCRATCH))


if __name__ == "__main__":
    main()
