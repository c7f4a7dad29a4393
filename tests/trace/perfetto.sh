#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# perfetto.sh - mctrace's Perfetto traces (mctrace/perfetto.c), decoded
# by protoc against our own statement of the format's fields
# (perfetto.proto) and held by perfetto.py to the format's rules and to
# the -finstrument-functions counter (counter.c) of the same source:
# slices per function and their nesting equal its counts and callers.
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/trace sh tests/trace/perfetto.sh
#
# Run by run.sh on the host; prints PASS/FAIL lines as it does, and
# exits non-zero on a failure.
#   - the protobuf writer (pb.c) alone: lengths and values that take
#     1, 2 and 3 varint bytes, nested (pbcheck.c)
#   - record -o X.pftrace, 6 threads: a sequence and a track each, and
#     no temporary file left beside it
#   - dump --perfetto of an own-format trace, to a file and to stdout
#   - with --min-time, the same calls as dump --raw, at the same times
#   - the process's name and command line from an MCT_INFO block
#   - a fork recorded: one process track each, slices per process the
#     counter's
#   - a trace cut at half and one damaged: the same losses said and the
#     same calls as dump --raw
#   - the conversion's memory does not grow with the trace: 20 times
#     the events, under 2 MB more at its peak (ru_maxrss), in the first
#     process or in a second
#   - failures: a directory for the output, a file not a trace; a line
#     and a non-zero exit each
set -u
T=tests/trace
OUT=${OUT:-build/tests/trace}/perfetto
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
PY=${PYTHON:-python3}
failures=0
pass() { echo "PASS: trace: $*"; }
fail() { echo "FAIL: trace: $*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what: $out"; fi
}
FUNCS="leaf mid top triple recurse worker exiter threads_test main"
HOOKS=-pg
[ "$(uname -m)" = x86_64 ] && HOOKS="-pg -mfentry"

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
# prog.c recorded, and counted by counter.c (not a PIE: nm's addresses
# are the run's)
build() {
	gcc -std=gnu11 -O2 -g -fno-inline $HOOKS -fPIE -c $T/prog.c \
		-o "$OUT/prog.o" &&
	$TOOL "$OUT/prog.o" &&
	gcc -pie -o "$OUT/prog" "$OUT/prog.o" "$LIB" -Wl,-T,lds/mcount.lds \
		-lpthread &&
	gcc -std=gnu11 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/prog.c -o "$OUT/count.o" &&
	gcc -O2 -fno-pie -c $T/counter.c -o "$OUT/counter.o" &&
	gcc -no-pie -o "$OUT/count" "$OUT/count.o" "$OUT/counter.o" \
		-lpthread &&
	nm "$OUT/count" > "$OUT/count.nm"
}
if ! build; then
	echo "FAIL: trace: Perfetto: build of prog.c"
	exit 1
fi

# The writer alone: lengths and values across a varint's 1, 2 and 3
# bytes, nested, as protoc reads them.
wire_check() {
	gcc -std=c11 -O2 -o "$OUT/pbcheck" $T/pbcheck.c mctrace/pb.c &&
	"$OUT/pbcheck" > "$OUT/pbcheck.pb" &&
	protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		< "$OUT/pbcheck.pb" > "$OUT/pbcheck.txt" &&
	$PY $T/perfetto.py wire "$OUT/pbcheck.txt"
}
expect "Perfetto: the protobuf writer's lengths and varints, 1 to 3 bytes, nested" \
	wire_check

# held <trace> <mode> <min threads>: decoded, the format's rules hold
# and the slices are the counter's of the same mode
held() {
	protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		< "$1" > "$1.txt" || return 1
	COUNTS="$OUT/$2.count" EDGES="$OUT/$2.edges" "$OUT/count" $2 \
		> /dev/null &&
	$PY $T/perfetto.py "$1.txt" "$OUT/$2.count" "$OUT/$2.edges" \
		"$OUT/count.nm" $3 $FUNCS
}

record_check() {
	"$MCT" record -o "$OUT/rec.pftrace" -- "$OUT/prog" threads \
		> /dev/null || return 1
	left=$(ls "$OUT" | grep '^rec\.' | grep -vx 'rec\.pftrace')
	[ -z "$left" ] || { echo "left beside it: $left"; return 1; }
	held "$OUT/rec.pftrace" threads 6
}
expect "Perfetto: record -o X.pftrace, 6 threads: slices are the counter's calls, nested as its callers" \
	record_check

