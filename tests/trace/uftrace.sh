#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# uftrace.sh - mctrace's analyses (report, graph, replay, their filters,
# info) against uftrace's on the same program: prog.c compiled once
# with -pg, linked plain for `uftrace record` and, after recordmcount,
# with libmcount for `mctrace record`.  ufcheck.py reads both tools'
# text into the same facts and compares them; uftrace is the oracle.
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/trace-uftrace sh tests/trace/uftrace.sh
#
# Modes of prog.c: basic (one thread), threads (6 threads, one ended by
# pthread_exit), recurse 50.  The filters uftrace has (-F, -N, -D) are
# checked against its own; those on tids and times against mctrace's
# unfiltered `dump --raw`, filtered by ufcheck.py.
set -u
T=tests/trace
OUT=${OUT:-build/tests/trace-uftrace}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
PY=${PYTHON:-python3}
CHECK="$PY $T/ufcheck.py"
failures=0
pass() { echo "PASS: trace: uftrace: $*"; }
fail() { echo "FAIL: trace: uftrace: $*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what: $(echo "$out" | head -3)"; fi
}

if ! command -v uftrace >/dev/null; then
	echo "SKIP: trace: uftrace: no uftrace installed (Debian's uftrace)"
	exit 0
fi
mkdir -p "$OUT"
rm -rf "$OUT"/*.d "$OUT"/*.data "$OUT"/*.out

UF="uftrace --no-pager"
# uftrace's and mctrace's views of prog.c <mode...>: $OUT/uf-<tag>.d,
# $OUT/mc-<tag>.data
record() {	# record <tag> <mode...>
	tag=$1
	shift
	uftrace record --no-libcall --no-event -d "$OUT/uf-$tag.d" \
		"$OUT/uf" "$@" >/dev/null &&
	"$MCT" record -o "$OUT/mc-$tag.data" -- "$OUT/mc" "$@" >/dev/null
}

gcc -std=gnu11 -O2 -g -fno-inline -pg -c $T/prog.c -o "$OUT/prog.o" &&
gcc -o "$OUT/uf" "$OUT/prog.o" -lpthread &&
cp "$OUT/prog.o" "$OUT/prog-mc.o" && $TOOL "$OUT/prog-mc.o" &&
gcc -o "$OUT/mc" "$OUT/prog-mc.o" "$LIB" -Wl,-T,lds/mcount.lds -lpthread &&
record basic basic && record threads threads && record recurse recurse 50
if [ $? -ne 0 ]; then
	fail "build and record prog.c under both"
	exit 1
fi

# both tools' output of one command on one recording: $OUT/<cmd>-<tag>.uf,
# .mc; extra options after --, the same for both
both() {	# both <cmd> <tag> [options...]
	cmd=$1 tag=$2
	shift 2
	$UF $cmd -d "$OUT/uf-$tag.d" "$@" > "$OUT/$cmd-$tag.uf" &&
	"$MCT" $cmd "$@" "$OUT/mc-$tag.data" > "$OUT/$cmd-$tag.mc"
}

report_check() {	# report_check <tag> <sort key>
	$UF report -d "$OUT/uf-$1.d" > "$OUT/report-$1.uf" &&
	"$MCT" report -s $2 "$OUT/mc-$1.data" > "$OUT/report-$1.mc" &&
	$CHECK report "$OUT/report-$1.uf" "$OUT/report-$1.mc" $2
}
for m in "basic total" "threads calls" "recurse self" "basic name"; do
	set -- $m
	expect "report -s $2 ($1): calls per function are uftrace's, in order" \
		report_check $1 $2
done

# A recursive function's total: its outermost frames only, so never
# more than its caller's.
within_check() {
	"$MCT" report "$OUT/mc-recurse.data" > "$OUT/within.mc" &&
	$CHECK within "$OUT/within.mc" recurse main
}
expect "report: a recursive function's total counted once per outermost frame" \
	within_check

graph_check() {	# graph_check <tag>
	both graph $1 && $CHECK graph "$OUT/graph-$1.uf" "$OUT/graph-$1.mc"
}
for m in basic threads recurse; do
	expect "graph ($m): the aggregated tree is uftrace's" graph_check $m
done

graphthreads_check() {
	"$MCT" graph --threads "$OUT/mc-threads.data" > "$OUT/gthreads.mc" &&
	for t in $(uf_tids); do
		$UF graph -d "$OUT/uf-threads.d" --tid $t > "$OUT/gthreads-$t.uf" ||
			return 1
	done &&
	$CHECK graphthreads "$OUT/gthreads.mc" $(for t in $(uf_tids); do
		echo "$OUT/gthreads-$t.uf"; done)
}
# the tids of uftrace's threads recording (a data file each)
uf_tids() { ls "$OUT/uf-threads.d" | sed -n 's/^\([0-9]*\)\.dat$/\1/p'; }
expect "graph --threads: each thread's tree is one of uftrace graph --tid's" \
	graphthreads_check

graphfunc_check() {	# graphfunc_check <tag> <func>
	$UF graph -d "$OUT/uf-$1.d" $2 > "$OUT/graphfunc-$1.uf" &&
	"$MCT" graph $2 "$OUT/mc-$1.data" > "$OUT/graphfunc-$1.mc" &&
	$CHECK graphfunc "$OUT/graphfunc-$1.uf" "$OUT/graphfunc-$1.mc"
}
expect "graph mid (threads): its callers and callees are uftrace's" \
	graphfunc_check threads mid
expect "graph top (basic): its callers and callees are uftrace's" \
	graphfunc_check basic top

replay_check() {	# replay_check <tag>
	both replay $1 && $CHECK replay "$OUT/replay-$1.uf" "$OUT/replay-$1.mc"
}
for m in basic threads; do
	expect "replay ($m): each thread's calls in uftrace's order, by time" \
		replay_check $m
done

# A C++ program whose exceptions unwind through recorded frames
# (throw.cc), built the same way with g++: its tree, its calls in order
# and per function are uftrace's (names as both show them by default:
# the name alone).
cxx_check() {
	g++ -O2 -g -fno-inline -pg -c $T/throw.cc -o "$OUT/throw.o" &&
	g++ -o "$OUT/throw-uf" "$OUT/throw.o" &&
	cp "$OUT/throw.o" "$OUT/throw-mc.o" && $TOOL "$OUT/throw-mc.o" &&
	g++ -o "$OUT/throw-mc" "$OUT/throw-mc.o" "$LIB" \
		-Wl,-T,lds/mcount.lds -lpthread &&
	uftrace record --no-libcall --no-event -d "$OUT/uf-cxx.d" \
		"$OUT/throw-uf" >/dev/null &&
	"$MCT" record -o "$OUT/mc-cxx.data" -- "$OUT/throw-mc" >/dev/null &&
	for cmd in graph replay report; do
		both $cmd cxx &&
		$CHECK $cmd "$OUT/$cmd-cxx.uf" "$OUT/$cmd-cxx.mc" || return 1
	done
}
expect "C++ exceptions through recorded frames: graph, replay, report are uftrace's" \
	cxx_check

# C++ names of every kind (names.cc: templates, overloads, operators,
# methods, a lambda, an anonymous namespace, an ABI tag), with each C++
# compiler: by default the names are uftrace's, one row a name (a
# template's instances and overloads summed), in report and graph.
names_check() {	# names_check <c++ compiler>
	cxx=$1
	$cxx -std=gnu++17 -O2 -fno-inline -pg -c $T/names.cc \
		-o "$OUT/names-$cxx.o" &&
	$cxx -o "$OUT/names-$cxx-uf" "$OUT/names-$cxx.o" &&
	cp "$OUT/names-$cxx.o" "$OUT/names-$cxx-mc.o" &&
	$TOOL "$OUT/names-$cxx-mc.o" &&
	$cxx -o "$OUT/names-$cxx-mc" "$OUT/names-$cxx-mc.o" "$LIB" \
		-Wl,-T,lds/mcount.lds &&
	uftrace record --no-libcall --no-event -d "$OUT/uf-names-$cxx.d" \
		"$OUT/names-$cxx-uf" 10 >/dev/null &&
	"$MCT" record -o "$OUT/mc-names-$cxx.data" -- \
		"$OUT/names-$cxx-mc" 10 >/dev/null &&
	for cmd in graph report; do
		both $cmd names-$cxx &&
		$CHECK $cmd "$OUT/$cmd-names-$cxx.uf" \
			"$OUT/$cmd-names-$cxx.mc" || return 1
	done
}
for cxx in g++ clang++; do
	if command -v $cxx >/dev/null; then
		expect "C++ names ($cxx): report and graph name functions as uftrace does" \
			names_check $cxx
	else
		echo "SKIP: trace: uftrace: C++ names ($cxx): not installed"
	fi
done

threads_check() {
	"$MCT" report --threads "$OUT/mc-threads.data" > "$OUT/threads.mc" &&
	tids=$(uf_tids) &&
	for t in $tids; do
		$UF report -d "$OUT/uf-threads.d" --tid $t > "$OUT/threads-$t.uf" ||
			return 1
	done &&
	$CHECK threads "$OUT/threads.mc" $(for t in $tids; do
		echo "$OUT/threads-$t.uf"; done)
}
expect "report --threads: each thread's calls are one of uftrace's --tid" \
	threads_check

diff_check() {
	"$MCT" report --diff "$OUT/mc-recurse.data" "$OUT/mc-basic.data" \
		> "$OUT/diff.mc" &&
	$UF report -d "$OUT/uf-basic.d" > "$OUT/diff-a.uf" &&
	$UF report -d "$OUT/uf-recurse.d" > "$OUT/diff-b.uf" &&
	$CHECK diff "$OUT/diff.mc" "$OUT/diff-a.uf" "$OUT/diff-b.uf"
}
expect "report --diff: changes in calls are uftrace's two reports'" diff_check

# Filters uftrace has too, with its glob matching: the same calls.
filter_check() {	# filter_check <cmd> <tag> <uftrace options> -- <ours>
	cmd=$1 tag=$2
	shift 2
	uo=
	while [ "$1" != -- ]; do uo="$uo $1"; shift; done
	shift
	$UF $cmd -d "$OUT/uf-$tag.d" --match=glob $uo > "$OUT/f-$cmd.uf" &&
	"$MCT" $cmd "$@" "$OUT/mc-$tag.data" > "$OUT/f-$cmd.mc" &&
	$CHECK $cmd "$OUT/f-$cmd.uf" "$OUT/f-$cmd.mc"
}
expect "filters: replay -F 'mi*' --depth 2 is uftrace's" \
	filter_check replay threads -F 'mi*' -D 2 -- -F 'mi*' --depth 2
expect "filters: graph -N top -N 'exit*' is uftrace's" \
	filter_check graph threads -N top -N 'exit*' -- -N top -N 'exit*'
expect "filters: report -F recurse -N leaf is uftrace's" \
	filter_check report recurse -F recurse -N leaf -- -F recurse -N leaf
expect "filters: graph --depth 3 is uftrace's" \
	filter_check graph threads -D 3 -- --depth 3

# Filters on tids and times: the unfiltered raw events, filtered here.
raw_check() {	# raw_check <how> <ufcheck arg> <mctrace options...>
	how=$1 arg=$2
	shift 2
	"$MCT" dump --raw "$OUT/mc-threads.data" > "$OUT/all.raw" &&
	"$MCT" dump --raw "$@" "$OUT/mc-threads.data" > "$OUT/f-$how.raw" &&
	$CHECK rawfilter "$OUT/all.raw" "$OUT/f-$how.raw" $how "$arg"
}
"$MCT" dump --raw "$OUT/mc-threads.data" > "$OUT/all.raw"
tid=$(awk 'NR == 1 { print $1 }' "$OUT/all.raw")
# the middle third of the recording, in ns
range=$(sort -n -k2 "$OUT/all.raw" | awk '{ t[NR] = $2 }
	END { print t[int(NR / 3)] "~" t[int(2 * NR / 3)] }')
expect "filters: --tid keeps that thread's calls alone" \
	raw_check tid "$tid" --tid "$tid"
expect "filters: --time-range keeps the calls started in it" \
	raw_check range "$range" --time-range "$range"
expect "filters: --min-time keeps the calls that long, at their depth" \
	raw_check min 2000 --min-time 2us

# Bad read-time options and arguments: a first line naming what is
# wrong (a second may say where the help is), and the exit status (1:
# the trace does not have it; 2: the command line is wrong).
refuse() {	# refuse <status> <text> <mctrace args...>
	st=$1 text=$2
	shift 2
	"$MCT" "$@" >/dev/null 2>"$OUT/refuse.err"
	got=$?
	[ $got = $st ] && [ "$(wc -l < "$OUT/refuse.err")" -le 2 ] &&
		head -1 "$OUT/refuse.err" | grep -q -- "$text" ||
		{ echo "mctrace $*: exit $got, not $st: $(cat "$OUT/refuse.err")"
		  return 1; }
}
refuse_check() {
	d=$OUT/mc-basic.data
	refuse 1 "--tid 1: no such thread" replay --tid 1 "$d" &&
	refuse 1 "--tid 1: no such thread" dump --raw --tid 1 "$d" &&
	refuse 1 "^mctrace graph: nosuch: no call" graph nosuch "$d" &&
	refuse 2 "^mctrace report: unknown option '--bogus'" report --bogus "$d" &&
	refuse 2 "'--tid' needs a value" replay --tid &&
	refuse 2 "^mctrace report: option '-s size': not a sort key" \
		report -s size "$d" &&
	refuse 2 "^mctrace graph: option '--depth 0': not a depth" \
		graph --depth 0 "$d" &&
	refuse 2 "^mctrace replay: option '--time-range 5~1': not a time range" \
		replay -r 5~1 "$d" &&
	refuse 2 "^mctrace info: option '--min-time 3furlongs': not a time" \
		info -t 3furlongs "$d" &&
	refuse 2 "^mctrace dump: option '--tid x': not a list of tids" \
		dump --raw --tid x "$d" &&
	refuse 2 "^mctrace report: one FILE only: 'b' is one too many" \
		report a b &&
	refuse 2 "^mctrace report: --threads and --diff: one or the other" \
		report --threads --diff "$d" "$d" &&
	refuse 2 "^mctrace dump: --perfetto is written as the trace is read" \
		dump --perfetto -F main -o "$OUT/refused.pftrace" "$d"
}
expect "read-time options refused, each named on its first line" refuse_check

# info: the threads uftrace counts, the calls of its report, twice as
# many events, the file's size; what the recorder's MCT_INFO says
# (format.h), a block written here, and "not recorded" without one; the
# blocks read of a copy cut inside a block's header, and the bytes cut.
info_check() {
	d=$OUT/mc-threads.data
	tasks=$($UF info -d "$OUT/uf-threads.d" |
		sed -n 's/^# number of tasks *: *//p')
	$UF report -d "$OUT/uf-threads.d" > "$OUT/info-report.uf" &&
	"$MCT" info "$d" > "$OUT/info.mc" &&
	$CHECK info "$OUT/info.mc" "threads=$tasks" \
		"calls=@$OUT/info-report.uf" "events=@@$OUT/info-report.uf" \
		"trace size=$(wc -c < "$d" | tr -d ' ') bytes" "calls lost=0" || return 1
	$CHECK infoblock "$d" "$OUT/info-none.data" &&
	"$MCT" info "$OUT/info-none.data" > "$OUT/info-none.mc" &&
	$CHECK info "$OUT/info-none.mc" "program=not recorded" \
		"command line=not recorded" "build id=not recorded" \
		"start time=not recorded" || return 1
	$CHECK infoblock "$d" "$OUT/info-one.data" exe=/bin/prog arg=prog \
		"arg=two words" pid=77 start_ns=1700000000000000000 \
		build_id=0123abcd &&
	"$MCT" info "$OUT/info-one.data" > "$OUT/info-one.mc" &&
	$CHECK info "$OUT/info-one.mc" "program=/bin/prog" \
		"command line=prog two words" "build id=0123abcd" \
		"start time=2023-11-14 22:13:20 UTC" "processes=1 (pid 77)" ||
		return 1
	$CHECK infocut "$d" "$OUT/info-cut.data" "$MCT" || return 1
	grep -q '^# program *: not recorded' "$OUT/info.mc" && return 0
	# the recorder's own block: the command run, the program's build id
	id=$(readelf -n "$OUT/mc" | sed -n 's/.*Build ID: *//p')
	$CHECK info "$OUT/info.mc" "command line=$OUT/mc threads" \
		"build id=$id"
}
expect "info: threads, calls, events, size, and what MCT_INFO says" info_check

[ $failures -eq 0 ]
