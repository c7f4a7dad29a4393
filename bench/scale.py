#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/scale.py OURS KERNEL-TOOL OUT-DIR - cost against input size.

Generated x86_64 objects (`as --64`), each function `call __fentry__;
ret`, in two shapes: every function in one .text, and one section per
function (what -ffunction-sections makes).  For each size of the
second shape, our tool and the kernel's own recordmcount record a cold
copy (the median of BENCH_SCALE_ROUNDS runs, default 3); wall time is
the clock around each run, peak memory, user and system seconds and
minor faults what GNU time reports.  The first shape's rows are paired
rounds (below).  In both, ours also runs --dump and --check.

A cold copy is what Kbuild hands over: the object just written (copied
before each run, so in the page cache and dirty, as `as` leaves it, not
synced), never mapped or read by an earlier run.  Evicting it from the
page cache as well (fadvise DONTNEED after a sync) changed nothing at
10^6 (bench/RESULTS.md, issue 30).

Every row ends with the machine's load average when it was measured:
this bench runs on shared machines, and a later run must tell a
regression from a busy machine.  For the shape of one section per
function the row also gives libelf's floor (issue 30, item 6): the
peak of ELF-FLOOR, a program that only opens the object with libelf
and reads every section header, in the same run; ours / floor must
stay at most 2.  Beside it, the floor of time: the same program also
reading every section's data and writing the object to a new file
(user + system seconds and faults, medians).  The kernel tool gets BENCH_SCALE_LIMIT seconds (default
60) per run and is reported as over it when it takes longer.

For the shape of one .text, the two tools are compared in paired
rounds, as bench-trace compares ours with uftrace (bench/trace/
rounds.awk): BENCH_SCALE_PAIRED rounds (default 41), each one run of
each tool on its own cold copy, the order alternating from round to
round, so that load which changes between rounds weighs on both sides
of a round's ratio alike.  Each run is spawned straight from Python
(posix_spawn, then wait4): wall time is the clock around that, CPU is
the child's user + system time from wait4 (the scheduler's own count,
finer than the 10 ms steps of GNU time's printout), peak memory and
minor faults are wait4's too.  Nothing else runs between the clock's
two reads: wrapping each run in GNU time and coreutils' timeout (as
the other shape's rows do) adds two exec's to both tools (6 ms
together at load 10), and at 10^5 hooks, where a run takes 5 to 15 ms,
that pulls the ratio towards 1.  The row gives each tool's median, the median of
the per-round ratios and an interval for it from the order statistics
(distribution-free: with n rounds, the k-th smallest and k-th largest
ratios hold the median with probability 1 - 2 P(Binomial(n, 1/2) < k),
k the largest that keeps this at least 97%; the level is printed), and
the range of the load over the rounds.  The kernel tool gets
BENCH_SCALE_LIMIT seconds here too (an interval timer, then SIGKILL).
Above the table, the floor of a run so measured: the wall and CPU of
`ours --version` (median of 21).  Growth is our median CPU and wall
time against the size ten times smaller (at most 11x is n log n or
better), memory our peak against 1.5x the object plus the table's 32
bytes a hook (issue 30).

For the shape of one .text, the row also gives callgrind's count of
every instruction each tool's process runs on a cold copy (one run
each, in the same run of the bench: steady on a shared machine where
wall time is not) and ours / kernel; BENCH_SCALE_CALLGRIND=0 (or no
valgrind) leaves them out.  The kernel tool is too slow on the other
shape for callgrind.

Prints a Markdown table per shape: hooks, object size, our seconds,
user and system seconds and faults (medians), seconds and peak MB of
each tool, ours / kernel, and how much our time grew against the size
ten times smaller (at most 11x is n log n or better); then ours with
--dump, --check, and --per-section (one run each).  Every recorded
object is checked to hold exactly one table entry per hook (readelf's
size of __mcount_loc), so a fast wrong answer does not count.

