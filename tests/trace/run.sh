#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - the trace suite: programs recorded through libmcount's
# recorder and read back by mctrace, each result checked against an
# oracle that does not share the recorder's code (check.py).
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/trace sh tests/trace/run.sh
#   TRACE_ARCH=aarch64 LIBMCOUNT=build/aarch64/libmcount.a ... run.sh
#
# TRACE_ARCH (default: the host's) picks the backend; its compilers and
# runner (qemu-user) come from tests/runtime/arches.sh.  Every backend
# records; a function one cannot record is checked to be refused at
# start (a message, no file, the program's output unchanged).
#
# Per build of prog.c (trace_variants below: each backend's hook forms,
# GCC and clang, PIE and not):
#   - the JSON the recorder writes itself (MCOUNT_TRACE=x.json) parses,
#     follows the trace-event format, and every thread's B/E events
#     nest with timestamps that never go back (single and 6 threads)
#   - calls per function equal those counted by the same source built
#     with -finstrument-functions and counter.c (basic, threads with
#     pthread_exit, longjmp, signals whose handler runs traced code)
#   - the own format's events, decoded by check.py alone, are what
#     `mctrace dump --raw` shows, each exit tagged as its entry, each
#     delta and address in as few bytes as the format allows
#   - recursion 10,000 deep; fork and exec: one trace of the processes,
#     each process's calls the counter's, read whole when cut short.
#     Neither under qemu-user, which cannot exec a foreign binary
#     without binfmt_misc and (7.2) aborts a forked child of a threaded
#     process that starts a thread, as the recorder's does
#   - a timer's signals every 50 us whose handler runs traced code,
#     landing in the recorder too: the events still nest
#   - vectors.c: floating-point and vector arguments, varargs, long
#     double returns and a struct returned in two general registers as
#     untraced, in a thread's first traced call too; its calls equal
#     the counter's
# A variant the backend cannot record is expected to be refused at
# start, with its reason.
# Per backend: libraries opened and closed while recording (dlprog.c,
# dllib.c as liba.so and libb.so), with GCC and clang: calls per
# function equal those dlcounter.c counts by name (dladdr, at the call)
# when liba is closed and libb opened where it was (or a SKIP saying it
# landed elsewhere), when 3 threads open and close them in turn, and
# when a thread is inside liba's function as it closes (left by
# longjmp), when liba is opened and closed 2,000 times (the heap in use
# stays within 64 KiB); -N applied to a library opened later; the JSON
# nests.  A library whose sites the runtime refused as out of the
# trampoline's reach fails.  A thunk page for a library's sites made
# where /proc/self/maps shows a gap that a mapping it leaves out holds
# (thunkgap.c), one above the last mapping the list shows (`top`), and
# thunks at the end of the image's own code where no page is free
# within reach (`tail`).
# C++ exceptions thrown through traced frames (output
# unchanged, counts, nesting), with g++ and clang++; frames.c's frame
# layouts (big frames, alloca: counts, nesting).  On x86_64: the hooks'
# code uses general registers only (objdump).  On the host only:
# mctrace's own JSON, folded output and SVG; files of another format
# version refused, with a damaged block read around it; MCOUNT_TRACE_STATS's count
# of events drained is the file's; uftrace record of the same source
# gives the same call graph (if installed); Perfetto traces, decoded by
# protoc, hold to the counter's calls and nesting (perfetto.sh).
set -u
T=tests/trace
OUT=${OUT:-build/tests/trace}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
ARMSCAN=${ARMSCAN:-build/armscan}
PY=${PYTHON:-python3}
. tests/runtime/arches.sh
HOST=$(uname -m | sed 's/^i[3-6]86$/i386/')
ARCH=${TRACE_ARCH:-$HOST}
if ! rt_arch_config "$ARCH"; then
	echo "FAIL: trace: [$ARCH] no configuration in tests/runtime/arches.sh"
	exit 1
fi
# a program that hangs fails its test instead of stopping the suite
RUN="timeout -k 10 120${RT_RUN:+ $RT_RUN}"
QEMU=$RT_RUN
GCC=$RT_CC_DEFAULT
# Does a thread keep its TLS after a signal handler returns, another
# thread alive (tlsprobe.c)?  qemu-i386 7.2 does not: the recorder, whose
# per-thread state is TLS, would then be given another thread's, and the
# traced-handler tests would test the emulator.  Asked under the runner.
SIGNALS_WHY=
mkdir -p "$OUT"
if [ -n "$QEMU" ] &&
   $GCC -O1 -o "$OUT/tlsprobe" $T/tlsprobe.c -lpthread 2>/dev/null &&
   ! why=$($RUN "$OUT/tlsprobe"); then
	SIGNALS_WHY="under $QEMU a thread loses its TLS when a signal handler returns (tlsprobe.c: ${why:-no answer})"
