#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""argcheck.py - the values mctrace record -A/-R captured, per call,
against an oracle that does not share its code (tests/trace/args.sh).

  argcheck.py uftrace UF MC     uftrace replay's text UF and mctrace
                                replay's MC: the same calls in the same
                                order, each with the same arguments and
                                return value
  argcheck.py printf OUT MC     the program's own lines OUT (args.c:
                                "name(arg, ...) = value" at each return)
                                and the calls of MC that captured
                                values: the same, as multisets

Texts are compared as values: numbers by their value modulo 2**64
(uftrace shows some in hex that mctrace shows in decimal), strings with
mctrace's escapes read back (uftrace and printf print the bytes), and
an oracle's string longer than the recorder's bound (64 bytes) cut
there, as mctrace shows it cut: "xx..."....  A C++ function is named
without its parameters, as uftrace names it.
"""
import re
import sys

STR_MAX = 64
NUMBER = re.compile(r'(?<![\w.])(-?)(0x[0-9a-fA-F]+|\d+)\b')


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def numbers(text):
    def value(m):
        v = int(m.group(2), 0)
        return str((-v if m.group(1) else v) % (1 << 64))
    return NUMBER.sub(value, text)


def unescape(text):
    """mctrace's C escapes inside quoted strings, read back."""
    def one(m):
        return m.group(0).encode("latin-1").decode("unicode_escape")
    return re.sub(r'\\(x[0-9a-f]{2}|[nrt"\\])', one, text)


def cut(text):
    """An oracle's strings longer than the bound, cut as mctrace does."""
    return re.sub(r'"([^"]{%d})[^"]+"' % STR_MAX, r'"\1"...', text)


def replay_calls(path, ours):
    """[text of each call, in entry order] from a replay's lines."""
    calls, stack = [], []
    for line in open(path, encoding="latin-1"):
        if "|" not in line or line.startswith("#"):
            continue
        s = line.split("|", 1)[1].strip()
        m = re.match(r"^\}( = (.*);)? /\* (.+) \*/$", s)
        if m:
            if not stack:
                fail("%s: an exit with no call open: %s" % (path, s))
            i = stack.pop()
            if m.group(2) is not None:
                calls[i] += " = " + m.group(2)
            continue
        # a C++ name with --demangle=full has its parameters
        m = re.match(r"^(.*?)(\([^()]*\)(?: const)?)?\((.*)\)( = (.*))?"
                     r"( \{|;)$", s)
        if not m:
            fail("%s: not a call: %s" % (path, s))
        text = "%s(%s)" % (m.group(1), m.group(3))
        if m.group(5) is not None:
            text += " = " + m.group(5)
        calls.append(text)
        if m.group(6) == " {":
            stack.append(len(calls) - 1)
    return [numbers(unescape(c) if ours else c) for c in calls]


def compare(what, theirs, ours):
    if theirs == ours:
        print("%d calls agree" % len(ours))
        return
    for i, (a, b) in enumerate(zip(theirs, ours)):
        if a != b:
            fail("%s: call %d: the oracle's %r, mctrace's %r" %
                 (what, i, a, b))
    fail("%s: %d calls in the oracle, %d in mctrace's" %
         (what, len(theirs), len(ours)))


def main(argv):
    if len(argv) != 4 or argv[1] not in ("uftrace", "printf"):
        fail("usage: argcheck.py uftrace|printf ORACLE MC")
    ours = replay_calls(argv[3], True)
    if argv[1] == "uftrace":
        compare("uftrace", replay_calls(argv[2], False), ours)
        return
    oracle = sorted(numbers(cut(l.rstrip("\n")))
                    for l in open(argv[2], encoding="latin-1"))
    compare("printf", oracle, sorted(c for c in ours if " = " in c))


main(sys.argv)
