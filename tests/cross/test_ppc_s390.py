#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_ppc_s390.py RECORDMCOUNT SCRATCH-DIR - ppc64le, ppc64 (ELFv1 and
ELFv2), ppc (32-bit) and s390x through the cross harness (common.py),
plus s390x checks against GCC's own -mnop-mcount and a hand-assembled
old-style s390x -pg block.

Flag sets: "kernel*" approximate what linux-6.1's Makefiles pass with
CONFIG_FUNCTION_TRACER (-fno-PIE from the top-level Makefile plus the
arch's own; ppc64le adds -mprofile-kernel, which linux-6.1 allows only on
little endian, ppc64 big endian uses plain -pg under ELFv1 or ELFv2),
"user*" are Debian's defaults and a few variants (PIE, -fPIC, power10's
PC-relative calls).  The harness runs each at -O2 and
-O2 -ffunction-sections.

s390x appears twice because its two hook forms differ in where the site
is and how many bytes --nop rewrites, and the harness's nop_len knows
only the relocation type (the same, R_390_PLT32DBL, for both):
  s390x     -mfentry: `brasl %r0,__fentry__` is the site, 6 bytes
  s390x-pg  -pg: `stg %r14,8(%r15); brasl %r14,_mcount; lg %r14,8(%r15)`,
            the site is the stg (where GCC's -mrecord-mcount points, six
            bytes before the brasl), 18 bytes
