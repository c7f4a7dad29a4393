#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# args.sh - mctrace record -A/-R: the arguments and return values it
# captures, per call, against oracles that do not share its code
# (argcheck.py compares):
#   - the programs' own printf of what each call was given and returns
#     (args.c: negative, unsigned, hex, six register arguments, strings
#     with escapes, a string longer than the bound, a null and an
#     unmapped string pointer, a recursive function, a returned
#     string; argscc.cc: C++ functions picked by demangled globs, a
#     method's `this`);
#   - uftrace record -A/-R of the same source with the same specs (the
#     host, if uftrace is installed): the same values, call by call;
#   - the Chrome JSON and the Perfetto trace (decoded by protoc with
#     perfetto.proto) carry the values replay shows;
#   - specs the machine cannot capture are refused with their reason:
#     an argument on the stack, a floating-point one, a wrong item; so
#     are -A with -p and the recorder's own JSON (MCOUNT_TRACE=x.json).
# Every hook kind and compiler whose arguments a backend reads (KINDS)
# is checked against the printf oracle; GCC's -pg, where its hook runs
# after the prologue (LATE), and the functions whose prologue writes an
# argument register before the hook (clang's on arm), are refused by
# name, never a trace of garbage.
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/trace-args sh tests/trace/args.sh
#   TRACE_ARCH=aarch64 LIBMCOUNT=build/aarch64/libmcount.a ... args.sh
set -u
T=tests/trace
OUT=${OUT:-build/tests/trace-args}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
PY=${PYTHON:-python3}
. tests/runtime/arches.sh
HOST=$(uname -m | sed 's/^i[3-6]86$/i386/')
ARCH=${TRACE_ARCH:-$HOST}
if ! rt_arch_config "$ARCH"; then
	echo "FAIL: trace: args: [$ARCH] no configuration in tests/runtime/arches.sh"
	exit 1
fi
RUN="timeout -k 10 120${RT_RUN:+ $RT_RUN}"
GCC=$RT_CC_DEFAULT
GXX=$(echo "$GCC" | sed 's/gcc$/g++/')
# the hook forms that see the arguments (aarch64's -pg runs after the
# prologue: refused, below)
HOOK=-pg
[ "$ARCH" = x86_64 ] && HOOK="-pg -mfentry"
[ "$ARCH" = aarch64 ] && HOOK="-fpatchable-function-entry=2"
[ "$ARCH" = riscv64 ] && HOOK="-fpatchable-function-entry=8"
[ "$ARCH" = ppc64le ] && HOOK="-pg -mprofile-kernel"
[ "$ARCH" = s390x ] && HOOK="-pg -mfentry"
CLANG="clang${RT_CLANG_TARGET:+ --target=$RT_CLANG_TARGET}${RT_CLANG_CFLAGS:+ $RT_CLANG_CFLAGS}"
# KINDS: the backend's other hook kinds and compilers whose arguments
# are read too, a line each: tag|compiler|hook flags|functions whose
# prologue moves the arguments before that hook: refused, with the
# reason LOST_WHY, and left out of the values checked.  LATE: where
# GCC's -pg hook runs after the prologue may have moved the arguments,
# the reason record gives for refusing them.
KINDS= LATE= LOST_WHY=
case $ARCH in
aarch64)
	LATE="its -pg hook runs after its prologue" ;;
riscv64)
	KINDS="clang-pg|$CLANG|-pg
clang-pad|$CLANG|-fpatchable-function-entry=8
gcc-pad4g|$GCC|-fpatchable-function-entry=4 -march=rv64g"
	LATE="its -pg hook (GCC's) comes after .mv a0, ra." ;;
arm)
	KINDS="gcc-pg-arm|$GCC|-pg -marm
gcc-pad3|$GCC|-fpatchable-function-entry=3
gcc-pad2arm|$GCC|-fpatchable-function-entry=2 -marm
clang-pg|$CLANG|-pg|add|pick"
	LOST_WHY="its prologue writes r0-r3 before its -pg hook" ;;
