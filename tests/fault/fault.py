#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""fault.py RECORDMCOUNT SCRATCH-DIR SHIM - a record run, and a --finalize
run on a linked program, whose writes fail.

Every call that puts the new object on disk (write, writev, pwrite,
pwritev, ftruncate, fchmod, fchown, fsync, close, rename: see fault.c)
fails in turn, with ENOSPC, with EIO, or as a short write, and the run
is killed (SIGKILL) just before and just after each; then a full file system (a small
tmpfs, when this runs as root and may mount) at every level of free
space up to what the output needs, and a file size limit (ulimit -f).
Each time the file must be byte-for-byte as it was (and the run exit 1
with one line saying why) or the complete output of an undisturbed run
(exit 0), and nothing else may be left in its directory.  A killed
run may leave the input with unreferenced bytes after its end (the
append writer), or a temporary file beside it (the rename writer, which
a SIGKILL gives no chance to clean up), and nothing else.  Each record
run goes once through the append writer and once, the input having a
second name (hard link) elsewhere, through the rename writer, whose
other name must keep the input byte for byte.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "oracle"))

from harness import (Log, check, compile_c, fixture, must,  # noqa: E402
                     parallel, run, snapshot)

TOOL = SCRATCH = SHIM = None
MODES = ("enospc", "eio", "short", "kill", "killafter")


