#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - a real library traced whole: Debian's zlib, built by its own
# configure and Makefile with every object through recordmcount-cc, and
# its own `make test` (example and minigzip, against libz.a and libz.so)
# run with every function enabled (issues 27 and 28).
#
#   LAUNCHER=build/recordmcount-cc LIBMCOUNT=build/libmcount.a \
#   LIBMCOUNT_SO=build/libmcount.so.0 MCTRACE=build/mctrace \
#   OUT=build/tests/zlib sh tests/zlib/run.sh
#
# ZLIB_CROSS="aarch64 riscv64 ..." adds static runs on other backends
# under qemu-user (aarch64 arm riscv64 i386 by default; empty: none).
#
# The source comes from tests/zlib/fetch.sh (a cache outside the tree;
# ZLIB_CACHE); without it and no way to download it, a SKIP line.
#
# Two builds of the same source with the same flags, and zlib's test
# programs linked with count.c ($(LDFLAGS)).  The flags keep the two
# builds' functions alike: -fno-inline, since -finstrument-functions
# counts inlined copies and -pg cannot; -fno-ipa-icf, since GCC folds
# identical functions (gzopen into gzopen64, a tail call after its
# hook) only where the instrumentation leaves them identical.
#   hooked   -pg -mfentry, recorded by the launcher; count.c enables every
#            site and counts the callbacks.  `make teststatic` links
#            libmcount.a (the programs' own sites), `make testshared`
#            libmcount.so (libz.so's sites, reached through the
#            runtime's shared-object support).  The hooks are in the
#            compiles only: the link lines have no -pg (no gprof start-up).
#   oracle   -finstrument-functions, count.c -DORACLE: the independent
#            count, no libmcount.
# Checks: both test runs pass; every hook objdump -d shows in libz.so
# and in the programs is a site the runtime reports, enabled where it
# can be reached; per function (names from nm), the callback's counts
# equal the oracle's.  Then `mctrace record -- make test...`: tests
# still pass, every trace file's events nest (check.py), and its calls
# per function equal the oracle's.
set -u
T=tests/zlib
OUT=${OUT:-build/tests/zlib}
LAUNCHER=${LAUNCHER:-build/recordmcount-cc}
LIB=${LIBMCOUNT:-build/libmcount.a}
SO=${LIBMCOUNT_SO:-build/libmcount.so.0}
MCT=${MCTRACE:-build/mctrace}
CC=${CC:-gcc}
PY=${PYTHON:-python3}
CACHE=${ZLIB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount/src}
FLAGS="-O2 -g -fno-inline -fno-ipa-icf"
failures=0
pass() { echo "PASS: zlib: $*"; }
fail() { echo "FAIL: zlib: $*"; failures=$((failures + 1)); }

src=$(sh $T/fetch.sh zlib "$CACHE" 2> "${TMPDIR:-/tmp}/zlib-fetch.$$")
st=$?
why=$(tail -1 "${TMPDIR:-/tmp}/zlib-fetch.$$")
rm -f "${TMPDIR:-/tmp}/zlib-fetch.$$"
if [ $st -eq 77 ]; then
	echo "SKIP: zlib: Debian's zlib source is not cached and cannot be downloaded here ($why)"
	exit 0
elif [ $st -ne 0 ]; then
	fail "fetching Debian's zlib source: $why"
	exit 1
fi
version=$(cat "$src/.complete")

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
LAUNCHER=$(cd "$(dirname "$LAUNCHER")" && pwd)/$(basename "$LAUNCHER")
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
SODIR=$(cd "$(dirname "$SO")" && pwd)
MCT=$(cd "$(dirname "$MCT")" && pwd)/$(basename "$MCT")

# configure <dir> <CC> <CFLAGS>: a fresh copy of the source, configured
configure() {
	cp -r "$src" "$1" && rm -f "$1/.complete" &&
	(cd "$1" && CC="$2" CFLAGS="$3" ./configure) > "$1.configure.log" 2>&1
}

# zmake <dir> <CFLAGS> <LDFLAGS> <target...>: zlib's make, quietly
zmake() {
	_zd=$1 _zcf=$2 _zld=$3
	shift 3
	make -C "$_zd" CFLAGS="$_zcf" LDFLAGS="$_zld" "$@"
}

# One test run: `make teststatic` or `testshared` in <dir>, its counts
# in <dir>/<run>/ (ZCOUNT_DIR); true when zlib says OK.
ztest() {	# ztest <dir> <run> <CFLAGS> <LDFLAGS>
	rm -rf "$1/$2" && mkdir -p "$1/$2"
	ZCOUNT_DIR=$1/$2 zmake "$1" "$3" "$4" test$2 > "$1/$2.log" 2>&1 &&
		grep -q "zlib.* test OK" "$1/$2.log"
}

