#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check.py - boot one board's firmware under QEMU and check what it says.

    python3 examples/firmware/check.py BOARD OUT-DIR RECORDMCOUNT

From the top of the tree, after build.sh BOARD OUT-DIR.  Prints one
`PASS: [board] what` or `FAIL: [board] what: why` line per check and
exits 1 if any failed.  The serial output is kept in OUT-DIR/serial.log.

The firmware checks itself, but a firmware that only said PASS would
prove little, so every number it prints is compared here with one
found independently, from the objects and the image on disk:

  - the sites patched at boot (-pg calls), or found already neutral
    (NOP pads, FW_HOOKS -fpatchable-function-entry), == the entries
    recordmcount put in the objects' __mcount_loc relocation sections
    (readelf -r);
  - the image's table (nm's __start/__stop_mcount_loc, readelf -x) holds
    exactly the addresses `recordmcount --dump --format=json` lists, and
    the text --dump names the function of every one;
  - every traced call is work_step at nm's address of work_step, and
    none follow the disable;
  - the refused site is a table entry inside work_victim;
  - QEMU exits with the pass status;
  - built with FW_GC=1 (--gc-sections, tables --per-section): dead.o's
    functions are gone and the table holds main.o's and work.o's
    entries only (the counts above).
"""
import json
import os
import re
import shutil
import subprocess
import sys

BOOT_TIMEOUT = 30  # seconds
TRACED = "work_step"
VICTIM = "work_victim"


class Report:
    """PASS/FAIL lines for one board, and how many failed."""

    def __init__(self, board):
        self.board = board
        self.failures = 0

    def __call__(self, ok, what, why=""):
        if ok:
            print(f"PASS: [{self.board}] {what}")
        else:
            self.failures += 1
            print(f"FAIL: [{self.board}] {what}: {why}")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True,
                          stdin=subprocess.DEVNULL).stdout


def board_facts(board):
    """FW_TOOLS, FW_QEMU, FW_QEMU_PKG, FW_HOOKS from boards.sh."""
    script = ('. examples/firmware/boards.sh && fw_board "$1" && '
              'echo "$FW_TOOLS" && echo $FW_QEMU && echo "$FW_QEMU_PKG" && '
              'echo "$FW_HOOKS"')
    tools, qemu, pkg, hooks = run("sh", "-c", script, "sh",
                                  board).splitlines()
    return tools, qemu.split(), pkg, hooks


def boot(qemu, elf, log):
    """Serial output and exit status; status None on a timeout."""
    try:
        p = subprocess.run(qemu + [elf], capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=BOOT_TIMEOUT)
        out, status = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, status = e.stdout or b"", None
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    with open(log, "w") as f:
        f.write(text)
    return text, status


def nm_symbols(tools, elf):
    """Every symbol's address, and the sizes of those that have one."""
    addrs, sizes = {}, {}
    for line in run(tools + "nm", "-S", elf).splitlines():
        f = line.split()
        if len(f) in (3, 4):
            addrs[f[-1]] = int(f[0], 16)
        if len(f) == 4:
            sizes[f[-1]] = int(f[1], 16)
    return addrs, sizes


def recorded_entries(tools, obj):
    """Entries of an object's table: the relocations of its
    .rela__mcount_loc section, or with --per-section of its
    .rela.mcount_loc sections (one per function section)."""
    return sum(int(n) for n in re.findall(
        r"Relocation section '\.rela(?:__|\.)mcount_loc' at offset \S+ "
        r"contains (\d+) entr", run(tools + "readelf", "-rW", obj)))


def image_table(tools, elf, syms):
    """The 64-bit little-endian words from __start to __stop_mcount_loc."""
    words = b""
    for line in run(tools + "readelf", "-x", "__mcount_loc", elf).splitlines():
        m = re.match(r"\s+0x([0-9a-f]+) ((?:[0-9a-f]{8} ?){1,4})", line)
        if m:
            words += bytes.fromhex(m.group(2).replace(" ", ""))
    n = (syms["__stop_mcount_loc"] - syms["__start_mcount_loc"]) // 8
    return [int.from_bytes(words[8 * i:8 * i + 8], "little") for i in range(n)]


def dump_names(rec, elf):
    """Text --dump: site address -> the function it names, per row."""
    rows = {}
    for line in run(rec, "--dump", elf).splitlines():
        m = re.match(r"\s+\d+\s+0x([0-9a-f]+)\s+(\S+)\+0x[0-9a-f]+\s", line)
        if m:
            rows[int(m.group(1), 16)] = m.group(2)
    return rows


