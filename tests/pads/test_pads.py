#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_pads.py RECORDMCOUNT SCRATCH-DIR - -fpatchable-function-entry pads
and -mnop-mcount NOPs (issue 6), on every architecture whose Debian cross
compiler has the option.

Everything expected comes from outside the tool: the compiler's own
__patchable_function_entries (its relocations, read with readelf -rW and
resolved here), GCC's own -mrecord-mcount table, nm, objdump -d of linked
programs, and the linker.  Groups of cases (one PASS/FAIL line per check,
in $TEST_RESULTS/pads.log):

  <arch>/<N>,<M>-<opt>[-clang[-16]]/...
                             fixtures/pads/pads.c with
                             -fpatchable-function-entry=N,M, by GCC and,
                             where clang has the option (x86_64, i386,
                             aarch64, riscv64), by clang 14 and 16 too
      entries   our __mcount_loc entries (every piece) == the compiler's
                pad entries; the tool prints nothing, or where the ISA's
                figures (PadArch.call, .nop) say the runtime's call does
                not fit, one warning counting every pad
      gate      (architectures with a runtime) --check fails exactly
                those pads, one unusable-pad problem each
      gone      no __patchable_function_entries left
      keep      --keep-patchable leaves the object byte-identical
      pieces    each piece sorted, unique, aligned, every entry in the
                piece's SHF_LINK_ORDER section, in its linked section's
                COMDAT group
      tools     readelf -a, objdump -dr quiet on stderr; ld -r works
      link      -nostdlib -static link with lds/mcount.lds: the table ==
                the pad address objdump -d shows before every padded
                function (entry minus M NOPs), once each
  <arch>/corrupt             one pad's NOPs overwritten: one warning naming
                             it with its bytes, every pad of the compiler's
                             list kept where it was, the object links;
                             --strict fails it, untouched
  c++/...                    inline functions in two objects, pads and
                             -pg -mfentry, linked with --gc-sections: one
                             entry per surviving function; and what the
                             compiler's tables alone lose
  mixed/...                  -pg hooks and pads in one object (ld -r, and
                             one compile with both): both recorded, once
  findnops/...               -mnop-mcount: --find-nops == GCC's own
                             -mrecord-mcount table; without it the object
                             is left alone
  loongarch64/<N>,<M>-clang-16-as, loongarch64/corrupt
                             no LoongArch compiler here writes pads:
                             assembly in GCC's shape, assembled by
                             clang-16; the pads the symbols place (M NOPs
                             before each) == the assembler's list ==
                             our entries; llvm-objdump shows N NOPs at
                             each and the code unchanged; gone, pieces,
                             tools (LLVM 16's), --check clean (no
                             runtime judges the pads), --keep-patchable;
                             a corrupted pad warned about as above
  <arch>/runtime-agrees[-clang[-16]]
                             fixtures/pads/fit.c (ten pad shapes) recorded,
                             linked with the architecture's libmcount.a and
                             run: the pads the runtime refuses at boot ==
                             those --check fails == those the ISA's figures
                             say are too short, and the record warning
                             counts them
"""

import json
import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cross"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))

import common  # noqa: E402
from harness import (FIXTURES, Failure, Log, age, check,  # noqa: E402
                     finish_scratch, must, parallel, run, scratch_arg,
                     snapshot, traced)

TOP = os.path.dirname(os.path.dirname(HERE))
PADS = os.path.join(FIXTURES, "pads")
MCOUNT_LDS = os.path.join(TOP, "lds", "mcount.lds")
OPTS = ("-O2", "-O2 -ffunction-sections")

# pads.c's functions; every one but the opt-out gets a pad.
PAD_FUNCS = ("pad_global", "pad_static", "pad_weak", "pad_cold",
             "pad_named", "pad_entry")
PAD_OPTOUT = "pad_optout"


class PadArch:
    """What the tests know about one architecture, written by hand: the
    triplet and flags, how objdump prints a pad NOP and an entry marker
    (endbr64, bti c), and the (N, M) pairs to try.  all_before: GCC puts
    all N NOPs before the symbol whatever M says (MIPS).  dot_syms: objdump
    names code entries ".name" (ppc64 ELFv1 function descriptors).
    thumb: STT_FUNC values carry the Thumb bit.  in_bytes: N and M count
    bytes (x86, where clang writes multi-byte NOPs; GCC's one-byte NOPs
    make bytes and NOPs the same).  clang: clang has the option for this
    target; the cases then run with clang 14 and 16 too.

    rt: the runtime library (build/<rt>/libmcount.a) that runs this
    code, or None where there is none; call: the bytes of the call it
    writes into a pad, from the ISA (x86 `call rel32` 5; aarch64 `mov
    x9, x30; bl` 8; ARM `mov ip, lr; bl` 8 and Thumb-2's 2 + 4; RISC-V
    `auipc; jalr` 8; ppc64le `mflr r0; bl` 8; s390x `brasl` 6); nop: the
    bytes of one of the compiler's pad NOPs.  A pad with fewer than
    `call` bytes of NOPs from the entry on cannot be enabled."""

    def __init__(self, name, triplet, cflags=(), nop_re=r"^nop$",
                 prefix_re=None, nms=((2, 0), (5, 0), (3, 1), (8, 0)),
                 all_before=False, dot_syms=False, thumb=False,
                 corrupt=False, in_bytes=False, clang=False, rt=None,
                 call=0, nop=4):
        self.name, self.triplet = name, triplet
        self.in_bytes, self.clang = in_bytes, clang
        self.rt, self.call, self.nop = rt, call, 1 if in_bytes else nop
        self.cflags = list(cflags)
        self.nop_re = re.compile(nop_re)
        self.prefix_re = re.compile(prefix_re) if prefix_re else None
        self.nms = tuple(nms)
        self.all_before, self.dot_syms = all_before, dot_syms
        self.thumb, self.corrupt = thumb, corrupt

    def tool(self, name):
        return "%s-%s" % (self.triplet, name)

    def too_short(self, n, m):
        """True if the runtime cannot enable a pad of N, M (the ISA's
        figures above, not the tool's)."""
        return bool(self.call) and (n - m) * self.nop < self.call


ARM_NOP = r"^nop(\.w)?( \{0\})?$"   # Thumb nop/nop.w, ARM nop {0}
# GCC's `nop`; clang's nopl/nopw with displacements, `xchg %ax,%ax`, and
# the ten- to fifteen-byte `[data16 ...] cs nopw`.
X86_NOP = r"^(nop[wl]?|xchg %ax,%ax|(data16 )*cs nopw)( .*)?$"

ARCHES = [
    PadArch("x86_64", "x86_64-linux-gnu", ["-fno-pie"], corrupt=True,
            nms=((2, 0), (5, 0), (3, 1), (8, 0), (1, 1), (16, 0), (12, 5)),
            nop_re=X86_NOP, in_bytes=True, clang=True, rt="x86_64", call=5),
    PadArch("x86_64-cet", "x86_64-linux-gnu",
            ["-fno-pie", "-fcf-protection=full"], prefix_re=r"^endbr64$",
            nop_re=X86_NOP, in_bytes=True, clang=True, rt="x86_64", call=5),
    PadArch("i386", "i686-linux-gnu", ["-fno-pie"], nop_re=X86_NOP,
            in_bytes=True, clang=True, rt="i386", call=5,
            nms=((2, 0), (5, 0), (3, 1), (8, 0), (7, 2))),
    PadArch("aarch64", "aarch64-linux-gnu", corrupt=True, clang=True,
            rt="aarch64", call=8),
    PadArch("aarch64-bti", "aarch64-linux-gnu",
            ["-mbranch-protection=bti"], prefix_re=r"^bti\s+c$", clang=True,
            rt="aarch64", call=8),
    PadArch("arm-thumb", "arm-linux-gnueabihf", nop_re=ARM_NOP, thumb=True,
            corrupt=True, rt="arm", call=6, nop=2),
    PadArch("arm-arm", "arm-linux-gnueabihf", ["-marm"], nop_re=ARM_NOP,
            rt="arm", call=8),
    PadArch("riscv64", "riscv64-linux-gnu", corrupt=True,
            nms=((2, 0), (5, 0), (3, 1), (8, 0), (4, 0)), clang=True,
            rt="riscv64", call=8, nop=2),
    PadArch("riscv64-rv64g", "riscv64-linux-gnu",
            ["-march=rv64g", "-mabi=lp64d"],
            nms=((2, 0), (5, 0), (3, 1), (8, 0), (4, 0)), clang=True,
            rt="riscv64", call=8),
    # ELFv2: the pad after the global entry moves the local entry, which
    # must stay a power of 2 instructions away (5,0 and 8,0 do not build).
    PadArch("ppc64le", "powerpc64le-linux-gnu", corrupt=True,
            nms=((2, 0), (3, 1), (6, 0), (4, 2)), rt="ppc64le", call=8),
    PadArch("ppc64", "powerpc64-linux-gnu", dot_syms=True),
    PadArch("ppc", "powerpc-linux-gnu"),
    PadArch("s390x", "s390x-linux-gnu", nop_re=r"^nopr(\s+%r0)?$",
            corrupt=True, rt="s390x", call=6, nop=2),
    PadArch("mips", "mips-linux-gnu", all_before=True),
    PadArch("mips64el", "mips64el-linux-gnuabi64", all_before=True),
]

X86_64 = ARCHES[0]


# -- reading objects with the binutils -----------------------------------

SEC_RE = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+"
                    r"([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([A-Za-z]*)"
                    r"\s+(\d+)\s+(\d+)\s+(\d+)\s*$")


