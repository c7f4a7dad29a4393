#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hooks.py [--resync OBJDUMP VMLINUX | --literal-pool] DUMP-JSON HOOK [NOP-BYTES [VMLINUX]] < DISASSEMBLY - every hook call in a linked
vmlinux's text must be an entry of its table, and every entry a hook
call (issue 14).

DISASSEMBLY is `objdump -d vmlinux` (the target's objdump), or just its
function header lines ("ADDR <name>:") and the lines whose branch
target is "<HOOK>" (check.sh greps them out first: the whole listing
of an x86_64 vmlinux is some 100 MB).  DUMP-JSON is
`recordmcount --dump --format=json` of the same vmlinux as the linker
wrote it (vmlinux.raw: before --finalize zeroes the entries of
overridden __weak bodies, whose calls are still in the text).  HOOK is
the function the compiler's hook calls (__fentry__, _mcount,
__gnu_mcount_nc).

A hook call is an instruction that branches to exactly <HOOK> (the
linker resolved every call, so objdump names the target): x86's
"call", arm's and arm64's "bl".  Calls that the tools turned into NOPs
in untraced sections are no longer calls and are not counted.

With a third argument, NOP-BYTES (lib.sh's LINKED_HOOK, s390x: "c0 04
00 00 00 00"), the build NOPed every hook (the wrapper's --nop, as
-mnop-mcount would), and a hook is an instruction of exactly those
bytes instead: on s390x "jgnop" to itself, `brcl 0,0`.  The entry
code's alternatives pad with the same bytes (system_call, ...): with a
fourth argument, VMLINUX, those of its .altinstructions (s390's layout,
6.1's or 6.12's) and the replacements of .altinstr_replacement are not
hooks.  Any call left unNOPed would name __fentry__, which the
s390 kernel does not define: the link would have failed.

objdump decodes the text linearly from each symbol, and code no symbol
covers (the bodies of overridden __weak functions, which the linker
keeps) is read from wherever the previous function's instructions end:
after a padding byte that is not an instruction's start (clang for
i386 leaves "00" before such a body), it reads the body out of step and
shows no call.  So with "--resync OBJDUMP VMLINUX" first, each table
entry at no hook call of that listing is disassembled again from its
own address (objdump --start-address) and is a hook call if the
instruction there is one (at most 200 entries: more is no misreading);
their number is printed as "resynced=R".

With HOOK "--pads" and NOP-BYTES the bytes of each instruction of one
pad (riscv64, -fpatchable-function-entry=4: "0001 0001 0001 0001",
four c.nop), the compiler left NOP pads instead of calls, and a hook is
a function entry (a header line "ADDR <name>:") whose first
instructions are exactly those, at ADDR.  Then DISASSEMBLY needs only
each header and the lines after it (check.sh: grep -A4), and DUMP-JSON
is the dump of the finalized vmlinux: the pads of overridden __weak
bodies have no header (the linker dropped their symbol), and
--finalize zeroed their entries (gate.py checks that those are exactly
the entries nm puts in no function).

`hooks.py --module-pads PAD-BYTES [INIT-KEPT]` < `objdump -d` of a
module prints the number of its pads that ftrace lists once it is
loaded (boot.sh): those outside .exit.text, and outside .init.text
unless INIT-KEPT is not empty.

