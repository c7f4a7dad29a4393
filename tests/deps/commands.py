#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tests/deps/commands.py - every program the project's scripts call
comes from a package the project installs.

A green run on a machine that already had a program proves nothing
about a new machine (it happened: `xxd`, called by the runtime suite,
came with no package scripts/deps.sh installed).  So this reads every
shell script, Makefile fragment and Python script of the tree, takes
the words that stand where a command goes, keeps those that are
programs on this machine, asks dpkg (the oracle: its own file lists)
which package each program file belongs to, and requires that package
to be either part of every Debian system (Priority: required, what
`debootstrap --variant=minbase` installs) or reached through Depends
and Pre-Depends from the packages the project installs
(`scripts/deps.sh --list`, and the kernel harness's own lists).

Prints the table of commands, their packages and where each is first
called, and a PASS or FAIL line per command into TEST_RESULTS/deps.log.
A word that is no program on this machine is not judged here: where a
package is missing, the suite that calls the program fails by itself.
"""
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOG = os.path.join(os.environ.get("TEST_RESULTS") or ".", "deps.log")

# Words in a command's place that name no program: the shell's keywords
# and builtins (dash's and bash's), and words the scanner meets in
# command position that are not commands (here-document text, case
# patterns).
SHELL_WORDS = set("""
if then else elif fi case esac for while until do done in function
select time coproc ! { } [[ ]] [ . : alias bg break builtin cd command
continue declare echo eval exec exit export false fc fg getopts hash
jobs kill let local logout printf pwd read readonly return set shift
shopt source test times trap true type typeset ulimit umask unalias
unset wait
""".split())

# Programs that run the next word as a command.
WRAPPERS = {"exec", "command", "env", "timeout", "nice", "nohup", "xargs",
            "sudo", "chroot", "setsid", "stdbuf", "time", "valgrind"}

# Programs a script uses only where the machine has them (behind
# `command -v`), with the reason: listed, not required.
OPTIONAL = {
    "systemctl": "deps.sh disables iceccd at boot where systemd runs",
}

# The kernel harness installs its own lists (kernel/lib.sh), one per
# architecture of its KERNEL_ALL_ARCHS.
KERNEL_COMPILERS = ("gcc", "clang")


def tracked_files():
    out = subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if os.path.isfile(os.path.join(TOP, f))]


def kind_of(path):
    """'sh', 'make', 'py' or None, by name and first line."""
    base = os.path.basename(path)
    if base == "Makefile" or base.endswith(".mk"):
        return "make"
    if base.endswith(".py"):
        return "py"
    if base.endswith(".sh"):
        return "sh"
    try:
        with open(os.path.join(TOP, path), "rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!"):
        if b"python" in first:
            return "py"
        if re.search(rb"\b(sh|bash|dash)\b", first):
            return "sh"
    return None


def strip_comment(line):
    """The line without a shell comment: a # that starts a word, outside
    quotes."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;(|&"):
            return line[:i]
    return line


def unquote(line):
    """LINE with quoted text taken out: single-quoted text is no command
    (awk and sed programs, grep patterns); of double-quoted text only
    the command substitutions stay, each set apart as a command."""
    out = []
    i, n = 0, len(line)
    quote = None
    while i < n:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = None
            i += 1
        elif quote == '"':
            if c == "\\":
                i += 2
            elif c == '"':
                quote = None
                i += 1
            elif line.startswith("$(", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    depth += {"(": 1, ")": -1}.get(line[j], 0)
                    j += 1
                out.append(" ; " + unquote(line[i + 2:j - 1]) + " ; ")
                i = j
            else:
                i += 1
        elif c == "\\":
            out.append(line[i:i + 2])
            i += 2
        elif c in "'\"":
            quote = c
            out.append(" QUOTED ")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


SPLIT = re.compile(r"&&|\|\||[;|&(){}`]|\$\(|\bthen\b|\bdo\b|\belse\b|"
                   r"\bif\b|\belif\b|\bwhile\b|\buntil\b|!")
WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")


def ends_in_single_quote(line):
    """Whether LINE leaves a single-quoted string open: an awk or sed
    program that goes on over the next lines.  A command substitution
    inside double quotes opens a context of its own, where quotes count
    again."""
    stack = []                  # "'", '"' or "(" for each open context
    i = 0
    while i < len(line):
        c = line[i]
        top = stack[-1] if stack else None
        if top == "'":
            if c == "'":
                stack.pop()
        elif c == "\\":
            i += 1
        elif top == '"':
            if c == '"':
                stack.pop()
            elif line.startswith("$(", i):
                stack.append("(")
                i += 1
        elif c in "'\"":
            stack.append(c)
        elif c == "(" and top == "(":
            stack.append("(")
        elif c == ")" and top == "(":
            stack.pop()
        elif c == "#" and (i == 0 or line[i - 1] in " \t;(|&"):
            break
        i += 1
    return bool(stack) and stack[-1] == "'"


def shell_commands(text):
    """(word, line number) for each word in a command's place."""
    heredoc = None
    in_program = False
    for n, raw in enumerate(text.splitlines(), 1):
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        if in_program:
            if "'" not in raw:
                continue
            # The rest of the line goes on with the program's command:
            # its first word is an argument, as the quoted text was.
            raw = "QUOTED " + raw[raw.index("'") + 1:]
            in_program = False
        in_program = ends_in_single_quote(raw)
        line = strip_comment(raw)
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m:
            heredoc = m.group(1)
        for piece in SPLIT.split(unquote(line)):
            words = piece.split()
            while words:
                w = words.pop(0)
                if "=" in w.split("/")[0] and not w.startswith("="):
                    continue            # an assignment before the command
                if w in ("timeout",) and words and re.match(r"^-|\d", words[0]):
                    while words and re.match(r"^-|\d", words[0]):
                        words.pop(0)    # timeout's options and duration
                    continue
                if w in WRAPPERS and w not in ("xargs",):
                    if w not in SHELL_WORDS:
                        yield w, n
                    while words and words[0].startswith("-"):
                        words.pop(0)
                    continue
                if w == "xargs":
                    yield w, n
                    while words and words[0].startswith("-"):
                        words.pop(0)
                    continue
                w = w.strip("'\"")
                if WORD.match(w):
                    yield w, n
                break


def make_commands(text):
    """Recipe lines and $(shell ...) calls, read as shell."""
    lines = text.splitlines()
    joined = []
    buf = ""
    for raw in lines:
        if raw.endswith("\\"):
            buf += raw[:-1] + " "
            continue
        joined.append(buf + raw)
        buf = ""
    n = 0
    for line in joined:
        n += 1
        shell_bits = re.findall(r"\$\(shell ([^)]*)\)", line)
        if line.startswith("\t"):
            shell_bits.append(line.lstrip("\t").lstrip("@-+"))
        for bit in shell_bits:
            bit = re.sub(r"\$\([A-Za-z_][A-Za-z0-9_]*\)", "", bit)
            bit = bit.replace("$$", "$")
            for w, _ in shell_commands(bit):
                yield w, n


PY_LIST = re.compile(r"(?<![\w\])])\[\s*[\"']([A-Za-z_][A-Za-z0-9_.+-]*)[\"']\s*[,\]]")
PY_CALL = re.compile(r"(?:which|run|call|check_output|check_call|Popen|"
                     r"must|system)\(\s*[\"']([A-Za-z_][A-Za-z0-9_.+-]*)[\"' ]")


def python_commands(text):
    for n, line in enumerate(text.splitlines(), 1):
        for rx in (PY_LIST, PY_CALL):
            for m in rx.finditer(line):
                yield m.group(1), n


# A word shaped like a program's name wherever it stands: most programs
# the suites run are named in variables and strings ("${CROSS}gcc",
# RT_CC_aarch64 := aarch64-linux-gnu-gcc, ["ld.lld", ...]), which the
# command-position scan cannot follow.  Only names with a '-', '.', '+'
# or a digit (cross tools, qemu-system-*, clang-16, ld.gold, python3):
# plain English words in strings and messages would be noise.
TOOL_NAME = re.compile(r"(?<![\w./$-])([A-Za-z_][A-Za-z0-9_]*[-.+0-9]"
                       r"[A-Za-z0-9_.+-]*)")


def tool_names(text):
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for m in TOOL_NAME.finditer(line):
            word = m.group(1).rstrip(".-")      # a sentence's full stop
            if re.search(r"[-.+0-9]", word):
                yield word, n


def called_commands():
    """{command: first 'file:line' that calls or names it}."""
    found = {}
    for path in tracked_files():
        kind = kind_of(path)
        if kind is None or path.startswith("fixtures/"):
            continue
        with open(os.path.join(TOP, path), errors="replace") as f:
            text = f.read()
        scan = {"sh": shell_commands, "make": make_commands,
                "py": python_commands}[kind]
        for words in (scan(text), tool_names(text)):
            for word, n in words:
                if word in SHELL_WORDS:
                    continue
                found.setdefault(word, "%s:%d" % (path, n))
    return found


# What a new Debian machine's root has on its PATH (scripts/fresh.sh
# runs with it): a program found only elsewhere (a pyenv, /opt) is not
# one a new machine has.
DEBIAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def owning_package(program):
    """The package whose file list holds PROGRAM's file, or None."""
    path = shutil.which(program, path=DEBIAN_PATH)
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.append(p[4:])        # merged /usr: /bin, /sbin
        else:
            candidates.append("/usr" + p)
    for p in candidates:
        r = subprocess.run(["dpkg-query", "-S", p], capture_output=True,
                           text=True)
        if r.returncode == 0:
            for line in r.stdout.splitlines():
                pkgs, _, owned = line.partition(": ")
                if owned.strip() == p and "diversion" not in line:
                    return pkgs.split(",")[0].strip().split(":")[0]
    return None


def installed_packages():
    """{name: (priority, [dependency alternatives], [provides])}."""
    fmt = "${Package}\t${db:Status-Abbrev}\t${Priority}\t${Depends}\t" \
          "${Pre-Depends}\t${Provides}\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt],
                         capture_output=True, text=True, check=True).stdout
    pkgs = {}
    for line in out.splitlines():
        name, status, prio, dep, pre, prov = (line.split("\t") + [""] * 6)[:6]
        if not status.startswith("ii"):
            continue
        groups = []
        for field in (dep, pre):
            for group in field.split(","):
                alts = [a.strip().split()[0].split(":")[0]
                        for a in group.split("|") if a.strip()]
                if alts:
                    groups.append(alts)
        provides = [p.strip().split()[0] for p in prov.split(",") if p.strip()]
        pkgs[name] = (prio, groups, provides)
    return pkgs


def closure(roots, pkgs):
    """Every installed package reached from ROOTS through Depends and
    Pre-Depends (any installed alternative; virtual names through
    Provides)."""
    providers = {}
    for name, (_, _, provides) in pkgs.items():
        for p in provides:
            providers.setdefault(p, []).append(name)
    seen = set()
    todo = [r for r in roots if r in pkgs]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for alts in pkgs[name][1]:
            for a in alts:
                for real in ([a] if a in pkgs else []) + providers.get(a, []):
                    if real not in seen:
                        todo.append(real)
    return seen


def deps_list(*groups):
    return subprocess.run(
        [os.path.join(TOP, "scripts", "deps.sh"), "--list"] + list(groups),
        capture_output=True, text=True, check=True).stdout.split()


def project_packages():
    """Every package the project installs anywhere: deps.sh's groups and
    the kernel harness's lists."""
    lists = deps_list("build", "firmware", "check", "fresh", "deb")
    arches = subprocess.run(
        ["sh", "-c", '. ./kernel/lib.sh && echo "$KERNEL_ALL_ARCHS"'],
        cwd=TOP, capture_output=True, text=True, check=True).stdout.split()
    if not arches:
        sys.exit("kernel/lib.sh names no architecture (KERNEL_ALL_ARCHS)")
    for arch in arches:
        for cc in KERNEL_COMPILERS:
            env = dict(os.environ, MC_KERNEL_ARCH=arch, MC_KERNEL_CC=cc)
            lists += subprocess.run(
                ["sh", "-c", '. ./kernel/lib.sh && echo "$KERNEL_PACKAGES"'],
                cwd=TOP, env=env, capture_output=True, text=True,
                check=True).stdout.split()
    return sorted(set(lists))


def scanner_skips_programs():
    """(ok, name, why): a program in single quotes over several lines,
    inside a command substitution in double quotes too, names no
    command; what follows its closing quote does."""
    text = ('x="$(awk \'\n\topen = 1\n\tprintf "%d", n\n'
            '\' "$f" | sort)"\nawk \'\n\tsplit($0, a)\n\' f | uniq\n')
    found = sorted({w for w, _ in shell_commands(text) if w != "QUOTED"})
    return (found == ["awk", "sort", "uniq"], "deps/scanner-awk-programs",
            "found %s in a sample, not awk, sort and uniq" % found)


def main():
    os.makedirs(os.path.dirname(LOG) or ".", exist_ok=True)
    results = []

    def report(ok, name, why=""):
        line = ("PASS: %s" % name) if ok else ("FAIL: %s: %s" % (name, why))
        results.append(line)
        print(line)

    pkgs = installed_packages()
    # make check installs its group first (the Makefile): all of it.
    missing = [p for p in deps_list("check") if p not in pkgs]
    report(not missing, "deps/check-group-installed",
           "not installed: %s" % " ".join(missing))
    reached = closure(project_packages(), pkgs)

    report(*scanner_skips_programs())
    calls = called_commands()
    rows = []
    for cmd, where in sorted(calls.items()):
        path = shutil.which(cmd, path=DEBIAN_PATH)
        if path is None:
            continue                    # no program by that name here
        real = os.path.realpath(path)
        if real.startswith(TOP + os.sep):
            rows.append((cmd, "(this project)", where))
            continue
        if cmd in OPTIONAL:
            rows.append((cmd, "(optional: %s)" % OPTIONAL[cmd], where))
            continue
        pkg = owning_package(cmd)
        if pkg is None:
            report(False, "deps/command/" + cmd,
                   "%s (%s, called at %s) belongs to no Debian package"
                   % (cmd, real, where))
            rows.append((cmd, "?", where))
            continue
        prio = pkgs.get(pkg, ("",))[0]
        if prio == "required":
            how = "%s (required)" % pkg
        elif pkg in reached:
            how = pkg
        else:
            how = None
        rows.append((cmd, how or pkg + " (NOT INSTALLED BY THE PROJECT)", where))
        report(how is not None, "deps/command/" + cmd,
               "%s, called at %s, comes from %s, which no package the "
               "project installs depends on (scripts/deps.sh)"
               % (cmd, where, pkg))

    print("\n%-28s %-40s %s" % ("command", "package", "first called at"))
    for cmd, how, where in rows:
        print("%-28s %-40s %s" % (cmd, how, where))
    print()
    report(len(rows) >= 20, "deps/commands-found",
           "only %d commands found in the scripts: the scanner is broken"
           % len(rows))
    with open(LOG, "a") as f:
        f.write("\n".join(results) + "\n")
    return 1 if any(r.startswith("FAIL") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
