# SPDX-License-Identifier: GPL-2.0-only
"""common - the cross-architecture test harness every tests/cross/test_*.py
uses.

HOW TO ADD AN ARCHITECTURE (no edit to this file needed)
--------------------------------------------------------
Write tests/cross/test_<family>.py:

    import common
    from common import Arch

    MYARCH = Arch(
        name="mips64el",                      # names the cases
        triplet="mips64el-linux-gnuabi64",    # <triplet>-gcc, -objdump, ...
        hooks=("_mcount",),                   # symbols our tool hooks
        table_reloc="R_MIPS_64",              # readelf's name for it
        none_reloc="R_MIPS_NONE",
        nop_re=r"^nop\b",                     # objdump's text at a NOP'd site
        flag_sets={                           # each is run at -O2 and
            "kernel": [...],                  # -O2 -ffunction-sections
            "user": [],
        },
        # optional, see the Arch docstring: companions, site_adjust,
        # nop_len, linked_site, sym_index, gcc_record_flags, fixtures,
        # link_flags, support_asm ...
    )

    if __name__ == "__main__":
        raise SystemExit(common.main([MYARCH]))

The Makefile finds it by its name (tests/cross/cross.mk) and the log is
$TEST_RESULTS/cross-<family>.log.  Every fixture x flag set x opt level
becomes one case name prefix "<arch>/<flagset>-<opt>/<fixture>", with one
PASS/FAIL line per check (see Case below).  Everything the harness
believes about the hooks comes from the cross binutils, never from the
tool's C tables: only `nop_re` (what objdump prints for the neutral
instruction) and the few Arch facts above are written by hand.

What the checks are
-------------------
  sites     our table's sites == the oracle's: every relocation against a
            hook symbol (not of a companion type) in a traced executable
            section, at the instruction objdump -dr shows it in (moved by
            Arch.site_adjust when the arch's convention differs)
  table     sorted by (section index, offset), no duplicates, alignment
            == address size, every entry of type Arch.table_reloc
  gcc       (only with Arch.gcc_record_flags) GCC's own __mcount_loc names
            the same sites
  tools     readelf -a, objdump -dr print nothing on stderr; ld -r works
  link      a -nostdlib -static link with every hook defined; the linked
            table (read in the file's byte order) == the addresses where
            objdump -d shows the hook calls (Arch.linked_site)
  nop       --nop: every instruction in each site's nop_len bytes matches
            nop_re, hook relocations are R_*_NONE against symbol 0, and
            the object links with no hook symbol defined at all
"""

import os
import re
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))

from harness import (FIXTURE_FLAGS, FIXTURES, Failure, Log,  # noqa: E402
                     check, finish_scratch, must, parallel, run, traced)

OPTS = ("-O2", "-O2 -ffunction-sections")
# The clang runs: both clangs, the same fixtures and options as GCC's.
CLANGS = ("clang", "clang-16")
DEFAULT_FIXTURES = ("basic.c", "sections.c", "recursion.c", "big.c",
                    "weakonly.c")
# The program entry (never run: the links only prove that every symbol
# resolves), and what libgcc's division helpers call on a zero divisor
# (ARM's __aeabi_ldiv0 raises SIGFPE), with no C library linked.
START_C = """
void _start(void) { for (;;) ; }
__attribute__((weak)) int raise(int sig) { return sig; }
__attribute__((weak)) void abort(void) { for (;;) ; }
"""


def identity_site(insn_addr, reloc_offset, reloc_type, insns):
    """Default Arch.site_adjust: the site is the instruction holding the
    relocation (aarch64 bl, arm bl, riscv auipc, x86 call)."""
    return insn_addr


def default_linked_site(arch, insns, i):
    """Default Arch.linked_site: insns[i] (addr, text) is a direct call to
    a hook in the linked program; its address is the site."""
    return insns[i][0]


def default_sym_index(info, is64):
    return info >> 32 if is64 else info >> 8