fi
GXX=$(echo "$GCC" | sed 's/gcc$/g++/')
NM=$(echo "$RT_OBJDUMP" | sed 's/objdump$/nm/')
CLANG="clang${RT_CLANG_TARGET:+ --target=$RT_CLANG_TARGET}${RT_CLANG_CFLAGS:+ $RT_CLANG_CFLAGS}"
CLANGXX=$(echo "$CLANG" | sed 's/^clang/clang++/')
failures=0
mkdir -p "$OUT"
rm -f "$OUT"/*.data* "$OUT"/*.json "$OUT"/*.raw

# each line names the backend, but the host's (as before there were others)
TAG=
[ "$ARCH" = "$HOST" ] || TAG="[$ARCH] "
pass() { echo "PASS: trace: $TAG$*"; }
fail() { echo "FAIL: trace: $TAG$*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what: $out"; fi
}

FUNCS="leaf mid top triple recurse jumper jump_back jump_test handler
	signal_test worker exiter threads_test main"

# build <name> <cc> <hook flags> <pie> [src [ldflags]]: $OUT/<name>,
# recorded
build() {
	pic=-fPIE
	[ "$4" = -no-pie ] && pic=-fno-pie
	$2 -std=gnu11 -O2 -g -fno-inline $3 $pic -c ${5:-$T/prog.c} \
		-o "$OUT/$1.o" &&
	$TOOL "$OUT/$1.o" &&
	$2 $4 -o "$OUT/$1" "$OUT/$1.o" ${6:-} "$LIB" -Wl,-T,lds/mcount.lds \
		-lpthread
}

# counted <cc> [src [name]]: the same source, counted by counter.c, as
# $OUT/<name> (count) (not a PIE, so that nm's addresses are the run's)
counted() {
	c=${3:-count}
	$1 -std=gnu11 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c ${2:-$T/prog.c} -o "$OUT/$c.o" &&
	$1 -O2 -fno-pie -c $T/counter.c -o "$OUT/counter.o" &&
	$1 -no-pie -o "$OUT/$c" "$OUT/$c.o" "$OUT/counter.o" -lpthread &&
	$NM "$OUT/$c" > "$OUT/$c.nm"
}

# A run recorded into own format, dumped raw: $OUT/<name>.raw
record_raw() {	# record_raw <name> <prog> <mode>
	"$MCT" record -o "$OUT/$1.data" -- $RUN "$OUT/$2" $3 >/dev/null &&
	"$MCT" dump --raw "$OUT/$1.data" > "$OUT/$1.raw" &&
	! "$MCT" report "$OUT/$1.data" | grep -q 'matched no entry'
}

json_run() {	# json_run <name> <prog> <mode> <min threads>
	MCOUNT_TRACE="$OUT/$1.json" $RUN "$OUT/$2" $3 >/dev/null &&
	$PY $T/check.py json "$OUT/$1.json" $4
}

count_run() {	# count_run <name> <prog> <mode>
	record_raw "$1" "$2" "$3" &&
	COUNTS="$OUT/$1.count" $RUN "$OUT/count" $3 >/dev/null &&
	$PY $T/check.py counts "$OUT/$1.raw" "$OUT/$1.count" \
		"$OUT/count.nm" $FUNCS
}

# Where the emulator gives a thread another's TLS after a signal handler
# (SIGNALS_WHY): the program still runs to its end with its own status
# (its hijacked returns are found by their stack), and stderr says so
# once and counts the calls not recorded.
lost_tls_run() {	# lost_tls_run <name> <prog>
	"$MCT" record -o "$OUT/$1.data" -- $RUN "$OUT/$2" signal \
		>/dev/null 2>"$OUT/$1.err" &&
	[ "$(grep -c "another thread's thread-local state" "$OUT/$1.err")" = 1 ] &&
	grep -q 'calls not recorded' "$OUT/$1.err" &&
	"$MCT" info "$OUT/$1.data" >/dev/null
}

# Calls by caller among $FUNCS equal the counter's, which takes each
# caller from the call's return address: after a longjmp, the frames it
# left must be gone before the next call, which is the caller's child.
edges_run() {	# edges_run <name> <prog> <mode>
	record_raw "$1" "$2" "$3" &&
	EDGES="$OUT/$1.edges" $RUN "$OUT/count" $3 >/dev/null &&
	$PY $T/check.py edges "$OUT/$1.raw" "$OUT/$1.edges" \
		"$OUT/count.nm" $FUNCS
}

# The counter the recorder reads its times from, as `mctrace info`
# names it (the recorder's MCT_INFO): the CPU's own where user space
# reads it in one instruction and the recorder has its entry in assembly.
case $ARCH in
x86_64|i386) CLOCK=rdtsc ;;
aarch64) CLOCK=cntvct_el0 ;;
riscv64) CLOCK=rdtime ;;
*) CLOCK=CLOCK_MONOTONIC ;;
esac
clock_check() {	# clock_check <name>: of $OUT/<name>.data
	"$MCT" info "$OUT/$1.data" > "$OUT/$1.info" &&
	grep -qx "# clock *: $CLOCK" "$OUT/$1.info" ||
		{ grep clock "$OUT/$1.info"; return 1; }
}

# variant <tag> <cc> <hooks> <pie flags>; with VARIANT_SHORT set, the
# checks of the hooks' code alone (JSON, counts, callers, vectors), not
# those of the recorder's buffers, signals and depth
variant() {
	tag=$1
	[ "$2" != false ] || return 0
	if ! build "prog-$tag" "$2" "$3" "$4" || ! counted "$2"; then
		fail "[$tag] build"
		return
	fi
	p=prog-$tag
	expect "[$tag] own JSON, one thread" json_run "$tag-basic" $p basic 1
	expect "[$tag] own JSON, 6 threads, pthread_exit" \
		json_run "$tag-threads" $p threads 6
	for m in basic threads longjmp signal; do
		if [ $m = signal ] && [ -n "$SIGNALS_WHY" ]; then
			echo "SKIP: trace: $TAG[$tag] calls equal the counter's: signal: $SIGNALS_WHY"
			expect "[$tag] a thread's TLS lost: the program goes on, the loss said" \
				lost_tls_run "$tag-lost-tls" $p
			continue
		fi
		expect "[$tag] calls equal the counter's: $m" \
			count_run "$tag-$m" $p $m
	done
	expect "[$tag] callers equal the counter's: longjmp" \
		edges_run "$tag-edges" $p longjmp
	expect "[$tag] info names the clock: $CLOCK" clock_check "$tag-basic"
	if [ -n "${VARIANT_SHORT:-}" ]; then
		vectors "$@"
		return
	fi
	expect "[$tag] compact events: decoded apart, as dumped, none longer than needed" \
		compact_check $tag $p
	expect "[$tag] recursion 10,000 deep" sh -c \
		"'$MCT' record -o '$OUT/$tag-rec.data' -- $RUN '$OUT/$p' recurse >/dev/null &&
		 '$MCT' dump --raw '$OUT/$tag-rec.data' > '$OUT/$tag-rec.raw' &&
		 $PY $T/check.py depth '$OUT/$tag-rec.raw' 10000"
	# (dump --raw counts depth from 0, main's)
	expect "[$tag] record --depth 5: recursion 10,000 deep, 5 deep recorded" \
		sh -c "'$MCT' record --depth 5 -o '$OUT/$tag-d5.data' -- \
			$RUN '$OUT/$p' recurse >/dev/null &&
		 '$MCT' dump --raw '$OUT/$tag-d5.data' > '$OUT/$tag-d5.raw' &&
		 $PY $T/check.py depth '$OUT/$tag-d5.raw' 4 most"
	if [ -n "$SIGNALS_WHY" ]; then
		echo "SKIP: trace: $TAG[$tag] signals every 50 us running traced code: $SIGNALS_WHY"
	else
		expect "[$tag] signals every 50 us running traced code: events nest" \
			alarm_check $tag $p
	fi
	expect "[$tag] lost calls, buffers full: a ring of 1,024 events" \
		lost_run "$tag-lost-ring" $p "buffers full" "" 1024 hot 300000
	expect "[$tag] lost calls, shadow stack full: recursion 3,000 deep" \
		lost_run "$tag-lost-shadow" $p "shadow stack full" "" 4096 \
		recurse 3000
	if [ -n "$SIGNALS_WHY" ]; then
		echo "SKIP: trace: $TAG[$tag] lost calls, on another stack: $SIGNALS_WHY"
	else
		expect "[$tag] lost calls, on another stack: a sigaltstack handler" \
			lost_run "$tag-lost-stack" $p "on another stack" 20 65536 altstack
	fi
	if [ -z "$QEMU" ]; then
		expect "[$tag] fork: one trace, each process's calls the counter's, cut anywhere" \
			fork_check $tag $p
		expect "[$tag] exec: one trace, the image after its own process" \
			exec_check $tag $p
	else
		# (qemu 7.2: a child of a threaded process that starts a
		# thread fails qemu_plugin_vcpu_init_hook's assertion, with
		# or without libmcount; the recorder's writer is a thread)
		echo "SKIP: trace: $TAG[$tag] fork: qemu-user aborts a forked child that starts a thread"
		echo "SKIP: trace: $TAG[$tag] exec: qemu-user cannot exec a foreign binary"
	fi
	vectors "$@"
}

# The own format's events, decoded by check.py from format.h's words
# alone: the calls, names and times `mctrace dump --raw` gives, every
# exit tagged as its entry, every delta in as few bytes as hold it, and
# no function's address written twice in one block (bytes a call, which
# depend on the time between events, are make bench-trace's figure).
compact_check() {	# compact_check <tag> <prog>
	record_raw "$1-hot" $2 "hot 20000" &&
	$PY $T/check.py compact "$OUT/$1-hot.data" "$OUT/$1-hot.raw"
}

# A timer's signals whose handler calls mid(), landing anywhere, the
# recorder's entry and exit included: B/E nest in the JSON, every exit
# matches its entry in the own format (record_raw), and when no call was
# lost, mid ran 200,000 times plus once per recorded handler, and leaf
# twice as often as mid.
alarm_check() {
	MCOUNT_TRACE="$OUT/$1-alarm.json" MCOUNT_TRACE_BUFSIZE=1048576 \
		$RUN "$OUT/$2" alarm >/dev/null 2>&1 &&
	$PY $T/check.py json "$OUT/$1-alarm.json" 1 || return 1
	"$MCT" record --bufsize 1048576 -o "$OUT/$1-alarm.data" -- \
		$RUN "$OUT/$2" alarm >/dev/null 2>&1 || return 1
	"$MCT" report "$OUT/$1-alarm.data" > "$OUT/$1-alarm.report" || return 1
	! grep -q 'matched no entry' "$OUT/$1-alarm.report" ||
		{ grep 'matched no entry' "$OUT/$1-alarm.report"; return 1; }
	grep -q 'not recorded' "$OUT/$1-alarm.report" && return 0
	awk '$NF == "mid" { m = $(NF - 1) } $NF == "leaf" { l = $(NF - 1) }
	     $NF == "alarm_handler" { h = $(NF - 1) }
	     END { if (m != 200000 + h || l != 2 * m) {
		print "mid " m ", leaf " l ", handler " h; exit 1 } }' \
		"$OUT/$1-alarm.report"
}

# lost_run <name> <prog> <reason> <count|""> <ring events> <mode...>:
# calls not recorded, by reason (format.h's MCT_LOST_WHY), against the
# -finstrument-functions counter: every call it saw is either recorded
# or counted lost, and some (<count>) for <reason>; the recorder's end
# message, `mctrace report`, `mctrace dump` (stderr, and Chrome's
# otherData) and the recorder's own JSON each give every count with its
# reason, and for buffers full the end message names what helps.  A
# ring of 1,024 events cannot keep 600,000 calls (buffers full) when the
# thread may not wait for room (MCOUNT_TRACE_NOWAIT); a ring of 4,096
# has a shadow stack of 2,047 frames (config.c), less than recursion
# 3,000 deep; a handler on a sigaltstack makes 20 calls there.
lost_run() {
	n=$1 p=$2 why=$3 want=$4 buf=$5
	shift 5
	# a thread whose ring is full waits for the writer unless told not to
	nowait=0
	[ "$why" != "buffers full" ] || nowait=1
	MCOUNT_TRACE_NOWAIT=$nowait "$MCT" record --bufsize $buf \
		-o "$OUT/$n.data" -- $RUN "$OUT/$p" "$@" \
		>/dev/null 2>"$OUT/$n.err" &&
	"$MCT" dump --raw "$OUT/$n.data" > "$OUT/$n.raw" 2>"$OUT/$n.dump" &&
	"$MCT" dump --chrome "$OUT/$n.data" > "$OUT/$n.dump.json" 2>/dev/null &&
	"$MCT" report "$OUT/$n.data" > "$OUT/$n.report" &&
	COUNTS="$OUT/$n.count" $RUN "$OUT/count" "$@" >/dev/null || return 1
	for o in err dump dump.json report; do
		$PY $T/check.py lost "$OUT/$n.data" "$OUT/$n.raw" \
			"$OUT/$n.count" "$OUT/$n.$o" "$why" $want || return 1
	done
	# the end message names what would have kept them
	helps="waiting for room (MCOUNT_TRACE_NOWAIT unset) or a larger ring"
	helps="$helps keeps them (mctrace record --bufsize EVENTS, or"
	[ "$why" != "buffers full" ] || grep -qxF \
		"mcount: trace: buffers full: $helps MCOUNT_TRACE_BUFSIZE; now $buf)" \
		"$OUT/$n.err" || { cat "$OUT/$n.err"; return 1; }
	# the recorder's JSON: its own run, so the counts differ, not the reason
	MCOUNT_TRACE="$OUT/$n.json" MCOUNT_TRACE_BUFSIZE=$buf \
		MCOUNT_TRACE_NOWAIT=$nowait $RUN "$OUT/$p" "$@" >/dev/null 2>&1 &&
	$PY $T/check.py lostjson "$OUT/$n.json" "$why" $want
}

# vectors <tag> <cc> <hooks> <pie flags>: vectors.c, built as the
# variant is: the same numbers as untraced, fsum8 recorded (4 calls: the
# first of three threads, whose recorder is set up in that call, and
# main's), and every function's calls equal the counter's (on arm, GCC's
# vsum is a variadic leaf that keeps lr in its register, and clang's
# fsum8 computes its result before the hook).
vectors() {
	expect "[$1] floating-point arguments and returns, two-register returns unchanged" \
		vectors_check "$@"
}
vectors_check() {
	build "vec-$1" "$2" "$3" "$4" $T/vectors.c -Wl,-u,mcount_boot &&
		counted "$2" $T/vectors.c "vcount-$1" || return 1
	want=$($RUN "$OUT/vec-$1") || return 1
	got=$(MCOUNT_TRACE="$OUT/$1-vec.data" $RUN "$OUT/vec-$1") || return 1
	[ "$got" = "$want" ] ||
		{ echo "traced: $got; untraced: $want" | tr '\n' ' '; return 1; }
	n=$("$MCT" report "$OUT/$1-vec.data" | awk '$NF == "fsum8" { print $(NF - 1) }')
	[ "$n" = 4 ] || { echo "fsum8 recorded $n times (4)"; return 1; }
	"$MCT" dump --raw "$OUT/$1-vec.data" > "$OUT/$1-vec.raw" &&
	COUNTS="$OUT/$1-vec.count" $RUN "$OUT/vcount-$1" >/dev/null &&
	$PY $T/check.py counts "$OUT/$1-vec.raw" "$OUT/$1-vec.count" \
		"$OUT/vcount-$1.nm" fsum8 vsum ldmul pair vectors_test main
}

# The pids `mctrace info` lists for a trace's processes, first first.
trace_pids() {
	"$MCT" info "$1" | sed -n 's/^#   [a-z]* *: pid \([0-9]*\),.*/\1/p'
}

