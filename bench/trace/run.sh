#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh RECORDMCOUNT LIBMCOUNT MCTRACE [CALLS] - the recorder's cost
# per traced call, against uftrace's, on one source (tests/trace/prog.c,
# `hot`: top() calls mid() N times, mid() calls leaf() twice: 3N + 2
# calls), built -O2 -fno-inline -pg -mfentry.
#
#   plain       no hooks at all
#   untraced    ours (recorded, libmcount), not recording: hooks NOPs
#   ours        the same binary with MCOUNT_TRACE (own format, events
#               16 B, rings of 2^20 events so none are lost)
#   uftrace     `uftrace record --no-libcall` of the same source built
#               for it (-pg -mfentry, no libmcount: uftrace 0.13 cannot
#               trace our binary, whose __fentry__ is libmcount's own,
#               and its -P patching of pads records nothing there)
#   uf-plain    that binary run alone (glibc's __fentry__ stub)
# CPU time (user + system, every thread of the process and of its
# children: ours' writer thread, uftrace's recorder process), median of
# 5, so that other load on the machine weighs less than on wall time
# (given beside).  Per call: (traced - its untraced) / calls.
# Prints a Markdown table; work files in $BENCH_OUT.
set -eu
tool=$1 lib=$2 mct=$3
calls=${4:-6000000}
n=$((calls / 3))
out=${BENCH_OUT:-build/bench/trace}
src=tests/trace/prog.c
mkdir -p "$out"
flags="-std=gnu11 -O2 -fno-inline"

gcc $flags "$src" -o "$out/plain" -lpthread
gcc $flags -pg -mfentry -c "$src" -o "$out/ours.o"
"$tool" "$out/ours.o"
gcc -o "$out/ours" "$out/ours.o" "$lib" -Wl,-T,lds/mcount.lds -lpthread
# compiled with -pg, linked without: no gprof start-up (gmon.out)
gcc $flags -pg -mfentry -c "$src" -o "$out/uf.o"
gcc -o "$out/uf" "$out/uf.o" -lpthread

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# ns of CPU time (user + system) of one run of the command, or of wall
# time with WALL=1
ns_of() {
	/usr/bin/time -f '%U %S %e' -o "$out/time" "$@" >/dev/null 2>&1
	awk -v w="${WALL:-0}" '{ printf "%.0f\n", (w ? $3 : $1 + $2) * 1e9 }' \
		"$out/time"
}
time5() { for r in 1 2 3 4 5; do ns_of "$@"; done | median; }

# the untraced pair runs 20 times as many calls: a NOP a call is small
plain=$(time5 "$out/plain" hot $((20 * n)))
untraced_big=$(time5 "$out/ours" hot $((20 * n)))
untraced=$(time5 "$out/ours" hot $n)
ours=$(time5 env MCOUNT_TRACE="$out/t.data" MCOUNT_TRACE_BUFSIZE=1048576 \
	"$out/ours" hot $n)
rm -rf "$out/uf.d"
ufplain=$(time5 "$out/uf" hot $n)
uft=$(time5 uftrace record --no-libcall -d "$out/uf.d" "$out/uf" hot $n)
lost=$("$mct" report "$out/t.data" | awk '/not recorded/ { print $2 }')
recorded=$("$mct" report "$out/t.data" | awk '$NF == "leaf" || $NF == "mid" ||
	$NF == "top" || $NF == "main" { s += $(NF - 1) } END { print s }')
rss_plain=$( { /usr/bin/time -f %M "$out/ours" hot $n >/dev/null; } 2>&1)
rss_ours=$( { MCOUNT_TRACE="$out/t.data" /usr/bin/time -f %M "$out/ours" \
	hot $n >/dev/null; } 2>&1)
size=$(stat -c %s "$out/t.data")

per() { awk -v a="$1" -v b="$2" -v c="$calls" 'BEGIN { printf "%.1f", (a - b) / c }'; }
ours_per=$(per "$ours" "$untraced")
wall_ours=$(WALL=1 time5 env MCOUNT_TRACE="$out/t.data" \
	MCOUNT_TRACE_BUFSIZE=1048576 "$out/ours" hot $n)
wall_untraced=$(WALL=1 time5 "$out/ours" hot $n)
wall_uft=$(WALL=1 time5 uftrace record --no-libcall -d "$out/uf.d" "$out/uf" hot $n)
wall_ufplain=$(WALL=1 time5 "$out/uf" hot $n)
uf_per=$(per "$uft" "$ufplain")
cat <<EOT
| trace measure ($calls calls, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)) | value |
|---|---:|
| no hooks, $((20 * calls)) calls, CPU (ms) | $((plain / 1000000)) |
| ours not recording (hooks NOPs), same calls, CPU (ms) | $((untraced_big / 1000000)) |
| untraced cost over no hooks | $(awk -v a="$untraced_big" -v b="$plain" 'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }') |
| ours recording, CPU (ms) | $((ours / 1000000)) |
| ours per traced call, entry + exit, CPU (ns) | $ours_per |
| ours per traced call, wall (ns) | $(per "$wall_ours" "$wall_untraced") |
| calls recorded / lost | $recorded / ${lost:-0} |
| trace file (MB) | $((size / 1000000)) |
| max RSS not recording / recording, 2^16-event rings (KB) | $rss_plain / $rss_ours |
| uftrace's binary alone, CPU (ms) | $((ufplain / 1000000)) |
| uftrace record, CPU (ms) | $((uft / 1000000)) |
| uftrace per traced call, CPU (ns) | $uf_per |
| uftrace per traced call, wall (ns) | $(per "$wall_uft" "$wall_ufplain") |
| ours / uftrace per call, CPU | $(awk -v a="$ours_per" -v b="$uf_per" 'BEGIN { printf "%.3f", a / b }') |
EOT