class Obj:
    """One object file as <triplet>-readelf shows it: sections (with link
    and info), COMDAT groups, symbols, relocations by section."""

    def __init__(self, arch, path):
        self.arch, self.path = arch, path
        out, _ = must([arch.tool("readelf"), "-hSW", path])
        self.big = "big endian" in out
        self.is64 = "ELF64" in out
        self.size = 8 if self.is64 else 4
        self.secs = {}
        for line in out.splitlines():
            m = SEC_RE.match(line)
            if m:
                i = int(m.group(1))
                self.secs[i] = {
                    "index": i, "name": m.group(2), "type": m.group(3),
                    "offset": int(m.group(5), 16),
                    "size": int(m.group(6), 16), "flags": m.group(8),
                    "link": int(m.group(9)), "info": int(m.group(10)),
                    "align": int(m.group(11))}
        self.group_of = {}
        out, _ = must([arch.tool("readelf"), "-gW", path])
        group = None
        for line in out.splitlines():
            m = re.match(r"^COMDAT group section \[\s*(\d+)\]", line)
            if m:
                group = int(m.group(1))
                continue
            m = re.match(r"^\s*\[\s*(\d+)\]\s+\S", line)
            if m and group is not None:
                self.group_of[int(m.group(1))] = group
        self.syms, self.sym_names = self._symbols()
        self.rels = self._relocs()
        with open(path, "rb") as f:
            self.data = f.read()

    def _symbols(self):
        """({index: (value, section index or None)}, {index: name}) from
        readelf -sW's .symtab; ppc64le's "[<localentry>: 8]" dropped."""
        out, _ = must([self.arch.tool("readelf"), "-sW", self.path])
        syms, names, in_symtab = {}, {}, False
        for line in out.splitlines():
            if line.startswith("Symbol table"):
                in_symtab = ".symtab" in line
                continue
            f = re.sub(r"\[[^]]*\]", " ", line).split()
            if not in_symtab or len(f) < 7 or not re.match(r"^\d+:$", f[0]):
                continue
            i = int(f[0][:-1])
            syms[i] = (int(f[1], 16), int(f[6]) if f[6].isdigit() else None)
            names[i] = f[7] if len(f) > 7 else ""
        return syms, names

    def _relocs(self):
        """{relocation section index: [(offset, sym index, type, addend
        or None)]}; sections found by name and file offset."""
        out, _ = must([self.arch.tool("readelf"), "-rW", self.path])
        by_off = {(s["name"], s["offset"]): i for i, s in self.secs.items()}
        result, cur = {}, None
        for line in out.splitlines():
            m = re.match(r"^Relocation section '([^']*)' at offset "
                         r"0x([0-9a-f]+)", line)
            if m:
                idx = by_off[(m.group(1), int(m.group(2), 16))]
                cur = result.setdefault(idx, [])
                continue
            f = line.split()
            if cur is None or len(f) < 3 or \
                    not re.match(r"^[0-9a-f]+$", f[0]) or \
                    not f[2].startswith("R_"):
                continue
            m = re.search(r"([-+]) ([0-9a-f]+)$", line)
            addend = None
            if m:
                addend = int(m.group(2), 16) * (-1 if m.group(1) == "-"
                                                else 1)
            info = int(f[1], 16)
            cur.append((int(f[0], 16), info >> 32 if self.is64 else
                        info >> 8, f[2], addend))
        return result

    def named(self, name):
        return [i for i, s in sorted(self.secs.items()) if s["name"] == name]

    def word(self, sec, off):
        s = self.secs[sec]
        fmt = (">" if self.big else "<") + ("Q" if self.is64 else "I")
        return struct.unpack_from(fmt, self.data, s["offset"] + off)[0]

    def entries(self, table):
        """[(slot offset, section index, offset)] of one table section in
        relocation order: symbol value + addend (RELA) or + slot (REL)."""
        rel = [i for i, s in self.secs.items()
               if s["type"] in ("REL", "RELA") and s["info"] == table]
        check(len(rel) == 1, "%s [%d] has %d relocation sections" %
              (self.secs[table]["name"], table, len(rel)))
        mask = (1 << (8 * self.size)) - 1
        out = []
        for off, sym, _t, addend in self.rels.get(rel[0], []):
            value, shndx = self.syms[sym]
            if addend is None:
                addend = self.word(table, off)
            out.append((off, shndx, (value + addend) & mask))
        return out

    def entry_set(self, name):
        """{(section name, offset)} of every section called `name`."""
        return {(self.secs[s]["name"], o)
                for t in self.named(name) for _x, s, o in self.entries(t)}

    def entry_list(self, name):
        return [(self.secs[s]["name"], o)
                for t in self.named(name) for _x, s, o in self.entries(t)]