# A process tree in one trace: `record` leaves one file, the child's
# (fork) an MCT_PROCESS block in it.  Each process's calls, read alone
# (--pid), equal the -finstrument-functions counter's for that process:
# the parent's whole run (top(2), top(4)); the child's from the fork
# (top(3): the counter starts it there, and the frames it was inside,
# main and fork_test, are the parent's calls).  The file cut inside the
# child's block, in its header and at its end: read, exit 0, the loss
# said, each process's whole blocks' calls as check.py decodes them.
fork_check() {
	record_raw "$1-fork" "$2" fork || return 1
	left=$(ls "$OUT/$1-fork.data".* 2>/dev/null)
	[ -z "$left" ] || { echo "files beside the trace: $left"; return 1; }
	rm -f "$OUT/$1-fork.count"*
	COUNTS="$OUT/$1-fork.count" $RUN "$OUT/count" fork >/dev/null ||
		return 1
	set -- "$1" $(trace_pids "$OUT/$1-fork.data")
	[ $# = 3 ] || { echo "processes: $(($# - 1)), not 2"; return 1; }
	cc=$(ls "$OUT/$1-fork.count".*)
	"$MCT" dump --raw --pid "$2" "$OUT/$1-fork.data" > "$OUT/$1-fork-1.raw" &&
	"$MCT" dump --raw --pid "$3" "$OUT/$1-fork.data" > "$OUT/$1-fork-2.raw" &&
	$PY $T/check.py counts "$OUT/$1-fork-1.raw" "$OUT/$1-fork.count" \
		"$OUT/count.nm" main fork_test top mid leaf &&
	$PY $T/check.py counts "$OUT/$1-fork-2.raw" "$cc" "$OUT/count.nm" \
		top mid leaf &&
	$PY $T/check.py proccuts "$OUT/$1-fork.data" "$MCT" "$OUT"
}

# exec: the image before (top(2), then execl) and the one after (prog
# basic) are two processes of one pid in one trace, each with its own
# names; the counter counts the image after (exec runs no destructor).
exec_check() {
	record_raw "$1-exec" "$2" exec || return 1
	left=$(ls "$OUT/$1-exec.data".* 2>/dev/null)
	[ -z "$left" ] || { echo "files beside the trace: $left"; return 1; }
	set -- "$1" $(trace_pids "$OUT/$1-exec.data")
	[ $# = 3 ] && [ "$2" = "$3" ] ||
		{ echo "pids: $*: not two of one pid"; return 1; }
	COUNTS="$OUT/$1-exec.count" $RUN "$OUT/count" exec >/dev/null &&
	$PY $T/check.py counts "$OUT/$1-exec.raw" "$OUT/$1-exec.count" \
		"$OUT/count.nm" recurse triple || return 1
	mids=$("$MCT" report --threads "$OUT/$1-exec.data" | awk '
		/^# process/ { p = $NF }
		$NF == "mid" { printf "%s:%s ", p, $(NF - 1) }')
	[ "$mids" = "exec:2 basic:10 " ] ||
		{ echo "mid calls by image: $mids (exec:2 basic:10)"; return 1; }
}

# frames <tag> <cc> <hooks> <pie flags>: frames.c's layouts recorded,
# calls equal to the counter's, its JSON nesting
frames() {
	[ "$2" != false ] || return 0
	expect "[$1] frame layouts: calls equal the counter's, JSON nests" \
		frames_check "$@"
}
frames_check() {
	t=frames-$1
	# -u mcount_boot: a program with pads and no call the recorder
	# wraps (exec, pthread_exit, the unwinder) references nothing in
	# libmcount.a, which then adds nothing to it (prog.c calls execl)
	build "$t" "$2" "$3" "$4" $T/frames.c -Wl,-u,mcount_boot &&
	counted "$2" $T/frames.c "$t-count" || return 1
	"$MCT" record -o "$OUT/$t.data" -- $RUN "$OUT/$t" >/dev/null &&
	"$MCT" dump --raw --no-demangle "$OUT/$t.data" > "$OUT/$t.raw" &&
	COUNTS="$OUT/$t.count" $RUN "$OUT/$t-count" >/dev/null &&
	$PY $T/check.py counts "$OUT/$t.raw" "$OUT/$t.count" \
		"$OUT/$t-count.nm" small big huge dyn stacked main &&
	MCOUNT_TRACE="$OUT/$t.json" $RUN "$OUT/$t" >/dev/null &&
	$PY $T/check.py json "$OUT/$t.json" 1
}

# refused <tag> <cc> <hooks> <pie flags> <reason ERE> [src]: recording refused
# at start with that reason, nothing written, the program unchanged.
refused() {
	tag=$1
	[ "$2" != false ] || return 0
	expect "[$tag] recording refused at start: $5" refused_check "$@"
}
refused_check() {
	build "prog-$1" "$2" "$3" "$4" ${6:-} || return 1
	rm -f "$OUT/$1.data"
	want=$($RUN "$OUT/prog-$1" basic) || return 1
	got=$(MCOUNT_TRACE="$OUT/$1.data" $RUN "$OUT/prog-$1" basic \
		2>"$OUT/$1.err") || return 1
	[ "$got" = "$want" ] && [ ! -e "$OUT/$1.data" ] &&
	grep -Eq "$5" "$OUT/$1.err" ||
		{ echo "output '$got' (untraced '$want'), stderr:"
		  cat "$OUT/$1.err"; return 1; }
}

# C++ exceptions through traced frames: same output as untraced, the
# recorded JSON nests, calls equal the counter's.
cxx_check() {	# cxx_check <tag> <c++> <hook flags> <c compiler>
	t=throw-$1
	$2 -O2 -g -fno-inline $3 -c $T/throw.cc -o "$OUT/$t.o" &&
	$TOOL "$OUT/$t.o" &&
	$2 -o "$OUT/$t" "$OUT/$t.o" "$LIB" -Wl,-T,lds/mcount.lds &&
	$2 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/throw.cc -o "$OUT/$t-count.o" &&
	$4 -O2 -fno-pie -c $T/counter.c -o "$OUT/$t-counter.o" &&
	$2 -no-pie -o "$OUT/$t-count" "$OUT/$t-count.o" "$OUT/$t-counter.o" &&
	$NM "$OUT/$t-count" > "$OUT/$t-count.nm" || return 1
	want=$($RUN "$OUT/$t") || return 1
	got=$(MCOUNT_TRACE="$OUT/$t.json" $RUN "$OUT/$t") || return 1
	[ "$want" = "$got" ] || { echo "output '$got', untraced '$want'"; return 1; }
	$PY $T/check.py json "$OUT/$t.json" 1 || return 1
	"$MCT" record -o "$OUT/$t.data" -- $RUN "$OUT/$t" >/dev/null &&
	"$MCT" dump --raw --no-demangle "$OUT/$t.data" > "$OUT/$t.raw" &&
	COUNTS="$OUT/$t.count" $RUN "$OUT/$t-count" >/dev/null &&
	$PY $T/check.py counts "$OUT/$t.raw" "$OUT/$t.count" \
		"$OUT/$t-count.nm" _Z4leafi _Z7throweri _Z7catcheri \
		_Z9rethrowerv
}

# dl_build <dir> <cc> <hook flags> <pie flags>: <dir>/dlprog with
# <dir>/liba.so and libb.so, recorded; <dir>/count/ the same, counted
dl_build() {
	pic=-fPIE
	[ "$4" = -no-pie ] && pic=-fno-pie
	mkdir -p "$1/count" || return 1
	for l in a b; do
		$2 -O2 -g -fno-inline -fPIC $3 -DL=$l -c $T/dllib.c \
			-o "$1/lib$l.o" &&
		$TOOL --per-section "$1/lib$l.o" &&
		$2 -shared -o "$1/lib$l.so" "$1/lib$l.o" &&
		$2 -O2 -g -fno-inline -fPIC -finstrument-functions -DL=$l \
			-c $T/dllib.c -o "$1/count/lib$l.o" &&
		$2 -shared -o "$1/count/lib$l.so" "$1/count/lib$l.o" ||
			return 1
	done
	$2 -std=gnu11 -O2 -g -fno-inline $3 $pic -c $T/dlprog.c \
		-o "$1/dlprog.o" &&
	$TOOL "$1/dlprog.o" &&
	$2 $4 -rdynamic -o "$1/dlprog" "$1/dlprog.o" "$LIB" \
		-Wl,-T,lds/mcount.lds -lpthread -ldl &&
	$2 -std=gnu11 -O2 -g -fno-inline -finstrument-functions $pic \
		-c $T/dlprog.c -o "$1/count/dlprog.o" &&
	$2 -O2 $pic -c $T/dlcounter.c -o "$1/count/dlcounter.o" &&
	$2 $4 -rdynamic -o "$1/count/dlprog" "$1/count/dlprog.o" \
		"$1/count/dlcounter.o" -lpthread -ldl
}

# dl_run <dir> <name> <mode> <funcs> [rounds]: recorded, counted, the
# counts compared by name, the recorded JSON nests
dl_run() {
	"$MCT" record -o "$1/$2.data" ${DL_N:+-N "$DL_N"} -- \
		$RUN "$1/dlprog" $3 "$1" ${5:-} \
		> "$1/$2.out" 2>&1 &&
	"$MCT" dump --raw "$1/$2.data" > "$1/$2.raw" &&
	! "$MCT" report "$1/$2.data" | grep 'matched no entry' &&
	COUNTS="$1/$2.count" $RUN "$1/count/dlprog" $3 "$1/count" ${5:-} \
		>/dev/null &&
	$PY $T/check.py named "$1/$2.raw" "$1/$2.count" $4 &&
	MCOUNT_TRACE="$1/$2.json" MCOUNT_TRACE_NOTRACE="${DL_N:-}" \
		$RUN "$1/dlprog" $3 "$1" ${5:-} >/dev/null &&
	$PY $T/check.py json "$1/$2.json" 1 ||
		{ cat "$1/$2.out"; return 1; }
}

# dl_run with the libraries left out by -N: the program enables them.
DL_N=
dl_self() {
	DL_N='[ab]_*'
	dl_run "$@"
	r=$?
	DL_N=
	return $r
}

# liba opened and closed 2,000 times: its calls named as the counter
# names them (dl_run), and the heap in use (mallinfo2: the recorder's
# allocations, and libc's) grown by under 64 KiB from the 100th load to
# the last, recording the own format and JSON (a recorder that keeps
# every load's names to the end grows by 3.6 MB on x86_64).
dl_cycles() {	# dl_cycles <dir>
	dl_run "$1" cycles cycles "a_one a_two cycles_test" 2000 &&
	MCOUNT_TRACE="$1/cycles-heap.json" $RUN "$1/dlprog" cycles "$1" 2000 \
		> "$1/cycles-json.out" 2>&1 || return 1
	for o in cycles cycles-json; do
		grew=$(sed -n 's/.*heap grew \(-*[0-9]*\) bytes.*/\1/p' "$1/$o.out")
		[ -n "$grew" ] && [ "$grew" -lt 65536 ] ||
			{ echo "$o: $(cat "$1/$o.out")"; return 1; }
	done
}

# Where libb was opened: where liba had been, or (said) elsewhere.
dl_where() {	# dl_where <dir> <name> <what>
	if grep -q 'same address' "$1/$2.out"; then
		pass "[$3] libb opened where liba was closed: names by time"
	else
		echo "SKIP: trace: $TAG[$3] libb was not opened where liba was (the loader placed it elsewhere: $(cat "$1/$2.out")); names checked all the same"
	fi
}

# -N 'b_*': libb, opened after recording started, gets the filters too.
dl_filtered() {	# dl_filtered <dir>
	"$MCT" record -o "$1/filtered.data" -N 'b_*' -- \
		$RUN "$1/dlprog" swap "$1" > "$1/filtered.out" 2>&1 &&
	"$MCT" report "$1/filtered.data" > "$1/filtered.report" &&
	grep -q ' 13  a_one$' "$1/filtered.report" &&
	! grep -q ' b_' "$1/filtered.report" ||
		{ cat "$1/filtered.report"; return 1; }
}

# Each case above: a library's sites refused as out of the trampoline's
# reach fail it.  Where the program's threads map stacks and buffers
# around the libraries they open (`inside`, `loop`), a library can have
# no free page within riscv64's 1 MiB `jal` (under qemu-user: packed
# between one thread's stack and the buffers another mapped next, 5 runs
# in 40 of `loop`); its thunks then go at the end of its own code
# segment (thunkgap.c `tail`).
#
# thunkgap.c: a thunk page made near an image whose nearest gap in
# /proc/self/maps is taken by a mapping the list leaves out (qemu-user
# 7.2 does, for glibc's reserve of a thread's heap: a library loaded
# next to one got no thunk page, its sites no live form, 1 run in 12
# of the 3 threads' loop on arm).  `top`: an image mapped last, its
# only gap in reach above the last line maps lists (qemu-user lists
# nothing above the guest's newest mapping: riscv64's relaxed -pg calls
# in a library loaded last went out of reach, 6 runs in 100).
thunk_gap() {
	$GCC -std=gnu11 -O2 -g -Iruntime/include -fPIE -c $T/thunkgap.c \
		-o "$OUT/thunkgap.o" &&
	$GCC -pie -o "$OUT/thunkgap" "$OUT/thunkgap.o" "$LIB" \
		-Wl,-T,lds/mcount.lds -lpthread &&
	$RUN "$OUT/thunkgap" ${1:-}
}

# dl <tag> <cc> <hook flags> <pie flags>; with VARIANT_SHORT set, not
# the 3 threads' loop nor the 2,000 loads, which test the recorder's
# list of objects rather than the hooks' code
dl() {
	[ "$2" != false ] || return 0
	d=$OUT/dl-$1
	if ! dl_build "$d" "$2" "$3" "$4" > "$OUT/dl-$1.build" 2>&1; then
		fail "[$1] dlopen: build: $(tail -5 "$OUT/dl-$1.build")"
		return
	fi
	expect "[$1] a library closed, another opened: calls by name" \
		dl_run "$d" swap swap "a_one a_two b_one b_two use_lib"
	dl_where "$d" swap "$1"
	expect "[$1] the same, the program enabling them itself: calls by name" \
		dl_self "$d" self swapself "a_one a_two b_one b_two"
	expect "[$1] a thread inside a library as it closes: no crash, named" \
		dl_run "$d" inside inside \
		"a_wait a_one held b_two b_one after inside_thread"
	if [ -z "${VARIANT_SHORT:-}" ]; then
		expect "[$1] 3 threads opening and closing libraries: calls by name" \
			dl_run "$d" loop loop \
			"a_one a_two b_one b_two looper" 200
		expect "[$1] a library opened and closed 2,000 times: names right, memory bounded" \
			dl_cycles "$d"
	fi
	expect "[$1] -N applies to a library opened while recording" \
		dl_filtered "$d"
}

# on_variant <name> <command...>: the command run with the runner of
# the runtime suite's case variant <name> (tests/runtime/arches.sh's
# rt_variant: ppc64le's p10, under qemu's power10 CPU)
on_variant() {
	ov_name=$1
	shift
	if ! rt_variant "$ARCH" "$ov_name"; then
		fail "no variant $ov_name in tests/runtime/arches.sh"
		return
	fi
	ov_run=$RUN
	[ -z "$RT_VARIANT_RUN" ] || RUN="timeout -k 10 120 $RT_VARIANT_RUN"
	"$@"
	RUN=$ov_run
}

# The backend's builds: `variant` where it records, `refused` (with the
# reason it gives) where it cannot, `cxx` for its C++ exceptions.
trace_variants() {
	case $ARCH in
	x86_64)
		variant gcc-fentry "$GCC" "-pg -mfentry" -pie
		variant gcc-mcount "$GCC" "-pg" -no-pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=5" -pie
		variant clang-fentry "$CLANG" "-pg -mfentry" -pie
		variant clang-mcount "$CLANG" "-pg" -no-pie
		# clang's pad is one 5-byte NOP, GCC's five 1-byte ones
		variant clang-pad "$CLANG" "-fpatchable-function-entry=5" -pie
		cxx gcc "$GXX" "-pg -mfentry" "$GCC"
		cxx clang "$CLANGXX" "-pg" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -no-pie
		dl gcc-fentry "$GCC" "-pg -mfentry" -pie
		dl gcc-pad "$GCC" "-fpatchable-function-entry=5" -no-pie
		dl clang-fentry "$CLANG" "-pg -mfentry" -pie
		;;
	i386)
		# GCC has no -mfentry with -fpic here
		variant gcc-fentry "$GCC" "-pg -mfentry" -no-pie
		variant gcc-mcount "$GCC" "-pg" -pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=5" -pie
		variant clang-fentry "$CLANG" "-pg -mfentry" -no-pie
		variant clang-mcount "$CLANG" "-pg" -pie
		cxx gcc "$GXX" "-pg" "$GCC"
		cxx clang "$CLANGXX" "-pg -mfentry" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -pie
		dl gcc-mcount "$GCC" "-pg" -pie
		dl clang-mcount "$CLANG" "-pg" -pie
		;;
	aarch64)
		variant gcc-mcount "$GCC" "-pg" -pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=2" -no-pie
		variant clang-mcount "$CLANG" "-pg" -no-pie
		variant clang-pad "$CLANG" "-fpatchable-function-entry=2" -pie
		# pac-ret: a pad runs before the signing, -pg after it
		variant gcc-pad-pac "$GCC" \
			"-fpatchable-function-entry=2 -mbranch-protection=pac-ret" -pie
		refused gcc-mcount-pac "$GCC" "-pg -mbranch-protection=pac-ret" \
			-pie "cannot record .* signs its return address"
		cxx gcc "$GXX" "-pg" "$GCC"
		cxx clang "$CLANGXX" "-fpatchable-function-entry=2" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -pie
		frames clang-mcount "$CLANG" "-pg" -no-pie
		frames clang-pad "$CLANG" "-fpatchable-function-entry=2" -pie
		dl gcc-mcount "$GCC" "-pg" -pie
		dl clang-pad "$CLANG" "-fpatchable-function-entry=2" -pie
		;;
	riscv64)
		# GCC's -pg passes ra in a0 (the slot found from the
		# prologue), clang's keeps it at -8(s0); -mno-relax keeps
		# the 8-byte call
		variant gcc-mcount "$GCC" "-pg" -pie
		variant gcc-mcount-norelax "$GCC" "-pg -mno-relax" -no-pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=8" -no-pie
		variant clang-mcount "$CLANG" "-pg" -pie
		variant clang-pad "$CLANG" "-fpatchable-function-entry=4" -pie
		cxx gcc "$GXX" "-pg" "$GCC"
		cxx clang "$CLANGXX" "-fpatchable-function-entry=8" "$CLANG"
		# GCC moves sp past 2 KiB with a register (lui t0; add sp,
		# sp, t0): arch/riscv.c's reader follows the constant
		frames gcc-mcount "$GCC" "-pg" -pie
		frames clang-mcount "$CLANG" "-pg" -pie
		frames gcc-pad "$GCC" "-fpatchable-function-entry=8" -no-pie
		dl gcc-mcount "$GCC" "-pg" -pie
		dl clang-pad "$CLANG" "-fpatchable-function-entry=4" -pie
		;;
	s390x)
		variant gcc-fentry "$GCC" "-pg -mfentry" -pie
		variant gcc-mcount "$GCC" "-pg" -no-pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=3" -pie
		variant clang-fentry "$CLANG" "-pg -mfentry" -pie
		cxx gcc "$GXX" "-pg -mfentry" "$GCC"
		cxx clang "$CLANGXX" "-pg -mfentry" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -no-pie
		frames gcc-fentry "$GCC" "-pg -mfentry" -pie
		dl gcc-fentry "$GCC" "-pg -mfentry" -pie
		dl clang-fentry "$CLANG" "-pg -mfentry" -pie
		;;
	ppc64le)
		# "fentry" is -mprofile-kernel; clang has only -pg, no pads
		variant gcc-fentry "$GCC" "-pg -mprofile-kernel" -pie
		variant gcc-mcount "$GCC" "-pg" -no-pie
		# GCC 12 pads a function before its TOC set-up, which then
		# computes a wrong TOC (the program crashes, traced or
		# not): the runtime refuses those pads, nothing to record
		case $($GCC -dumpversion) in
		[0-9] | 1[0-2] | [0-9].* | 1[0-2].*)
			echo "SKIP: trace: $TAG[gcc-pad] GCC $($GCC -dumpversion) pads before the TOC set-up (sites refused)" ;;
		*)	variant gcc-pad "$GCC" "-fpatchable-function-entry=2" -pie ;;
		esac
		variant clang-mcount "$CLANG" "-pg" -pie
		# power10: PC-relative code, no TOC (the counters are built
		# for the default CPU), so GCC 12's pads are at the entry;
		# the hooks' checks alone
		VARIANT_SHORT=1
		on_variant p10 variant gcc-mcount-p10 "$GCC" \
			"-pg -mcpu=power10" -pie
		on_variant p10 variant gcc-fentry-p10 "$GCC" \
			"-pg -mprofile-kernel -mcpu=power10" -no-pie
		on_variant p10 variant gcc-pad-p10 "$GCC" \
			"-fpatchable-function-entry=2 -mcpu=power10" -pie
		on_variant p10 variant clang-mcount-p10 "$CLANG" \
			"-pg -mcpu=power10" -no-pie
		VARIANT_SHORT=
		cxx gcc "$GXX" "-pg -mprofile-kernel" "$GCC"
		cxx clang "$CLANGXX" "-pg" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -no-pie
		frames gcc-fentry "$GCC" "-pg -mprofile-kernel" -pie
		# a library's hook calls _mcount through ld's stub: the TOC
		# one, and with power10 the PC-relative one (its bcl form:
		# dllib.c has no prefixed instruction); not the loops the
		# other backends run in full
		VARIANT_SHORT=1
		dl gcc-mcount "$GCC" "-pg" -pie
		on_variant p10 dl gcc-mcount-p10 "$GCC" "-pg -mcpu=power10" -pie
		VARIANT_SHORT=
		;;
	arm)
		# Thumb-2 (Debian's default) and ARM state; clang has no
		# pads on arm
		variant gcc-mcount "$GCC" "-pg" -pie
		variant gcc-mcount-arm "$GCC" "-pg -marm" -no-pie
		variant gcc-pad "$GCC" "-fpatchable-function-entry=3" -pie
		variant gcc-pad-arm "$GCC" "-fpatchable-function-entry=2 -marm" \
			-no-pie
		variant clang-mcount "$CLANG" "-pg" -pie
		variant clang-mcount-arm "$CLANG" "-pg -marm" -no-pie
		# GCC -O0 gives a leaf a frame but keeps lr in its register
		variant gcc-mcount-O0 "$GCC" "-pg -O0" -pie
		cxx gcc "$GXX" "-pg" "$GCC"
		cxx_unless_broken gcc-pad "$GXX" "-fpatchable-function-entry=3" \
			"$GCC"
		cxx clang "$CLANGXX" "-pg" "$CLANG"
		frames gcc-mcount "$GCC" "-pg" -pie
		frames gcc-mcount-arm "$GCC" "-pg -marm" -no-pie
		frames gcc-pad "$GCC" "-fpatchable-function-entry=3" -pie
		frames clang-mcount "$CLANG" "-pg" -no-pie
		# clang computes before the hook: smmul (-marm), ldrd of
		# stack arguments (Thumb-2), str.w with a negative offset (-O0)
		frames clang-mcount-arm "$CLANG" "-pg -marm" -pie
		frames clang-mcount-O0 "$CLANG" "-pg -O0" -no-pie
		expect "prologues read, as the compilers' CFI says" \
			arm_prologues
		dl gcc-mcount "$GCC" "-pg" -pie
		dl clang-mcount "$CLANG" "-pg" -pie
		;;
	*)
		refused gcc-mcount "$GCC" "-pg" -pie \
			"recording is not supported on $ARCH yet"
		;;
	esac
}

