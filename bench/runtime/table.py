#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""table.py N OUT.c - the table of gen.py's N functions f0 .. f(N-1),
as bench/runtime/attach.c calls them."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("#include <stddef.h>\n")
    for i in range(n):
        f.write("int f%d(int);\n" % i)
    f.write("int (*const bench_funcs[])(int) = {\n")
    for i in range(n):
        f.write("\tf%d,\n" % i)
    f.write("};\nconst size_t bench_nfuncs = %d;\n" % n)
