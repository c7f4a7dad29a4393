#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hosts.py RECORDMCOUNT SCRATCH-DIR [NAME=RUNNER:TOOL]... - the tool
built for other hosts gives the native build's results, byte for byte.

Each NAME=RUNNER:TOOL is one host's static build and the qemu-user that
runs it ("s390x=qemu-s390x:build/hosts/s390x/recordmcount"); hosts.mk
passes every host it could build.  A big-endian 64-bit host (s390x) and
a 32-bit one (i386) are where byte order and word size slip into the
results: everything the tool reads and writes is in the file's byte
order and the file's word size, never the host's.

The corpus, made here from the other suites' own definitions:
  cli/objects   the CLI suite's objects (tests/cli/cli.py's declare and
                declare_dump: x86_64 and i386, -pg and -pg -mfentry, PIE
                or not, GCC's own tables, support code, custom hooks,
                pads, -mnop-mcount) and fixtures/asm
  cli/bad, cli/hostile
                its corrupted and hostile inputs (truncations, wrong
                sizes, offsets, alignments, counts)
  cross/ARCH    every fixture of the cross suite (tests/cross/test_*.py:
                each architecture, each flag set, -O2
                -ffunction-sections, GCC's own table where it has one,
                clang 14 and 16 where it has -pg)
  pads/ARCH     fixtures/pads/pads.c for every architecture of the pads
                suite (tests/pads/test_pads.py), two N,M pairs
  linked        recorded objects linked: x86_64 with lds/mcount.lds
                (PIE and not), and a static link of every cross
                architecture
  kernel/ARCH   every object Kbuild handed to recordmcount when
                check-kernel or check-kernel-all built Linux
                (MC_KERNEL_CACHE/ARCH/capture for 6.1,
                MC_KERNEL_CACHE/linux-SERIES/ARCH/capture for later
                series: kernel/SERIES/ARCH, every architecture and
                compiler found there); a SKIP line for each build of
                check-kernel's default set that is not there
Every file of a group is run in one command per mode (the tool takes
many files; its messages name each one): record, --nop, --dump,
--dump --format=json, --check and --finalize on the input, and --dump,
--dump --format=json and --check on the native build's recorded output.
Each host runs in a copy laid out exactly as the native run's, so the
file names in messages match.  One PASS/FAIL line per host, group and
mode: same exit status, same stdout, same stderr, every file the same
bytes, no other file left.  Every run is under a 64 MiB file size limit.