class Arch:
    """Facts about one architecture, as the test harness needs them.

    name, triplet, hooks, table_reloc, none_reloc, nop_re, flag_sets:
        see the module docstring.  nop_re is matched against objdump's
        instruction text (mnemonic and operands, tabs turned into spaces).
    companions: relocation type names against a hook symbol that are the
        second half of a sequence, not a site (skipped by the oracle).
    site_adjust(insn_addr, reloc_offset, reloc_type, insns) -> site, or
        None to skip: for arches whose table records a place other than
        the instruction holding the relocation.  insns is the section's
        sorted [(addr, text)].
    nop_len: bytes --nop neutralises from the site; an int, or a callable
        (reloc_type name) -> int.  Every instruction objdump shows starting
        in [site, site + nop_len) must match nop_re.
    call_re: regex on linked objdump text that marks a direct hook call;
        "{hook}" is replaced by the alternation of hook names.
    linked_site(arch, insns, i) -> address: where the site of the call at
        insns[i] is (riscv: the auipc before a jalr).
    sym_index(info, is64) -> symbol index from readelf's Info column.
    gcc_record_flags: flags that make GCC emit its own __mcount_loc
        (["-mrecord-mcount"]) where it can; None elsewhere.
    cflags: flags added to every compile (fixture, and support code for
        the links, which is compiled with the case's flags minus -pg).
    link_flags: flags for the -nostdlib -static link.
    fixtures: fixture file names under fixtures/ (or absolute paths).
    clang_flag_sets: flag sets for clang 14 and 16 (--target=<triplet>,
        integrated assembler), run on every fixture and option with the same
        checks; None where clang has no -pg for this target.
    clang_record_flags: flags that make clang emit its own __mcount_loc
        (s390x's -mrecord-mcount), for the gcc check.
    clang_no_nop: why --nop cannot work on clang's objects here (a SKIP
        line for the nop check), or None.
    clangs: the clangs that have this target (default: CLANGS).
    tools: commands in place of <triplet>-<name> ({"objdump":
        "llvm-objdump-16"}), for a machine Debian has no binutils for;
        objdump() reads GNU's output and LLVM's alike.
    no_gcc, no_link: why there is no GCC for it (its flag_sets are then
        empty and its cases are clang's alone), and why nothing links
        for it (a SKIP line for the link check; the nop check then
        stops before its link); None where there are.
    """

    def __init__(self, name, triplet, hooks, table_reloc, none_reloc, nop_re,
                 flag_sets, companions=(), site_adjust=identity_site,
                 nop_len=4, call_re=r"\s<({hook})(@plt)?>$",
                 linked_site=default_linked_site,
                 sym_index=default_sym_index, gcc_record_flags=None,
                 cflags=(), link_flags=(), fixtures=DEFAULT_FIXTURES,
                 opts=OPTS, clang_flag_sets=None, clang_record_flags=None,
                 clang_no_nop=None, clangs=None, tools=None, no_gcc=None,
                 no_link=None):
        self.clang_flag_sets = dict(clang_flag_sets or {})
        self.clangs = tuple(clangs or CLANGS)
        self.tools = dict(tools or {})
        self.no_gcc, self.no_link = no_gcc, no_link
        self.clang_record_flags = clang_record_flags
        self.clang_no_nop = clang_no_nop
        self.name, self.triplet = name, triplet
        self.hooks = tuple(hooks)
        self.table_reloc, self.none_reloc = table_reloc, none_reloc
        self.nop_re = re.compile(nop_re)
        self.flag_sets = dict(flag_sets)
        self.companions = set(companions)
        self.site_adjust = site_adjust
        self.nop_len = nop_len
        self.call_re = re.compile(call_re.replace(
            "{hook}", "|".join(re.escape(h) for h in self.hooks)))
        self.linked_site = linked_site
        self.sym_index = sym_index
        self.gcc_record_flags = gcc_record_flags
        self.cflags = list(cflags)
        self.link_flags = list(link_flags)
        self.fixtures = tuple(fixtures)
        self.opts = tuple(opts)

    def tool(self, name):
        return self.tools.get(name) or "%s-%s" % (self.triplet, name)

    def nop_bytes_for(self, reloc_type):
        n = self.nop_len
        return n(reloc_type) if callable(n) else n

    def support_source(self, with_hooks):
        """C for the link: _start, and the hooks as empty functions named
        through asm labels (so '._mcount' and the like work too)."""
        out = [START_C]
        if with_hooks:
            for i, h in enumerate(self.hooks):
                out.append('void mc_hook_%d(void) __asm__("%s");\n'
                           'void mc_hook_%d(void) {}\n' % (i, h, i))
        return "".join(out)


# -- the binutils' answers ---------------------------------------------