def case_dir(name):
    d = os.path.join(SCRATCH, "cases", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def record(path, args, env=None, limit=None):
    cmd = [TOOL] + args + [path]
    if limit:
        cmd = ["sh", "-c", 'ulimit -f %d && exec "$@"' % limit, "sh"] + cmd
    e = dict(os.environ)
    e.update(env or {})
    if "LD_PRELOAD" in e:
        # In the ASan build the shim comes before ASan's runtime: allowed,
        # it only wraps libc calls.
        e["ASAN_OPTIONS"] = ":".join(filter(None, [
            e.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
    return run(cmd, env=e)


def place(obj, d, linked):
    """A copy of obj in d, with a second name beside d when linked."""
    path = os.path.join(d, "x.o")
    shutil.copyfile(obj, path)
    if linked:
        other = d + "-link"
        shutil.rmtree(other, ignore_errors=True)
        os.makedirs(other)
        os.link(path, os.path.join(other, "x.o"))
    return path


def other_name_kept(d, original):
    other = os.path.join(d + "-link", "x.o")
    with open(other, "rb") as f:
        check(f.read() == original, "the other name of the file changed")


def reference(obj, args, tag, linked):
    """(output bytes, number of counted calls) of an undisturbed run."""
    d = case_dir("ref-" + tag)
    path = place(obj, d, linked)
    report = os.path.join(SCRATCH, "count-" + tag)
    rc, _o, err = record(path, args, {"LD_PRELOAD": SHIM,
                                      "FAULT_REPORT": report})
    check(rc == 0, "undisturbed run: exit %d: %s" % (rc, err))
    with open(report) as f:
        calls = int(f.read())
    # The append writer: a write of what goes after the end, one of the
    # ELF header, the close.
    check(calls >= 3, "only %d calls counted: is the shim in front?" % calls)
    with open(path, "rb") as f:
        out = f.read()
    with open(obj, "rb") as f:
        original = f.read()
    check(out != original, "the undisturbed run changed nothing")
    if linked:
        other_name_kept(d, original)
    else:
        # The append writer: every byte of the input after its ELF
        # header is where it was.
        ehsize = 64 if original[4] == 2 else 52
        check(out[ehsize:len(original)] == original[ehsize:],
              "an input byte moved: not the append writer")
    return out, calls


def verdict(path, original, complete, rc, err, want_ok=False):
    """The file is the original (after a reported failure) or complete."""
    with open(path, "rb") as f:
        now = f.read()
    left = sorted(os.listdir(os.path.dirname(path)))
    check(left == [os.path.basename(path)], "left behind: %r" % left)
    if rc == 0:
        check(now == complete, "exit 0 but the output is not complete "
              "(%d bytes, want %d)" % (len(now), len(complete)))
        return
    check(not want_ok, "exit %d: %s" % (rc, err.strip()))
    check(rc == 1, "exit %d: %s" % (rc, err.strip()))
    check(now == original, "failed (%s) but the file changed" %
          err.strip())
    lines = err.splitlines()
    check(len(lines) == 1 and lines[0].startswith(
        "recordmcount: %s: " % path), "want one line, got %r" % err)


def killed_verdict(path, original, complete, rc):
    """Killed: the input (perhaps with bytes after its end) or the
    complete output; a temporary file at most beside it."""
    with open(path, "rb") as f:
        now = f.read()
    name = os.path.basename(path)
    left = [f for f in os.listdir(os.path.dirname(path)) if f != name]
    check(all(f.startswith("." + name + ".rmc-") for f in left),
          "left behind: %r" % left)
    if rc == 0:
        check(now == complete, "exit 0 but the output is not complete")
        return
    check(rc == -9, "exit %d, not killed" % rc)
    check(now == complete or now[:len(original)] == original,
          "killed, and the file is neither the input nor the output "
          "(%d bytes; input %d, output %d)" % (len(now), len(original),
                                               len(complete)))


def nth_call_fails(obj, args, tag, n, mode, complete, linked):
    d = case_dir("%s-%d-%s" % (tag, n, mode))
    path = place(obj, d, linked)
    os.chmod(path, 0o640)
    original = snapshot(path)
    rc, _o, err = record(path, args, {"LD_PRELOAD": SHIM, "FAULT_N": str(n),
                                      "FAULT_MODE": mode})
    if linked:
        other_name_kept(d, original[0])
    if mode.startswith("kill"):
        killed_verdict(path, original[0], complete, rc)
        return
    # A short write is not an error: the caller must write the rest.
    verdict(path, original[0], complete, rc, err, want_ok=mode == "short")
    if rc == 0:
        check(os.stat(path).st_mode & 0o7777 == 0o640, "mode not kept")
    else:
        check(snapshot(path) == original, "mtime or mode changed")


def file_size_limit(obj, args, tag, complete):
    """ulimit -f below the output's size: EFBIG, not death by SIGXFSZ."""
    d = case_dir("%s-ulimit" % tag)
    path = os.path.join(d, "x.o")
    shutil.copyfile(obj, path)
    original = snapshot(path)
    blocks = max(1, len(complete) // 1024 - 1)  # bash: 1024, dash: 512
    rc, _o, err = record(path, args, limit=blocks)
    check(rc != 0, "wrote %d bytes under ulimit -f %d" % (len(complete),
                                                           blocks))
    verdict(path, original[0], complete, rc, err)


def mount_tmpfs(d, size):
    os.makedirs(d, exist_ok=True)
    rc, _o, err = run(["mount", "-t", "tmpfs", "-o", "size=%d" % size,
                       "tmpfs", d])
    return rc == 0, err.strip()


def full_filesystem(obj, args, tag, complete, log, appends):
    """A tmpfs with every amount of free space, a page at a time, from
    none to more than the output needs."""
    name = "fault/full-tmpfs/%s" % tag
    if os.geteuid() != 0:
        log.line("SKIP: %s: not root, cannot mount a tmpfs" % name)
        return
    page = os.sysconf("SC_PAGE_SIZE")
    in_size = os.path.getsize(obj)
    size = (in_size + len(complete)) // page * page + 8 * page
    mnt = os.path.join(SCRATCH, "mnt-" + tag)
    ok, why = mount_tmpfs(mnt, size)
    if not ok:
        log.line("SKIP: %s: cannot mount a tmpfs: %s" % (name, why))
        return

    def body():
        outcomes = set()
        for free_pages in range(0, len(complete) // page + 3):
            d = os.path.join(mnt, "d")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            path = os.path.join(d, "x.o")
            shutil.copyfile(obj, path)
            original = snapshot(path)
            filler = os.path.join(mnt, "filler")
            fill_to(filler, mnt, free_pages * page)
            rc, _o, err = record(path, args)
            verdict(path, original[0], complete, rc, err)
            outcomes.add(rc)
            os.unlink(filler)
        # The append writer needs no new page when what it adds fits in
        # the input's last one: then no amount of free space makes it fail.
        pages = (len(complete) + page - 1) // page
        want = {0, 1} if (not appends or pages > (in_size + page - 1) //
                          page) else {0}
        check(outcomes == want, "saw exits %r, want %r (a full disk "
              "failure and, with room, success)" % (sorted(outcomes),
                                                    sorted(want)))
    try:
        log.case(name, body)
    finally:
        subprocess.run(["umount", mnt])


def fill_to(filler, mnt, free):
    """Grow `filler` until the file system has `free` bytes left."""
    st = os.statvfs(mnt)
    avail = st.f_bavail * st.f_frsize
    with open(filler, "wb") as f:
        if avail > free:
            try:
                f.write(b"\0" * (avail - free))
            except OSError:
                pass


# A program whose table --finalize changes: a __weak body that another
# object overrides (its entry goes stale), linked with the table script.
FINALIZE_SOURCES = {
    "weak.c": "__attribute__((weak)) int pick(int x) { return x + 1; }\n"
              "int use(int x) { return pick(x) * 2; }\n",
    "strong.c": "int pick(int x) { return x + 2; }\n"
                "int main(void) { extern int use(int); return use(1); }\n",
    "hook.c": "void __fentry__(void) { }\n",
}


def finalize_input():
    """The linked program (its objects recorded first), and a check that
    --finalize has something to change in it."""
    d = os.path.join(SCRATCH, "finalize-input")
    os.makedirs(d, exist_ok=True)
    objs = []
    for name, text in sorted(FINALIZE_SOURCES.items()):
        src = os.path.join(d, name)
        with open(src, "w") as f:
            f.write(text)
        obj = src[:-2] + ".o"
        flags = [] if name == "hook.c" else ["-pg", "-mfentry"]
        must(["gcc", "-O2"] + flags + ["-c", src, "-o", obj])
        if flags:
            must([TOOL, obj])
        objs.append(obj)
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    prog = os.path.join(d, "prog")
    must(["gcc", "-o", prog] + objs +
          ["-Wl,-T," + os.path.join(top, "lds", "mcount.lds")])
    rc, out, err = run([TOOL, "--check", prog])
    check(rc == 1 and "stale" in out, "the program has no stale entry for "
          "--finalize to clear: exit %d, %s" % (rc, (out + err).strip()))
    return prog


def main():
    global TOOL, SCRATCH, SHIM
    TOOL, SCRATCH, SHIM = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    log = Log(os.path.join(os.environ["TEST_RESULTS"], "fault.log"))
    objs = {}
    for key, src, flags in (
            ("basic", "basic.c", ["-O2", "-pg", "-mfentry"]),
            # binutils drops the section symbols: one is added.
            ("weakonly", "weakonly.c", ["-O2", "-pg", "-mfentry",
                                        "-fno-asynchronous-unwind-tables"])):
        objs[key] = compile_c(fixture(src), os.path.join(SCRATCH, key + ".o"),
                              flags)
    runs = [(key, obj, args, key + ("-nop" if args else "") +
             ("-linked" if linked else ""), linked)
            for key, obj in sorted(objs.items()) for args in ([], ["-n"])
            for linked in (False, True)]
    # --finalize rewrites a linked image through the rename writer.
    runs.append(("finalize", finalize_input(), ["--finalize"], "finalize",
                 True))
    cases = []
    for key, obj, args, tag, linked in runs:
        complete, calls = reference(obj, args, tag, linked)
        # One past the count: a run with no failure at all.
        for n in range(1, calls + 2):
            for mode in MODES:
                cases.append((
                    "fault/call-%d-%s/%s" % (n, mode, tag),
                    lambda o=obj, a=args, t=tag, n=n, m=mode, c=complete,
                    lk=linked: nth_call_fails(o, a, t, n, m, c, lk)))
        # Without the second name: the copies below take the append
        # writer, so only the runs with one name have its output.
        if linked and key != "finalize":
            continue
        cases.append(("fault/ulimit-f/%s" % tag,
                      lambda o=obj, a=args, t=tag, c=complete:
                      file_size_limit(o, a, t, c)))
        if args != ["-n"]:
            full_filesystem(obj, args, tag, complete, log,
                            key != "finalize")
    parallel(lambda nc: log.case(nc[0], nc[1]), cases)
    print("%d passed, %d failed" % (log.passed, log.failed))
    sys.exit(1 if log.failed or not log.passed else 0)


if __name__ == "__main__":
    main()