def section(text, start, end):
    """The lines after the first line starting with `start`, up to `end`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(start):
            out = []
            for rest in lines[i + 1:]:
                if rest.startswith(end):
                    break
                out.append(rest)
            return out
    return None


def check_traced(report, text, syms):
    traced = section(text, "tracing " + TRACED, "work_run(")
    calls = [re.match(r"\s+traced: (\S+) \(0x([0-9a-f]+)\)", l)
             for l in traced or []]
    calls = [(m.group(1), int(m.group(2), 16)) for m in calls if m]
    m = re.search(r"^work_run\((\d+)\) = \d+, \d+ calls traced", text, re.M)
    want = int(m.group(1)) if m else -1
    wrong = [c for c in calls if c != (TRACED, syms.get(TRACED))]
    report(len(calls) == want and not wrong,
           f"traced calls are exactly {TRACED} at nm's address",
           f"{len(calls)} calls for work_run({want}), unexpected: {wrong}")
    after = section(text, "tracing off:", "work_run(")
    report(after == [] and re.search(r"^tracing off:\nwork_run\(\d+\) = "
                                     r"\d+, 0 calls traced", text, re.M),
           "no calls traced after disable", f"saw {after}")


def check_refused(report, text, syms, table, sizes):
    refused = re.findall(r"^mcount: refused site 0x([0-9a-f]+) <(\S+)\+"
                         r"0x[0-9a-f]+>: .*: changed since it was patched$",
                         text, re.M)
    lo = syms.get(VICTIM, 0)
    hi = lo + sizes.get(VICTIM, 0)
    ok = (len(refused) == 1 and refused[0][1] == VICTIM and
          int(refused[0][0], 16) in table and
          lo <= int(refused[0][0], 16) < hi)
    report(ok, f"the corrupted site in {VICTIM} is found and refused",
           f"refusals: {refused}")
    report(re.search(r"^verify: 1 of \d+ sites changed$", text, re.M) and
           re.search(rf"^enable {VICTIM}: the site was refused$", text, re.M),
           "second verification counts 1 change, enabling it fails",
           "no such lines")


def check_collected(report, tools, out, syms):
    """FW_GC=1: dead.o was recorded and linked, --gc-sections dropped its
    functions, and (the table == recorded check above counts main.o and
    work.o only) its entries went with them."""
    dead = recorded_entries(tools, f"{out}/dead.o")
    kept = [n for n in ("dead_sum", "dead_twice") if n in syms]
    report(dead > 0 and not kept,
           "--gc-sections dropped dead.o's functions and their entries",
           f"dead.o records {dead}, image keeps {kept}")


def main():
    board, out, rec = sys.argv[1:4]
    gc = os.path.exists(f"{out}/dead.o")
    report = Report(board + (" gc" if gc else ""))
    tools, qemu, pkg, hooks = board_facts(board)
    elf = f"{out}/fw.elf"
    if not shutil.which(qemu[0]):
        report(False, "boots", f"no {qemu[0]} (Debian package {pkg})")
        return 1
    text, status = boot(qemu, elf, f"{out}/serial.log")
    report(status == 0 and text.rstrip().endswith("firmware: PASS"),
           "boots, checks itself and exits with the pass status",
           f"exit status {status}, last line "
           f"{(text.strip().splitlines() or [''])[-1]!r}")

    syms, sizes = nm_symbols(tools, elf)
    recorded = sum(recorded_entries(tools, f"{out}/{o}.o")
                   for o in ("main", "work"))
    m = re.search(r"^boot: (\d+) sites, (\d+) patched, (\d+) already "
                  r"neutral, (\d+) refused$", text, re.M)
    boot_counts = tuple(int(g) for g in m.groups()) if m else None
    if "-fpatchable-function-entry" in hooks:
        want, what = (recorded, 0, recorded, 0), "found already neutral (pads)"
    else:
        want, what = (recorded, recorded, 0, 0), "patched at boot"
    report(recorded > 0 and boot_counts == want,
           f"every recorded entry {what}",
           f"objects record {recorded}, boot says {boot_counts}")

    table = image_table(tools, elf, syms)
    dump = json.loads(run(rec, "--dump", "--format=json", elf))
    addrs = [e["address"] for e in dump["entries"]]
    report(len(table) == recorded and sorted(table) == sorted(addrs),
           "image table == recordmcount --dump's entries == recorded",
           f"table {len(table)}, dump {len(addrs)}, recorded {recorded}")
    names = dump_names(rec, elf)
    report(sorted(names) == sorted(table) and all(
        syms.get(n, -1) <= a < syms.get(n, -1) + sizes.get(n, 0)
        for a, n in names.items()),
        "recordmcount --dump names the function of every site",
        f"rows {names}")

    check_traced(report, text, syms)
    check_refused(report, text, syms, table, sizes)
    if gc:
        check_collected(report, tools, out, syms)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