def fmt(sites, limit=6):
    s = sorted(sites)
    more = "" if len(s) <= limit else " (+%d more)" % (len(s) - limit)
    return "{" + ", ".join("%s+%#x" % x if isinstance(x, tuple) else
                           "%#x" % x for x in s[:limit]) + more + "}"


def compare(ours, want, what="expected"):
    check(ours == want, "ours - %s: %s; %s - ours: %s" %
          (what, fmt(ours - want), what, fmt(want - ours)))


INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
LABEL_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")


def disasm(arch, path):
    """([(addr, text)] sorted, {label: addr}) from objdump -dz."""
    out, _ = must([arch.tool("objdump"), "-dz", path])
    insns, labels = {}, {}
    for line in out.splitlines():
        m = LABEL_RE.match(line)
        if m:
            labels.setdefault(m.group(2), int(m.group(1), 16))
            continue
        m = INSN_RE.match(line)
        if m:
            insns[int(m.group(1), 16)] = " ".join(m.group(3).split())
    return sorted(insns.items()), labels


def nm_functions(arch, path):
    """{name: address} of the text symbols nm shows."""
    out, _ = must([arch.tool("nm"), path])
    funcs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWw":
            funcs[f[2]] = int(f[0], 16)
    return funcs


def table_words(arch, path, section="__mcount_loc"):
    o = Obj(arch, path)
    secs = o.named(section)
    check(secs, "no %s section in %s" % (section, os.path.basename(path)))
    s = o.secs[secs[0]]
    fmt_ = (">" if o.big else "<") + ("Q" if o.is64 else "I")
    return [struct.unpack_from(fmt_, o.data, s["offset"] + i)[0]
            for i in range(0, s["size"], o.size)]


def tool_ok(tool, args, expect_quiet=True):
    rc, so, se = run([tool] + list(args))
    check(rc == 0, "recordmcount %s exited %d: %s" %
          (" ".join(os.path.basename(a) for a in args), rc, se.strip()[:300]))
    if expect_quiet:
        check(se == "" and so == "", "recordmcount printed: %s" %
              (se + so).strip()[:300])
    return se


def tools_quiet(arch, path, scratch_obj):
    for cmd in ([arch.tool("readelf"), "-a", "-W", path],
                [arch.tool("objdump"), "-dr", path]):
        rc, _o, err = run(cmd)
        check(rc == 0 and err.strip() == "", "%s: exit %d: %s" %
              (os.path.basename(cmd[0]), rc, err.strip()[:300]))
    must([arch.tool("ld"), "-r", "-o", scratch_obj, path])


def check_pieces(obj, name="__mcount_loc"):
    """Every piece: sorted by offset, no duplicates, slots and section
    aligned to the address size; an SHF_LINK_ORDER piece holds only its
    linked section's entries and sits in that section's group."""
    pieces = obj.named(name)
    check(pieces, "no %s" % name)
    seen = set()
    for t in pieces:
        s = obj.secs[t]
        ents = obj.entries(t)
        check(s["align"] == obj.size, "piece [%d] aligned to %d, not %d" %
              (t, s["align"], obj.size))
        check(all(x % obj.size == 0 for x, _s, _o in ents),
              "piece [%d] has a misaligned slot" % t)
        check(s["size"] == obj.size * len(ents), "piece [%d]: %d bytes, %d "
              "relocations" % (t, s["size"], len(ents)))
        keys = [(sec, off) for _x, sec, off in sorted(ents)]
        check(keys == sorted(set(keys)), "piece [%d] not sorted or has "
              "duplicates: %s" % (t, keys[:8]))
        check(not (seen & set(keys)), "entries in two pieces: %s" %
              fmt({(obj.secs[a]["name"], b) for a, b in seen & set(keys)}))
        seen |= set(keys)
        if "L" in s["flags"]:
            other = {obj.secs[sec]["name"] for sec, _o in keys
                     if sec != s["link"]}
            check(not other, "piece [%d] linked to %s holds entries of %s" %
                  (t, obj.secs[s["link"]]["name"], ", ".join(sorted(other))))
            # GCC 12 leaves its table for a COMDAT function outside the
            # group, and the tool keeps it there: no group is allowed, a
            # wrong one is not.
            check(obj.group_of.get(t) in (None,
                                          obj.group_of.get(s["link"])),
                  "piece [%d] in group %s, its section %s in group %s" %
                  (t, obj.group_of.get(t), obj.secs[s["link"]]["name"],
                   obj.group_of.get(s["link"])))
        elif len(pieces) > 1:
            groups = {obj.group_of.get(sec) for sec, _o in keys}
            check(groups <= {obj.group_of.get(t)}, "piece [%d] (group %s) "
                  "holds entries of groups %s" % (t, obj.group_of.get(t),
                                                  groups))


# -- per architecture and N,M: the pads fixture ----------------------

# The compilers every case runs with: GCC (the target's cross gcc), and
# for the targets where clang has the option, clang 14 and 16 with
# their integrated assemblers.
CLANGS = ("clang", "clang-16")


def compiler_cmd(arch, compiler):
    """How to compile for arch with compiler ("gcc" or a clang)."""
    if compiler == "gcc":
        return [arch.tool("gcc")]
    return [compiler, "--target=" + arch.triplet]


