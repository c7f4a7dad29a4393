#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh RECORDMCOUNT LIBMCOUNT MCTRACE [CALLS] - the recorder's cost
# per traced call, against uftrace's, on one source (tests/trace/prog.c,
# `hot`: top() calls mid() N times, mid() calls leaf() twice: 3N + 2
# calls with main), built -O2 -fno-inline.
#
#   untraced    ours: -pg -mfentry, recorded, linked with libmcount,
#               not recording: every hook a NOP (the base of ours)
#   ours        the same binary with MCOUNT_TRACE (own format, compact
#               events, rings of 2^20 events so none are lost)
#   uftrace     `uftrace record --no-libcall -d DIR` of the same object
#               code (-pg -mfentry) linked without libmcount
#   ufplain     that binary run alone (each hook calls glibc's
#               __fentry__, a bare return, through the GOT)
#
# What uftrace does, and why not on our binary (uftrace 0.13, Debian's):
# it preloads its libmcount.so, whose __fentry__ takes the place of
# glibc's, and it records entry and exit (the exit by replacing the
# return address, as ours does), each 16 bytes with a CLOCK_MONOTONIC
# timestamp (ours: rdtsc), into shared-memory buffers of 128 KiB that
# its own process (`uftrace`, the parent) writes to DIR; by default it
# also records the CPUs' schedule events through perf and writes
# symbol files of the program and its libraries at the end.  Our
# binary calls libmcount's own __fentry__, linked in, which uftrace's
# cannot replace: it records nothing.  Its -P (dynamic patching) takes
# our hooks for -pg calls and leaves them; on our build with NOP pads
# (-fpatchable-function-entry) it finds __mcount_loc and turns each pad
# into a call to the binary's own __fentry__, ours again: nothing
# recorded either way (MCOUNT_NO_AUTOBOOT=1 or not).  So the two
# binaries share the object code and the hot functions' 64-byte
# alignment, and differ in the linked hook (6 bytes in both: a direct
# call in ours, made a NOP; a call through the GOT in uftrace's); DIR and ours' trace file are both in $BENCH_OUT,
# on the same file system.  CPU counts every thread and process: ours'
# writer thread, uftrace's parent.
#
# Rounds: one round runs every variant once, in this order in odd
# rounds and the reverse in even ones, so that load that rises or falls
# through a round weighs on both sides of a pair alike;
# $BENCH_TRACE_ROUNDS rounds (21 by default, some 2 s each: the
# median's interval is then from the 6th to the 16th of 21, at 97%).  Each figure is formed within a round (ours minus the
# same round's untraced run, and its ratio to the same round's
# uftrace), then summarised across rounds by bench/trace/rounds.awk:
# median, range, and a distribution-free interval for the median, over
# the rounds whose recording lost no call.  What the untraced hooks
# cost over a build without them is untraced.sh's, last: every form of
# hook the x86_64 runtime takes, many short runs (21 rounds of this
# script bound a 1% cost only to about ±2.5 points).  CPU
# is perf's task-clock (ns, with duration_time for wall), else time's
# user + system (10 ms steps).  Per call: (recorded - its untraced) /
# calls; ours' split into the traced thread's and the writer's, which
# the recorder counts (MCOUNT_TRACE_STATS).  Each round also runs the
# four at `hot 1`: the start-up and end each recorder adds whatever the
# calls, which the per-call figures hold spread over the calls.
#
# Then: instructions per call of the untraced pair and of the build
# without hooks, `plain` (and `plain-noipa`, the same with -fno-ipa-ra:
# -pg makes GCC give up what it knows of leaf()'s registers in mid()),
# (perf's counter, or
# callgrind where the machine has none), steady where time is not; one
# long run of $BENCH_TRACE_BIG_LOOPS loops (10^8 events by default)
# recorded with 2^20-event rings, its max RSS against the same run not
# recording, and its trace's size, then that trace converted to
# Perfetto's format: CPU per event, max RSS, size (both deleted after);
# and what one
# timestamp costs here (clock.c).  Prints Markdown tables with the load;
# work files in $BENCH_OUT, among them rounds.txt, every run's figures
# (`awk -v calls=C -f bench/trace/median.awk -f bench/trace/rounds.awk
# rounds.txt` prints the summary again).
set -eu
tool=$1 lib=$2 mct=$3
calls=${4:-6000000}
n=$((calls / 3))
rounds=${BENCH_TRACE_ROUNDS:-21}
out=${BENCH_OUT:-build/bench/trace}
src=tests/trace/prog.c
here=$(dirname "$0")
mkdir -p "$out"
flags="-std=gnu11 -O2 -fno-inline"

