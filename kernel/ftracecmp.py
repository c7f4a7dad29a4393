#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ftracecmp.py REFERENCE-LOG OURS-LOG - the ftrace selftests' results
(ftracetest's "[N] description<TAB>[RESULT]" lines on each kernel's
serial console) compared.  Prints a count of each result for both
kernels, then every test whose result differs, and exits 1 if a test
that passed on the reference kernel did not pass on ours, if either run
did not finish, or if the reference passed nothing (no comparison)."""
import re
import sys

KIND = r"\[(PASS|FAIL|UNRESOLVED|UNTESTED|UNSUPPORTED|XFAIL|UNDEFINED)\]"
RESULT = re.compile(r"^\[(\d+)\](.*?)\s*" + KIND + r"\s*$")
# A test's line cut by a kernel message: its result on a line of its own.
START = re.compile(r"^\[(\d+)\](.*?)(\[ *\d+\.\d+\].*)?$")
ALONE = re.compile(r"^\s*" + KIND + r"\s*$")
KINDS = ("PASS", "FAIL", "UNRESOLVED", "UNTESTED", "UNSUPPORTED", "XFAIL",
         "UNDEFINED")


def results(path):
    """{"[N] description": result} of one console log (the number too:
    two tests may share a description), and whether ftracetest got to
    its end."""
    found, done, pending = {}, False, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = RESULT.match(line)
            alone = ALONE.match(line)
            start = START.match(line)
            if m:
                found["[%s] %s" % (m.group(1), m.group(2).strip())] = m.group(3)
                pending = None
            elif alone and pending:
                found[pending] = alone.group(1)
                pending = None
            elif start:
                pending = "[%s] %s" % (start.group(1), start.group(2).strip())
            elif line.startswith("mcftrace: done"):
                done = True
    return found, done


def counts(found):
    return " ".join("%s=%d" % (k.lower(), list(found.values()).count(k))
                    for k in KINDS if k in found.values())


def main():
    ref, ref_done = results(sys.argv[1])
    ours, ours_done = results(sys.argv[2])
    print("reference: %d tests, %s%s" % (len(ref), counts(ref),
          "" if ref_done else " (did not finish)"))
    print("ours:      %d tests, %s%s" % (len(ours), counts(ours),
          "" if ours_done else " (did not finish)"))
    regressions = 0
    for name in sorted(set(ref) | set(ours)):
        r, o = ref.get(name, "none"), ours.get(name, "none")
        if r != o:
            worse = r == "PASS"
            regressions += worse
            print("%s: %s: reference %s, ours %s" %
                  ("regression" if worse else "difference", name, r, o))
    print("regressions=%d" % regressions)
    ok = ref_done and ours_done and "PASS" in ref.values()
    return 0 if ok and regressions == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
