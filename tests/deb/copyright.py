#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tests/deb/copyright.py - debian/copyright says for every tracked file
what the file's own SPDX-License-Identifier line says.

The oracle is the files themselves: for each tracked file with an SPDX
line in its first 5 lines, the last Files stanza of debian/copyright
whose pattern matches its path (DEP-5: the last match wins; `*` matches
`/` too) must name the same license, DEP-5's Expat being SPDX's MIT.
Every License a stanza names must have its text in a stand-alone
License paragraph.  Prints PASS or FAIL lines (the mismatches, a few).
"""
import fnmatch
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEP5_TO_SPDX = {"Expat": "MIT"}


def paragraphs(path):
    """The copyright file's paragraphs, each a dict of field -> value."""
    out = []
    with open(path, encoding="utf-8") as f:
        for block in re.split(r"\n\s*\n", f.read()):
            fields, key = {}, None
            for line in block.splitlines():
                if line[:1] in (" ", "\t") and key:
                    fields[key] += "\n" + line.strip()
                elif ":" in line:
                    key, value = line.split(":", 1)
                    fields[key] = value.strip()
            if fields:
                out.append(fields)
    return out


def spdx_of(path):
    try:
        with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as f:
            head = [f.readline() for _ in range(5)]
    except OSError:
        return None
    for line in head:
        m = re.search(r"SPDX-License-Identifier: ([A-Za-z0-9.+-]+)", line)
        if m:
            return m.group(1)
    return None


def main():
    paras = paragraphs(os.path.join(TOP, "debian", "copyright"))
    stanzas = [(p["Files"].split(), p["License"].split("\n")[0].strip())
               for p in paras if "Files" in p]
    texts = {p["License"].split("\n")[0].strip() for p in paras
             if "Files" not in p and "License" in p and "\n" in p["License"]}
    bad = [f"License {lic} has no text paragraph"
           for _, lic in stanzas if lic not in texts]
    files = subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True,
                           text=True, check=True).stdout.split()
    checked = 0
    for path in files:
        spdx = spdx_of(path)
        if spdx is None:
            continue
        checked += 1
        said = None
        for patterns, lic in stanzas:
            if any(fnmatch.fnmatchcase(path, p) for p in patterns):
                said = lic
        if DEP5_TO_SPDX.get(said, said) != spdx:
            bad.append(f"{path}: SPDX {spdx}, debian/copyright {said}")
    if bad:
        for b in bad[:5]:
            print(f"FAIL: deb/copyright: {b}")
        if len(bad) > 5:
            print(f"FAIL: deb/copyright: and {len(bad) - 5} more")
        return 1
    print(f"PASS: deb/copyright: {checked} files, each as its SPDX line says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