size32/...: ELF64 objects with values a 32-bit size_t cannot hold (a
.bss of 4 GiB + 16): the i386 build must refuse each with one line
naming the file and the reason, exit 1, and leave it byte-identical;
a 64-bit host must agree with the native build.
"""

import difflib
import glob
import hashlib
import importlib
import os
import shutil
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
TOP = os.path.dirname(TESTS)
for d in ("oracle", "cross", "pads", "cli"):
    sys.path.insert(0, os.path.join(TESTS, d))

import common  # noqa: E402
from harness import Failure, Log, check, must, parallel  # noqa: E402

FSIZE_LIMIT = 64 << 20
TIMEOUT = 600
MODES = [
    ("record", [], "input"),
    ("nop", ["--nop"], "input"),
    ("dump", ["--dump"], "input"),
    ("json", ["--dump", "--format=json"], "input"),
    ("check", ["--check"], "input"),
    ("finalize", ["--finalize"], "input"),
    ("dump-recorded", ["--dump"], "recorded"),
    ("json-recorded", ["--dump", "--format=json"], "recorded"),
    ("check-recorded", ["--check"], "recorded"),
]
ALL_MODES = tuple(m[0] for m in MODES)
HOSTS_32BIT = ("i386",)
CROSS_MODULES = ("test_arm", "test_ppc_s390", "test_mips_sparc_sh",
                 "test_loongarch")
# The kernel builds make check-kernel (x86_64, arm, arm64; clang for
# x86_64 and arm) and make check-kernel-all (every architecture of
# kernel/lib.sh) leave in the cache; each one found is a group, and
# those of the default set that are missing are SKIP lines.
KERNEL_ARCHES = ("x86_64", "arm", "arm64", "x86_64-clang", "arm-clang")


class Group:
    """A directory of input files, run together in every mode."""

    def __init__(self, name, scratch):
        self.name = name
        self.dir = os.path.join(scratch, "corpus", name.replace("/", "-"))
        os.makedirs(self.dir, exist_ok=True)

    def add(self, src, name):
        shutil.copyfile(src, os.path.join(self.dir, name))

    def write(self, name, data):
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(data)

    def files(self):
        return sorted(os.listdir(self.dir))


# -- the corpus ----------------------------------------------------------

def cli_groups(tool, scratch, log):
    """The CLI suite's objects and its bad and hostile inputs."""
    cli = importlib.import_module("cli")
    cli.TOOL, cli.SCRATCH = tool, os.path.join(scratch, "cli")
    objs = cli.Objects()
    cli.declare(objs)
    cli.declare_dump(objs)
    objs.build()
    g = Group("cli/objects", scratch)
    for key, path in objs.made.items():
        g.add(path, key + ".o")
    for s in sorted(glob.glob(os.path.join(TOP, "fixtures", "asm", "*.s"))):
        name = os.path.basename(s)[:-2]
        out = os.path.join(scratch, "cli", "asm-" + name + ".o")
        must(["gcc", "-c", "-o", out, s])
        g.add(out, "asm-" + name + ".o")
    bad = Group("cli/bad", scratch)
    for name, data in cli.bad_inputs(objs).items():
        bad.write(name + ".o", data)
    hostile = Group("cli/hostile", scratch)
    for name, (data, _want) in cli.hostile_inputs(objs).items():
        hostile.write(name + ".o", data)
    mips = cli.mips64_object()
    if mips is None:
        log.skip("hosts/corpus/mips64-hostile", "%s not installed" %
                 cli.MIPS64_CC)
    else:
        hostile.write("mips64-align.o", cli.patch_shdr(
            mips, ".rela.pdr", cli.SH_ADDRALIGN, 1 << 34))
        hostile.write("mips64-truncated.o", mips[:40])
    linked = Group("linked", scratch)
    for pie in ("pie", "nopie"):
        obj = os.path.join(scratch, "cli", "linked-%s.o" % pie)
        shutil.copyfile(objs["basic-x86_64-fentry-%s-O2" % pie], obj)
        must([tool, obj])
        prog = os.path.join(scratch, "cli", "x86_64-%s" % pie)
        must(["gcc", "-" + pie.replace("nopie", "no-pie"), "-o", prog,
              objs["run_main-x86_64-fentry-%s-O2" % pie], obj,
              "-Wl,-T," + os.path.join(TOP, "lds", "mcount.lds")])
        linked.add(prog, "x86_64-%s" % pie)
    return [g, bad, hostile], linked


# The clang objects compared across hosts: two fixtures hold every form
# clang writes (the cross suite runs them all), and each input here runs
# in nine modes on two emulated hosts.
HOST_CLANG_FIXTURES = ("basic.c", "sections.c")


def cross_cases(tool, scratch):
    cases = []
    for m in CROSS_MODULES:
        mod = importlib.import_module(m)
        arches = [v for v in vars(mod).values()
                  if isinstance(v, common.Arch)]
        for a in arches:
            if not a.no_gcc and not shutil.which(a.tool("gcc")):
                continue
            opt = a.opts[-1]
            cases += [common.Case(a, fs, opt, fx, tool, os.path.join(
                scratch, "cross")) for fs in a.flag_sets
                for fx in a.fixtures]
            for c in common.CLANGS:
                if c in a.clangs and shutil.which(c):
                    cases += [common.Case(a, fs, "-O2", fx, tool,
                                          os.path.join(scratch, "cross"), c)
                              for fs in a.clang_flag_sets
                              for fx in HOST_CLANG_FIXTURES]
    return cases