# GNU objdump: "  18:\t00000054 \tbl ..." and "\t\t\t18: R_...";
# llvm-objdump: "      18: 00 00 00 54  \tbl ..." and "\t\t0...18:  R_...".
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f ]+?)\s*\t(.*)$")
RELOC_RE = re.compile(r"^\s*([0-9a-f]+):\s+(R_\w+)\s+(\S*?)(@\w+)?"
                      r"(?:[-+]0x[0-9a-f]+)?\s*$")
SECTION_RE = re.compile(r"^Disassembly of section (.*):$")


def objdump(arch, path, relocs):
    """{section: ([(addr, text)], [(offset, type, symbol)])} from
    <triplet>-objdump -d[r]; also returns stderr."""
    out, err = must([arch.tool("objdump"), "-dr" if relocs else "-d",
                     path])
    result, cur = {}, None
    for line in out.splitlines():
        m = SECTION_RE.match(line)
        if m:
            cur = result.setdefault(m.group(1), ([], []))
            continue
        if cur is None:
            continue
        m = RELOC_RE.match(line)
        if m:
            cur[1].append((int(m.group(1), 16), m.group(2), m.group(3)))
            continue
        m = INSN_RE.match(line)
        if m:
            text = " ".join(m.group(3).split())
            cur[0].append((int(m.group(1), 16), text))
    return result, err


def insn_at_or_before(insns, off):
    """The instruction (addr, text) with the greatest addr <= off."""
    best = None
    for a, t in insns:
        if a <= off and (best is None or a > best[0]):
            best = (a, t)
    return best


def oracle_sites(arch, disasm, want_traced=True):
    """{(section, site): reloc type} of hook calls objdump -dr shows, in
    traced (or, with want_traced=False, untraced) sections."""
    sites = {}
    for sec, (insns, relocs) in disasm.items():
        if traced(sec) != want_traced:
            continue
        for off, rtype, sym in relocs:
            if sym not in arch.hooks or rtype in arch.companions:
                continue
            insn = insn_at_or_before(insns, off)
            if insn is None:
                continue
            site = arch.site_adjust(insn[0], off, rtype, insns)
            if site is not None:
                sites[(sec, site)] = rtype
    return sites


class Sections:
    """readelf -SW and -h: names, indices, offsets, sizes, alignment."""

    def __init__(self, arch, path):
        out, _ = must([arch.tool("readelf"), "-hSW", path])
        self.big = "big endian" in out
        self.is64 = "ELF64" in out
        self.by_index, self.by_name = {}, {}
        for line in out.splitlines():
            m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+"
                         r"([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                         r"(\S*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
            if not m:
                continue
            sec = {"index": int(m.group(1)), "name": m.group(2),
                   "type": m.group(3), "addr": int(m.group(4), 16),
                   "offset": int(m.group(5), 16),
                   "size": int(m.group(6), 16), "flags": m.group(8),
                   "align": int(m.group(11))}
            # readelf -W can start the flags column empty: realign.
            if not re.match(r"^[WAXMSILOGTCxoEpyDRl]*$", sec["flags"]):
                sec["flags"] = ""
            self.by_index[sec["index"]] = sec
            self.by_name.setdefault(sec["name"], sec)
        self.path = path

    def words(self, name, size):
        """The section's contents as unsigned `size`-byte words."""
        sec = self.by_name[name]
        with open(self.path, "rb") as f:
            f.seek(sec["offset"])
            data = f.read(sec["size"])
        fmt = (">" if self.big else "<") + ("Q" if size == 8 else "I")
        return [struct.unpack_from(fmt, data, i)[0]
                for i in range(0, len(data) - size + 1, size)]


def symbols(arch, path):
    """{index: (value, section index or None)} from readelf -sW (.symtab)."""
    out, _ = must([arch.tool("readelf"), "-sW", path])
    syms, in_symtab = {}, False
    for line in out.splitlines():
        if line.startswith("Symbol table"):
            in_symtab = ".symtab" in line
            continue
        m = re.match(r"^\s*(\d+):\s+([0-9a-f]+)\s+\S+\s+\S+\s+\S+\s+\S+\s+"
                     r"(\S+)", line)
        if m and in_symtab:
            ndx = m.group(3)
            syms[int(m.group(1))] = (int(m.group(2), 16),
                                     int(ndx) if ndx.isdigit() else None)
    return syms


def relocs(arch, path):
    """{relocation section: [(offset, info, type, addend or None)]} from
    readelf -rW; the addend is None for REL."""
    out, _ = must([arch.tool("readelf"), "-rW", path])
    result, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Relocation section '([^']*)'", line)
        if m:
            cur = result.setdefault(m.group(1), [])
            continue
        f = line.split()
        if cur is None or len(f) < 3 or not re.match(r"^[0-9a-f]+$", f[0]) \
                or not f[2].startswith("R_"):
            continue
        m = re.search(r"([-+]) ([0-9a-f]+)$", line)
        addend = None
        if m:
            addend = int(m.group(2), 16) * (-1 if m.group(1) == "-" else 1)
        cur.append((int(f[0], 16), int(f[1], 16), f[2], addend))
    return result


