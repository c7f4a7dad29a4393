#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# attach.sh - mctrace record -p against running processes (issue 40).
#
#   MCTRACE=build/mctrace LIBMCOUNT=build/libmcount.a \
#   RECORDMCOUNT=build/recordmcount OUT=build/tests/attach \
#   CYCLES=20 sh tests/attach/attach.sh
#
# Two 4-thread targets (target.c): one built with pads alone and no
# libmcount (mctrace loads libmcount.so into it), one built -pg -mfentry,
# recorded and linked with libmcount.a.  Each gets CYCLES attach, record,
# detach cycles; after each, from outside (proc.py, nothing of
# mctrace's): every executable mapping's bytes as before the first,
# the same file descriptors, no thread stopped; in each trace, helper
# called twice per request and leaf once per helper, within the calls
# in flight at the window's edges.  At the end the target's own sums
# hold and it exits 0.  Then 5 cycles on the pads target while a thread
# of it forks all along, and on each target while a thread of it opens
# and closes a library (dlib.c, built with pads) all along: its sites
# traced while loaded in the hooks target, none left enabled after
# (its entries' bytes), the rest as above; 5 on the pads target while a
# thread of it opens and closes a library whose constructor and
# destructor sleep (slowinit.c: stopped there, it holds the loader's
# lock); one whose malloc waits for good (gated.c), so that the dlopen
# of libmcount.so is given up holding the loader's lock: said at once,
# in one line; 15 pads targets forking all along, each attached once (a
# thread stopped inside fork holds malloc's locks), then ended within
# 5 s of SIGTERM (every target is); a start after the text was put back behind the engine's back
# (restored.c, as after a start refused once libmcount.so was loaded):
# its calls recorded, no crash; and 5 on each while its main
# thread keeps known values in its FP and vector registers across the
# system calls mctrace stops it in and calls on it, which it checks.
# list -p and live -p: a recording that records nothing until live
# enables one function.  A target that exits while recorded: its trace
# whole, record -p's status 0.  Then the refusals, each with its
# message, a non-zero exit and the target left running as it was: not ours (as
# nobody, when run as root), no sites, another tracer, a recorder
# already recording, static, its main thread gone; and one stopped by
# job control, left stopped.  x86_64 only; SKIP where ptrace is
# forbidden (Yama's ptrace_scope 3, no CAP_SYS_PTRACE in a container).
set -u
T=tests/attach
OUT=${OUT:-build/tests/attach}
CYCLES=${CYCLES:-20}
TAG="[attach]"
# the system python: a version manager's shim in PATH may take seconds to start
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
PROC="$PY $T/proc.py"
fails=0

pass() { echo "PASS: $TAG $1"; }
fail() { echo "FAIL: $TAG $1"; fails=$((fails + 1)); }

if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP: $TAG attach runs on x86_64 only (not $(uname -m))"
	exit 0
fi
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" = 3 ]; then
	echo "SKIP: $TAG Yama's ptrace_scope is 3: no process may be traced"
	exit 0
fi
if ! $PROC probe; then
	echo "SKIP: $TAG ptrace refused here (no CAP_SYS_PTRACE?)"
	exit 0
fi

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
CC=${CC:-gcc}
LIBDIR=$(dirname "$LIBMCOUNT")
build() {
	$CC -O2 -pthread -fpatchable-function-entry=5 -o "$OUT/pads" \
		$T/target.c &&
	$CC -O2 -fPIC -shared -fpatchable-function-entry=5 \
		-o "$OUT/libdl.so" $T/dlib.c &&
	$CC -O2 -fPIC -shared -fpatchable-function-entry=5 \
		-o "$OUT/libslow.so" $T/dlib.c $T/slowinit.c &&
	$CC -O2 -fpatchable-function-entry=5 -o "$OUT/restored" \
		$T/restored.c -ldl &&
	$CC -O2 -pthread -fpatchable-function-entry=5 -o "$OUT/gated" \
		$T/gated.c &&
	$CC -O2 -pthread -o "$OUT/plain" $T/target.c &&
	$CC -O2 -pthread -static -fpatchable-function-entry=5 \
		-o "$OUT/static" $T/target.c &&
	$CC -O2 -pg -mfentry -c -o "$OUT/hooks.o" $T/target.c &&
	$RECORDMCOUNT "$OUT/hooks.o" &&
	$CC -pthread -o "$OUT/hooks" "$OUT/hooks.o" -Wl,-T,lds/mcount.lds \
		"$LIBMCOUNT"
}
if ! build > "$OUT/build.log" 2>&1; then
	fail "cannot build the targets: $(tail -1 "$OUT/build.log")"
	exit 1
