#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_mips_sparc_sh.py RECORDMCOUNT SCRATCH-DIR - MIPS (o32, n32, n64,
both byte orders), sparc64 and SH-4 (both byte orders) through the cross
harness (common.py).

Flag sets: "kernel" is what linux-6.1's arch Makefiles pass with
CONFIG_FUNCTION_TRACER (MIPS: -G 0 -mno-abicalls -fno-pic, modules add
-mlong-calls, 64-bit kernels -msym32 where they can, -mmcount-ra-address
where GCC has it; sparc: -m64 -mcpu=ultrasparc -mcmodel=medlow; SH: -pg
only), plus -fno-PIE from the top-level Makefile; "user" is Debian's
default (MIPS: -mabicalls PIC).

What this file adds to the harness, without changing it:
  - objdump runs with -z, because a MIPS NOP is the all-zero word and
    objdump otherwise folds runs of them into "...";
  - MIPS's site conventions (site_adjust, linked_site) and NOP lengths,
    which depend on the call sequence, so each sequence gets its own
    Arch (same triplet, different name);
  - MIPS64: a voided relocation has all three types R_MIPS_NONE;
  - SH: --nop has no neutral bytes (see arch/sh.c), so the nop check
    becomes "--nop fails, names the form, and leaves the file alone".
"""

import filecmp
import re

import common
from common import Arch, Case, check, relocs, run

# -- objdump -z --------------------------------------------------------

_must = common.must


def must_z(cmd, *a, **k):
    """common.must, with objdump showing every zero word (MIPS NOPs)."""
    if cmd and cmd[0].endswith("-objdump"):
        cmd = cmd[:1] + ["-z"] + cmd[1:]
    return _must(cmd, *a, **k)


common.must = must_z

# -- MIPS --------------------------------------------------------------

MIPS_KERNEL = ["-fno-PIE", "-G", "0", "-mno-abicalls", "-fno-pic"]
MIPS_COMPANIONS = ("R_MIPS_LO16", "R_MIPS_HIGHER", "R_MIPS_HIGHEST",
                   "R_MIPS_JALR")
MINI = ("basic.c", "sections.c")        # for the rarer variants


def mips_site_adjust(insn_addr, reloc_offset, reloc_type, insns):
    """o32 PIC: the site is the `addiu sp,sp,-8` before the CALL16 load
    (the first instruction --nop rewrites); n64 64-bit long call: the
    HI16 sits on the second `lui` (at), the site is the first (v1)."""
    prev = [t for a, t in insns if a == insn_addr - 4]
    prev = prev[0] if prev else ""
    this = [t for a, t in insns if a == insn_addr]
    this = this[0] if this else ""
    if reloc_type == "R_MIPS_CALL16" and prev == "addiu sp,sp,-8":
        return insn_addr - 4
    if reloc_type == "R_MIPS_HI16" and this.startswith("lui at,") and \
            prev.startswith("lui v1,"):
        return insn_addr - 4
    return insn_addr


LONG_PART = re.compile(r"^(lui (v1|at),|d?addiu (v1,v1|at,at),|"
                       r"dsll32 v1,v1,0x0$|daddu v1,v1,at$|move at,ra$|"
                       r"move (t0|t4),zero$|d?addiu (t0|t4),sp,)")


def mips_linked_site(arch, insns, i):
    """insns[i] is a hook call in the linked program.  `jal _mcount`
    (kernel) is the site.  `bal _mcount` is ld's rewrite of the PIC
    `jalr t9`: the site is the GOT load before it, or on o32 the `addiu
    sp,sp,-8` before that (clang: past its `move at,ra` and `move
    gp,...` back to the load).  For long calls insns[i] is the `move at,ra`
    only GCC's -pg writes (an ordinary call through v1 looks like the
    hook's `jalr v1`): the site is the first `lui v1` before it."""
    text = insns[i][1]
    if text.startswith("bal "):
        k = i - 1
        # clang puts `move at,ra` (and on o32 a `move gp,<reg>`) between
        # the GOT load and the call; the load is still the site.
        while k > 0 and (insns[k][1] == "move at,ra" or
                         insns[k][1].startswith("move gp,")) and \
                re.match(r"^(lw|ld) t9,", insns[k - 1][1]) is None:
            k -= 1
        if re.match(r"^(move at,ra|move gp,)", insns[k][1]) and \
                re.match(r"^(lw|ld) t9,", insns[k - 1][1]):
            k -= 1
        if k > 0 and insns[k - 1][1] == "addiu sp,sp,-8":
            k -= 1
        return insns[k][0]
    if text == "move at,ra":
        k = i
        while k > 0 and LONG_PART.match(insns[k - 1][1]):
            k -= 1
        while k < i and not insns[k][1].startswith("lui v1,"):
            k += 1
        return insns[k][0]
    return insns[i][0]


