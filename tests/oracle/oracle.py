#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""oracle.py RECORDMCOUNT SCRATCH-DIR - our __mcount_loc against GCC's.

For every fixture and every way of compiling it (x86_64/i386, -mfentry
or plain -pg, PIE or not, -O0/-O2/-O2 -ffunction-sections), the fixture
is compiled twice: with -mrecord-mcount, whose table is the oracle, and
without, for recordmcount to process.  The two tables must name the same
call sites (GCC's restricted to the traced sections), and the output
must stay a well-formed object: readelf and objdump read it without a
complaint, ld -r accepts it, and a linked program's table holds exactly
the addresses where objdump shows the hook calls.  The same again for
objects built by clang 14 and 16 at -O2, against objdump -dr (ClangCase).
"""

import os
import shutil
import sys

import elfmini
from harness import (FIXTURE_FLAGS, HOOKS, SUPPORT, Failure, Log, cc,
                     all_configs, check, compile_c, fixture, must,
                     finish_scratch, linked_hook_calls, objdump_reloc_sites,
                     parallel, readelf_relocs, scratch_arg, traced, run)

FIXTURES = ["basic.c", "sections.c", "recursion.c", "big.c", "weakonly.c"]
R_TABLE = 1  # R_X86_64_64 and R_386_32 share the number


def named_sites(elf, entries):
    return {(elf.sections[shndx].name, off) for shndx, off, _t, _s in entries}


def fmt_sites(sites, limit=6):
    s = sorted(sites)
    more = "" if len(s) <= limit else " (+%d more)" % (len(s) - limit)
    return ", ".join("%s+%#x" % x for x in s[:limit]) + more


class Case:
    def __init__(self, tool, scratch, fx, cfg, support):
        self.tool, self.fx, self.cfg = tool, fx, cfg
        self.support = support
        self.name = "oracle/%s/%s" % (fx[:-2], cfg.name)
        self.dir = os.path.join(scratch, fx[:-2], cfg.name)

    def prepare(self):
        os.makedirs(self.dir, exist_ok=True)
        cfg = self.cfg
        flags = (cfg.base_flags + cfg.opt.split() + cfg.pg_flags +
                 FIXTURE_FLAGS.get(self.fx, []))
        src = fixture(self.fx)
        p = lambda n: os.path.join(self.dir, n)
        self.gcc_o = compile_c(src, p("gcc.o"), flags + ["-mrecord-mcount"])
        self.in_o = compile_c(src, p("in.o"), flags)
        self.out_o = p("out.o")
        shutil.copyfile(self.in_o, self.out_o)
        rc, out, err = run([self.tool, self.out_o])
        check(rc == 0, "recordmcount exited %d: %s" % (rc, err.strip()))
        check(err == "" and out == "",
              "recordmcount printed: %s" % (err + out).strip())
        self.gcc = elfmini.Elf(self.gcc_o)
        self.inp = elfmini.Elf(self.in_o)
        self.out = elfmini.Elf(self.out_o)
        self.entries = elfmini.table_entries(self.out)
        check(self.entries is not None, "no __mcount_loc in the output")

    def oracle_sites(self):
        ents = elfmini.table_entries(self.gcc)
        check(ents, "GCC's -mrecord-mcount table is missing or empty")
        return {s for s in named_sites(self.gcc, ents) if traced(s[0])}

    # -- the checks, one log line each -----------------------------------

    def same_code(self):
        """Precondition: -mrecord-mcount changes nothing but the table."""
        for s in self.inp.sections:
            if s.flags & elfmini.SHF_EXECINSTR:
                g = self.gcc.section(s.name)
                check(g is not None and
                      self.gcc.contents(g) == self.inp.contents(s),
                      "GCC's code in %s differs with -mrecord-mcount"
                      % s.name)

    def sites(self):
        want = self.oracle_sites()
        got = named_sites(self.out, self.entries)
        check(got == want, "missing [%s] extra [%s]" % (
            fmt_sites(want - got), fmt_sites(got - want)))

    def entries_ok(self):
        keys = [(shndx, off) for shndx, off, _t, _s in self.entries]
        check(all(a < b for a, b in zip(keys, keys[1:])),
              "not sorted by (section, offset) or has duplicates")
        size = self.out.addr_size
        for i, (shndx, _off, typ, slot) in enumerate(self.entries):
            check(typ == R_TABLE, "entry %d: relocation type %d" % (i, typ))
            check(slot == i * size, "entry %d at slot offset %#x" % (i, slot))
        table = self.out.section("__mcount_loc")
        check(table.size == len(keys) * size,
              "table size %d for %d entries" % (table.size, len(keys)))
        # Every entry is anchored on a local symbol of its own section.
        rel = [s for s in self.out.sections if s.info == table.index and
               s.type in (elfmini.SHT_REL, elfmini.SHT_RELA)][0]
        for r in self.out.relocs(rel):
            sym = self.out.symbols[r.sym]
            check(sym.bind == 0, "entry anchored on non-local %s" % sym.name)

    def layout(self):
        size = self.out.addr_size
        table = self.out.section("__mcount_loc")
        check(table.type == 1, "__mcount_loc type %d" % table.type)
        check(table.flags & elfmini.SHF_ALLOC, "__mcount_loc not SHF_ALLOC")
        check(table.addralign == size, "__mcount_loc aligned to %d, not %d"
              % (table.addralign, size))
        rela = self.cfg.arch == "x86_64"
        name = ".rela__mcount_loc" if rela else ".rel__mcount_loc"
        rel = self.out.section(name)
        check(rel is not None, "no %s" % name)
        check(rel.type == (elfmini.SHT_RELA if rela else elfmini.SHT_REL),
              "%s has type %d" % (name, rel.type))
        check(rel.info == table.index and
              rel.link == self.out.symtab().index,
              "%s: sh_info %d sh_link %d" % (name, rel.info, rel.link))

    def tools_clean(self):
        for cmd in (["readelf", "-a", "-W"], ["objdump", "-dr"]):
            rc, _out, err = run(cmd + [self.out_o])
            check(rc == 0 and err == "", "%s: exit %d: %s" % (
                cmd[0], rc, err.strip()[:200]))

    def relocs_kept(self):
        """Every pre-existing relocation names the same symbol; only hook
        calls in untraced sections may have turned into R_*_NONE."""
        before = readelf_relocs(self.in_o)
        after = readelf_relocs(self.out_o)
        for sec, rels in before.items():
            check(sec in after, "relocation section %s vanished" % sec)
            check(len(after[sec]) == len(rels), "%s: %d relocations, was %d"
                  % (sec, len(after[sec]), len(rels)))
            target = sec[5:] if sec.startswith(".rela") else sec[4:]
            for b, a in zip(rels, after[sec]):
                if b == a:
                    continue
                nop_ok = (a[1] == self.cfg.none_reloc and a[0] == b[0] and
                          not traced(target) and
                          (b[2].split() or [""])[0] in HOOKS)
                check(nop_ok, "%s: %r became %r" % (sec, b, a))

    def ld_r(self):
        r_o = os.path.join(self.dir, "ld-r.o")
        must(["ld", "-r", "-m", self.cfg.ld_emulation, "-o", r_o,
              self.out_o])
        r = elfmini.Elf(r_o)
        ents = elfmini.table_entries(r)
        check(ents is not None, "ld -r output has no __mcount_loc")
        check(named_sites(r, ents) == named_sites(self.out, self.entries),
              "ld -r changed the table's sites")

    def link(self):
        prog = os.path.join(self.dir, "prog")
        main_o, hooks_o = self.support
        must(cc(self.cfg.link_flags +
                ["-o", prog, main_o, hooks_o, self.out_o]))
        p = elfmini.Elf(prog)
        table = p.section("__mcount_loc")
        check(table is not None, "linked program has no __mcount_loc")
        body = p.contents(table)
        addrs = [p.word(body, i) for i in range(0, len(body), p.addr_size)]
        check(len(addrs) == len(self.entries),
              "linked table has %d entries, object had %d"
              % (len(addrs), len(self.entries)))
        check(len(set(addrs)) == len(addrs), "duplicate addresses")
        calls = linked_hook_calls(prog)
        untraced = {a for a, s in calls.items() if not traced(s)}
        check(not untraced, "hook calls left in untraced sections at %s" %
              ", ".join("%#x" % a for a in sorted(untraced)))
        want = set(calls)
        check(want, "objdump shows no hook calls in the program")
        got = set(addrs)
        check(got == want, "table-only [%s] calls-only [%s]" % (
            ", ".join("%#x" % a for a in sorted(got - want)[:6]),
            ", ".join("%#x" % a for a in sorted(want - got)[:6])))

    # -- the weak-only fixture: sections without a section symbol ------

    def hooked_sections(self):
        return {self.gcc.sections[e[0]].name
                for e in elfmini.table_entries(self.gcc)}

    def weak_precondition(self):
        names = self.hooked_sections()
        have = {self.inp.sections[s.shndx].name for s in self.inp.symbols
                if s.type == elfmini.STT_SECTION}
        check(not names & have, "the toolchain kept section symbols for "
              "%s: this test no longer covers the dropped-symbol case"
              % ", ".join(sorted(names & have)))
        if self.cfg.opt == "-O2":
            check(".text.unlikely" in names,
                  "no hook in .text.unlikely: the fixture lost its case")

    def weak_anchor_added(self):
        for shndx, _off, _t, slot in self.entries:
            sec = self.out.sections[shndx].name
            syms = [s for s in self.out.symbols
                    if s.type == elfmini.STT_SECTION and s.shndx == shndx]
            check(syms, "no section symbol for %s in the output" % sec)

    def checks(self):
        out = [("same-code", self.same_code), ("sites", self.sites),
               ("entries", self.entries_ok), ("layout", self.layout),
               ("tools-clean", self.tools_clean),
               ("relocs-kept", self.relocs_kept), ("ld-r", self.ld_r),
               ("link", self.link)]
        if self.fx == "weakonly.c":
            out[:0] = [("precondition-no-section-symbols",
                        self.weak_precondition)]
            out.append(("section-symbol-added", self.weak_anchor_added))
        return out


# Clang 14 and 16 (integrated assembler) build the same fixtures in the
# same configurations as GCC.
# Clang has no -mrecord-mcount on x86, so the oracle is objdump -dr: every
# instruction whose operand is relocated against a hook, in a traced
# section.  The tool runs with --strict, so a form it does not know fails
# the case instead of leaving a site out.
CLANGS = ("clang", "clang-16")


class ClangCase(Case):
    def __init__(self, tool, scratch, fx, cfg, support, clang):
        super().__init__(tool, scratch, fx, cfg, support)
        self.clang = clang
        self.name += "-" + clang
        self.dir += "-" + clang

    def prepare(self):
        os.makedirs(self.dir, exist_ok=True)
        cfg = self.cfg
        target = ["--target=i686-linux-gnu"] if cfg.arch == "i386" else []
        flags = ([f for f in cfg.base_flags if f != "-m32"] +
                 cfg.opt.split() + cfg.pg_flags +
                 FIXTURE_FLAGS.get(self.fx, []))
        self.in_o = os.path.join(self.dir, "in.o")
        must([self.clang] + target + flags +
             ["-c", "-o", self.in_o, fixture(self.fx)])
        self.out_o = os.path.join(self.dir, "out.o")
        shutil.copyfile(self.in_o, self.out_o)
        rc, out, err = run([self.tool, "--strict", self.out_o])
        check(rc == 0, "recordmcount --strict exited %d: %s"
              % (rc, err.strip()))
        check(err == "" and out == "",
              "recordmcount printed: %s" % (err + out).strip())
        self.inp = elfmini.Elf(self.in_o)
        self.out = elfmini.Elf(self.out_o)
        self.entries = elfmini.table_entries(self.out)
        check(self.entries is not None, "no __mcount_loc in the output")

    def oracle_sites(self):
        sites = set()
        for h in HOOKS:
            sites |= objdump_reloc_sites(self.in_o, h)
        check(sites, "objdump shows no hook calls")
        return {s for s in sites if traced(s[0])}

    def checks(self):
        # same-code compares with GCC's own output; the weak-only
        # precondition is GCC's too (it moves the weak abort() to a
        # .text.unlikely whose section symbol the assembler drops; clang
        # leaves it in .text, which keeps its symbol).  Every other
        # check holds, the added-symbol one included.
        return [c for c in super().checks()
                if c[0] not in ("same-code",
                                "precondition-no-section-symbols")]


def build_support(scratch, configs):
    """main.o and hooks.o for each (arch, PIE), built without -pg."""
    support = {}
    for cfg in configs:
        key = (cfg.arch, cfg.pie)
        if key in support:
            continue
        d = os.path.join(scratch, "support", "%s-%s" % key)
        os.makedirs(d, exist_ok=True)
        support[key] = tuple(
            compile_c(os.path.join(SUPPORT, n + ".c"),
                      os.path.join(d, n + ".o"), cfg.base_flags + ["-O2"])
            for n in ("main", "hooks"))
    return support


def main():
    tool, scratch, results = scratch_arg()
    log = Log(os.path.join(results, "oracle.log"))
    configs = all_configs()
    support = build_support(scratch, configs)

    def one(item):
        fx, cfg = item
        c = Case(tool, scratch, fx, cfg, support[(cfg.arch, cfg.pie)])
        try:
            c.prepare()
        except Failure as e:
            log.result(c.name, e)
            return
        for name, fn in c.checks():
            log.case("%s/%s" % (c.name, name), fn)

    def one_clang(item):
        fx, cfg, clang = item
        c = ClangCase(tool, scratch, fx, cfg, support[(cfg.arch, cfg.pie)],
                      clang)
        try:
            c.prepare()
        except Failure as e:
            log.result(c.name, e)
            return
        for name, fn in c.checks():
            log.case("%s/%s" % (c.name, name), fn)

    clangs = [c for c in CLANGS if shutil.which(c)]
    for c in CLANGS:
        if c not in clangs:
            log.skip("oracle/%s" % c, "%s not installed" % c)
    items = [(fx, cfg, None) for fx in FIXTURES for cfg in configs]
    items += [(fx, cfg, c) for c in clangs for fx in FIXTURES
              for cfg in configs]
    parallel(lambda it: one(it[:2]) if it[2] is None else one_clang(it),
             items)
    sys.exit(finish_scratch(log, scratch))


if __name__ == "__main__":
    main()
