#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# profile.sh PROG [N] - where the instructions of a traced call go:
# callgrind over PROG's `hot` mode (tests/trace/prog.c, built as
# run.sh builds `ours`), recording, at N and 2N loops; the difference
# between the two runs, divided by the 3N calls it adds, is the cost of
# one traced call (entry + exit) with start-up and the end taken out.
# Counts are instructions (Ir), grouped by part of the path; the writer
# thread's share is included (valgrind runs one thread at a time, so it
# drains as often as it is let to).  Prints a Markdown table.
set -eu
prog=$1
n=${2:-100000}
out=${BENCH_OUT:-build/bench/trace}
mkdir -p "$out"

# Ir by file:function of one run of N loops
profile() {
	MCOUNT_TRACE="$out/profile.data" MCOUNT_TRACE_BUFSIZE=1048576 \
		valgrind --tool=callgrind --callgrind-out-file="$out/cg.$1" \
		"$prog" hot "$1" >/dev/null 2>&1
	callgrind_annotate --auto=no --threshold=100 "$out/cg.$1" |
		sed -n '/file:function/,$p' | awk 'NR > 2 && NF >= 2 {
			gsub(",", "", $1)
			for (i = 2; i <= NF; i++)
				if ($i ~ /:/) { print $1, $i; break } }'
}

# the part of the path a file:function belongs to; code inlined from a
# header (format.h, recorder.h) counts for the function it is in
part() {
	awk '{
		f = $2; fn = f; sub(/.*:/, "", fn)
		if (f ~ /(format|recorder|ring)\.h:/ && fn !~ /^(rec_entry|entry_slow|rec_exit|exit_slow|pop_below)$/)
			f = "writer.c:" fn
		if (f ~ /trampoline\.S:/)		p = "1 runtime trampoline (mc_rt_tramp_fentry)"
		else if (fn == "mc_rt_dispatch_slot")	p = "2 dispatch (mc_rt_dispatch_slot)"
		else if (fn ~ /^(rec_entry|entry_slow)$/) p = "3 rec_entry: shadow stack push, ring write, rdtsc"
		else if (f ~ /return\.S:/)		p = "4 return trampoline (rec_return_tramp)"
		else if (fn ~ /^(rec_exit|exit_slow)$/)	p = "5 rec_exit: shadow stack pop, ring write, rdtsc"
		else if (fn == "pop_below")		p = "6 pop_below (frames left by longjmp)"
		else if (f ~ /(writer|compact|names|out|json|ring)\.c:|memcpy|memmove|:writev?$/) p = "7 writer thread (names, copy, write)"
		else if (fn ~ /^(leaf|mid|top)$/)	p = "8 the program (top, mid, leaf)"
		else					p = "9 other"
		print $1, p
	}'
}

profile "$n" | part > "$out/cg.a"
profile $((2 * n)) | part > "$out/cg.b"
calls=$((3 * n))
echo "| part of a traced call ($calls calls more, callgrind) | instructions per call |"
echo "|---|---:|"
awk -v c="$calls" '
	NR == FNR { $1 = -$1 }
	{ v = $1; $1 = ""; sum[substr($0, 2)] += v }
	END {
		for (p in sum) {
			total += sum[p]
			if (sum[p] / c >= 0.05)
				printf "%s | %.1f |\n", p, sum[p] / c
		}
		printf "9z **total** | **%.1f** |\n", total / c
	}' "$out/cg.a" "$out/cg.b" | sort | sed 's/^[0-9a-z]* /| /'