class PadCase:
    def __init__(self, arch, nm, opt, tool, scratch, compiler="gcc"):
        self.arch, self.n, self.m, self.tool = arch, nm[0], nm[1], tool
        self.compiler = compiler
        self.opt = opt.split()
        oname = opt.replace(" ", "").replace("-", "")
        cname = "" if compiler == "gcc" else "-" + compiler
        self.name = "%s/%d,%d-%s%s" % (arch.name, nm[0], nm[1], oname, cname)
        self.dir = os.path.join(scratch, arch.name, "%d_%d-%s%s" %
                                (nm[0], nm[1], oname, cname))
        self.base_flags = arch.cflags + self.opt
        self.flags = self.base_flags + ["-fpatchable-function-entry=%d,%d" %
                                        nm]
        self.compile_error = None

    def p(self, n):
        return os.path.join(self.dir, n)

    def compile(self):
        try:
            os.makedirs(self.dir, exist_ok=True)
            must(compiler_cmd(self.arch, self.compiler) +
                 ["-c", "-o", self.p("in.o")] +
                 self.flags + [os.path.join(PADS, "pads.c")])
            with open(self.p("start.c"), "w") as f:
                f.write(common.START_C)
            must([self.arch.tool("gcc"), "-c", "-o", self.p("start.o")] +
                 self.base_flags + [self.p("start.c")])
        except Failure as e:
            self.compile_error = str(e)

    def run(self, log):
        if self.compile_error:
            log.result(self.name + "/compile", self.compile_error)
            return
        try:
            self.gcc = Obj(self.arch, self.p("in.o")).entry_set(
                "__patchable_function_entries")
            check(self.gcc, "the compiler recorded no pads")
            shutil.copyfile(self.p("in.o"), self.p("out.o"))
            self.tool_stderr = tool_ok(self.tool, [self.p("out.o")], False)
            self.out = Obj(self.arch, self.p("out.o"))
        except Failure as e:
            log.result(self.name + "/record", e)
            return
        gate = (("gate", self.check_gate),) if self.arch.rt else ()
        for what, fn in ((("entries", self.check_entries),) + gate +
                         (("gone", self.check_gone),
                          ("keep", self.check_keep),
                          ("pieces", self.check_pieces),
                          ("tools", self.check_tools),
                          ("link", self.check_link))):
            log.case("%s/%s" % (self.name, what), fn)

    def check_entries(self):
        compare(self.out.entry_set("__mcount_loc"), self.gcc, "compiler")
        if not self.arch.too_short(self.n, self.m):
            check(self.tool_stderr == "", "recordmcount printed: %s" %
                  self.tool_stderr.strip()[:300])
            return
        # One warning for the object, counting every pad, recorded all
        # the same.
        want = ("recordmcount: %s: warning: libmcount cannot enable "
                "%d of %d pads: " % (self.p("out.o"), len(self.gcc),
                                     len(self.gcc)))
        lines = self.tool_stderr.splitlines()
        check(len(lines) == 1 and lines[0].startswith(want) and
              lines[0].endswith("; recorded all the same"),
              "want one line %r..., got %r" % (want, self.tool_stderr))

    def check_gate(self):
        """--check of the recorded object fails exactly the pads the
        runtime cannot enable, one unusable-pad problem each."""
        rc, out, err = run([self.tool, "--check", "--format=json",
                            self.p("out.o")])
        doc = json.loads(out)
        bad = [p for p in doc["problems"] if p["class"] == "unusable-pad"]
        want = len(self.gcc) if self.arch.too_short(self.n, self.m) else 0
        check(len(bad) == want, "%d unusable-pad problems, want %d: %s" %
              (len(bad), want, out.strip()[:300]))
        check(rc == (1 if doc["problems"] else 0),
              "exit %d with %d problems" % (rc, len(doc["problems"])))

    def check_gone(self):
        left = self.out.named("__patchable_function_entries")
        check(not left, "__patchable_function_entries still there: %s" %
              left)

    def check_keep(self):
        shutil.copyfile(self.p("in.o"), self.p("keep.o"))
        age(self.p("keep.o"))
        before = snapshot(self.p("keep.o"))
        tool_ok(self.tool, ["--keep-patchable", self.p("keep.o")])
        check(snapshot(self.p("keep.o")) == before,
              "--keep-patchable changed a pad-only object")

    def check_pieces(self):
        check_pieces(self.out)
        n = len(self.out.entry_list("__mcount_loc"))
        check(n == len(self.gcc), "%d entries, %d pads" % (n, len(self.gcc)))

    def check_tools(self):
        tools_quiet(self.arch, self.p("out.o"), self.p("r.o"))

    def check_link(self):
        a = self.arch
        prog = self.p("prog")
        must([a.tool("gcc")] + self.base_flags +
             ["-nostdlib", "-static", "-no-pie", "-o", prog,
              self.p("start.o"), self.p("out.o"), "-lgcc",
              "-Wl,-T," + MCOUNT_LDS])
        table = table_words(a, prog)
        check(len(table) == len(set(table)), "linked table has duplicates")
        want = expected_pads(a, prog, PAD_FUNCS, self.n, self.m)
        check(want, "test is void: no pads expected")
        compare(set(table), want)
        insns, labels = disasm(a, prog)
        opt_out = labels.get(("." if a.dot_syms else "") + PAD_OPTOUT)
        check(opt_out is not None and opt_out not in table,
              "%s (opted out) is in the table" % PAD_OPTOUT)


def expected_pads(arch, prog, funcs, n, m):
    """{pad address} objdump -d shows in a linked program: for each
    function, its entry (after endbr64 / bti c) must be followed by N - M
    NOPs and preceded by M, and the pad starts at the first of them."""
    insns, labels = disasm(arch, prog)
    index = {addr: i for i, (addr, _t) in enumerate(insns)}
    before = n if arch.all_before else m
    want = set()
    if arch.in_bytes:
        return expected_byte_pads(arch, insns, labels, index, funcs, n, m)
    for f in funcs:
        entry = labels.get(("." if arch.dot_syms else "") + f)
        check(entry is not None, "objdump -d shows no %s" % f)
        check(entry in index, "%s: no instruction at %#x" % (f, entry))
        i = index[entry]
        check(i >= before and all(arch.nop_re.search(t) for _a, t in
                                  insns[i - before:i]),
              "%s: the %d instructions before %#x are not all NOPs: %s" %
              (f, before, entry, insns[max(0, i - before):i]))
        j = i
        if arch.prefix_re and arch.prefix_re.search(insns[j][1]):
            j += 1
        after = insns[j:j + n - before]
        check(len(after) == n - before and
              all(arch.nop_re.search(t) for _a, t in after),
              "%s: %d NOPs expected at %#x: %s" % (f, n - before,
                                                  insns[j][0], after))
        want.add(insns[i - before][0] if before else
                 (after[0][0] if after else entry))
    return want


def expected_byte_pads(arch, insns, labels, index, funcs, n, m):
    """expected_pads where N and M count bytes (x86): NOP instructions
    fill exactly the M bytes before each entry and N - M after it (after
    endbr64), however long each NOP is."""
    want = set()
    for f in funcs:
        entry = labels.get(f)
        check(entry in index, "%s: no instruction at %r" % (f, entry))
        i = index[entry]
        check(entry - m in index and all(
            arch.nop_re.search(t) for _a, t in insns[index[entry - m]:i]),
            "%s: the %d bytes before %#x are not whole NOPs: %s" %
            (f, m, entry, insns[index.get(entry - m, i):i]))
        j = i
        if arch.prefix_re and arch.prefix_re.search(insns[j][1]):
            j += 1
        start = insns[j][0]
        k = j
        while k < len(insns) and insns[k][0] < start + n - m:
            check(arch.nop_re.search(insns[k][1]), "%s: %r in its pad at "
                  "%#x" % (f, insns[k][1], insns[k][0]))
            k += 1
        check(k < len(insns) and insns[k][0] == start + n - m,
              "%s: NOPs do not end %d bytes after %#x" % (f, n - m, start))
        want.add(entry - m if m else start)
    return want