"""

import os

import common
from common import Arch, Sections, check, must, objdump, run, table_sites

# -- PowerPC ---------------------------------------------------------------

# arch/powerpc/Makefile for ppc64: -mcmodel=medium, no pointers to nested
# functions, the ABI spelled out; the top-level Makefile adds -fno-PIE.
KERNEL_PPC64 = ["-fno-PIE", "-mcmodel=medium",
                "-mno-pointers-to-nested-functions"]


def ppc_linked_call(name):
    """objdump -d of a linked program names a hook call `bl ADDR <_mcount>`;
    ELFv1 shows the code's synthetic dot symbol `<._mcount>`.  Only
    direct `bl`s: a `b` to the hook would be a tail call, not a site."""
    return r"^bl [0-9a-f]+ <\.?(%s)(\+0x8)?>$" % name


PPC64LE = Arch(
    name="ppc64le",
    triplet="powerpc64le-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_PPC64_ADDR64",
    none_reloc="R_PPC64_NONE",
    nop_re=r"^nop$",
    call_re=ppc_linked_call("{hook}"),
    flag_sets={
        "kernel": KERNEL_PPC64 + ["-mlittle-endian", "-mabi=elfv2",
                                  "-mprofile-kernel"],
        "kernel-pg": KERNEL_PPC64 + ["-mlittle-endian", "-mabi=elfv2"],
        "user": [],
        # PC-relative code: bl _mcount with R_PPC64_REL24_NOTOC.
        "user-power10": ["-mcpu=power10"],
    },
    # clang has no -mprofile-kernel (its -pg is `bl _mcount; nop`) and
    # no -mno-pointers-to-nested-functions.
    clang_flag_sets={"kernel-pg": [f for f in KERNEL_PPC64 if f !=
                                   "-mno-pointers-to-nested-functions"] +
                     ["-mlittle-endian", "-mabi=elfv2"],
                     "user": []},
)

PPC64 = Arch(
    name="ppc64",
    triplet="powerpc64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_PPC64_ADDR64",
    none_reloc="R_PPC64_NONE",
    nop_re=r"^nop$",
    call_re=ppc_linked_call("{hook}"),
    flag_sets={
        "kernel-elfv1": KERNEL_PPC64 + ["-mbig-endian", "-mabi=elfv1"],
        "kernel-elfv2": KERNEL_PPC64 + ["-mbig-endian", "-mabi=elfv2"],
        # Debian's powerpc64-linux-gnu-gcc default: ELFv1, function
        # descriptors in .opd.
        "user": [],
        "user-profile-kernel": ["-mprofile-kernel"],
    },
    clang_flag_sets={"user": []},
)



class DotSymbolArch(Arch):
    """ppc64 ELFv1 with -mcall-aixdesc (what linux-6.1 passes for ELFv1):
    code symbols get the old `.name` spelling, so calls name `._mcount`,
    the code entry of a function the support C still calls `_mcount`."""

    def support_source(self, with_hooks):
        out = [common.START_C]
        if with_hooks:
            out.append("void _mcount(void) {}\n")
        return "".join(out)


PPC64_AIXDESC = DotSymbolArch(
    name="ppc64-aixdesc",
    triplet="powerpc64-linux-gnu",
    hooks=("._mcount",),
    table_reloc="R_PPC64_ADDR64",
    none_reloc="R_PPC64_NONE",
    nop_re=r"^nop$",
    call_re=ppc_linked_call("{hook}"),
    flag_sets={
        "kernel-elfv1": KERNEL_PPC64 + ["-mbig-endian", "-mabi=elfv1",
                                        "-mcall-aixdesc"],
        "user": ["-mcall-aixdesc"],
    },
)

# arch/powerpc/Makefile for ppc32; Debian's default is PIE, whose calls
# carry R_PPC_PLTREL24 instead of R_PPC_REL24.
PPC = Arch(
    name="ppc",
    triplet="powerpc-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_PPC_ADDR32",
    none_reloc="R_PPC_NONE",
    nop_re=r"^nop$",
    call_re=ppc_linked_call("{hook}"),
    flag_sets={
        "kernel": ["-fno-PIE", "-ffixed-r2", "-mmultiple",
                   "-mno-readonly-in-sdata"],
        "user": [],
        "user-fpic": ["-fPIC"],
        "user-bss-plt": ["-fPIC", "-mbss-plt"],
    },
    clang_flag_sets={"kernel": ["-fno-PIE"], "user": []},
)

# -- s390x -----------------------------------------------------------------

# arch/s390/Makefile.  Not -fno-asynchronous-unwind-tables with plain
# -pg: GCC 12 then emits the profiler block's .cfi_* directives outside
# any .cfi_startproc and the assembler rejects them.
KERNEL_S390 = ["-fno-PIE", "-mpacked-stack", "-mbackchain", "-msoft-float"]
STG_R14 = "stg %r14,8(%r15)"


# GCC 12's -pg without -mfentry and -fno-asynchronous-unwind-tables (the
# weakonly fixture's flag, which keeps .eh_frame from naming .text) prints
# the profiler block's .cfi_* directives outside any .cfi_startproc, and
# gas rejects them; -fno-dwarf2-cfi-asm keeps GCC from printing them.
PG_CFLAGS = ["-fno-dwarf2-cfi-asm"]


def s390_pg_site(insn_addr, reloc_offset, reloc_type, insns):
    """-pg: the site is the stg before the brasl holding the relocation
    (GCC's -mrecord-mcount records it; the kernel's recordmcount reached
    it with its -14 from the relocation, when a larl sat in between)."""
    prev = [x for x in insns if x[0] < insn_addr]
    check(prev and prev[-1][1] == STG_R14,
          "%#x: no '%s' before the -pg brasl" % (insn_addr, STG_R14))
    return prev[-1][0]


def s390_pg_linked_site(arch, insns, i):
    check(i > 0 and insns[i - 1][1] == STG_R14,
          "%#x: linked -pg call without its stg" % insns[i][0])
    return insns[i - 1][0]


S390X_CALL = r"^brasl %r(0|14),[0-9a-f]+ <({hook})>$"

S390X = Arch(
    name="s390x",
    triplet="s390x-linux-gnu",
    hooks=("__fentry__", "_mcount"),
    table_reloc="R_390_64",
    none_reloc="R_390_NONE",
    nop_re=r"^jgnop\b",
    nop_len=6,
    call_re=S390X_CALL,
    gcc_record_flags=["-mrecord-mcount"],
    flag_sets={
        "kernel": KERNEL_S390 + ["-fno-asynchronous-unwind-tables",
                                 "-mfentry"],
        "user": ["-mfentry"],
        "user-fpic": ["-mfentry", "-fPIC"],
    },
    # clang has -mrecord-mcount here: its own table is the oracle too.
    clang_flag_sets={"kernel": ["-fno-PIE", "-mpacked-stack",
                                "-mbackchain", "-msoft-float", "-mfentry"],
                     "user": ["-mfentry"]},
    clang_record_flags=["-mrecord-mcount"],
)

S390X_PG = Arch(
    name="s390x-pg",
    triplet="s390x-linux-gnu",
    hooks=("__fentry__", "_mcount"),
    table_reloc="R_390_64",
    none_reloc="R_390_NONE",
    nop_re=r"^jgnop\b",
    nop_len=18,
    site_adjust=s390_pg_site,
    call_re=S390X_CALL,
    linked_site=s390_pg_linked_site,
    gcc_record_flags=["-mrecord-mcount"],
    cflags=PG_CFLAGS,
    flag_sets={
        "kernel": KERNEL_S390,
        "user": [],
        "user-fpic": ["-fPIC"],
    },
)

ARCHES = [PPC64LE, PPC64, PPC64_AIXDESC, PPC, S390X, S390X_PG]

# -- s390x extras ----------------------------------------------------------


def exec_sections(arch, path):
    """{name: bytes} of the SHF_EXECINSTR sections of an object."""
    secs = Sections(arch, path)
    out = {}
    with open(path, "rb") as f:
        for s in secs.by_index.values():
            if "X" in s["flags"] and s["type"] == "PROGBITS":
                f.seek(s["offset"])
                out[s["name"]] = f.read(s["size"])
    return out


def check_like_gcc_nop(arch, flags, src, d, tool):
    """Our --nop output's code is byte for byte GCC's -mnop-mcount code,
    and our table names GCC's sites (-mrecord-mcount -mnop-mcount)."""
    gcc = arch.tool("gcc")
    ours, theirs = os.path.join(d, "ours.o"), os.path.join(d, "gcc.o")
    must([gcc, "-c", "-o", ours] + flags + [src])
    must([gcc, "-c", "-o", theirs] + flags +
         ["-mrecord-mcount", "-mnop-mcount", src])
    rc, so, se = run([tool, "--nop", ours])
    check(rc == 0 and so == se == "", "recordmcount --nop: %d %s" %
          (rc, (so + se).strip()[:300]))
    a, b = exec_sections(arch, ours), exec_sections(arch, theirs)
    check(sorted(a) == sorted(b), "code sections differ: %s vs %s" %
          (sorted(a), sorted(b)))
    for name in a:
        if a[name] != b[name]:
            diff = next(i for i in range(min(len(a[name]), len(b[name])))
                        if a[name][i] != b[name][i]) \
                if len(a[name]) == len(b[name]) else -1
            check(False, "%s differs from -mnop-mcount's at %#x" %
                  (name, diff))
    s_ours, s_gcc = Sections(arch, ours), Sections(arch, theirs)
    mine = {(s_ours.by_index[s]["name"], o)
            for s, o, _ in table_sites(arch, ours, s_ours)}
    gccs = {(s_gcc.by_index[s]["name"], o)
            for s, o, _ in table_sites(arch, theirs, s_gcc)
            if common.traced(s_gcc.by_index[s]["name"])}
    check(mine == gccs, "ours - gcc: %s; gcc - ours: %s" %
          (sorted(mine - gccs)[:5], sorted(gccs - mine)[:5]))


