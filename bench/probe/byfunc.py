# SPDX-License-Identifier: GPL-2.0-only
# bench/probe/byfunc.py CALLGRIND.OUT (issue 30): self Ir summed by the source function each
# line is written in (inlined code credited to its own function).
import re, subprocess, sys, collections
out = subprocess.run(["callgrind_annotate", "--auto=yes", "--context=0",
                      "--threshold=100", sys.argv[1]],
                     capture_output=True, text=True).stdout
cache = {}
def starts(path):
    if path not in cache:
        st = []
        try:
            for i, l in enumerate(open(path).read().splitlines(), 1):
                m = re.match(r'^[a-z_].*?\b(\w+)\((?!.*;\s*$)', l)
                if m and not l.startswith(("}", "#")) and "=" not in l.split("(")[0]:
                    st.append((i, m.group(1)))
        except OSError:
            pass
        cache[path] = st
    return cache[path]
def funcof(path, line):
    name = "?"
    for i, n in starts(path):
        if i <= line: name = n
        else: break
    return name
tot = collections.Counter(); cur = None; line = None
for l in out.splitlines():
    m = re.match(r'^-- Auto-annotated source: (.*)', l)
    if m: cur = m.group(1).strip(); continue
    m = re.match(r'^-- line (\d+) -', l)
    if m: line = int(m.group(1)); continue
    m = re.match(r'^\s*([\d,]+) \(\s*[\d.]+%\)  ', l)
    if cur and line and m and (l[m.end():].lstrip().startswith("=>") or "events annotated" in l):
        continue
    if cur and line and m:
        tot[(cur.split("/")[-1], funcof(cur, line))] += int(m.group(1).replace(",", ""))
        line += 1
for (f, fn), v in tot.most_common(40):
    print("%12s  %s:%s" % (format(v, ","), f, fn))
print("total", format(sum(tot.values()), ","))