# arm_prologues: every -pg function of the suite's sources, built by
# GCC and clang, ARM and Thumb-2, -O0, -O2 and -Os, has a prologue the
# recorder's reader takes (armscan), and what it reads agrees with the
# compiler's own call frame information (armcfi.py: the CFA, when given
# from sp, is sp + the bytes taken; lr is saved where it says, or kept).
arm_prologues() {
	d=$OUT/prologues
	rm -rf "$d" && mkdir -p "$d" || return 1
	for c in gcc clang; do
		cc=$GCC
		[ $c = gcc ] || cc=$CLANG
		[ "$cc" != false ] || continue
		for isa in arm thumb; do
			for o in O0 O2 Os; do
				for s in prog frames vectors live dlprog; do
					$cc -std=gnu11 -$o -g -pg -m$isa \
						-Iruntime/include -c $T/$s.c \
						-o "$d/$c-$isa-$o-$s.o" || return 1
				done
			done
		done
	done
	"$ARMSCAN" "$d"/*.o > "$d/scan" || return 1
	! grep '^refused' "$d/scan" || return 1
	$PY $T/armcfi.py "$(echo "$RT_OBJDUMP" | sed 's/objdump$/readelf/')" \
		"$d/scan" "$d"/*.o
}

cxx() {	# cxx <tag> <c++> <hook flags> <c compiler>
	[ "$2" != false ] || return 0
	expect "[$1] C++ exceptions through traced frames" cxx_check "$@"
}

# cxx, unless the compiler's own build with those hook flags, without
# libmcount, cannot throw either (GCC 12's ARM pads: std::terminate):
# then a SKIP that says so.
cxx_unless_broken() {	# cxx_unless_broken <tag> <c++> <hook flags> <cc>
	[ "$2" != false ] || return 0
	if $2 -O2 -fno-inline $3 $T/throw.cc -o "$OUT/throw-$1-plain" &&
	   ! $RUN "$OUT/throw-$1-plain" >/dev/null 2>&1; then
		echo "SKIP: trace: $TAG[$1] C++ exceptions: $2 $3 cannot throw even without libmcount"
		return 0
	fi
	cxx "$@"
}

if ! command -v ${CLANG%% *} >/dev/null; then
	CLANG=false CLANGXX=false
	echo "SKIP: trace: ${TAG}clang variants: no clang"
fi
trace_variants
expect "a thunk page placed past a mapping /proc/self/maps leaves out" \
	thunk_gap
expect "a thunk page placed above the last mapping /proc/self/maps lists" \
	thunk_gap top
expect "thunks at the end of the image's code where no page is free in reach" \
	thunk_gap tail

# The runtime calls the x86_64 entry hook saving no vector register, and
# the return trampoline keeps only %rax and %rdx: in the library's own
# code, nothing rec_entry or rec_exit can reach that returns may touch
# another register, or call out but through rec_keeping_vectors.  The
# same of the entries that take the trampolines over (entry.S), which
# leave the rest to the trampolines' general-register paths
# (mc_rt_tramp_*_gpr: they save the general argument registers and
# call rec_entry, checked here), of the entry that captures arguments
# (rec_entry_args, -A) and of the return trampolines themselves (the
# plain one and -R's), whose one jump through a register is to the
# real return address.
gpr_check() {
	rm -rf "$OUT/ar" && mkdir -p "$OUT/ar" &&
	lib=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB") &&
	(cd "$OUT/ar" && ar x "$lib" linux-rec.o) &&
	$RT_OBJDUMP -dr --no-show-raw-insn "$OUT/ar/linux-rec.o" > "$OUT/rec.dis" &&
	$PY $T/check.py gpr "$OUT/rec.dis" rec_entry rec_exit \
		rec_fentry rec_mcount rec_fentry_args rec_mcount_args \
		rec_entry_args \
		--calls rec_keeping_vectors mc_rt_tramp_fentry_gpr \
		mc_rt_tramp_mcount_gpr --noreturn no_frame \
		--returns rec_return_tramp rec_return_value_tramp >/dev/null
}
[ "$ARCH" != x86_64 ] ||
	expect "[x86_64] the hooks leave vector registers alone" gpr_check

# What is recorded changes while the program runs: through the API
# (live.c turns functions on and off itself), on every backend (where
# -pg prologues are read, the functions enabled later must have been
# read too), and, on the host, through mctrace's --at (the recorder's
# writer applies the later filters).
case $ARCH in
x86_64|s390x) LIVE_HOOKS="-pg -mfentry" ;;
ppc64le) LIVE_HOOKS="-pg -mprofile-kernel" ;;
*) LIVE_HOOKS=-pg ;;
esac
live_build() {
	$GCC -std=gnu11 -O2 -g -fno-inline $LIVE_HOOKS -Iruntime/include \
		-c $T/live.c -o "$OUT/live.o" &&
	$TOOL "$OUT/live.o" &&
	$GCC -o "$OUT/live" "$OUT/live.o" "$LIB" -Wl,-T,lds/mcount.lds -lpthread
}
# calls <raw> <function>: its exit events
calls() { grep -c " X [0-9]* $2\$" "$1"; }
live_api_check() {
	a= b=
	"$MCT" record -N '*' -o "$OUT/live.data" -- $RUN "$OUT/live" > /dev/null &&
	"$MCT" dump --raw "$OUT/live.data" > "$OUT/live.raw" &&
	a=$(calls "$OUT/live.raw" alpha) && b=$(calls "$OUT/live.raw" beta) &&
	[ "$a" = 7 ] && [ "$b" = 3 ] ||
		{ echo "alpha $a (7), beta $b (3)"; return 1; }
	"$MCT" record -N '*' -o "$OUT/live.json" -- $RUN "$OUT/live" > /dev/null &&
	$PY $T/check.py json "$OUT/live.json" 2
}
live_at_check() {
	a= first=
	"$MCT" record -N '*' --at 200ms -F 'alpha' --at 400ms -N '*' \
		-o "$OUT/live-at.data" -- "$OUT/live" at > /dev/null &&
	"$MCT" dump --raw "$OUT/live-at.data" > "$OUT/live-at.raw" &&
	a=$(calls "$OUT/live-at.raw" alpha) &&
	first=$(awk '{ print $2; exit }' "$OUT/live-at.raw") &&
	[ "$a" = 7 ] && [ "$first" -ge 200000000 ] &&
	[ "$(grep -vc ' alpha$' "$OUT/live-at.raw")" = 0 ] ||
		{ echo "alpha $a (7), first event at $first ns (>= 200 ms)"; return 1; }
}
# A function the program enables itself whose return address the
# recorder cannot find: live.c stripped, so that no -pg prologue can be
# read (no symbol says where it starts), alpha's site enabled by its
# address.  aarch64 and arm: its 5 calls are counted lost for that
# reason, in the end message, the report and the recorder's JSON.  The
# backends that read no prologue record them (the reason does not
# arise there); riscv64's runtime refuses such sites at boot already.
live_unnamed_check() {
	d=$OUT/live-unnamed
	${RT_OBJDUMP%objdump}strip -o "$d" "$OUT/live" &&
	"$MCT" record -F nothing -o "$d.data" -- $RUN "$d" unnamed \
		> /dev/null 2> "$d.err" &&
	"$MCT" report "$d.data" > "$d.report" || { cat "$d.err"; return 1; }
	case $ARCH in
	aarch64|arm)
		for o in err report; do
			grep -q '5 calls not recorded: 5 return address not found$' \
				"$d.$o" || { cat "$d.$o"; return 1; }
		done
		MCOUNT_TRACE="$d.json" MCOUNT_TRACE_FILTER=nothing \
			$RUN "$d" unnamed > /dev/null 2>&1 &&
		$PY $T/check.py lostjson "$d.json" "return address not found" 5 ;;
	*)
		awk 'NR > 2 && $(NF - 1) == 5 { n++ } END { exit n != 1 }' \
			"$d.report" && ! grep -q 'not recorded' "$d.report" ||
			{ cat "$d.report"; return 1; } ;;
	esac
}
live_ok=false
if live_build; then
	live_ok=true
	expect "the program's own mcount_enable/disable calls change what is recorded" \
		live_api_check
	if [ "$ARCH" = riscv64 ]; then
		echo "SKIP: trace: $TAG a function enabled whose prologue cannot be read: riscv64's runtime refuses a -pg site with no symbol at boot"
	else
		expect "a function enabled whose prologue cannot be read: lost, return address not found" \
			live_unnamed_check
	fi
else
	fail "build of live.c"
fi

[ "$ARCH" = "$HOST" ] || exit $((failures != 0))

# mctrace's own outputs from one trace.
outputs_check() {
	d=$OUT/gcc-fentry-threads.data
	"$MCT" dump --chrome -o "$OUT/conv.json" "$d" &&
	$PY $T/check.py json "$OUT/conv.json" 6 &&
	"$MCT" dump --flame-svg -o "$OUT/outputs.svg" "$d" &&
	$PY $T/check.py svg "$OUT/outputs.svg" &&
	"$MCT" dump --folded "$d" | grep -q '^main;threads_test;top;mid;leaf [0-9]*$' &&
	"$MCT" report "$d" | grep -q ' 1  threads_test$' &&
	"$MCT" replay "$d" | grep -q '} /\* threads_test \*/' &&
	"$MCT" record -o "$OUT/filtered.json" -F 'mid' -F 'top' -N top \
		--min-time 0ns -- "$OUT/prog-gcc-fentry" basic >/dev/null &&
	$PY $T/check.py json "$OUT/filtered.json" 1 &&
	! grep -q '"leaf"\|"top"' "$OUT/filtered.json" &&
	grep -q '"mid"' "$OUT/filtered.json"
}
expect "mctrace's JSON, folded stacks, SVG, report, graph, filters" \
	outputs_check