dump_check() {
	"$MCT" record -o "$OUT/basic.data" -- "$OUT/prog" basic > /dev/null &&
	"$MCT" dump --perfetto -o "$OUT/basic.pftrace" "$OUT/basic.data" &&
	held "$OUT/basic.pftrace" basic 1 &&
	"$MCT" dump --perfetto "$OUT/basic.data" > "$OUT/stdout.pftrace" &&
	cmp "$OUT/basic.pftrace" "$OUT/stdout.pftrace"
}
expect "Perfetto: dump --perfetto, to a file and to stdout: slices are the counter's" \
	dump_check

# --min-time: the calls shorter left out as the other outputs leave
# them out (Perfetto's held back until long enough, as it streams):
# each thread's slices are dump --raw's calls, in order, at its times.
# leaf runs well under 20 us, but a thread preempted inside it (a loaded
# machine) makes that call long: some may stay, not 1 in 20.
min_time_check() {
	"$MCT" record -o "$OUT/mt-all.data" -- "$OUT/prog" threads \
		> /dev/null &&
	"$MCT" dump --raw "$OUT/mt-all.data" > "$OUT/mt-all.raw" &&
	"$MCT" record --min-time 20us -o "$OUT/mt.data" -- "$OUT/prog" threads \
		> /dev/null &&
	"$MCT" dump --raw "$OUT/mt.data" > "$OUT/mt.raw" || return 1
	all=$(grep -c ' leaf$' "$OUT/mt-all.raw") kept=$(grep -c ' leaf$' "$OUT/mt.raw")
	grep -q ' main$' "$OUT/mt.raw" && [ "$all" -gt 100 ] &&
	[ $((kept * 20)) -lt "$all" ] ||
		{ echo "--min-time 20us: main gone, or leaf kept $kept of $all"; return 1; }
	"$MCT" dump --perfetto -o "$OUT/mt.pftrace" "$OUT/mt.data" &&
	protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		< "$OUT/mt.pftrace" > "$OUT/mt.txt" &&
	$PY $T/perfetto.py raw "$OUT/mt.txt" "$OUT/mt.raw"
}
expect "Perfetto: --min-time leaves out the calls dump --raw leaves out" \
	min_time_check

# A trace cut at half, and one with a block of events damaged (it
# claims an event more): read with the same blocks lost as dump --raw
# says (its lines on stderr), and each thread's slices its calls.
losses_check() {
	d=$OUT/threads.data
	"$MCT" record -o "$d" -- "$OUT/prog" threads > /dev/null &&
	head -c $(($(wc -c < "$d") / 2)) "$d" > "$OUT/half.data" &&
	$PY $T/check.py damage "$d" "$OUT/count.data" count || return 1
	for f in half count; do
		"$MCT" dump --raw "$OUT/$f.data" > "$OUT/$f.raw" \
			2> "$OUT/$f.raw.err" &&
		"$MCT" dump --perfetto -o "$OUT/$f.pftrace" "$OUT/$f.data" \
			2> "$OUT/$f.err" &&
		grep -q . "$OUT/$f.err" && cmp "$OUT/$f.raw.err" "$OUT/$f.err" &&
		protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
			< "$OUT/$f.pftrace" > "$OUT/$f.txt" &&
		$PY $T/perfetto.py raw "$OUT/$f.txt" "$OUT/$f.raw" ||
			{ echo "$f: $(cat "$OUT/$f.err")"; return 1; }
	done
}
expect "Perfetto: a trace cut at half, and one damaged: the losses and calls dump --raw has" \
	losses_check

# A process tree (fork) recorded into X.pftrace: a process track each,
# the parent's first, each thread under its own; each process's slices
# the counter's calls in that process (the child's from the fork on).
tree_check() {
	rm -f "$OUT/fork.count"* &&
	"$MCT" record -o "$OUT/fork.pftrace" -- "$OUT/prog" fork > /dev/null &&
	COUNTS="$OUT/fork.count" "$OUT/count" fork > /dev/null &&
	protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		< "$OUT/fork.pftrace" > "$OUT/fork.txt" &&
	$PY $T/perfetto.py procs "$OUT/fork.txt" "$OUT/count.nm" \
		"$OUT/fork.count" main,fork_test,top,mid,leaf \
		"$(ls "$OUT/fork.count".*)" top,mid,leaf
}
expect "Perfetto: record -o X.pftrace of a fork: a track per process, each one's slices the counter's" \
	tree_check

