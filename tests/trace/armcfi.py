# SPDX-License-Identifier: GPL-2.0-only
"""armcfi.py - the arm prologue reader against the compilers' own CFI.

    python3 armcfi.py READELF SCAN OBJECT...

SCAN is armscan's output for the OBJECTs (built with -g, so that they
hold .debug_frame).  For every function the reader read, the row of its
DWARF call frame information that holds at the hook's `push {lr}` must
say the same: the CFA (the entry's sp) is sp + taken when it is given
from sp, and lr is saved at CFA - lr_at (lr_at 0: not saved, lr keeps
it).  A CFA given from a frame pointer checks lr alone.  Prints one
line per disagreement and a summary; exits 1 on any disagreement or if
no function could be compared.
"""
import re
import subprocess
import sys

FDE = re.compile(r'^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=(\w+) '
                 r'pc=([0-9a-f]+)\.\.([0-9a-f]+)')
CIE = re.compile(r'^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE')


def fde_sections(readelf, obj):
    """{offset in .debug_frame: section name} of its relocations, which
    say what section each FDE's start address is in."""
    out = subprocess.run([readelf, '-rW', obj], capture_output=True,
                         text=True, check=True).stdout
    result, inside = {}, False
    for line in out.splitlines():
        if line.startswith('Relocation section'):
            inside = "'.rel.debug_frame'" in line
            continue
        f = line.split()
        if inside and len(f) >= 5 and re.fullmatch(r'[0-9a-f]{8}', f[0]):
            result[int(f[0], 16)] = f[4]
    return result


def fdes(readelf, obj):
    """[(section, start, end, [(loc, {column: rule})])] of obj's
    .debug_frame (its FDE's pc_begin is 8 bytes into it).  An FDE with
    no instructions of its own has its CIE's initial row at its start."""
    out = subprocess.run([readelf, '--debug-dump=frames-interp', '-W', obj],
                         capture_output=True, text=True, check=True).stdout
    sections = fde_sections(readelf, obj)
    result, cies, cols, rows = [], {}, None, None
    for line in out.splitlines():
        m, c = FDE.search(line), CIE.search(line)
        if c:
            rows = cies[c.group(1)] = []
            cols = None
            continue
        if m:
            rows = []
            start = int(m.group(3), 16)
            result.append((sections.get(int(m.group(1), 16) + 8), start,
                           int(m.group(4), 16), rows))
            rows.extend((start, r) for _, r in cies.get(m.group(2), [])[:1])
            cols = None
            continue
        f = line.split()
        if rows is None or not f:
            continue
        if f[0] == 'LOC':
            cols = f
        elif cols and re.fullmatch(r'[0-9a-f]{8}', f[0]):
            rows.append((int(f[0], 16), dict(zip(cols, f))))
    return result


def row_at(table, section, at):
    """The CFI row in force at offset `at` of `section`, or None."""
    for sec, start, end, rows in table:
        if sec == section and start <= at < end:
            best = None
            for loc, row in rows:
                if loc <= at:
                    best = row
            return best
    return None


def judge(row, taken, lr_at):
    """None if row agrees with the reader, else why not; 'sp' if the
    CFA was from sp (taken checked)."""
    cfa = row.get('CFA', '')
    lr = row.get('ra', row.get('r14', 'u'))
    m = re.fullmatch(r'r13\+(\d+)', cfa)
    if m and int(m.group(1)) != taken:
        return 'CFA %s, reader took %d' % (cfa, taken)
    want = 'c-%d' % lr_at if lr_at else None
    if want and lr != want:
        return 'lr %s, reader says c-%d' % (lr, lr_at)
    if not want and lr.startswith('c'):
        return 'lr %s, reader says kept' % lr
    return 'sp' if m else 'fp'


def main():
    readelf, scan, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
    tables = {o: fdes(readelf, o) for o in objs}
    counts = {'sp': 0, 'fp': 0, 'none': 0}
    bad = 0
    for line in open(scan):
        f = line.split()
        if f[0] != 'read' or f[1] not in tables:
            continue
        taken, lr_at, push = int(f[4]), int(f[5]), int(f[7], 16)
        row = row_at(tables[f[1]], f[8], push)
        if row is None:
            counts['none'] += 1
            continue
        verdict = judge(row, taken, lr_at)
        if verdict in counts:
            counts[verdict] += 1
        else:
            print('DISAGREE: %s %s (%s): %s' % (f[1], f[2], f[3], verdict))
            bad += 1
    print('%d agree with sp-based CFI (CFA and lr), %d with fp-based (lr), '
          '%d without CFI, %d disagree'
          % (counts['sp'], counts['fp'], counts['none'], bad))
    return 1 if bad or not counts['sp'] + counts['fp'] else 0


if __name__ == '__main__':
    sys.exit(main())