# The flame graph of the 6 threads: titles, calls, nesting, a script;
# the calls by name are the counter's (a build of its own: count.nm is
# the last variant's, which need not be gcc's).
flame_check() {
	counted gcc "" flame-count &&
	COUNTS="$OUT/flame.count" "$OUT/flame-count" threads >/dev/null &&
	"$MCT" dump --flame-svg -o "$OUT/flame.svg" \
		"$OUT/gcc-fentry-threads.data" &&
	$PY $T/check.py flame "$OUT/flame.svg" "$OUT/flame.count" \
		"$OUT/flame-count.nm" $FUNCS
}
expect "mctrace's flame graph: each frame's title, calls as the counter's, nesting, its script" \
	flame_check

# Its script run by a browser: opened at #zoom=mid&s=^(worker|top|mid)$
# (chromium headless, no network), the DOM after load shows mid's
# subtree over the width, those functions' frames coloured, and the
# share of time --folded gives (each ns once: they nest in each other).
flame_script_check() {
	at='#zoom=mid&s=%5E%28worker%7Ctop%7Cmid%29%24'	# (URI-encoded)
	timeout 20 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --no-first-run \
		--user-data-dir="$OUT/chromium" \
		--dump-dom "file://$(cd "$OUT" && pwd)/flame.svg$at" \
		> "$OUT/flame.dom" 2>"$OUT/chromium.err" &&
	"$MCT" dump --folded -o "$OUT/flame.folded" \
		"$OUT/gcc-fentry-threads.data" &&
	$PY $T/check.py flamedom "$OUT/flame.dom" "$OUT/flame.folded" \
		mid '^(worker|top|mid)$'
}
if command -v chromium >/dev/null; then
	expect "the flame graph's script, in chromium: zoom, search, matched share" \
		flame_script_check