ppc64le)
	# GCC 12 puts a pad before the TOC set-up, which the runtime
	# refuses: pads in PC-relative code (power10, which qemu runs
	# with -cpu power10, as it runs the others)
	RUN="$RUN -cpu power10"
	KINDS="gcc-pad2p10|$GCC|-fpatchable-function-entry=2 -mcpu=power10
gcc-pg|$GCC|-pg
gcc-pg-p10|$GCC|-pg -mcpu=power10
clang-pg|$CLANG|-pg" ;;
s390x)
	KINDS="gcc-pg|$GCC|-pg
gcc-pad3|$GCC|-fpatchable-function-entry=3
clang-fentry|$CLANG|-pg -mfentry" ;;
i386)
	# GCC refuses -mfentry with -fpic on i386: not a PIE
	KINDS="gcc-fentry|$GCC|-pg -mfentry -fno-pie
gcc-pad5|$GCC|-fpatchable-function-entry=5
clang-pg|$CLANG|-pg
clang-fentry|$CLANG|-pg -mfentry -fno-pie" ;;
esac
TAG=
[ "$ARCH" = "$HOST" ] || TAG="[$ARCH] "
failures=0
pass() { echo "PASS: trace: args: $TAG$*"; }
fail() { echo "FAIL: trace: args: $TAG$*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what"; else fail "$what: $out"; fi
}
mkdir -p "$OUT"
rm -f "$OUT"/*.data* "$OUT"/*.out "$OUT"/*.rep "$OUT"/*.err

# build <name> <compiler> <source> [hook flags]: $OUT/<name> (recorded)
# and, with the same object unrecorded, $OUT/<name>-plain for uftrace
# (on the host only: ppc64le's -mprofile-kernel links only to ours).
# A pad calls no hook symbol that would pull libmcount.a's runtime in:
# the boot is asked for by name.
build() {
	$2 -O2 -g -fno-inline ${4:-$HOOK} -c "$3" -o "$OUT/$1.o" &&
	{ [ "$ARCH" != "$HOST" ] || $2 -o "$OUT/$1-plain" "$OUT/$1.o"; } &&
	$TOOL "$OUT/$1.o" &&
	$2 $(case "${4:-}" in *-fno-pie*) echo -no-pie ;; esac) \
		-o "$OUT/$1" "$OUT/$1.o" -Wl,-u,mcount_boot "$LIB" \
		-Wl,-T,lds/mcount.lds -lpthread
}
if ! build args "$GCC" $T/args.c || ! build argscc "$GXX" $T/argscc.cc; then
	fail "build args.c and argscc.cc"
	exit 1
fi

C_SPECS="-A add@arg1/i32,arg2/i32 -R add@retval/i32
	-A six@arg1,arg2,arg3,arg4,arg5,arg6 -R six@retval
	-A mask@arg1/x32,arg2/u -R mask@retval/x32
	-A say@arg1/s,arg2/i32 -R say@retval/i32
	-A fact@arg1/i32 -R fact@retval/i32 -A pick@arg1/i32 -R pick@retval/s"
# A 32-bit ABI passes mask's 64-bit second argument in two words (a
# register pair, or two stack slots): there its first is taken alone,
# and the program's line of it read without the second (LINES: sed's
# script from the program's lines to what is captured).
LINES=
case $ARCH in
arm|i386)
	C_SPECS=$(echo "$C_SPECS" | sed 's|mask@arg1/x32,arg2/u|mask@arg1/x32|')
	LINES='s/^mask(\([^,]*\), [0-9]*)/mask(\1)/' ;;
esac
# uftrace's patterns are regular expressions, found anywhere in a name:
# names alone read the same as our globs
CC_SPECS="-A shapes::area@arg2/i32,arg1/i32 -R shapes::area@retval/i32
	-A shapes::square@arg1 -R shapes::square@retval
	-A shapes::Box::scaled@arg2/i32 -R shapes::Box::scaled@retval/i32"
# ours alone: globs over demangled names, and a method's `this`
CC_GLOBS="-A shapes::a*@arg1/i32,arg2/i32 -R shapes::[as]*@retval/i32
	-A shapes::sq*@arg1 -A shapes::Box::*@arg1/p,arg2/i32
	-R *::scaled@retval/i32"

# capture <name> <specs> [args...]: $OUT/<name>.out (the program's
# lines), .data, .rep (replay), .err
capture() {
	name=$1 specs=$2
	shift 2
	"$MCT" record -o "$OUT/$name.data" $specs -- $RUN "$OUT/$name" "$@" \
		> "$OUT/$name.out" 2> "$OUT/$name.err" &&
	"$MCT" replay "$OUT/$name.data" > "$OUT/$name.rep"
}

# how many integer arguments each backend's ABI passes in registers
# (arch/'s table; i386: the stack words read in their place), and the
# reason record gives for one past them
STACK_WHY="is passed on the stack on $ARCH"
case $ARCH in
x86_64) NREGS=6 ;;
aarch64|riscv64|ppc64le) NREGS=8 ;;
arm) NREGS=4 ;;
s390x) NREGS=5 ;;
i386) NREGS=6 STACK_WHY="is past the 6 stack words read on i386" ;;
*) fail "no argument registers known for $ARCH"; exit 1 ;;
esac
# fewer than six argument registers (arm, s390x): six's first NREGS
# arguments, its line read without the others
if [ "$NREGS" -lt 6 ]; then
	C_SPECS=$(echo "$C_SPECS" | sed "s|six@arg1,arg2,arg3,arg4,arg5,arg6|six@$(seq -s, -f 'arg%g' 1 "$NREGS")|")
	LINES="$LINES;s/^six(\(\([^,]*, \)\{$((NREGS - 1))\}[^,]*\)[^)]*)/six(\1)/"
fi

prog=args
# refused <message> <option...>: record of $OUT/$prog exits non-zero,
# saying <message>, and writes no trace
refused() {
	msg=$1
	shift
	rm -f "$OUT/refused.data"
	if "$MCT" record -o "$OUT/refused.data" "$@" -- $RUN "$OUT/$prog" \
		> /dev/null 2> "$OUT/refused.err"; then
		echo "exit 0"
		return 1
	fi
	grep -q "$msg" "$OUT/refused.err" || { cat "$OUT/refused.err"; return 1; }
	[ ! -s "$OUT/refused.data" ] || { echo "a trace was written"; return 1; }
}
# checked <what> <name> <specs> [args...]: recorded, then each call's
# values compared with the program's own lines
checked() {
	what=$1
	shift
	if capture "$@"; then
		sed "$LINES" "$OUT/$1.out" > "$OUT/$1.lines"
		expect "$what" $PY $T/argcheck.py printf "$OUT/$1.lines" \
			"$OUT/$1.rep"
	else
		fail "$what: record: $(head -3 "$OUT/$1.err")"
	fi
}
checked "C: each call's values are the program's own (printf)" \
	args "$C_SPECS" bad
checked "C++: demangled globs; a method's this and arguments (printf)" \
	argscc "$CC_GLOBS"
# every other hook kind and compiler: the same values
ALL_LINES=$LINES
echo "$KINDS" | while IFS='|' read -r tag cc flags lost; do
	[ -n "$tag" ] || continue
	specs=$C_SPECS LINES=$ALL_LINES
	if ! build "args-$tag" "$cc" $T/args.c "$flags"; then
		fail "[$tag] build args.c"
		lost=
		specs=
	fi
	for f in $(echo "$lost" | tr '|' ' '); do
		prog=args-$tag
		expect "[$tag] $f's arguments are refused, saying why" \
			refused "$f: $LOST_WHY" -A "$f@arg1"
		specs=$(echo "$specs" | sed "s/-[AR] $f@[^[:space:]]*//g")
		LINES="$LINES;/^$f(/d"
	done
	[ -z "$specs" ] ||
		checked "[$tag] C: each call's values are the program's own" \
			"args-$tag" "$specs" bad
	echo "failures=$failures" > "$OUT/kinds.st"
