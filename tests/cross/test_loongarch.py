#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_loongarch.py RECORDMCOUNT SCRATCH-DIR - loongarch64 through the
cross harness (common.py), with clang 16's objects alone.

Debian 12 has no LoongArch GCC and no LoongArch binutils, and clang 14
has no LoongArch target: every object here is clang-16's
(--target=loongarch64-linux-gnu), and the oracles are LLVM 16's
llvm-objdump -dr (the hook calls and what --nop left) and llvm-readelf
(sections, symbols, relocations).  Nothing links: lld 16 cannot link
LoongArch (it refuses R_LARCH_B26), so the harness's link checks are
skipped, and its ld -r is ld.lld-16's, which copies relocations without
applying them.

Flag sets: "user" is clang's default (`bl mcount`); "medium"
(-fno-PIE -mcmodel=medium) makes the hook call a pcalau12i + jirl pair
(R_LARCH_PCALA_HI20 and its LO12 companion).  Each at -O0 and
-O2 -ffunction-sections.

The extras: --dump's JSON names the oracle's sites, as calls and after
--nop as NOPs; --check finds every hook of an unrecorded object missing
from its (absent) table and passes a recorded one; --finalize of a
module made by ld.lld-16 -r of a weak and a strong f clears exactly the
entries llvm-readelf's symbols put in no function.
"""

import json
import os

import common
from common import Arch, check, must, run

LLVM = {"objdump": "llvm-objdump-16", "readelf": "llvm-readelf-16",
        "ld": "ld.lld-16"}
PAIR = "R_LARCH_PCALA_HI20"


def nop_len(reloc_type):
    """bl is one instruction; the medium model's pair two."""
    return 8 if reloc_type == PAIR else 4


LOONGARCH64 = Arch(
    name="loongarch64",
    triplet="loongarch64-linux-gnu",
    hooks=("mcount", "_mcount"),
    table_reloc="R_LARCH_64",
    none_reloc="R_LARCH_NONE",
    nop_re=r"^nop$",
    nop_len=nop_len,
    companions=("R_LARCH_PCALA_LO12",),
    flag_sets={},
    clang_flag_sets={
        "user": [],
        "medium": ["-fno-PIE", "-mcmodel=medium"],
    },
    opts=("-O0", "-O2 -ffunction-sections"),
    clangs=("clang-16",),
    tools=LLVM,
    no_gcc="Debian 12 has no LoongArch GCC",
    no_link="lld 16 cannot link LoongArch and Debian 12 has no "
            "LoongArch binutils",
)

CC = ["clang-16", "--target=loongarch64-linux-gnu"]


def compile_to(src_text, name, d, flags):
    src = os.path.join(d, name + ".c")
    with open(src, "w") as f:
        f.write(src_text)
    obj = os.path.join(d, name + ".o")
    must(CC + flags + ["-c", "-o", obj, src])
    return obj


def oracle(obj):
    """{(section, offset): reloc type} of the hook calls in `obj`."""
    disasm, _ = common.objdump(LOONGARCH64, obj, True)
    return common.oracle_sites(LOONGARCH64, disasm)


def dump_json(tool, obj):
    rc, out, err = run([tool, "--dump", "--format=json", obj])
    check(rc == 0, "--dump exited %d: %s" % (rc, err.strip()))
    return json.loads(out)


FIXTURE = os.path.join(common.FIXTURES, "basic.c")


