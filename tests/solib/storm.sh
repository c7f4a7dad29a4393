#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# storm.sh - the toggle storm with its functions in a dlopened library
# (issue 27's "Done when"): tests/runtime/storm.c and storm_funcs.c
# built into libstorm.so, opened by storm_dl.c, which links libmcount.so.
#
#   CC=gcc LIBMCOUNT_SO=build/libmcount.so.0 RECORDMCOUNT=build/recordmcount \
#   OUT=build/tests/solib-storm sh tests/solib/storm.sh
#
# Per hook style (-pg -mfentry, -pg, -fpatchable-function-entry=5):
# STORM_RUNS runs of STORM_SECONDS, each passing when storm.c's own
# checks all pass (every result right, callbacks only in enabled
# windows, mcount_verify clean) and storm_dl's (the library's sites
# added at dlopen, forgotten at dlclose).  Then the -pg -mfentry case
# again with the runtime, the library and the program built with
# ASan+UBSan (as tests/runtime/run.sh's storm).  Also names.c:
# mcount_func_name asked about a library's function by two threads
# while a third opens and closes it 2,000 times (300 under ASan+UBSan).
# The host only.
set -u
R=tests/runtime
S=tests/solib
CC=${CC:-gcc}
SO=${LIBMCOUNT_SO:-build/libmcount.so.0}
TOOL=${RECORDMCOUNT:-build/recordmcount}
OUT=${OUT:-build/tests/solib-storm}
STORM_RUNS=${STORM_RUNS:-3}
STORM_SECONDS=${STORM_SECONDS:-2}
STORM_LIMIT=$((STORM_SECONDS * 10 + 60))
RT_ARCH=${RT_ARCH:-$($CC -dumpmachine | sed 's/-.*//')}
TAG="[solib $RT_ARCH]"
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -Iruntime/include"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
failures=0
pass() { echo "PASS: $TAG $*"; }
fail() { echo "FAIL: $TAG $*"; failures=$((failures + 1)); }

if [ "$RT_ARCH" != x86_64 ]; then
	echo "SKIP: $TAG toggle storm in a dlopened library: x86_64 only for now"
	exit 0
fi
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
SODIR=$(cd "$(dirname "$SO")" && pwd)

# build <dir> <hook flags> <libmcount.so's folder> [cflags]:
# <dir>/libstorm.so and <dir>/storm_dl
build() {
	mkdir -p "$1" &&
	$CC $CFLAGS $2 ${4:-} -ffunction-sections -c $R/storm_funcs.c \
		-o "$1/storm_funcs.o" &&
	$TOOL --per-section "$1/storm_funcs.o" &&
	$CC $CFLAGS ${4:-} -Dmain=storm_main -c $R/storm.c -o "$1/storm.o" &&
	$CC ${4:-} -shared -o "$1/libstorm.so" "$1/storm.o" \
		"$1/storm_funcs.o" -L"$3" -lmcount -lpthread &&
	$CC $CFLAGS ${4:-} -o "$1/storm_dl" $S/storm_dl.c -L"$3" -lmcount \
		-Wl,-rpath,"$3" -ldl
}

# runs <dir> <what> [runner...]: STORM_RUNS runs, each passing on its
# own "N passed, 0 failed" and storm_dl's PASS line
runs() {
	d=$1 what=$2
	shift 2
	ok=0 why=
	for r in $(seq $STORM_RUNS); do
		STORM_SECONDS=$STORM_SECONDS timeout $STORM_LIMIT "$@" \
			"$d/storm_dl" "$d/libstorm.so" > "$d/run$r.out" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -q '^[0-9]* passed, 0 failed$' "$d/run$r.out" &&
		   grep -q '^PASS: storm_dl' "$d/run$r.out"; then
			ok=$((ok + 1))
		else
			why="$why run $r: exit $rc $(grep -h '^FAIL\|^storm\|ERROR' "$d/run$r.out" | head -3 | tr '\n' ' ');"
		fi
	done
	stats=$(grep -h '^storm: [0-9]' "$d"/run*.out | awk '{ c += $2; b += $4; t += $6 }
		END { printf "%d calls, %d callbacks, %d toggles", c, b, t }')
	if [ $ok -eq $STORM_RUNS ]; then
		pass "$what: $STORM_RUNS runs of ${STORM_SECONDS}s, 4 callers, 2 togglers ($stats)"
	else
		fail "$what: $ok of $STORM_RUNS runs passed:$why"
	fi
}

for c in fentry mcount pad; do
	case $c in
	fentry) hooks="-pg -mfentry" ;;
	mcount) hooks="-pg" ;;
	pad) hooks="-fpatchable-function-entry=5" ;;
	esac
	d=$OUT/$c
	if ! build "$d" "$hooks" "$SODIR" > "$d.build.log" 2>&1; then
		fail "[$c] toggle storm in a dlopened library: build (see $d.build.log)"
		continue
	fi
	runs "$d" "[$c] toggle storm in a dlopened library"
