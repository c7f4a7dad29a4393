#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""perfetto.py - a Perfetto trace that mctrace wrote, as `protoc
--decode=Trace tests/trace/perfetto.proto` prints it, held to the format
and to the -finstrument-functions counter (tests/trace/perfetto.sh).

  perfetto.py DECODED COUNTS EDGES NM MIN_THREADS FUNC...
  perfetto.py raw DECODED RAW
  perfetto.py wire DECODED
  perfetto.py process DECODED NAME ARG...
  perfetto.py procs DECODED NM COUNTS FUNCS [COUNTS FUNCS]...

The format: no field outside perfetto.proto (protoc prints those by
number); every packet on a sequence; a sequence's state cleared before
a packet needs it; every name_iid interned on its sequence since; every
event on a thread track described under a process track; per track,
every END closes a BEGIN and nothing is left open, and time never goes
back; at least MIN_THREADS thread tracks.  The calls: among the FUNCs,
BEGINs per function equal the counter's COUNTS and each function's
BEGINs by the slice it nests in equal the counter's EDGES (caller by
return address), counter.c's files named through nm.  With `raw`: the
format's rules, and each thread's slices begin and end as `mctrace dump
--raw` (RAW) has its calls enter and exit, in the same order, with the
same names, at the same times but for one offset (the clock's origin).
With `wire`: pbcheck.c's packets, decoded, hold its values and lengths.
With `process`: the one process track is named NAME, its command line
the ARGs.  With `procs`: one process track per COUNTS, in their order,
each thread track under the process track of its own pid, and the
slices of each process's threads per function (of FUNCS, a comma-
separated list) the counts of its counter file COUNTS.
Exit 0 when it holds, else 1 with the reason on stdout.
"""
import codecs
import collections
import re
import sys

import check

CLEARED, NEEDS = 1, 2


def parse(path):
    """protoc's text format as nested {field: [values]}"""
    root = collections.defaultdict(list)
    stack = [root]
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s:
                continue
            if re.match(r"^\d", s):
                check.fail("line %d: a field perfetto.proto does not "
                           "state: %s" % (n, s))
            m = re.match(r"^(\w+) \{$", s)
            if m:
                child = collections.defaultdict(list)
                stack[-1][m.group(1)].append(child)
                stack.append(child)
            elif s == "}":
                stack.pop()
            else:
                m = re.match(r"^(\w+): (.*)$", s)
                if not m:
                    check.fail("line %d: not protoc's text: %s" % (n, s))
                v = m.group(2)
                if v.startswith('"'):
                    v = codecs.escape_decode(v[1:-1])[0].decode()
                stack[-1][m.group(1)].append(v)
    return root["packet"]


def one(msg, field, default=None):
    v = msg.get(field, [])
    return v[0] if v else default


def tracks(packets):
    """{uuid: thread track's pid/tid} after checking the descriptors"""
    procs, threads = set(), {}
    for p in packets:
        for d in p.get("track_descriptor", []):
            uuid = int(one(d, "uuid", 0))
            if not uuid or uuid in procs or uuid in threads:
                check.fail("track uuid %d missing or not unique" % uuid)
            if "process" in d:
                procs.add(uuid)
            elif "thread" in d:
                threads[uuid] = (one(d["thread"][0], "pid"),
                                 one(d["thread"][0], "tid"),
                                 int(one(d, "parent_uuid", 0)))
    for uuid, (pid, tid, parent) in threads.items():
        if parent not in procs or not tid:
            check.fail("thread track %d: tid %s, parent %d not a process "
                       "track" % (uuid, tid, parent))
    return threads


class Sequence:
    def __init__(self):
        self.valid = False
        self.names = {}
        self.track = None


def event_name(seq, p, ev):
    if "name" in ev:
        return one(ev, "name")
    iid = int(one(ev, "name_iid", 0))
    if iid not in seq.names:
        check.fail("name_iid %d not interned on sequence %s (at %s)" %
                   (iid, one(p, "trusted_packet_sequence_id"),
                    one(p, "timestamp")))
    return seq.names[iid]


def sequence_step(seqs, p):
    """the packet's sequence, its state brought up to the packet's"""
    sid = one(p, "trusted_packet_sequence_id")
    if sid is None:
        check.fail("a packet on no sequence (at %s)" % one(p, "timestamp"))
    seq = seqs[sid]
    flags = int(one(p, "sequence_flags", 0))
    if flags & CLEARED:
        seq.valid, seq.names, seq.track = True, {}, None
    if flags & NEEDS and not seq.valid:
        check.fail("sequence %s: a packet needs state never cleared" % sid)
    for d in p.get("trace_packet_defaults", []):
        for e in d.get("track_event_defaults", []):
            seq.track = int(one(e, "track_uuid"))
    for data in p.get("interned_data", []):
        for n in data.get("event_names", []):
            seq.names[int(one(n, "iid"))] = one(n, "name")
    return seq


def slices(packets, threads):
    """{function: BEGINs}, {(enclosing, function): BEGINs}"""
    seqs = collections.defaultdict(Sequence)
    stacks = collections.defaultdict(list)
    last = {}
    calls, edges = collections.Counter(), collections.Counter()
    order = collections.defaultdict(list)
    for p in packets:
        seq = sequence_step(seqs, p)
        for ev in p.get("track_event", []):
            track = int(one(ev, "track_uuid", seq.track or 0))
            if track not in threads:
                check.fail("an event on track %d, no thread's" % track)
            ts = int(one(p, "timestamp", -1))
            if ts < last.get(track, 0):
                check.fail("time goes back on track %d: %d" % (track, ts))
            last[track] = ts
            kind, st = one(ev, "type"), stacks[track]
            if kind == "TYPE_SLICE_BEGIN":
                name = event_name(seq, p, ev)
                calls[name] += 1
                edges[(st[-1] if st else "", name)] += 1
                st.append(name)
                order[track].append(("E", name, ts))
            elif kind == "TYPE_SLICE_END":
                if not st:
                    check.fail("an END with no BEGIN on track %d" % track)
                order[track].append(("X", st.pop(), ts))
            else:
                check.fail("an event of type %s" % kind)
    open_ = {t: s for t, s in stacks.items() if s}
    if open_:
        check.fail("slices never ended: %r" % open_)
    return calls, edges, order


def same_as_raw(decoded, raw):
    packets = parse(decoded)
    threads = tracks(packets)
    order = slices(packets, threads)[2]
    ours = {int(threads[t][1]): v for t, v in order.items()}
    theirs = collections.defaultdict(list)
    with open(raw) as f:
        for line in f:
            tid, ts, kind, depth, name = line.split(None, 4)
            theirs[int(tid)].append((kind, name.strip(), int(ts)))
    if not theirs:
        check.fail("no call in %s" % raw)
    offsets = set()
    for tid in set(ours) | set(theirs):
        a, b = ours.get(tid, []), theirs.get(tid, [])
        if [e[:2] for e in a] != [e[:2] for e in b]:
            check.fail("thread %d: slices %r, dump --raw %r" %
                       (tid, a[:6], b[:6]))
        offsets |= {x[2] - y[2] for x, y in zip(a, b)}
    if len(offsets) != 1:
        check.fail("times differ by %d offsets" % len(offsets))


def wire(decoded):
    lengths = [0, 1, 127, 128, 300, 16383, 16384, 20000]
    values = [0, 1, 127, 128, 16384, 1 << 32, 1 << 63, (1 << 64) - 1]
    packets = parse(decoded)
    if len(packets) != len(lengths):
        check.fail("%d packets, not %d" % (len(packets), len(lengths)))
    for i, p in enumerate(packets):
        d = p["track_descriptor"][0]
        name = chr(ord("a") + i) * lengths[i]
        proc = d["process"][0]
        got = (int(one(d, "uuid")), one(d, "name"), int(one(proc, "pid")),
               proc["cmdline"])
        if got != (values[i], name, i, [name, "x"]):
            check.fail("packet %d: uuid %s, a name of %d, pid %s, "
                       "cmdline of %r" % (i, got[0], len(got[1]), got[2],
                                          [len(c) for c in got[3]]))


def process(decoded, name, *args):
    procs = [d["process"][0] for p in parse(decoded)
             for d in p.get("track_descriptor", []) if "process" in d]
    if len(procs) != 1:
        check.fail("%d process tracks" % len(procs))
    got = (one(procs[0], "process_name"), procs[0].get("cmdline", []))
    if got != (name, list(args)):
        check.fail("process %r, wanted %r" % (got, (name, list(args))))


def procs(decoded, nm, *pairs):
    packets = parse(decoded)
    threads = tracks(packets)
    order = slices(packets, threads)[2]
    pids = [(int(one(d, "uuid")), one(d["process"][0], "pid"))
            for p in packets for d in p.get("track_descriptor", [])
            if "process" in d]
    if len(pids) != len(pairs) // 2:
        check.fail("%d process tracks, not %d" % (len(pids),
                                                  len(pairs) // 2))
    got = collections.defaultdict(collections.Counter)
    for uuid, (pid, tid, parent) in threads.items():
        i = [u for u, _ in pids].index(parent)
        if pids[i][1] != pid:
            check.fail("thread %s of pid %s under process %s's track"
                       % (tid, pid, pids[i][1]))
        got[i].update(name for kind, name, _ in order[uuid] if kind == "E")
    for i in range(len(pids)):
        want = check.counter_counts(pairs[2 * i], nm)
        funcs = pairs[2 * i + 1].split(",")
        bad = ["%s: %d slices, counter %d" % (fn, got[i][fn], want[fn])
               for fn in funcs if got[i][fn] != want[fn]]
        if bad or not any(want[fn] for fn in funcs):
            check.fail("process %s: %s" % (pids[i][1], "; ".join(bad) or
                                           "the counter saw none"))


def main(decoded, counts, edges_path, nm, min_threads, *funcs):
    packets = parse(decoded)
    threads = tracks(packets)
    if len(threads) < int(min_threads):
        check.fail("%d thread tracks, wanted %s" % (len(threads),
                                                   min_threads))
    calls, edges, _ = slices(packets, threads)
    want = check.counter_counts(counts, nm)
    bad = ["%s: %d slices, counter %d" % (fn, calls[fn], want[fn])
           for fn in funcs if calls[fn] != want[fn]]
    if bad or not any(want[fn] for fn in funcs):
        check.fail("; ".join(bad) or "the counter saw none of the FUNCs")
    keep = set(funcs)
    want = {e: n for e, n in check.counter_edges(edges_path, nm).items()
            if e[0] in keep and e[1] in keep}
    got = {e: n for e, n in edges.items() if e[0] in keep and e[1] in keep}
    if want != got:
        check.fail("nesting differs (enclosing, function: slices, "
                   "counter): " + "; ".join(
                       "%s, %s: %d, %d" % (e[0], e[1], got.get(e, 0),
                                          want.get(e, 0))
                       for e in sorted(set(want) | set(got))
                       if got.get(e) != want.get(e))[:600])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "raw":
        same_as_raw(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "wire":
        wire(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "process":
        process(*sys.argv[2:])
    elif len(sys.argv) >= 6 and sys.argv[1] == "procs":
        procs(*sys.argv[2:])
    elif len(sys.argv) < 7:
        check.fail(__doc__)
    else:
        main(*sys.argv[1:])
