#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""check.py - the trace suite's oracles (tests/trace/run.sh).

  check.py json FILE [MIN_TIDS]    trace-event JSON: it parses; every event
                                   has ph, pid, tid, ts (a number, in us);
                                   per thread, B/E nest with matching names
                                   (X events have dur >= 0) and ts never
                                   goes back; at least MIN_TIDS threads
  check.py counts RAW COUNTS NM FUNC...   calls per function in `mctrace
                                   dump --raw` output equal the
                                   -finstrument-functions counter's (its
                                   addresses named through `nm`)
  check.py named RAW COUNTS FUNC... the same, the counter naming each
                                   function itself (dlcounter.c: NAME COUNT)
  check.py depth RAW N [most]      some call is N deep (and none deeper)
  check.py edges RAW EDGES NM FUNC... among the FUNCs, each function's
                                   calls by caller in RAW equal the
                                   counter's (counter.c's EDGES: the
                                   caller is the function nm places
                                   the call's return address in)
  check.py svg FILE                well-formed XML whose root is <svg>
  check.py flame SVG COUNTS NM FUNC...
                                   mctrace's flame graph: well-formed XML
                                   (xml.etree), a frame of the root's
                                   width, each frame's <title> its name
                                   and a line of its calls, time and
                                   share; per name, the frames' calls sum
                                   to the -finstrument-functions
                                   counter's (as counts); each rect lies
                                   within its parent's (the last frame a
                                   row below), its children's widths add
                                   up to no more; and a script is there
  check.py flamedom DOM FOLDED ZOOM QUERY
                                   the SVG as chromium's --dump-dom shows
                                   it, opened at #zoom=ZOOM&s=QUERY: the
                                   widest ZOOM frame fills the root's
                                   width, what shows is it, its callers
                                   (full width) and the frames above it
                                   (scaled, within it), the rest hidden;
                                   the frames matching QUERY (a regex)
                                   and only those are coloured; and the
                                   matched share is the FOLDED stacks'
                                   (`mctrace dump --folded`): the self
                                   time of every stack with a match
  check.py uftrace RAW REPLAY      the same calls, with the same callers,
                                   as `uftrace replay -f none` shows
  check.py compact DATA RAW MAX_BYTES
                                   the own-format file, decoded here from
                                   recorder/format.h's description: each
                                   exit's tag is its entry's function's,
                                   the calls, nesting, names and times
                                   are `mctrace dump --raw`'s, and the
                                   file is at most MAX_BYTES a call
  check.py damage DATA OUT HOW     a copy of DATA with one fault: HOW is
                                   version (the magic says version 1),
                                   count (the first event block claims
                                   one event more) or tag (its first
                                   exit names another function)
  check.py cuts DATA MCTRACE WORK  DATA cut at 8 bytes, at half, 8 bytes
                                   short and at every block's end, and
                                   with one block of events damaged (its
                                   kind, its size, an event): MCTRACE
                                   dump --raw reads each with exit 0,
                                   says the bytes lost or the damage in
                                   one line on stderr, and shows the
                                   calls of every whole block, decoded
                                   here (with times, cut: as compact)
  check.py proccuts DATA MCTRACE WORK
                                   DATA, a trace of two processes (the
                                   second an MCT_PROCESS block), whole
                                   and cut in that block's header, in
                                   its payload's middle and 8 bytes
                                   short: MCTRACE reads each with exit 0,
                                   says a loss in one line if cut, and
                                   shows per process (--pid) the calls
                                   of that process's whole blocks,
                                   decoded here
  check.py nolost DATA ERR REPORT COUNTS NM FUNC...
                                   no call lost: DATA's MCT_LOST and
                                   MCT_LOST_WHY blocks all zero, the
                                   recorder's stderr ERR silent on it,
                                   and `mctrace report` REPORT's calls of
                                   each FUNC the counter's
  check.py gpr DISASM ROOT... [--calls F...] [--noreturn F...]
                [--returns F...]   in `objdump -dr` output, no function
                                   reached from the ROOTs names a vector,
                                   x87 or MMX register, jumps or calls
                                   through a register, or calls out of the
                                   object except to --calls (which keep
                                   the vector registers) and --noreturn
                                   functions (not followed); a --returns
                                   function (a ROOT too) may jump through
                                   a register: its way back to its caller
  check.py lost DATA RAW COUNTS OUT REASON [N]
                                   every call the counter saw (COUNTS of
                                   -finstrument-functions, any function)
                                   is either an entry in RAW or counted
                                   lost in DATA's MCT_LOST_WHY blocks
                                   (decoded here); REASON's count is not
                                   0 (is N, if given); and OUT (mctrace's
                                   report, the recorder's stderr) names
                                   each count with its reason (.json:
                                   in otherData, by key)
  check.py lostjson JSON REASON [N] the recorder's JSON's otherData: some
                                   (N) calls lost for REASON, and
                                   lost_calls their sum over reasons
Exit 0 when it holds, else 1 with the reason on stdout.
"""
import bisect
import collections
import json
import re
import struct
import sys
import xml.dom.minidom
import xml.etree.ElementTree


CONTEXT = []     # what is being checked, said before a failure's reason


def fail(why):
    print(" ".join(CONTEXT + [why]))
    sys.exit(1)


def check_json(path, min_tids=1):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    stacks = collections.defaultdict(list)
    last = {}
    for e in events:
        for k in ("ph", "pid", "tid"):
            if k not in e:
                fail("event without %s: %r" % (k, e))
        if e["ph"] == "M":
            continue
        if not isinstance(e.get("ts"), (int, float)):
            fail("event without a numeric ts: %r" % e)
        key = (e["pid"], e["tid"])
        if e["ts"] < last.get(key, 0):
            fail("time goes back in thread %r: %r" % (key, e))
        if e["ph"] == "B":
            stacks[key].append(e["name"])
            last[key] = e["ts"]
        elif e["ph"] == "E":
            if not stacks[key] or stacks[key].pop() != e["name"]:
                fail("E without its B in thread %r: %r" % (key, e))
            last[key] = e["ts"]
        elif e["ph"] == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail("X event without a duration: %r" % e)
        else:
            fail("unexpected phase: %r" % e)
    open_ = {k: v for k, v in stacks.items() if v}
    if open_:
        fail("B events never ended: %r" % open_)
    if len(last) + 0 < int(min_tids) and all(
            e["ph"] != "X" for e in events):
        fail("%d threads, wanted %s" % (len(last), min_tids))
    tids = {(e["pid"], e["tid"]) for e in events if e["ph"] != "M"}
    if len(tids) < int(min_tids):
        fail("%d threads, wanted %s" % (len(tids), min_tids))


def raw_calls(path):
    counts = collections.Counter()
    with open(path) as f:
        for line in f:
            tid, ts, kind, depth, name = line.split(None, 4)
            if kind == "E":
                counts[name.strip()] += 1
    return counts


def counter_counts(counts_path, nm_path):
    """{function: calls} of counter.c's COUNTS, named through nm"""
    names = {}
    with open(nm_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTW":
                names[int(parts[0], 16)] = parts[2]
    want = collections.Counter()
    with open(counts_path) as f:
        for line in f:
            addr, n = line.split()
            a = int(addr, 16)   # (a Thumb function's has bit 0 set)
            want[names.get(a, names.get(a & ~1, addr))] += int(n)
    return want


def check_counts(raw, counts_path, nm_path, funcs):
    want = counter_counts(counts_path, nm_path)
    got = raw_calls(raw)
    bad = ["%s: recorded %d, counter %d" % (fn, got[fn], want[fn])
           for fn in funcs if got[fn] != want[fn]]
    if bad:
        fail("; ".join(bad))
    if not any(want[fn] for fn in funcs):
        fail("the counter saw none of %s" % " ".join(funcs))


def check_named(raw, counts_path, funcs):
    want = collections.Counter()
    with open(counts_path) as f:
        for line in f:
            name, n = line.split()
            want[name] += int(n)
    got = raw_calls(raw)
    bad = ["%s: recorded %d, counter %d" % (fn, got[fn], want[fn])
           for fn in funcs if got[fn] != want[fn]]
    if bad:
        fail("; ".join(bad))
    if not all(want[fn] for fn in funcs):
        fail("the counter missed some of %s" % " ".join(funcs))


def check_depth(raw, n, how="least"):
    deepest = 0
    with open(raw) as f:
        for line in f:
            deepest = max(deepest, int(line.split()[3]))
    if deepest < int(n) or (how == "most" and deepest > int(n)):
        fail("deepest call %d, wanted %s" % (deepest, n))


def counter_edges(edges_path, nm_path):
    """{(caller, callee): calls} of counter.c's EDGES, named through nm"""
    syms = []
    with open(nm_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    starts = [a for a, _ in syms]
    names = dict(syms)

    def containing(addr):
        i = bisect.bisect_right(starts, addr - 1) - 1
        return syms[i][1] if i >= 0 else hex(addr)
    want = collections.Counter()
    with open(edges_path) as f:
        for line in f:
            fn, site, n = line.split()
            a = int(fn, 16)     # (a Thumb function's has bit 0 set)
            callee = names.get(a, names.get(a & ~1, fn))
            # the site is a return address: the call is just before it
            want[(containing(int(site, 16)), callee)] += int(n)
    return want


def check_edges(raw, edges_path, nm_path, *funcs):
    want = counter_edges(edges_path, nm_path)
    got = edges_ours(raw)
    keep = set(funcs)
    want = {e: n for e, n in want.items() if e[0] in keep and e[1] in keep}
    got = {e: n for e, n in got.items() if e[0] in keep and e[1] in keep}
    if want != got:
        diff = sorted(set(want) | set(got))
        fail("callers differ (caller, callee: recorded, counter): " +
             "; ".join("%s, %s: %d, %d" % (e[0], e[1], got.get(e, 0),
                                          want.get(e, 0))
                       for e in diff if got.get(e) != want.get(e))[:600])
    if not want:
        fail("the counter saw no call among %s" % " ".join(funcs))


def check_svg(path):
    doc = xml.dom.minidom.parse(path)
    if doc.documentElement.tagName != "svg":
        fail("root element is %s" % doc.documentElement.tagName)
    if not doc.getElementsByTagName("rect"):
        fail("no boxes drawn")


SVG = "{http://www.w3.org/2000/svg}"
FLAME_FIGURES = re.compile(r"^(\d+) calls?, (\d+\.\d{3}) us, (\d+\.\d\d)%$")
MATCH_FILL = "rgb(190,70,230)"


def flame_frames(path):
    """Frames in document order: name, calls, x, width, y, fill, shown."""
    try:
        doc = xml.etree.ElementTree.parse(path).getroot()
    except xml.etree.ElementTree.ParseError as e:
        fail("%s: not well-formed: %s" % (path, e))
    frames = []
    for g in doc.iter(SVG + "g"):
        if g.get("class") != "f":
            continue
        title = g.find(SVG + "title").text or ""
        name, _, figures = title.rpartition("\n")
        m = FLAME_FIGURES.match(figures)
        if not name or not m:
            fail("frame title %r: not a name, then calls, us, %%" % title)
        rect = g.find(SVG + "rect")
        frames.append(dict(name=name, calls=int(m.group(1)),
                           x=float(rect.get("x")), w=float(rect.get("width")),
                           y=float(rect.get("y")), fill=rect.get("fill"),
                           shown=g.get("display") != "none"))
    if not frames:
        fail("%s: no frames" % path)
    return doc, frames


def within(inner, outer):
    return (inner["x"] >= outer["x"] - 1e-6 and
            inner["x"] + inner["w"] <= outer["x"] + outer["w"] + 1e-6)


def check_flame(path, counts_path, nm_path, *funcs):
    doc, frames = flame_frames(path)
    scripts = [s for s in doc.iter(SVG + "script") if (s.text or "").strip()]
    if len(scripts) != 1:
        fail("%d scripts, not 1" % len(scripts))
    root = frames[0]
    if root["name"] != "all" or any(f["y"] >= root["y"] for f in frames[1:]):
        fail("the first frame is not the root on the bottom row")
    # rows from the bottom; in preorder, a frame's parent is the last
    # frame seen a row below it
    rows = sorted({f["y"] for f in frames}, reverse=True)
    last, children_w = {}, collections.Counter()
    for i, f in enumerate(frames):
        depth = rows.index(f["y"])
        if i:
            parent = last.get(depth - 1)
            if parent is None:
                fail("%s: no parent a row below it" % f["name"])
            if not within(f, parent):
                fail("%s at x %g, %g wide, outside its parent %s (%g, %g)" %
                     (f["name"], f["x"], f["w"], parent["name"], parent["x"],
                      parent["w"]))
            children_w[id(parent)] += f["w"]
            if children_w[id(parent)] > parent["w"] + 1e-6:
                fail("the children of %s are wider than it" % parent["name"])
        last[depth] = f
    got = collections.Counter()
    for f in frames[1:]:
        got[f["name"]] += f["calls"]
    want = counter_counts(counts_path, nm_path)
    bad = ["%s: %d calls in frames, counter %d" % (fn, got[fn], want[fn])
           for fn in funcs if got[fn] != want[fn]]
    if bad:
        fail("; ".join(bad))
    if not any(want[fn] for fn in funcs):
        fail("the counter saw none of %s" % " ".join(funcs))


def check_flame_dom(path, folded_path, zoom, query):
    doc, frames = flame_frames(path)
    root = frames[0]
    z = max((f for f in frames if f["name"] == zoom), key=lambda f: f["w"])
    if abs(z["w"] - root["w"]) > 0.02 or abs(z["x"] - root["x"]) > 0.02:
        fail("%s zoomed into: at x %g, %g wide, not the root's %g, %g" %
             (zoom, z["x"], z["w"], root["x"], root["w"]))
    shown = [f for f in frames if f["shown"]]
    for f in shown:
        caller = f["y"] > z["y"] and abs(f["w"] - root["w"]) < 0.02
        if not caller and not (f["y"] <= z["y"] and within(f, z)):
            fail("%s shown, neither a caller of %s nor within it" %
                 (f["name"], zoom))
    if len(shown) == len(frames):
        fail("no frame hidden when zoomed into %s" % zoom)
    matches = re.compile(query).search
    for f in frames[1:]:
        if (f["fill"] == MATCH_FILL) != bool(matches(f["name"])):
            fail("%s: fill %s, matches %r: %s" % (f["name"], f["fill"],
                 query, bool(matches(f["name"]))))
    matched = total = 0
    with open(folded_path) as fold:
        for line in fold:
            stack, ns = line.rsplit(None, 1)
            total += int(ns)
            if any(matches(name) for name in stack.split(";")):
                matched += int(ns)
    said = [t.text for t in doc.iter(SVG + "text") if t.get("id") == "matched"]
    m = re.match(r"^Matched: (\d+\.\d\d)%$", said[0] or "") if said else None
    if not m or abs(float(m.group(1)) - 100.0 * matched / total) > 0.02:
        fail("the script says %r; the folded stacks, %.2f%%" %
             (said, 100.0 * matched / total))


def edges_ours(raw):
    edges = collections.Counter()
    stacks = collections.defaultdict(list)
    with open(raw) as f:
        for line in f:
            tid, ts, kind, depth, name = line.split(None, 4)
            name = name.strip()
            st = stacks[tid]
            if kind == "E":
                edges[(st[-1] if st else "", name)] += 1
                st.append(name)
            else:
                st.pop()
    return edges


def edges_uftrace(path):
    """`uftrace replay -f none`: `name() {`, `name();`, `} /* name */`."""
    edges = collections.Counter()
    stack = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            m = re.match(r"^\[\d+\]\s*\|?\s*", s)  # tid prefix, if any
            if m:
                s = s[m.end():]
            if s.startswith("}"):
                if stack:
                    stack.pop()
                continue
            m = re.match(r"^([\w.:~<>]+)\(\)\s*(\{|;)$", s)
            if not m:
                continue
            name = m.group(1)
            edges[(stack[-1] if stack else "", name)] += 1
            if m.group(2) == "{":
                stack.append(name)
    return edges


def check_uftrace(raw, replay):
    ours, theirs = edges_ours(raw), edges_uftrace(replay)
    if ours != theirs:
        diff = sorted(set(ours.items()) ^ set(theirs.items()))
        fail("call graphs differ (caller, callee): count: ours %s, "
             "uftrace's %s" % (
                 [d for d in diff if d in ours.items()][:8],
                 [d for d in diff if d in theirs.items()][:8]))


def disassembly(path):
    """{function: [(instruction, relocation symbol or None)]}"""
    funcs, cur = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = re.match(r"^\s+[0-9a-f]+: (R_\w+)\s+([^+\-\s]+)", line)
        if m and cur:
            cur[-1] = (cur[-1][0], m.group(2))
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
        if m:
            cur.append((m.group(1).strip(), None))
    return funcs


BRANCH = re.compile(r"^(?:notrack\s+|bnd\s+)?(call|jmp|j[a-z]+)\s+(.*)$")
VECTOR = re.compile(r"%(?:[xyz]mm\d|st\b|st\(|mm\d|k[0-7]\b)")


def check_gpr(path, *args):
    roots, calls, noreturn, returns, into = [], set(), set(), set(), None
    for a in args:
        if a in ("--calls", "--noreturn", "--returns"):
            into = {"--calls": calls, "--noreturn": noreturn,
                    "--returns": returns}[a]
        elif into is None:
            roots.append(a)
        else:
            into.add(a)
    roots += sorted(returns)
    funcs = disassembly(path)
    seen, todo, bad = set(), list(roots), []
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        if f not in funcs:
            bad.append("%s: not in the object" % f)
            continue
        for insn, reloc in funcs[f]:
            if VECTOR.search(insn):
                bad.append("%s: %s" % (f, insn))
            m = BRANCH.match(insn)
            if not m:
                continue
            if m.group(2).startswith("*"):
                if m.group(1) != "jmp" or f not in returns:
                    bad.append("%s: through a register: %s" % (f, insn))
                continue
            t = reloc
            if t is None:
                n = re.search(r"<([^>+]+)(\+0x[0-9a-f]+)?>", m.group(2))
                t = n.group(1) if n else None
            if t is None or t == f:
                continue
            if t in calls or t in noreturn:
                continue
            if t in funcs:
                todo.append(t)
            else:
                bad.append("%s: calls %s, which may use any register" %
                           (f, t))
    if bad:
        fail("not general registers only:\n  " + "\n  ".join(bad[:12]))
    print("general registers only: %s" % " ".join(sorted(seen)))


MAGIC = b"MCTRACE2"
OP_NEW, OP_SLOT0 = 0x10, 0x11


def exit_tag(func):
    return ((func * 0x9E3779B97F4A7C15) % (1 << 64)) >> 60


def blocks(data):
    """(offset of the payload, kind, tid, payload) of each whole block"""
    at = 24                             # struct mct_header
    while at + 16 <= len(data):
        kind, tid, n = struct.unpack_from("<IIQ", data, at)
        if at + 16 + n > len(data):
            break
        yield at + 16, kind, tid, data[at + 16:at + 16 + n]
        at += 16 + n


def leb(p, i, minimal=False):
    v = shift = 0
    start = i
    while True:
        b = p[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            if minimal and b == 0 and i - start > 1:
                fail("a delta in %d bytes where %d hold it"
                     % (i - start, i - start - 1))
            return v, i


def decode(p):
    """[(kind 'E'/'X', ticks, address or tag)] of one MCT_EVENTS payload"""
    ticks, count, flags = struct.unpack_from("<QII", p, 0)
    i, slots, out = 16, [], []
    for _ in range(count):
        op = p[i]
        i += 1
        if op < 0x10:
            ev = ("X", op)
        elif op == OP_NEW:
            a = struct.unpack_from("<Q", p, i)[0]
            i += 8
            if a in slots:
                fail("0x%x's address written again in one block, where "
                     "its slot names it" % a)
            if len(slots) < 0x100 - OP_SLOT0:
                slots.append(a)
            ev = ("E", a)
        else:
            ev = ("E", slots[op - OP_SLOT0])
        zz, i = leb(p, i, True)
        ticks = (ticks + (-(zz >> 1) - 1 if zz & 1 else zz >> 1)) % (1 << 64)
        out.append((ev[0], ticks, ev[1]))
    if i != len(p) or flags:
        fail("an event block does not end where its %d events do" % count)
    return out


def check_compact(path, raw):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != MAGIC:
        fail("magic %r, not %r" % (data[:8], MAGIC))
    names, events, clk = {}, collections.defaultdict(list), (0, 0, 0, 0)
    for _, kind, tid, p in blocks(data):
        if kind == 1:
            events[tid] += decode(p)
        elif kind == 2:
            names[struct.unpack_from("<Q", p)[0]] = p[8:].decode()
        elif kind == 4:
            c = struct.unpack("<4Q", p)
            if c[2] > c[0] or not clk[0]:
                clk = c
    ratio = (clk[3] - clk[1]) / (clk[2] - clk[0]) if clk[2] > clk[0] else 1.0

    def name(a):
        return names.get(a) or "0x%x" % a

    want = collections.defaultdict(list)
    for tid, evs in events.items():
        stack, last = [], 0
        for kind, ticks, f in evs:
            ns = int(float(ticks - clk[0]) * ratio) if ticks > clk[0] else 0
            last = ns = max(ns, last)
            if kind == "E":
                want[tid].append("%d %d E %d %s" % (tid, ns, len(stack),
                                                     name(f)))
                stack.append(f)
            elif not stack or exit_tag(stack[-1]) != f:
                fail("thread %d: an exit tagged %d, its entry's function "
                     "%s" % (tid, f, stack and name(stack[-1])))
            else:
                g = stack.pop()
                want[tid].append("%d %d X %d %s" % (tid, ns, len(stack),
                                                     name(g)))
        while stack:
            g = stack.pop()
            want[tid].append("%d %d X %d %s" % (tid, last, len(stack),
                                                 name(g)))
    got = collections.defaultdict(list)
    with open(raw) as f:
        for line in f:
            got[int(line.split()[0])].append(line.rstrip("\n"))
    for tid in set(want) | set(got):
        if want[tid] != got[tid]:
            diff = [(a, b) for a, b in zip(want[tid], got[tid]) if a != b]
            fail("thread %d: decoded %d lines, the dump has %d; first "
                 "difference %r" % (tid, len(want[tid]), len(got[tid]),
                                     diff[:1]))
    # How many bytes a call takes depends on the time between events (a
    # delta's length): a benchmark's figure (make bench-trace), not a
    # test's.  decode() has checked that each is as short as it can be.
    calls = sum(1 for evs in events.values() for e in evs if e[0] == "E")
    if not calls:
        fail("no calls in %s" % path)


def check_damage(path, out, how):
    data = bytearray(open(path, "rb").read())
    if how == "version":
        data[:8] = b"MCTRACE1"
    elif how == "count":
        at, p = next((at, p) for at, kind, _, p in blocks(data)
                     if kind == 1)
        struct.pack_into("<I", data, at + 8,
                         struct.unpack_from("<I", p, 8)[0] + 1)
    else:           # tag: the first exit's op, in whichever block has one
        for at, kind, _, p in blocks(data):
            if kind != 1:
                continue
            i = 16
            while i < len(p) and p[i] >= 0x10:
                i += 1 + (8 if p[i] == OP_NEW else 0)
                _, i = leb(p, i)
            if i < len(p):
                data[at + i] = (p[i] + 1) % 16
                break
        else:
            fail("no exit event in %s to damage" % path)
    with open(out, "wb") as f:
        f.write(data)


def block_ends(data):
    """the offset after the header, then after each whole block"""
    return [24] + [at + len(p) for at, _, _, p in blocks(data)]


def entries(data, skip=None):
    """entries per function name in DATA's whole blocks (all but the
    block whose payload starts at SKIP); unnamed ones as 0x<address>"""
    names, counts = {}, collections.Counter()
    for at, kind, _, p in blocks(data):
        if kind == 2 and at != skip:
            names[struct.unpack_from("<Q", p)[0]] = p[8:].decode()
    for at, kind, _, p in blocks(data):
        if kind == 1 and at != skip:
            counts.update(f for k, _, f in decode(p) if k == "E")
    return collections.Counter({names.get(a) or "0x%x" % a: n
                                for a, n in counts.items()})


def read_with(mct, path, raw):
    """mctrace dump --raw PATH > RAW: (exit status, stderr lines)"""
    import subprocess
    with open(raw, "w") as out:
        r = subprocess.run([mct, "dump", "--raw", path], stdout=out,
                           stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stderr.splitlines()


def check_cut(mct, data, n, work):
    """DATA cut to N bytes: read with exit 0, its whole blocks' events
    (times and names too) as decoded here, and the bytes lost said in
    one line"""
    cut = "%s/cut-%d.data" % (work, n)
    with open(cut, "wb") as f:
        f.write(data[:n])
    CONTEXT[:] = ["cut at %d of %d bytes:" % (n, len(data))]
    rc, err = read_with(mct, cut, cut + ".raw")
    whole = max(e for e in block_ends(data[:n]) if e <= n) if n >= 24 else 0
    lost = [line for line in err if "cut short" in line]
    if rc != 0:
        fail("exit %d: %s" % (rc, err))
    if n > whole and (len(lost) != 1 or ("%d bytes" % (n - whole))
                      not in lost[0]):
        fail("stderr does not say the %d bytes lost in one line: %s"
             % (n - whole, err))
    if n == whole and lost:
        fail("whole blocks, yet stderr says %s" % lost)
    clocks = [struct.unpack("<4Q", p) for _, kind, _, p in blocks(data[:n])
              if kind == 4]
    if any(c[2] > c[0] for c in clocks) and \
            any("no clock calibration" in line for line in err):
        fail("a whole MCT_CLOCK kept, yet stderr says %s" % err)
    if entries(data[:n]):
        check_compact(cut, cut + ".raw")
    elif open(cut + ".raw").read():
        fail("no whole block of events, but the dump shows calls")


def damage_block(data, how):
    """DATA with its middle MCT_EVENTS block damaged: (copy, the
    block's payload offset)"""
    evs = [at for at, kind, _, _ in blocks(data) if kind == 1]
    if len(evs) < 3:
        fail("under 3 event blocks to damage one among")
    at, out = evs[len(evs) // 2], bytearray(data)
    if how == "kind":
        struct.pack_into("<I", out, at - 16, 0)
    elif how == "size":
        struct.pack_into("<Q", out, at - 8, 1 << 40)
    else:           # events: a slot no event has named, first
        out[at + 16] = 0xff
    return bytes(out), at


def check_damaged(mct, data, how, work):
    """a block damaged (HOW: kind, size, events) is skipped and said in
    one line, exit 0, and every other block's calls are read"""
    bad, skip = damage_block(data, how)
    path = "%s/damaged-%s.data" % (work, how)
    with open(path, "wb") as f:
        f.write(bad)
    CONTEXT[:] = ["a damaged %s:" % how]
    rc, err = read_with(mct, path, path + ".raw")
    said = [line for line in err if "damaged" in line]
    if rc != 0 or len(said) != 1 or "1 stretch" not in said[0]:
        fail("exit %d, stderr %s" % (rc, err))
    want, got = entries(data, skip), raw_calls(path + ".raw")
    if want != got:
        fail("calls %s, not %s" % (sorted(got.items()),
                                   sorted(want.items())))


def check_cuts(data_path, mct, work):
    """check_cut at 8 bytes, half, 8 bytes short of the end and every
    block's end; check_damaged each way"""
    with open(data_path, "rb") as f:
        data = f.read()
    for n in sorted(set([8, len(data) // 2, len(data) - 8] +
                        block_ends(data))):
        check_cut(mct, data, n, work)
    for how in ("kind", "size", "events"):
        check_damaged(mct, data, how, work)


MCT_PROCESS = 9


def pid_calls(mct, path, pid, raw):
    """calls per name of process PID in PATH (mctrace dump --raw
    --pid), none if the trace has no such process"""
    import subprocess
    with open(raw, "w") as out:
        r = subprocess.run([mct, "dump", "--raw", "--pid", str(pid), path],
                           stdout=out, stderr=subprocess.PIPE, text=True)
    if r.returncode and "no such process" in r.stderr:
        return collections.Counter()
    if r.returncode:
        fail("dump --raw --pid %d: exit %d: %s" % (pid, r.returncode,
                                                   r.stderr))
    return raw_calls(raw)


def check_proccuts(data_path, mct, work):
    data = open(data_path, "rb").read()
    kids = [(at, tid, p) for at, kind, tid, p in blocks(data)
            if kind == MCT_PROCESS]
    if len(kids) != 1:
        fail("%d MCT_PROCESS blocks, not 1" % len(kids))
    at, kid, payload = kids[0]
    first = struct.unpack_from("<I", data, 8)[0]
    want_first = entries(data)
    if not want_first or not entries(payload):
        fail("a process with no calls: nothing to compare")
    # ... and where one of its own blocks ends: every block read is whole,
    # and yet the process's block is not (its size says so)
    inner = [off + len(p) for off, _, _, p in blocks(payload)]
    for n in (len(data), at - 8, at + len(payload) // 2, len(data) - 8,
              at + inner[len(inner) // 2]):
        cut = "%s/proccut-%d.data" % (work, n)
        with open(cut, "wb") as f:
            f.write(data[:n])
        CONTEXT[:] = ["cut at %d of %d bytes (process block at %d):"
                      % (n, len(data), at)]
        rc, err = read_with(mct, cut, cut + ".raw")
        lost = [line for line in err if "cut short" in line]
        if rc != 0 or len(lost) != (n < len(data)):
            fail("exit %d, stderr %s" % (rc, err))
        if lost and n > at and "process %d" % kid not in lost[0]:
            fail("the loss not said of process %d: %s" % (kid, lost))
        got = pid_calls(mct, cut, first, cut + ".first")
        if got != want_first:
            fail("first process: calls %s, not %s"
                 % (sorted(got.items()), sorted(want_first.items())))
        want = entries(payload[:max(0, n - at)]) if n - at >= 24 else {}
        got = pid_calls(mct, cut, kid, cut + ".kid")
        if got != want:
            fail("process %d: calls %s, not %s" % (
                kid, sorted(got.items()), sorted(want.items())))


# recorder/format.h's enum mct_lost_why, in order, as readers name them
LOST_WHY = ["buffers full", "shadow stack full", "return address not found",
            "on another stack"]


def json_key(why):
    return "lost_" + why.replace(" ", "_")


def check_lost_json(path, reason, n=None):
    other = json.load(open(path)).get("otherData", {})
    got = int(other.get(json_key(reason), 0))
    total = sum(int(other.get(json_key(w), 0)) for w in LOST_WHY)
    if not got or (n is not None and got != int(n)) or \
            int(other.get("lost_calls", -1)) != total:
        fail("%s: otherData %s: wanted %s %s" % (path, other,
                                                n or "some", reason))


def check_lost(data_path, raw, counts_path, out_path, reason, n=None):
    with open(data_path, "rb") as f:
        data = f.read()
    why = {}
    for _, kind, tid, p in blocks(data):
        if kind == 7:                   # MCT_LOST_WHY: the last counts
            why[tid] = struct.unpack("<%dQ" % (len(p) // 8), p)
    lost = [sum(v[k] for v in why.values() if k < len(v))
            for k in range(len(LOST_WHY))]
    with open(counts_path) as f:
        called = sum(int(line.split()[1]) for line in f)
    recorded = sum(raw_calls(raw).values())
    if recorded + sum(lost) != called:
        fail("%d calls recorded and %d lost (%s), but %d made" %
             (recorded, sum(lost), lost, called))
    k = LOST_WHY.index(reason)
    if not lost[k] or (n is not None and lost[k] != int(n)):
        fail("%d calls lost with %s (%s), wanted %s" %
             (lost[k], reason, lost, n or "some"))
    if out_path.endswith(".json"):
        other = json.load(open(out_path)).get("otherData", {})
        got = [int(other.get(json_key(w), -1)) for w in LOST_WHY]
        if got != lost or int(other.get("lost_calls", -1)) != sum(lost):
            fail("%s: otherData %s, not %s" % (out_path, other, lost))
        return
    with open(out_path) as f:
        out = f.read()
    missing = ["%d %s" % (c, LOST_WHY[i]) for i, c in enumerate(lost)
               if c and "%d %s" % (c, LOST_WHY[i]) not in out]
    if missing or "%d calls not recorded" % sum(lost) not in out:
        fail("%s does not say %d calls not recorded: %s" %
             (out_path, sum(lost), ", ".join(missing)))


def check_nolost(data_path, err_path, report, counts_path, nm_path, *funcs):
    with open(data_path, "rb") as f:
        data = f.read()
    lost = {}
    for _, kind, tid, p in blocks(data):
        if kind in (3, 7):              # MCT_LOST, MCT_LOST_WHY
            lost[kind, tid] = struct.unpack("<%dQ" % (len(p) // 8), p)
    if any(sum(v) for v in lost.values()):
        fail("%s: calls lost, by thread and reason: %s" % (data_path, lost))
    with open(err_path) as f:
        err = f.read()
    if "not recorded" in err:
        fail("%s: %s" % (err_path, err.strip()))
    want = counter_counts(counts_path, nm_path)
    got = collections.Counter()
    with open(report) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[-2].isdigit():
                got[parts[-1]] += int(parts[-2])
    bad = ["%s: recorded %d, counter %d" % (fn, got[fn], want[fn])
           for fn in funcs if got[fn] != want[fn] or not want[fn]]
    if bad:
        fail("; ".join(bad))


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"json": check_json, "counts": lambda r, c, n, *f: check_counts(
        r, c, n, f), "named": lambda r, c, *f: check_named(r, c, f),
     "depth": check_depth, "svg": check_svg, "edges": check_edges,
     "flame": check_flame, "flamedom": check_flame_dom,
     "uftrace": check_uftrace, "gpr": check_gpr,
     "compact": check_compact, "damage": check_damage,
     "lost": check_lost, "lostjson": check_lost_json,
     "cuts": check_cuts, "nolost": check_nolost,
     "proccuts": check_proccuts}[cmd](*args)


if __name__ == "__main__":
    main()