BENCH_SCALE_MAX (default 100000) is the largest size: 10^3, 10^4, ...
up to it; BENCH_SCALE_SHAPES ("one", "sections" or both, the default)
picks the shapes.  KERNEL-TOOL may be "-" when it is not built; so may
ELF-FLOOR (the fourth argument, bench/scale/elffloor.c).
"""

import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import costs  # noqa: E402


def generate(n, per_section, path):
    with open(path + ".s", "w") as f:
        if not per_section:
            f.write(".text\n")
        for i in range(n):
            if per_section:
                f.write('.section .text.f%d,"ax",@progbits\n' % i)
            f.write(".globl f%d\n.type f%d,@function\nf%d:\n"
                    "\tcall __fentry__\n\tret\n.size f%d,.-f%d\n"
                    % (i, i, i, i, i))
    subprocess.run(["as", "--64", "-o", path, path + ".s"], check=True)
    os.unlink(path + ".s")


def load():
    """The 1-minute load average, now."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def timed(cmd, limit, counts=None):
    """(seconds, peak MB, exit status) of one run: the clock around it,
    and the peak resident size GNU time reports; into `counts` (a dict),
    when given, its user and system seconds and minor faults (a child of Python would
    inherit Python's own as a floor); seconds None when the run took
    longer than `limit` (coreutils' timeout kills it).  Python waits for
    the run without a timeout of its own: with one, subprocess polls
    with growing sleeps (0.5 ms, 1, 2, 4 ... up to 50 ms), and the clock
    would read the next poll, not the exit (every run of 8 to 15 ms read
    16 ms, so two tools of 7 and 14 ms compared as equal)."""
    with tempfile.NamedTemporaryFile("r") as mem:
        argv = ["/usr/bin/time", "-f", "%U %S %R %M", "-o", mem.name,
                "timeout", "-s", "KILL", "%g" % limit] + cmd
        start = time.perf_counter()
        p = subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        secs = time.perf_counter() - start
        if p.returncode == 128 + 9:     # timeout's status for a kill
            return None, None, None
        user, sys_, faults, kb = mem.read().split()[-4:]
    if counts is not None:
        counts.setdefault("user", []).append(float(user))
        counts.setdefault("sys", []).append(float(sys_))
        counts.setdefault("faults", []).append(int(faults))
    return secs, int(kb) / 1024.0, p.returncode


class _Late(Exception):
    """Raised by the interval timer: a run took longer than its limit."""


def _late(signum, frame):
    raise _Late()


def spawned(cmd, limit):
    """(wall seconds, CPU seconds, minor faults, exit status) of one
    run of `cmd`, spawned with nothing around it; None when it took
    longer than `limit` seconds (then it is killed).  CPU is the
    child's user + system time as wait4 reports it.  Not its peak
    memory: posix_spawn's child runs in Python's memory until its exec,
    and the kernel counts that in the child's peak."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    acts = [(os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2)]
    old = signal.signal(signal.SIGALRM, _late)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=acts)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            _, status, ru = os.wait4(pid, 0)
        except _Late:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            return None
        secs = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        os.close(devnull)
    return (secs, ru.ru_utime + ru.ru_stime, ru.ru_minflt,
            os.waitstatus_to_exitcode(status))


def median_interval(values, level=0.97):
    """(median, low, high, level %): low and high the k-th smallest and
    k-th largest of `values`, k the largest whose order statistics hold
    the median with probability at least `level` (1 when there are too
    few values for it; the level printed says so)."""
    s = sorted(values)
    n = len(s)
    k, tail, c = 1, 0.5 ** n, n     # tail = P(B < k), c = C(n, k)
    while 1 - 2 * (tail + c * 0.5 ** n) >= level:
        tail += c * 0.5 ** n
        k += 1
        c = c * (n - k + 1) // k
    return statistics.median(s), s[k - 1], s[n - k], 100 * (1 - 2 * tail)


def paired(tools, src, work, rounds, limit, n):
    """Interleaved rounds of `tools` (a list of paths) on cold copies of
    `src`: per tool, lists of wall and CPU seconds and faults
    (one item a round), and the load of each round; None when a run of
    a tool went over `limit`.  Every run's table is checked to hold one
    entry per hook."""
    got = {t: {"wall": [], "cpu": [], "faults": []} for t in tools}
    loads = []
    for r in range(rounds):
        loads.append(load())
        for t in (tools if r % 2 == 0 else tools[::-1]):
            cold_copy(src, work)
            run = spawned([t, work], limit)
            if run is None:
                return None, loads
            secs, cpu, faults, rc = run
            if rc != 0:
                sys.exit("scale: %s exited %d on %s" % (t, rc, src))
            if table_entries(work) != n:
                sys.exit("scale: %s wrote %d entries for %d hooks"
                         % (t, table_entries(work), n))
            for key, v in (("wall", secs), ("cpu", cpu), ("faults", faults)):
                got[t][key].append(v)
    return got, loads


def table_entries(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True,
                         text=True, check=True).stdout
    total = 0
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[1] in ("__mcount_loc", ".mcount_loc"):
            total += int(f[5], 16) // 8
    return total


def cold_copy(src, work):
    """A fresh copy of `src`, as Kbuild hands an object over: just
    written, in the page cache and dirty; never mapped by a run."""
    if os.path.exists(work):
        os.unlink(work)
    shutil.copyfile(src, work)


def measure(tool_args, src, work, rounds, limit, check_n=None, counts=None):
    """Median seconds and peak MB over `rounds` runs on cold copies."""
    secs, mbs = [], []
    for _ in range(rounds):
        cold_copy(src, work)
        s, mb, rc = timed(tool_args + [work], limit, counts)
        if s is None:
            return None, None
        if rc != 0:
            sys.exit("scale: %s exited %d on %s" % (tool_args[0], rc, src))
        if check_n is not None and table_entries(work) != check_n:
            sys.exit("scale: %s wrote %d entries for %d hooks"
                     % (tool_args[0], table_entries(work), check_n))
        secs.append(s)
        mbs.append(mb)
    return statistics.median(secs), max(mbs)


def per_section_run(ours, src, work, n):
    """Seconds of one --per-section record (a piece per section: the
    shape -ffunction-sections with --gc-sections wants), checked to
    hold one entry per hook like the others."""
    cold_copy(src, work)
    s, _, rc = timed([ours, "--per-section", work], 3600)
    if rc != 0 or table_entries(work) != n:
        sys.exit("scale: --per-section exited %s, %d entries for %d hooks"
                 % (rc, table_entries(work), n))
    return s


def floor_read_write(floor, src, out, rounds):
    """Median user + system seconds and minor faults of ELF-FLOOR
    reading every section's data and writing the object to a new file:
    the least any tool that reads the object with libelf and writes
    one of its size spends (issue 30)."""
    dst = os.path.join(out, "floor-out.o")
    counts = {}
    for _ in range(rounds):
        if os.path.exists(dst):
            os.unlink(dst)
        timed([floor, src, dst], 3600, counts)
    os.unlink(dst)
    cpu = [u + s for u, s in zip(counts["user"], counts["sys"])]
    return statistics.median(cpu), statistics.median(counts["faults"])


def fmt(x, spec):
    return "-" if x is None else spec % x


def ms_cells(got, tool):
    """A tool's median wall and CPU milliseconds, as table cells."""
    return "%.2f | %.2f" % (1e3 * statistics.median(got[tool]["wall"]),
                            1e3 * statistics.median(got[tool]["cpu"]))