gcc $flags "$src" -o "$out/plain" -lpthread
# no hooks, but registers allocated as -pg has them (GCC gives up what
# it knows of a callee's registers, -fipa-ra, when it profiles): the
# untraced cost in instructions, split into the compiler's and the NOPs'
gcc $flags -fno-ipa-ra "$src" -o "$out/plain-noipa" -lpthread
gcc $flags -pg -mfentry -c "$src" -o "$out/ours.o"
"$tool" "$out/ours.o"
gcc -o "$out/ours" "$out/ours.o" "$lib" -Wl,-T,lds/mcount.lds -lpthread
# compiled with -pg, linked without: no gprof start-up (gmon.out)
gcc $flags -pg -mfentry -c "$src" -o "$out/uf.o"
gcc -o "$out/uf" "$out/uf.o" -lpthread
gcc -std=gnu11 -O2 bench/trace/clock.c -o "$out/clock"

load() { cut -d' ' -f1 /proc/loadavg; }
# CPU time from perf's task-clock (every thread and child, in ns) where
# perf can count it, else from time's user + system (10 ms steps)
if perf stat -x, -e task-clock,duration_time -o "$out/perf" true \
	2>/dev/null && grep -q task-clock "$out/perf"; then
	clock="perf task-clock"
else
	clock="time, 10 ms steps"
fi
# "CPU_NS WALL_NS" of one run of the command, its stderr in $out/err;
# fails with the command (a run that failed measures nothing)
ns_of() {
	if [ "$clock" = "perf task-clock" ]; then
		perf stat -x, -e task-clock,duration_time -o "$out/perf" "$@" \
			>/dev/null 2>"$out/err" || return
		awk -F, '/task-clock/ { c = $1 * 1e6 }
			/duration_time/ { w = $1 }
			END { printf "%.0f %.0f\n", c, w }' "$out/perf"
		return
	fi
	/usr/bin/time -f '%U %S %e' -o "$out/time" "$@" >/dev/null \
		2>"$out/err" || return
	awk '{ printf "%.0f %.0f\n", ($1 + $2) * 1e9, $3 * 1e9 }' "$out/time"
}
# one variant's run, as a line of rounds.awk's input; each recording
# starts with no output of an earlier run to free (ours truncates its
# file, uftrace renames its directory away and deletes the older one)
variant() {	# variant ROUND NAME
	case $2 in
	untraced)	set -- "$1" "$2" "$out/ours" hot $n ;;
	untraced1)	set -- "$1" "$2" "$out/ours" hot 1 ;;
	ours)		rm -f "$out/t.data"
			set -- "$1" "$2" env MCOUNT_TRACE="$out/t.data" \
				MCOUNT_TRACE_BUFSIZE=1048576 \
				MCOUNT_TRACE_STATS=1 "$out/ours" hot $n ;;
	ours1)		rm -f "$out/t1.data"
			set -- "$1" "$2" env MCOUNT_TRACE="$out/t1.data" \
				MCOUNT_TRACE_BUFSIZE=1048576 "$out/ours" hot 1 ;;
	ufplain)	set -- "$1" "$2" "$out/uf" hot $n ;;
	ufplain1)	set -- "$1" "$2" "$out/uf" hot 1 ;;
	uftrace)	rm -rf "$out/uf.d" "$out/uf.d.old"
			set -- "$1" "$2" uftrace record --no-libcall \
				-d "$out/uf.d" "$out/uf" hot $n ;;
	uftrace1)	rm -rf "$out/uf1.d" "$out/uf1.d.old"
			set -- "$1" "$2" uftrace record --no-libcall \
				-d "$out/uf1.d" "$out/uf" hot 1 ;;
	esac
	r=$1 name=$2; shift 2
	l=$(load)
	if ! ns=$(ns_of "$@"); then
		echo "run.sh: round $r, $name failed: $*" >&2
		cat "$out/err" >&2
		exit 1
	fi
	printf '%s %s %s %s' "$r" "$l" "$name" "$ns"
	# the writer's CPU (with the last pass, run by the exiting thread),
	# its passes that found events, and the calls not recorded
	awk '/writer thread CPU/ { w = $6 + $10; p = $12 }
		/calls not recorded/ { l = $3 }
		END { print "", w == "" ? "-" : w, p == "" ? "-" : p, l + 0 }' \
		"$out/err"
}

order="untraced ours ufplain uftrace untraced1 ours1 ufplain1 uftrace1"
reverse=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then names=$order; else names=$reverse; fi
	for v in $names; do
		variant "$r" "$v"
	done
done > "$out/rounds.txt"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

