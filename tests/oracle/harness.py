# SPDX-License-Identifier: GPL-2.0-only
"""harness - what the oracle and CLI suites share.

Compiling fixtures, running tools, reading the answers of independent
tools (GCC's -mrecord-mcount, readelf, objdump, ld) and logging one
"PASS: name" / "FAIL: name: reason" line per test case.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(TOP, "fixtures")
SUPPORT = os.path.join(FIXTURES, "support")

HOOKS = ("__fentry__", "mcount", "_mcount")

# The sections traced by default, from the tool's specification.
DEFAULT_TRACED = (".text*", ".init.text", ".ref.text", ".sched.text",
                  ".spinlock.text", ".irqentry.text", ".softirqentry.text",
                  ".kprobes.text", ".cpuidle.text")

NOP = {5: bytes.fromhex("0f1f440000"), 6: bytes.fromhex("660f1f440000")}


def traced(name, sections=(), no_sections=()):
    if any(fnmatch.fnmatchcase(name, g) for g in no_sections):
        return False
    return any(fnmatch.fnmatchcase(name, g)
               for g in DEFAULT_TRACED + tuple(sections))


class Config:
    """One way of compiling: architecture, hook style, PIE, optimisation,
    and the compiler (gcc unless named: clang, clang-16)."""

    def __init__(self, arch, hook, pie, opt, compiler="gcc"):
        self.arch, self.hook, self.pie, self.opt = arch, hook, pie, opt
        self.compiler = compiler

    @property
    def name(self):
        return "%s-%s-%s-%s%s" % (self.arch, self.hook,
                                  "pie" if self.pie else "nopie",
                                  self.opt.replace(" ", "").replace("-", ""),
                                  "" if self.compiler == "gcc" else
                                  "-" + self.compiler)

    @property
    def base_flags(self):
        # cc() takes the compiler out of the flags.
        f = [] if self.compiler == "gcc" else ["--cc=" + self.compiler]
        f += ["-m32"] if self.arch == "i386" else []
        if not self.pie:
            f.append("-fno-pie")
        return f

    @property
    def pg_flags(self):
        f = ["-pg"]
        if self.hook == "fentry":
            f.append("-mfentry")
        return f

    @property
    def link_flags(self):
        return self.base_flags + ([] if self.pie else ["-no-pie"])

    @property
    def ld_emulation(self):
        return "elf_i386" if self.arch == "i386" else "elf_x86_64"

    @property
    def none_reloc(self):
        return "R_386_NONE" if self.arch == "i386" else "R_X86_64_NONE"

    @property
    def supported(self):
        # GCC: "-mfentry isn't supported for 32-bit in combination with -fpic"
        return not (self.arch == "i386" and self.hook == "fentry" and
                    self.pie)


def all_configs(opts=("-O0", "-O2", "-O2 -ffunction-sections")):
    out = []
    for arch in ("x86_64", "i386"):
        for hook in ("fentry", "mcount"):
            for pie in (True, False):
                for opt in opts:
                    c = Config(arch, hook, pie, opt)
                    if c.supported:
                        out.append(c)
    return out


# Some x86_64 hosts cannot run 32-bit programs at all: a kernel built
# or booted with IA32 emulation off (this project's CI machine is one)
# answers ENOEXEC.  There, i386 programs run under qemu-user like every
# other foreign target, with the i686 cross toolchain's libraries.
I386_LOADER = "/usr/i686-linux-gnu/lib/ld-linux.so.2"
# The libraries too (-E): the cross loader would otherwise take this
# host's ld.so.cache to libc6-i386's libc, another glibc build
# (tests/runtime/arches.sh says what then goes wrong).
I386_QEMU = ["qemu-i386", "-L", "/usr/i686-linux-gnu",
             "-E", "LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib"]
_i386_native = None


def i386_runs_natively():
    global _i386_native
    if _i386_native is None:
        try:
            _i386_native = subprocess.run(
                [I386_LOADER, "--help"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0
        except OSError:
            _i386_native = False
    return _i386_native


def is_i386_program(path):
    """An ELF32 EM_386 file (not a script, not a host program)."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return False
    return (len(head) == 20 and head[:4] == b"\x7fELF" and head[4] == 1 and
            head[18] == 3 and head[19] == 0)


def runner_for(cmd):
    """cmd, with qemu-i386 in front where an i386 program cannot run here."""
    if cmd and is_i386_program(cmd[0]) and not i386_runs_natively():
        return I386_QEMU + list(cmd)
    return cmd


def run(cmd, **kw):
    """Run cmd; return (exit status, stdout, stderr) as text."""
    p = subprocess.run(runner_for(cmd), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, **kw)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


class Failure(Exception):
    pass


def check(cond, why):
    if not cond:
        raise Failure(why)


def must(cmd, **kw):
    rc, out, err = run(cmd, **kw)
    if rc != 0:
        raise Failure("%s exited %d: %s" % (os.path.basename(cmd[0]), rc,
                                            err.strip()[:300]))
    return out, err


# Debian's gcc-multilib conflicts with its cross compilers, so i386 code
# comes from the i686 cross compiler; "-m32" in a flag list selects it.
CC_I386 = "i686-linux-gnu-gcc"


