#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_check.py RECORDMCOUNT SCRATCH-DIR - the CI gate, `--check`
(issue 10), on x86_64, aarch64, arm, ppc, riscv64, s390x and mips images
and objects.

Every defect is seeded into an image or object that is clean first, and
what --check must say about it comes from outside the tool: hook calls
from `objdump -d`, function extents from `nm -S`, table slots read from
the file with tests/oracle/elfmini.py (and, in a PIE, its R_*_RELATIVE
relocations from `readelf -rW`).  Each case checks the exit status, the
class of every problem and its address (and entry index where it has
one), in the JSON output, and that the text output says the same.

Cases, per architecture (<arch>/...: x86_64, aarch64, arm, ppc (big
endian, 32-bit), riscv64, s390x (big endian, 64-bit, RELA) and mips
(big-endian o32 PIC, REL); an architecture whose cross compiler is
missing is one SKIP line).  Where the site is not the call (s390x's stg,
o32 PIC's `addiu sp,sp,-8; lw t9`) the oracle takes the instruction
sequence before objdump's call (Arch.leads):
  clean        prog.c + hooks.c, every object recorded: exit 0, result
               ok, hooks == objdump's hook calls; objects exit 0 too
  gcc-table    the same objects with GCC's own -mrecord-mcount table,
               not ours (x86_64 only: GCC has no -mrecord-mcount for
               aarch64 or arm): exit 0
  unrecorded   strong.c left unrecorded: one `unrecorded` per hook call
               objdump shows in strong.c's functions, nothing else; the
               unrecorded object itself: one per hook relocation
  no-table     nothing recorded: one `no-table`
  weak         strong.c overrides prog.c's weak function: one `stale`
               at the hook call objdump shows outside every nm function
  off-hook     one entry moved off its hook: `off-hook` at the moved
               address and entry index
  duplicate    an entry copied over the next: `duplicate` there, and the
               hook that lost its entry `unrecorded`
  corrupt      one hook's bytes overwritten: `corrupt-site` there
  unsorted     the table as linked (not in address order): clean without
               --sorted; --sorted: `unsorted` at the first descent
  lto          -flto object: `lto`, exit 1 (and clang's bitcode, x86_64)
  untouched    --check leaves every file byte-identical, same mtime
  finalize     --finalize on the weak image: the slots (read here) are 0
               then objdump's hook calls inside functions, sorted;
               --check --sorted clean; a second run changes nothing
  finalize-module  `ld -r` of all three objects (a module): the dead
               body's relocation becomes R_*_NONE (readelf); then clean
  finalize-emit-relocs  linked with --emit-relocs: after --finalize the
               static relocations (readelf) make what each slot holds
               (RELA targets: not arm or mips)
  finalize-pie a PIE with the runtime (RELATIVE relocations; x86_64,
               aarch64, arm, riscv64, s390x under qemu-user; not ppc or
               mips, which have no runtime here): finalized, clean, and at
               boot the runtime patches exactly objdump's live hooks
  shared       a shared object (prog.c, strong.c, solib.c: the weak
               override, and a cold function that leaves the table
               unsorted) with the runtime linked in (where a runtime
               exists: x86_64, aarch64, arm, riscv64, s390x): --check
               finds exactly the stale entry (objdump's hook calls,
               through x86's GOT or direct, against nm) and with
               --sorted the first descent of the RELATIVE addends
               (readelf; REL on arm: the slots); after --finalize the
               table's only relocations are R_*_RELATIVE whose values are
               0 then the live hooks sorted, clean, idempotent; a program
               linked against it runs and the library's runtime patches
               every entry (8 before, the 7 live after)
x86_64 only: the demo (PIE, run), a -flto link with no table
(`no-table`), the runtime test program (tests/runtime: a hand-written
non-hook entry and a duplicate, as bad-<arch>.S says), --finalize
--prepatch (case_prepatch says what it checks), usage errors,
ppc64 ELFv1 refused by both modes.
x86_64/tail-byte and i386/tail-byte: a function ending in the byte 0x90
right before a traced one (byte by byte, "90 e8 <rel32>" reads as a
"nop; call" of the next function's hook): clean, objdump's one hook
(case_tail_byte).
firmware/<board>: the bare-metal images of examples/firmware: exit 0;
finalized: sorted, idempotent, clean with --sorted.
plt/<toolchain>: PIEs and shared objects whose hook calls go through a
PLT entry or call stub (gcc and clang, GNU ld and lld; x86_64, i386,
aarch64, arm, riscv64, s390x, ppc64le with and without -mcpu=power10,
ppc32's BSS PLT, sparc64, sh4's GOT, PLT and loader-set calls):
nothing recorded, `no-table` and as many hooks as objdump's calls to
the hook's entry (where objdump names none: arm lld's entries decoded
from objdump -d -j .plt against readelf -r; sh4's GOT slots from the
values objdump prints); recorded, clean, and --dump's entries are those
calls (case_plt).
plt/<toolchain>-undecided: ppc32's secure PLT (lld), lld's ppc64le
--no-power10-stubs stubs, where --check cannot follow them:
`undecided`, exit 1 (case_plt_undecided).
got/<toolchain>: MIPS PIC images (o32 both byte orders, n64; gcc,
clang 14 and 16; -O2 and -O0; GNU ld and lld; -shared with the hook
undefined or defined, -pie and -no-pie against a library, its hook
versioned too) whose hook calls load t9 from the hook's GOT entry:
readelf -A's entry and objdump -d's loads (or objdump -dr of an
--emit-relocs twin) are the oracle; nothing
recorded `no-table`, main.c alone unrecorded one `unrecorded` in main,
recorded clean, 5 hooks each (case_got).  A multi-GOT link: calls
through each GOT followed, and a call from a $gp the function does not
set `undecided` (case_got_multi).  -mno-abicalls code linked -static
with a PIC hook, through ld's LA25 stubs (case_la25), and linked -no-pie
against a library, through o32's non-PIC PLT (case_mips_plt).
"""

import json
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
                     parallel, run, scratch_arg, snapshot)

MCOUNT_LDS = os.path.join(TOP, "lds", "mcount.lds")
HOOK_NAMES = ("__fentry__", "mcount", "_mcount", "__gnu_mcount_nc")
CLASSES = ("unrecorded", "no-table", "off-hook", "corrupt-site", "stale",
           "bad-address", "duplicate", "unsorted", "lto", "unusable-pad",
           "undecided", "unsupported-hook")


class Arch:
    def __init__(self, name, triplet, hooks, corrupt, off, gcc_table,
                 hook_re, lead_re=None, rela=True):
        self.name = name
        self.cc = "%s-gcc" % triplet if triplet else "gcc"
        self.tool = (lambda t: "%s-%s" % (triplet, t)) if triplet else \
            (lambda t: t)
        self.hooks = hooks.split()
        self.corrupt = corrupt      # bytes that are no hook, NOP or pad
        self.off = off              # a move that leaves the hook
        self.gcc_table = gcc_table  # GCC can write the table itself
        self.rela = rela            # RELA relocations (addends readelf shows)
        # A call to a hook, direct or through a PLT stub (shared objects)
        self.hook_re = re.compile(r"^\s*([0-9a-f]+):.*\b(?:%s)\s+"
                                  r"(?:\S+,)?[0-9a-f]+ <(?:%s)(?:@plt)?>" %
                                  (hook_re, "|".join(HOOK_NAMES)))
        # Where the site is an instruction sequence ending right before
        # the call (s390x's `stg %r14,8(%r15)`, riscv's unrelaxed `auipc
        # ra`, o32 PIC's `addiu sp,sp,-8; lw t9,...`): its first one.
        self.leads = [[re.compile(r"^\s*[0-9a-f]+:\s+(?:%s)" % r)
                       for r in seq] for seq in (lead_re or [])]


ARCHES = [
    Arch("x86_64", None, "-pg -mfentry", b"\xcc" * 5, 1, True, "call"),
    # brk #0
    Arch("aarch64", "aarch64-linux-gnu", "-pg", bytes.fromhex("000020d4"),
         4, False, "bl"),
    # Thumb-2 (Debian's default): udf #0, twice
    Arch("arm", "arm-linux-gnueabihf", "-pg", bytes.fromhex("00de00de"),
         2, False, "bl|blx", rela=False),
    # Big endian, 32-bit: byte order and class independence.  trap
    Arch("ppc", "powerpc-linux-gnu", "-pg", bytes.fromhex("7fe00008"),
         4, False, "bl"),
    # ebreak.  ld relaxes `auipc ra; jalr ra` to `jal ra, _mcount`; where
    # it does not, the site is the auipc.
    Arch("riscv64", "riscv64-linux-gnu", "-pg", bytes.fromhex("73001000"),
         2, False, r"jalr?", lead_re=[[r"auipc\s+ra,"]]),
    # Big endian, 64-bit, RELA.  The -pg site is the stg before `brasl
    # %r14,_mcount`; six zero bytes are no instruction.
    Arch("s390x", "s390x-linux-gnu", "-pg", bytes(6), 2, False, "brasl",
         lead_re=[[r"stg\s+%r14,8\(%r15\)"]]),
    # Big endian o32 (REL), PIC (Debian's default): the site is the
    # `addiu sp,sp,-8` before `lw t9,%call16(_mcount)(gp)`, and ld makes
    # the `jalr t9` a `bal`.  break
    Arch("mips", "mips-linux-gnu", "-pg", bytes.fromhex("0000000d"), 4,
         False, r"jalr?|bal", rela=False,
         lead_re=[[r"addiu\s+sp,sp,-8", r"lw\s+t9,"], [r"lw\s+t9,"]]),
]


class Tool:
    def __init__(self, path):
        self.path = path

    def check(self, files, *opts):
        rc, out, err = run([self.path, "--check", "--format=json"] +
                           list(opts) + list(files))
        reports = [json.loads(line) for line in out.splitlines()]
        for r in reports:
            check(r.get("schema_version") == 1, "no schema_version 1")
            for p in r["problems"]:
                check(p["class"] in CLASSES, "unknown class %r" % p)
        return rc, reports, err

    def text(self, files, *opts):
        return run([self.path, "--check"] + list(opts) + list(files))


# -- independent views of an image ---------------------------------------

def hook_calls(arch, path):
    """Addresses objdump -d shows a call to a hook at (the site: the
    first instruction of a lead sequence before it, see Arch)."""
    return sorted(hook_sites(arch, path))


def unrecorded_at(arch, path, sites):
    """Where --check reports these sites unrecorded: at the site, but
    MIPS PIC's at its call (what the image's decoder finds)."""
    calls = hook_sites(arch, path)
    return [calls[a] if arch.name == "mips" else a for a in sites]


def hook_sites(arch, path):
    """{site: call} of every hook call objdump -d shows."""
    out, _ = must([arch.tool("objdump"), "-d", "--no-show-raw-insn", path])
    lines = out.splitlines()
    calls = {}
    for i, line in enumerate(lines):
        m = arch.hook_re.match(line)
        if not m:
            continue
        site = int(m.group(1), 16)
        for seq in arch.leads:
            before = lines[max(0, i - len(seq)):i]
            if len(before) == len(seq) and \
                    all(r.match(line) for r, line in zip(seq, before)):
                site = int(before[0].split(":")[0], 16)
                break
        calls[site] = int(m.group(1), 16)
    return calls


def functions(arch, path):
    """nm -S: {name: (start, size)} of every sized text symbol; Thumb bit
    dropped."""
    out, _ = must([arch.tool("nm"), "-S", path])
    funcs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            funcs[f[3]] = (int(f[0], 16) & ~1, int(f[1], 16))
    return funcs


def in_function(funcs, addr):
    return any(s <= addr < s + n for s, n in funcs.values())


class Image:
    """The table of a linked image, slot by slot, read with elfmini."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = bytearray(f.read())
        self.path = path
        self.elf = elfmini.Elf(bytes(self.data))
        syms = {s.name: s.value for s in self.elf.symbols}
        sec = self.elf.section("__mcount_loc")
        # lds/mcount.lds PROVIDEs the bounds only when something uses them.
        self.start = syms.get("__start_mcount_loc", sec.addr)
        self.stop = syms.get("__stop_mcount_loc", sec.addr + sec.size)
        self.size = 8 if self.elf.is64 else 4
        sec = self.elf.section_at(self.start)
        self.file_at = sec.offset - sec.addr

    def slots(self):
        return [self.get(k) for k in range((self.stop - self.start) //
                                           self.size)]

    def get(self, k):
        return self.elf.word(self.data, self.file_at + self.start +
                             k * self.size)

    def put(self, k, value):
        fmt = self.elf.e + ("Q" if self.size == 8 else "I")
        struct.pack_into(fmt, self.data, self.file_at + self.start +
                         k * self.size, value)

    def patch_code(self, addr, data):
        sec = self.elf.section_at(addr)
        at = sec.offset + addr - sec.addr
        self.data[at:at + len(data)] = data

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.data)
        os.chmod(path, 0o755)


def problems(report):
    return sorted((p["class"], p["address"] if p["address"] is not None
                   else p["offset"], p["entry"]) for p in report["problems"])


def expect(tool, files, want_rc, want, *opts):
    """--check on files: exit want_rc and, for the first file, exactly
    the problems `want` [(class, address, entry or None)]; the text
    output names each one too."""
    rc, reports, err = tool.check(files, *opts)
    check(rc == want_rc, "exit %d, expected %d (%s)" % (rc, want_rc,
                                                        err.strip()))
    got = problems(reports[0])
    check(got == sorted(want), "problems %s, expected %s" %
          ([(c, hex(a or 0), e) for c, a, e in got],
           [(c, hex(a or 0), e) for c, a, e in sorted(want)]))
    trc, out, _ = tool.text(files, *opts)
    check(trc == want_rc, "text mode exit %d" % trc)
    for cls, addr, _ in want:
        check(any(("%s:" % cls) in line and
                  (addr is None or ("0x%x " % addr) in line)
                  for line in out.splitlines()),
              "text output lacks %s at %s" % (cls, addr))
    return reports[0]


# -- building -------------------------------------------------------------

class Build:
    def __init__(self, arch, tool, scratch):
        self.arch = arch
        self.tool = tool
        self.dir = os.path.join(scratch, arch.name)
        os.makedirs(self.dir, exist_ok=True)

    def obj(self, src, name, hooks=True, extra=()):
        out = os.path.join(self.dir, name)
        must([self.arch.cc, "-O2", "-c", "-o", out] +
             (self.arch.hooks if hooks else []) + list(extra) +
             [os.path.join(HERE, src)])
        return out

    def record(self, *objs):
        must([self.tool.path] + list(objs))

    def link(self, name, objs, extra=()):
        out = os.path.join(self.dir, name)
        must([self.arch.cc, "-nostdlib", "-static", "-o", out] + list(objs)
             + ["-Wl,-T," + MCOUNT_LDS] + list(extra))
        return out

    def program(self, name, with_strong=True, record_strong=True):
        """prog.o + main.o [+ strong.o] + hooks.o, recorded as asked,
        linked; the objects, strong.o last."""
        objs = [self.obj("prog.c", name + "-prog.o"),
                self.obj("main.c", name + "-main.o")]
        hooks = self.obj("hooks.c", name + "-hooks.o", hooks=False)
        self.record(*objs)
        if with_strong:
            objs.append(self.obj("strong.c", name + "-strong.o"))
            if record_strong:
                self.record(objs[-1])
        return self.link(name, objs + [hooks]), objs


def case_clean(b):
    prog, objs = b.program("clean", with_strong=False)
    report = expect(b.tool, [prog] + objs, 0, [])
    calls = hook_calls(b.arch, prog)
    check(report["hooks"] == len(calls), "%d hooks, objdump shows %d" %
          (report["hooks"], len(calls)))
    check(sorted(Image(prog).slots()) == calls, "table != objdump's calls")


def case_gcc_table(b):
    objs = [b.obj("prog.c", "gcc-prog.o", extra=["-mrecord-mcount"]),
            b.obj("main.c", "gcc-main.o", extra=["-mrecord-mcount"]),
            b.obj("hooks.c", "gcc-hooks.o", hooks=False)]
    prog = b.link("gcc-table", objs)
    expect(b.tool, [prog] + objs, 0, [])


def case_unrecorded(b):
    prog, objs = b.program("unrec", record_strong=False)
    strong_funcs = functions(b.arch, objs[-1])
    funcs = functions(b.arch, prog)
    want = [("unrecorded", a, None) for a in unrecorded_at(
        b.arch, prog, [a for a in hook_calls(b.arch, prog)
                       if any(funcs[n][0] <= a < sum(funcs[n])
                              for n in strong_funcs)])]
    check(want, "objdump shows no hook in strong.c's functions")
    # The weak body is stale here too: it is not the object's fault.
    stale = [a for a in hook_calls(b.arch, prog)
             if not in_function(funcs, a)]
    img = Image(prog)
    want += [("stale", a, img.slots().index(a)) for a in stale]
    expect(b.tool, [prog], 1, want)
    # The object itself: its hook relocations (readelf), none recorded.
    out, _ = must([b.arch.tool("readelf"), "-rW", objs[-1]])
    # (MIPS: the R_MIPS_JALR beside each %call16 load is only ld's hint)
    n = sum(1 for line in out.splitlines()
            if re.search(r"\b(%s)\b" % "|".join(HOOK_NAMES), line) and
            "R_MIPS_JALR" not in line)
    rc, reports, _ = b.tool.check([objs[-1]])
    check(rc == 1, "unrecorded object: exit %d" % rc)
    got = [p["class"] for p in reports[0]["problems"]]
    check(got == ["unrecorded"] * n, "object: %s, readelf shows %d hook "
          "relocations" % (got, n))


def case_no_table(b):
    objs = [b.obj("prog.c", "none-prog.o"), b.obj("main.c", "none-main.o"),
            b.obj("hooks.c", "none-hooks.o", hooks=False)]
    prog = b.link("no-table", objs)
    calls = hook_calls(b.arch, prog)
    check(calls, "objdump shows no hook")
    expect(b.tool, [prog], 1, [("no-table", unrecorded_at(
        b.arch, prog, calls[:1])[0], None)])


def case_weak(b):
    prog, _ = b.program("weak")
    funcs = functions(b.arch, prog)
    stale = [a for a in hook_calls(b.arch, prog) if not in_function(funcs, a)]
    check(len(stale) == 1, "objdump+nm: %d hook calls outside functions"
          % len(stale))
    k = Image(prog).slots().index(stale[0])
    expect(b.tool, [prog], 1, [("stale", stale[0], k)])


def clean_image(b, name):
    prog, _ = b.program(name, with_strong=False)
    return prog, Image(prog)


def case_off_hook(b):
    prog, img = clean_image(b, "off")
    k = 1
    moved = img.get(k) + b.arch.off
    img.put(k, moved)
    bad = prog + "-bad"
    img.write(bad)
    expect(b.tool, [bad], 1, [("off-hook", moved, k)])


def case_duplicate(b):
    prog, img = clean_image(b, "dup")
    lost = img.get(2)
    img.put(2, img.get(1))
    bad = prog + "-bad"
    img.write(bad)
    expect(b.tool, [bad], 1, [("duplicate", img.get(1), 2),
                              ("unrecorded", unrecorded_at(
                                  b.arch, prog, [lost])[0], None)])


def case_corrupt(b):
    prog, img = clean_image(b, "corrupt")
    k = 1
    img.patch_code(img.get(k), b.arch.corrupt)
    bad = prog + "-bad"
    img.write(bad)
    expect(b.tool, [bad], 1, [("corrupt-site", img.get(k), k)])


def case_unsorted(b):
    prog, img = clean_image(b, "unsorted")
    slots = img.slots()
    if slots == sorted(slots):      # make it unsorted: swap two entries
        img.put(0, slots[1])
        img.put(1, slots[0])
        prog = prog + "-swapped"
        img.write(prog)
        slots = img.slots()
    k = next(i for i in range(1, len(slots)) if slots[i] < slots[i - 1])
    expect(b.tool, [prog], 0, [])
    expect(b.tool, [prog], 1, [("unsorted", slots[k], k)], "--sorted")


def case_lto(b):
    obj = b.obj("prog.c", "lto-prog.o", extra=["-flto"])
    expect(b.tool, [obj], 1, [("lto", None, None)])


def case_untouched(b):
    prog, objs = b.program("untouched", record_strong=False)
    files = [prog] + objs
    before = [snapshot(f) for f in files]
    b.tool.check(files)
    b.tool.check(files, "--sorted")
    check([snapshot(f) for f in files] == before, "a file changed")


def finalize_twice(tool, path):
    """--finalize, then again: the second run changes nothing at all."""
    must([tool.path, "--finalize", path])
    once = snapshot(path)
    must([tool.path, "--finalize", path])
    check(snapshot(path) == once, "second --finalize changed the file")


def case_finalize(b):
    """The weak image finalized: the stale entry (objdump + nm) is 0,
    the rest sorted and equal to the hook calls inside functions."""
    prog, _ = b.program("fin")
    funcs = functions(b.arch, prog)
    calls = hook_calls(b.arch, prog)
    live = [a for a in calls if in_function(funcs, a)]
    check(len(live) == len(calls) - 1, "expected one dead hook call")
    finalize_twice(b.tool, prog)
    slots = Image(prog).slots()
    check(slots == [0] + live, "slots %s, expected 0 then %s" %
          ([hex(x) for x in slots], [hex(x) for x in live]))
    r = expect(b.tool, [prog], 0, [], "--sorted")
    check(r["zeroed"] == 1, "check counts %d cleared" % r["zeroed"])


def case_finalize_module(b):
    """A module-like `ld -r` of the weak and the strong object: the dead
    body's entry becomes R_*_NONE (readelf), nothing else changes."""
    _, objs = b.program("mod")
    ko = os.path.join(b.dir, "mod.ko")
    must([b.arch.tool("ld"), "-r", "-o", ko] + objs)
    rc, reports, _ = b.tool.check([ko])
    check(rc == 1 and [p["class"] for p in reports[0]["problems"]] ==
          ["stale"], "before: %s" % reports[0]["problems"])
    finalize_twice(b.tool, ko)
    out, _ = must([b.arch.tool("readelf"), "-rW", ko])
    table = out.split("'.rel")[1:]
    table = [t for t in table if t.startswith(("a__mcount_loc'",
                                               "__mcount_loc'"))]
    check(len(table) == 1, "no relocation section for __mcount_loc")
    none = [line for line in table[0].splitlines() if "_NONE" in line]
    check(len(none) == 1, "%d R_*_NONE in the table's relocations"
          % len(none))
    expect(b.tool, [ko], 0, [])


def case_finalize_emit_relocs(b):
    """Linked with --emit-relocs (as x86's vmlinux is, for KASLR): after
    --finalize every static relocation of the table, as readelf shows
    it, still makes the value its slot holds (symbol + addend), and the
    cleared slot's is R_*_NONE.  RELA targets only: readelf shows no REL
    addend."""
    _, objs = b.program("er")
    hooks = b.obj("hooks.c", "er-hooks.o", hooks=False)
    prog = b.link("er", objs + [hooks], ["-Wl,--emit-relocs"])
    finalize_twice(b.tool, prog)
    slots = Image(prog).slots()
    out, _ = must([b.arch.tool("readelf"), "-rW", prog])
    part = out.split("'.rela__mcount_loc'")
    check(len(part) == 2, "no .rela__mcount_loc in the image")
    relocs = {}
    for line in part[1].split("\n\n")[0].splitlines()[2:]:
        f = line.split()
        off = int(f[0], 16)
        if f[2].endswith("_NONE"):
            relocs[off] = 0
        else:
            relocs[off] = int(f[3], 16) + int(f[-1], 16)
    img = Image(prog)
    want = {img.start + k * img.size: v for k, v in enumerate(slots)}
    check(relocs == want, "relocations say %s, slots hold %s" %
          ({hex(k): hex(v) for k, v in relocs.items()},
           {hex(k): hex(v) for k, v in want.items()}))
    check(slots[0] == 0 and slots[1:] == sorted(slots[1:]), "not sorted")


RUNNERS = {"x86_64": [], "aarch64": ["qemu-aarch64", "-L",
                                     "/usr/aarch64-linux-gnu"],
           "arm": ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"],
           "riscv64": ["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"],
           "s390x": ["qemu-s390x", "-L", "/usr/s390x-linux-gnu"]}


def boot_counts(b, prog):
    out, _ = must(RUNNERS[b.arch.name] + [prog])
    m = re.search(r"sites (\d+) patched (\d+) nops (\d+) refused (\d+)",
                  out)
    check(m, "no counts in %r" % out)
    return tuple(int(x) for x in m.groups())


def libmcount(arch):
    """The runtime library this run built for ARCH: the Makefile says
    where (LIBMCOUNT_DIR, build/asan under SANITIZE=1); the host's is
    at the top, cross ones in a folder per architecture."""
    top = os.environ.get("LIBMCOUNT_DIR", os.path.join(TOP, "build"))
    lib = os.path.join(top, "libmcount.a") if arch == "x86_64" \
        else os.path.join(top, arch, "libmcount.a")
    if not os.path.exists(lib):
        raise Failure("%s not built" % lib)
    return lib


def case_finalize_pie(b):
    """A PIE (R_*_RELATIVE: RELA on x86_64 and aarch64, REL on arm) with
    the weak override and the runtime, run: after --finalize the runtime
    patches exactly the hook calls objdump shows inside functions, and
    refuses nothing; --check --sorted is clean."""
    lib = libmcount(b.arch.name)
    objs = [b.obj("prog.c", "pie-prog.o", extra=["-fPIE"]),
            b.obj("strong.c", "pie-strong.o", extra=["-fPIE"])]
    b.record(*objs)
    rt = os.path.join(b.dir, "pie-rtmain.o")
    must([b.arch.cc, "-O2", "-fPIE", "-I", os.path.join(TOP, "runtime",
                                                        "include"),
          "-c", "-o", rt, os.path.join(HERE, "rtmain.c")])
    prog = os.path.join(b.dir, "pie")
    must([b.arch.cc, "-pie", "-o", prog] + objs + [rt, lib,
                                                   "-Wl,-T," + MCOUNT_LDS])
    funcs = functions(b.arch, prog)
    calls = hook_calls(b.arch, prog)
    live = [a for a in calls if in_function(funcs, a)]
    check(len(live) == len(calls) - 1, "expected one dead hook call")
    finalize_twice(b.tool, prog)
    r = expect(b.tool, [prog], 0, [], "--sorted")
    check(r["zeroed"] == 1, "check counts %d cleared" % r["zeroed"])
    sites, patched, nops, refused = boot_counts(b, prog)
    check((sites, patched, refused) == (len(live), len(live), 0),
          "runtime: %d sites, %d patched, %d refused; objdump: %d live "
          "hooks" % (sites, patched, refused, len(live)))


def dynamic_relocs(arch, path):
    """readelf -rW: [(offset, type, symbol, addend)] of .rela.dyn/.rel.dyn
    (addend None for REL)."""
    out, _ = must([arch.tool("readelf"), "-rW", path])
    relocs = []
    for part in out.split("Relocation section '")[1:]:
        name = part.split("'")[0]
        if name not in (".rela.dyn", ".rel.dyn"):
            continue
        for line in part.splitlines()[2:]:
            f = line.split()
            if len(f) < 3 or not re.match(r"^[0-9a-f]+$", f[0]):
                continue
            addend = None
            if name == ".rela.dyn":
                addend = int(f[-1], 16) if len(f) in (4, 7) else None
            sym = f[4] if len(f) >= 6 else None
            relocs.append((int(f[0], 16), f[2], sym, addend))
    return relocs


def got_hook_slots(arch, path):
    """GOT slots the loader fills with a hook's address (readelf)."""
    return {off for off, typ, sym, _ in dynamic_relocs(arch, path)
            if sym and sym.split("@")[0] in HOOK_NAMES and
            typ.endswith(("GLOB_DAT", "JUMP_SLOT"))}


def shared_hook_calls(arch, path):
    """hook_calls, and in a shared object x86_64's `call *GOT(%rip)`
    whose slot (objdump's comment) is one of got_hook_slots."""
    calls = set(hook_calls(arch, path))
    got = got_hook_slots(arch, path)
    out, _ = must([arch.tool("objdump"), "-d", "--no-show-raw-insn", path])
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+call\s+\*0x[0-9a-f]+\(%rip\)"
                     r"\s+#\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16) in got:
            calls.add(int(m.group(1), 16))
    return sorted(calls)


def case_shared(b):
    """A shared object (-fPIC, -shared) of recorded objects, prog.c's weak
    function overridden by strong.c, solib.c's cold function making the
    table unsorted, the runtime linked in.  --check: exactly one `stale`
    at the hook call outside every nm function, plus `unsorted` at the
    first descent with --sorted.  --finalize: the table's R_*_RELATIVE
    relocations (readelf; the only relocations of its slots) carry 0 for
    the cleared slot, then the live hook calls in address order; clean
    with --sorted, idempotent.  A program linked against it runs (under
    qemu-user off x86_64) and the library's runtime patches exactly the
    live hooks, before and after."""
    lib = libmcount(b.arch.name)
    objs = [b.obj(src, "so-%s.o" % src[:-2], extra=["-fPIC"])
            for src in ("prog.c", "strong.c", "solib.c")]
    b.record(*objs)
    so = os.path.join(b.dir, "libso.so")
    # The runtime patches direct calls to its hook and x86's calls
    # through the GOT, not calls through a PLT stub: off x86_64 the
    # library binds its calls to its own runtime's hook.
    must([b.arch.cc, "-shared", "-o", so] + objs +
         [lib, "-Wl,-T," + MCOUNT_LDS] +
         ([] if b.arch.name == "x86_64" else ["-Wl,-Bsymbolic-functions"]))
    funcs = functions(b.arch, so)
    calls = shared_hook_calls(b.arch, so)
    # twice thrice sum strong_or_weak other lib_entry lib_rare (the
    # runtime is not traced), and the dead weak body
    live = [a for a in calls if in_function(funcs, a)]
    dead = [a for a in calls if not in_function(funcs, a)]
    check(len(dead) == 1 and len(live) == 7,
          "objdump+nm: live hooks %s, dead %s" % (
              [hex(a) for a in live], [hex(a) for a in dead]))
    img = Image(so)
    rel = {off: (typ, addend) for off, typ, _, addend in
           dynamic_relocs(b.arch, so)
           if img.start <= off < img.stop}
    n = (img.stop - img.start) // img.size
    check(sorted(rel) == [img.start + k * img.size for k in range(n)] and
          all(t.endswith("_RELATIVE") for t, _ in rel.values()),
          "table slots' relocations: %s" % rel)
    # RELA: the addend is the value; REL (arm): the slot holds it
    before = [a if b.arch.rela else img.get(k) for k, (_, a) in
              enumerate(rel[img.start + k * img.size] for k in range(n))]
    check(sorted(before) == sorted(live + dead), "RELATIVE addends %s, "
          "objdump's hooks %s" % ([hex(x) for x in before],
                                  [hex(x) for x in live + dead]))
    check(before != sorted(before), "the linked table is sorted already")
    k = next(i for i in range(1, n) if before[i] < before[i - 1])
    stale = ("stale", dead[0], before.index(dead[0]))
    expect(b.tool, [so], 1, [stale])
    expect(b.tool, [so], 1, [stale, ("unsorted", before[k], k)], "--sorted")
    prog = os.path.join(b.dir, "somain")
    must([b.arch.cc, "-O2", "-I", os.path.join(TOP, "runtime", "include"),
          "-o", prog, os.path.join(HERE, "somain.c"), so,
          "-Wl,-rpath,$ORIGIN"])

    def run_it(want_sites, want_refused=0):
        out, err = must(RUNNERS[b.arch.name] + [prog])
        m = re.search(r"sites (\d+) patched (\d+) nops \d+ refused (\d+)"
                      r"\s+lib_entry (-?\d+)", out)
        check(m, "no counts in %r" % out)
        got = tuple(int(x) for x in m.groups())
        want = (want_sites, want_sites - want_refused, want_refused, 74)
        check(got == want,
              "sites, patched, refused, lib_entry(3): %s, expected %s"
              % (got, want))
        return err
    # Before: the dead body's entry too is patched (its bytes are
    # there), except on riscv64, where the runtime reads a -pg hook's
    # prologue from its function's symbol to find the caller, and the
    # dead body has none: refused, and reported at its address.
    if b.arch.name == "riscv64":
        err = run_it(len(live) + len(dead), 1)
        check(re.search(r"refused site 0x[0-9a-f]+: .*no symbol for its "
                        r"function", err) is not None,
              "the dead body's refusal is not reported: %r" % err)
    else:
        run_it(len(live) + len(dead))
    finalize_twice(b.tool, so)
    rel = {off: (typ, addend) for off, typ, _, addend in
           dynamic_relocs(b.arch, so)
           if img.start <= off < img.stop}
    slots = Image(so).slots()
    after = [rel.get(img.start + k * img.size, (None, None))
             for k in range(n)]
    if not b.arch.rela:
        after = [(t, v) for (t, _), v in zip(after, slots)]
    check(all(t and t.endswith("_RELATIVE") for t, _ in after) and
          [a for _, a in after] == [0] + live,
          "after: relocations %s, expected RELATIVE 0 then %s" %
          (after, [hex(a) for a in live]))
    # RELA: the slot bytes (unused by the loader) hold the value or 0
    check(all(v in (0, a) for v, (_, a) in zip(slots, after)),
          "slot bytes %s disagree with the addends" % slots)
    r = expect(b.tool, [so], 0, [], "--sorted")
    check(r["zeroed"] == 1, "check counts %d cleared" % r["zeroed"])
    # The loader turns the cleared slot's RELATIVE 0 into the library's
    # load address, its ELF header: the runtime skips it as cleared.
    run_it(len(live))


ARCH_CASES = [("clean", case_clean), ("gcc-table", case_gcc_table),
              ("unrecorded", case_unrecorded), ("no-table", case_no_table),
              ("weak", case_weak), ("off-hook", case_off_hook),
              ("duplicate", case_duplicate), ("corrupt", case_corrupt),
              ("unsorted", case_unsorted), ("lto", case_lto),
              ("untouched", case_untouched), ("finalize", case_finalize),
              ("finalize-module", case_finalize_module),
              ("finalize-pie", case_finalize_pie),
              ("finalize-emit-relocs", case_finalize_emit_relocs),
              ("shared", case_shared)]


# -- x86_64 only --------------------------------------------------------

def case_demo(tool, scratch):
    out = os.path.join(scratch, "demo")
    # The runtime this run built (build/asan under SANITIZE=1), not the
    # script's default build/libmcount.a, which such a run never makes.
    env = dict(os.environ, OUT=out, LIBMCOUNT=libmcount("x86_64"))
    must(["sh", "examples/demo/run.sh", tool.path], cwd=TOP, env=env)
    prog = os.path.join(out, "demo")
    report = expect(tool, [prog, os.path.join(out, "main.o"),
                           os.path.join(out, "work.o")], 0, [])
    check(report["hooks"] == report["entries"] == 5,
          "demo: %d hooks, %d entries" % (report["hooks"], report["entries"]))


def case_demo_unrecorded(tool, scratch):
    """The demo linked with work.o never recorded (a PIE, run)."""
    out = os.path.join(scratch, "demo-unrec")
    os.makedirs(out, exist_ok=True)
    flags = ["-std=c11", "-O2", "-Iruntime/include", "-pg", "-mfentry"]
    objs = []
    for f in ("main", "work"):
        o = os.path.join(out, f + ".o")
        must(["gcc"] + flags + ["-c", "examples/demo/%s.c" % f, "-o", o],
             cwd=TOP)
        objs.append(o)
    must([tool.path, objs[0]])
    prog = os.path.join(out, "demo")
    must(["gcc", "-o", prog] + objs + [libmcount("x86_64"),
                                       "-Wl,-T,lds/mcount.lds"], cwd=TOP)
    x86 = ARCHES[0]
    work = functions(x86, objs[1])
    funcs = functions(x86, prog)
    want = [("unrecorded", a, None) for a in hook_calls(x86, prog)
            if any(funcs[n][0] <= a < sum(funcs[n]) for n in work)]
    check(want, "objdump shows no hook in work.o's functions")
    expect(tool, [prog], 1, want)


def case_lto_link(tool, scratch):
    """A -flto link: GCC recompiles the code, our table is never made."""
    d = os.path.join(scratch, "lto-link")
    os.makedirs(d, exist_ok=True)
    x86 = ARCHES[0]
    objs = []
    for src, lto in (("prog.c", True), ("main.c", True), ("hooks.c", False)):
        o = os.path.join(d, src[:-2] + ".o")
        must(["gcc", "-O2", "-c", "-o", o] +
             (x86.hooks + ["-flto"] if lto else []) +
             [os.path.join(HERE, src)])
        objs.append(o)
    prog = os.path.join(d, "prog")
    must(["gcc", "-O2", "-flto", "-nostdlib", "-static", "-o", prog] +
         x86.hooks + objs
         + ["-Wl,-T," + MCOUNT_LDS])
    calls = hook_calls(x86, prog)
    check(calls, "objdump shows no hook after the LTO link")
    expect(tool, [prog], 1, [("no-table", calls[0], None)])


def case_clang_bitcode(tool, scratch):
    if not shutil.which("clang"):
        raise Failure("clang not installed")
    o = os.path.join(scratch, "bitcode.o")
    must(["clang", "-O2", "-flto", "-pg", "-mfentry", "-c", "-o", o,
          os.path.join(HERE, "prog.c")])
    expect(tool, [o], 1, [("lto", None, None)])


def case_runtime_program(tool, scratch):
    """tests/runtime's rt_test: a table with a hand-written non-hook
    entry (bad_site) and one hook listed twice (dup_site)."""
    d = os.path.join(scratch, "rt")
    os.makedirs(d, exist_ok=True)
    t = "tests/runtime"
    fx = os.path.join(d, "fixture.o")
    must(["gcc", "-std=c11", "-O2", "-Iruntime/include", "-pg", "-mfentry",
          "-c", t + "/fixture.c", "-o", fx], cwd=TOP)
    must([tool.path, fx])
    bad = os.path.join(d, "bad.o")
    must(["gcc", "-c", t + "/bad-x86_64.S", "-o", bad], cwd=TOP)
    rt = os.path.join(d, "rt_test.o")
    must(["gcc", "-std=c11", "-O2", "-Iruntime/include", "-c",
          t + "/rt_test.c", "-o", rt], cwd=TOP)
    prog = os.path.join(d, "rt_test")
    must(["gcc", "-o", prog, rt, fx, bad, libmcount("x86_64"),
          "-Wl,-T,lds/mcount.lds", "-Wl,--gc-sections"], cwd=TOP)
    funcs = functions(ARCHES[0], prog)
    slots = Image(prog).slots()
    bad_site = funcs["bad_site"][0]
    dup = funcs["dup_site"][0]
    expect(tool, [prog], 1, [("corrupt-site", bad_site,
                              slots.index(bad_site)),
                             ("duplicate", dup, len(slots) - 1)])


# A function whose last byte is 0x90, right before a traced function:
# byte by byte, "90 e8 <rel32>" reads as ld's relaxed "nop; call", whose
# call is the next function's hook (as in 6.12's i386 kernel: cr() ends
# in "jmp notify_write", eb 90, before save_screen's call __fentry__).
TAIL_BYTE_S = """
\t.text
\t.globl _start
\t.type _start, @function
_start:\tcall tail
\tcall traced
\tjmp _start
\t.size _start, .-_start
\t.globl tail
\t.type tail, @function
tail:\tret
\tnop
\t.size tail, .-tail
\t.globl traced
\t.type traced, @function
traced:\tcall __fentry__
\tret
\t.size traced, .-traced
\t.globl __fentry__
\t.type __fentry__, @function
__fentry__:\tret
\t.size __fentry__, .-__fentry__
"""


def case_tail_byte(tool, scratch, cc, name):
    """The call a byte scan reads past a function's end is not its hook:
    the image is clean, one hook (objdump's), no `unrecorded`."""
    d = os.path.join(scratch, "tail-byte-" + name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "tail.S")
    with open(src, "w") as f:
        f.write(TAIL_BYTE_S)
    obj = os.path.join(d, "tail.o")
    must([cc, "-c", src, "-o", obj])
    must([tool.path, obj])
    prog = os.path.join(d, "tail")
    must([cc, "-nostdlib", "-static", "-o", prog, obj,
          "-Wl,-T," + MCOUNT_LDS])
    arch = ARCHES[0] if name == "x86_64" else \
        Arch("i386", "i686-linux-gnu", "-pg -mfentry", b"", 1, False, "call")
    funcs = functions(arch, prog)
    tail = funcs["tail"]
    check(tail[1] == 2 and read_byte(prog, tail[0] + 1) == 0x90,
          "tail() is not \"ret; nop\": %r" % (tail,))
    report = expect(tool, [prog], 0, [])
    calls = hook_calls(arch, prog)
    check(calls == [funcs["traced"][0]] and report["hooks"] == 1,
          "%d hooks, objdump's calls %s" % (report["hooks"],
                                            [hex(a) for a in calls]))


# sparc's arch/sparc/lib/mcount.S, as 6.1 and 6.12 have it: `mcount`
# is a second name of `_mcount`, at its address.  clang's `call mcount`
# is a hook sparc64 cannot patch, but GCC's calls here are to `_mcount`,
# whichever name the linked image gives the address.
HOOK_ALIAS_C = """
void _mcount(void) {}
void mcount(void) __attribute__((alias("_mcount")));
int main(void);
void _start(void) { main(); for (;;) ; }
"""


def case_hook_alias(tool, scratch):
    """GCC's -pg calls to `_mcount`, recorded, linked where `mcount` is
    another name of the same function (as in sparc64 kernels): clean,
    every call objdump shows a hook and a table entry, no
    `unsupported-hook`."""
    d = os.path.join(scratch, "hook-alias-sparc64")
    os.makedirs(d, exist_ok=True)
    arch = Arch("sparc64", SPARC64, "-pg", b"", 4, False, "call")
    b = Build(arch, tool, scratch)
    b.dir = d
    objs = [b.obj("prog.c", "prog.o"), b.obj("main.c", "main.o")]
    b.record(*objs)
    src = os.path.join(d, "alias.c")
    with open(src, "w") as f:
        f.write(HOOK_ALIAS_C)
    hooks = os.path.join(d, "alias.o")
    must([arch.cc, "-O2", "-c", "-o", hooks, src])
    prog = b.link("prog", objs + [hooks])
    funcs = functions(arch, prog)
    check(funcs["mcount"][0] == funcs["_mcount"][0],
          "mcount is not at _mcount: %r" % ((funcs["mcount"],
                                              funcs["_mcount"]),))
    report = expect(tool, [prog], 0, [])
    calls = hook_calls(arch, prog)
    check(len(calls) > 0 and report["hooks"] == len(calls),
          "%d hooks, objdump shows %d" % (report["hooks"], len(calls)))
    check(sorted(Image(prog).slots()) == calls, "table != objdump's calls")


def read_byte(path, addr):
    """The byte at address addr of a linked image (elfmini's sections)."""
    with open(path, "rb") as f:
        data = f.read()
    sec = elfmini.Elf(data).section_at(addr)
    return data[sec.offset + addr - sec.addr]


def case_usage(tool, scratch):
    for args in (["--check", "--dump", "x"], ["--sorted", "x"],
                 ["--check", "--format=yaml", "x"], ["--check"]):
        rc, _, err = run([tool.path] + args)
        check(rc == 2, "%s: exit %d" % (" ".join(args), rc))
    rc, out, err = run([tool.path, "--check",
                        os.path.join(scratch, "missing.o")])
    check(rc == 1 and err.startswith("recordmcount: ") and
          "missing.o" in err, "missing file: exit %d, %r" % (rc, err))
    rc, out, _ = run([tool.path, "--check", "--format=json",
                      os.path.join(scratch, "missing.o")])
    r = json.loads(out)
    check(rc == 1 and r["result"] == "error" and r["error"],
          "missing file JSON: %r" % r)


def case_elfv1_refused(tool, scratch):
    """ppc64 ELFv1: no symbol says where code is; both modes refuse the
    file (one line, exit 1) and --finalize leaves it as it was."""
    cc = "powerpc64-linux-gnu-gcc"
    if not shutil.which(cc):
        raise Failure("%s not installed" % cc)
    o = os.path.join(scratch, "elfv1.o")
    must([cc, "-O2", "-pg", "-c", "-o", o, os.path.join(HERE, "prog.c")])
    must([tool.path, o])
    before = snapshot(o)
    for mode in ("--check", "--finalize"):
        rc, out, err = run([tool.path, mode, o])
        check(rc == 1 and len(err.splitlines()) == 1 and
              "ELFv1" in err, "%s: exit %d, %r" % (mode, rc, err))
    check(snapshot(o) == before, "the object changed")


def case_prepatch(tool, scratch):
    """--finalize --prepatch of a PIE linked with libmcount.a: at every
    hook call objdump showed inside a function, objdump now shows `test
    $imm32,%eax` whose imm32 is mc_rt_tramp_fentry's distance (nm) from
    its end; a second run changes nothing; --check --sorted is clean; at
    boot the runtime takes every site in that form (nops) and writes
    none (patched 0), refusing nothing.  Linked with --emit-relocs (a
    relocation inside each call) or without the runtime: exit 1, the
    file untouched."""
    d = os.path.join(scratch, "prepatch")
    os.makedirs(d, exist_ok=True)
    x86 = ARCHES[0]
    objs = []
    for src in ("prog.c", "strong.c"):
        o = os.path.join(d, src[:-2] + ".o")
        must(["gcc", "-O2", "-fPIE", "-c", "-o", o] + x86.hooks +
             [os.path.join(HERE, src)])
        objs.append(o)
    must([tool.path] + objs)
    rt = os.path.join(d, "rtmain.o")
    must(["gcc", "-O2", "-fPIE", "-I", os.path.join(TOP, "runtime",
                                                    "include"),
          "-c", "-o", rt, os.path.join(HERE, "rtmain.c")])
    lib = libmcount("x86_64")
    stub = os.path.join(d, "stub.c")    # a __fentry__ of the program's own
    with open(stub, "w") as f:
        f.write("void __fentry__(void) {}\nint main(void) { return 0; }\n")
    links = {}
    for name, extra in (("pie", [rt, lib]),
                        ("er", [rt, lib, "-Wl,--emit-relocs"]),
                        ("nort", [stub])):
        links[name] = os.path.join(d, name)
        must(["gcc", "-pie", "-o", links[name]] + objs + extra +
             ["-Wl,-T," + MCOUNT_LDS])
    prog = links["pie"]
    funcs = functions(x86, prog)
    live = [a for a in hook_calls(x86, prog) if in_function(funcs, a)]
    check(live, "objdump shows no live hook call")
    tramp = funcs["mc_rt_tramp_fentry"][0]
    must([tool.path, "--finalize", "--prepatch", prog])
    once = snapshot(prog)
    must([tool.path, "--finalize", "--prepatch", prog])
    check(snapshot(prog) == once, "second --prepatch changed the file")
    out, _ = must(["objdump", "-d", prog])
    insn = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 3 and re.match(r"^\s*[0-9a-f]+:$", f[0]):
            insn[int(f[0].strip()[:-1], 16)] = (len(f[1].split()), f[2])
    for a in live:
        n, text = insn.get(a, (0, "(none)"))
        m = re.match(r"^(?:addr32 )?test +\$0x([0-9a-f]+),%eax", text)
        check(m and int(m.group(1), 16) == (tramp - (a + n)) % 2**32,
              "at %#x: %r, not test $(mc_rt_tramp_fentry - %#x),%%eax" %
              (a, text, a + n))
    expect(tool, [prog], 0, [], "--sorted")
    out, _ = must([prog])
    want = "sites %d patched 0 nops %d refused 0" % (len(live), len(live))
    check(want in out, "runtime: %r, want %r" % (out.strip(), want))
    for name, why in (("er", "static relocation (--emit-relocs)"),
                      ("nort", "not linked with libmcount.a")):
        before = snapshot(links[name])
        r = run([tool.path, "--finalize", "--prepatch", links[name]])
        check(r[0] == 1 and why in r[2],
              "%s: exit %d, %r" % (name, r[0], r[2]))
        check(snapshot(links[name]) == before, "%s was changed" % name)


X86_CASES = [("demo", case_demo), ("demo-unrecorded", case_demo_unrecorded),
             ("lto-link", case_lto_link), ("clang-bitcode",
                                           case_clang_bitcode),
             ("runtime-program", case_runtime_program),
             ("prepatch", case_prepatch), ("usage", case_usage)]


# -- calls through the PLT ----------------------------------------------

class Plt:
    """One toolchain's PIE or shared object whose hook calls go through a
    PLT entry (ppc64: a linker's call stub): the hook is left undefined
    (-shared) or comes from a library of its own (-pie)."""

    def __init__(self, name, triplet, cc, flags, link, pie=False,
                 lead_re=None, pic=None, oracle=None):
        # lld inserts the script's section only after one it has made:
        # there, the --per-section pieces, which any linker gathers.
        self.lld = "-fuse-ld=lld" in link
        self.record = ["--per-section"] if self.lld else []
        link = link + ([] if self.lld else ["-Wl,-T," + MCOUNT_LDS])
        self.name = name
        self.triplet = triplet
        self.cc = cc                # compiles (gcc, or clang --target)
        self.flags = flags.split()
        self.link = link            # links: [driver, flags...]
        self.pie = pie
        self.lead = re.compile(r"^\s*[0-9a-f]+:\s+(?:%s)" % lead_re) \
            if lead_re else None
        self.pic = pic or ("-fPIE" if pie else "-fPIC")
        # {site: hook} of a link: plt_hook_sites unless told
        self.oracle = oracle

    def tool(self, t):
        return "%s-%s" % (self.triplet, t)


def clang(triplet, extra=""):
    return "clang --target=%s %s" % (triplet, extra)


X86 = "x86_64-linux-gnu"
NOSTD = ["-nostdlib"]
PLT_CASES = [
    Plt("x86_64-clang-fentry-bfd", X86, clang(X86), "-pg -mfentry",
        ["gcc", "-shared"] + NOSTD),
    Plt("x86_64-clang-fentry-lld", X86, clang(X86), "-pg -mfentry",
        ["gcc", "-shared", "-fuse-ld=lld"] + NOSTD),
    Plt("x86_64-clang-mcount-pie-lld", X86, clang(X86), "-pg",
        ["gcc", "-pie", "-fuse-ld=lld", "-Wl,-e,main"] + NOSTD, pie=True),
    Plt("x86_64-clang-fentry-pie-bfd", X86, clang(X86), "-pg -mfentry",
        ["gcc", "-pie", "-Wl,-e,main"] + NOSTD, pie=True),
    Plt("i686-clang-bfd", "i686-linux-gnu", clang("i686-linux-gnu"), "-pg",
        ["i686-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("aarch64-gcc-bfd", "aarch64-linux-gnu", "aarch64-linux-gnu-gcc",
        "-pg", ["aarch64-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("aarch64-clang-lld", "aarch64-linux-gnu",
        clang("aarch64-linux-gnu"), "-pg",
        clang("aarch64-linux-gnu", "-shared -fuse-ld=lld").split() + NOSTD),
    Plt("arm-gcc-bfd", "arm-linux-gnueabihf", "arm-linux-gnueabihf-gcc",
        "-pg", ["arm-linux-gnueabihf-gcc", "-shared"] + NOSTD),
    # lld: objdump labels no entry; the oracle decodes .plt itself
    Plt("arm-clang-lld", "arm-linux-gnueabihf",
        clang("arm-linux-gnueabihf", "-meabi gnu"), "-pg",
        clang("arm-linux-gnueabihf", "-shared -fuse-ld=lld").split() +
        NOSTD, oracle=lambda p, path: arm_raw_plt_sites(p, path)),
    Plt("riscv64-gcc-bfd", "riscv64-linux-gnu", "riscv64-linux-gnu-gcc",
        "-pg", ["riscv64-linux-gnu-gcc", "-shared"] + NOSTD,
        lead_re=r"auipc\s+ra,"),
    Plt("riscv64-clang-lld", "riscv64-linux-gnu",
        clang("riscv64-linux-gnu"), "-pg",
        clang("riscv64-linux-gnu", "-shared -fuse-ld=lld").split() + NOSTD,
        lead_re=r"auipc\s+ra,"),
    Plt("s390x-gcc-bfd", "s390x-linux-gnu", "s390x-linux-gnu-gcc", "-pg",
        ["s390x-linux-gnu-gcc", "-shared"] + NOSTD,
        lead_re=r"stg\s+%r14,8\(%r15\)"),
    Plt("s390x-gcc-fentry-bfd", "s390x-linux-gnu", "s390x-linux-gnu-gcc",
        "-pg -mfentry", ["s390x-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("ppc64le-gcc-bfd", "powerpc64le-linux-gnu",
        "powerpc64le-linux-gnu-gcc", "-pg",
        ["powerpc64le-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("ppc64le-clang-lld", "powerpc64le-linux-gnu",
        clang("powerpc64le-linux-gnu"), "-pg",
        clang("powerpc64le-linux-gnu", "-shared -fuse-ld=lld").split() +
        NOSTD),
    # PC-relative code: ld's notoc stubs, with bcl and with pld
    Plt("ppc64le-gcc-power10-bfd", "powerpc64le-linux-gnu",
        "powerpc64le-linux-gnu-gcc", "-pg -mcpu=power10",
        ["powerpc64le-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("ppc64le-gcc-power10-stubs-bfd", "powerpc64le-linux-gnu",
        "powerpc64le-linux-gnu-gcc", "-pg -mcpu=power10",
        ["powerpc64le-linux-gnu-gcc", "-shared",
         "-Wl,--power10-stubs"] + NOSTD),
    Plt("ppc64le-clang-power10-lld", "powerpc64le-linux-gnu",
        clang("powerpc64le-linux-gnu"), "-pg -mcpu=power10",
        clang("powerpc64le-linux-gnu", "-shared -fuse-ld=lld").split() +
        NOSTD),
    # sh: PIC calls mcount through its GOT slot, a program through the
    # PLT (the pool word holds mcount@plt), non-PIC code in a shared
    # object through its pool word, which the loader sets (R_SH_DIR32)
    Plt("sh4-gcc-got-bfd", "sh4-linux-gnu", "sh4-linux-gnu-gcc", "-pg",
        ["sh4-linux-gnu-gcc", "-shared"] + NOSTD,
        oracle=lambda p, path: sh_got_hook_sites(p, path)),
    Plt("sh4-gcc-nopie-bfd", "sh4-linux-gnu", "sh4-linux-gnu-gcc", "-pg",
        ["sh4-linux-gnu-gcc", "-no-pie", "-Wl,-e,main"] + NOSTD, pie=True,
        pic="-fno-pic", oracle=lambda p, path: sh_pool_hook_sites(p, path)),
    Plt("sh4-gcc-textrel-bfd", "sh4-linux-gnu", "sh4-linux-gnu-gcc", "-pg",
        ["sh4-linux-gnu-gcc", "-shared"] + NOSTD, pic="-fno-pic",
        oracle=lambda p, path: dynamic_hook_sites(p, path, "R_SH_DIR32")),
    # ld links -pg code with ppc32's BSS PLT, which the loader writes
    Plt("ppc-gcc-bfd", "powerpc-linux-gnu", "powerpc-linux-gnu-gcc", "-pg",
        ["powerpc-linux-gnu-gcc", "-shared"] + NOSTD),
    Plt("sparc64-gcc-bfd", "sparc64-linux-gnu", "sparc64-linux-gnu-gcc",
        "-pg", ["sparc64-linux-gnu-gcc", "-shared"] + NOSTD),
]

# objdump's label for a PLT entry or call stub that leads to a hook:
# hook@plt (GNU ld, lld), 0000001a.plt_call.hook (GNU ld ppc64),
# __plt_hook and __plt_pcrel_hook (lld ppc64)
PLT_LABEL = re.compile(r"^(?:(%s)@plt|[0-9a-f]+\.plt_call\.(%s)|"
                       r"__plt_(?:pcrel_)?(%s))$"
                       % (("|".join(HOOK_NAMES),) * 3))
CALL_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(?:call|bl|blx|jal|jalr|"
                       r"brasl)\s+.*<([^>+]+)>\s*$")


def plt_hook_sites(p, path):
    """{site: hook} of every call objdump -d shows to a hook's PLT entry
    (or stub) inside an nm function: the site is the lead instruction
    before the call where the toolchain has one."""
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    lines = out.splitlines()
    sites = {}
    for i, line in enumerate(lines):
        m = CALL_LINE.match(line)
        lm = m and PLT_LABEL.match(m.group(2))
        if not lm:
            continue
        site = int(m.group(1), 16)
        if p.lead and i and p.lead.match(lines[i - 1]):
            site = int(lines[i - 1].split(":")[0], 16)
        if in_function(funcs, site):
            sites[site] = next(g for g in lm.groups() if g)
    return sites


def dynamic_hook_sites(p, path, rtype, in_code=True):
    """readelf -rW: {offset: hook} of the dynamic relocations of type
    `rtype` that name a hook (inside nm's functions if in_code)."""
    out, _ = must([p.tool("readelf"), "-rW", path])
    funcs = functions(p, path) if in_code else None
    sites = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[2] == rtype and f[4] in HOOK_NAMES and \
                (not in_code or in_function(funcs, int(f[0], 16))):
            sites[int(f[0], 16)] = f[4]
    return sites


SH_INSN = r"^\s*[0-9a-f]+:\s+"
SH_GOTPC = re.compile(SH_INSN + r"mov\.l\s+([0-9a-f]+) <[^>]*>,r1\s+! "
                      r"([0-9a-f]+)")
SH_MOVA = re.compile(SH_INSN + r"mova\s+([0-9a-f]+) <[^>]*>,r0")
SH_ADD = re.compile(SH_INSN + r"add\s+r1,r0")
SH_LOAD = re.compile(SH_INSN + r"mov\.l\s+@\(r0,r1\),r1")


def sh_got_hook_sites(p, path):
    """{site: hook} of sh PIC's GOT calls objdump -d shows in functions:
    `mov.l G,r1 (! gotpc); mova G,r0; add r1,r0` is the GOT, the next
    `mov.l W,r1 (! off); mov.l @(r0,r1),r1` loads the slot G + gotpc +
    off; where readelf -r shows a hook's R_SH_GLOB_DAT at it, the site
    is W (the word GCC's R_SH_GOT32 was on)."""
    slots = dynamic_hook_sites(p, path, "R_SH_GLOB_DAT", in_code=False)
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    lines = out.splitlines()
    sites = {}
    for i in range(len(lines) - 4):
        got, mova = SH_GOTPC.match(lines[i]), SH_MOVA.match(lines[i + 1])
        off = SH_GOTPC.match(lines[i + 3])
        if not (got and mova and off and SH_ADD.match(lines[i + 2]) and
                SH_LOAD.match(lines[i + 4]) and
                got.group(1) == mova.group(1)):
            continue
        slot = (int(got.group(1), 16) + int(got.group(2), 16) +
                int(off.group(2), 16)) & 0xffffffff
        site = int(off.group(1), 16)
        if slot in slots and in_function(funcs, site):
            sites[site] = slots[slot]
    return sites


SH_POOL = re.compile(SH_INSN + r"mov\.l\s+([0-9a-f]+) <[^>]*>,r1\s+! "
                     r"[0-9a-f]+ <([^>+]+)>")


def sh_pool_hook_sites(p, path):
    """{site: hook} of sh's non-PIC hook calls in a program: the pool
    word a `mov.l W,r1` reads holds the hook's PLT entry (objdump names
    it hook@plt); the site is W."""
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    sites = {}
    for line in out.splitlines():
        m = SH_POOL.match(line)
        lm = m and PLT_LABEL.match(m.group(2))
        if lm and in_function(funcs, int(m.group(1), 16)):
            sites[int(m.group(1), 16)] = next(g for g in lm.groups() if g)
    return sites


ARM_PLT_ADD = re.compile(r"^\s*([0-9a-f]+):\s+add\s+ip, (pc|ip), "
                         r"#(\d+)(?:, (\d+))?")
ARM_PLT_LDR = re.compile(r"^\s*[0-9a-f]+:\s+ldr\s+pc, \[ip, #(\d+)\]!")
ARM_BL = re.compile(r"^\s*([0-9a-f]+):\s+(?:bl|blx)\s+([0-9a-f]+)\b")


def ror32(v, r):
    return ((v >> r) | (v << (32 - r))) & 0xffffffff if r else v


def arm_raw_plt_sites(p, path):
    """{site: hook} for an arm link whose objdump names no PLT entry
    (lld): the entries objdump -d -j .plt shows loading pc from a slot
    readelf -r shows a hook's R_ARM_JUMP_SLOT at (ip = the entry + 8 +
    each `add ip` immediate, rotated as objdump prints it, then the
    ldr's offset), and every bl objdump -d shows to one, in a function."""
    slots = dynamic_hook_sites(p, path, "R_ARM_JUMP_SLOT", in_code=False)
    out, _ = must([p.tool("objdump"), "-d", "-j", ".plt",
                   "--no-show-raw-insn", path])
    entries, start, ip = {}, None, 0
    for line in out.splitlines():
        add, ldr = ARM_PLT_ADD.match(line), ARM_PLT_LDR.match(line)
        if add and (add.group(2) == "pc" or start is not None):
            if add.group(2) == "pc":
                start = int(add.group(1), 16)
                ip = start + 8
            ip += ror32(int(add.group(3)), int(add.group(4) or 0))
        elif ldr and start is not None:
            slot = (ip + int(ldr.group(1))) & 0xffffffff
            if slot in slots:
                entries[start] = slots[slot]
            start = None
        else:
            start = None
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    sites = {}
    for line in out.splitlines():
        m = ARM_BL.match(line)
        if m and int(m.group(2), 16) in entries and \
                in_function(funcs, int(m.group(1), 16)):
            sites[int(m.group(1), 16)] = entries[int(m.group(2), 16)]
    return sites


def case_plt(tool, scratch, p):
    """prog.c and main.c with hooks, -fPIC/-fPIE, linked so that every
    hook call goes through a PLT entry: objdump -d's calls to the hook's
    entry (PLT_LABEL), inside nm's functions, are the oracle.  Nothing
    recorded: --check exits 1 with one `no-table` at the lowest of them
    and counts every one a hook.  Recorded: clean, as many hooks, and
    --dump's entries are exactly those sites, each a call to the hook."""
    d = os.path.join(scratch, "plt", p.name)
    os.makedirs(d, exist_ok=True)
    pic = p.pic
    extra = []
    if p.pie:
        lib = os.path.join(d, "libhooks.so")
        must(p.cc.split() + ["-O2", "-fPIC", "-c", "-o", lib + ".o",
                             os.path.join(HERE, "hooks.c")])
        must(p.link[:1] + ["-shared", "-nostdlib", "-o", lib, lib + ".o"] +
             (["-fuse-ld=lld"] if p.lld else []))
        extra = [lib]

    def build(name, record):
        objs = []
        for src in ("prog.c", "main.c"):
            o = os.path.join(d, "%s-%s.o" % (name, src[:-2]))
            must(p.cc.split() + ["-O2", pic, "-c", "-o", o] + p.flags +
                 [os.path.join(HERE, src)])
            objs.append(o)
        if record:
            must([tool.path] + p.record + objs)
        out = os.path.join(d, name)
        must(p.link + ["-o", out] + objs + extra)
        return out

    bare = build("bare", False)
    oracle = p.oracle or plt_hook_sites
    sites = oracle(p, bare)
    check(len(sites) == 5, "objdump: %d hook calls through the PLT in "
          "functions, expected 5 (twice thrice strong_or_weak sum main): "
          "%s" % (len(sites), [hex(a) for a in sites]))
    r = expect(tool, [bare], 1, [("no-table", min(sites), None)])
    check(r["hooks"] == len(sites), "%d hooks, objdump shows %d calls "
          "through the PLT" % (r["hooks"], len(sites)))
    rec = build("rec", True)
    sites = oracle(p, rec)
    r = expect(tool, [rec], 0, [])
    check(r["hooks"] == len(sites), "recorded: %d hooks, objdump %d" %
          (r["hooks"], len(sites)))
    out, _ = must([tool.path, "--dump", "--format=json", rec])
    entries = json.loads(out)["entries"]
    got = sorted((e["address"], e["state"], e["symbol"]) for e in entries)
    want = sorted((a, "call", h) for a, h in sites.items())
    check(got == want, "--dump: %s, objdump: %s" % (
        [(hex(a), st, sym) for a, st, sym in got],
        [(hex(a), st, sym) for a, st, sym in want]))


# Shared objects whose hook calls go through the loader in a form
# --check has no decoder for: ppc32's secure
# PLT (lld's; GNU ld links -pg code with the BSS PLT), lld's ppc64
# --no-power10-stubs stub for PC-relative code (no load from the slot:
# nothing says where it leads).
PPC = "powerpc-linux-gnu"
PPC64LE = "powerpc64le-linux-gnu"
UNDECIDED_CASES = [
    Plt("ppc-clang-lld", PPC, clang(PPC), "-pg",
        clang(PPC, "-shared -fuse-ld=lld").split() + NOSTD),
    Plt("ppc64le-clang-power10-oldstubs-lld", PPC64LE, clang(PPC64LE),
        "-pg -mcpu=power10",
        clang(PPC64LE, "-shared -fuse-ld=lld "
              "-Wl,--no-power10-stubs").split() + NOSTD),
]


def case_plt_undecided(tool, scratch, p):
    """prog.c and main.c, -pg -fPIC, linked -shared with the hook
    undefined: readelf -sW shows it undefined in .dynsym (the loader binds
    it), and --check cannot tell which calls reach it: unrecorded, it
    exits 1 with `undecided` problems only, never a pass with 0 hooks;
    recorded (GNU ld), still exit 1 with `undecided` among them."""
    d = os.path.join(scratch, "plt", p.name)
    os.makedirs(d, exist_ok=True)
    objs = []
    for src in ("prog.c", "main.c"):
        o = os.path.join(d, src[:-2] + ".o")
        must(p.cc.split() + ["-O2", "-fPIC", "-c", "-o", o] + p.flags +
             [os.path.join(HERE, src)])
        objs.append(o)
    so = os.path.join(d, "bare.so")
    must([a for a in p.link if not a.startswith("-Wl,-T,")] +
         ["-o", so] + objs)
    out, _ = must([p.tool("readelf"), "-sW", "--dyn-syms", so])
    check(re.search(r"\bUND\s+_?mcount\b", out), "readelf: no undefined "
          "hook in %s" % so)
    for rec in (False, True) if not p.lld else (False,):
        if rec:
            must([tool.path] + objs)
            must(p.link + ["-o", so] + objs)
        rc, reports, err = tool.check([so])
        classes = {q["class"] for q in reports[0]["problems"]}
        # Recorded, the entries may draw their own findings: these
        # architectures' PIC hook forms are judged by bytes alone.
        check(rc == 1 and "undecided" in classes and
              (rec or classes == {"undecided"}), "recorded %s: exit %d, "
              "problems %s (%s)" % (rec, rc, classes, err.strip()))


# -- MIPS PIC: hook calls through the GOT -----------------------------------

class Got:
    """One toolchain's MIPS PIC image whose hook calls load t9 from the
    GOT (`lw/ld t9,off(gp)` ... `jalr t9`): the hook left undefined
    (-shared), defined in the image but preemptible (-shared with
    hooks.c), or in a library of its own (-pie, -no-pie), whose symbols
    may be versioned as glibc's are (`versioned`); GNU ld, or lld
    (`lld`).  `relocs`: the loads' base is not always gp (clang's
    o32 code builds $gp in at at -O0, and at -O2 loads from s0 before
    its `move gp,s0`), or readelf -A cannot read the image, so the
    oracle is objdump -dr of a twin link with --emit-relocs."""

    def __init__(self, name, triplet, cc, link, opt="-O2", relocs=False,
                 lld=False, versioned=False):
        self.name = name
        self.triplet = triplet
        self.cc = cc.split()
        self.link = link            # "shared", "shared-def", "pie",
        self.opt = opt              # "nopie"
        self.relocs = relocs
        # lld links through clang; it takes --per-section's tables (Plt)
        self.ld = (clang(triplet, "-fuse-ld=lld").replace(
            "clang ", "clang-16 ").split() if lld else
            [self.tool("gcc")])
        self.record = ["--per-section"] if lld else []
        self.lead = None            # for plt_hook_sites
        # libhooks.so's symbols versioned (as glibc's _mcount is): the
        # link's .symtab then names _mcount@HOOKS_1
        self.versioned = versioned

    def tool(self, t):
        return "%s-%s" % (self.triplet, t)


MIPS = "mips-linux-gnu"
MIPSEL = "mipsel-linux-gnu"
MIPS64EL = "mips64el-linux-gnuabi64"
GOT_CASES = [
    Got("mips-gcc-shared", MIPS, MIPS + "-gcc", "shared"),
    Got("mips-gcc-shared-def", MIPS, MIPS + "-gcc", "shared-def"),
    Got("mipsel-gcc-pie", MIPSEL, MIPSEL + "-gcc", "pie"),
    Got("mipsel-clang16-nopie", MIPSEL, clang(MIPSEL).replace(
        "clang ", "clang-16 "), "nopie", relocs=True),
    Got("mips-clang14-O0-shared", MIPS, clang(MIPS), "shared", opt="-O0",
        relocs=True),
    Got("mips64el-gcc-shared", MIPS64EL, MIPS64EL + "-gcc", "shared"),
    Got("mips64el-clang16-pie", MIPS64EL, clang(MIPS64EL).replace(
        "clang ", "clang-16 "), "pie"),
    Got("mips-clang16-shared-lld", MIPS, clang(MIPS).replace(
        "clang ", "clang-16 "), "shared", lld=True, relocs=True),
    # (binutils' readelf -A stops at lld 14's mips64el attributes)
    Got("mips64el-gcc-pie-lld", MIPS64EL, MIPS64EL + "-gcc", "pie",
        lld=True, relocs=True),
    Got("mips-gcc-pie-versioned", MIPS, MIPS + "-gcc", "pie",
        versioned=True),
    Got("mips64el-gcc-nopie-versioned", MIPS64EL, MIPS64EL + "-gcc",
        "nopie", versioned=True),
    Got("mips-gcc-multi-got", MIPS, MIPS + "-gcc", "multi"),
    Got("mips-gcc-la25", MIPS, MIPS + "-gcc", "la25"),
    Got("mips-gcc-plt", MIPS, MIPS + "-gcc", "plt"),
    Got("mipsel-clang16-plt", MIPSEL, clang(MIPSEL).replace(
        "clang ", "clang-16 "), "plt"),
    Got("mips64el-clang16-la25", MIPS64EL, clang(MIPS64EL).replace(
        "clang ", "clang-16 "), "la25"),
]

GOT_ENTRY = re.compile(r"^\s*([0-9a-f]+)\s+(-?\d+)\(gp\)\s+[0-9a-f]+\s+"
                       r"[0-9a-f]+\s+\S+\s+\S+\s+(\S+)\s*$")
T9_LOAD = re.compile(r"^\s*([0-9a-f]+):\s+(?:lw|ld)\s+t9,(-?\d+)\((\w+)\)")
JALR_T9 = re.compile(r"^\s*([0-9a-f]+):\s+jalr\s+t9\s*$")
HOOK_RELOC = re.compile(r"^\s*([0-9a-f]+): R_MIPS_(?:CALL16|GOT16)\s+"
                        r"(?:%s)$" % "|".join(HOOK_NAMES))


def got_hook_offsets(p, path):
    """readelf -A: {gp-relative offset ("Access"): address} of the
    primary GOT's global entries whose symbol is a hook."""
    out, _ = must([p.tool("readelf"), "-A", path])
    return {int(m.group(2)): int(m.group(1), 16)
            for m in map(GOT_ENTRY.match, out.splitlines())
            if m and m.group(3) in HOOK_NAMES}


def got_hook_sites(p, path, relocs_of=None):
    """The `jalr t9` objdump -d shows within three words after a t9 load
    from a hook's GOT entry, in an nm function: the load is
    `lw/ld t9,OFF(gp)` with readelf -A's offset for the hook or, with
    relocs_of (a twin link with --emit-relocs), one objdump -dr shows an
    R_MIPS_CALL16 or R_MIPS_GOT16 against the hook at."""
    offsets = got_hook_offsets(p, path) if not relocs_of else {}
    loads = None
    if relocs_of:
        out, _ = must([p.tool("objdump"), "-dr", relocs_of])
        loads = {int(m.group(1), 16) for m in map(HOOK_RELOC.match,
                                                  out.splitlines()) if m}
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    lines = out.splitlines()
    sites = []
    for i, line in enumerate(lines):
        m = T9_LOAD.match(line)
        if not m or not (int(m.group(1), 16) in loads if loads is not None
                         else m.group(3) == "gp" and
                         int(m.group(2)) in offsets):
            continue
        for after in lines[i + 1:i + 4]:
            j = JALR_T9.match(after)
            if j and in_function(funcs, int(j.group(1), 16)):
                sites.append(int(j.group(1), 16))
                break
    return sorted(sites)


def got_function(p, path, name):
    """nm -S's extent of one function."""
    return functions(p, path)[name]


def case_got(tool, scratch, p):
    """prog.c and main.c, -pg and PIC, linked so that every hook call
    loads t9 from the hook's GOT entry (readelf -A names the entry and
    its offset from gp; objdump -d shows the loads, got_hook_sites): the
    oracle must show 5 (twice thrice strong_or_weak sum main).  Nothing
    recorded: exit 1, one `no-table` at the lowest call, 5 hooks.
    prog.c recorded and main.c not: exit 1, exactly one `unrecorded`, at
    the call inside main (nm).  Everything recorded: clean, 5 hooks,
    and --dump says every entry is a call through readelf -A's GOT entry
    for the hook (through a hook's slot where readelf -A cannot tell);
    entry 1 moved to its function's start, or from o32's `addiu
    sp,sp,-8` onto the load after it: `off-hook` there.
    Before --check followed the GOT these were `undecided`, every entry
    `corrupt-site`, or (the hook defined in the image) `ok, 0 hooks`."""
    d = os.path.join(scratch, "got", p.name)
    os.makedirs(d, exist_ok=True)
    gcc = p.tool("gcc")
    hooks = os.path.join(d, "hooks.o")
    must([gcc, "-O2", "-fPIC", "-c", "-o", hooks,
          os.path.join(HERE, "hooks.c")])
    lib = os.path.join(d, "libhooks.so")
    version = []
    if p.versioned:
        script = os.path.join(d, "hooks.map")
        with open(script, "w") as f:
            f.write("HOOKS_1 { global: %s; local: *; };\n" %
                    "; ".join(HOOK_NAMES))
        version = ["-Wl,--version-script=" + script]
    must(p.ld + ["-shared", "-nostdlib", "-o", lib, hooks] + version)
    pic = "-fPIE" if p.link in ("pie", "nopie") else "-fPIC"
    flags = {"shared": ["-shared"], "shared-def": ["-shared", hooks],
             "pie": ["-pie", "-Wl,-e,main", lib],
             "nopie": ["-no-pie", "-Wl,-e,main", lib]}[p.link]

    def build(name, recorded):
        objs = []
        for src in ("prog.c", "main.c"):
            o = os.path.join(d, "%s-%s.o" % (name, src[:-2]))
            must(p.cc + [p.opt, "-pg", pic, "-c", "-o", o,
                         os.path.join(HERE, src)])
            objs.append(o)
        if recorded:
            must([tool.path] + p.record + objs[:len(recorded)])
        out = os.path.join(d, name)
        must(p.ld + ["-nostdlib", "-o", out] + objs + flags)
        twin = None
        if p.relocs:
            twin = out + "-relocs"
            must(p.ld + ["-nostdlib", "-Wl,--emit-relocs", "-o", twin] +
                 objs + flags)
        return out, got_hook_sites(p, out, twin)

    bare, sites = build("bare", ())
    if p.versioned:
        out, _ = must([p.tool("nm"), bare])
        check(re.search(r"\bU _mcount@HOOKS_1$", out, re.M),
              "nm: no _mcount@HOOKS_1 in %s" % bare)
    check(len(sites) == 5, "objdump/readelf -A: %d hook calls through the "
          "GOT in functions, expected 5: %s" % (len(sites),
                                                [hex(a) for a in sites]))
    r = expect(tool, [bare], 1, [("no-table", min(sites), None)])
    check(r["hooks"] == 5, "%d hooks, the oracle shows 5" % r["hooks"])
    part, sites = build("part", ("prog",))
    start, size = got_function(p, part, "main")
    in_main = [a for a in sites if start <= a < start + size]
    check(len(in_main) == 1, "oracle: %d hook calls in main" % len(in_main))
    r = expect(tool, [part], 1, [("unrecorded", in_main[0], None)])
    check(r["hooks"] == 5, "part: %d hooks, the oracle shows 5" % r["hooks"])
    rec, sites = build("rec", ("prog", "main"))
    check(len(sites) == 5, "recorded: the oracle shows %d" % len(sites))
    r = expect(tool, [rec], 0, [])
    check(r["hooks"] == 5, "recorded: %d hooks, the oracle shows 5" %
          r["hooks"])
    out, _ = must([tool.path, "--dump", "--format=json", rec])
    entries = json.loads(out)["entries"]
    slots = set(got_hook_offsets(p, rec).values()) if not p.relocs \
        else None
    check(len(entries) == 5 and all(
        e["state"] == "call" and e["symbol"] in HOOK_NAMES and
        e["indirect"] and (slots is None or e["target_address"] in slots)
        for e in entries), "--dump: %s; readelf -A's hook entries %s" % (
            [(e["state"], e["symbol"], e["target_address"])
             for e in entries], slots))
    # Seeded: entry 1 moved to its function's start (before the $gp
    # set-up); and where the compiler records o32's `addiu sp,sp,-8`
    # (objdump -d), onto the load after it, which is no site there.
    # (Image reads __mcount_loc: not lld's --per-section table.)
    if p.record:
        return
    img = Image(rec)
    entry = img.get(1)
    start = next(s for s, n in functions(p, rec).values()
                 if s <= entry < s + n)
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", rec])
    at = re.search(r"^\s*%x:\s+(.*)$" % entry, out, re.M)
    for moved in [start] + ([entry + 4] if at and re.match(
            r"addiu\s+sp,sp,-8$", at.group(1)) else []):
        img.put(1, moved)
        img.write(rec + "-moved")
        expect(tool, [rec + "-moved"], 1, [("off-hook", moved, 1)])


LA25_CALL = re.compile(r"^\s*([0-9a-f]+):\s+jal\s+([0-9a-f]+) <\.pic\.(\S+)>")
LA25_JUMP = re.compile(r"^\s*[0-9a-f]+:\s+j\s+[0-9a-f]+ <(\S+)>")


def la25_sites(p, path):
    """objdump -d: every `jal .pic.<hook>` in an nm function whose stub
    (ld's LA25 stub, as objdump -d prints it) jumps on to <hook>."""
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    lines = out.splitlines()
    stubs = {}
    for i, line in enumerate(lines):
        m = re.match(r"^([0-9a-f]+) <\.pic\.(\S+)>:$", line)
        if m:
            jumps = [LA25_JUMP.match(x) for x in lines[i + 1:i + 4]]
            stubs[int(m.group(1), 16)] = [j.group(1) for j in jumps if j]
    funcs = functions(p, path)
    return sorted(int(m.group(1), 16) for m in map(LA25_CALL.match, lines)
                  if m and m.group(3) in HOOK_NAMES and
                  stubs.get(int(m.group(2), 16)) == [m.group(3)] and
                  in_function(funcs, int(m.group(1), 16)))


def case_la25(tool, scratch, p):
    """prog.c and main.c built -pg -fno-pic -mno-abicalls and linked
    -static with a PIC _mcount (hooks.c -fPIC): every `jal` reaches it
    through ld's LA25 stub .pic._mcount (objdump -d: the jal to the stub,
    the stub's `j _mcount`).  Unrecorded: one `no-table`, 5 hooks;
    recorded: clean, 5 hooks.  Before --check followed the stub: `ok,
    0 hooks` and, recorded, `corrupt-site` at every entry."""
    d = os.path.join(scratch, "got", p.name)
    os.makedirs(d, exist_ok=True)
    gcc = p.tool("gcc")
    hooks = os.path.join(d, "hooks.o")
    must([gcc, "-O2", "-fPIC", "-c", "-o", hooks,
          os.path.join(HERE, "hooks.c")])
    for rec in (False, True):
        objs = []
        for src in ("prog.c", "main.c"):
            o = os.path.join(d, "%s-%d.o" % (src[:-2], rec))
            must(p.cc + [p.opt, "-pg", "-fno-pic", "-mno-abicalls", "-c",
                         "-o", o, os.path.join(HERE, src)])
            objs.append(o)
        if rec:
            must([tool.path] + objs)
        out = os.path.join(d, "static-%d" % rec)
        must([gcc, "-static", "-nostdlib", "-Wl,-e,main", "-o", out] +
             objs + [hooks])
        sites = la25_sites(p, out)
        check(len(sites) == 5, "objdump: %d calls through .pic.<hook>, "
              "expected 5: %s" % (len(sites), [hex(a) for a in sites]))
        r = expect(tool, [out], 1 if not rec else 0,
                   [] if rec else [("no-table", sites[0], None)])
        check(r["hooks"] == 5, "%d hooks, objdump shows 5" % r["hooks"])


def case_mips_plt(tool, scratch, p):
    """prog.c and main.c built -pg -fno-pic -mno-abicalls and linked
    -no-pie against libhooks.so, with an abicalls start file (as crt1.o
    is: ld then writes the non-PIC ABI's PLT): every hook call is `jal
    _mcount@plt` (objdump -d, plt_hook_sites).  Unrecorded: one
    `no-table`, 5 hooks; recorded: clean, 5 hooks, and --dump names
    each entry a call to _mcount@plt.  Before --check decoded the
    entries: `undecided` (and, with the GOT followed but not the PLT,
    `ok, 0 hooks` once recorded)."""
    d = os.path.join(scratch, "got", p.name)
    os.makedirs(d, exist_ok=True)
    gcc = p.tool("gcc")
    hooks = os.path.join(d, "hooks.o")
    must([gcc, "-O2", "-fPIC", "-c", "-o", hooks,
          os.path.join(HERE, "hooks.c")])
    lib = os.path.join(d, "libhooks.so")
    must([gcc, "-shared", "-nostdlib", "-o", lib, hooks])
    start = os.path.join(d, "start.c")
    with open(start, "w") as f:
        f.write("int main(void);\nvoid __start(void) { main(); for (;;) ; }\n")
    must([gcc, "-O2", "-fno-pic", "-c", "-o", start[:-2] + ".o", start])
    for rec in (False, True):
        objs = []
        for src in ("prog.c", "main.c"):
            o = os.path.join(d, "%s-%d.o" % (src[:-2], rec))
            must(p.cc + [p.opt, "-pg", "-fno-pic", "-mno-abicalls", "-c",
                         "-o", o, os.path.join(HERE, src)])
            objs.append(o)
        if rec:
            must([tool.path] + objs)
        out = os.path.join(d, "plt-%d" % rec)
        must([gcc, "-no-pie", "-nostdlib", "-o", out] + objs +
             [start[:-2] + ".o", lib])
        sites = plt_hook_sites(p, out)
        check(len(sites) == 5, "objdump: %d calls to a hook's PLT entry, "
              "expected 5: %s" % (len(sites), [hex(a) for a in sites]))
        r = expect(tool, [out], 1 if not rec else 0,
                   [] if rec else [("no-table", min(sites), None)])
        check(r["hooks"] == 5, "%d hooks, objdump shows 5" % r["hooks"])
    out, _ = must([tool.path, "--dump", "--format=json", out])
    got = sorted((e["address"], e["state"], e["symbol"])
                 for e in json.loads(out)["entries"])
    want = sorted((a, "call", h) for a, h in sites.items())
    check(got == want, "--dump: %s, objdump: %s" % (got, want))


def multi_got_asm(j, n):
    """o32 assembly: big<j>, which loads n GOT entries of its own
    (e<j>_<i>), and small<j>, whose hook call is GCC's -pg sequence.
    Three of them need more than the 64 KB $gp reaches: GNU ld gives
    some their own GOT."""
    loads = "".join("\tlw $t2,%%call16(e%d_%d)($gp)\n" % (j, i)
                    for i in range(n))
    return ("\t.abicalls\n\t.text\n"
            "\t.globl big{j}\n\t.ent big{j}\n\t.type big{j},@function\n"
            "big{j}:\n\t.set noreorder\n\t.cpload $t9\n{loads}"
            "\tjr $ra\n\tnop\n\t.end big{j}\n\t.size big{j},.-big{j}\n"
            "\t.globl small{j}\n\t.ent small{j}\n"
            "\t.type small{j},@function\nsmall{j}:\n\t.set noreorder\n"
            "\t.set noat\n\t.cpload $t9\n\tmove $at,$ra\n"
            "\taddiu $sp,$sp,-8\n\tlw $t9,%call16(_mcount)($gp)\n"
            "\tjalr $t9\n\tnop\n\tjr $ra\n\tnop\n\t.set at\n"
            "\t.end small{j}\n\t.size small{j},.-small{j}\n"
            ).format(j=j, loads=loads)


# leaf: calls the hook from the $gp its caller left, setting none.
LEAF_ASM = """\t.abicalls
\t.text
\t.globl leaf
\t.ent leaf
\t.type leaf,@function
leaf:
\t.set noreorder
\tlw $t9,%call16(_mcount)($gp)
\tjalr $t9
\tnop
\tjr $ra
\tnop
\t.end leaf
\t.size leaf,.-leaf
"""


def case_got_multi(tool, scratch, p):
    """A multi-GOT shared object (GNU ld, o32): big0..2 need 18,000 GOT
    entries, so ld gives some objects GOTs of their own, where _mcount's
    entry carries an R_MIPS_REL32 (readelf -rW: the case must have one,
    or it tests the primary GOT only).  small0..2 and prog.c's and
    main.c's functions set their own $gp and call the hook; leaf calls
    it from the $gp its caller left.  The oracle: objdump -dr of a twin
    link with --emit-relocs (each hook's R_MIPS_CALL16 load and its jalr
    t9), nm for the functions.  prog.c and main.c recorded: exit 1, 8
    hooks, `unrecorded` at each small's call (one of them through a GOT
    of its own) and `undecided` at leaf's (whose $gp may be any GOT's),
    saying so.  Everything but leaf recorded: exactly that `undecided`."""
    d = os.path.join(scratch, "got", p.name)
    os.makedirs(d, exist_ok=True)
    gcc = p.tool("gcc")
    objs = []
    for j in range(3):
        src = os.path.join(d, "big%d.s" % j)
        with open(src, "w") as f:
            f.write(multi_got_asm(j, 6000))
        objs.append(os.path.join(d, "big%d.o" % j))
        must([gcc, "-c", "-o", objs[-1], src])
    for src in ("prog.c", "main.c"):
        objs.append(os.path.join(d, src[:-2] + ".o"))
        must([gcc, "-O2", "-pg", "-fPIC", "-c", "-o", objs[-1],
              os.path.join(HERE, src)])
    leaf = os.path.join(d, "leaf.s")
    with open(leaf, "w") as f:
        f.write(LEAF_ASM)
    must([gcc, "-c", "-o", leaf[:-2] + ".o", leaf])
    objs.append(leaf[:-2] + ".o")

    def link(name):
        out = os.path.join(d, name)
        must([gcc, "-shared", "-nostdlib", "-o", out] + objs)
        must([gcc, "-shared", "-nostdlib", "-Wl,--emit-relocs", "-o",
              out + "-relocs"] + objs)
        return out, got_hook_sites(p, out, out + "-relocs")

    must([tool.path] + objs[3:5])
    part, sites = link("part")
    out, _ = must([p.tool("readelf"), "-rW", part])
    check(re.search(r"R_MIPS_REL32\s+0+\s+_mcount", out), "readelf -rW: "
          "no secondary GOT entry for _mcount: not a multi-GOT link")
    funcs = functions(p, part)
    at = {f: [a for a in sites if funcs[f][0] <= a < sum(funcs[f])]
          for f in ("leaf", "small0", "small1", "small2")}
    check(len(sites) == 9 and all(len(v) == 1 for v in at.values()),
          "oracle: %d hook calls, expected 9 (small0..2, leaf, prog.c's and "
          "main.c's 5): %s" % (len(sites), [hex(a) for a in sites]))
    msg = "several GOTs"
    r = expect(tool, [part], 1, [("undecided", at["leaf"][0], None)] +
               [("unrecorded", at["small%d" % j][0], None)
                for j in range(3)])
    check(r["hooks"] == 8, "part: %d hooks, the oracle shows 8 past leaf's"
          % r["hooks"])
    check(any(msg in q["message"] for q in r["problems"]),
          "the undecided problem does not say %r" % msg)
    must([tool.path] + objs[:3])
    rec, sites = link("rec")
    leaf_at = [a for a in sites if functions(p, rec)["leaf"][0] <= a <
               sum(functions(p, rec)["leaf"])]
    r = expect(tool, [rec], 1, [("undecided", leaf_at[0], None)])
    check(r["hooks"] == 8, "recorded: %d hooks, the oracle shows 8 past "
          "leaf's" % r["hooks"])


# -- hooks the architecture cannot patch ----------------------------------

class Unsupported:
    """A compiler's -pg calls to a hook the architecture lists as
    unsupported (arm's bare `bl mcount`: clang without -meabi gnu;
    s390x's `brasl %r14,mcount`: clang without -mfentry; sparc64's
    `call mcount`: clang), in an object and linked every way: -shared
    with the hook undefined, -pie against a library that defines it,
    and a static executable with it defined (hooks.c, no -pg)."""

    def __init__(self, name, triplet, cc, link, hook="mcount",
                 kinds=("object", "shared", "pie", "exec")):
        self.name = name
        self.triplet = triplet
        self.cc = cc.split()
        self.link = link.split()
        self.hook = hook
        self.kinds = kinds
        self.lld = "-fuse-ld=lld" in self.link

    def tool(self, t):
        return "%s-%s" % (self.triplet, t)


ARM = "arm-linux-gnueabihf"
S390X = "s390x-linux-gnu"
SPARC64 = "sparc64-linux-gnu"
UNSUPPORTED_CASES = [
    Unsupported("arm-clang-bfd", ARM, clang(ARM), ARM + "-gcc"),
    Unsupported("arm-clang-lld", ARM, clang(ARM), clang(ARM, "-fuse-ld=lld"),
                kinds=("shared", "pie", "exec")),
    Unsupported("s390x-clang-bfd", S390X, clang(S390X), S390X + "-gcc"),
    Unsupported("sparc64-clang-bfd", SPARC64, clang(SPARC64),
                SPARC64 + "-gcc"),
]

UNSUP_CALL = re.compile(r"^\s*([0-9a-f]+):\s+(?:call|bl|blx|brasl)\s+"
                        r"(?:%r14,)?[0-9a-f]+ <([^>+]+)>\s*$")


def unsupported_sites(u, path, kind):
    """objdump -d: the calls in nm's functions to the hook, directly or
    through its PLT entry (hook@plt); where objdump labels no PLT entry
    (lld's arm PLT), arm_raw_plt_sites decodes .plt with readelf -r."""
    out, _ = must([u.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(u, path)
    sites = set()
    for line in out.splitlines():
        m = UNSUP_CALL.match(line)
        if m and m.group(2) in (u.hook, u.hook + "@plt") and \
                in_function(funcs, int(m.group(1), 16)):
            sites.add(int(m.group(1), 16))
    if u.lld and u.triplet == ARM and kind != "exec":
        sites |= {a for a, h in arm_raw_plt_sites(u, path).items()
                  if h == u.hook}
    return sorted(sites)


def unsupported_relocs(u, path):
    """objdump -dr: the offsets in .text of relocations against the hook
    (an object's place of a call: its relocation's, s390x's brasl + 2)."""
    out, _ = must([u.tool("objdump"), "-dr", "-j", ".text", path])
    return sorted(int(m.group(1), 16) for m in re.finditer(
        r"^\s*([0-9a-f]+): R_\S+\s+%s(?:[+-]0x[0-9a-f]+)?$" %
        re.escape(u.hook), out, re.M))


def case_unsupported(tool, scratch, u):
    """prog.c and main.c built -pg by a compiler whose hook the
    architecture cannot patch: --check exits 1 with one
    `unsupported-hook` problem, at the lowest call, counting every call
    the oracle shows (objdump -dr's relocations in an object, objdump
    -d's calls to the hook or its PLT entry in a link) as a hook, and
    names the count and the hook; never `ok, 0 hooks`."""
    d = os.path.join(scratch, "unsupported", u.name)
    os.makedirs(d, exist_ok=True)
    objs = []
    for src in ("prog.c", "main.c"):
        o = os.path.join(d, src[:-2] + ".o")
        must(u.cc + ["-O2", "-fPIC", "-pg", "-c", "-o", o,
                     os.path.join(HERE, src)])
        objs.append(o)
    hooks = os.path.join(d, "hooks.o")
    must(u.cc + ["-O2", "-fPIC", "-c", "-o", hooks,
                 os.path.join(HERE, "hooks.c")])
    lib = os.path.join(d, "libhooks.so")
    must(u.link + ["-shared", "-nostdlib", "-o", lib, hooks])
    images = []
    for kind in u.kinds:
        if kind == "object":
            images.append((objs[0], unsupported_relocs(u, objs[0])))
            continue
        out = os.path.join(d, kind)
        flags = {"shared": ["-shared"],
                 "pie": ["-pie", "-Wl,-e,main", lib],
                 "exec": ["-static", "-Wl,-e,main", hooks]}[kind]
        must(u.link + ["-nostdlib", "-o", out] + objs + flags)
        images.append((out, unsupported_sites(u, out, kind)))
    for path, sites in images:
        want = 4 if path.endswith(".o") else 5
        check(len(sites) == want, "%s: objdump shows %d calls to %s, "
              "expected %d" % (path, len(sites), u.hook, want))
        r = expect(tool, [path], 1, [("unsupported-hook", sites[0], None)])
        check(r["hooks"] == len(sites), "%s: %d hooks, objdump shows %d "
              "calls to %s" % (path, r["hooks"], len(sites), u.hook))
        msg = r["problems"][0]["message"]
        check(msg.startswith("%d calls to %s, which " % (len(sites),
                                                          u.hook)),
              "%s: message %r" % (path, msg))


# -- hook calls past the entry window --------------------------------------

class Deep:
    """A compiler whose -pg hook call in deep.c's deep() comes after a
    prologue longer than the architecture's max_entry_offset."""

    def __init__(self, name, triplet, cc, flags="", lead_re=None):
        self.name = name
        self.triplet = triplet
        self.cc = cc.split()
        self.flags = flags.split()
        self.lead = re.compile(r"^\s*[0-9a-f]+:\s+(?:%s)" % lead_re) \
            if lead_re else None

    def tool(self, t):
        return "%s-%s" % (self.triplet, t)


AARCH64 = "aarch64-linux-gnu"
RISCV64 = "riscv64-linux-gnu"
DEEP_CASES = [
    Deep("aarch64-gcc", AARCH64, AARCH64 + "-gcc"),
    Deep("aarch64-clang-pac", AARCH64, clang(AARCH64),
         "-mbranch-protection=standard"),
    Deep("riscv64-gcc", RISCV64, RISCV64 + "-gcc", lead_re=r"auipc\s+ra,"),
    Deep("riscv64-clang", RISCV64, clang(RISCV64), lead_re=r"auipc\s+ra,"),
    Deep("x86_64-clang", X86, clang(X86)),
    Deep("arm-clang", ARM, clang(ARM, "-meabi gnu")),
    Deep("ppc64le-clang", PPC64LE, clang(PPC64LE)),
]


def deep_sites(p, path):
    """objdump -d: {site: offset in its function} of every call to a
    hook in nm's functions (the lead instruction's address where the
    toolchain has one)."""
    out, _ = must([p.tool("objdump"), "-d", "--no-show-raw-insn", path])
    funcs = functions(p, path)
    lines = out.splitlines()
    sites = {}
    for i, line in enumerate(lines):
        m = CALL_LINE.match(line)
        if not m or m.group(2) not in HOOK_NAMES:
            continue
        site = int(m.group(1), 16)
        if p.lead and i and p.lead.match(lines[i - 1]):
            site = int(lines[i - 1].split(":")[0], 16)
        for start, size in funcs.values():
            if start <= site < start + size:
                sites[site] = site - start
    return sites


def case_deep(tool, scratch, p):
    """deep.c built -pg -fstack-protector-all and linked -static: the
    oracle (objdump -d's hook calls) must show one past the arch's entry
    window (so that the case tests what it says).  Unrecorded, --check
    exits 1 with `no-table` at the lowest call and counts every call a
    hook; recorded, it is clean with as many hooks."""
    d = os.path.join(scratch, "deep", p.name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(HERE, "deep.c")
    stubs = os.path.join(d, "stubs.o")
    must(p.cc + ["-O2", "-DDEEP_STUBS", "-c", "-o", stubs, src])
    hooks = os.path.join(d, "hooks.o")
    must(p.cc + ["-O2", "-c", "-o", hooks, os.path.join(HERE, "hooks.c")])
    for rec in (False, True):
        o = os.path.join(d, "deep-%d.o" % rec)
        must(p.cc + ["-O2", "-pg", "-fstack-protector-all", "-c", "-o", o] +
             p.flags + [src])
        if rec:
            must([tool.path, o])
        out = os.path.join(d, "deep-%d" % rec)
        must([p.tool("gcc"), "-static", "-nostdlib", "-Wl,-e,main", "-o",
              out, o, stubs, hooks])
        sites = deep_sites(p, out)
        window = {"aarch64": 64, "riscv64": 64, "x86_64": 32, "arm": 32,
                  "ppc64le": 192}[p.name.split("-")[0]]
        check(len(sites) == 2 and max(sites.values()) > window,
              "objdump: hook calls at function offsets %s, expected two, "
              "one past %d" % (sorted(hex(v) for v in sites.values()),
                               window))
        want = [] if rec else [("no-table", min(sites), None)]
        r = expect(tool, [out], 1 if want else 0, want)
        check(r["hooks"] == len(sites), "recorded %s: %d hooks, objdump "
              "shows %d" % (rec, r["hooks"], len(sites)))


def case_firmware(tool, scratch, board):
    """The bare-metal image is clean; --finalize sorts it (slots read
    here), idempotently, and it stays clean, sorted."""
    out = os.path.join(scratch, "fw-" + board)
    env = dict(os.environ, RECORDMCOUNT=tool.path)
    must(["sh", "examples/firmware/build.sh", board, out], cwd=TOP, env=env)
    fw = os.path.join(out, "fw.elf")
    r = expect(tool, [fw], 0, [])
    # (aarch64's firmware has pads, which count as entries, not hooks)
    check(r["entries"] > 0 and r["entries"] >= r["hooks"],
          "%d hooks, %d entries" % (r["hooks"], r["entries"]))
    before = sorted(Image(fw).slots())
    finalize_twice(tool, fw)
    check(Image(fw).slots() == before, "finalized table != sorted table")
    expect(tool, [fw], 0, [], "--sorted")


def main():
    path, scratch, results = scratch_arg()
    # CHECK_ONLY=REGEX: only the cases whose name matches (while working
    # on the suite; make check-check runs them all).
    only = re.compile(os.environ.get("CHECK_ONLY", ""))
    tool = Tool(path)
    log = Log(os.path.join(results, "check.log"))
    work = []
    for arch in ARCHES:
        if not shutil.which(arch.cc):
            log.skip(arch.name, "%s not installed" % arch.cc)
            continue
        b = Build(arch, tool, scratch)
        for name, fn in ARCH_CASES:
            if (name == "gcc-table" and not arch.gcc_table) or \
                    (name in ("finalize-pie", "shared") and
                     arch.name not in RUNNERS) \
                    or (name == "finalize-emit-relocs" and not arch.rela):
                continue
            work.append(("%s/%s" % (arch.name, name), fn, (b,)))
    for name, fn in X86_CASES:
        work.append(("x86_64/" + name, fn, (tool, scratch)))
    for name, cc in (("x86_64", "gcc"), ("i386", "i686-linux-gnu-gcc")):
        if shutil.which(cc):
            work.append((name + "/tail-byte", case_tail_byte,
                         (tool, scratch, cc, name)))
        else:
            log.line("SKIP: %s/tail-byte: %s not installed" % (name, cc))
    if shutil.which(SPARC64 + "-gcc"):
        work.append(("sparc64/hook-alias", case_hook_alias, (tool, scratch)))
    else:
        log.line("SKIP: sparc64/hook-alias: %s-gcc not installed" % SPARC64)
    work.append(("ppc64/elfv1-refused", case_elfv1_refused, (tool, scratch)))
    for board, cc in (("riscv64", "riscv64-linux-gnu-gcc"),
                      ("aarch64", "aarch64-linux-gnu-gcc")):
        if shutil.which(cc):
            work.append(("firmware/" + board, case_firmware,
                         (tool, scratch, board)))
        else:
            log.line("SKIP: firmware/%s: %s not installed" % (board, cc))
    for p in PLT_CASES:
        if shutil.which(p.cc.split()[0]) and shutil.which(p.link[0]) and \
                shutil.which(p.tool("objdump")):
            work.append(("plt/" + p.name, case_plt, (tool, scratch, p)))
        else:
            log.line("SKIP: plt/%s: %s or %s not installed" %
                     (p.name, p.cc.split()[0], p.link[0]))
    for p in UNDECIDED_CASES:
        if shutil.which(p.cc.split()[0]) and shutil.which(p.link[0]) and \
                shutil.which(p.tool("readelf")):
            work.append(("plt/%s-undecided" % p.name, case_plt_undecided,
                         (tool, scratch, p)))
        else:
            log.line("SKIP: plt/%s-undecided: %s or %s not installed" %
                     (p.name, p.cc.split()[0], p.link[0]))
    for p in GOT_CASES:
        fn = {"multi": case_got_multi, "la25": case_la25,
              "plt": case_mips_plt}.get(p.link, case_got)
        if shutil.which(p.cc[0]) and shutil.which(p.tool("gcc")):
            work.append(("got/" + p.name, fn, (tool, scratch, p)))
        else:
            log.line("SKIP: got/%s: %s or %s not installed" %
                     (p.name, p.cc[0], p.tool("gcc")))
    for u in UNSUPPORTED_CASES:
        if shutil.which(u.cc[0]) and shutil.which(u.link[0]) and \
                shutil.which(u.tool("objdump")):
            work.append(("unsupported/" + u.name, case_unsupported,
                         (tool, scratch, u)))
        else:
            log.line("SKIP: unsupported/%s: %s or %s not installed" %
                     (u.name, u.cc[0], u.link[0]))
    for p in DEEP_CASES:
        if shutil.which(p.cc[0]) and shutil.which(p.tool("gcc")):
            work.append(("deep/" + p.name, case_deep, (tool, scratch, p)))
        else:
            log.line("SKIP: deep/%s: %s or %s not installed" %
                     (p.name, p.cc[0], p.tool("gcc")))
    work = [w for w in work if only.search(w[0])]
    parallel(lambda w: log.case(w[0], w[1], *w[2]), work)
    return finish_scratch(log, scratch)


if __name__ == "__main__":
    sys.exit(main())