lost=$("$mct" report "$out/t.data" | awk '/not recorded/ { print $2 }')
recorded=$("$mct" report "$out/t.data" | awk '$NF == "leaf" || $NF == "mid" ||
	$NF == "top" || $NF == "main" { s += $(NF - 1) } END { print s }')
size=$(stat -c %s "$out/t.data")	# of the last round's recording
uf_size=$(cat "$out"/uf.d/*.dat | wc -c)	# its events, not its symbols
rm -rf "$out/t1.data" "$out/uf1.d" "$out/uf1.d.old"
rss() { /usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null 2>&1; cat "$out/rss"; }
rss_plain=$(rss "$out/ours" hot $n)
rss_ours=$(rss env MCOUNT_TRACE="$out/t.data" "$out/ours" hot $n)

# Instructions (user space) of the untraced pair per call: the
# difference between runs of L and 2L loops over the 3L calls it adds,
# so that start-up is taken out; perf's counter where the machine has
# one, else callgrind (every instruction, whole program; slower, hence
# the small L)
if perf stat -x, -e instructions:u -o "$out/perf" true 2>/dev/null &&
	grep -q '^[0-9]' "$out/perf"; then
	counter="perf instructions:u"
	insn_loops=$n
else
	counter="callgrind"
	insn_loops=100000
fi
# fails when the run or the count does (no count is not zero)
instructions() {	# instructions PROG LOOPS
	if [ "$counter" = callgrind ]; then
		rm -f "$out/insn.cg"
		valgrind --tool=callgrind --smc-check=all \
			--callgrind-out-file="$out/insn.cg" "$1" hot "$2" \
			>/dev/null 2>"$out/insn.err" || { cat "$out/insn.err" >&2; return 1; }
		awk '/^totals:/ { print $2; found = 1 } END { exit !found }' \
			"$out/insn.cg"
		return
	fi
	perf stat -x, -e instructions:u -o "$out/perf" "$1" hot "$2" >/dev/null 2>&1
	awk -F, '/instructions/ && $1 ~ /^[0-9]/ { print $1; found = 1 }
		END { exit !found }' "$out/perf"
}
insn_per_call() {	# insn_per_call PROG
	a=$(instructions "$1" "$insn_loops")
	b=$(instructions "$1" $((2 * insn_loops)))
	awk -v a="$a" -v b="$b" -v c=$((3 * insn_loops)) \
		'BEGIN { printf "%.3f", (b - a) / c }'
}
insn_load=$(load)
insn_plain=$(insn_per_call "$out/plain")
insn_noipa=$(insn_per_call "$out/plain-noipa")
insn_untraced=$(insn_per_call "$out/ours")

# 10^8 events: the program's memory against its buffers
big=${BENCH_TRACE_BIG_LOOPS:-16666667}
big_load=$(load)
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
# the same trace converted to Perfetto's format, streamed: CPU per event,
# peak RSS (bounded whatever the trace's length), bytes per event
pf_load=$(load)
/usr/bin/time -f '%U %S %M' -o "$out/pf.time" \
	"$mct" dump --perfetto -o "$out/big.pftrace" "$out/big.data" 2>/dev/null
pf_size=$(stat -c %s "$out/big.pftrace")
pf_cpu=$(awk -v e="${big_events% *}" '{ printf "%.1f", ($1 + $2) * 1e9 / e }' \
	"$out/pf.time")
pf_rss=$(awk '{ print $3 }' "$out/pf.time")
rm -f "$out/big.data" "$out/big.pftrace"

rounds_table=$(awk -v calls="$calls" -v clock="$clock" \
	-v machine="$(nproc) CPUs, load $load_before before, $load_after after" \
	-f "$here/median.awk" -f "$here/rounds.awk" "$out/rounds.txt")
echo "$rounds_table" | sed -n '1,/^$/p'
cat <<EOT
| trace measure, one run each ($(nproc) CPUs, load $load_after after the rounds) | value |
|---|---:|
| calls recorded / lost, last round | $recorded / ${lost:-0} |
| trace file (MB), last round | $((size / 1000000)) |
| trace file, bytes per recorded call | $(awk -v s="$size" -v r="$recorded" 'BEGIN { printf "%.1f", s / r }') |
| uftrace's data files (its events), bytes per call | $(awk -v s="$uf_size" -v r="$((3 * n + 2))" 'BEGIN { printf "%.1f", s / r }') |
| max RSS not recording / recording, 2^16-event rings (KB) | $rss_plain / $rss_ours |
| instructions per call, no hooks / no hooks, -fno-ipa-ra / ours not recording ($counter, load $insn_load) | $insn_plain / $insn_noipa / $insn_untraced |
| untraced cost over no hooks, instructions | $(awk -v a="$insn_untraced" -v b="$insn_plain" 'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }') |
| long run: calls (load $big_load) | $((3 * big + 2)) |
| long run: events written / calls lost | ${big_events% *} / ${big_events#* } |
| long run: trace file (MB) | $((big_size / 1000000)) |
| long run: max RSS not recording / recording, 2^20-event rings of 16 MiB (KB) | $rss_big_plain / $rss_big |
| long run to Perfetto (dump --perfetto, load $pf_load): CPU ns per event / max RSS (KB) / bytes per event | $pf_cpu / $pf_rss / $(awk -v s="$pf_size" -v e="${big_events% *}" 'BEGIN { printf "%.1f", s / e }') |
EOT
"$out/clock" | sed "s/^| one timestamp: \([^|]*\)|/| one timestamp: \1(load $(load)) |/"
echo
echo "$rounds_table" | sed '1,/^$/d'
echo
sh "$here/untraced.sh" "$tool" "$lib" "$mct"
