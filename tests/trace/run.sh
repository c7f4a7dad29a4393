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
# Once: C++ exceptions thrown through traced frames (output unchanged,
# counts, nesting); mctrace's own JSON, folded output and SVG; uftrace
# record of the same source gives the same call graph (if installed).
# Then the same per build and C++ check for other architectures under
# qemu-user, with their cross compilers and clang --target, each
# hook form they have (cross_begin; TRACE_ARCHES="s390x ..." picks some),
# fork and exec aside (qemu-user cannot run them here).
set -u
T=tests/trace
# the host's; cross_arch() sets these for another architecture
RUN= NM=nm
OUT=${OUT:-build/tests/trace}
LIB=${LIBMCOUNT:-build/libmcount.a}
ALIB=$LIB
LIBDIR=$(dirname "$LIB")
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
	$2 $4 -o "$OUT/$1" "$OUT/$1.o" "$ALIB" -Wl,-T,lds/mcount.lds -lpthread
}

# counted <cc> <pie flags>: the same source, counted by counter.c
# (not a PIE, so that nm's addresses are the run's)
counted() {
	$1 -std=gnu11 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/prog.c -o "$OUT/count.o" &&
	$1 -O2 -fno-pie -c $T/counter.c -o "$OUT/counter.o" &&
	$1 -no-pie -o "$OUT/count" "$OUT/count.o" "$OUT/counter.o" -lpthread &&
	$NM "$OUT/count" > "$OUT/count.nm"
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
		"'$MCT' record -o '$OUT/$tag-rec.data' -- $RUN '$OUT/$p' recurse >/dev/null &&
		 '$MCT' dump --raw '$OUT/$tag-rec.data' > '$OUT/$tag-rec.raw' &&
		 $PY $T/check.py depth '$OUT/$tag-rec.raw' 10000"
	if [ -z "$RUN" ]; then
		expect "[$tag] fork: the child records on its own" \
			fork_check $tag $p
		expect "[$tag] exec: the new image records on its own" \
			exec_check $tag $p
	else
		# qemu-user 7.2's child of a fork dies when other threads
		# ran (the writer's), recording or not; and it runs only the
		# program, not what that execs
		echo "SKIP: trace: [$tag] fork: qemu-user loses the child of a threaded program"
		echo "SKIP: trace: [$tag] exec: the new image would need binfmt_misc"
	fi
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
cxx_check() {	# cxx_check <c++ compiler> <hook flags>
	$1 -O2 -g -fno-inline $2 -c $T/throw.cc -o "$OUT/throw.o" &&
	$TOOL "$OUT/throw.o" &&
	$1 -o "$OUT/throw" "$OUT/throw.o" "$ALIB" -Wl,-T,lds/mcount.lds &&
	$1 -O2 -g -fno-inline -finstrument-functions -fno-pie \
		-c $T/throw.cc -o "$OUT/throw-count.o" &&
	$1 -no-pie -o "$OUT/throw-count" "$OUT/throw-count.o" "$OUT/counter.o" &&
	$NM "$OUT/throw-count" > "$OUT/throw-count.nm" || return 1
	want=$($RUN "$OUT/throw") || return 1
	got=$(MCOUNT_TRACE="$OUT/throw.json" $RUN "$OUT/throw") || return 1
	[ "$want" = "$got" ] || { echo "output '$got', untraced '$want'"; return 1; }
	$PY $T/check.py json "$OUT/throw.json" 1 || return 1
	"$MCT" record -o "$OUT/throw.data" -- $RUN "$OUT/throw" >/dev/null &&
	"$MCT" dump --raw "$OUT/throw.data" > "$OUT/throw.raw" &&
	COUNTS="$OUT/throw.count" $RUN "$OUT/throw-count" >/dev/null &&
	$PY $T/check.py counts "$OUT/throw.raw" "$OUT/throw.count" \
		"$OUT/throw-count.nm" _Z4leafi _Z7throweri _Z7catcheri \
		_Z9rethrowerv
}
expect "C++ exceptions through traced frames" cxx_check g++ "-pg -mfentry"

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
if [ -f "$LIBDIR/aarch64/libmcount.a" ] && command -v qemu-aarch64 >/dev/null
then
	expect "[aarch64] recording refused at start, program unchanged" \
		refused_check
else
	echo "SKIP: trace: [aarch64] refusal: no $LIBDIR/aarch64/libmcount.a or qemu-aarch64"
fi

# ---- other architectures, under qemu-user -------------------------------
# The same checks, with each one's cross compilers and library (built
# beside LIBMCOUNT, in <its dir>/<arch>/libmcount.a).  TRACE_ARCHES
# chooses among them (default: all).

# cross_begin <arch> <triple>: RUN, NM, ALIB and OUT for <arch>; false,
# with a SKIP line, when its compiler, library or qemu is missing.
cross_begin() {
	case " ${TRACE_ARCHES:-$1} " in *" $1 "*) ;; *) return 1 ;; esac
	ALIB=$LIBDIR/$1/libmcount.a
	if [ ! -f "$ALIB" ] || ! command -v "$2-gcc" >/dev/null ||
	   ! command -v "qemu-$1" >/dev/null; then
		echo "SKIP: trace: [$1] no $ALIB, $2-gcc or qemu-$1"
		return 1
	fi
	RUN="qemu-$1 -L /usr/$2" NM=$2-nm OUT=$HOST_OUT/$1
	mkdir -p "$OUT"
	rm -f "$OUT"/*.data* "$OUT"/*.json "$OUT"/*.raw
}
cross_end() { RUN= NM=nm ALIB=$LIB OUT=$HOST_OUT; }
HOST_OUT=$OUT

# clang_variant <tag> <target> <hooks> <pie flags>
clang_variant() {
	if command -v clang >/dev/null; then
		variant "$1" "clang --target=$2" "$3" "$4"
	else
		echo "SKIP: trace: [$1]: no clang"
	fi
}

if cross_begin s390x s390x-linux-gnu; then
	variant s390x-gcc-fentry s390x-linux-gnu-gcc "-pg -mfentry" -pie
	variant s390x-gcc-mcount s390x-linux-gnu-gcc -pg -no-pie
	variant s390x-gcc-pad s390x-linux-gnu-gcc \
		-fpatchable-function-entry=3 -pie
	clang_variant s390x-clang-fentry s390x-linux-gnu "-pg -mfentry" -pie
	expect "[s390x] C++ exceptions through traced frames" \
		cxx_check s390x-linux-gnu-g++ "-pg -mfentry"
	cross_end
fi

# -mprofile-kernel is the "fentry" form; clang has only -pg, no pads
if cross_begin ppc64le powerpc64le-linux-gnu; then
	cc=powerpc64le-linux-gnu-gcc
	variant ppc64le-gcc-fentry $cc "-pg -mprofile-kernel" -pie
	variant ppc64le-gcc-mcount $cc -pg -no-pie
	# GCC 12 pads a function before its TOC set-up, which then
	# computes a wrong TOC (the program crashes, traced or not): the
	# runtime refuses those pads, so there is nothing to record
	case $($cc -dumpversion) in
	[0-9] | 1[0-2] | [0-9].* | 1[0-2].*)
		echo "SKIP: trace: [ppc64le-gcc-pad] GCC $($cc -dumpversion) pads before the TOC set-up (refused sites)" ;;
	*)	variant ppc64le-gcc-pad $cc -fpatchable-function-entry=2 -pie ;;
	esac
	clang_variant ppc64le-clang-mcount powerpc64le-linux-gnu -pg -pie
	expect "[ppc64le] C++ exceptions through traced frames" \
		cxx_check powerpc64le-linux-gnu-g++ "-pg -mprofile-kernel"
	cross_end
fi

# Thumb-2 (Debian's default) and ARM state; clang needs -meabi gnu for
# __gnu_mcount_nc and has no pads on arm
# GCC -O0 gives a leaf a frame but keeps lr in its register: the hook's
# pushed copy is not where the function returns from, so the recorder
# leaves it out at start, saying so; its callers are recorded.
arm_unread_check() {	# arm_unread_check <cc>
	$1 -std=gnu11 -O0 -g -pg -fPIE -c $T/prog.c -o "$OUT/o0.o" &&
	$TOOL "$OUT/o0.o" &&
	$1 -pie -o "$OUT/o0" "$OUT/o0.o" "$ALIB" -Wl,-T,lds/mcount.lds \
		-lpthread || return 1
	want=$($RUN "$OUT/o0" basic) || return 1
	got=$(MCOUNT_TRACE="$OUT/o0.json" $RUN "$OUT/o0" basic \
		2>"$OUT/o0.err") || return 1
	[ "$got" = "$want" ] || { echo "output '$got', untraced '$want'"; return 1; }
	grep -q '^mcount: trace: not recording leaf (.*frame without saving lr' \
		"$OUT/o0.err" || { echo "no refusal of leaf:"; cat "$OUT/o0.err"; return 1; }
	$PY $T/check.py json "$OUT/o0.json" 1 &&
	grep -q '"mid"' "$OUT/o0.json" && ! grep -q '"leaf"' "$OUT/o0.json"
}

if cross_begin arm arm-linux-gnueabihf; then
	cc=arm-linux-gnueabihf-gcc
	variant arm-gcc-mcount $cc -pg -pie
	variant arm-gcc-mcount-arm $cc "-pg -marm" -no-pie
	variant arm-gcc-pad $cc -fpatchable-function-entry=3 -pie
	variant arm-gcc-pad-arm $cc "-fpatchable-function-entry=2 -marm" -no-pie
	clang_variant arm-clang-mcount "arm-linux-gnueabihf -meabi gnu -mthumb" \
		-pg -pie
	clang_variant arm-clang-mcount-arm "arm-linux-gnueabihf -meabi gnu" \
		"-pg -marm" -no-pie
	expect "[arm] C++ exceptions through traced frames" \
		cxx_check arm-linux-gnueabihf-g++ -pg
	expect "[arm] -O0: a leaf whose frame keeps no lr left out, by name" \
		arm_unread_check $cc
	cross_end
fi

[ $failures -eq 0 ]
