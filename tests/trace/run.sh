#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - the trace suite: programs recorded through libmcount's
# recorder and read back by mctrace, each result checked against an
# oracle that does not share the recorder's code (check.py).
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/trace sh tests/trace/run.sh
#
# Per build of prog.c (GCC -pg -mfentry PIE, GCC plain -pg no-PIE, GCC
# -fpatchable-function-entry pads, clang -pg -mfentry, clang -pg):
#   - the JSON the recorder writes itself (MCOUNT_TRACE=x.json) parses,
#     follows the trace-event format, and every thread's B/E events
#     nest with timestamps that never go back (single and 6 threads)
#   - calls per function equal those counted by the same source built
#     with -finstrument-functions and counter.c (basic, threads with
#     pthread_exit, longjmp, signals whose handler runs traced code)
#   - recursion 10,000 deep; fork (the child's own file); exec (the new
#     image's own file)
#   - a timer's signals every 50 us whose handler runs traced code,
#     landing in the recorder too: the events still nest
#   - floating-point and vector arguments, varargs and long double
#     returns as untraced, in a thread's first traced call too
# Once: the x86_64 hooks' code uses general registers only (objdump);
# C++ exceptions thrown through traced frames (output unchanged,
# counts, nesting); mctrace's own JSON, folded output and SVG; uftrace
# record of the same source gives the same call graph (if installed).
set -u
T=tests/trace
OUT=${OUT:-build/tests/trace}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
PY=${PYTHON:-python3}
failures=0
mkdir -p "$OUT"
rm -f "$OUT"/*.data* "$OUT"/*.json "$OUT"/*.raw

pass() { echo "PASS: trace: $*"; }
fail() { echo "FAIL: trace: $*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what: $out"; fi
}

FUNCS="leaf mid top recurse jumper jump_test handler signal_test worker
	exiter threads_test main"

# build <name> <cc> <hook flags> <pie>: $OUT/<name>, recorded
build() {
	pic=-fPIE
	[ "$4" = -no-pie ] && pic=-fno-pie
	$2 -std=gnu11 -O2 -g -fno-inline $3 $pic -c $T/prog.c -o "$OUT/$1.o" &&
	$TOOL "$OUT/$1.o" &&
	$2 $4 -o "$OUT/$1" "$OUT/$1.o" "$LIB" -Wl,-T,lds/mcount.lds -lpthread
}

# counted <cc> <pie flags>: the same source, counted by counter.c
# (not a PIE, so that nm's addresses are the run's)
counted() {
	$1 -std=gnu11 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/prog.c -o "$OUT/count.o" &&
	$1 -O2 -fno-pie -c $T/counter.c -o "$OUT/counter.o" &&
	$1 -no-pie -o "$OUT/count" "$OUT/count.o" "$OUT/counter.o" -lpthread &&
	nm "$OUT/count" > "$OUT/count.nm"
}

# A run recorded into own format, dumped raw: $OUT/<name>.raw
record_raw() {	# record_raw <name> <prog> <mode>
	"$MCT" record -o "$OUT/$1.data" -- "$OUT/$2" $3 >/dev/null &&
	"$MCT" dump --raw "$OUT/$1.data" > "$OUT/$1.raw" &&
	! "$MCT" report "$OUT/$1.data" | grep -q 'matched no entry'
}

json_run() {	# json_run <name> <prog> <mode> <min threads>
	MCOUNT_TRACE="$OUT/$1.json" "$OUT/$2" $3 >/dev/null &&
	$PY $T/check.py json "$OUT/$1.json" $4
}

count_run() {	# count_run <name> <prog> <mode>
	record_raw "$1" "$2" "$3" &&
	COUNTS="$OUT/$1.count" "$OUT/count" $3 >/dev/null &&
	$PY $T/check.py counts "$OUT/$1.raw" "$OUT/$1.count" \
		"$OUT/count.nm" $FUNCS
}

variant() {	# variant <tag> <cc> <hooks> <pie flags>
	tag=$1
	if ! build "prog-$tag" "$2" "$3" "$4" || ! counted "$2"; then
		fail "[$tag] build"
		return
	fi
	p=prog-$tag
	expect "[$tag] own JSON, one thread" json_run "$tag-basic" $p basic 1
	expect "[$tag] own JSON, 6 threads, pthread_exit" \
		json_run "$tag-threads" $p threads 6
	for m in basic threads longjmp signal; do
		expect "[$tag] calls equal the counter's: $m" \
			count_run "$tag-$m" $p $m
	done
	expect "[$tag] recursion 10,000 deep" sh -c \
		"'$MCT' record -o '$OUT/$tag-rec.data' -- '$OUT/$p' recurse >/dev/null &&
		 '$MCT' dump --raw '$OUT/$tag-rec.data' > '$OUT/$tag-rec.raw' &&
		 $PY $T/check.py depth '$OUT/$tag-rec.raw' 10000"
	expect "[$tag] signals every 50 us running traced code: events nest" \
		alarm_check $tag $p
	expect "[$tag] floating-point arguments and returns unchanged" \
		vectors_check $tag $p
	expect "[$tag] fork: the child records on its own" fork_check $tag $p
	expect "[$tag] exec: the new image records on its own" \
		exec_check $tag $p
}

# A timer's signals whose handler calls mid(), landing anywhere, the
# recorder's entry and exit included: B/E nest in the JSON, every exit
# matches its entry in the own format (record_raw), and when no call was
# lost, mid ran 200,000 times plus once per recorded handler, and leaf
# twice as often as mid.
alarm_check() {
	MCOUNT_TRACE="$OUT/$1-alarm.json" MCOUNT_TRACE_BUFSIZE=1048576 \
		"$OUT/$2" alarm >/dev/null 2>&1 &&
	$PY $T/check.py json "$OUT/$1-alarm.json" 1 || return 1
	"$MCT" record --bufsize 1048576 -o "$OUT/$1-alarm.data" -- \
		"$OUT/$2" alarm >/dev/null 2>&1 || return 1
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

# The same numbers as untraced, fsum8 recorded (4 calls: the first of
# three threads, whose recorder is set up in that call, and main's).
vectors_check() {
	want=$("$OUT/$2" vectors) || return 1
	got=$(MCOUNT_TRACE="$OUT/$1-vec.data" "$OUT/$2" vectors) || return 1
	[ "$got" = "$want" ] ||
		{ echo "traced: $got; untraced: $want" | tr '\n' ' '; return 1; }
	n=$("$MCT" report "$OUT/$1-vec.data" | awk '$NF == "fsum8" { print $(NF - 1) }')
	[ "$n" = 4 ] || { echo "fsum8 recorded $n times (4)"; return 1; }
}

# The parent's file: top(2) and top(4); the child's: top(3) and what it
# was inside (main, fork_test).
fork_check() {
	record_raw "$1-fork" "$2" fork || return 1
	child=$(ls "$OUT/$1-fork.data".* 2>/dev/null | head -1)
	[ -n "$child" ] || { echo "no child file"; return 1; }
	"$MCT" dump --raw "$child" > "$OUT/$1-fork-child.raw" || return 1
	p=$(grep -c ' E [0-9]* top$' "$OUT/$1-fork.raw")
	c=$(grep -c ' E [0-9]* top$' "$OUT/$1-fork-child.raw")
	cm=$(grep -c ' E [0-9]* mid$' "$OUT/$1-fork-child.raw")
	[ "$p" = 2 ] && [ "$c" = 1 ] && [ "$cm" = 3 ] ||
		{ echo "top calls: parent $p (2), child $c (1), child mid $cm (3)"
		  return 1; }
}

exec_check() {
	record_raw "$1-exec" "$2" exec || return 1
	new=$(ls "$OUT/$1-exec.data".* 2>/dev/null | head -1)
	[ -n "$new" ] || { echo "no file of the new image"; return 1; }
	"$MCT" dump --raw "$new" > "$OUT/$1-exec-new.raw" || return 1
	a=$(grep -c ' E [0-9]* mid$' "$OUT/$1-exec.raw")
	b=$(grep -c ' E [0-9]* mid$' "$OUT/$1-exec-new.raw")
	[ "$a" = 2 ] && [ "$b" = 10 ] ||
		{ echo "mid calls: before exec $a (2), after $b (10)"; return 1; }
}

variant gcc-fentry gcc "-pg -mfentry" -pie
variant gcc-mcount gcc "-pg" -no-pie
variant gcc-pad gcc "-fpatchable-function-entry=5" -pie
if command -v clang >/dev/null; then
	variant clang-fentry clang "-pg -mfentry" -pie
	variant clang-mcount clang "-pg" -no-pie
else
	echo "SKIP: trace: clang variants: no clang"
fi

# C++ exceptions through traced frames: same output as untraced, the
# recorded JSON nests, calls equal the counter's.
cxx_check() {
	g++ -O2 -g -fno-inline -pg -mfentry -c $T/throw.cc -o "$OUT/throw.o" &&
	$TOOL "$OUT/throw.o" &&
	g++ -o "$OUT/throw" "$OUT/throw.o" "$LIB" -Wl,-T,lds/mcount.lds &&
	g++ -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/throw.cc -o "$OUT/throw-count.o" &&
	g++ -no-pie -o "$OUT/throw-count" "$OUT/throw-count.o" "$OUT/counter.o" &&
	nm "$OUT/throw-count" > "$OUT/throw-count.nm" || return 1
	want=$("$OUT/throw") || return 1
	got=$(MCOUNT_TRACE="$OUT/throw.json" "$OUT/throw") || return 1
	[ "$want" = "$got" ] || { echo "output '$got', untraced '$want'"; return 1; }
	$PY $T/check.py json "$OUT/throw.json" 1 || return 1
	"$MCT" record -o "$OUT/throw.data" -- "$OUT/throw" >/dev/null &&
	"$MCT" dump --raw "$OUT/throw.data" > "$OUT/throw.raw" &&
	COUNTS="$OUT/throw.count" "$OUT/throw-count" >/dev/null &&
	$PY $T/check.py counts "$OUT/throw.raw" "$OUT/throw.count" \
		"$OUT/throw-count.nm" _Z4leafi _Z7throweri _Z7catcheri \
		_Z9rethrowerv
}
expect "C++ exceptions through traced frames" cxx_check

# mctrace's own outputs from one trace.
outputs_check() {
	d=$OUT/gcc-fentry-threads.data
	"$MCT" dump --chrome -o "$OUT/conv.json" "$d" &&
	$PY $T/check.py json "$OUT/conv.json" 6 &&
	"$MCT" dump --flame-svg -o "$OUT/flame.svg" "$d" &&
	$PY $T/check.py svg "$OUT/flame.svg" &&
	"$MCT" dump --folded "$d" | grep -q '^main;threads_test;top;mid;leaf [0-9]*$' &&
	"$MCT" report "$d" | grep -q ' 1  threads_test$' &&
	"$MCT" graph "$d" | grep -q '} /\* threads_test \*/' &&
	"$MCT" record -o "$OUT/filtered.json" -F 'mid' -F 'top' -N top \
		--min-time 0ns -- "$OUT/prog-gcc-fentry" basic >/dev/null &&
	$PY $T/check.py json "$OUT/filtered.json" 1 &&
	! grep -q '"leaf"\|"top"' "$OUT/filtered.json" &&
	grep -q '"mid"' "$OUT/filtered.json"
}
expect "mctrace's JSON, folded stacks, SVG, report, graph, filters" \
	outputs_check

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
boxes() { sed -n 's/.*<title>\([^ ]*\) (.*<rect x="[^"]*" y="\([^"]*\)".*/\2 \1/p' "$1" | sort; }
expect "the README's flame graph, drawn again" readme_svg_check