With --literal-pool first (SH, lib.sh's LINKED_HOOK_FORM), a hook is
not an instruction but the literal-pool word a call loads its target
from: objdump names the word's value after a PC-relative load
("mov.l 8c01107c <f+0xc>,r1 ! 8c2a0000 <mcount>"), and the hook is that
word, at the load's operand address, when the loaded register is the
target of a "jmp @rN" or "jsr @rN" within the next four instructions
(GCC's -pg prologue: mov.l, sts.l pr, mova, jmp @r1).  A load of the
hook's address that no jump uses is code taking its address (ftrace's
own MCOUNT_ADDR), counted apart as address_loads.  The listing must
then hold the four lines after each load (check.sh's grep -A4).

Prints "hooks=N table=M missing=K extra=E mnemonics=..." and up to ten
missing hooks and extra entries with the function they are in; exits 1
if K or E is not 0 or no hook call was found.
"""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import elfsites  # noqa: E402

INSN = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2,8}\s)+)\s*(\S+)\s+"
                  r"(?:0x)?[0-9a-f]+\s+<([^>]+)>\s*$")
HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:\s*$")
# SH: "ADDR: BYTES mov.l TARGET <sym+off>,rN ! VALUE <HOOK>"
LOAD = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2}\s)+)\s*mov\.l\s+"
                  r"([0-9a-f]+)\s+<[^>]*>,(r\d+)\s+!\s+[0-9a-f]+\s+<([^>]+)>\s*$")
JUMP = re.compile(r"^\s*[0-9a-f]+:\s+(?:[0-9a-f]{2}\s)+\s*(jmp|jsr)\s+@(r\d+)\s*$")
ANY_INSN = re.compile(r"^\s*[0-9a-f]+:\s")


# s390's struct alt_instr (arch/s390/include/asm/alternative.h), packed,
# big endian: s32 instr_offset and s32 repl_offset (each from the field
# itself), then 6.12's u32 feature (a union of ctx, type and data) or
# 6.1's u16 facility, then u8 instrlen.
S390_ALT_LAYOUTS = ((">iiIB", 13), (">iiHB", 11))


def s390_alt_entries(elf, sec, replacement):
    """[(start, end)] of the original instructions of .altinstructions
    SEC read in the one layout of S390_ALT_LAYOUTS under which every
    entry's replacement lies in REPLACEMENT (.altinstr_replacement), or
    exit: no other layout is known."""
    data = elf.contents(sec)
    lo, hi = replacement["addr"], replacement["addr"] + replacement["size"]
    for fmt, size in S390_ALT_LAYOUTS:
        if len(data) % size:
            continue
        entries = []
        for off in range(0, len(data), size):
            rel, repl, _feature, n = struct.unpack_from(fmt, data, off)
            start = sec["addr"] + off + rel
            entries.append((start, start + n, sec["addr"] + off + 4 + repl))
        if all(lo <= r <= hi for _, _, r in entries):
            return [(a, b) for a, b, _ in entries]
    sys.exit("hooks.py: .altinstructions is in no s390 layout known "
             "(6.1's or 6.12's struct alt_instr)")


def s390_alternative_ranges(vmlinux):
    """[start, end) of every original instruction s390's alternatives
    may replace (.altinstructions, S390_ALT_LAYOUTS), and of
    .altinstr_replacement, the replacements themselves: code that is
    only ever copied over an original, never run where it lies (6.12's
    hold `brcl 0,0` too)."""
    with open(vmlinux, "rb") as f:
        elf = elfsites.Elf(f.read())
    named = {sec["name"]: sec for sec in elf.sections}
    if ".altinstructions" not in named:
        return []
    replacement = named.get(".altinstr_replacement")
    if replacement is None:
        sys.exit("hooks.py: %s has .altinstructions but no "
                 ".altinstr_replacement" % vmlinux)
    return s390_alt_entries(elf, named[".altinstructions"], replacement) + \
        [(replacement["addr"], replacement["addr"] + replacement["size"])]


def literal_pool_hooks(lines, hook):
    """SH: {pool word address: function} of every load of HOOK's address
    that a jmp/jsr through the loaded register follows within four
    instructions, {mnemonic: count}, and how many loads no jump uses."""
    hooks, mnemonics = {}, {}
    address_loads = 0
    function = "?"
    pending = []            # [word address, register, function, instructions left]
    for line in lines:
        m = HEADER.match(line)
        if m:
            function = m.group(2)
            address_loads += len(pending)
            pending = []
            continue
        m = LOAD.match(line)
        if m and m.group(5) == hook:
            pending.append([int(m.group(3), 16), m.group(4), function, 4])
            continue
        if not ANY_INSN.match(line):
            continue
        j = JUMP.match(line)
        still = []
        for p in pending:
            if j and j.group(2) == p[1]:
                hooks[p[0]] = p[2]
                name = "mov.l+" + j.group(1)
                mnemonics[name] = mnemonics.get(name, 0) + 1
                continue
            p[3] -= 1
            if p[3]:
                still.append(p)
            else:
                address_loads += 1
        pending = still
    address_loads += len(pending)
    return hooks, mnemonics, address_loads


def is_hook(m, hook, nop_bytes, alternatives):
    """Whether INSN's match M is a hook (see the module's text)."""
    if nop_bytes:
        addr = int(m.group(1), 16)
        return (m.group(2).split() == nop_bytes.split() and
                not any(a <= addr < b for a, b in alternatives))
    return m.group(4) == hook


def resync(objdump, image, addr, hook, nop_bytes, alternatives):
    """The instruction objdump decodes at ADDR when it starts there: its
    mnemonic if it is a hook, else None."""
    out = subprocess.run([objdump, "-d", "--start-address=0x%x" % addr,
                          "--stop-address=0x%x" % (addr + 16), image],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = INSN.match(line)
        if m and int(m.group(1), 16) == addr and is_hook(m, hook, nop_bytes,
                                                         alternatives):
            return m.group(3)
        if re.match(r"^\s*[0-9a-f]+:\s", line):
            return None         # the first instruction there is no hook
    return None


INSN_ANY = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2,8}\s)+)\s*(\S+)")


SECTION = re.compile(r"^Disassembly of section (\S+):")


def pads(lines, pad):
    """[(section, address, function)] of every header whose first
    len(pad) instructions have exactly the bytes of pad, the first at
    the header's own address."""
    found, function, start, seen, section = [], None, None, [], None
    for line in lines:
        m = SECTION.match(line)
        if m:
            section, function = m.group(1), None
            continue
        m = HEADER.match(line)
        if m:
            function, start, seen = m.group(2), int(m.group(1), 16), []
            continue
        m = INSN_ANY.match(line)
        if not m or function is None:
            function = None
            continue
        if not seen and int(m.group(1), 16) != start:
            function = None
            continue
        seen.append(m.group(2).split())
        if len(seen) == len(pad):
            if seen == [p.split() for p in pad]:
                found.append((section, start, function))
            function = None
    return found


def module_pads(pad, init_kept=""):
    """The pads of a module's `objdump -d` on stdin that ftrace lists
    once it is loaded: outside .exit.text, and outside .init.text
    unless the architecture keeps it (boot.sh's MODULE_INIT_KEPT)."""
    skip = {".exit.text"} | (set() if init_kept else {".init.text"})
    print(sum(1 for sec, _, _ in pads(sys.stdin, pad.split())
              if sec not in skip))
    return 0


def main(dump_json, hook, nop_bytes="", vmlinux=None, resync_with=None,
         literal_pool=False):
    if dump_json == "--module-pads":
        return module_pads(hook, nop_bytes)
    if hook == "--pads":
        entries = json.load(open(dump_json))["entries"]
        table = {e["address"] for e in entries if e["address"]}
        pad = nop_bytes.split()
        hooks = {a: f for _, a, f in pads(sys.stdin, pad)}
        missing = sorted(set(hooks) - table)
        extra = sorted(table - set(hooks))
        print("hooks=%d table=%d missing=%d extra=%d mnemonics=pads:%d"
              % (len(hooks), len(table), len(missing), len(extra),
                 len(hooks)))
        for a in missing[:10]:
            print("  pad not in the table: 0x%x at %s" % (a, hooks[a]))
        for a in extra[:10]:
            print("  table entry at no pad: 0x%x" % a)
        return 1 if missing or extra or not hooks else 0
    alternatives = s390_alternative_ranges(vmlinux) if vmlinux else []
    entries = json.load(open(dump_json))["entries"]
    table = {e["address"] for e in entries if e["address"]}
    hooks = {}              # address -> function it is in
    mnemonics = {}
    function = "?"
    address_loads = None
    if literal_pool:
        hooks, mnemonics, address_loads = literal_pool_hooks(sys.stdin, hook)
    for line in [] if literal_pool else sys.stdin:
        m = HEADER.match(line)
        if m:
            function = m.group(2)
            continue
        m = INSN.match(line)
        addr = int(m.group(1), 16) if m else None
        if m and is_hook(m, hook, nop_bytes, alternatives):
            hooks[addr] = function
            mnemonics[m.group(3)] = mnemonics.get(m.group(3), 0) + 1
    resynced = 0
    extra = sorted(table - set(hooks))
    if resync_with and len(extra) <= 200:
        for addr in extra:
            mnemonic = resync(*resync_with, addr, hook, nop_bytes,
                              alternatives)
            if mnemonic:
                hooks[addr] = "(decoded from the entry)"
                mnemonics[mnemonic] = mnemonics.get(mnemonic, 0) + 1
                resynced += 1
    missing = sorted(set(hooks) - table)
    extra = sorted(table - set(hooks))
    print("hooks=%d table=%d missing=%d extra=%d mnemonics=%s%s"
          % (len(hooks), len(table), len(missing), len(extra),
             ",".join("%s:%d" % kv for kv in sorted(mnemonics.items())),
             " resynced=%d" % resynced if resync_with else "") +
          ("" if address_loads is None
           else " address_loads=%d" % address_loads))
    for a in missing[:10]:
        print("  hook call not in the table: 0x%x in %s" % (a, hooks[a]))
    for a in extra[:10]:
        print("  table entry at no hook call: 0x%x" % a)
    return 1 if missing or extra or not hooks else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--module-pads"]:
        sys.exit(main(*args))
    resync_with = None
    if args[:1] == ["--resync"] and len(args) >= 3:
        resync_with, args = (args[1], args[2]), args[3:]
    pool = args[:1] == ["--literal-pool"]
    if pool:
        args = args[1:]
    if len(args) not in (2, 3, 4) or (pool and len(args) != 2):
        sys.exit(__doc__)
    sys.exit(main(*args, resync_with=resync_with, literal_pool=pool))