fi

# start NAME [RUNNER...]: the target running, its pid in $pid
start() {
	name=$1
	shift
	rm -f "$OUT/$name.out"
	"$@" "$OUT/$name" ${TARGET_ARGS:-} > "$OUT/$name.out" \
		2>"$OUT/$name.err" &
	job=$!
	for _ in $(seq 100); do
		grep -q ready "$OUT/$name.out" 2>/dev/null && break
		sleep 0.05
	done
	pid=$(grep ready "$OUT/$name.out" | cut -d' ' -f1)
	# Not ready in 5 s: said, and the job killed, so that the case's
	# own kill and wait end at once (a wait on an empty pid would wait
	# for every job) and its attach fails on a process that is gone.
	if [ -z "$pid" ]; then
		fail "$name: no \"ready\" line in 5 s: $(head -c 200 "$OUT/$name.err")"
		kill -KILL "$job" 2>/dev/null
		wait "$job" 2>/dev/null
		pid=$job
	fi
}

# calls REPORT FUNC: FUNC's calls in the trace's report
calls() {
	awk -v f="$2" '$NF == f { print $(NF - 1) }' "$1"
}

# within A B: |A - B| <= 8, the calls two threads each may have in
# flight at each edge of the window
within() {
	d=$(($1 - $2))
	[ "$d" -le 8 ] && [ "$d" -ge -8 ]
}

# dl_check NAME K REPORT: the library of a "dlopen" target: its sites
# traced while loaded (the hooks target: its dlopen is libmcount's) in
# calls 2:1, and none of its entries a call after the detach
dl_check() {
	dreq=$(calls "$3" dl_request)
	dleaf=$(calls "$3" dl_leaf)
	if [ "$1" = hooks ] && { [ "${dreq:-0}" -eq 0 ] ||
	   ! within "${dleaf:-0}" $((2 * dreq)); }; then
		fail "$1 dlopen cycle $2: calls dl_request $dreq dl_leaf $dleaf"
		return 1
	fi
	[ -n "$dreq" ] && dl_traced=$((dl_traced + 1))
	$PROC entries "$pid" "$DL" dl_request dl_leaf > "$OUT/$1-$2.entries"
	if grep -q " e8$" "$OUT/$1-$2.entries"; then
		fail "$1 dlopen cycle $2: a call left at $(grep " e8$" \
			"$OUT/$1-$2.entries" | tr '\n' ' ')"
		return 1
	fi
}

# settled_fds: the target's descriptors, as $fds counts them, asked
# again for a moment if they differ: a thread loading a library has it
# open, and the runtime /proc/self/maps, while they load; a leak stays
settled_fds() {
	for _ in 1 2 3 4 5; do
		n=$($PROC fds "$pid" ${DL:-})
		[ "$n" = "$fds" ] && break
		sleep 0.02
	done
	echo "$n"
}

# one_cycle NAME K: attach, record 50 ms, detach, check; 0 if all held
one_cycle() {
	trace="$OUT/$1-$2.data"
	if ! "$MCTRACE" record -p "$pid" --duration 50ms -o "$trace" \
			> "$OUT/$1-$2.log" 2>&1; then
		fail "$1 cycle $2: record -p failed: $(tail -1 "$OUT/$1-$2.log")"
		return 1
	fi
	"$MCTRACE" report "$trace" > "$trace.report"
	req=$(calls "$trace.report" request)
	help=$(calls "$trace.report" helper)
	leaf=$(calls "$trace.report" leaf)
	if [ -z "$req" ] || [ "$req" -eq 0 ] ||
	   ! within "${help:-0}" $((2 * req)) || ! within "${leaf:-0}" "$help"; then
		fail "$1 cycle $2: calls request $req helper $help leaf $leaf"
		return 1
	fi
	if [ -n "${DL:-}" ] && ! dl_check "$1" "$2" "$trace.report"; then
		return 1
	fi
	if ! $PROC same "$pid" "$OUT/$1.text" ${DL:-} > "$OUT/$1-$2.same"; then
		fail "$1 cycle $2: $(head -1 "$OUT/$1-$2.same")"
		return 1
	fi
	now_fds=$(settled_fds)
	if [ "$now_fds" != "$fds" ] || ! $PROC running "$pid"; then
		fail "$1 cycle $2: fds $now_fds (were $fds), or a thread stopped"
		return 1
	fi
}