done

# names <dir> <libmcount.so's folder> <what> <rounds> [cflags]: names.c
# against a hooked libdyn.so
names() {
	mkdir -p "$1" &&
	$CC $CFLAGS ${5:-} -pg -mfentry -c $S/libdyn.c -o "$1/libdyn.o" &&
	$TOOL --per-section "$1/libdyn.o" &&
	$CC ${5:-} -shared -o "$1/libdyn.so" "$1/libdyn.o" &&
	$CC $CFLAGS ${5:-} -o "$1/names" $S/names.c -L"$2" -lmcount \
		-Wl,-rpath,"$2" -ldl -lpthread > "$1/build.log" 2>&1 ||
		{ fail "$3: build (see $1/build.log)"; return; }
	if timeout $STORM_LIMIT "$1/names" "$1/libdyn.so" $4 > "$1/out" 2>&1 &&
	   grep -q '^PASS: names' "$1/out"; then
		pass "$3: $(sed -n 's/^names: //p' "$1/out")"
	else
		fail "$3: exit $? $(tail -3 "$1/out" | tr '\n' ' ')"
	fi
}
names "$OUT/names" "$SODIR" "names asked while a library is opened and closed" 2000

# ASan+UBSan: libmcount.so rebuilt instrumented from the runtime's
# sources (the recorder left out: the storm does not record), under the
# library's SONAME in a folder of its own.
san_lib() {
	l=$OUT/asan/lib
	mkdir -p "$l" &&
	for f in runtime/core/*.c runtime/linux/*.c \
		 arch/x86.c runtime/x86_64/trampoline.S; do
		$CC $CFLAGS $SAN -fno-tree-loop-distribute-patterns \
			-c $f -o "$l/$(basename $f).o" || return 1
	done &&
	$CC $SAN -shared -Wl,-soname,libmcount.so.0 \
		-Wl,--version-script=runtime/libmcount.map \
		-o "$l/libmcount.so.0" "$l"/*.o -ldl -lpthread &&
	ln -sf libmcount.so.0 "$l/libmcount.so"
}
if [ -n "${NO_SANITIZE:-}" ] ||
   ! echo 'int main(void){return 0;}' | $CC $SAN -x c - -o "$OUT/san-probe" 2>/dev/null ||
   ! "$OUT/san-probe"; then
	echo "SKIP: $TAG toggle storm in a dlopened library under ASan+UBSan: no sanitizer runtime here"
elif san_lib > "$OUT/asan.build.log" 2>&1 &&
     build "$OUT/asan/fentry" "-pg -mfentry" "$OUT/asan/lib" "$SAN" \
	>> "$OUT/asan.build.log" 2>&1; then
	runs "$OUT/asan/fentry" "[fentry] toggle storm in a dlopened library under ASan+UBSan"
	names "$OUT/asan/names" "$OUT/asan/lib" \
		"names asked while a library is opened and closed, under ASan+UBSan" \
		300 "$SAN"	# 2,000 took 73 s at load 15
else
	fail "toggle storm in a dlopened library under ASan+UBSan: build (see $OUT/asan.build.log)"
fi
[ $failures -eq 0 ]