def mips(name, triplet, cflags, table_reloc, flag_sets, nops,
         fixtures=common.DEFAULT_FIXTURES, opts=common.OPTS, clang=False):
    return Arch(name=name, triplet=triplet, hooks=("_mcount",),
                table_reloc=table_reloc, none_reloc="R_MIPS_NONE",
                nop_re=r"^nop$", flag_sets=flag_sets,
                companions=MIPS_COMPANIONS, site_adjust=mips_site_adjust,
                nop_len=lambda t: nops[t],
                call_re=r"^(jal|bal) .*<_mcount>$" if "R_MIPS_HI16" not in
                nops else r"^move at,ra$",
                linked_site=mips_linked_site, cflags=cflags,
                fixtures=fixtures, opts=opts,
                # clang: userspace -pg only (its PIC sequence; no kernel
                # flags).  o32's `lw t9,%call16(_mcount)` takes the gp
                # set-up into the hook sequence, so --nop refuses it.
                clang_flag_sets={"user": []} if clang else None,
                clang_no_nop=("clang's o32 PIC hook sequence holds the gp "
                              "set-up; --nop refuses it (README)")
                if clang and table_reloc == "R_MIPS_32" else None)


O32_NOPS = {"R_MIPS_26": 8, "R_MIPS_CALL16": 12}     # with the addiu sp
NEW_NOPS = {"R_MIPS_26": 4, "R_MIPS_CALL16": 8}
RA = ["-mmcount-ra-address"]
LONG = ["-mlong-calls"]
O32_SETS = {"user": [], "kernel": MIPS_KERNEL, "kernel-ra": MIPS_KERNEL + RA}
N64_SETS = {"user": [], "kernel": MIPS_KERNEL, "kernel-ra": MIPS_KERNEL + RA}

