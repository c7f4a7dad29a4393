#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# split.sh PROG [N] - what a traced call's CPU time is made of, by
# variants of one recording run in turn, 5 rounds, the fastest of each:
# PROG's `hot` mode (bench/trace/run.sh's `ours`) recorded into a file
# and into /dev/null (no page cache), with rings of 2^20 and 2^16
# events.  CPU is perf's task-clock (every thread); per call is
# (recorded - not recorded) / calls, beside the calls that run lost (a
# lost call skips most of the work: such a figure is flattered).
set -eu
prog=$1
n=${2:-2000000}
out=${BENCH_OUT:-build/bench/trace}
mkdir -p "$out"

# one run of a variant: its name, CPU ms, calls lost (the recorder says
# how many on stderr)
variant() {	# variant NAME DEST RING
	rm -f "$out/split.data"
	perf stat -x, -e task-clock -o "$out/split.perf" env \
		MCOUNT_TRACE="$2" MCOUNT_TRACE_BUFSIZE="$3" "$prog" hot "$n" \
		>/dev/null 2>"$out/split.err"
	echo "$1 $(awk -F, '/task-clock/ { print $1 }' "$out/split.perf")" \
		"$(awk '/calls not recorded/ { n = $3 } END { print n + 0 }' \
			"$out/split.err")"
}

for r in 1 2 3 4 5; do
	variant "file, 2^20-event rings" "$out/split.data" 1048576
	variant "/dev/null, 2^20-event rings" /dev/null 1048576
	variant "file, 2^16-event rings" "$out/split.data" 65536
	variant "/dev/null, 2^16-event rings" /dev/null 65536
	perf stat -x, -e task-clock -o "$out/split.perf" "$prog" hot "$n" \
		>/dev/null 2>&1
	echo "none $(awk -F, '/task-clock/ { print $1 }' "$out/split.perf") 0"
done | sed 's/, /_/; s/ rings/_rings/' > "$out/split.out"
rm -f "$out/split.data"

echo "| recording $((3 * n + 2)) calls to (load $(cut -d' ' -f1-3 /proc/loadavg)) | CPU per call (ns) | calls lost |"
echo "|---|---:|---:|"
awk -v c=$((3 * n + 2)) '
	{ if (!($1 in m) || $2 < m[$1]) { m[$1] = $2; l[$1] = $3 } }
	END {
		for (k in m) if (k != "none") {
			name = k; gsub("_", " ", name); sub(" ", ", ", name)
			printf "| %s | %.1f | %s |\n", name, (m[k] - m["none"]) * 1e6 / c, l[k]
		}
	}' "$out/split.out" | sort
