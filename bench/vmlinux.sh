#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/vmlinux.sh TOOL OUT-DIR - `make bench-vmlinux` (part of `make
# bench`): TOOL and the kernel's own recordmcount each record the
# vmlinux.o of the x86_64 kernel build in the cache, whole, with its
# table taken out (bench/vmlinux.py says what is compared).  Only reads
# the cache: the build is kernel/build.sh's (check-kernel's small
# config), and so is the kernel's tool (Kbuild's own build of
# scripts/recordmcount.c).  SKIP when that tree is not there.
set -eu
MC_KERNEL_ARCH=x86_64
. "$(dirname "$0")/../kernel/lib.sh"

tool=${1:?usage: vmlinux.sh PATH-TO-OUR-RECORDMCOUNT OUT-DIR}
out=${2:?usage: vmlinux.sh PATH-TO-OUR-RECORDMCOUNT OUT-DIR}
vmlinux=$KBUILD/vmlinux.o
echo "## A real vmlinux.o, recorded whole"
echo
if [ ! -f "$vmlinux" ] || [ ! -x "$KERNEL_TOOL" ]; then
	echo "SKIP: bench-vmlinux: no $vmlinux or $KERNEL_TOOL (make check-kernel builds them)"
	exit 0
fi
mkdir -p "$out"
# The binary under test is copied first, so that a rebuild of the work
# tree meanwhile changes nothing here.
cp "$tool" "$out/recordmcount"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(uname -sr); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "- the kernel: check-kernel's small config (tinyconfig + ftrace, kernel/x86_64.config), not defconfig"
echo "- ours: $tool; kernel: $KERNEL_TOOL (Kbuild's build of linux-source-$KERNEL_SERIES's scripts/recordmcount.c)"
python3 "$MC_TOP/bench/vmlinux.py" "$out/recordmcount" "$KERNEL_TOOL" "$vmlinux" "$out"