done
[ -z "$KINDS" ] || . "$OUT/kinds.st"

# both <name> <specs>: uftrace's recording and ours of <name>
uftrace_both() {
	uftrace record --no-libcall --no-event -d "$OUT/$1.uf.d" $2 \
		"$OUT/$1-plain" > /dev/null &&
	uftrace replay --no-pager -d "$OUT/$1.uf.d" > "$OUT/$1.uf" &&
	capture "$1" "$2" &&
	$PY $T/argcheck.py uftrace "$OUT/$1.uf" "$OUT/$1.rep"
}
if [ "$ARCH" != "$HOST" ] || ! command -v uftrace > /dev/null; then
	echo "SKIP: trace: args: ${TAG}uftrace: not installed, or not this machine's"
else
	expect "C: the values uftrace records, call by call" \
		uftrace_both args "$C_SPECS"
	expect "C++: the values uftrace records, call by call" \
		uftrace_both argscc "$CC_SPECS"
fi

# The other views carry what replay shows: JSON args, Perfetto's
# debug annotations (decoded by protoc against our own .proto).
views() {
	capture args "$C_SPECS" &&
	"$MCT" dump --chrome -o "$OUT/args.json" "$OUT/args.data" &&
	grep -q '"name":"say","args":{"arg1":"\\"hello\\"","arg2":"1","retval":"5"}' \
		"$OUT/args.json" &&
	grep -q '"name":"fact","args":{"arg1":"1","retval":"1"}' \
		"$OUT/args.json" &&
	"$MCT" dump --perfetto -o "$OUT/args.pftrace" "$OUT/args.data" &&
	protoc --decode=Trace -I $T $T/perfetto.proto \
		< "$OUT/args.pftrace" > "$OUT/args.pf.txt" &&
	tr -d ' \n' < "$OUT/args.pf.txt" | grep -q \
		'debug_annotations{string_value:"-2147483647"name:"arg1"}debug_annotations{string_value:"-1"name:"arg2"}debug_annotations{string_value:"-2147483648"name:"retval"}type:TYPE_SLICE_END'
}
if command -v protoc > /dev/null; then
	expect "Chrome JSON args and Perfetto annotations hold the values" views
