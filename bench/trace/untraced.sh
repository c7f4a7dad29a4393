#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# untraced.sh RECORDMCOUNT LIBMCOUNT MCTRACE - what hooks cost while
# nothing records: tests/trace/prog.c's `hot` (top() calls mid() N
# times, mid() calls leaf() twice), -O2 -fno-inline, built each way the
# x86_64 runtime and recorder take, recorded, linked with libmcount and
# run with MCOUNT_TRACE unset, against the same source without hooks:
#
#   plain, plain2   gcc, no hooks (plain2 a copy of plain's file: the
#                   A/A pair, what the measure says of no difference)
#   fentry          gcc -pg -mfentry: 6-byte calls, made NOPs at boot
#   pad             gcc -fpatchable-function-entry=5: five 1-byte NOPs,
#                   made one 5-byte NOP at boot
#   nop             gcc -pg -mfentry -mnop-mcount -mrecord-mcount (no
#                   PIE: GCC has no -mnop-mcount with -fPIC), against
#                   plain-nopie, the same source without hooks or PIE
#   cplain          clang, no hooks; cfentry and cpad its -pg -mfentry
#                   and -fpatchable-function-entry=5 against it
#
# Why many short runs: a run's CPU (perf's task-clock) varies by some
# 3% here, and at load by more, so 21 paired rounds bound the median's
# cost only to about ±2.5 points, and 1% cannot be told from 0 or 3.
# $BENCH_TRACE_UNTRACED_ROUNDS rounds (201 by default) of
# $BENCH_TRACE_UNTRACED_LOOPS loops (20,000,000 by default: 60 million
# calls, about 0.1 s) bound it to about ±0.2 points (the A/A pair shows
# the measure's own width and that it has no bias).  Each round runs
# every build once, in this order in odd rounds and the reverse in even
# ones; each cost is (build - its plain) / its plain within a round,
# then pairs.awk prints the median across rounds with a distribution-
# free 95% interval for it: a cost is shown at most 1% only when the
# interval's top is.
#
# Then instructions per call (callgrind: the difference between L and
# 2L loops over 3L calls), and per build whether its mid() keeps what
# GCC knows of leaf()'s registers (-fipa-ra): a build whose mid() saves
# %rbx around its calls has lost it (objdump).  And the pad build
# recorded: its calls must be the -pg build's.  Prints Markdown.
set -eu
tool=$1 lib=$2 mct=$3
rounds=${BENCH_TRACE_UNTRACED_ROUNDS:-201}
loops=${BENCH_TRACE_UNTRACED_LOOPS:-20000000}
out=${BENCH_OUT:-build/bench/trace}/untraced
src=tests/trace/prog.c
here=$(dirname "$0")
mkdir -p "$out"
flags="-std=gnu11 -O2 -fno-inline"

recorded() {	# recorded NAME CC FLAGS... : built with hooks, recorded, linked
	name=$1 cc=$2
	shift 2
	$cc $flags "$@" -c "$src" -o "$out/$name.o"
	"$tool" "$out/$name.o"
	pie=
	case " $* " in *" -fno-pie "*) pie=-no-pie ;; esac
	$cc $pie -o "$out/$name" "$out/$name.o" "$lib" -Wl,-T,lds/mcount.lds \
		-lpthread
}
gcc $flags "$src" -o "$out/plain" -lpthread
cp "$out/plain" "$out/plain2"
gcc $flags -fno-pie "$src" -no-pie -o "$out/plain-nopie" -lpthread
recorded fentry gcc -pg -mfentry
recorded pad gcc -fpatchable-function-entry=5
recorded nop gcc -fno-pie -pg -mfentry -mnop-mcount -mrecord-mcount
builds="plain plain2 fentry pad plain-nopie nop"
if command -v clang >/dev/null; then
	clang $flags "$src" -o "$out/cplain" -lpthread
	recorded cfentry clang -pg -mfentry
	recorded cpad clang -fpatchable-function-entry=5
	builds="$builds cplain cfentry cpad"
fi

load() { cut -d' ' -f1 /proc/loadavg; }
cpu_ns() {	# cpu_ns PROG: perf's task-clock of one run, in ns
	perf stat -x, -e task-clock -o "$out/perf" "$1" hot "$loops" \
		>/dev/null 2>&1
	awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1e6; found = 1 }
		END { exit !found }' "$out/perf"
}
if ! perf stat -x, -e task-clock -o "$out/perf" true 2>/dev/null ||
	! grep -q task-clock "$out/perf"; then
	echo "untraced.sh: no perf task-clock here: no CPU figures" >&2
	exit 1
fi

reverse=$(echo $builds | tr ' ' '\n' | tac | tr '\n' ' ')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then names=$builds; else names=$reverse; fi
	for b in $names; do
		echo "$r $(load) $b $(cpu_ns "$out/$b")"
	done
done > "$out/rounds.txt"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# instructions per call, whole program (callgrind follows the code the
# runtime rewrites at boot: --smc-check=all)
insn_loops=100000
instructions() {	# instructions PROG LOOPS
	valgrind --tool=callgrind --smc-check=all \
		--callgrind-out-file="$out/insn.cg" "$1" hot "$2" \
		>/dev/null 2>"$out/insn.err" || { cat "$out/insn.err" >&2; return 1; }
	awk '/^totals:/ { print $2; found = 1 } END { exit !found }' \
		"$out/insn.cg"
}
insn_per_call() {	# insn_per_call PROG
	a=$(instructions "$1" "$insn_loops")
	b=$(instructions "$1" $((2 * insn_loops)))
	awk -v a="$a" -v b="$b" -v c=$((3 * insn_loops)) \
		'BEGIN { printf "%.3f", (b - a) / c }'
}
# whether mid() saves %rbx (pushes it): -fipa-ra lost
saves_rbx() {	# saves_rbx PROG
	objdump -d --no-show-raw-insn "$1" |
		awk '/<mid>:$/ { on = 1; next } on && /^$/ { exit }
			on && /push +%rbx/ { found = 1 } END { print found ? "yes" : "no" }'
}

# the pad build records what the -pg build records, call for call
calls_of() {	# calls_of PROG: leaf, mid, top and main's calls recorded
	rm -f "$out/t.data"
	MCOUNT_TRACE="$out/t.data" MCOUNT_TRACE_BUFSIZE=1048576 "$1" hot 100000 \
		>/dev/null
	"$mct" report "$out/t.data" | awk '$NF == "leaf" || $NF == "mid" ||
		$NF == "top" || $NF == "main" { c[$NF] = $(NF - 1) }
		END { printf "%s %s %s %s\n", c["leaf"], c["mid"], c["top"], c["main"] }'
}
rec_fentry=$(calls_of "$out/fentry")
rec_pad=$(calls_of "$out/pad")
rm -f "$out/t.data"

insn_load=$(load)
{
	echo "load $load_before before, $load_after after"
	for b in $builds; do
		echo "insn $b $(insn_per_call "$out/$b") $(saves_rbx "$out/$b")"
	done
} > "$out/facts.txt"

awk -v rounds_file="$out/rounds.txt" -v calls=$((3 * loops)) \
	-v machine="$(nproc) CPUs, load $load_before before, $load_after after" \
	-v insn_load="$insn_load" -v rec_fentry="$rec_fentry" \
	-v rec_pad="$rec_pad" -f "$here/median.awk" -f "$here/pairs.awk" "$out/facts.txt"
