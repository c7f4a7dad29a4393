#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_arm.py RECORDMCOUNT SCRATCH-DIR - aarch64, arm (ARM and Thumb-2)
and riscv64 through the cross harness (common.py).

Flag sets: "kernel" approximates what linux-6.1's Makefiles pass with
CONFIG_FUNCTION_TRACER and recordmcount (-fno-PIE from the top-level
Makefile plus the arch's own), "user" is Debian's default (PIE).  The
harness runs each at -O2 and -O2 -ffunction-sections.
"""

import json
import os
import re
import shutil

import common
from common import Arch, check, must, run

# arch/arm64/Makefile (without DYNAMIC_FTRACE_WITH_REGS, which would use
# -fpatchable-function-entry instead of -pg and recordmcount).
KERNEL_ARM64 = ["-fno-PIE", "-mgeneral-regs-only", "-mabi=lp64",
                "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
                "-mbranch-protection=none", "-fno-omit-frame-pointer"]

AARCH64 = Arch(
    name="aarch64",
    triplet="aarch64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_AARCH64_ABS64",
    none_reloc="R_AARCH64_NONE",
    nop_re=r"^nop$",
    flag_sets={"kernel": KERNEL_ARM64, "user": []},
    # clang spells the ABI by the target alone (no -mabi=lp64)
    clang_flag_sets={"kernel": [f for f in KERNEL_ARM64
                                if f != "-mabi=lp64"], "user": []},
)

# arch/arm/Makefile: AAPCS-Linux, and either ARM (-marm, with -mapcs
# -mno-sched-prolog for frame pointers) or Thumb-2 (THUMB2_KERNEL).  Not
# -msoft-float: ld refuses to link it with Debian's hard-float libgcc,
# and it does not change the hook.
KERNEL_ARM = ["-fno-PIE", "-mabi=aapcs-linux", "-mfpu=vfp"]

ARM = Arch(
    name="arm",
    triplet="arm-linux-gnueabihf",
    hooks=("__gnu_mcount_nc",),
    table_reloc="R_ARM_ABS32",
    none_reloc="R_ARM_NONE",
    # What undoes the `push {lr}`: add sp, sp, #4 (add.w in Thumb-2).
    nop_re=r"^add(\.w)? sp, sp, #4$",
    flag_sets={
        "kernel-arm": KERNEL_ARM + ["-marm", "-mapcs", "-mno-sched-prolog",
                                    "-fno-omit-frame-pointer"],
        "kernel-thumb": KERNEL_ARM + ["-mthumb", "-Wa,-mimplicit-it=always"],
        "user-arm": ["-marm"],
        "user-thumb": [],               # Debian armhf's default: Thumb-2
    },
    # clang calls __gnu_mcount_nc only with -meabi gnu (the kernel
    # passes it); in ARM state it pushes lr with `stmdb sp!, {lr}`.
    clang_flag_sets={
        "kernel-arm": KERNEL_ARM + ["-meabi", "gnu", "-marm",
                                    "-march=armv7-a"],
        "kernel-thumb": KERNEL_ARM + ["-meabi", "gnu", "-mthumb",
                                      "-march=armv7-a"],
    },
)

# linux-6.1's arch/riscv/Makefile builds with -mcmodel=medany (modules)
# and -mno-relax where the linker must not relax (DYNAMIC_FTRACE);
# -march=rv64g tests uncompressed code next to Debian's rv64gc default.
KERNEL_RISCV = ["-fno-PIE", "-mcmodel=medany", "-mabi=lp64"]


def rv_linked_site(arch, insns, i):
    """The hook call objdump shows in a linked program: a `jal` where ld
    relaxed the pair (the site itself), else the `jalr` after the site's
    auipc."""
    addr, text = insns[i]
    if text.startswith("jalr") and i > 0 and \
            insns[i - 1][1].startswith("auipc ra,"):
        return insns[i - 1][0]
    return addr


RISCV64 = Arch(
    name="riscv64",
    triplet="riscv64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_RISCV_64",
    none_reloc="R_RISCV_NONE",
    nop_re=r"^nop$",
    nop_len=8,
    linked_site=rv_linked_site,
    flag_sets={
        "kernel": KERNEL_RISCV + ["-mno-relax"],
        "kernel-relax": KERNEL_RISCV,
        "kernel-rv64g": KERNEL_RISCV + ["-march=rv64g", "-mno-relax"],
        "user": [],
        "user-norelax": ["-mno-relax"],
    },
    # the default lp64d ABI: the links' support code is GCC's default
    clang_flag_sets={"kernel": ["-fno-PIE", "-mcmodel=medany",
                                "-mno-relax"], "user": []},
)

ARCHES = [AARCH64, ARM, RISCV64]

# -- arm extras: where --check and --dump place a Thumb site --------------
#
# A Thumb function's symbol value is its address + 1 (the interworking
# bit); objdump labels it at its address.  Every place the tool prints
# (section offset or address, and function + offset) must be the one
# objdump shows.  ARM-state functions sit beside the Thumb ones, so the
# odd values cannot hide behind an even neighbour.

PLACES_C = """
int g;
#define ARM_STATE __attribute__((noinline, target("arm")))
#define THUMB __attribute__((noinline, target("thumb")))
THUMB int leaf(int x) { return x * 3 + g; }
ARM_STATE int arm_mid(int x) { return leaf(x) + leaf(x + 1); }
THUMB int thumb_mid(int x) { return arm_mid(x) + leaf(x + 2); }
THUMB static int local_fn(int x) { return thumb_mid(x) * 2; }
ARM_STATE int arm_top(int x) { return local_fn(x) + g; }
THUMB int top(int x) { return arm_top(x) + 1; }
"""

# A symbol's label; objdump also starts a block at a mapping symbol (an
# ARM/Thumb switch), labelled "<leaf-0x8>", which names no function.
LABEL_RE = re.compile(r"^([0-9a-f]+) <([^>+-]+)>:$")
HOOK_BL_RE = re.compile(r"\bblx?\s+[0-9a-f]+ <__gnu_mcount_nc>")


def objdump_places(path):
    """{section: ([(label address, name)], {address: (text, [reloc
    symbols])})} from arm-linux-gnueabihf-objdump -dr: its labels are
    code addresses, never a Thumb symbol's odd value."""
    out, _ = must([ARM.tool("objdump"), "-drw", path])
    result, cur = {}, None
    for line in out.splitlines():
        m = common.SECTION_RE.match(line)
        if m:
            cur = result.setdefault(m.group(1), ([], {}))
            continue
        m = LABEL_RE.match(line)
        if m and cur is not None:
            cur[0].append((int(m.group(1), 16), m.group(2)))
            continue
        m = common.INSN_RE.match(line)
        if m and cur is not None:
            text = " ".join(m.group(3).split("\t")[:2])
            rels = re.findall(r"R_ARM_\w+\s+(\S+)", m.group(3))
            cur[1][int(m.group(1), 16)] = (text, rels)
    return result


FUNCTIONS = ("leaf", "arm_mid", "thumb_mid", "local_fn", "arm_top", "top")


def hook_places(places, linked):
    """{(section, address): (function, offset)} of every hook call
    objdump shows (the instruction a relocation against __gnu_mcount_nc
    sits in; linked, a bl/blx to it), named after the label before it."""
    want = {}
    for sec, (labels, insns) in places.items():
        for a, (text, rels) in insns.items():
            if ("__gnu_mcount_nc" in rels if not linked
                    else HOOK_BL_RE.search(text)):
                start, name = max(x for x in labels if x[0] <= a)
                want[(sec, a)] = (name, a - start)
    return want


def pad_places(places, m):
    """{(section, address): (function, offset)} of the first NOP of every
    pad: m NOPs before each of our functions' labels (a Thumb NOP is 2
    bytes, an ARM one 4: the instructions objdump shows say which)."""
    want = {}
    for sec, (labels, insns) in places.items():
        order = sorted(insns)
        for start, name in labels:
            if name not in FUNCTIONS:
                continue
            k = order.index(start) - m
            check(k >= 0 and all(insns[a][0].startswith("nop")
                                 for a in order[k:k + m + 1]),
                  "objdump shows no %d NOPs before %s" % (m, name))
            want[(sec, order[k])] = (name, order[k] - start)
    return want


def tool_json(tool, *args):
    rc, out, err = run([tool] + list(args))
    check(rc in (0, 1) and not err.strip(), "recordmcount %s: exit %d: %s"
          % (" ".join(args), rc, err.strip()[:300]))
    return json.loads(out)


def check_places(path, items, linked, want, count=6):
    """items (--dump entries or --check problems) name exactly the
    places in want (count of them), each with objdump's function and
    offset."""
    got = {(i["section"], i["address"] if linked else i["offset"]):
           (i["function"], i["function_offset"]) for i in items}
    check(len(got) == len(items), "%s: a place twice" % path)
    check(len(want) == count, "%s: objdump shows %d sites: %s" % (
        os.path.basename(path), len(want), sorted(want)))
    bad = sorted((k, got.get(k), v) for k, v in want.items()
                 if got.get(k) != v)
    extra = sorted(set(got) - set(want))
    check(not bad and not extra, "%s: (place, tool's, objdump's): %s; "
          "places objdump has no site at: %s" % (os.path.basename(path),
                                                 bad[:4], extra[:4]))


def compile_places(d, name, flags):
    src = os.path.join(d, "places.c")
    with open(src, "w") as f:
        f.write(PLACES_C)
    obj = os.path.join(d, name)
    must([ARM.tool("gcc"), "-c", "-O2", "-o", obj] + flags + [src])
    return obj


def record(tool, obj):
    """Record obj; a warning about pads the runtime cannot enable is no
    failure here (GCC puts ARM NOPs before a Thumb function's entry)."""
    rc, out, err = run([tool, obj])
    check(rc == 0 and not out and all(": warning: libmcount cannot enable "
                                       in x for x in err.splitlines()),
          "recordmcount: %d %s" % (rc, out + err))


def link(d, name, obj, with_hook):
    sup = os.path.join(d, name + "-support.c")
    with open(sup, "w") as f:
        f.write(ARM.support_source(with_hook))
    prog = os.path.join(d, name)
    must([ARM.tool("gcc"), "-O2", "-nostdlib", "-static", "-o", prog, sup,
          obj])
    return prog


def check_thumb_pg(tool, d):
    """-pg: --check's findings on the unrecorded object, --dump's
    entries on the recorded one, on a static link of it, and --check's
    findings on a link of the unrecorded one."""
    obj = compile_places(d, "pg.o", ["-pg"])
    want = hook_places(objdump_places(obj), False)
    found = tool_json(tool, "--check", "--format=json", obj)["problems"]
    check(all(p["class"] == "unrecorded" for p in found),
          "problems %s" % [p["class"] for p in found])
    check_places(obj, found, False, want)
    bare = link(d, "pg-bare", obj, True)
    found = tool_json(tool, "--check", "--format=json", bare)["problems"]
    check([p["class"] for p in found] == ["no-table"],
          "linked problems %s" % [p["class"] for p in found])
    linked = hook_places(objdump_places(bare), True)
    check(len(linked) == 6, "the program calls the hook %d times"
          % len(linked))
    first = min(linked, key=lambda k: k[1])     # the problem's place
    check_places(bare, found, True, {first: linked[first]}, 1)
    record(tool, obj)
    check_places(obj, tool_json(tool, "--dump", "--format=json",
                                obj)["entries"], False, want)
    prog = link(d, "pg-prog", obj, True)
    check_places(prog, tool_json(tool, "--dump", "--format=json",
                                 prog)["entries"], True,
                 hook_places(objdump_places(prog), True))


def check_thumb_pads(tool, d, n, m):
    """-fpatchable-function-entry=N,M: --dump's entries in the object
    and in a static link are the first NOP of each pad, named after the
    function objdump puts them in (M > 0: the one they run into)."""
    obj = compile_places(d, "pad.o", ["-fpatchable-function-entry=%d,%d"
                                      % (n, m)])
    record(tool, obj)
    check_places(obj, tool_json(tool, "--dump", "--format=json",
                                obj)["entries"], False,
                 pad_places(objdump_places(obj), m))
    prog = link(d, "pad-prog", obj, False)
    check_places(prog, tool_json(tool, "--dump", "--format=json",
                                 prog)["entries"], True,
                 pad_places(objdump_places(prog), m))


def arm_extras(tool, scratch, log):
    if not shutil.which(ARM.tool("gcc")):
        return
    jobs = [("arm-extra/thumb-places-pg", check_thumb_pg, tool, "pg"),
            ("arm-extra/thumb-places-pad3", check_thumb_pads, tool, "pad3",
             3, 0),
            ("arm-extra/thumb-places-pad5-2", check_thumb_pads, tool,
             "pad52", 5, 2)]
    for name, fn, t, sub, *rest in jobs:
        d = os.path.join(scratch, "arm-extra", sub)
        os.makedirs(d, exist_ok=True)
        log.case(name, fn, t, d, *rest)


if __name__ == "__main__":
    raise SystemExit(common.main(ARCHES, arm_extras))
