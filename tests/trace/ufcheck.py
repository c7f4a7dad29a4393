#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ufcheck.py - mctrace's analyses against uftrace's (tests/trace/uftrace.sh).

Each tool's text is read by a small parser of its own here, into the
same plain facts (calls per function, the aggregated tree's paths and
counts, each thread's calls in order), and the facts are compared.
C++ names are compared as both tools show them by default (the name
alone), but for three spellings of uftrace's own demangler (spelling()).
uftrace is the oracle: nothing here was produced by mctrace.

  ufcheck.py report UF MC [KEY]  calls per function equal (`report`);
                                 with KEY, MC's rows are in KEY's order
                                 (total, self, calls: down; name: up)
  ufcheck.py graph UF MC         the aggregated trees' paths and counts
                                 equal (uftrace's root, the program, left
                                 out)
  ufcheck.py graphthreads MC UF...
                                 `graph --threads`: each thread's tree is
                                 one of the `uftrace graph --tid` UF...
  ufcheck.py graphfunc UF MC     `graph FUNC`: the paths to FUNC's calls
                                 and their calls are uftrace's backtraces
                                 and hits, FUNC's tree uftrace's
  ufcheck.py replay UF MC        per thread, the same calls in the same
                                 order at the same depths (threads matched
                                 whole, tids apart); MC's timestamps never
                                 go back, across threads
  ufcheck.py threads MC UF...    `report --threads`: each thread's calls
                                 per function are those of one of the
                                 `uftrace report --tid` outputs UF...
  ufcheck.py diff MC UF_A UF_B   `report --diff`: each function's change
                                 in calls is UF_B's count less UF_A's
  ufcheck.py within MC INNER OUTER
                                 in a report, INNER's total is at most
                                 OUTER's (a function OUTER calls cannot
                                 take longer than OUTER)
  ufcheck.py rawfilter RAW FILTERED HOW ARG
                                 `dump --raw` FILTERED is RAW with the
                                 filter applied here: HOW tid (ARG: a
                                 tid), range (A~B in ns), min (ns)
  ufcheck.py info INFO KEY=VALUE...
                                 `mctrace info`'s lines: each KEY's value
                                 (the text after "KEY:", stripped); a
                                 VALUE of @FILE: the calls in the uftrace
                                 report FILE, @@FILE: twice that (events)
  ufcheck.py infocut DATA OUT MCTRACE
                                 DATA cut 8 bytes into its middle block's
                                 header as OUT: MCTRACE info OUT says the
                                 blocks before it were read, 8 bytes cut
  ufcheck.py infoblock IN OUT [KEY=VALUE...]
                                 a copy of the trace IN without its
                                 MCT_INFO blocks, then one of the strings
                                 given (recorder/format.h), if any
