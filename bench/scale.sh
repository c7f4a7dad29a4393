#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/scale.sh TOOL - `make bench-scale` (part of `make bench`): TOOL
# against the kernel's own recordmcount on generated objects of 10^3 up
# to BENCH_SCALE_MAX hooks (bench/scale.py says what is measured).  The
# kernel's tool is compiled for this host from the kernel source the
# kernel test extracts (kernel/prepare.sh, into the cache).
set -eu
MC_KERNEL_ARCH=x86_64
. "$(dirname "$0")/../kernel/lib.sh"

tool=${1:?usage: scale.sh PATH-TO-OUR-RECORDMCOUNT}
out=$MC_KERNEL_CACHE/bench/scale
mkdir -p "$out"
"$MC_TOP/kernel/prepare.sh"
kernel_tool=$out/kernel-recordmcount
src=$KERNEL_SRC/scripts/recordmcount.c
if [ ! -x "$kernel_tool" ] || [ "$src" -nt "$kernel_tool" ]; then
	gcc -O2 -I"$KERNEL_SRC/tools/include" -o "$kernel_tool" "$src"
fi
# libelf's floor for the memory row (issue 30): linked as our tool is
# (static, the same libelf), so that the two peaks compare.
floor=$out/elffloor
if [ ! -x "$floor" ] || [ "$MC_TOP/bench/scale/elffloor.c" -nt "$floor" ]; then
	gcc -O2 $(pkg-config --cflags libelf 2>/dev/null) -o "$floor" \
		"$MC_TOP/bench/scale/elffloor.c" -static \
		$(pkg-config --libs libelf 2>/dev/null || echo -lelf) -lz
fi
echo "## recordmcount against input size"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- ours: $tool; kernel: scripts/recordmcount.c of linux-source-$KERNEL_SERIES, gcc -O2"
echo "- $(uname -sr); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
python3 "$MC_TOP/bench/scale.py" "$tool" "$kernel_tool" "$out" "$floor"
