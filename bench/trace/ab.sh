#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ab.sh RECORDMCOUNT LIB_A LIB_B [N] [ROUNDS] - two builds of the
# recorder on one program: tests/trace/prog.c's `hot` mode, built and
# recorded as bench/trace/run.sh's `ours`, linked with each libmcount.a
# (A and B), run in turn (interleaved, so that the machine's load weighs
# on both alike), recording into a file and into /dev/null with
# 2^20-event rings, ROUNDS rounds, the fastest of each.  CPU is perf's
# task-clock (every thread); per call is (recorded - A not recording) /
# calls, beside the calls that run lost; then, where the library counts
# it (MCOUNT_TRACE_STATS), the writer thread's share and the traced
# thread's (the rest), each from the run that was fastest in all.
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

echo "| recording $((3 * n + 2)) calls ($(taskset -pc $$ | sed 's/.*: /CPUs /'), load $(cut -d' ' -f1-3 /proc/loadavg)) | CPU per call (ns) | traced thread | writer thread | calls lost |"
echo "|---|---:|---:|---:|---:|"
awk -v c=$((3 * n + 2)) '
	{ if (!($1 in m) || $2 < m[$1]) { m[$1] = $2; l[$1] = $3; w[$1] = $4 } }
	END {
		for (k in m) if (k != "none") {
			name = k; sub("_", ", to ", name)
			if (w[k] == "-")
				th = wr = "-"
			else {
				th = sprintf("%.1f", (m[k] - w[k] - m["none"]) * 1e6 / c)
				wr = sprintf("%.1f", w[k] * 1e6 / c)
			}
			printf "| %s | %.1f | %s | %s | %s |\n", name,
				(m[k] - m["none"]) * 1e6 / c, th, wr, l[k]
		}
	}' "$out/ab.out" | sort
