#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""identity.py OLD-TOOL NEW-TOOL SCRATCH-DIR - a change to the tool that
must not change its results: OLD and NEW run over the corpus of
check-hosts (tests/hosts/hosts.py: the CLI suite's objects, bad and
hostile inputs, every cross and pads fixture, linked programs, every
captured kernel object of every build in the cache), in every mode of
check-hosts plus --per-section and --nop --per-section, and must agree
byte for byte: exit status, stdout, stderr, every file.

The corpus is made once and kept in SCRATCH-DIR/corpus (a later run
reuses it; remove the folder to make it again), and the runs in
SCRATCH-DIR/run (removed when every case passes): a tmpfs (/dev/shm)
makes it several times faster.  Inputs are always copies: nothing of
the cache is written.
"""

import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "hosts"))

import hosts  # noqa: E402

hosts.MODES = hosts.MODES + [
    ("per-section", ["--per-section"], "input"),
    ("nop-per-section", ["--nop", "--per-section"], "input"),
]


def make_corpus(tool, scratch, log):
    groups, linked = hosts.cli_groups(tool, scratch, log)
    groups += hosts.cross_groups(tool, scratch, log, linked)
    groups += hosts.pads_groups(scratch, log)
    groups.append(linked)
    groups += hosts.kernel_groups(scratch, log)
    return groups


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n")[0])
    old, new, scratch = (os.path.abspath(a) for a in sys.argv[1:])
    os.makedirs(scratch, exist_ok=True)
    log = hosts.Log(os.path.join(scratch, "identity.log"))
    names = os.path.join(scratch, "groups.json")
    if os.path.exists(names):
        with open(names) as f:
            groups = [hosts.Group(n, scratch) for n in json.load(f)]
    else:
        t0 = time.time()
        groups = make_corpus(old, scratch, log)
        with open(names, "w") as f:
            json.dump([g.name for g in groups], f)
        log.line("identity: corpus made in %.0f s" % (time.time() - t0))
    shutil.rmtree(os.path.join(scratch, "run"), ignore_errors=True)
    t0 = time.time()
    tally = hosts.Tally()
    hosts.parallel(lambda g: hosts.run_group(
        g, old, [("new", ["env", new])], scratch, log, tally), groups)
    n = sum(len(g.files()) for g in groups)
    log.line("identity: %d inputs in %d groups x %d modes in %.0f s: %d of "
             "%d output files identical" % (n, len(groups), len(hosts.MODES),
                                            time.time() - t0, tally.same,
                                            tally.files))
    print("identity: %d passed, %d failed" % (log.passed, log.failed))
    if log.failed or not log.passed:
        print("runs kept in %s" % os.path.join(scratch, "run"))
        return 1
    shutil.rmtree(os.path.join(scratch, "run"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