# baseline_fds: the target's descriptor count to hold to, read until two
# reads 20 ms apart agree: a thread of it may have a file open for a
# moment
baseline_fds() {
	b=$($PROC fds "$pid" ${DL:-})
	for _ in 1 2 3 4 5; do
		sleep 0.02
		again=$($PROC fds "$pid" ${DL:-})
		[ "$again" = "$b" ] && break
		b=$again
	done
	echo "$b"
}

# alive PID: the process runs (a zombie, ended but not yet waited for,
# does not)
alive() {
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}

# cycles NAME [N]: N (CYCLES) cycles against target NAME (run with
# TARGET_ARGS), then its own end
cycles() {
	n=${2:-$CYCLES} what="$1${TARGET_ARGS:+ $TARGET_ARGS}"
	start "$1"
	$PROC text "$pid" ${DL:-} > "$OUT/$1.text"
	fds=$(baseline_fds)
	k=1
	while [ $k -le "$n" ] && one_cycle "$1" $k; do
		k=$((k + 1))
	done
	[ $k -gt "$n" ] && pass "$what: $n cycles: counts 2:1:1, text as before, same fds, no thread stopped"
	end_target "$1" && pass "$what: its own sums right, exit 0"
}

# end_target NAME: SIGTERM to the target; 0 if it ended within 5 s with
# its sums right and exit 0 (a lock an attach left held hangs its exit)
end_target() {
	kill -TERM "$pid"
	for _ in $(seq 50); do
		alive "$pid" || break
		sleep 0.1
	done
	if alive "$pid"; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		fail "$1${TARGET_ARGS:+ $TARGET_ARGS}: still running 5 s after SIGTERM (a lock left held?)"
		return 1
	fi
	wait "$pid"
	status=$?
	if [ $status -eq 0 ] && grep -q "sums right" "$OUT/$1.out"; then
		return 0
	fi
	fail "$1${TARGET_ARGS:+ $TARGET_ARGS}: exit $status, $(tail -1 "$OUT/$1.out")"
	return 1
}

# firsts NAME N: N targets, each attached once (each attach loads
# libmcount.so into it), then ended
firsts() {
	k=1
	while [ $k -le "$2" ]; do
		start "$1"
		$PROC text "$pid" > "$OUT/$1.text"
		fds=$(baseline_fds)
		one_cycle "$1" "first$k" && end_target "$1" || break
		k=$((k + 1))
	done
	[ $k -gt "$2" ] && pass "$1 ${TARGET_ARGS:-}: $2 targets, each attached once and ended by SIGTERM, sums right"
}

cycles pads
cycles hooks
# a thread forking all along: each child records on into a file of its
# own (FILE.PID) until its _exit; the parent as above
# the busy targets: 5 cycles, or CYCLES if fewer (the sanitizer build)
busy=$((CYCLES < 5 ? CYCLES : 5))
TARGET_ARGS=fork cycles pads $busy
# the first attach to a forking target, again and again: a thread held
# inside fork holds malloc's locks, which the dlopen of libmcount.so
# needs; a dlopen given up waiting for them left the loader's lock held
# and the target hung at its exit
TARGET_ARGS=fork firsts pads $((CYCLES < 5 ? CYCLES * 3 : 15))
# a thread opening and closing a library all along: in the hooks
# target, whose dlopen is libmcount's, the library's sites are traced
# while it is loaded.  The pads target's dlopen was bound to the C
# library's before libmcount.so came: a library it loads while attached
# stays as it was, untraced (the runtime says so on its stderr once).
DL=$OUT/libdl.so
dl_traced=0
TARGET_ARGS="dlopen $DL" cycles hooks $busy
dl_traced=0
TARGET_ARGS="dlopen $DL" cycles pads $busy
if [ $dl_traced -eq 0 ]; then
	echo "SKIP: $TAG pads dlopen: a library the target loads while attached is not traced (its dlopen is not libmcount's)"
else
	fail "pads dlopen: the library traced in $dl_traced cycles: update this test"
