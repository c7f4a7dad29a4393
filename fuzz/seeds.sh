#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# seeds.sh TOOL OUT-DIR [MCTRACE LIBMCOUNT] - seed corpora for the fuzz
# targets, generated at
# fuzz time (never committed): small objects of every architecture the
# tool knows, compiled from our fixtures with the flags that make each
# kind of hook (mcount, __fentry__, -mrecord-mcount tables, patchable
# pads, -mnop-mcount NOPs), the same objects after `recordmcount` and
# `recordmcount -n` (our own output), and linked programs for --dump.
#
#   OUT/record  objects        OUT/dump  objects and linked images
#   OUT/check   the same as OUT/dump
#   OUT/arch    code bytes from each object's .text, behind the header
#               the arch target reads (arch index, length, addresses)
#   OUT/trace   traces mctrace recorded of a program linked with
#               LIBMCOUNT, whole and cut short (with MCTRACE LIBMCOUNT)
# A compiler that is missing is skipped with a line on stderr.
set -u
TOOL=$1
OUT=$2
MCTRACE=${3:-}
LIBMCOUNT=${4:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
FX=$TOP/fixtures
WORK=$OUT/work
mkdir -p "$OUT/record" "$OUT/dump" "$OUT/arch" "$WORK"

n=0
# seed CC ARCH-INDEX FLAGS...: compile each fixture, record, copy.
seed() {
	cc=$1; arch=$2; shift 2
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "seeds.sh: SKIP $cc (not installed)" >&2
		return
	fi
	for src in basic.c sections.c weakonly.c pads/pads.c; do
		n=$((n + 1))
		o=$WORK/$n.o
		"$cc" -O2 -c -o "$o" "$@" "$FX/$src" 2>/dev/null || continue
		cp "$o" "$OUT/record/$n.o"
		cp "$o" "$OUT/dump/$n.o"
		cp "$o" "$WORK/$n-r.o"
		"$TOOL" -q "$WORK/$n-r.o" 2>/dev/null &&
			cp "$WORK/$n-r.o" "$OUT/dump/$n-r.o"
		cp "$o" "$WORK/$n-n.o"
		"$TOOL" -q -n "$WORK/$n-n.o" 2>/dev/null &&
			cp "$WORK/$n-n.o" "$OUT/record/$n-n.o"
		# arch seed: index, length, site, target, r_offset, then code.
		# LoongArch: no binutils in Debian 12, LLVM 16's objcopy
		"${cc%gcc}objcopy" -O binary -j .text "$o" "$WORK/$n.text" \
			2>/dev/null || objcopy -O binary -j .text "$o" \
			"$WORK/$n.text" 2>/dev/null || llvm-objcopy-16 \
			-O binary -j .text "$o" "$WORK/$n.text" 2>/dev/null ||
			continue
		{ printf "\\$(printf %03o "$arch")\\005"
		  head -c 24 /dev/zero
		  head -c 256 "$WORK/$n.text"; } > "$OUT/arch/$n.bin"
	done
}

# Indexes are positions in mc_all_arches (arch/arch.c).
seed gcc 0 -pg -mfentry
seed gcc 0 -pg
seed gcc 0 -pg -mfentry -mrecord-mcount -mnop-mcount
seed gcc 0 -fpatchable-function-entry=5,2 -fcf-protection
seed gcc 0 -pg -mfentry -fPIC -mcmodel=large
seed i686-linux-gnu-gcc 1 -pg
seed i686-linux-gnu-gcc 1 -pg -mfentry -fno-pie
seed aarch64-linux-gnu-gcc 2 -pg
seed aarch64-linux-gnu-gcc 2 -fpatchable-function-entry=2
seed arm-linux-gnueabihf-gcc 3 -pg -marm
seed arm-linux-gnueabihf-gcc 4 -pg -mthumb
seed riscv64-linux-gnu-gcc 5 -pg
seed riscv64-linux-gnu-gcc 5 -fpatchable-function-entry=4,2
seed powerpc64le-linux-gnu-gcc 6 -pg -mprofile-kernel
seed powerpc64-linux-gnu-gcc 7 -pg
seed powerpc-linux-gnu-gcc 8 -pg
seed s390x-linux-gnu-gcc 9 -pg -mfentry -mnop-mcount
seed s390x-linux-gnu-gcc 9 -pg
seed mips-linux-gnu-gcc 10 -pg
seed mips64el-linux-gnuabi64-gcc 15 -pg
seed mips64el-linux-gnuabi64-gcc 13 -pg -mabi=n32
seed sparc64-linux-gnu-gcc 16 -pg
seed sh4-linux-gnu-gcc 17 -pg
seed clang 0 -pg -mfentry
seed clang-16 19 --target=loongarch64-linux-gnu -pg
seed clang-16 19 --target=loongarch64-linux-gnu -pg -mcmodel=medium

# Linked images for --dump: a program and a shared object.
if gcc -O2 -pg -mfentry -c -o "$WORK/b.o" "$FX/basic.c" &&
   gcc -O2 -c -o "$WORK/m.o" "$FX/support/run_main.c" &&
   "$TOOL" -q "$WORK/b.o" &&
   gcc -o "$WORK/prog" "$WORK/b.o" "$WORK/m.o" \
	-Wl,-T,"$TOP/lds/mcount.lds" -Wl,--unresolved-symbols=ignore-all \
	2>/dev/null &&
   strip -o "$OUT/dump/prog-stripped" "$WORK/prog"; then
	cp "$WORK/prog" "$OUT/dump/prog"
fi
gcc -shared -fPIC -O2 -pg -mfentry -o "$OUT/dump/lib.so" "$FX/basic.c" \
	2>/dev/null || echo "seeds.sh: SKIP shared object" >&2
# Traces: a recording of basic.c's calls, and copies of it cut short at
# its half and 8 bytes before its end.
mkdir -p "$OUT/trace"
if [ -n "$MCTRACE" ] && [ -f "$WORK/b.o" ] && [ -f "$WORK/m.o" ] &&
   gcc -o "$WORK/traced" "$WORK/b.o" "$WORK/m.o" "$LIBMCOUNT" \
	-Wl,-T,"$TOP/lds/mcount.lds" -lpthread 2>/dev/null &&
   "$MCTRACE" record -o "$OUT/trace/basic.data" -- "$WORK/traced" \
	>/dev/null 2>&1; then
	size=$(wc -c < "$OUT/trace/basic.data")
	head -c $((size / 2)) "$OUT/trace/basic.data" > "$OUT/trace/half.data"
	head -c $((size - 8)) "$OUT/trace/basic.data" > "$OUT/trace/cut8.data"
else
	echo "seeds.sh: SKIP traces (no mctrace given, or the program)" >&2
fi
rm -rf "$WORK"
# --check and --finalize read what --dump reads.
mkdir -p "$OUT/check"
cp "$OUT/dump/"* "$OUT/check/"
echo "seeds: $(ls "$OUT/record" | wc -l) record, $(ls "$OUT/dump" | wc -l) dump, $(ls "$OUT/check" | wc -l) check, $(ls "$OUT/arch" | wc -l) arch, $(ls "$OUT/trace" | wc -l) trace"