MIPS_ARCHES = [
    # o32, big-endian (Debian's mips) and little-endian (mipsel).
    mips("mips", "mips-linux-gnu", [], "R_MIPS_32", O32_SETS, O32_NOPS,
         clang=True),
    mips("mips-long", "mips-linux-gnu", [], "R_MIPS_32",
         {"kernel-long": MIPS_KERNEL + LONG}, {"R_MIPS_HI16": 20}),
    mips("mips-long-ra", "mips-linux-gnu", [], "R_MIPS_32",
         {"kernel-long": MIPS_KERNEL + LONG + RA}, {"R_MIPS_HI16": 24},
         fixtures=MINI),
    mips("mipsel", "mips-linux-gnu", ["-EL"], "R_MIPS_32",
         {"user": [], "kernel": MIPS_KERNEL}, O32_NOPS),
    mips("mipsel-long", "mips-linux-gnu", ["-EL"], "R_MIPS_32",
         {"kernel-long": MIPS_KERNEL + LONG}, {"R_MIPS_HI16": 20},
         fixtures=MINI),
    # n64, little-endian (Debian's mips64el) and big-endian (-EB).
    mips("mips64el", "mips64el-linux-gnuabi64", [], "R_MIPS_64", N64_SETS,
         NEW_NOPS, clang=True),
    mips("mips64el-long32", "mips64el-linux-gnuabi64", [], "R_MIPS_64",
         {"kernel-long-sym32": MIPS_KERNEL + LONG + ["-msym32"],
          "kernel-long-sym32-ra": MIPS_KERNEL + LONG + ["-msym32"] + RA},
         {"R_MIPS_HI16": 16}),
    mips("mips64el-long64", "mips64el-linux-gnuabi64", [], "R_MIPS_64",
         {"kernel-long": MIPS_KERNEL + LONG}, {"R_MIPS_HI16": 32}),
    mips("mips64", "mips64el-linux-gnuabi64", ["-EB"], "R_MIPS_64",
         {"user": [], "kernel": MIPS_KERNEL}, NEW_NOPS),
    mips("mips64-long", "mips64el-linux-gnuabi64", ["-EB"], "R_MIPS_64",
         {"kernel-long-sym32": MIPS_KERNEL + LONG + ["-msym32"]},
         {"R_MIPS_HI16": 16}, fixtures=MINI),
    # n32 (ELF32 with EF_MIPS_ABI2, RELA).
    mips("mipsn32el", "mips64el-linux-gnuabi64", ["-mabi=n32"], "R_MIPS_32",
         {"user": [], "kernel": MIPS_KERNEL}, NEW_NOPS, fixtures=MINI),
    mips("mipsn32el-long", "mips64el-linux-gnuabi64", ["-mabi=n32"],
         "R_MIPS_32", {"kernel-long": MIPS_KERNEL + LONG},
         {"R_MIPS_HI16": 16}, fixtures=MINI),
    mips("mipsn32", "mips64el-linux-gnuabi64", ["-mabi=n32", "-EB"],
         "R_MIPS_32", {"user": [], "kernel": MIPS_KERNEL}, NEW_NOPS,
         fixtures=MINI, opts=("-O2",)),
]

# -- sparc64 -----------------------------------------------------------

SPARC64 = Arch(
    name="sparc64",
    triplet="sparc64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_SPARC_64",
    none_reloc="R_SPARC_NONE",
    nop_re=r"^nop$",
    call_re=r"^call .*<_mcount>$",      # not the b,a over padding
    flag_sets={"kernel": ["-fno-PIE", "-m64", "-mno-fpu",
                          "-mcpu=ultrasparc", "-mcmodel=medlow"],
               "user": []},
)

# -- SH ----------------------------------------------------------------


def sh_linked_site(arch, insns, i):
    """insns[i] is `lds r0,pr`, the delay slot of the profiler's `jmp
    @r1` (elsewhere pr is restored with lds.l @r15+,pr).  The site is
    the pool word the `mov.l ...,r1` before the jmp loads."""
    for k in range(i - 1, max(i - 6, -1), -1):
        m = re.match(r"^mov\.l ([0-9a-f]+) <[^>]*>,r1", insns[k][1])
        if m:
            return int(m.group(1), 16)
    return None


def sh(name, cflags, fixtures=common.DEFAULT_FIXTURES):
    return Arch(name=name, triplet="sh4-linux-gnu", hooks=("mcount",),
                table_reloc="R_SH_DIR32", none_reloc="R_SH_NONE",
                nop_re=r"^nop$", flag_sets={"kernel": ["-fno-PIE"],
                                            "user": []},
                call_re=r"^lds r0,pr$", linked_site=sh_linked_site,
                cflags=cflags, fixtures=fixtures)


SH_ARCHES = [sh("sh4", []), sh("sh4eb", ["-mb"], fixtures=MINI)]

# -- the checks this family adds ---------------------------------------