# -- 2. a corrupted pad ----------------------------------------------

def corrupt_case(arch, tool, scratch, log):
    name = "%s/corrupt" % arch.name
    d = os.path.join(scratch, arch.name, "corrupt")

    def body():
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "in.o")
        must([arch.tool("gcc"), "-c", "-o", src] + arch.cflags +
             ["-O2", "-fpatchable-function-entry=2,0",
              os.path.join(PADS, "pads.c")])
        obj = Obj(arch, src)
        gcc = obj.entry_set("__patchable_function_entries")
        # pad_weak's pad: M = 0, so it starts at the function's entry.
        weak = [i for i, n in obj.sym_names.items() if n == "pad_weak"]
        check(weak, "no pad_weak symbol")
        value, shndx = obj.syms[weak[0]]
        value &= ~1 if arch.thumb else ~0
        sec = obj.secs[shndx]
        check((sec["name"], value) in gcc, "no pad recorded at pad_weak "
              "(%s+%#x)" % (sec["name"], value))
        bad = os.path.join(d, "bad.o")
        data = bytearray(obj.data)
        data[sec["offset"] + value:sec["offset"] + value + 4] = b"\xff" * 4
        with open(bad, "wb") as f:
            f.write(bytes(data))
        before = snapshot(bad)
        rc, _o, err = run([tool, "--strict", bad])
        check(rc == 1 and snapshot(bad) == before,
              "--strict: exit %d (want 1), file %s" % (
                  rc, "kept" if snapshot(bad) == before else "changed"))
        err = tool_ok(tool, [bad], expect_quiet=False)
        lines = [x for x in err.splitlines() if x.strip()]
        where = "%s+%#x" % (sec["name"], value)
        check(len(lines) == 1 and where in lines[0] and "warning" in lines[0]
              and "ff ff ff ff" in lines[0],
              "expected one warning naming %s with its bytes, got: %s"
              % (where, lines))
        # The compiler's word is kept: every pad it listed stays listed
        # (the object had nothing else, so it is left as it was).
        compare(Obj(arch, bad).entry_set("__patchable_function_entries"),
                gcc, "compiler")
        check(snapshot(bad)[0] == before[0], "a pad-only object with an "
              "unknown pad changed")
        start = os.path.join(d, "start.c")
        with open(start, "w") as f:
            f.write(common.START_C)
        must([arch.tool("gcc")] + arch.cflags +
             ["-O2", "-nostdlib", "-static", "-no-pie", "-o",
              os.path.join(d, "prog"), start, bad, "-lgcc",
              "-Wl,-T," + MCOUNT_LDS])

    log.case(name, body)


# -- 3. C++ inline functions in COMDAT groups --------------------------

def cxx_tests(tool, scratch, log):
    a = X86_64
    d = os.path.join(scratch, "c++")
    os.makedirs(d, exist_ok=True)
    kinds = {"pads": ["-fpatchable-function-entry=5,0"],
             "fentry": ["-pg", "-mfentry"]}

    def p(n):
        return os.path.join(d, n)

    try:
        must(["g++", "-O2", "-fno-pie", "-c", "-o", p("start.o"),
              os.path.join(PADS, "start.cc")])
        jobs = [(k, f) for k in kinds for f in ("a", "b")]
        parallel(lambda kf: must(
            ["g++", "-O2", "-fno-pie", "-ffunction-sections", "-c", "-o",
             p("%s-%s.o" % kf)] + kinds[kf[0]] +
            [os.path.join(PADS, kf[1] + ".cc")]), jobs)
        for k, f in jobs:
            shutil.copyfile(p("%s-%s.o" % (k, f)), p("%s-%s-r.o" % (k, f)))
            tool_ok(tool, [p("%s-%s-r.o" % (k, f))])
    except Failure as e:
        log.result("c++/compile", e)
        return
    hook_arch = HookArch(a.triplet, ("__fentry__",))

    def recorded(k, f):
        """The object as the tool left it against the compiler's pads or
        objdump -dr's hook calls."""
        src, out = p("%s-%s.o" % (k, f)), p("%s-%s-r.o" % (k, f))
        if k == "pads":
            want = Obj(a, src).entry_set("__patchable_function_entries")
        else:
            dis, _ = common.objdump(hook_arch, src, True)
            want = set(common.oracle_sites(hook_arch, dis))
        obj = Obj(a, out)
        lst = obj.entry_list("__mcount_loc")
        check(len(lst) == len(set(lst)), "a site recorded twice")
        compare(set(lst), want)
        check_pieces(obj)
        tools_quiet(a, out, out + ".ld-r.o")

    for k, f in jobs:
        log.case("c++/%s-%s/entries" % (k, f), recorded, k, f)
    with open(p("hooks.c"), "w") as f:
        f.write("void __fentry__(void) {}\n")
    must(["gcc", "-O2", "-fno-pie", "-c", "-o", p("hooks.o"), p("hooks.c")])

    def link(k, suffix, script, out):
        extra = [p("hooks.o")] if k == "fentry" else []
        must(["g++", "-nostdlib", "-static", "-no-pie", "-Wl,--gc-sections",
              "-o", p(out), p("start.o"), p("%s-a%s.o" % (k, suffix)),
              p("%s-b%s.o" % (k, suffix))] + extra +
             (["-Wl,-T," + MCOUNT_LDS] if script else []))
        return p(out)

    def live_functions(prog):
        """Survivors of a.cc and b.cc: every text symbol but _start and
        the hook."""
        return {name: addr for name, addr in nm_functions(a, prog).items()
                if name not in ("_start", "__fentry__")}

    def linked(k, script, name):
        prog = link(k, "-r", script, name.replace("/", "_"))
        table = table_words(a, prog)
        check(len(table) == len(set(table)), "linked table has duplicates")
        live = live_functions(prog)
        check("_Z13shared_inlinei" in live and "_Z6b_onlyi" in live,
              "nm shows no shared_inline or b_only: %s" % live)
        if k == "pads":
            # M = 0: each pad starts at its function's symbol.
            compare(set(table), set(live.values()), "nm")
        else:
            calls = fentry_calls(a, prog)
            compare(set(table), calls, "calls")
            check(len(calls) == len(live), "%d hook calls, %d live "
                  "functions" % (len(calls), len(live)))
        if not script:
            check("_Z6a_deadi" not in live, "--gc-sections kept a_dead")

    # -pg tables need lds/mcount.lds's KEEP under --gc-sections (nothing
    # refers to them); pads, linked to their functions, do not.
    for k, script in (("pads", False), ("pads", True), ("fentry", True)):
        name = "c++/%s-gc%s" % (k, "-lds" if script else "")
        log.case(name, linked, k, script, name)

    # (c) The compiler's own tables, linked as they are.
    def gcc_only():
        prog = link("pads", "", True, "gcc-only")
        table = set(table_words(a, prog))
        live = live_functions(prog)
        lost = {n for n, addr in live.items() if addr not in table}
        if not lost:
            log.line("NOTE: c++/gcc-only: the compiler's own tables lost no "
                     "entry here; GCC 12's misplaced pads did not show")
            return
        # GCC 12 puts b_only's pad in the table linked to b.o's copy of
        # shared_inline, which the linker discards with it.
        log.line("NOTE: c++/gcc-only: without recordmcount the linked "
                 "table misses %s" % ", ".join(sorted(lost)))
        check("_Z6b_onlyi" in lost, "lost %s, not b_only" % sorted(lost))

    log.case("c++/gcc-only-loses-entries", gcc_only)


