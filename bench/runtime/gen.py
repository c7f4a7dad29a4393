#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""gen.py N OUT.c - N small functions that the compiler keeps apart."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("#define F(i) __attribute__((noinline, used)) "
            "int f##i(int x) { return x + i; }\n")
    for i in range(n):
        f.write("F(%d)\n" % i)