def ratio_cells(got, ours, kernel, key):
    """The median of ours / kernel over the rounds, and its interval."""
    q = [a / b for a, b in zip(got[ours][key], got[kernel][key])]
    med, lo, hi, conf = median_interval(q)
    return "**%.3f** | %.3f to %.3f (%.1f%%)" % (med, lo, hi, conf)


def one_text(ours, kernel, out, sizes, paired_rounds, limit, counted):
    """The rows of the shape of one .text: paired rounds (above)."""
    tools = [ours] + ([kernel] if kernel != "-" else [])
    print("\n### one .text\n")
    floor = [spawned([ours, "--version"], limit) for _ in range(21)]
    print("Spawning a run and reaping it, with the clock around: %.2f ms "
          "wall, %.2f ms CPU (`ours --version`, median of 21, load "
          "%.2f)\n" % (1e3 * statistics.median(f[0] for f in floor),
                       1e3 * statistics.median(f[1] for f in floor),
                       load()))
    print("| hooks | object MB | rounds | ours wall ms | ours CPU ms "
          "| kernel wall ms | kernel CPU ms | ours / kernel wall, paired "
          "| its interval | ours / kernel CPU, paired | its interval "
          "|%s ours CPU x (10x input) | ours wall x (10x input) "
          "| ours faults | ours MB "
          "| 1.5 x input + table MB | kernel MB | --dump s | --check s "
          "| --per-section s | load, the rounds |"
          % (" ours M instr | kernel M instr | ours / kernel instr |"
             if counted else ""))
    print("|---:" * (21 + 3 * counted) + "|")
    before = None
    for n in sizes:
        src = os.path.join(out, "gen-one-%d.o" % n)
        if not os.path.exists(src):
            generate(n, False, src)
        work = os.path.join(out, "work.o")
        got, loads = paired(tools, src, work, paired_rounds, limit, n)
        med = statistics.median
        if got is None:
            print("| %d | kernel > %ds |" % (n, limit))
            continue
        # peak memory by GNU time (spawned's says why), outside the rounds
        o_mb = measure([ours], src, work, 3, 3600, n)[1]
        k_mb = measure([kernel], src, work, 3, limit, n)[1] \
            if kernel != "-" else None
        o_cpu = med(got[ours]["cpu"])
        o_wall = med(got[ours]["wall"])
        cells = ms_cells(got, ours)
        if kernel != "-":
            cells += " | %s | %s | %s |" % (
                ms_cells(got, kernel),
                ratio_cells(got, ours, kernel, "wall"),
                ratio_cells(got, ours, kernel, "cpu"))
        else:
            cells += " | - | - | - | - | - | - |"
        instr_cells = ""
        if counted:
            o_i = costs.instructions(ours, src, work)
            k_i = costs.instructions(kernel, src, work)
            instr_cells = " %s | %s | %s |" % (
                fmt(o_i and o_i / 1e6, "%.2f"),
                fmt(k_i and k_i / 1e6, "%.2f"),
                "-" if not (o_i and k_i) else "%.2f" % (o_i / k_i))
        shutil.copyfile(src, work)
        subprocess.run([ours, work], check=True)
        d_s, _, _ = timed([ours, "--dump", work], 3600)
        c_s, _, _ = timed([ours, "--check", work], 3600)
        p_s = per_section_run(ours, src, work, n)
        grew = "- | -" if not before else "%.1f | %.1f" % (
            o_cpu / before[0], o_wall / before[1])
        size = os.path.getsize(src)
        print("| %d | %.1f | %d | %s%s %s | %d | %.0f | %.0f | %s | %.3f "
              "| %.3f | %.3f | %.2f to %.2f |"
              % (n, size / 1e6, paired_rounds, cells, instr_cells, grew,
                 med(got[ours]["faults"]), o_mb,
                 (1.5 * size + 32 * n) / 2 ** 20, fmt(k_mb, "%.0f"),
                 d_s, c_s, p_s, min(loads), max(loads)))
        sys.stdout.flush()
        before = (o_cpu, o_wall) if o_cpu > 0 else None