# The -pg block of GCCs that kept profile counters (what the kernel's
# recordmcount's -14 was for): a larl of the counter between stg and brasl.
OLD_PG_ASM = """\
	.text
	.globl	old_pg
	.type	old_pg, @function
old_pg:
	stg	%r14,8(%r15)
	larl	%r1,.LP0
	brasl	%r14,_mcount@PLT
	lg	%r14,8(%r15)
	lghi	%r2,1
	br	%r14
	.size	old_pg, .-old_pg
	.globl	old_pg2
	.type	old_pg2, @function
old_pg2:
	stg	%r14,8(%r15)
	larl	%r1,.LP1
	brasl	%r14,_mcount
	lg	%r14,8(%r15)
	br	%r14
	.size	old_pg2, .-old_pg2
	.section .bss
	.align	8
.LP0:	.quad	0
.LP1:	.quad	0
"""


def check_old_pg_block(arch, d, tool):
    """stg; larl; brasl; lg: the site is the stg (r_offset - 14), --nop
    writes four jgnops and voids the larl's relocation with the brasl's,
    and the result links without _mcount."""
    src, obj = os.path.join(d, "old.s"), os.path.join(d, "old.o")
    with open(src, "w") as f:
        f.write(OLD_PG_ASM)
    must([arch.tool("gcc"), "-c", "-o", obj, src])
    rc, so, se = run([tool, obj])
    check(rc == 0 and so == se == "", "recordmcount: %d %s" %
          (rc, (so + se).strip()[:300]))
    secs = Sections(arch, obj)
    sites = sorted((secs.by_index[s]["name"], o)
                   for s, o, _ in table_sites(arch, obj, secs))
    check(sites == [(".text", 0), (".text", 0x1e)], "table: %s" % sites)

    nop = os.path.join(d, "old-nop.o")
    must([arch.tool("gcc"), "-c", "-o", nop, src])
    rc, so, se = run([tool, "--nop", nop])
    check(rc == 0 and so == se == "", "recordmcount --nop: %d %s" %
          (rc, (so + se).strip()[:300]))
    disasm, _ = objdump(arch, nop, True)
    insns, rels = disasm[".text"]
    for start in (0, 0x1e):
        block = [t for a, t in insns if start <= a < start + 24]
        check(len(block) == 4 and all(t.startswith("jgnop") for t in block),
              "%#x: %s" % (start, block))
    live = [(o, t, s) for o, t, s in rels
            if t != "R_390_NONE" and (o < 24 or 0x1e <= o < 0x1e + 24)]
    check(not live, "relocations left in the NOPs: %s" % live)
    sup = os.path.join(d, "start.c")
    with open(sup, "w") as f:
        f.write(common.START_C)
    must([arch.tool("gcc"), "-nostdlib", "-static", "-no-pie", "-o",
          os.path.join(d, "old-prog"), sup, nop])