def fentry_calls(arch, prog):
    insns, _labels = disasm(arch, prog)
    return {addr for addr, t in insns
            if re.search(r"^call \S+ <__fentry__>$", t)}


# -- 4. hooks and pads in one object -------------------------------------

class HookArch:
    """Just enough of common.Arch for common.oracle_sites."""

    def __init__(self, triplet, hooks):
        self.triplet, self.hooks = triplet, hooks
        self.companions = set()
        self.site_adjust = common.identity_site

    def tool(self, name):
        return "%s-%s" % (self.triplet, name)


def mixed_tests(tool, scratch, log):
    pa = X86_64
    ha = HookArch(pa.triplet, ("__fentry__",))
    d = os.path.join(scratch, "mixed")
    os.makedirs(d, exist_ok=True)

    def p(n):
        return os.path.join(d, n)

    def gcc(out, src, flags):
        must([pa.tool("gcc"), "-c", "-O2", "-fno-pie", "-o", p(out)] +
             flags + [src])

    variants = {
        # ld -r of a -pg object and a pads object.
        "ld-r": lambda opt: (
            gcc("hooks%s.o" % opt, os.path.join(FIXTURES, "basic.c"),
                ["-pg", "-mfentry"] + opt.split()),
            gcc("pads%s.o" % opt, os.path.join(PADS, "pads.c"),
                ["-fpatchable-function-entry=5,0"] + opt.split()),
            must([pa.tool("ld"), "-r", "-o", p("ld-r%s.o" % opt),
                  p("hooks%s.o" % opt), p("pads%s.o" % opt)])),
        # One compile: GCC takes -pg and pads together.
        "both": lambda opt: gcc("both%s.o" % opt,
                                os.path.join(PADS, "pads.c"),
                                ["-pg", "-mfentry",
                                 "-fpatchable-function-entry=5,0"] +
                                opt.split()),
    }
    for v, make in variants.items():
        for opt in ("", " -ffunction-sections"):
            tag = opt.replace(" -", "-")
            name = "mixed/%s%s" % (v, tag)
            src = p("%s%s.o" % (v, opt))

            def body(make=make, opt=opt, src=src, name=name):
                make(opt)
                pads = Obj(pa, src).entry_set("__patchable_function_entries")
                dis, _ = common.objdump(ha, src, True)
                hooks = set(common.oracle_sites(ha, dis))
                check(pads and hooks, "want both kinds: %d pads, %d hooks" %
                      (len(pads), len(hooks)))
                check(not (pads & hooks), "a pad and a hook at one place")
                out = p("out%s.o" % name.replace("/", "_"))
                shutil.copyfile(src, out)
                tool_ok(tool, [out])
                obj = Obj(pa, out)
                lst = obj.entry_list("__mcount_loc")
                check(len(lst) == len(set(lst)), "a site recorded twice")
                compare(set(lst), pads | hooks, "hooks + pads")
                check_pieces(obj)
                check(not obj.named("__patchable_function_entries"),
                      "__patchable_function_entries left")
                with open(p("start.c"), "w") as f:
                    f.write(common.START_C + "void __fentry__(void) {}\n")
                prog = out + ".prog"
                must([pa.tool("gcc"), "-O2", "-fno-pie", "-nostdlib",
                      "-static", "-no-pie", "-o", prog, p("start.c"), out,
                      "-Wl,-T," + MCOUNT_LDS])
                table = table_words(pa, prog)
                check(len(table) == len(set(table)), "linked duplicates")
                check(len(table) == len(lst), "linked table %d entries, "
                      "object %d" % (len(table), len(lst)))
                want = fentry_calls(pa, prog) | expected_pads(
                    pa, prog, PAD_FUNCS, 2, 0)
                compare(set(table), want, "calls + pads")

            log.case(name, body)


# -- 5. -mnop-mcount and --find-nops -----------------------------------

NOP_FIXTURES = ("basic.c", "sections.c", "recursion.c", "big.c",
                os.path.join("pads", "pads.c"))
NOP_CONFIGS = [
    ("x86_64", "x86_64-linux-gnu", ["-pg", "-mfentry", "-mnop-mcount",
                                    "-fno-pie"]),
    ("x86_64-cet", "x86_64-linux-gnu", ["-pg", "-mfentry", "-mnop-mcount",
                                        "-fno-pie", "-fcf-protection=full"]),
    ("s390x", "s390x-linux-gnu", ["-pg", "-mfentry", "-mnop-mcount"]),
]


class NopCase:
    def __init__(self, cfg, opt, fixture, tool, scratch):
        self.label, triplet, flags = cfg
        self.arch = PadArch(self.label, triplet)
        self.flags = flags + opt.split()
        self.src = os.path.join(FIXTURES, fixture)
        base = os.path.basename(fixture)[:-2]
        oname = opt.replace(" ", "").replace("-", "")
        self.name = "findnops/%s-%s/%s" % (self.label, oname, base)
        self.dir = os.path.join(scratch, "findnops", self.label, oname, base)
        self.tool = tool
        self.error = None

    def p(self, n):
        return os.path.join(self.dir, n)

    def compile(self):
        try:
            os.makedirs(self.dir, exist_ok=True)
            for out, extra in (("in.o", []), ("gcc.o", ["-mrecord-mcount"])):
                must([self.arch.tool("gcc"), "-c", "-o", self.p(out)] +
                     self.flags + extra + [self.src])
        except Failure as e:
            self.error = str(e)

    def run(self, log):
        if self.error:
            log.result(self.name + "/compile", self.error)
            return
        log.case(self.name + "/sites", self.check_sites)
        log.case(self.name + "/untouched", self.check_untouched)

    def check_sites(self):
        gcc = {s for s in Obj(self.arch, self.p("gcc.o")).entry_set(
            "__mcount_loc") if traced(s[0])}
        check(gcc, "GCC recorded no traced site")
        out = self.p("out.o")
        shutil.copyfile(self.p("in.o"), out)
        tool_ok(self.tool, ["--find-nops", out])
        obj = Obj(self.arch, out)
        lst = obj.entry_list("__mcount_loc")
        check(len(lst) == len(set(lst)), "a site recorded twice")
        compare(set(lst), gcc, "gcc")
        check_pieces(obj)
        tools_quiet(self.arch, out, self.p("r.o"))

    def check_untouched(self):
        out = self.p("plain.o")
        shutil.copyfile(self.p("in.o"), out)
        age(out)
        before = snapshot(out)
        tool_ok(self.tool, [out])
        check(snapshot(out) == before, "changed without --find-nops")