def table_sites(arch, path, secs=None):
    """[(section index, offset, reloc type)] of __mcount_loc, in table
    order: symbol value + addend, the addend from the slot for REL."""
    secs = secs or Sections(arch, path)
    rels = relocs(arch, path)
    rela = ".rela__mcount_loc" in rels
    rsec = ".rela__mcount_loc" if rela else ".rel__mcount_loc"
    check(rsec in rels, "no .rel[a]__mcount_loc")
    check("__mcount_loc" in secs.by_name, "no __mcount_loc section")
    size = 8 if secs.is64 else 4
    slots = secs.words("__mcount_loc", size)
    syms = symbols(arch, path)
    mask = (1 << (8 * size)) - 1
    out = []
    for off, info, rtype, addend in rels[rsec]:
        value, shndx = syms[arch.sym_index(info, secs.is64)]
        if addend is None:
            addend = slots[off // size]
        out.append((shndx, (value + addend) & mask, rtype))
    return out


def named(secs, entries):
    return {(secs.by_index[s]["name"], o) for s, o, _t in entries}


def fmt_sites(sites, limit=5):
    s = sorted(sites)
    more = "" if len(s) <= limit else " (+%d more)" % (len(s) - limit)
    return ", ".join("%s+%#x" % x for x in s[:limit]) + more


def fmt_addrs(addrs, limit=5):
    s = sorted(addrs)
    more = "" if len(s) <= limit else " (+%d more)" % (len(s) - limit)
    return ", ".join("%#x" % x for x in s[:limit]) + more


# -- one case: a fixture compiled one way --------------------------------

class Case:
    def __init__(self, arch, flagset, opt, fixture, tool, scratch,
                 compiler="gcc"):
        self.arch, self.tool = arch, tool
        self.fixture = fixture
        self.compiler = compiler
        self.src = (fixture if os.path.isabs(fixture)
                    else os.path.join(FIXTURES, fixture))
        base = os.path.basename(fixture)
        sets = arch.flag_sets if compiler == "gcc" else arch.clang_flag_sets
        # The support code for links is compiled the same way, minus -pg
        # (by GCC: clang's flags are for the code under test).
        self.support_flags = (arch.cflags + opt.split() +
                              (sets[flagset] if compiler == "gcc" else []))
        self.flags = (arch.cflags + sets[flagset] + opt.split() + ["-pg"] +
                      FIXTURE_FLAGS.get(base, []))
        self.opt_name = opt.replace(" ", "").replace("-", "")
        if compiler != "gcc":
            flagset += "-" + compiler
        self.name = "%s/%s-%s/%s" % (arch.name, flagset, self.opt_name,
                                     base[:-2])
        self.dir = os.path.join(scratch, arch.name, flagset + "-" +
                                self.opt_name, base[:-2])
        self.compile_error = None

    def cc(self):
        if self.compiler == "gcc":
            return [self.arch.tool("gcc")]
        return [self.compiler, "--target=" + self.arch.triplet]

    def record_flags(self):
        return (self.arch.gcc_record_flags if self.compiler == "gcc"
                else self.arch.clang_record_flags)

    def p(self, n):
        return os.path.join(self.dir, n)

    def compile(self):
        """Compile (in the parallel phase); failures are reported later."""
        try:
            os.makedirs(self.dir, exist_ok=True)
            must(self.cc() + ["-c", "-o", self.p("in.o")] +
                 self.flags + [self.src])
            if self.record_flags():
                must(self.cc() + ["-c", "-o", self.p("gcc.o")] +
                     self.flags + self.record_flags() + [self.src])
        except Failure as e:
            self.compile_error = str(e)

    def run_tool(self, out, extra=()):
        shutil.copyfile(self.p("in.o"), self.p(out))
        rc, so, se = run([self.tool] + list(extra) + [self.p(out)])
        check(rc == 0, "recordmcount %s exited %d: %s" %
              (" ".join(extra), rc, se.strip()[:300]))
        # Where a hook has no NOP form (SH; clang's o32 PIC), the tool
        # names each untraced section whose hook calls stay calls;
        # nothing else may be printed.
        if "--nop" not in extra:
            se = "".join(line for line in se.splitlines(True) if not
                         line.rstrip().endswith("has hook calls that are "
                                                "not traced; left as they "
                                                "are (no NOP form)"))
        check(se == "" and so == "", "recordmcount printed: %s" %
              (se + so).strip()[:300])
        return self.p(out)

    def cases(self):
        """[(check name, function)]; each function may rely on `record`."""
        return [("sites", self.check_sites), ("table", self.check_table),
                ("gcc", self.check_gcc), ("tools", self.check_tools),
                ("link", self.check_link), ("nop", self.check_nop)]

    def run(self, log):
        if self.compile_error:
            log.result(self.name + "/compile", self.compile_error)
            return
        try:
            self.record()
        except Failure as e:
            log.result(self.name + "/record", e)
            return
        for what, fn in self.cases():
            if what == "gcc" and not self.record_flags():
                continue
            if what == "link" and self.arch.no_link:
                log.skip("%s/%s" % (self.name, what), self.arch.no_link)
                continue
            if (what == "nop" and self.compiler != "gcc" and
                    self.arch.clang_no_nop):
                log.skip("%s/%s" % (self.name, what),
                         self.arch.clang_no_nop)
                continue
            log.case("%s/%s" % (self.name, what), fn)

    def record(self):
        a = self.arch
        disasm, _ = objdump(a, self.p("in.o"), True)
        self.expected = oracle_sites(a, disasm)
        self.untraced = oracle_sites(a, disasm, want_traced=False)
        check(self.expected, "objdump -dr shows no hook call in %s: "
              "the flags did not instrument it?" % self.fixture)
        self.out = self.run_tool("out.o")
        self.secs = Sections(a, self.out)
        self.entries = table_sites(a, self.out, self.secs)

    # -- the checks ---------------------------------------------------

    def check_sites(self):
        ours = named(self.secs, self.entries)
        want = set(self.expected)
        check(ours == want, "ours - oracle: {%s}; oracle - ours: {%s}" %
              (fmt_sites(ours - want), fmt_sites(want - ours)))

    def check_table(self):
        keys = [(s, o) for s, o, _t in self.entries]
        check(keys == sorted(set(keys)), "table not sorted or has "
              "duplicates")
        size = 8 if self.secs.is64 else 4
        check(self.secs.by_name["__mcount_loc"]["align"] == size,
              "__mcount_loc aligned to %d, not %d" %
              (self.secs.by_name["__mcount_loc"]["align"], size))
        bad = {t for _s, _o, t in self.entries if t != self.arch.table_reloc}
        check(not bad, "table relocations of type %s, not %s" %
              (", ".join(sorted(bad)), self.arch.table_reloc))

    def check_gcc(self):
        gsecs = Sections(self.arch, self.p("gcc.o"))
        gcc = {s for s in named(gsecs, table_sites(self.arch, self.p("gcc.o"),
                                                   gsecs)) if traced(s[0])}
        ours = named(self.secs, self.entries)
        check(ours == gcc, "ours - gcc: {%s}; gcc - ours: {%s}" %
              (fmt_sites(ours - gcc), fmt_sites(gcc - ours)))

    def check_tools(self):
        for cmd in ([self.arch.tool("readelf"), "-a", "-W", self.out],
                    [self.arch.tool("objdump"), "-dr", self.out]):
            rc, _o, err = run(cmd)
            check(rc == 0 and err.strip() == "", "%s: exit %d: %s" %
                  (os.path.basename(cmd[0]), rc, err.strip()[:300]))
        must([self.arch.tool("ld"), "-r", "-o", self.p("r.o"), self.out])

    def link(self, obj, with_hooks, name):
        src = self.p(name + ".c")
        with open(src, "w") as f:
            f.write(self.arch.support_source(with_hooks))
        prog = self.p(name)
        must([self.arch.tool("gcc")] + self.support_flags + self.arch.link_flags +
             ["-nostdlib", "-static", "-no-pie", "-o", prog, src, obj,
              "-lgcc"])
        return prog

    def check_link(self):
        a = self.arch
        prog = self.link(self.out, True, "prog")
        disasm, _ = objdump(a, prog, False)
        calls = set()
        # Where --nop cannot work (clang's o32 PIC), a hook call in an
        # untraced section stays a live call, outside the table (--dump
        # lists it as unrecorded; the cli suite checks that part).
        live_untraced = self.compiler != "gcc" and a.clang_no_nop
        for sec, (insns, _r) in disasm.items():
            if live_untraced and not traced(sec):
                continue
            for i, (_addr, text) in enumerate(insns):
                if a.call_re.search(text):
                    calls.add(a.linked_site(a, insns, i))
        psecs = Sections(a, prog)
        table = psecs.words("__mcount_loc", 8 if psecs.is64 else 4)
        check(len(table) == len(set(table)), "linked table has duplicates")
        check(set(table) == calls, "table - calls: {%s}; calls - table: "
              "{%s}" % (fmt_addrs(set(table) - calls),
                        fmt_addrs(calls - set(table))))
        check(len(table) == len(self.expected), "linked table has %d "
              "entries, the object %d sites" % (len(table),
                                                len(self.expected)))

    def check_nop(self):
        a = self.arch
        out = self.run_tool("nop.o", ["--nop"])
        disasm, _ = objdump(a, out, True)
        for (sec, site), rtype in list(self.expected.items()) + \
                list(self.untraced.items()):
            insns = disasm[sec][0]
            end = site + a.nop_bytes_for(rtype)
            covered = [(x, t) for x, t in insns if site <= x < end]
            check(covered and covered[0][0] == site,
                  "%s+%#x: no instruction starts at the site" % (sec, site))
            for x, t in covered:
                check(a.nop_re.search(t), "%s+%#x: '%s' is not a NOP "
                      "(expected /%s/)" % (sec, x, t, a.nop_re.pattern))
            for off, rt, sym in disasm[sec][1]:
                check(not (site <= off < end and sym in a.hooks and
                           rt not in a.companions),
                      "%s+%#x: %s %s survives" % (sec, off, rt, sym))
        rels = relocs(a, out)
        nones = sum(1 for r in rels.values() for x in r
                    if x[2] == a.none_reloc)
        check(nones >= len(self.expected) + len(self.untraced),
              "%d %s relocations, %d sites" %
              (nones, a.none_reloc, len(self.expected) + len(self.untraced)))
        if not a.no_link:
            self.link(out, False, "nop-prog")


def run_cases(arch_list, tool, scratch, log):
    cases = [Case(a, fs, opt, fx, tool, scratch)
             for a in arch_list for fs in a.flag_sets for opt in a.opts
             for fx in a.fixtures]
    for c in CLANGS:
        want = [a for a in arch_list if a.clang_flag_sets and c in a.clangs]
        if want and not shutil.which(c):
            log.skip("%s/cross" % c, "%s not installed" % c)
            continue
        cases += [Case(a, fs, opt, fx, tool, scratch, c)
                  for a in want for fs in a.clang_flag_sets
                  for opt in a.opts for fx in a.fixtures]
    parallel(lambda c: c.compile(), cases)
    parallel(lambda c: c.run(log), cases)


def family():
    """The log's name: test_<family>.py -> cross-<family>.log."""
    base = os.path.basename(sys.argv[0])
    return base[len("test_"):-3] if base.startswith("test_") else base[:-3]


def main(arch_list, extra=None):
    """Run every case for arch_list, then extra(tool, scratch, log) if
    given (for arch-specific tests).  Usage from the Makefile:
        python3 tests/cross/test_X.py RECORDMCOUNT SCRATCH-DIR"""
    if len(sys.argv) != 3:
        sys.exit("usage: %s RECORDMCOUNT SCRATCH-DIR" % sys.argv[0])
    tool = os.path.abspath(sys.argv[1])
    base = os.path.abspath(sys.argv[2])
    os.makedirs(base, exist_ok=True)
    import tempfile
    scratch = tempfile.mkdtemp(prefix="run-", dir=base)
    results = os.environ.get("TEST_RESULTS") or os.path.join(base, "results")
    log = Log(os.path.join(os.path.abspath(results),
                           "cross-%s.log" % family()))
    missing = [a for a in arch_list
               if not a.no_gcc and not shutil.which(a.tool("gcc"))]
    for a in missing:
        log.result("%s/toolchain" % a.name, "%s not installed (make deps)"
                   % a.tool("gcc"))
    run_cases([a for a in arch_list if a not in missing], tool, scratch, log)
    if extra:
        extra(tool, scratch, log)
    return finish_scratch(log, scratch)