Exit 0 when it holds, else 1 with the reason on stdout.
"""
import collections
import re
import struct
import subprocess
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


# ---- report ---------------------------------------------------------------

TIME = r"([\d.]+)\s*(ns|us|ms|s)"
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def report_rows(path):
    """[(total ns, self ns, calls, name)] in the order printed."""
    rows = []
    pat = re.compile(r"^\s*%s\s+%s\s+(\d+)\s+(\S.*)$" % (TIME, TIME))
    with open(path) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if m:
                rows.append((float(m.group(1)) * UNIT[m.group(2)],
                             float(m.group(3)) * UNIT[m.group(4)],
                             int(m.group(5)), m.group(6).strip()))
    return rows


def report_calls(path):
    calls = {}
    for row in report_rows(path):
        calls[row[3]] = calls.get(row[3], 0) + row[2]
    return calls


def spelling(name):
    """A C++ name with uftrace's own demangler's spellings made the
    toolchain's (libstdc++'s __cxa_demangle, which mctrace uses): an
    anonymous namespace, "(anonymous namespace)" there, "_GLOBAL__N_1"
    in uftrace; an ABI tag, which uftrace shows as a last "::cxx11" and
    the simple form drops; a lambda, "{lambda(int)#1}" there and "$_0"
    in uftrace (numbered apart), "{lambda}" for both here."""
    name = name.replace("_GLOBAL__N_1", "(anonymous namespace)")
    name = re.sub(r"::cxx11$", "", name)
    name = re.sub(r"\{lambda\([^)]*\)#\d+\}|\$_\d+", "{lambda}", name)
    return name


def spelled_keys(counts):
    """The same counts, keyed by names (or paths of them) spelled alike."""
    out = collections.Counter()
    for k, v in counts.items():
        out[tuple(map(spelling, k)) if isinstance(k, tuple)
            else spelling(k)] += v
    return out


def compare(what, ours, theirs):
    if ours != theirs:
        keys = sorted(set(ours) | set(theirs), key=str)
        diff = ["%s: mctrace %s, uftrace %s" % (k, ours.get(k), theirs.get(k))
                for k in keys if ours.get(k) != theirs.get(k)]
        fail("%s differ: %s" % (what, "; ".join(diff[:10])))
    if not ours:
        fail("%s: none in either" % what)


def check_report(uf, mc, key=None):
    compare("calls per function", spelled_keys(report_calls(mc)),
            spelled_keys(report_calls(uf)))
    if key is None:
        return
    rows = report_rows(mc)
    value = {"total": lambda r: -r[0], "self": lambda r: -r[1],
             "calls": lambda r: -r[2], "call": lambda r: -r[2],
             "name": lambda r: r[3], "func": lambda r: r[3]}[key]
    for a, b in zip(rows, rows[1:]):
        if value(a) > value(b):
            fail("-s %s: %s before %s" % (key, a, b))


def check_within(mc, inner, outer):
    rows = {r[3]: r for r in report_rows(mc)}
    if inner not in rows or outer not in rows:
        fail("%s or %s not in the report" % (inner, outer))
    # the report prints 5 digits: allow the last one's rounding
    if rows[inner][0] > rows[outer][0] * 1.001:
        fail("%s's total %.0f ns is more than %s's %.0f ns" % (
            inner, rows[inner][0], outer, rows[outer][0]))


# ---- graph ----------------------------------------------------------------

def uftrace_graph(path, root=False):
    """{path tuple: calls} from `uftrace graph`, without its root.

    A node's column is that of its "(".  A line with "+-" is one of
    several children of the nearest node left of it; a line without is
    the only child of the line above, drawn in the same column."""
    tree = collections.Counter()
    stack = []          # (column, path)
    started = False
    with open(path) as f:
        for line in f:
            if "FUNCTION CALL GRAPH" in line:
                started = True
                continue
            if not started or " : " not in line:
                continue
            rest = line.split(" : ", 1)[1].rstrip("\n")
            m = re.search(r"\((\d+)\) (.+)$", rest)
            if not m:
                continue
            col, calls, name = m.start(), int(m.group(1)), m.group(2).strip()
            if "+-" in rest[:col]:
                while stack and stack[-1][0] >= col:
                    stack.pop()
            parent = stack[-1][1] if stack else None
            if parent is None:
                path = (name,) if root else ()
            else:
                path = parent + (name,)
            stack.append((col, path))
            if path:
                tree[path] += calls
    return tree


def mctrace_graph(path):
    """{path tuple: calls} from `mctrace graph`: TIME CALLS, then the
    name indented two spaces a level."""
    tree = collections.Counter()
    stack = []
    pat = re.compile(r"^\s*%s\s+(\d+)  ( *)(\S.*)$" % TIME)
    with open(path) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                continue
            depth = len(m.group(4)) // 2
            del stack[depth:]
            if len(stack) != depth:
                fail("%s: a node deeper than its parent's child: %s" %
                     (path, line.strip()))
            stack.append(m.group(5).strip())
            tree[tuple(stack)] += int(m.group(3))
    return tree


def check_graph(uf, mc):
    compare("graph paths (calls)", spelled_keys(mctrace_graph(mc)),
            spelled_keys(uftrace_graph(uf)))


def check_graphthreads(mc, *ufs):
    """`graph --threads`: each "# tid N" part's tree is one of uftrace
    graph --tid's (UF...), and every one is matched."""
    with open(mc) as f:
        parts = re.split(r"(?m)^# tid \d+.*$", f.read())[1:]
    ours = []
    for i, part in enumerate(parts):
        with open("%s.%d" % (mc, i), "w") as f:
            f.write(part)
        ours.append(sorted(mctrace_graph("%s.%d" % (mc, i)).items()))
    theirs = [sorted(uftrace_graph(u).items()) for u in ufs]
    if sorted(ours) != sorted(theirs) or not ours:
        fail("per-thread trees differ: mctrace %s; uftrace %s" % (
            sorted(ours)[:3], sorted(theirs)[:3]))


def uftrace_backtraces(path):
    """{path: hits} of `uftrace graph FUNC`'s backtraces."""
    got, cur, hits = collections.Counter(), None, 0
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*backtrace #\d+: hit (\d+)", line)
            if m:
                cur, hits = [], int(m.group(1))
                continue
            m = re.match(r"^\s*\[\d+\] (\S+)", line)
            if m and cur is not None:
                cur.append(m.group(1))
                continue
            if cur:
                got[tuple(cur)] += hits
            cur = None
    return got