# -- driver ------------------------------------------------------------

# fixtures/pads/fit.c's functions and their patchable_function_entry.
FIT = {"pad_1_0": (1, 0), "pad_2_0": (2, 0), "pad_3_0": (3, 0),
       "pad_4_0": (4, 0), "pad_5_0": (5, 0), "pad_6_0": (6, 0),
       "pad_8_0": (8, 0), "pad_3_1": (3, 1), "pad_4_2": (4, 2),
       "pad_6_1": (6, 1)}
LIBDIR = os.environ.get("PADS_LIBDIR", os.path.join(TOP, "build"))
HOST_RT = {"x86_64": "x86_64", "aarch64": "aarch64"}.get(os.uname().machine)
REFUSED_RE = re.compile(r"^mcount: refused site \S+ <(\w+)\+0x[0-9a-f]+>:"
                        r".*: (NOP pad .*)$", re.M)
WARNED_RE = re.compile(r"warning: libmcount cannot enable (\d+) of (\d+) "
                       r"pads: ")


def runtime_agrees(arch, compiler, tool, scratch):
    """The pads of fit.c that the runtime refuses at boot are those that
    recordmcount's warning counts, that --check fails as unusable-pad,
    and that the ISA's figures (PadArch.call, .nop) say are too short:
    the tool and the runtime ask one question (arch/'s mc_pad_refusal
    and mc_pad_unusable over the same pad_call_len)."""
    cname = "" if compiler == "gcc" else "-" + compiler
    d = os.path.join(scratch, arch.name, "runtime-agrees" + cname)
    os.makedirs(d, exist_ok=True)
    obj, prog = os.path.join(d, "fit.o"), os.path.join(d, "fit")
    lib = os.path.join(LIBDIR, "libmcount.a") if arch.rt == HOST_RT else \
        os.path.join(LIBDIR, arch.rt, "libmcount.a")
    must(compiler_cmd(arch, compiler) + arch.cflags +
         ["-O2", "-c", "-o", obj, os.path.join(PADS, "fit.c")])
    rc, _o, warned = run([tool, obj])
    check(rc == 0, "recordmcount exited %d: %s" % (rc, warned))
    must([arch.tool("gcc")] + arch.cflags +
         (["-no-pie"] if "-fno-pie" in arch.cflags else []) +
         ["-o", prog, obj, lib, "-Wl,-u,mcount_boot",
          "-Wl,-T," + MCOUNT_LDS, "-lpthread"])
    runner = [] if arch.rt == HOST_RT else \
        ["qemu-" + arch.rt, "-L", "/usr/" + arch.triplet]
    rc, _o, err = run(runner + [prog])
    check(rc == 0, "%s exited %d: %s" % (prog, rc, err.strip()[:300]))
    refused = set(f for f, _why in REFUSED_RE.findall(err))
    rc, out, _e = run([tool, "--check", "--format=json", prog])
    # Each problem's address to its pad's function by nm: the function
    # that starts at it or just before (an entry right after `bti c` or
    # endbr64), else the first of fit.c's functions that starts after it
    # (a pad with M > 0: its entry is its first NOP, before the
    # function).
    nm, _e = must([arch.tool("nm"), prog])
    starts = {}
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in FIT:
            starts[f[2]] = int(f[0], 16) & ~1    # Thumb: bit 0 set
    failed = set()
    for p in json.loads(out)["problems"]:
        check(p["class"] == "unusable-pad", "--check: %s" % p)
        at = p["address"]
        here = [f for f, a in starts.items() if a <= at <= a + 4]
        after = [(a, f) for f, a in starts.items() if a > at]
        check(here or after, "no function at or after %#x" % at)
        failed.add(here[0] if here else min(after)[1])
    want = set(f for f, (n, m) in FIT.items() if arch.too_short(n, m))
    check(want and want != set(FIT), "test is void: %s" % sorted(want))
    check(refused == want, "the runtime refused %s, the ISA says %s" %
          (sorted(refused), sorted(want)))
    check(failed == want, "--check failed %s, the ISA says %s" %
          (sorted(failed), sorted(want)))
    m = WARNED_RE.search(warned)
    check(m and int(m.group(1)) == len(want) and
          int(m.group(2)) == len(FIT),
          "record warned %r, want %d of %d" % (warned, len(want), len(FIT)))


def runtime_agreement(have, tool, scratch, log):
    """runtime_agrees for every architecture with a runtime library, by
    GCC and by clang where clang has pads there."""
    cases = []
    for a in have:
        if not a.rt:
            continue
        for c in ("gcc",) + (CLANGS if a.clang else ()):
            name = "%s/runtime-agrees%s" % (a.name,
                                            "" if c == "gcc" else "-" + c)
            lib = os.path.join(LIBDIR, "libmcount.a") if a.rt == HOST_RT \
                else os.path.join(LIBDIR, a.rt, "libmcount.a")
            if not shutil.which(c if c != "gcc" else a.tool("gcc")):
                log.skip(name, "%s not installed" % c)
            elif not os.path.exists(lib):
                log.skip(name, "no %s (make %s)" % (lib, lib))
            elif a.rt != HOST_RT and not shutil.which("qemu-" + a.rt):
                log.skip(name, "no qemu-%s" % a.rt)
            else:
                cases.append((name, a, c))
    parallel(lambda t: log.case(t[0], runtime_agrees, t[1], t[2], tool,
                                scratch), cases)


# -- LoongArch: pads as GCC writes them, assembled by clang-16 ----------
#
# Debian 12 has no LoongArch GCC, and clang 16 refuses
# -fpatchable-function-entry for the target (its backend has no pads
# there), so the objects come from assembly in the shape GCC's generic
# pad output has: M `nop`s behind a local label, the function's symbol,
# N - M more, and the label's address in __patchable_function_entries
# (SHF_LINK_ORDER, linked to the function's section; in its COMDAT group
# for an inline one).  clang-16's integrated assembler makes the object;
# llvm-readelf-16 and llvm-objdump-16 are the oracles.  Nothing links
# (lld 16 cannot link LoongArch).  No runtime patches LoongArch pads, so
# no pad is too short and --check judges none unusable.

class LlvmLoongArch:
    """What Obj and tools_quiet ask of an architecture, from LLVM 16."""
    name = "loongarch64"
    TOOLS = {"readelf": "llvm-readelf-16", "objdump": "llvm-objdump-16",
             "ld": "ld.lld-16"}

    def tool(self, name):
        return self.TOOLS[name]


LA = LlvmLoongArch()
LA_NMS = ((2, 0), (5, 0), (3, 1), (8, 0), (4, 2))
LA_NOP = "00 00 40 03"
# (name, section line or None for .text, COMDAT group or None)
LA_FUNCS = (("pad_global", None, None), ("pad_static", None, None),
            ("pad_named", '.section .text.pad_named,"ax",@progbits', None),
            ("pad_inline", '.section .text.pad_inline,"axG",@progbits,'
             'pad_inline,comdat', "pad_inline"))


