#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh RECORDMCOUNT LIBMCOUNT MCTRACE [CALLS] - the recorder's cost
# per traced call, against uftrace's, on one source (tests/trace/prog.c,
# `hot`: top() calls mid() N times, mid() calls leaf() twice: 3N + 2
# calls), built -O2 -fno-inline -pg -mfentry.
#
#   plain       no hooks at all
#   untraced    ours (recorded, libmcount), not recording: hooks NOPs
#   ours        the same binary with MCOUNT_TRACE (own format, compact
#               events, rings of 2^20 events so none are lost)
#   uftrace     `uftrace record --no-libcall` of the same source built
#               for it (-pg -mfentry, no libmcount: uftrace 0.13 cannot
#               trace our binary, whose __fentry__ is libmcount's own,
#               and its -P patching of pads records nothing there)
#   uf-plain    that binary run alone (glibc's __fentry__ stub)
# CPU time (user + system, every thread of the process and of its
# children: ours' writer thread, uftrace's recorder process; perf's
# task-clock where it counts, else time's 10 ms steps), median of 5, so
# that other load on the machine weighs less than on wall time
# (given beside).  Per call: (traced - its untraced) / calls; ours'
# split into the traced thread's and the writer thread's, which the
# recorder counts (MCOUNT_TRACE_STATS).
# Then: one long run of $BENCH_TRACE_BIG_LOOPS loops (3N + 2 calls, two
# events each: 10^8 events by default) recorded with 2^20-event rings,
# its max RSS against the same run not recording, and its trace's size
# (deleted after); and what one timestamp costs here (clock.c).
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
gcc -std=gnu11 -O2 bench/trace/clock.c -o "$out/clock"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# CPU time from perf's task-clock (every thread and child, in ns) where
# perf can count it, else from time's user + system (10 ms steps)
if perf stat -x, -e task-clock -o "$out/perf" true 2>/dev/null &&
	grep -q task-clock "$out/perf"; then
	clock="perf task-clock"
else
	clock="time, 10 ms steps"
fi
# ns of CPU time (user + system) of one run of the command, or of wall
# time with WALL=1
ns_of() {
	if [ "${WALL:-0}" = 0 ] && [ "$clock" = "perf task-clock" ]; then
		perf stat -x, -e task-clock -o "$out/perf" "$@" >/dev/null 2>&1
		awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1e6 }' "$out/perf"
		return
	fi
	/usr/bin/time -f '%U %S %e' -o "$out/time" "$@" >/dev/null 2>&1
	awk -v w="${WALL:-0}" '{ printf "%.0f\n", (w ? $3 : $1 + $2) * 1e9 }' \
		"$out/time"
}
# one recording run: its CPU ns, the writer's CPU ns, the writer's
# passes that found events
one_recording() {
	ns=$(MCOUNT_TRACE_STATS=1 ns_of_err "$out/split.err" env \
		MCOUNT_TRACE="$out/t.data" MCOUNT_TRACE_BUFSIZE=1048576 \
		"$out/ours" hot $n)
	awk -v t="$ns" '/writer thread CPU/ {
		print t, $6 + $10, $12 }' "$out/split.err"
}
# ns_of, with the command's stderr kept in a file
ns_of_err() {
	f=$1; shift
	if [ "$clock" = "perf task-clock" ]; then
		perf stat -x, -e task-clock -o "$out/perf" "$@" >/dev/null 2>"$f"
		awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1e6 }' "$out/perf"
		return
	fi
	/usr/bin/time -f '%U %S %e' -o "$out/time" "$@" >/dev/null 2>"$f"
	awk '{ printf "%.0f\n", ($1 + $2) * 1e9 }' "$out/time"
}
# CLEAN: the previous run's output, removed before each run, so that no
# run pays for freeing the last one's pages (ours truncates its file,
# uftrace renames its directory away and deletes the older one)
time5() {
	for r in 1 2 3 4 5; do
		[ -z "${CLEAN:-}" ] || rm -rf $CLEAN
		ns_of "$@"
	done | median
}