def cross_groups(tool, scratch, log, linked):
    cases = cross_cases(tool, scratch)
    parallel(lambda c: c.compile(), cases)
    groups = {}
    linked_arches = set()
    for c in cases:
        if c.compile_error:
            log.result("hosts/corpus/%s" % c.name, c.compile_error)
            continue
        g = groups.get(c.arch.name) or groups.setdefault(
            c.arch.name, Group("cross/" + c.arch.name, scratch))
        flat = c.name.split("/", 1)[1].replace("/", "-")
        g.add(c.p("in.o"), flat + ".o")
        if c.record_flags():
            g.add(c.p("gcc.o"), flat + "-own-table.o")
        if c.arch.name not in linked_arches and c.compiler == "gcc":
            try:
                shutil.copyfile(c.p("in.o"), c.p("out.o"))
                must([tool, c.p("out.o")])
                linked.add(c.link(c.p("out.o"), True, "prog"),
                           c.arch.name + "-" + flat)
                linked_arches.add(c.arch.name)
            except Failure as e:
                log.line("hosts: %s: not linked: %s" % (c.name, e))
    return [groups[k] for k in sorted(groups)]


def pads_groups(scratch, log):
    pads = importlib.import_module("test_pads")
    cases = []
    for a in pads.ARCHES:
        if not shutil.which(a.tool("gcc")):
            continue
        for nm in (a.nms[0], a.nms[2]):
            cases.append(pads.PadCase(a, nm, "-O2", None, os.path.join(
                scratch, "pads")))
        if a.clang:
            cases += [pads.PadCase(a, a.nms[0], "-O2", None, os.path.join(
                scratch, "pads"), c) for c in pads.CLANGS if shutil.which(c)]
    parallel(lambda c: c.compile(), cases)
    groups = {}
    for c in cases:
        if c.compile_error:
            log.result("hosts/corpus/pads/%s" % c.name, c.compile_error)
            continue
        g = groups.get(c.arch.name) or groups.setdefault(
            c.arch.name, Group("pads/" + c.arch.name, scratch))
        g.add(c.p("in.o"), c.name.split("/", 1)[1].replace(",", "_") + ".o")
    return [groups[k] for k in sorted(groups)]


def kernel_groups(scratch, log):
    cache = os.environ.get("MC_KERNEL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or
        os.path.join(os.environ.get("HOME", "/tmp"), ".cache"),
        "recordmcount")
    groups = []
    # A series' captures: MC_KERNEL_CACHE/ARCH/capture (6.1) and
    # MC_KERNEL_CACHE/linux-SERIES/ARCH/capture (kernel/lib.sh).
    caps = {}
    for c in glob.glob(os.path.join(cache, "*", "capture")):
        caps[os.path.basename(os.path.dirname(c))] = c
    for c in glob.glob(os.path.join(cache, "linux-*", "*", "capture")):
        arch_dir = os.path.dirname(c)
        series = os.path.basename(os.path.dirname(arch_dir))[len("linux-"):]
        caps["%s/%s" % (series, os.path.basename(arch_dir))] = c
    for arch in KERNEL_ARCHES:
        if not any(k == arch or k.endswith("/" + arch) for k in caps):
            log.skip("hosts/kernel/%s" % arch, "no captured kernel objects "
                     "in %s (make check-kernel makes them)" % cache)
    for name in sorted(caps):
        cap = caps[name]
        objs = sorted(glob.glob(os.path.join(cap, "**", "*.o"),
                                recursive=True))
        if not objs:
            log.skip("hosts/kernel/%s" % name, "no captured kernel objects "
                     "in %s (make check-kernel makes them)" % cap)
            continue
        g = Group("kernel/" + name, scratch)
        for o in objs:
            g.add(o, os.path.relpath(o, cap).replace("/", "__"))
        groups.append(g)
    return groups


# -- running and comparing -----------------------------------------------

