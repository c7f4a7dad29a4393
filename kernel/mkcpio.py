#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""mkcpio.py OUT INIT [FILE]... [--tree DIR] - write an initramfs
(cpio "newc") holding INIT as /init, each FILE at the top (the test
module), a /dev/console character device (5, 1) for the kernel to open
as init's stdin/stdout, and empty /proc and /sys to mount on.  With
--tree, also everything under DIR (folders, files with their modes,
symbolic links) at the same paths under / (the ftrace selftests'
userland, ftracetest.sh).  Written here so that no root rights
(mknod) are needed."""
import os
import stat
import sys


def entry(ino, name, mode, data=b"", rdev=(0, 0)):
    """One newc member: a 110-byte ASCII header, the name and the data,
    each padded to 4 bytes."""
    name_bytes = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name_bytes), 0]
    header = b"070701" + b"".join(b"%08x" % f for f in fields)
    out = header + name_bytes
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def tree_entries(top, first_ino):
    """Every folder, file and symbolic link under top, parents first,
    named by its path relative to top."""
    members = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in dirs + sorted(files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(path).encode()
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    data = f.read()
            elif stat.S_ISDIR(st.st_mode):
                data = b""
            else:
                sys.exit("mkcpio.py: %s: not a file, folder or link" % path)
            members.append(entry(first_ino + len(members), rel,
                                 st.st_mode, data))
    return members


def main():
    out, init = sys.argv[1:3]
    extra = sys.argv[3:]
    tree = None
    if "--tree" in extra:
        at = extra.index("--tree")
        tree = extra[at + 1]
        del extra[at:at + 2]
    with open(init, "rb") as f:
        init_data = f.read()
    archive = b"".join([
        entry(1, "dev", stat.S_IFDIR | 0o755),
        entry(2, "dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1)),
        entry(3, "proc", stat.S_IFDIR | 0o755),
        entry(4, "sys", stat.S_IFDIR | 0o755),
        entry(5, "init", stat.S_IFREG | 0o755, init_data),
    ] + [entry(6 + i, os.path.basename(path), stat.S_IFREG | 0o644,
               open(path, "rb").read())
         for i, path in enumerate(extra)] +
        (tree_entries(tree, 6 + len(extra)) if tree else []) + [
        entry(0, "TRAILER!!!", 0),
    ])
    with open(out, "wb") as f:
        f.write(archive)


if __name__ == "__main__":
    main()
