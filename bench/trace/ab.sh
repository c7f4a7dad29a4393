#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ab.sh RECORDMCOUNT LIB_A LIB_B [N] [ROUNDS] - two builds of the
# recorder on one program: tests/trace/prog.c's `hot` mode, built and
# recorded as bench/trace/run.sh's `ours`, linked with each libmcount.a
# (A and B), run in turn (interleaved, so that the machine's load weighs
# on both alike), recording into a file and into /dev/null with
# 2^20-event rings, ROUNDS rounds.  CPU is perf's
# task-clock (every thread); per call is (recorded - A not recording) /
# calls, beside the calls the runs lost; then, where the library counts
# it (MCOUNT_TRACE_STATS), the writer thread's share and the traced
# thread's (the rest), each from the same run.  The fastest run of each
# and its median run: runs on this kind of machine fall in a fast and a
# slow group (bench/RESULTS.md, 28 November 2026), which the fastest
# alone hides.
set -eu
tool=$1 lib_a=$2 lib_b=$3
n=${4:-2000000}
rounds=${5:-7}
out=${BENCH_OUT:-build/bench/trace}
mkdir -p "$out"

gcc -std=gnu11 -O2 -fno-inline -pg -mfentry -c tests/trace/prog.c \
	-o "$out/ab.o"
"$tool" "$out/ab.o"
for x in a b; do
	eval lib=\$lib_$x
	gcc -o "$out/ab-$x" "$out/ab.o" "$lib" -Wl,-T,lds/mcount.lds -lpthread
done
a=$out/ab-a b=$out/ab-b

variant() {	# variant NAME PROG DEST
	rm -f "$out/ab.data"
	perf stat -x, -e task-clock -o "$out/ab.perf" env MCOUNT_TRACE="$3" \
		MCOUNT_TRACE_BUFSIZE=1048576 MCOUNT_TRACE_STATS=1 "$2" hot "$n" \
		>/dev/null 2>"$out/ab.err"
	echo "$1 $(awk -F, '/task-clock/ { print $1 }' "$out/ab.perf")" \
		"$(awk '/calls not recorded/ { n = $3 } END { print n + 0 }' \
			"$out/ab.err")" \
		"$(awk '/writer thread CPU/ { w = ($6 + $10) / 1e6 }
			END { print w == "" ? "-" : w }' "$out/ab.err")"
}

for r in $(seq "$rounds"); do
	variant "A_file" "$a" "$out/ab.data"
	variant "B_file" "$b" "$out/ab.data"
	variant "A_/dev/null" "$a" /dev/null
	variant "B_/dev/null" "$b" /dev/null
	perf stat -x, -e task-clock -o "$out/ab.perf" "$a" hot "$n" \
		>/dev/null 2>&1
	echo "none $(awk -F, '/task-clock/ { print $1 }' "$out/ab.perf") 0 -"
done > "$out/ab.out"
rm -f "$out/ab.data"

echo "| recording $((3 * n + 2)) calls, $rounds rounds ($(taskset -pc $$ | sed 's/.*: /CPUs /'), load $(cut -d' ' -f1-3 /proc/loadavg)) | CPU per call (ns), fastest | traced thread | writer thread | median | traced thread | writer thread | calls lost |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
# per call: (run - the round's fastest `none`) / calls; the fastest run
# of each, and the median run of each (its split from the same run)
awk -v c=$((3 * n + 2)) '
	function per(t) { return (t - none) * 1e6 / c }
	function split3(k, i,   t, w) {
		t = cpu[k, i]; w = wr[k, i]
		if (w == "-")
			return sprintf("%.1f | - | -", per(t))
		return sprintf("%.1f | %.1f | %.1f", per(t),
			       (t - w - none) * 1e6 / c, w * 1e6 / c)
	}
	{
		k = $1; i = ++runs[k]
		cpu[k, i] = $2; lost[k] += $3; wr[k, i] = $4
		if (k == "none" && (none == "" || $2 < none)) none = $2
	}
	END {
		for (k in runs) if (k != "none") {
			n = runs[k]
			# order the runs of k by CPU (insertion sort: few)
			for (i = 1; i <= n; i++) o[i] = i
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && cpu[k, o[j]] < cpu[k, o[j - 1]]; j--) {
					x = o[j]; o[j] = o[j - 1]; o[j - 1] = x
				}
			name = k; sub("_", ", to ", name)
			printf "| %s | %s | %s | %d |\n", name, split3(k, o[1]),
				split3(k, o[int((n + 1) / 2)]), lost[k]
		}
	}' "$out/ab.out" | sort