def sh_table_sites(arch, path, secs=None):
    """common.table_sites for SH: the addend is in the slot even though
    the table is RELA (r_addend + slot, as binutils computes it)."""
    secs = secs or common.Sections(arch, path)
    rels = relocs(arch, path)
    slots = secs.words("__mcount_loc", 4)
    syms = common.symbols(arch, path)
    out = []
    for off, info, rtype, addend in rels.get(".rela__mcount_loc", []):
        value, shndx = syms[arch.sym_index(info, False)]
        out.append((shndx, (value + (addend or 0) + slots[off // 4]) &
                    0xffffffff, rtype))
    check(out, "no .rela__mcount_loc")
    return out


_table_sites = common.table_sites
common.table_sites = lambda arch, path, secs=None: (
    sh_table_sites if arch.triplet.startswith("sh") else _table_sites)(
        arch, path, secs)


class FamilyCase(Case):
    def cases(self):
        # Debian's sh4 ld has no big-endian emulation: no sh4eb link.
        return [c for c in super().cases()
                if not (self.arch.name == "sh4eb" and c[0] == "link")]

    def check_tools(self):
        """As common's, but `ld -r` through gcc with the Arch's cflags:
        the bare ld assumes its default ABI and byte order."""
        if not self.arch.cflags:
            return super().check_tools()
        for cmd in ([self.arch.tool("readelf"), "-a", "-W", self.out],
                    [self.arch.tool("objdump"), "-dr", self.out]):
            rc, _o, err = run(cmd)
            check(rc == 0 and err.strip() == "", "%s: exit %d: %s" %
                  (cmd[0], rc, err.strip()[:300]))
        if self.arch.name != "sh4eb":
            common.must([self.arch.tool("gcc")] + self.arch.cflags +
                        ["-nostdlib", "-r", "-o", self.p("r.o"), self.out])

    def check_link(self):
        """SH leaves untraced hooks calling mcount (no NOP form): the
        linked table holds the calls in traced sections only."""
        if not self.arch.name.startswith("sh"):
            return super().check_link()
        a = self.arch
        prog = self.link(self.out, True, "prog")
        disasm, _ = common.objdump(a, prog, False)
        calls = {a.linked_site(a, insns, i)
                 for sec, (insns, _r) in disasm.items() if common.traced(sec)
                 for i, (_addr, text) in enumerate(insns)
                 if a.call_re.search(text)}
        table = common.Sections(a, prog).words("__mcount_loc", 4)
        check(len(table) == len(set(table)), "linked table has duplicates")
        check(set(table) == calls, "table - calls: {%s}; calls - table: {%s}"
              % (", ".join("%#x" % x for x in sorted(set(table) - calls)),
                 ", ".join("%#x" % x for x in sorted(calls - set(table)))))

    def check_nop(self):
        if self.arch.name.startswith("sh"):
            return self.check_sh_nop()
        super().check_nop()
        if self.arch.triplet.startswith("mips") and self.secs.is64:
            self.check_mips64_none()

    def check_sh_nop(self):
        """No neutral bytes exist at the pool word: --nop must refuse,
        say why, and leave the object as it was."""
        out = self.p("nop.o")
        common.shutil.copyfile(self.p("in.o"), out)
        rc, so, se = run([self.tool, "--nop", out])
        check(rc != 0, "--nop succeeded on SH")
        check("cannot turn" in se and "into a NOP" in se,
              "--nop said: %s" % (se + so).strip()[:300])
        check(filecmp.cmp(self.p("in.o"), out, shallow=False),
              "--nop changed the object although it failed")

    def check_mips64_none(self):
        """Every R_MIPS_NONE --nop leaves has type2, type3, ssym and
        symbol zero too: the whole r_info is 0."""
        for sec, rows in relocs(self.arch, self.p("nop.o")).items():
            for off, info, rtype, _addend in rows:
                check(rtype != "R_MIPS_NONE" or info == 0,
                      "%s+%#x: R_MIPS_NONE with r_info %#x" %
                      (sec, off, info))


common.Case = FamilyCase

if __name__ == "__main__":
    raise SystemExit(common.main(MIPS_ARCHES + [SPARC64] + SH_ARCHES))