else
	echo "SKIP: trace: args: ${TAG}views: no protoc (Debian's protobuf-compiler)"
fi

expect "an argument on the stack is refused by name" \
	refused "arg$((NREGS + 1)) $STACK_WHY" -A "six@arg$((NREGS + 1))"
expect "a floating-point argument is refused" \
	refused "floating-point arguments are not captured" -A "six@fparg1"
expect "a bad format is refused" refused "format" -A "six@arg1/q"
expect "-R takes retval only" refused "not FUNC@retval" -R "six@arg1"
attach_refused() {
	if "$MCT" record -p $$ -A add@arg1 > /dev/null 2> "$OUT/p.err"; then
		echo "exit 0"
		return 1
	fi
	grep -q "not taken with '-p PID' yet" "$OUT/p.err" || cat "$OUT/p.err"
}
expect "-A with -p is refused (not yet)" attach_refused
json_refused() {
	rm -f "$OUT/direct.json"
	MCOUNT_TRACE="$OUT/direct.json" MCOUNT_TRACE_ARGS=add@arg1 \
		$RUN "$OUT/args" > /dev/null 2> "$OUT/json.err"
	grep -q "not its JSON" "$OUT/json.err" || { cat "$OUT/json.err"; return 1; }
	[ ! -e "$OUT/direct.json" ] || { echo "a JSON was written"; return 1; }
}
expect "the recorder's own JSON refuses values, saying so" json_refused
if [ -n "$LATE" ]; then
	late_hook() {
		$GCC -O2 -fno-inline -pg -c $T/args.c -o "$OUT/args-pg.o" &&
		$TOOL "$OUT/args-pg.o" &&
		$GCC -o "$OUT/args" "$OUT/args-pg.o" "$LIB" \
			-Wl,-T,lds/mcount.lds -lpthread &&
		refused "add: $LATE" -A add@arg1
	}
	expect "a -pg function's arguments are refused (its prologue ran)" \
		late_hook
fi

[ $failures -eq 0 ]