def mctrace_callers(path):
    """{path: calls} of `mctrace graph FUNC`'s callers: TIME CALLS a > b."""
    got = collections.Counter()
    pat = re.compile(r"^\s*%s\s+(\d+)  (\S.* > .*|\S+)$" % TIME)
    part = None
    with open(path) as f:
        for line in f:
            if line.startswith("# callers of"):
                part = True
            elif line.startswith("# calls of"):
                part = False
            m = pat.match(line.rstrip("\n"))
            if part and m:
                got[tuple(m.group(4).split(" > "))] += int(m.group(3))
    return got


def check_graphfunc(uf, mc):
    """`graph FUNC`: the same callers' paths, then the same tree."""
    compare("callers' paths (calls)", mctrace_callers(mc),
            uftrace_backtraces(uf))
    with open(mc) as f:
        text = f.read()
    tree = text[text.index("# calls of"):] if "# calls of" in text else ""
    with open(mc + ".tree", "w") as f:
        f.write(tree)
    compare("graph paths from FUNC (calls)", mctrace_graph(mc + ".tree"),
            uftrace_graph(uf, root=True))


# ---- replay ---------------------------------------------------------------

def replay_threads(path, ours):
    """{tid: [(depth, name)]} of every call's entry, in order; and, for
    ours, the timestamps of the lines in order."""
    threads = collections.defaultdict(list)
    times = []
    pat = re.compile(r"^(.*?)\[\s*(\d+)\] \| ?(.*)$")
    with open(path) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                continue
            head, tid, text = m.group(1), int(m.group(2)), m.group(3)
            depth = (len(text) - len(text.lstrip(" "))) // 2
            text = text.strip()
            if ours:
                ts = head.split()
                if not ts:
                    fail("%s: no timestamp: %s" % (path, line.strip()))
                times.append(float(ts[0]))
            e = re.match(r"^(.+)\(\)( \{|;)$", text)
            if e:
                threads[tid].append((depth, spelling(e.group(1))))
            elif not re.match(r"^\} /\* .+ \*/$", text):
                fail("%s: not a call: %s" % (path, line.strip()))
    return threads, times


def check_replay(uf, mc):
    theirs, _ = replay_threads(uf, False)
    ours, times = replay_threads(mc, True)
    a = sorted(ours.values())
    b = sorted(theirs.values())
    if a != b:
        for x, y in zip(a, b):
            if x != y:
                n = next(i for i in range(min(len(x), len(y)) + 1)
                         if i == min(len(x), len(y)) or x[i] != y[i])
                fail("a thread's calls differ at call %d: mctrace %s, "
                     "uftrace %s" % (n, x[n:n + 3], y[n:n + 3]))
        fail("%d threads in mctrace's replay, %d in uftrace's" % (
            len(a), len(b)))
    if not a:
        fail("no calls in either replay")
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            fail("mctrace's replay goes back in time at line %d: %s < %s" %
                 (i, times[i], times[i - 1]))


# ---- report --threads and --diff -------------------------------------------

def report_by_thread(path):
    """`report --threads`: a "# ... tid N" line heads each thread's rows."""
    by = collections.defaultdict(dict)
    tid = None
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        m = re.match(r"^#.*\btid (\d+)", line)
        if m:
            tid = int(m.group(1))
            continue
        rows = report_rows_text(line)
        if rows and tid is not None:
            by[tid][rows[3]] = rows[2]
    return by


def report_rows_text(line):
    m = re.match(r"^\s*%s\s+%s\s+(\d+)\s+(\S.*)$" % (TIME, TIME), line)
    if not m:
        return None
    return (0, 0, int(m.group(5)), m.group(6).strip())


def check_threads(mc, *ufs):
    ours = sorted(sorted(d.items()) for d in report_by_thread(mc).values())
    theirs = sorted(sorted(report_calls(u).items()) for u in ufs)
    if ours != theirs:
        fail("per-thread calls differ: mctrace %s; uftrace %s" % (
            ours, theirs))


def check_diff(mc, uf_a, uf_b):
    a, b = report_calls(uf_a), report_calls(uf_b)
    want = {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b)}
    got = {}
    pat = re.compile(r"^\s*(\S+ \S+)\s+(\S+ \S+)\s+(\d+)\s+([+-]\d+)\s+(\S.*)$")
    with open(mc) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if m:
                got[m.group(5).strip()] = int(m.group(4))
    compare("changes in calls", got, want)


# ---- filters on `dump --raw` -----------------------------------------------