def sections(ours, kernel, out, floor, sizes, rounds, limit):
    """The rows of the shape of one section per function."""
    print("\n### one section per function\n")
    with_floor = floor != "-"
    print("| hooks | object MB | ours s | ours user s | ours sys s "
          "| ours faults | ours MB | kernel s | kernel MB "
          "| ours / kernel | ours x (10x input) | --dump s "
          "| --check s | --per-section s |%s load |"
          % (" libelf floor MB | ours / floor | floor read+write "
             "user+sys s | floor read+write faults |"
             if with_floor else ""))
    print("|---:" * (15 + 4 * with_floor) + "|")
    before = None
    for n in sizes:
        src = os.path.join(out, "gen-sections-%d.o" % n)
        if not os.path.exists(src):
            generate(n, True, src)
        work = os.path.join(out, "work.o")
        row_load = load()
        counts = {}
        o_s, o_mb = measure([ours], src, work, rounds, 3600, n, counts)
        k_s = k_mb = None
        if kernel != "-":
            k_s, k_mb = measure([kernel], src, work, rounds, limit, n)
        shutil.copyfile(src, work)
        subprocess.run([ours, work], check=True)
        d_s, _, _ = timed([ours, "--dump", work], 3600)
        c_s, _, _ = timed([ours, "--check", work], 3600)
        p_s = per_section_run(ours, src, work, n)
        floor_cells = ""
        if with_floor:
            f_mb = max(timed([floor, src], 3600)[1] for _ in range(rounds))
            f_cpu, f_faults = floor_read_write(floor, src, out, rounds)
            floor_cells = " %.0f | %.2f | %.3f | %d |" % (
                f_mb, o_mb / f_mb, f_cpu, f_faults)
        ratio = "-" if not k_s else "%.2f" % (o_s / k_s)
        if kernel != "-" and k_s is None:
            ratio = "kernel > %ds" % limit
        grew = "-" if not before else "%.1f" % (o_s / before)
        med = statistics.median
        print("| %d | %.1f | %.3f | %.3f | %.3f | %d | %.0f | %s | %s "
              "| %s | %s | %.3f | %.3f | %.3f |%s %.2f to %.2f |"
              % (n, os.path.getsize(src) / 1e6, o_s,
                 med(counts["user"]), med(counts["sys"]),
                 med(counts["faults"]), o_mb, fmt(k_s, "%.3f"),
                 fmt(k_mb, "%.0f"), ratio, grew, d_s, c_s,
                 p_s, floor_cells, row_load, load()))
        sys.stdout.flush()
        before = o_s if o_s > 0 else None


def main():
    ours, kernel, out = sys.argv[1:4]
    floor = sys.argv[4] if len(sys.argv) > 4 else "-"
    rounds = int(os.environ.get("BENCH_SCALE_ROUNDS", "3"))
    paired_rounds = int(os.environ.get("BENCH_SCALE_PAIRED", "41"))
    limit = float(os.environ.get("BENCH_SCALE_LIMIT", "60"))
    top = int(os.environ.get("BENCH_SCALE_MAX", "100000"))
    shapes = os.environ.get("BENCH_SCALE_SHAPES", "one sections").split()
    os.makedirs(out, exist_ok=True)
    counted = (os.environ.get("BENCH_SCALE_CALLGRIND", "1") != "0" and
               shutil.which("valgrind") is not None and kernel != "-")
    sizes = []
    n = 1000
    while n <= top:
        sizes.append(n)
        n *= 10
    if "one" in shapes:
        one_text(ours, kernel, out, sizes, paired_rounds, limit, counted)
    if "sections" in shapes:
        sections(ours, kernel, out, floor, sizes, rounds, limit)


if __name__ == "__main__":
    main()
