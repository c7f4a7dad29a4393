#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""proc.py - what tests/attach/attach.sh asks of a process, from outside,
with nothing of mctrace's:

  text PID [EXCEPT]   a digest of every executable file mapping's bytes,
                      read from /proc/PID/mem, one "lo path sha256" a line
                      (not those of the file EXCEPT, a library the
                      target maps and unmaps all along)
  same PID FILE [EXCEPT]
                      exit 1, naming them, if a mapping FILE lists now
                      differs (mappings added since are not compared)
  entries PID LIB SYM...
                      the first byte at each function SYM of the
                      library LIB (nm's offsets) where LIB is mapped
                      now, "SYM XX" a line; nothing if it is not
  fds PID [EXCEPT]    how many file descriptors it has open (not counting
                      those open on the file EXCEPT: the loader opens
                      the library while it loads it)
  running PID         exit 1 if a thread of it is stopped (state t or T)
  seize PID SECONDS   hold it with PTRACE_SEIZE (it runs on) that long
  asuser USER CMD...  run CMD as USER (from root)
  probe               exit 0 if this process may ptrace a sibling
"""
import ctypes
import hashlib
import os
import pwd
import subprocess
import sys
import time

PTRACE_SEIZE = 0x4206


def text(pid, except_path=None):
    out = []
    with open(f"/proc/{pid}/maps") as maps, \
            open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            f = line.split()
            if len(f) < 6 or "x" not in f[1] or not f[5].startswith("/"):
                continue
            if except_path and os.path.samefile(f[5], except_path):
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            mem.seek(lo)
            out.append(f"{lo:x} {f[5]} "
                       f"{hashlib.sha256(mem.read(hi - lo)).hexdigest()}")
    return out


def same(pid, path, except_path=None):
    now = {l.split()[0]: l for l in text(pid, except_path)}
    bad = 0
    for line in open(path).read().splitlines():
        if now.get(line.split()[0]) != line:
            print(f"text differs: {line} -> {now.get(line.split()[0])}")
            bad = 1
    return bad


def symbols(lib, names):
    """The offsets nm gives for `names` in lib."""
    out = subprocess.run(["nm", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    offs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in names:
            offs[f[2]] = int(f[0], 16)
    return offs


def entries(pid, lib, names):
    """First byte of each function of lib where it is mapped; a library
    unmapped while read counts as not mapped."""
    offs = symbols(lib, names)
    base = None
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            f = line.split()
            if (len(f) >= 6 and f[2] == "00000000" and
                    f[5].startswith("/") and os.path.samefile(f[5], lib)):
                base = int(f[0].split("-")[0], 16)
    if base is None:
        return 0
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            got = []
            for name in names:
                mem.seek(base + offs[name])
                got.append(f"{name} {mem.read(1).hex()}")
    except OSError:
        return 0
    print("\n".join(got))
    return 0


def fds(pid, except_path=None):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue        # closed since listed
        if not (except_path and target == os.path.abspath(except_path)):
            n += 1
    return n


def running(pid):
    bad = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except FileNotFoundError:
            continue
        state = stat[stat.rindex(")") + 2]
        if state in "tT":
            print(f"thread {tid} stopped ({state})")
            bad = 1
    return bad


def libc():
    lib = ctypes.CDLL(None, use_errno=True)
    lib.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                           ctypes.c_void_p]
    return lib


def seize(pid, seconds):
    if libc().ptrace(PTRACE_SEIZE, pid, None, None) != 0:
        print(f"seize: {os.strerror(ctypes.get_errno())}")
        return 1
    print("seized", flush=True)
    time.sleep(seconds)
    return 0


def probe():
    target = os.fork()
    if target == 0:
        time.sleep(5)
        os._exit(0)
    tracer = os.fork()
    if tracer == 0:
        os._exit(0 if libc().ptrace(PTRACE_SEIZE, target, None, None) == 0
                 else 1)
    ok = os.waitpid(tracer, 0)[1] == 0
    os.kill(target, 9)
    os.waitpid(target, 0)
    return 0 if ok else 1


def asuser(user, cmd):
    pw = pwd.getpwnam(user)
    os.setgroups([])
    os.setgid(pw.pw_gid)
    os.setuid(pw.pw_uid)
    os.execvp(cmd[0], cmd)


def main(argv):
    cmd = argv[1]
    if cmd == "text":
        print("\n".join(text(int(argv[2]), argv[3] if argv[3:] else None)))
        return 0
    if cmd == "same":
        return same(int(argv[2]), argv[3], argv[4] if argv[4:] else None)
    if cmd == "entries":
        return entries(int(argv[2]), argv[3], argv[4:])
    if cmd == "fds":
        print(fds(int(argv[2]), argv[3] if argv[3:] else None))
        return 0
    if cmd == "running":
        return running(int(argv[2]))
    if cmd == "seize":
        return seize(int(argv[2]), float(argv[3]))
    if cmd == "asuser":
        return asuser(argv[2], argv[3:])
    if cmd == "probe":
        return probe()
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main(sys.argv))