def check_dump(tool, d):
    """--dump lists the oracle's sites: calls, then NOPs after --nop."""
    for model, flags in (("normal", []), ("medium", ["-mcmodel=medium"])):
        obj = os.path.join(d, "dump-%s.o" % model)
        must(CC + ["-pg", "-O2"] + flags + ["-c", "-o", obj, FIXTURE])
        want = oracle(obj)
        check(want, "llvm-objdump -dr shows no hook call")
        must([tool, obj])
        doc = dump_json(tool, obj)
        got = {(e["section"], e["offset"]): e for e in doc["entries"]}
        check(doc["arch"] == "loongarch64", "arch %s" % doc["arch"])
        check(set(got) == set(want), "%s: dump %s, llvm-objdump %s" %
              (model, sorted(got), sorted(want)))
        for k, e in got.items():
            check(e["state"] == "call" and e["symbol"] == "mcount",
                  "%s+%#x: state %s, symbol %s" % (k[0], k[1], e["state"],
                                                   e["symbol"]))
        nop = os.path.join(d, "nop-%s.o" % model)
        must(CC + ["-pg", "-O2"] + flags + ["-c", "-o", nop, FIXTURE])
        must([tool, "--nop", nop])
        for e in dump_json(tool, nop)["entries"]:
            n = nop_len(want[(e["section"], e["offset"])])
            check(e["state"] == "nop" and e["bytes"] == "00004003" * (n // 4),
                  "%s+%#x after --nop: %s %s" % (e["section"], e["offset"],
                                                 e["state"], e["bytes"]))


def check_check(tool, d):
    """--check: every hook of an unrecorded object is reported missing
    (as many as llvm-objdump shows), and the recorded object is clean."""
    obj = os.path.join(d, "check.o")
    must(CC + ["-pg", "-O2", "-c", "-o", obj, FIXTURE])
    want = oracle(obj)
    rc, out, err = run([tool, "--check", "--format=json", obj])
    check(rc == 1, "--check of an unrecorded object exited %d" % rc)
    doc = json.loads(out)
    missing = [p for p in doc.get("problems", [])
               if p.get("class") == "unrecorded"]
    check(len(missing) == len(want), "%d unrecorded hooks reported, "
          "llvm-objdump shows %d: %s" % (len(missing), len(want), out[:300]))
    must([tool, obj])
    rc, out, err = run([tool, "--check", obj])
    check(rc == 0, "--check of the recorded object exited %d: %s" %
          (rc, (out + err).strip()[:300]))


WEAK_C = """__attribute__((weak)) int f(int x) { return x + 1; }
int h(int x) { return f(x) + 3; }
"""
STRONG_C = "int f(int x) { return x * 2; }\n"


def functions(obj):
    """[(start, end)] of llvm-readelf's sized FUNC symbols in `obj`."""
    out, _ = must(["llvm-readelf-16", "-sW", obj])
    spans = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
            start = int(f[1], 16)
            spans.append((start, start + int(f[2], 0)))
    return spans


def check_finalize(tool, d):
    """A module (ld.lld-16 -r) of a weak and a strong f: --finalize
    turns into R_LARCH_NONE exactly the entries in no function."""
    objs = [compile_to(t, n, d, ["-pg", "-O2"])
            for n, t in (("weak", WEAK_C), ("strong", STRONG_C))]
    for o in objs:
        must([tool, o])
    mod = os.path.join(d, "mod.o")
    must(["ld.lld-16", "-r", "-o", mod] + objs)
    spans = functions(mod)
    entries = common.table_sites(LOONGARCH64, mod)
    stale = [o for _s, o, _t in entries
             if not any(a <= o < b for a, b in spans)]
    check(len(stale) == 1, "llvm-readelf puts %d entries in no function "
          "(%s), not the weak f's one" % (len(stale), stale))
    must([tool, "--finalize", mod])
    rels = common.relocs(LOONGARCH64, mod)[".rela__mcount_loc"]
    cleared = sum(1 for r in rels if r[2] == "R_LARCH_NONE")
    kept = sum(1 for r in rels if r[2] == "R_LARCH_64")
    check(cleared == len(stale) and kept == len(entries) - len(stale),
          "%d cleared, %d kept; %d stale of %d" %
          (cleared, kept, len(stale), len(entries)))
    rc, out, err = run([tool, "--check", mod])
    check(rc == 0, "--check after --finalize exited %d: %s" %
          (rc, (out + err).strip()[:300]))


def extras(tool, scratch, log):
    d = os.path.join(scratch, "loongarch64", "extras")
    os.makedirs(d, exist_ok=True)
    for name, fn in (("dump", check_dump), ("check", check_check),
                     ("finalize-weak", check_finalize)):
        sub = os.path.join(d, name)
        os.makedirs(sub, exist_ok=True)
        log.case("loongarch64/" + name, lambda fn=fn, sub=sub: fn(tool, sub))


if __name__ == "__main__":
    raise SystemExit(common.main([LOONGARCH64], extras))