else
	echo "SKIP: trace: the flame graph's script in a browser: no chromium"
fi

# MCOUNT_TRACE_STATS: the writer's own count of the events it drained
# is the file's (3N + 2 calls, an entry and an exit each: rings that
# hold them all, so none is lost whenever the writer wakes), read back
# by mctrace; without it the recorder says nothing.
stats_check() {
	MCOUNT_TRACE="$OUT/stats.data" MCOUNT_TRACE_BUFSIZE=2097152 \
		MCOUNT_TRACE_STATS=1 "$OUT/prog-gcc-fentry" hot 200000 \
		>/dev/null 2>"$OUT/stats.err" &&
	"$MCT" dump --raw "$OUT/stats.data" > "$OUT/stats.raw" || return 1
	events=$(grep -c ' [EX] ' "$OUT/stats.raw")
	[ "$events" = 1200004 ] ||
		{ echo "$events events in the file, not 1200004"; return 1; }
	grep -q "^mcount: trace: writer thread CPU [0-9]* ns, last pass [0-9]* ns, [1-9][0-9]* passes, $events events\$" \
		"$OUT/stats.err" || { cat "$OUT/stats.err"; return 1; }
	MCOUNT_TRACE="$OUT/stats.data" "$OUT/prog-gcc-fentry" hot 1000 \
		>/dev/null 2>"$OUT/stats.err" &&
	[ ! -s "$OUT/stats.err" ]
}
expect "MCOUNT_TRACE_STATS: the writer's count of events is the file's" \
	stats_check