def s390_extras(tool, scratch, log):
    base = os.path.join(scratch, "s390x-extra")
    jobs = []
    for arch in (S390X, S390X_PG):
        for fs, fflags in arch.flag_sets.items():
            for opt in arch.opts:
                for fx in ("basic.c", "sections.c", "recursion.c",
                           "weakonly.c"):
                    flags = (arch.cflags + fflags + opt.split() + ["-pg"] +
                             common.FIXTURE_FLAGS.get(fx, []))
                    tag = "%s/%s-%s/%s" % (arch.name, fs,
                                           opt.replace(" ", "")
                                           .replace("-", ""), fx[:-2])
                    d = os.path.join(base, tag)
                    os.makedirs(d, exist_ok=True)
                    jobs.append((tag + "/like-gcc-nop", check_like_gcc_nop,
                                 arch, flags,
                                 os.path.join(common.FIXTURES, fx), d, tool))
    d = os.path.join(base, "old-pg")
    os.makedirs(d, exist_ok=True)
    jobs.append(("s390x-pg/old-larl-block", check_old_pg_block, S390X_PG, d,
                 tool))
    common.parallel(lambda j: log.case(j[0], j[1], *j[2:]), jobs)


if __name__ == "__main__":
    raise SystemExit(common.main(ARCHES, s390_extras))