def raw_calls(path):
    """{tid: [[start, end, depth, name]]} in order of entry."""
    threads = collections.defaultdict(list)
    open_ = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            tid, ts, kind, depth, name = line.split(None, 4)
            tid, ts, depth = int(tid), int(ts), int(depth)
            if kind == "E":
                c = [ts, None, depth, name.strip()]
                threads[tid].append(c)
                open_[tid].append(c)
            else:
                open_[tid].pop()[1] = ts
    return threads


def keep_rebased(calls, keep):
    """The calls `keep` takes, each at the depth of its kept callers."""
    out, stack = [], []   # stack: (depth, kept) of the open callers
    for c in calls:
        while stack and stack[-1][0] >= c[2]:
            stack.pop()
        k = keep(c)
        if k:
            out.append([c[0], c[1], sum(1 for s in stack if s[1]), c[3]])
        stack.append((c[2], k))
    return out


def check_rawfilter(raw, filtered, how, arg):
    whole, got = raw_calls(raw), raw_calls(filtered)
    if how == "tid":
        want = {int(arg): whole[int(arg)]}
    elif how == "range":
        lo, hi = (int(x) for x in arg.split("~"))
        want = {t: keep_rebased(c, lambda c: lo <= c[0] <= hi)
                for t, c in whole.items()}
    elif how == "min":
        want = {t: keep_rebased(c, lambda c: c[1] - c[0] >= int(arg))
                for t, c in whole.items()}
    else:
        fail("no filter %s" % how)
    want = {t: c for t, c in want.items() if c}
    if dict(got) != want:
        for t in sorted(set(got) | set(want)):
            if got.get(t) != want.get(t):
                g, w = got.get(t, []), want.get(t, [])
                fail("tid %d: %d calls kept, %d wanted; first apart: %s, %s"
                     % (t, len(g), len(w),
                        next((x for x in g if x not in w), None),
                        next((x for x in w if x not in g), None)))
    if not want or sum(len(c) for c in want.values()) == \
            sum(len(c) for c in whole.values()):
        fail("the filter %s %s keeps all or nothing: not a test" % (how, arg))


# ---- info -----------------------------------------------------------------

def check_info(path, *pairs):
    seen = {}
    with open(path) as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                seen[k.strip().lstrip("#").strip()] = v.strip()
    for p in pairs:
        k, v = p.split("=", 1)
        if v.startswith("@@"):
            v = str(2 * sum(report_calls(v[2:]).values()))
        elif v.startswith("@"):
            v = str(sum(report_calls(v[1:]).values()))
        if seen.get(k) != v:
            fail("%s: %r, not %r" % (k, seen.get(k), v))


MCT_INFO = 8


def check_infoblock(src, dst, *strings):
    """Blocks: u32 kind, u32 tid, u64 bytes, then the payload, after a
    24-byte header (recorder/format.h)."""
    with open(src, "rb") as f:
        data = f.read()
    out, at = [data[:24]], 24
    pid = struct.unpack_from("<I", data, 8)[0]
    while at + 16 <= len(data):
        kind, _, size = struct.unpack_from("<IIQ", data, at)
        if kind != MCT_INFO:
            out.append(data[at:at + 16 + size])
        at += 16 + size
    if strings:
        payload = b"".join(s.encode() + b"\0" for s in strings)
        out.append(struct.pack("<IIQ", MCT_INFO, pid, len(payload)) + payload)
    with open(dst, "wb") as f:
        f.write(b"".join(out))


def check_infocut(src, dst, info_out):
    """Cut `src` 8 bytes into the header of its middle block: `mctrace
    info` of the copy must say the blocks before it were read and 8
    bytes cut short at the end."""
    with open(src, "rb") as f:
        data = f.read()
    starts, at = [], 24
    while at + 16 <= len(data):
        starts.append(at)
        at += 16 + struct.unpack_from("<IIQ", data, at)[2]
    mid = len(starts) // 2
    if mid < 1:
        fail("%s: too few blocks to cut" % src)
    with open(dst, "wb") as f:
        f.write(data[:starts[mid] + 8])
    out = subprocess.run([info_out, "info", dst], capture_output=True,
                         text=True)
    if out.returncode != 0:
        fail("mctrace info %s: exit %d: %s" % (dst, out.returncode,
                                               out.stderr.strip()))
    with open(dst + ".info", "w") as f:
        f.write(out.stdout)
    check_info(dst + ".info", "blocks read=%d" % mid,
               "cut short=8 bytes at the end")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"report": check_report, "graph": check_graph, "replay": check_replay,
     "threads": check_threads, "diff": check_diff, "within": check_within,
     "rawfilter": check_rawfilter, "info": check_info,
     "infoblock": check_infoblock, "graphfunc": check_graphfunc,
     "graphthreads": check_graphthreads, "infocut": check_infocut}[cmd](*args)


if __name__ == "__main__":
    main()