# A writer asleep past the time its ring takes to fill (its guess of the
# rate is from a quiet spell, or it is kept off its CPU): the thread
# whose ring passes half full wakes it.  MCOUNT_TRACE_TEST_NAP makes
# every nap 10 s, so that only that wake-up drains the ring in time:
# prog's `jumps` makes 2 x 200,000 calls of about a microsecond each
# after 3 ms of none, 1.5 rings each time.  None is lost, the writer
# says its naps were cut short, and the calls are the program's.
mark_check() {
	MCOUNT_TRACE="$OUT/mark.data" MCOUNT_TRACE_BUFSIZE=262144 \
		MCOUNT_TRACE_TEST_NAP=10000000000 MCOUNT_TRACE_STATS=1 \
		$RUN "$OUT/prog-gcc-fentry" jumps >"$OUT/mark.out" \
		2>"$OUT/mark.err" || return 1
	if grep -q 'not recorded' "$OUT/mark.err" ||
		! grep -q ', 800008 events$' "$OUT/mark.err" ||
		! grep -q ', [1-9][0-9]* naps cut short by a ring past half full$' \
			"$OUT/mark.err"; then
		cat "$OUT/mark.err"
		return 1
	fi
	"$OUT/prog-gcc-fentry" jumps | cmp -s - "$OUT/mark.out" &&
	"$MCT" report "$OUT/mark.data" | grep -q ' 400000  spin$'
}
expect "a ring past half full wakes the writer: none lost" mark_check

# The hot loop (3 calls a round, 500,000 rounds: its ring fills many
# times over) with default options while every other core is kept busy:
# a thread whose ring is full waits for the writer (recorder/ring.c), so
# no call is lost, and the calls are the -finstrument-functions
# counter's.  On the host only: under qemu-user the loop is too slow to
# outrun the writer.
hotloop_check() {
	pids=
	for c in $(seq 2 "$(nproc)"); do
		( while :; do :; done ) &
		pids="$pids $!"
	done
	MCOUNT_TRACE="$OUT/hotloop.data" $RUN "$OUT/prog-gcc-fentry" \
		hot 500000 >/dev/null 2>"$OUT/hotloop.err"
	st=$?
	[ -z "$pids" ] || kill $pids
	[ $st = 0 ] || { cat "$OUT/hotloop.err"; return 1; }
	"$MCT" report "$OUT/hotloop.data" > "$OUT/hotloop.report" &&
	COUNTS="$OUT/hotloop.count" $RUN "$OUT/count" hot 500000 \
		>/dev/null &&
	$PY $T/check.py nolost "$OUT/hotloop.data" "$OUT/hotloop.err" \
		"$OUT/hotloop.report" "$OUT/hotloop.count" "$OUT/count.nm" \
		leaf mid top
}
if [ "$ARCH" = "$HOST" ]; then
	expect "a hot loop, default options, other cores busy: none lost" \
		hotloop_check