fi
DL=
# a thread opening and closing a library whose constructor and
# destructor sleep: stopped inside them, it holds the loader's lock
# (not in the loader's own code), and the start must not wait for it
DL=$OUT/libslow.so
TARGET_ARGS="dlopen $DL" cycles pads $busy
DL=
# the start after mctrace put the text back behind the engine's back (a
# start refused after libmcount.so was loaded): the pads are read again
# before they are enabled, not enabled by their first byte alone
if "$OUT/restored" "$LIBDIR/libmcount.so.0" "$OUT/restored.data" \
		> "$OUT/restored.out" 2>&1 &&
   grep -q "^restored: ok 10$" "$OUT/restored.out" &&
   "$MCTRACE" report "$OUT/restored.data" > "$OUT/restored.report" &&
   [ "$(calls "$OUT/restored.report" victim)" = 10 ]; then
	pass "a start after the text was put back: the pads read again, 10 calls"
else
	fail "a start after the text was put back: $(tail -1 "$OUT/restored.out")"
fi
# the main thread holding known values in its floating-point and vector
# registers across the sleeps where mctrace stops it and makes its calls
# on it (target.c's "fp"): each value as it was, or its sums are wrong
TARGET_ARGS=fp cycles pads $busy
TARGET_ARGS=fp cycles hooks $busy

# list -p and live -p against a recording in progress that records
# nothing (-N '*') until live enables helper: then only helper, as
# list -p shows, and only helper in the trace
live_case() {
	start pads
	if "$MCTRACE" list -p "$pid" > "$OUT/list0" 2>&1 ||
	   ! grep -q "no libmcount" "$OUT/list0"; then
		fail "list -p before any attach: $(head -1 "$OUT/list0")"
	fi
	"$MCTRACE" record -p "$pid" --duration 1500ms -N '*' \
		-o "$OUT/live.data" > "$OUT/live.log" 2>&1 &
	rec=$!
	for _ in $(seq 100); do
		"$MCTRACE" list -p "$pid" > "$OUT/list1" 2>/dev/null && break
		sleep 0.05
	done
	"$MCTRACE" live -p "$pid" enable helper > "$OUT/live1" 2>&1
	"$MCTRACE" list -p "$pid" > "$OUT/list2" 2>&1
	wait $rec
	"$MCTRACE" report "$OUT/live.data" > "$OUT/live.report"
	"$MCTRACE" live -p "$pid" enable helper > "$OUT/live2" 2>&1
	live2=$?
	if grep -q "^1 functions enabled" "$OUT/live1" &&
	   ! grep -q "^enabled" "$OUT/list1" &&
	   [ "$(grep -c "^enabled" "$OUT/list2")" = 1 ] &&
	   grep -q "^enabled 0x[0-9a-f]* helper " "$OUT/list2" &&
	   [ "$(calls "$OUT/live.report" helper)" -gt 0 ] &&
	   [ -z "$(calls "$OUT/live.report" request)" ] &&
	   [ -z "$(calls "$OUT/live.report" leaf)" ] &&
	   [ $live2 -ne 0 ] && grep -q "nothing records" "$OUT/live2"; then
		pass "list -p and live -p: helper enabled alone, recorded alone"
	else
		fail "list -p and live -p: $(cat "$OUT/live1" "$OUT/live2" | tr '\n' ' ')"
	fi
	kill -TERM "$pid"
	wait "$pid"
}

live_case

# The target exits during the recording (SIGTERM, its own clean end):
# its recorder finishes the file, record -p says so and exits 0.
exit_case() {
	start pads
	"$MCTRACE" record -p "$pid" --duration 20s -o "$OUT/exit.data" \
		> "$OUT/exit.log" 2>&1 &
	rec=$!
	sleep 1
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	wait $rec
	rstatus=$?
	"$MCTRACE" report "$OUT/exit.data" > "$OUT/exit.report" 2>&1
	req=$(calls "$OUT/exit.report" request)
	help=$(calls "$OUT/exit.report" helper)
	if [ $rstatus -eq 0 ] && [ $status -eq 0 ] &&
	   grep -q "exited during the recording" "$OUT/exit.log" &&
	   grep -q "sums right" "$OUT/pads.out" &&
	   [ "${req:-0}" -gt 0 ] && within "${help:-0}" $((2 * req)); then
		pass "the target exits while recorded: its trace whole, record -p 0"
	else
		fail "target's exit while recorded: record $rstatus, target $status, request $req helper $help: $(tail -1 "$OUT/exit.log")"
	fi
}

exit_case