build() {
	H=$OUT/hooked O=$OUT/oracle
	$CC -O2 -Iruntime/include -c $T/count.c -o "$OUT/count.o" &&
	$CC -O2 -DORACLE -c $T/count.c -o "$OUT/oracle-count.o" &&
	configure "$H" "$LAUNCHER $CC" "$FLAGS -pg -mfentry" &&
	# the objects, hooked and recorded; the links below, without -pg
	zmake "$H" "$FLAGS -pg -mfentry" "" libz.a libz.so.1.2.13 \
		example.o minigzip.o &&
	configure "$O" "$CC" "$FLAGS -finstrument-functions" &&
	zmake "$O" "$FLAGS -finstrument-functions" "" libz.a \
		libz.so.1.2.13 example.o minigzip.o
}
if ! build > "$OUT/build.log" 2>&1; then
	fail "build of $version (see $OUT/build.log)"
	tail -20 "$OUT/build.log" | sed 's/^/  /'
	exit 1
fi
n=$(ls "$OUT/hooked"/*.o | wc -l)
pass "$version built by its own configure and make, $n objects hooked and recorded by recordmcount-cc, and again with -finstrument-functions"

STATIC_LD="$OUT/count.o $LIB -ldl -lpthread"
SHARED_LD="$OUT/count.o -L$SODIR -lmcount -Wl,-rpath,$SODIR"
ORACLE_LD="$OUT/oracle-count.o"
for run in static shared; do
	case $run in
	static) ld=$STATIC_LD lib=libmcount.a ;;
	*) ld=$SHARED_LD lib=libmcount.so ;;
	esac
	if ztest "$OUT/hooked" $run "$FLAGS" "$ld"; then
		pass "make test$run passes with every function enabled ($lib)"
	else
		fail "make test$run with every function enabled (see $OUT/hooked/$run.log)"
		tail -5 "$OUT/hooked/$run.log" | sed 's/^/  /'
	fi
	ztest "$OUT/oracle" $run "$FLAGS" "$ORACLE_LD" ||
		fail "make test$run of the -finstrument-functions build (see $OUT/oracle/$run.log)"
done

# The callback's counts against the oracle's, and the sites against
# objdump, every site enabled in both runs: the static run's programs
# hold libmcount.a; in the shared run the PIE programs are mapped more
# than 2 GB from libmcount.so, and reach it through the thunk page the
# runtime maps near each of them.
H=$OUT/hooked O=$OUT/oracle
expect() {	# expect <description> <command...>
	what=$1
	shift
	if out=$("$@" 2>&1); then pass "$what: $(echo $out)"; else fail "$what: $(echo $out)"; fi
}
expect "teststatic: calls per function of example and minigzip (libz.a in them) equal the -finstrument-functions counter's" \
	$PY $T/compare.py counts "$H" "$O" static example minigzip
expect "testshared: calls per function of libz.so, examplesh and minigzipsh equal the -finstrument-functions counter's" \
	$PY $T/compare.py counts "$H" "$O" shared libz.so.1 examplesh minigzipsh
expect "teststatic: every hook objdump shows in example and minigzip is a site reported, and enabled" \
	$PY $T/compare.py sites "$H" static example,minigzip example minigzip
expect "testshared: every hook objdump shows in libz.so, examplesh and minigzipsh is a site reported, and enabled" \
	$PY $T/compare.py sites "$H" shared libz.so.1,examplesh,minigzipsh libz.so.1 examplesh minigzipsh

# The same tests recorded whole by mctrace: make runs them, so the
# recording processes are siblings (minigzipsh | minigzipsh -d, then
# examplesh), all three in one trace (mctrace/fold.c).  Once into the
# recorder's format, whose calls per function must equal the oracle's,
# once into Chrome JSON, whose events must nest (tests/trace/check.py),
# three processes in each.
# The programs are the counted ones (ZCOUNT_DIR unset: count.c writes
# nothing, and the recorder owns the hooks it enabled).
record() {	# record <run> <LDFLAGS> <file>
	"$MCT" record -o "$3" -- make -C "$H" CFLAGS="$FLAGS" LDFLAGS="$2" \
		test$1 > "$3.log" 2>&1 && grep -q "zlib.* test OK" "$3.log"
}
recorded_counts() {	# recorded_counts <run> <LDFLAGS> <objects...>
	r=$1 ld=$2
	shift 2
	mkdir -p "$OUT/rec-$r" &&
	record $r "$ld" "$OUT/rec-$r/trace.data" || return 1
	f=$OUT/rec-$r/trace.data
	left=$(ls "$f".* | grep -v '\.log$')
	[ -z "$left" ] || { echo "files beside the trace: $left"; return 1; }
	n=$("$MCT" info "$f" | sed -n 's/^# processes *: //p')
	[ "$n" = 3 ] || { echo "$n processes, not 3 (minigzip twice, example)"; return 1; }
	"$MCT" dump --raw "$f" > "$f.raw" &&
	$PY $T/compare.py trace "$f.raw" "$H" "$O" $r "$@"
}
recorded_nest() {	# recorded_nest <run> <LDFLAGS>
	mkdir -p "$OUT/json-$1" &&
	record $1 "$2" "$OUT/json-$1/trace.json" || return 1
	f=$OUT/json-$1/trace.json
	n=$(ls "$OUT/json-$1"/trace*.json | grep -c .)
	[ "$n" = 1 ] || { echo "$n JSON files, not 1"; return 1; }
	$PY tests/trace/check.py json "$f" 1 || return 1
	n=$(grep -o '"process_name","args":{"name":"pid [0-9]*"' "$f" |
		sort -u | grep -c .)
	[ "$n" = 3 ] || { echo "$n processes in the JSON, not 3"; return 1; }
	echo "$n processes nest"
}
expect "mctrace record -- make teststatic: tests pass, calls per function equal the counter's" \
	recorded_counts static "$STATIC_LD" example minigzip
expect "mctrace record -- make testshared: tests pass, libz.so's calls per function equal the counter's" \
	recorded_counts shared "$SHARED_LD" libz.so.1
for run in static shared; do
	case $run in static) ld=$STATIC_LD ;; *) ld=$SHARED_LD ;; esac
	expect "mctrace record -o trace.json -- make test$run: every process's events nest" \
		recorded_nest $run "$ld"
done

# Another backend, under qemu-user: the static test (the programs with
# libmcount.a hold every site; shared objects are the host's for now),
# its counts and sites against the same oracles, the target's binutils
# reading its files.  ZLIB_CROSS: the architectures (each adds two
# cross builds of zlib); one without its compiler, library or qemu is a
# SKIP line.
cross_cc() { case $1 in arm) echo arm-linux-gnueabihf ;; ppc64le) echo powerpc64le-linux-gnu ;; *) echo $1-linux-gnu ;; esac; }
cross_static() {	# cross_static <arch>
	a=$1 t=$(cross_cc $1)
	alib=$(dirname "$LIB")/$a/libmcount.a
	# i386: plain -pg (its -mfentry is refused with -fpic, the cross
	# compiler's default)
	case $a in s390x) hk="-pg -mfentry" ;; *) hk=-pg ;; esac
	[ $a = i386 ] && t=i686-linux-gnu
	if ! command -v $t-gcc >/dev/null || [ ! -f "$alib" ] ||
	   ! command -v qemu-$a >/dev/null; then
		echo "SKIP: zlib: [$a] no $t-gcc, $alib or qemu-$a"
		return
	fi
	d=$OUT/$a
	qemu="qemu-$a -L /usr/$t"
	mkdir -p "$d" && (
		set -e
		$t-gcc -O2 -Iruntime/include -c $T/count.c -o "$d/count.o"
		$t-gcc -O2 -DORACLE -c $T/count.c -o "$d/oracle-count.o"
		for b in hooked oracle; do
			case $b in
			hooked) cc="$LAUNCHER $t-gcc" cf="$FLAGS $hk" ;;
			*) cc=$t-gcc cf="$FLAGS -finstrument-functions" ;;
			esac
			cp -r "$src" "$d/$b" && rm -f "$d/$b/.complete"
			(cd "$d/$b" && CHOST=$t CC="$cc" CFLAGS="$cf" ./configure --static)
			zmake "$d/$b" "$cf" "" libz.a example.o minigzip.o
		done
	) > "$d/build.log" 2>&1 || { fail "[$a] build (see $d/build.log)"; return; }
	for b in hooked oracle; do
		case $b in
		hooked) ld="$d/count.o $alib -ldl -lpthread" ;;
		*) ld="$d/oracle-count.o" ;;
		esac
		rm -rf "$d/$b/static" && mkdir -p "$d/$b/static"
		if ZCOUNT_DIR=$d/$b/static zmake "$d/$b" "$FLAGS" "$ld" \
			QEMU_RUN="$qemu" teststatic > "$d/$b/static.log" 2>&1 &&
		   grep -q "zlib.* test OK" "$d/$b/static.log"; then
			[ $b = oracle ] || pass "[$a] make teststatic passes under qemu-$a with every function enabled (libmcount.a)"
		else
			fail "[$a] make teststatic of the $b build (see $d/$b/static.log)"
			return
		fi
	done
	export NM=$t-nm OBJDUMP=$t-objdump
	expect "[$a] teststatic: calls per function equal the -finstrument-functions counter's" \
		$PY $T/compare.py counts "$d/hooked" "$d/oracle" static example minigzip
	expect "[$a] teststatic: every hook objdump shows is a site reported, and enabled" \
		$PY $T/compare.py sites "$d/hooked" static example,minigzip example minigzip
	unset NM OBJDUMP
}
for a in ${ZLIB_CROSS-aarch64 arm riscv64 i386}; do
	cross_static $a
done
[ $failures -eq 0 ]