fi

# A file mctrace cannot read right is refused, with one line that says
# why, or its fault is counted: another version (refused), a block of
# events that does not decode (skipped, said in one line; the rest is
# read: check-mctrace checks what), an exit whose tag is not its entry's
# function's.
damage_check() {
	d=$OUT/gcc-fentry-threads.data
	for how in version count tag; do
		$PY $T/check.py damage "$d" "$OUT/damaged-$how.data" $how ||
			return 1
	done
	! "$MCT" report "$OUT/damaged-version.data" >/dev/null 2>"$OUT/damaged.err" &&
	[ "$(wc -l < "$OUT/damaged.err")" = 1 ] &&
	grep -q 'trace format version 1; this mctrace reads version 2 only' \
		"$OUT/damaged.err" &&
	"$MCT" report "$OUT/damaged-count.data" >/dev/null 2>"$OUT/damaged.err" &&
	[ "$(wc -l < "$OUT/damaged.err")" = 1 ] &&
	grep -q 'damaged: 1 stretch of blocks skipped' "$OUT/damaged.err" &&
	"$MCT" report "$OUT/damaged-tag.data" | grep -q 'exits that matched no entry'
}
expect "mctrace refuses other versions, skips damaged events, counts bad exits" \
	damage_check

# The README's picture, drawn again: well-formed, with recordmcount's
# main and at least 20 boxes, as the committed one (not box for box:
# the picture follows recordmcount's code, which others change).
readme_svg_check() {
	EXAMPLE_OUT=$OUT/example RECORDMCOUNT=$TOOL MCTRACE=$MCT \
		LIBMCOUNT=$LIB sh mctrace/example.sh "$OUT/example.svg" \
		>/dev/null || return 1
	for f in "$OUT/example.svg" mctrace/flame-example.svg; do
		$PY $T/check.py svg "$f" &&
		[ "$(boxes "$f" | grep -c .)" -ge 20 ] &&
		boxes "$f" | grep -qx '[0-9.]* main' ||
		{ echo "$f: not well-formed, or no main, or under 20 boxes"
		  return 1; }
	done
}
# boxes SVG: "Y NAME" a frame, sorted (a title's name ends its line)
boxes() {
	awk '/^<g class="f"><title>/ { sub(/^<g class="f"><title>/, "")
			name = $0; next }
		name != "" && match($0, / y="[^"]*"/) {
			print substr($0, RSTART + 4, RLENGTH - 5), name; name = "" }' \
		"$1" | sort
}
expect "the README's flame graph, drawn again" readme_svg_check

if $live_ok; then
	expect "mctrace record --at: the filters change at the times given" \
		live_at_check
fi

# Recording processes that are siblings (a pipeline) and in another
# folder: one trace beside the -o given relative, of both processes,
# each with its 10 calls of mid.  Their command lines are 6,000 bytes
# long, their MCT_INFO blocks past 4 KiB (mctrace/fold.c reads the
# whole block for its start).
siblings_check() {
	mct=$(cd "$(dirname "$MCT")" && pwd)/$(basename "$MCT")
	o=$(cd "$OUT" && pwd)
	long=$(printf '%06000d' 0)
	rm -rf "$o/sib" && mkdir -p "$o/sib" &&
	(cd "$o/sib" && "$mct" record -o rel.data -- sh -c \
		"cd / && '$o/prog-gcc-fentry' basic $long | '$o/prog-gcc-fentry' basic $long >/dev/null" &&
	 ls rel.data* > files) || return 1
	n=$(grep -c . "$o/sib/files")
	[ "$n" = 1 ] || { echo "$n files: $(cat "$o/sib/files")"; return 1; }
	pids=$(trace_pids "$o/sib/rel.data")
	[ $(echo $pids | wc -w) = 2 ] || { echo "processes: $pids"; return 1; }
	for p in $pids; do
		"$mct" report --pid $p "$o/sib/rel.data" | grep -q ' 10  mid$' ||
			{ echo "process $p: no 10 calls of mid"; return 1; }
	done
}
expect "mctrace record: sibling processes in another folder, one trace beside -o" \
	siblings_check

# uftrace's view of the same source, built for it (-pg, no libmcount).
uftrace_check() {
	gcc -std=gnu11 -O2 -g -fno-inline -pg -c $T/prog.c -o "$OUT/uf.o" &&
	gcc -o "$OUT/uf" "$OUT/uf.o" -lpthread &&
	uftrace record --no-libcall -d "$OUT/uf.d" "$OUT/uf" basic >/dev/null &&
	uftrace replay -d "$OUT/uf.d" -f none --no-pager > "$OUT/uf.replay" &&
	$PY $T/check.py uftrace "$OUT/gcc-mcount-basic.raw" "$OUT/uf.replay"
}
if command -v uftrace >/dev/null; then
	expect "uftrace record gives the same call graph" uftrace_check
else
	echo "SKIP: trace: uftrace comparison: no uftrace"
fi

# Perfetto's format, decoded by protoc (tests/trace/perfetto.sh)
RECORDMCOUNT=$TOOL LIBMCOUNT=$LIB MCTRACE=$MCT OUT=$OUT PYTHON=$PY \
	sh $T/perfetto.sh || failures=$((failures + 1))

# The threads' dlopen/dlclose loop with the runtime, the recorder, the
# program and its libraries built with ASan+UBSan (the recorder built
# for the slot hook that keeps vector registers: instrumented code may
# use them); the counts by name as in the plain build's.  Each object
# is named by its path: runtime/linux/names.c and recorder/names.c are
# two files.
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
dl_asan() {
	s=$OUT/dl-asan
	rm -rf "$s" && mkdir -p "$s/lib" &&
	for f in runtime/core/*.c runtime/linux/*.c \
		 $RT_ARCH_SRC runtime/$ARCH/trampoline.S \
		 $(ls recorder/*.c | grep -v sitekeys) recorder/$ARCH/return.S \
		 $(ls recorder/$ARCH/frame.c recorder/$ARCH/entry.S 2>/dev/null); do
		gcc -std=c11 -O1 -g -fPIC -funwind-tables $SAN \
			-fno-tree-loop-distribute-patterns -Iruntime/include \
			-c $f -o "$s/lib/$(echo $f | tr / _).o" || return 1
	done &&
	[ ! -e recorder/$ARCH/frame.c ] ||
		gcc -std=c11 -O1 -g -fPIC $SAN -Iruntime/include \
			-c recorder/sitekeys.c -o "$s/lib/sitekeys.o" || return 1
	for l in a b; do
		gcc -O2 -g -fno-inline -fPIC -pg -mfentry $SAN -DL=$l \
			-c $T/dllib.c -o "$s/lib$l.o" &&
		$TOOL --per-section "$s/lib$l.o" &&
		gcc $SAN -shared -o "$s/lib$l.so" "$s/lib$l.o" || return 1
	done
	gcc -std=gnu11 -O2 -g -fno-inline -pg -mfentry -fPIE $SAN \
		-c $T/dlprog.c -o "$s/dlprog.o" &&
	$TOOL "$s/dlprog.o" &&
	gcc -pie -rdynamic $SAN -o "$s/dlprog" "$s/dlprog.o" "$s"/lib/*.o \
		-Wl,-T,lds/mcount.lds -lpthread -ldl || return 1
	"$MCT" record -o "$s/loop.data" -- "$s/dlprog" loop "$s" 100 \
		> "$s/loop.out" 2>&1 || { tail -30 "$s/loop.out"; return 1; }
	"$MCT" dump --raw "$s/loop.data" > "$s/loop.raw" &&
	COUNTS="$s/loop.count" "$OUT/dl-gcc-fentry/count/dlprog" loop \
		"$OUT/dl-gcc-fentry/count" 100 >/dev/null &&
	$PY $T/check.py named "$s/loop.raw" "$s/loop.count" \
		a_one a_two b_one b_two looper
}
if [ "$ARCH" != x86_64 ] || [ -n "${NO_SANITIZE:-}" ] ||
   ! echo 'int main(void){return 0;}' | gcc $SAN -x c - -o "$OUT/san-probe" 2>/dev/null ||
   ! "$OUT/san-probe"; then
	echo "SKIP: trace: libraries opened and closed by 3 threads under ASan+UBSan: x86_64 with a sanitizer runtime only"
else
	expect "libraries opened and closed by 3 threads while recording, under ASan+UBSan" dl_asan
fi

[ $failures -eq 0 ]