def limited(cmd):
    """cmd under the file size limit (a shell's ulimit: the runs are
    started from threads, where preexec_fn is not safe)."""
    return ["sh", "-c", 'ulimit -f %d && exec "$@"' % (FSIZE_LIMIT // 512),
            "sh"] + cmd


def run_in(cmd, files, src, work):
    """Copy src's files to work and run cmd + files there: (rc, out,
    err, {file: sha256 or None}, sorted names in work)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for f in files:
        shutil.copyfile(os.path.join(src, f), os.path.join(work, f))
    try:
        p = subprocess.run(limited(cmd + files), cwd=work,
                           capture_output=True, timeout=TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", b"", b""
    digests = {}
    for f in files:
        with open(os.path.join(work, f), "rb") as fh:
            digests[f] = hashlib.sha256(fh.read()).hexdigest()
    return rc, out, err, digests, sorted(os.listdir(work))


def first_diff(a, b):
    d = list(difflib.unified_diff(a.decode(errors="replace").splitlines(),
                                  b.decode(errors="replace").splitlines(),
                                  "native", "host", n=0, lineterm=""))
    return " | ".join(d[2:6])


class Tally:
    """Output files compared, and how many were identical."""

    def __init__(self):
        self.files = self.same = 0
        self.lock = threading.Lock()

    def add(self, n, same):
        with self.lock:
            self.files += n
            self.same += same


def compare(native, got, tally):
    rc0, out0, err0, dig0, ls0 = native
    rc, out, err, dig, ls = got
    bad_files = sorted(f for f in dig0 if dig0[f] != dig.get(f))
    tally.add(len(dig0), len(dig0) - len(bad_files))
    check(rc == rc0, "exit %s, native %s" % (rc, rc0))
    check(ls == ls0, "files left: %s, native %s" % (
        sorted(set(ls) ^ set(ls0)), len(ls0)))
    check(not bad_files, "%d of %d files differ: %s" % (
        len(bad_files), len(dig0), ", ".join(bad_files[:5])))
    check(err == err0, "stderr differs: %s" % first_diff(err0, err))
    check(out == out0, "stdout differs: %s" % first_diff(out0, out))


def run_group(g, tool, hosts, scratch, log, tally):
    files = g.files()
    flat = g.name.replace("/", "-")
    native_dir = os.path.join(scratch, "run", "native", flat)
    native = {}
    for mode, args, source in MODES:
        src = g.dir if source == "input" else os.path.join(native_dir,
                                                           "record")
        native[mode] = (src, run_in([tool] + args, files, src,
                                    os.path.join(native_dir, mode)))
    for hname, cmd in hosts:
        for mode, args, _source in MODES:
            src, want = native[mode]
            work = os.path.join(scratch, "run", hname, flat, mode)
            # The same path depth as the native run's, for messages
            # that name files by relative path only (they do).
            got = run_in(cmd + args, files, src, work)
            log.case("hosts/%s/%s/%s (%d files)" % (hname, g.name, mode,
                                                   len(files)),
                     compare, want, got, tally)


# -- values a 32-bit size_t cannot hold ------------------------------------

BSS_SRC = ("static char buf[64];\n"
           "int f(int x) { buf[x] = 1; return buf[x + 1]; }\n")
SHDR64 = "<IIQQQQIIQQ"


def shdr_fields(data, name):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    strtab = struct.unpack_from(SHDR64, data, shoff + shstrndx * shentsize)
    for i in range(shnum):
        at = shoff + i * shentsize
        f = list(struct.unpack_from(SHDR64, data, at))
        n = data[strtab[4] + f[0]:].split(b"\0", 1)[0].decode()
        if n == name:
            return i, at, f
    raise Failure("no section %s" % name)


def set_shdr(data, name, field, value):
    i, at, f = shdr_fields(data, name)
    f[field] = value
    b = bytearray(data)
    struct.pack_into(SHDR64, b, at, *f)
    return i, bytes(b)


def size32_inputs(scratch):
    """name -> (contents, the reason a 32-bit host's one line must give
    (None: every host must agree with the native build), the modes, and
    whether only 32-bit hosts run it)."""
    d = os.path.join(scratch, "size32")
    os.makedirs(d, exist_ok=True)
    src, obj = os.path.join(d, "bss.c"), os.path.join(d, "bss.o")
    with open(src, "w") as f:
        f.write(BSS_SRC)
    must(["gcc", "-O2", "-pg", "-mfentry", "-c", "-o", obj, src])
    good = open(obj, "rb").read()
    big = (1 << 32) + 16
    i, bss = set_shdr(good, ".bss", 5, big)
    _i, text_off = set_shdr(good, ".text", 4, 1 << 32)
    _i, bss_off = set_shdr(good, ".bss", 4, (1 << 32) + 64)
    return {
        "bss-4GiB": (bss, "section %d size %d is more than this host can "
                     "address (32-bit size_t)" % (i, big), ALL_MODES, False),
        "text-offset-4GiB": (text_off, None, ALL_MODES, False),
        "bss-offset-4GiB": (bss_off, None, ALL_MODES, False),
        # Sparse: 5 GiB that take no disk.  A 64-bit build rewrites it
        # as the small object it starts with.
        "file-5GiB": (Sparse(good, 5 << 30), "2 GiB or larger: more than "
                      "this host can open (32-bit off_t)", ALL_MODES, True),
        # A 64-bit build tries to allocate the 2^32 + 1 entries (and runs
        # out of memory): only the 32-bit refusal is tested.
        "mcount-loc-2^32+1-entries": (
            table_count_object(), "__mcount_loc: 4294967297 entries, more "
            "than this host can address (32-bit size_t)",
            ("dump", "json", "check", "finalize"), True),
    }


class Sparse:
    """A file of `size` bytes that starts with `head`, written sparse."""

    def __init__(self, head, size):
        self.head, self.size = head, size

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.head)
            f.truncate(self.size)


def write_input(path, data):
    if isinstance(data, Sparse):
        data.write(path)
    else:
        with open(path, "wb") as f:
            f.write(data)


def snapshot(path):
    """What must not change: the inode (the tool replaces a file by
    rename), size, mtime, and the bytes unless the file is sparse."""
    st = os.stat(path)
    with open(path, "rb") as f:
        data = f.read(FSIZE_LIMIT)
    return st.st_ino, st.st_size, st.st_mtime_ns, data


def table_count_object():
    """An ELF64 x86_64 object whose 32768 overlapping 1 MiB __mcount_loc
    sections and one of 8 bytes add up to (2^32 + 1) * 8 bytes, and whose
    second table section has a relocation: a count kept in a 32-bit
    size_t wraps to 1 and that relocation's entry lands 2^17 entries past
    the array (the i386 build crashed on it)."""
    names = (b"\0.shstrtab\0.symtab\0.strtab\0__mcount_loc\0"
             b".rela__mcount_loc\0")
    name = {n: names.index(n.encode() + b"\0") for n in (
        ".shstrtab", ".symtab", ".strtab", "__mcount_loc",
        ".rela__mcount_loc")}
    data = bytearray(64)

    def put(b, align=8):
        data.extend(bytes(-len(data) % align))
        data.extend(b)
        return len(data) - len(b)

    def shdr(n, typ, flags, off, size, link=0, info=0, align=8, ent=0):
        return struct.pack(SHDR64, name[n], typ, flags, 0, off, size, link,
                           info, align, ent)

    big, n_big = 1 << 20, 1 << 15
    shstr = put(names, 1)
    sym = put(bytes(24))
    strtab = put(b"\0", 1)
    slots = put(bytes(big))
    rela = put(struct.pack("<QQq", 0, 1, 0))   # R_X86_64_64 against 0
    first = 4
    hdrs = [bytes(64), shdr(".shstrtab", 3, 0, shstr, len(names), align=1),
            shdr(".symtab", 2, 0, sym, 24, 3, 1, ent=24),
            shdr(".strtab", 3, 0, strtab, 1, align=1)]
    hdrs += [shdr("__mcount_loc", 1, 2, slots, big)] * n_big
    hdrs += [shdr("__mcount_loc", 1, 2, slots, 8),
             shdr(".rela__mcount_loc", 4, 0x40, rela, 24, 2, first + 1,
                  ent=24)]
    shoff = put(b"".join(hdrs))
    data[0:64] = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
        len(hdrs), 1)
    return bytes(data)


def size32_case(hname, cmd, tool, d, name, args, want):
    """One crafted file, one mode, on one host: d/native/NAME and
    d/host/NAME, each run from its own directory."""
    runs = {}
    before = snapshot(os.path.join(d, "host", name))
    agree = want is None or hname not in HOSTS_32BIT
    for who, c in (("native", [tool]), ("host", cmd)):
        if who == "native" and not agree:
            continue
        p = subprocess.run(limited(c + args + [name]),
                           cwd=os.path.join(d, who), capture_output=True,
                           timeout=TIMEOUT)
        with open(os.path.join(d, who, name), "rb") as f:
            runs[who] = (p.returncode, p.stdout, p.stderr,
                         f.read(FSIZE_LIMIT),
                         sorted(os.listdir(os.path.join(d, who))))
    rc, _out, err, _after, left = runs["host"]
    if agree:
        check(runs["host"] == runs["native"], "differs from the native "
              "build: exit %s, stderr %r; native: exit %s, stderr %r" %
              (rc, err, runs["native"][0], runs["native"][2]))
        return
    err = err.decode(errors="replace")
    check(rc == 1, "exit %d, want 1 (%s)" % (rc, err.strip()))
    check(snapshot(os.path.join(d, "host", name)) == before,
          "the file changed")
    check(left == [name], "files left beside it: %s" % left)
    line = "recordmcount: %s: %s" % (name, want)
    check(err.splitlines() == [line], "want one line %r, got %r" %
          (line, err))


def run_size32(tool, hosts, scratch, log):
    inputs = size32_inputs(scratch)
    for hname, cmd in hosts:
        for name, (data, want, modes, only32) in sorted(inputs.items()):
            if only32 and hname not in HOSTS_32BIT:
                # What a 64-bit build does with it (allocate 200 GB,
                # rewrite 5 GiB) is not this test's business.
                continue
            for mode, args, source in MODES:
                if source != "input" or mode not in modes:
                    continue
                d = os.path.join(scratch, "size32", hname, name, mode)
                for sub in ("native", "host"):
                    os.makedirs(os.path.join(d, sub), exist_ok=True)
                    write_input(os.path.join(d, sub, name + ".o"), data)
                log.case("hosts/%s/size32/%s/%s" % (hname, name, mode),
                         size32_case, hname, cmd, tool, d, name + ".o",
                         args, want)


def parse_hosts(specs):
    hosts = []
    for spec in specs:
        name, _, rest = spec.partition("=")
        runner, _, tool = rest.partition(":")
        hosts.append((name, [runner, os.path.abspath(tool)]))
    return hosts


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: %s RECORDMCOUNT SCRATCH-DIR [NAME=RUNNER:TOOL]..."
                 % sys.argv[0])
    tool = os.path.abspath(sys.argv[1])
    scratch = os.path.abspath(sys.argv[2])
    hosts = parse_hosts(sys.argv[3:])
    results = os.environ.get("TEST_RESULTS") or os.path.join(scratch,
                                                              "results")
    log = Log(os.path.join(os.path.abspath(results), "hosts.log"))
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    if not hosts:
        log.skip("hosts/compare", "no host build to compare")
        return 0
    t0 = time.time()
    groups, linked = cli_groups(tool, scratch, log)
    groups += cross_groups(tool, scratch, log, linked)
    groups += pads_groups(scratch, log)
    groups.append(linked)
    groups += kernel_groups(scratch, log)
    log.line("hosts: corpus made in %.0f s" % (time.time() - t0))
    t0 = time.time()
    tally = Tally()
    parallel(lambda g: run_group(g, tool, hosts, scratch, log, tally),
             groups)
    run_size32(tool, hosts, scratch, log)
    log.line("hosts: compared in %.0f s" % (time.time() - t0))
    n = sum(len(g.files()) for g in groups)
    log.line("hosts: %d inputs in %d groups, %d modes, %d hosts: %d of %d "
             "output files identical to the native build's" %
             (n, len(groups), len(MODES), len(hosts), tally.same,
              tally.files))
    # hosts.mk prints the totals of hosts.log, unit tests included.
    if log.failed or not log.passed:
        print("scratch files kept in %s" % scratch)
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