def cc(flags):
    """The compiler command line for these flags ("--cc=NAME" among them
    names a compiler other than gcc; x86_64 only)."""
    named = [f for f in flags if f.startswith("--cc=")]
    if named:
        return [named[0][5:]] + [f for f in flags if f not in named]
    if "-m32" in flags:
        return [CC_I386] + [f for f in flags if f != "-m32"]
    return ["gcc"] + list(flags)


def compile_c(src, obj, flags):
    must(cc(["-c", "-o", obj] + flags + [src]))
    return obj


def fixture(name):
    return os.path.join(FIXTURES, name)


# Extra flags some fixtures need wherever they are compiled.
FIXTURE_FLAGS = {"weakonly.c": ["-fno-asynchronous-unwind-tables"]}


class Log:
    """PASS/FAIL lines on stdout and in the suite's log file."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.passed = self.failed = self.skipped = 0
        os.makedirs(os.path.dirname(path), exist_ok=True)

    def line(self, text):
        with self.lock:
            print(text, flush=True)
            with open(self.path, "a") as f:
                f.write(text + "\n")

    def result(self, name, reason=None):
        with self.lock:
            if reason is None:
                self.passed += 1
            else:
                self.failed += 1
        reason = None if reason is None else " ".join(str(reason).split())
        self.line("PASS: %s" % name if reason is None else
                  "FAIL: %s: %s" % (name, reason))

    def skip(self, name, why):
        """A case that cannot run here: counted by summary.sh."""
        with self.lock:
            self.skipped += 1
        self.line("SKIP: %s: %s" % (name, why))

    def case(self, name, fn, *args):
        """Run fn(*args); a Failure or any exception fails the case."""
        try:
            fn(*args)
        except Failure as e:
            self.result(name, e)
        except Exception as e:  # a bug in the test is a failure too
            self.result(name, "%s: %s" % (type(e).__name__, e))
        else:
            self.result(name)

    def finish(self):
        print("%d passed, %d failed, %d skipped" % (self.passed, self.failed,
                                                    self.skipped))
        return 1 if self.failed or not self.passed else 0


def parallel(fn, items, jobs=None):
    jobs = jobs or max(2, os.cpu_count() or 2)
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(fn, items))


# -- what the independent tools say ------------------------------------

CALL_RE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$")
HOOK_CALL_RE = re.compile(r"\bcall[lq]?\s+\*?[0-9a-fx]+ <(%s)(@plt)?>" %
                          "|".join(re.escape(h) for h in HOOKS))


def objdump_insns(path, section=None):
    """{section name: {address: (bytes, text)}} from objdump -d."""
    cmd = ["objdump", "-d", "-w"]
    if section:
        cmd += ["-j", section]
    out, _ = must(cmd + [path])
    result, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            cur = result.setdefault(m.group(1), {})
            continue
        m = CALL_RE.match(line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = (bytes.fromhex(m.group(2)),
                                        m.group(3).strip())
    return result


def linked_hook_calls(prog):
    """{address: output section} of every direct call to a hook that
    objdump -d shows in a linked program."""
    calls = {}
    for sec, insns in objdump_insns(prog).items():
        for addr, (_b, text) in insns.items():
            if HOOK_CALL_RE.search(text):
                calls[addr] = sec
    return calls


def readelf_relocs(path):
    """{relocation section: [(offset, type, symbol and addend)]} from
    readelf -rW, without the Info column (symbol indices may move)."""
    out, _ = must(["readelf", "-rW", path])
    result, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^Relocation section '([^']*)'", line)
        if m:
            cur = result.setdefault(m.group(1), [])
            continue
        f = line.split()
        if cur is None or len(f) < 3 or not re.match(r"^[0-9a-f]+$", f[0]) \
                or not f[2].startswith("R_"):
            continue
        cur.append((int(f[0], 16), f[2], " ".join(f[4:])))
    return result


def objdump_reloc_sites(path, symbol):
    """{(section, offset of the instruction)} of every call whose operand
    objdump -dr shows relocated against symbol."""
    out, _ = must(["objdump", "-dr", path])
    sites, cur, last = set(), None, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            cur, last = m.group(1), None
            continue
        m = CALL_RE.match(line)
        if m:
            last = int(m.group(1), 16)
            continue
        m = re.match(r"^\s*([0-9a-f]+): (R_\w+)\s+(\S+?)(?:[-+]0x[0-9a-f]+)?$",
                     line)
        if m and m.group(3) in (symbol, symbol + "@PLT") and last is not None:
            sites.add((cur, last))
    return sites


def snapshot(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return f.read(), st.st_mtime_ns, st.st_mode


def age(path):
    """Move a file's times into the past so any rewrite shows."""
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))


def scratch_arg():
    """(tool, private scratch directory, results directory) from argv.
    Each run works in its own new directory under SCRATCH-DIR, so two
    runs at once (make and make SANITIZE=1, say) cannot clobber each
    other; finish_scratch() removes it when every case passed."""
    if len(sys.argv) != 3:
        sys.exit("usage: %s RECORDMCOUNT SCRATCH-DIR" % sys.argv[0])
    tool = os.path.abspath(sys.argv[1])
    base = os.path.abspath(sys.argv[2])
    os.makedirs(base, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="run-", dir=base)
    results = os.environ.get("TEST_RESULTS") or os.path.join(base,
                                                             "results")
    return tool, scratch, os.path.abspath(results)


def finish_scratch(log, scratch):
    status = log.finish()
    if status == 0:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print("scratch files kept in %s" % scratch)
    return status