# The process track takes its name and command line from the trace's
# MCT_INFO block (format.h), which the recorder writes first: the
# program's own path and the arguments this test ran it with.
process_check() {
	"$MCT" record -o "$OUT/info.data" -- "$OUT/prog" basic "a b" \
		> /dev/null &&
	"$MCT" dump --perfetto -o "$OUT/info.pftrace" "$OUT/info.data" &&
	protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		< "$OUT/info.pftrace" > "$OUT/info.txt" &&
	$PY $T/perfetto.py process "$OUT/info.txt" "$(readlink -f "$OUT/prog")" \
		"$OUT/prog" basic "a b"
}
expect "Perfetto: the process named by the trace's MCT_INFO, with its arguments" \
	process_check

# The hot loop's 120,000 and 2,400,000 events (rings that lose none),
# each converted: the larger's peak RSS within 2 MB of the smaller's.
maxrss() {	# the peak RSS (KB) of a command run to its end
	$PY -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
# rss_bounded <small trace> <large trace>: converting the larger takes
# under 2 MB more peak RSS than the smaller
rss_bounded() {
	small=$(maxrss "$MCT" dump --perfetto -o "$OUT/rss.pftrace" "$1") &&
	large=$(maxrss "$MCT" dump --perfetto -o "$OUT/rss.pftrace" "$2") ||
		return 1
	[ $((large - small)) -lt 2048 ] ||
		{ echo "peak RSS $small KB, then $large KB"; return 1; }
}
bounded_check() {
	for n in 20000 400000; do
		MCOUNT_TRACE="$OUT/hot$n.data" MCOUNT_TRACE_BUFSIZE=1048576 \
			"$OUT/prog" hot $n > /dev/null &&
		"$MCT" report "$OUT/hot$n.data" | grep -q " $n  mid\$" ||
			{ echo "hot $n: not recorded whole"; return 1; }
	done
	rss_bounded "$OUT/hot20000.data" "$OUT/hot400000.data"
}
expect "Perfetto: converted in bounded memory (20 times the events, under 2 MB more)" \
	bounded_check

# The same with the events in the trace's second process (an
# MCT_PROCESS block, read from the first's mapping: its pages given
# back as its walk goes too), 100 times the events (24 MB of trace).
tree_bounded_check() {
	for n in 20000 2000000; do
		d=$OUT/tree$n.data
		"$MCT" record --bufsize 1048576 -o "$d" -- \
			sh -c "'$OUT/prog' basic; '$OUT/prog' hot $n" > /dev/null &&
		pid=$("$MCT" info "$d" |
			sed -n 's/^#   other *: pid \([0-9]*\),.*/\1/p') &&
		"$MCT" report --pid "$pid" "$d" | grep -q " $n  mid\$" ||
			{ echo "hot $n: not recorded whole"; return 1; }
	done
	rss_bounded "$OUT/tree20000.data" "$OUT/tree2000000.data"
}
expect "Perfetto: a second process's events converted in bounded memory too" \
	tree_bounded_check

# fails <what> <command...>: a non-zero exit and one line on stderr
fails() {
	what=$1
	shift
	if "$@" > /dev/null 2> "$OUT/err"; then
		echo "$what: exit 0"
		return 1
	fi
	[ "$(wc -l < "$OUT/err")" = 1 ] ||
		{ echo "$what: not one line: $(cat "$OUT/err")"; return 1; }
}
failures_check() {
	mkdir -p "$OUT/dir.pftrace" &&
	fails "record into a directory" \
		"$MCT" record -o "$OUT/dir.pftrace" -- "$OUT/prog" basic &&
	fails "dump into a directory" \
		"$MCT" dump --perfetto -o "$OUT/dir.pftrace" "$OUT/basic.data" &&
	fails "dump of a file not a trace" \
		"$MCT" dump --perfetto -o "$OUT/x.pftrace" $T/perfetto.proto
}
expect "Perfetto: failures exit non-zero with one line" failures_check

[ $failures -eq 0 ]