# the untraced pair runs 20 times as many calls: a NOP a call is small
plain=$(time5 "$out/plain" hot $((20 * n)))
untraced_big=$(time5 "$out/ours" hot $((20 * n)))
untraced=$(time5 "$out/ours" hot $n)
# recording, 5 runs: each one's CPU and its split, the writer thread's
# (with the last pass, which the exiting thread runs) from the
# recorder's own count (MCOUNT_TRACE_STATS), the traced thread's the
# rest; the medians of each
split=$(for r in 1 2 3 4 5; do
	rm -f "$out/t.data"
	one_recording
done)
ours=$(echo "$split" | awk '{ print $1 }' | median)
rm -rf "$out/uf.d"
ufplain=$(time5 "$out/uf" hot $n)
uft=$(CLEAN="$out/uf.d $out/uf.d.old" time5 uftrace record --no-libcall -d "$out/uf.d" "$out/uf" hot $n)
lost=$("$mct" report "$out/t.data" | awk '/not recorded/ { print $2 }')
recorded=$("$mct" report "$out/t.data" | awk '$NF == "leaf" || $NF == "mid" ||
	$NF == "top" || $NF == "main" { s += $(NF - 1) } END { print s }')
size=$(stat -c %s "$out/t.data")	# of the run whose calls were counted
rss() { /usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null 2>&1; cat "$out/rss"; }
rss_plain=$(rss "$out/ours" hot $n)
rss_ours=$(rss env MCOUNT_TRACE="$out/t.data" "$out/ours" hot $n)

# 10^8 events: the program's memory against its buffers
big=${BENCH_TRACE_BIG_LOOPS:-16666667}
rss_big_plain=$(rss "$out/ours" hot "$big")
rm -f "$out/big.data"
rss_big=$(rss env MCOUNT_TRACE="$out/big.data" MCOUNT_TRACE_BUFSIZE=1048576 \
	"$out/ours" hot "$big")
big_size=$(stat -c %s "$out/big.data")
# events and lost calls, from the file's blocks (format.h), not read whole
big_events=$(python3 - "$out/big.data" <<'EOP'
import struct, sys
f = open(sys.argv[1], "rb")
f.seek(24)                              # struct mct_header
events, lost = 0, {}
while True:
    h = f.read(16)                      # struct mct_block
    if len(h) < 16:
        break
    kind, tid, n = struct.unpack("<IIQ", h)
    if kind == 3 and n == 8:            # MCT_LOST: the last one counts
        lost[tid] = struct.unpack("<Q", f.read(8))[0]
        continue
    if kind == 1:                       # MCT_EVENTS: struct mct_events
        events += struct.unpack("<QI", f.read(12))[1]
        n -= 12
    f.seek(n, 1)
print(events, sum(lost.values()))
EOP
)
rm -f "$out/big.data"

per() { awk -v a="$1" -v b="$2" -v c="$calls" 'BEGIN { printf "%.1f", (a - b) / c }'; }
ours_per=$(per "$ours" "$untraced")
split_thread=$(echo "$split" | awk '{ print $1 - $2 }' | median)
split_writer=$(echo "$split" | awk '{ print $2 }' | median)
split_passes=$(echo "$split" | awk '{ print $3 }' | median)
wall_ours=$(CLEAN="$out/t.data" WALL=1 time5 env MCOUNT_TRACE="$out/t.data" \
	MCOUNT_TRACE_BUFSIZE=1048576 "$out/ours" hot $n)
wall_untraced=$(WALL=1 time5 "$out/ours" hot $n)
wall_uft=$(CLEAN="$out/uf.d $out/uf.d.old" WALL=1 time5 uftrace record --no-libcall -d "$out/uf.d" "$out/uf" hot $n)
wall_ufplain=$(WALL=1 time5 "$out/uf" hot $n)
uf_per=$(per "$uft" "$ufplain")
cat <<EOT
| trace measure ($calls calls, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); CPU by $clock) | value |
|---|---:|
| no hooks, $((20 * calls)) calls, CPU (ms) | $((plain / 1000000)) |
| ours not recording (hooks NOPs), same calls, CPU (ms) | $((untraced_big / 1000000)) |
| untraced cost over no hooks | $(awk -v a="$untraced_big" -v b="$plain" 'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }') |
| ours recording, CPU (ms) | $((ours / 1000000)) |
| ours per traced call, entry + exit, CPU (ns) | $ours_per |
| of which the traced thread, CPU (ns) | $(per "$split_thread" "$untraced") |
| of which the writer thread, CPU (ns) | $(per "$split_writer" 0) |
| writer's passes over the rings that found events | $split_passes |
| ours per traced call, wall (ns) | $(per "$wall_ours" "$wall_untraced") |
| calls recorded / lost | $recorded / ${lost:-0} |
| trace file (MB) | $((size / 1000000)) |
| trace file, bytes per recorded call | $(awk -v s="$size" -v r="$recorded" 'BEGIN { printf "%.1f", s / r }') |
| max RSS not recording / recording, 2^16-event rings (KB) | $rss_plain / $rss_ours |
| uftrace's binary alone, CPU (ms) | $((ufplain / 1000000)) |
| uftrace record, CPU (ms) | $((uft / 1000000)) |
| uftrace per traced call, CPU (ns) | $uf_per |
| uftrace per traced call, wall (ns) | $(per "$wall_uft" "$wall_ufplain") |
| ours / uftrace per call, CPU | $(awk -v a="$ours_per" -v b="$uf_per" 'BEGIN { printf "%.3f", a / b }') |
| long run: calls | $((3 * big + 2)) |
| long run: events written / calls lost | ${big_events% *} / ${big_events#* } |
| long run: trace file (MB) | $((big_size / 1000000)) |
| long run: max RSS not recording / recording, 2^20-event rings of 16 MiB (KB) | $rss_big_plain / $rss_big |
EOT
"$out/clock"