def la_pads_asm(n, m):
    out = []
    for k, (name, section, group) in enumerate(LA_FUNCS):
        out += [section or ".text",
                ".local %s" % name if name == "pad_static" else
                ".weak %s" % name if group else ".globl %s" % name,
                ".type %s, @function" % name, ".p2align 2",
                ".LPFE%d:" % k] + ["nop"] * m + ["%s:" % name] + \
            ["nop"] * (n - m) + ["addi.w $a0, $a0, %d" % (k + 1), "ret",
                                 ".size %s, .-%s" % (name, name)]
        flags = ('"aGwo",@progbits,%s,comdat,%s' % (group, name) if group
                 else '"awo",@progbits,%s' % name)
        out += [".section __patchable_function_entries,%s" % flags,
                ".p2align 3", ".8byte .LPFE%d" % k]
    return "\n".join("\t" + x if not x.endswith(":") else x
                     for x in out) + "\n"


def la_assemble(d, n, m, name="in"):
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, name + ".s")
    with open(src, "w") as f:
        f.write(la_pads_asm(n, m))
    obj = os.path.join(d, name + ".o")
    must(["clang-16", "--target=loongarch64-linux-gnu", "-c", "-o", obj,
          src])
    return obj


def la_pad_words(path):
    """{(section, offset): the instruction bytes llvm-objdump -d shows}."""
    out, _ = must(["llvm-objdump-16", "-d", path])
    words, sec = {}, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} ){4})", line)
        if m and sec:
            words[(sec, int(m.group(1), 16))] = m.group(2).strip()
    return words


def la_case(tool, scratch, n, m):
    d = os.path.join(scratch, "loongarch64", "%d_%d" % (n, m))
    src = la_assemble(d, n, m)
    inp = Obj(LA, src)
    pads = inp.entry_set("__patchable_function_entries")
    # The symbols say where the pads are: M NOPs before each function.
    want = set()
    for i, nm in inp.sym_names.items():
        if nm in [f[0] for f in LA_FUNCS]:
            value, shndx = inp.syms[i]
            want.add((inp.secs[shndx]["name"], value - 4 * m))
    compare(pads, want, "symbols")
    words = la_pad_words(src)
    for sec, off in pads:
        got = [words.get((sec, off + 4 * i)) for i in range(n)]
        check(got == [LA_NOP] * n, "%s+%#x: %s, not %d nops" %
              (sec, off, got, n))
    out = os.path.join(d, "out.o")
    shutil.copyfile(src, out)
    tool_ok(tool, [out])
    rec = Obj(LA, out)
    compare(rec.entry_set("__mcount_loc"), pads, "assembler")
    check(not rec.named("__patchable_function_entries"),
          "__patchable_function_entries still there")
    check_pieces(rec)
    check(la_pad_words(out) == words, "the code changed")
    tools_quiet(LA, out, os.path.join(d, "r.o"))
    rc, so, se = run([tool, "--check", "--format=json", out])
    doc = json.loads(so)
    check(rc == 0 and not doc["problems"], "--check: exit %d: %s" %
          (rc, (so + se).strip()[:300]))
    keep = os.path.join(d, "keep.o")
    shutil.copyfile(src, keep)
    age(keep)
    before = snapshot(keep)
    tool_ok(tool, ["--keep-patchable", keep])
    check(snapshot(keep) == before, "--keep-patchable changed a pad-only "
          "object")


def la_corrupt(tool, scratch):
    """One pad's first NOP overwritten: one warning naming it and its
    bytes; --strict fails the file and leaves it as it was."""
    d = os.path.join(scratch, "loongarch64", "corrupt")
    src = la_assemble(d, 2, 0)
    obj = Obj(LA, src)
    pads = obj.entry_set("__patchable_function_entries")
    i = [k for k, v in obj.sym_names.items() if v == "pad_global"][0]
    value, shndx = obj.syms[i]
    sec = obj.secs[shndx]
    check((sec["name"], value) in pads, "no pad at pad_global")
    bad = os.path.join(d, "bad.o")
    data = bytearray(obj.data)
    data[sec["offset"] + value:sec["offset"] + value + 4] = b"\xff" * 4
    with open(bad, "wb") as f:
        f.write(bytes(data))
    before = snapshot(bad)
    rc, _o, err = run([tool, "--strict", bad])
    check(rc == 1 and snapshot(bad) == before, "--strict: exit %d (want "
          "1), file %s" % (rc, "kept" if snapshot(bad) == before else
                           "changed"))
    err = tool_ok(tool, [bad], expect_quiet=False)
    lines = [x for x in err.splitlines() if x.strip()]
    where = "%s+%#x" % (sec["name"], value)
    check(len(lines) == 1 and where in lines[0] and "warning" in lines[0]
          and "ff ff ff ff" in lines[0],
          "expected one warning naming %s with its bytes, got: %s" %
          (where, lines))


def loongarch_pads(tool, scratch, log):
    for n, m in LA_NMS:
        log.case("loongarch64/%d,%d-clang-16-as" % (n, m), la_case, tool,
                 scratch, n, m)
    log.case("loongarch64/corrupt", la_corrupt, tool, scratch)


def main():
    tool, scratch, results = scratch_arg()
    log = Log(os.path.join(results, "pads.log"))
    have = [a for a in ARCHES if shutil.which(a.tool("gcc"))]
    for a in ARCHES:
        if a not in have:
            log.result("%s/toolchain" % a.name, "%s not installed (make "
                       "deps)" % a.tool("gcc"))
    cases = [PadCase(a, nm, opt, tool, scratch)
             for a in have for nm in a.nms for opt in OPTS]
    # clang: every N,M and option GCC has, where clang has the option.
    for c in CLANGS:
        if not shutil.which(c):
            log.skip("%s/pads" % c, "%s not installed" % c)
            continue
        cases += [PadCase(a, nm, opt, tool, scratch, c)
                  for a in have if a.clang for nm in a.nms for opt in OPTS]
    nops = [NopCase(cfg, opt, fx, tool, scratch) for cfg in NOP_CONFIGS
            if shutil.which(cfg[1] + "-gcc") for opt in OPTS
            for fx in NOP_FIXTURES]
    parallel(lambda c: c.compile(), cases + nops)
    parallel(lambda c: c.run(log), cases + nops)
    parallel(lambda a: corrupt_case(a, tool, scratch, log),
             [a for a in have if a.corrupt])
    cxx_tests(tool, scratch, log)
    mixed_tests(tool, scratch, log)
    runtime_agreement(have, tool, scratch, log)
    loongarch_pads(tool, scratch, log)
    return finish_scratch(log, scratch)


if __name__ == "__main__":
    raise SystemExit(main())
