#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# attach.sh MCTRACE OUT [SITES...] - the cost of `mctrace record -p`'s
# attach and detach against the number of sites (default 100 1000
# 10000): for each count, gen.py's functions built with pads alone
# into attach.c's target; 5 runs, each on a fresh target: one attach,
# a 200 ms recording, one detach.  Per run, from mctrace's last line:
# how long the target's threads were held stopped at the attach (the
# runtime loaded, booted and every site enabled), and how long the
# detach took (the recording stopped, the file finished, the text put
# back); and mctrace's whole wall time less the 200 ms.  Prints one
# line per count, "SITES HELD DETACH WALL", medians in ms.
set -eu
mctrace=$1
out=$2
shift 2
here=bench/runtime
window_ms=200
mkdir -p "$out"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# one N R: one run on a target of N sites: "held detach wall" (ms)
one() {
	log="$out/attach$1-$2.log"
	"$out/attach$1" > "$out/attach$1-$2.out" &
	tpid=$!
	for _ in $(seq 100); do
		grep -q ready "$out/attach$1-$2.out" 2>/dev/null && break
		sleep 0.02
	done
	t0=$(now_ms)
	"$mctrace" record -p "$tpid" --duration ${window_ms}ms \
		-o "$out/attach$1-$2.data" > "$log" 2>&1 || true
	t1=$(now_ms)
	kill -TERM "$tpid"
	wait "$tpid" || true
	if ! grep -q "threads held" "$log"; then
		echo "attach.sh: $1 sites: record -p failed: $(tail -1 "$log")" >&2
		return 1
	fi
	sed -n 's/.*threads held \([0-9.]*\) ms.*took \([0-9.]*\) ms.*/\1 \2/p' \
		"$log" | tr '\n' ' '
	echo $((t1 - t0 - window_ms))
}

for n in ${@:-100 1000 10000}; do
	python3 $here/gen.py "$n" "$out/afuncs$n.c"
	python3 $here/table.py "$n" "$out/atable$n.c"
	gcc -O1 -fpatchable-function-entry=5 -c "$out/afuncs$n.c" \
		-o "$out/afuncs$n.o"
	gcc -O2 -pthread -o "$out/attach$n" $here/attach.c \
		"$out/atable$n.c" "$out/afuncs$n.o"
	for r in 1 2 3 4 5; do one "$n" "$r"; done > "$out/attach$n.txt"
	echo "$n $(awk '{ print $1 }' "$out/attach$n.txt" | median)" \
		"$(awk '{ print $2 }' "$out/attach$n.txt" | median)" \
		"$(awk '{ print $3 }' "$out/attach$n.txt" | median)"
done
