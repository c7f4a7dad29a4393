#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/bench.sh TOOL - `make bench`: time TOOL against the kernel's own
# recordmcount and cp over two corpora of raw kernel objects of
# $MC_KERNEL_ARCH (any of lib.sh's table), as Kbuild handed them to
# scripts/recordmcount (captured by kernel/build.sh):
#
#   tiny     every traced object of the tinyconfig+ftrace kernel that
#            check-kernel boots (built first if missing)
#   tiny-g   kernel/ and mm/ of the same config built with -g
#            (CONFIG_DEBUG_INFO): objects several times larger, mostly
#            DWARF, which both tools must copy through.  Only those two
#            folders, to keep the second build short.  BENCH_DEBUG=0
#            skips it; it is 0 by default on arm, whose -g corpus would
#            only repeat what x86_64's shows.
#
# BENCH_ROUNDS (default 5, at least 3) rounds; prints Markdown tables
# (copied into bench/RESULTS.md by hand, with the machine and date), then
# bench/costs.py's: instructions per object against the kernel tool, and
# the -g corpus object by object (BENCH_COSTS=0 skips them).
set -eu
. "$(dirname "$0")/../kernel/lib.sh"

# The binary under test is copied first, so that a rebuild of the work
# tree meanwhile changes nothing here.
mkdir -p "$MC_KERNEL_CACHE/bench"
cp "${1:?usage: bench.sh PATH-TO-OUR-RECORDMCOUNT}" "$MC_KERNEL_CACHE/bench/recordmcount"
tool=$MC_KERNEL_CACHE/bench/recordmcount
rounds=${BENCH_ROUNDS:-5}

[ -d "$CAPTURE" ] && [ -x "$KERNEL_TOOL" ] || "$MC_TOP/kernel/build.sh" "$tool"
corpora="tiny=$CAPTURE"
debug_capture=
debug_default=0
[ "$KARCH" != x86_64 ] || debug_default=1
if [ "${BENCH_DEBUG:-$debug_default}" != 0 ]; then
	debug_capture=$WORK/debug/capture
	[ -d "$debug_capture" ] || MC_KERNEL_VARIANT=debug "$MC_TOP/kernel/build.sh" "$tool"
	corpora="$corpora tiny-g=$debug_capture"
fi

echo "## recordmcount benchmark: $KARCH"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
	"$(uname -sr)"
echo "- ours: $("$tool" --version), the kernel's: scripts/recordmcount of linux-source-$KERNEL_SERIES" \
	"$(dpkg-query -W -f='${Version}' "linux-source-$KERNEL_SERIES"), host gcc $(gcc -dumpfullversion)," \
	"kernel compiled by ${CROSS_COMPILE}gcc $("${CROSS_COMPILE}gcc" -dumpfullversion)"
echo "- command: make bench (BENCH_ROUNDS=$rounds)"
# shellcheck disable=SC2086
python3 "$MC_TOP/bench/bench.py" --ours "$tool" --kernel "$KERNEL_TOOL" \
	--rounds "$rounds" --work "$MC_KERNEL_CACHE/bench/$KARCH" $corpora
# Instructions per object against the kernel tool, and the -g corpus
# object by object (bench/costs.py); BENCH_COSTS=0 skips them.
if [ "${BENCH_COSTS:-1}" != 0 ]; then
	echo
	python3 "$MC_TOP/bench/costs.py" "$tool" "$KERNEL_TOOL" "$CAPTURE" \
		${debug_capture:+"$debug_capture"}
fi