# refuse NAME WHAT PATTERN [RUNNER...]: record -p fails, saying PATTERN
# in one line, and the target runs on, its text as it was
refuse() {
	name=$1 what=$2 pattern=$3
	shift 3
	${RUNNER:-} "$MCTRACE" record -p "$pid" --duration 50ms \
		-o "${REFUSED:-$OUT/refused.data}" > "$OUT/refuse.log" 2>&1
	status=$?
	if [ $status -ne 0 ] && [ "$(wc -l < "$OUT/refuse.log")" -eq 1 ] &&
	   grep -q "$pattern" "$OUT/refuse.log" && kill -0 "$pid" &&
	   $PROC running "$pid" && $PROC same "$pid" "$OUT/$name.text" > /dev/null; then
		pass "refused, $what: $(cat "$OUT/refuse.log")"
	else
		fail "$what: exit $status: $(head -2 "$OUT/refuse.log")"
	fi
}

# refusal NAME WHAT PATTERN: start NAME, refuse, stop it
refusal() {
	start "$1"
	$PROC text "$pid" > "$OUT/$1.text"
	refuse "$@"
	kill -TERM "$pid"
	wait "$pid"
}

refusal plain "no sites" "no sites"
# its dlopen of libmcount.so given up holding the loader's lock (its
# malloc waits for a lock a held thread keeps): said at once, not tried
# again (gated.c); the process is not as it was, and is killed
start gated
"$MCTRACE" record -p "$pid" --duration 50ms -o "$OUT/refused.data" \
	> "$OUT/refuse.log" 2>&1
status=$?
if [ $status -ne 0 ] && [ "$(wc -l < "$OUT/refuse.log")" -eq 1 ] &&
   grep -q "given up holding the loader's lock" "$OUT/refuse.log"; then
	pass "refused, its dlopen stuck: $(cat "$OUT/refuse.log")"
else
	fail "its dlopen stuck: exit $status: $(head -2 "$OUT/refuse.log")"
fi
kill -KILL "$pid"
wait "$pid" 2>/dev/null
refusal static "static" "static"

# its main thread gone (pthread_exit): refused, running on
TARGET_ARGS=mainexit start pads
"$MCTRACE" record -p "$pid" --duration 50ms -o "$OUT/refused.data" \
	> "$OUT/refuse.log" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "main thread has exited" "$OUT/refuse.log" &&
   [ "$(wc -l < "$OUT/refuse.log")" -eq 1 ] && kill -0 "$pid"; then
	pass "refused, main thread gone: $(cat "$OUT/refuse.log")"
else
	fail "main thread gone: exit $status: $(head -1 "$OUT/refuse.log")"
fi
kill -TERM "$pid"
wait "$pid"

# stopped by job control: refused, and still stopped after
start pads
kill -STOP "$pid"
"$MCTRACE" record -p "$pid" --duration 50ms -o "$OUT/refused.data" \
	> "$OUT/refuse.log" 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "stopped (SIGSTOP" "$OUT/refuse.log" &&
   ! $PROC running "$pid" > /dev/null; then
	pass "refused, stopped: $(cat "$OUT/refuse.log")"
else
	fail "stopped: exit $status: $(head -1 "$OUT/refuse.log")"
fi
kill -CONT "$pid"
kill -TERM "$pid"
wait "$pid"

start pads
$PROC text "$pid" > "$OUT/pads.text"
$PROC seize "$pid" 3 > "$OUT/seize.out" &
seizer=$!
for _ in $(seq 100); do
	grep -q seized "$OUT/seize.out" && break
	sleep 0.05
done
refuse pads "another tracer" "already traced by process"
wait $seizer
kill -TERM "$pid"
wait "$pid"

start hooks "$MCTRACE" record -o "$OUT/recording.data" --
pid=$(grep ready "$OUT/hooks.out" | cut -d' ' -f1)
$PROC text "$pid" > "$OUT/hooks.text"
refuse hooks "a recorder already recording" "its recorder records"
kill -TERM "$pid"
wait

if [ "$(id -u)" = 0 ]; then
	start pads
	$PROC text "$pid" > "$OUT/pads.text"
	# nobody may not reach the tree (a checkout under /root, as in
	# CI's pristine root): its output goes to a directory of its own.
	nobody_dir=$(mktemp -d /tmp/mctrace-attach.XXXXXX) &&
		chmod 1777 "$nobody_dir"
	RUNNER="$PROC asuser nobody" REFUSED="$nobody_dir/refused.data" \
		refuse pads "not ours" "not ours"
	rm -rf "$nobody_dir"
	kill -TERM "$pid"
	wait "$pid"
else
	echo "SKIP: $TAG not ours: needs root, to attach as nobody"
fi
echo "SKIP: $TAG another architecture: no process of another one runs natively here (under qemu-user it is qemu's, an x86_64 one)"
[ $fails -eq 0 ]