# The runtime calls the x86_64 entry hook saving no vector register, and
# the return trampoline keeps only %rax and %rdx: in the library's own
# code, nothing rec_entry or rec_exit can reach that returns may touch
# another register, or call out but through rec_keeping_vectors.
gpr_check() {
	rm -rf "$OUT/ar" && mkdir -p "$OUT/ar" &&
	lib=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB") &&
	(cd "$OUT/ar" && ar x "$lib" hosted-rec.o) &&
	objdump -dr --no-show-raw-insn "$OUT/ar/hosted-rec.o" > "$OUT/rec.dis" &&
	$PY $T/check.py gpr "$OUT/rec.dis" rec_entry rec_exit \
		--calls rec_keeping_vectors --noreturn no_frame >/dev/null
}
case $(gcc -dumpmachine) in
x86_64-*) expect "[x86_64] the hooks leave vector registers alone" gpr_check ;;
esac

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

# Another architecture: recording refused at start, with a message,
# nothing written, the program unchanged (aarch64 under qemu-user).
refused_check() {
	a=aarch64
	cc=$a-linux-gnu-gcc
	$cc -std=gnu11 -O2 -pg -c $T/prog.c -o "$OUT/$a.o" &&
	$TOOL "$OUT/$a.o" &&
	$cc -o "$OUT/$a" "$OUT/$a.o" "$LIBDIR/$a/libmcount.a" \
		-Wl,-T,lds/mcount.lds -lpthread || return 1
	rm -f "$OUT/$a.data"
	want=$(qemu-$a -L /usr/$a-linux-gnu "$OUT/$a" basic) || return 1
	got=$(MCOUNT_TRACE="$OUT/$a.data" qemu-$a -L /usr/$a-linux-gnu \
		"$OUT/$a" basic 2>"$OUT/$a.err") || return 1
	[ "$got" = "$want" ] && [ ! -e "$OUT/$a.data" ] &&
	grep -q "recording is not supported on $a yet" "$OUT/$a.err"
}
LIBDIR=$(dirname "$LIB")
if [ -f "$LIBDIR/aarch64/libmcount.a" ] && command -v qemu-aarch64 >/dev/null
then
	expect "[aarch64] recording refused at start, program unchanged" \
		refused_check
else
	echo "SKIP: trace: [aarch64] refusal: no $LIBDIR/aarch64/libmcount.a or qemu-aarch64"
fi

[ $failures -eq 0 ]
