#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - the runtime across shared objects (issue 27).
#
#   RT_ARCH=x86_64 LIBMCOUNT_SO=build/libmcount.so.0 LIBMCOUNT=build/libmcount.a \
#   RECORDMCOUNT=build/recordmcount OUT=build/tests/solib sh tests/solib/run.sh
#
# Builds, every object compiled with -pg -mfentry (plain -pg where the
# architecture has no fentry, or none with -fpic) and recorded by
# recordmcount --per-section: prog (PIE) linked with libmcount.so,
# liba.so (C) and libb.so (C++, COMDAT groups) linked at start-up,
# libdyn.so dlopened (ppc64le: liba.so with a TOC so big that ld calls
# _mcount there through its long stub).  Then checks: every hook call
# objdump -d shows in each object is a site the runtime reports; names
# and callbacks across objects; a library hook, disabled, enabled and
# disabled, whose function then loads a global over a scrawled stack
# (ppc64le's TOC restore, tests/solib/liba.c); libdyn.so dlopened and
# dlclosed LOOPS times (1000) under two calling threads and a toggling
# one; fork and exec; then the loop again under valgrind (a few loads,
# natively, when valgrind runs here); two libraries that each link
# libmcount.a (-Bsymbolic: each calls its own copy): the second
# refuses; far/prog (names and toc again): the program mapped farther
# from libmcount.so than a call reaches, its sites calling through a
# thunk page; far/crowd: a dlopened library with no free page within
# its calls' reach, its sites calling through thunks at the end of its
# own code (crowd.c, libcrowd.c); lock (libmcount.a): the list's lock lets a dlopen in past
# read holds that never all end at once, and a signal handler's lookup
# past that waiting dlopen.
#
# RT_ARCH (default: what `$CC -dumpmachine` names) picks the runner
# (qemu-user), objdump and clang target from tests/runtime/arches.sh;
# CC and CXX default to that architecture's GCC and G++.  RT_CLANG=clang
# (or clang-16): the objects are built by that clang and clang++ for the
# architecture instead, against the same GCC-built libmcount.
# RT_VARIANT=<name>: the objects built (and run) as the runtime suite's
# case variant <name> (tests/runtime/arches.sh's rt_variant): ppc64le's
# p10, PC-relative code calling _mcount through ld's notoc stubs, liba's
# with a prefixed load (--power10-stubs), the others' finding their own
# address with bcl (--no-power10-stubs).
set -u
T=tests/solib
. tests/runtime/arches.sh
if [ -z "${RT_ARCH:-}" ]; then
	RT_ARCH=$(${CC:-gcc} -dumpmachine | sed 's/-.*//; s/^i[3-6]86$/i386/')
fi
if ! rt_arch_config "$RT_ARCH"; then
	echo "FAIL: [solib $RT_ARCH] no configuration in tests/runtime/arches.sh"
	exit 1
fi
RT_VARIANT_RUN= RT_VARIANT_CFLAGS=
if [ -n "${RT_VARIANT:-}" ] && ! rt_variant "$RT_ARCH" "$RT_VARIANT"; then
	echo "FAIL: [solib $RT_ARCH] no variant $RT_VARIANT in tests/runtime/arches.sh"
	exit 1
fi
TAG="[solib $RT_ARCH${RT_VARIANT:++$RT_VARIANT}${RT_CLANG:+ $RT_CLANG}]"
if [ -n "${RT_CLANG:-}" ]; then
	cxx=$(echo "$RT_CLANG" | sed 's/^clang/clang++/')
	CC="$RT_CLANG${RT_CLANG_TARGET:+ --target=$RT_CLANG_TARGET}${RT_CLANG_CFLAGS:+ $RT_CLANG_CFLAGS}"
	CXX="$cxx${RT_CLANG_TARGET:+ --target=$RT_CLANG_TARGET}${RT_CLANG_CFLAGS:+ $RT_CLANG_CFLAGS}"
fi
CC=${CC:-$RT_CC_DEFAULT}
CXX=${CXX:-$(echo "$CC" | sed 's/gcc$/g++/; s/^cc$/c++/')}
OUT=${OUT:-build/tests/solib}
SO=${LIBMCOUNT_SO:-build/libmcount.so.0}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
OBJDUMP=${OBJDUMP:-$RT_OBJDUMP}
READELF=$(echo "$OBJDUMP" | sed 's/objdump$/readelf/')
CC="$CC${RT_VARIANT_CFLAGS:+ $RT_VARIANT_CFLAGS}"
CXX="$CXX${RT_VARIANT_CFLAGS:+ $RT_VARIANT_CFLAGS}"
RUN=${RT_VARIANT_RUN:-${RT_RUN:-}}
LOOPS=${LOOPS:-1000}
# i386: GCC refuses -mfentry with -fpic, which a library needs; s390x:
# clang's plain -pg calls mcount, not _mcount (tests/runtime/arches.sh).
case $RT_ARCH in
x86_64|s390x) HOOK="-pg -mfentry" ;;
*) HOOK="-pg" ;;
esac
failures=0
pass() { echo "PASS: $TAG $*"; }
fail() { echo "FAIL: $TAG $*"; failures=$((failures + 1)); }

# far/prog: the program linked at an address farther from the libraries
# (and libmcount.so) than any call the runtime writes reaches, as they
# lie on real hardware (qemu-user maps a PIE next to its libraries).
# Low, where non-PIC start-up code links (x86_64, riscv64 and s390x
# reach absolute or 0-based addresses within 2 or 4 GiB); the libraries
# lie near the top natively, and from 256 GiB (64-bit) or 1 GiB up
# under qemu-user.
case $RT_ARCH in
arm|i386) FAR=0x10000000 ;;
*) FAR=0x40000000 ;;
esac

# far/crowd: libcrowd.so, dlopened by a program linked with libmcount.a
# at FAR, maps every page free within CROWD_REACH of its text before it
# is booted: the reach of the backend's shortest call (riscv64's
# relaxed `jal` 1 MiB, Thumb's `bl` 16 MiB, ppc64le's `bl` 32 MiB,
# aarch64's `bl` 128 MiB, x86_64's call 2 GiB, s390x's `brasl` 4 GiB).
# Its sites' thunks can then only go at the end of its own code.
case $RT_ARCH in
riscv64) CROWD_REACH=0x100000 ;;
arm) CROWD_REACH=0x1000000 ;;
ppc64le) CROWD_REACH=0x2000000 ;;
aarch64) CROWD_REACH=0x8000000 ;;
x86_64) CROWD_REACH=0x80000000 ;;
s390x) CROWD_REACH=0x100000000 ;;
*) CROWD_REACH= ;;
esac

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
SODIR=$(cd "$(dirname "$SO")" && pwd)
FLAGS="-O2 -g -fPIC -Iruntime/include"

# compile <CC|CXX> <source> <object> [flags]: hooked and recorded, by
# the compiler the variable names (its value may hold options too)
compile() {
	eval "comp=\$$1"
	$comp $FLAGS $HOOK ${4:-} -c "$2" -o "$3" && $TOOL --per-section "$3"
}

# ppc64le: liba.so gets 80 KB of TOC (bigtoc.c, by the architecture's
# GCC whichever compiler builds the rest), so that ld calls _mcount
# there through its long stub; the other objects get the short one.
BIGTOC= STUBS_A= STUBS_B=
[ "$RT_ARCH" = ppc64le ] && BIGTOC=$OUT/bigtoc.o
if [ "$RT_ARCH+${RT_VARIANT:-}" = ppc64le+p10 ]; then
	STUBS_A=-Wl,--power10-stubs STUBS_B=-Wl,--no-power10-stubs
fi

build() {
	if [ -n "$BIGTOC" ]; then
		$RT_CC_DEFAULT -c $T/bigtoc.c -o $BIGTOC || return 1
	fi
	compile CC $T/liba.c $OUT/liba.o &&
	compile CXX $T/libb.cc $OUT/libb.o &&
	compile CC $T/libdyn.c $OUT/libdyn.o &&
	compile CC $T/prog.c $OUT/prog.o -std=gnu11 &&
	$CC -shared $STUBS_A -o $OUT/liba.so $OUT/liba.o $BIGTOC &&
	$CXX -shared $STUBS_B -o $OUT/libb.so $OUT/libb.o &&
	$CC -shared $STUBS_B -o $OUT/libdyn.so $OUT/libdyn.o &&
	cp "$SO" $OUT/ && ln -sf "$(basename "$SO")" $OUT/libmcount.so &&
	$CC -pie -o $OUT/prog $OUT/prog.o -L$OUT -la -lb -lmcount \
		-Wl,-rpath,$OUT -ldl -lpthread &&
	compile CC $T/libtwo.c $OUT/two1.o -DTWO_BOOT=two1_boot &&
	compile CC $T/libtwo.c $OUT/two2.o -DTWO_BOOT=two2_boot &&
	$CC -shared -Wl,-Bsymbolic -o $OUT/libtwo1.so $OUT/two1.o "$LIB" \
		-ldl -lpthread &&
	$CC -shared -Wl,-Bsymbolic -o $OUT/libtwo2.so $OUT/two2.o "$LIB" \
		-ldl -lpthread &&
	$CC $FLAGS -o $OUT/two $T/two.c -L$OUT -ltwo1 -ltwo2 \
		-Wl,-rpath,$OUT &&
	compile CC $T/lock.c $OUT/lock.o -std=gnu11 &&
	$CC -pie -o $OUT/lock $OUT/lock.o "$LIB" -ldl -lpthread &&
	mkdir -p $OUT/far &&
	compile CC $T/prog.c $OUT/far/prog.o "-std=gnu11 -fno-pic -fno-pie" &&
	$CC -no-pie -Wl,-Ttext-segment=$FAR -o $OUT/far/prog $OUT/far/prog.o \
		-L$OUT -la -lb -lmcount -Wl,-rpath,$OUT -ldl -lpthread &&
	compile CC $T/libcrowd.c $OUT/libcrowd.o &&
	$CC -shared -o $OUT/libcrowd.so $OUT/libcrowd.o &&
	compile CC $T/crowd.c $OUT/far/crowd.o "-std=gnu11 -fno-pic -fno-pie" &&
	$CC -no-pie -rdynamic -Wl,-Ttext-segment=$FAR -o $OUT/far/crowd \
		$OUT/far/crowd.o "$LIB" -ldl -lpthread
}
if ! build > $OUT/build.log 2>&1; then
	fail "build (see $OUT/build.log)"; sed 's/^/  /' $OUT/build.log | tail -20
	exit 1
fi
pass "build: a PIE with libmcount.so, C and C++ libraries, a dlopened one"

# ppc64le: which of ld's stub forms each object calls _mcount through
if [ -n "$BIGTOC" ]; then
	stub_of() {
		$OBJDUMP -d "$OUT/$1" | awk '/<[0-9a-f]+\.plt_call\._mcount.*>:$/ { s = 1; next }
			s && /bctr/ { exit } s { print $6, $7 }'
	}
	if [ -n "$STUBS_A" ]; then
		if stub_of liba.so | grep -q '^pld r12,' &&
		   stub_of libb.so | grep -q '^bcl ' &&
		   stub_of libdyn.so | grep -q '^bcl '; then
			pass "ld's PC-relative stubs: pld in liba.so, bcl in libb.so and libdyn.so"
		else
			fail "ld's stub forms: liba.so $(stub_of liba.so | tr '\n' ';') libb.so $(stub_of libb.so | tr '\n' ';')"
		fi
	elif stub_of liba.so | grep -q '^addis r12,r2,' &&
	   stub_of libb.so | grep -q '^ld r12,-\?[0-9]*(r2)$'; then
		pass "ld's long stub (addis r12,r2) in liba.so, its short one in libb.so"
	else
		fail "ld's stub forms: liba.so $(stub_of liba.so | tr '\n' ';') libb.so $(stub_of libb.so | tr '\n' ';')"
	fi
fi

# The program's own lines, with the runner in front.
# Bounded: a runner that hangs ends in a FAIL line (exit 124).
run() { SOLIB_RUNNER="$RUN" timeout -k 10 600 $RUN "$@"; }

# i386's `call *mcount@GOT(%ebx)`, as objdump prints it: the
# displacement of mcount's GOT slot (readelf -r) from .got.plt, where
# %ebx points.
got_call_of() {
	[ "$RT_ARCH" = i386 ] || return 0
	gotplt=$(${READELF:-readelf} -SW "$OUT/$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".got.plt" { print $3 }')
	slot=$(${READELF:-readelf} -rW "$OUT/$1" |
		awk '/GLOB_DAT/ && $NF ~ /^mcount/ { print $1 }')
	[ -n "$gotplt" ] && [ -n "$slot" ] || return 0
	printf 'call +\\*-0x%x\\(%%ebx\\)' $((0x$gotplt - 0x$slot))
}

# Every hook call objdump shows, as "<object> <offset>".  On ppc64le a
# library's (and the program's: it links libmcount.so) goes through
# GNU ld's stub, which objdump names "<n>.plt_call._mcount".  A riscv64
# call ld did not relax (clang's) is `auipc ra; jalr ra`, objdump naming
# the target on the jalr: the site is the auipc.
hooks_of() {
	$OBJDUMP -d "$OUT/$1" | awk -v obj="$1" -v got="$(got_call_of "$1")" '
		/^[0-9a-f]+ <.*>:$/ { next }
		/(call|bl|brasl|jal).*<(__fentry__|_?mcount|__gnu_mcount_nc)(@plt)?>/ ||
		/[[:space:]]bl[[:space:]].*<[0-9a-f]+\.plt_call\._mcount(@@[^>]*)?>/ ||
		/call.*\*.*# .*<(__fentry__|mcount)@/ || (got != "" && $0 ~ got) {
			a = $1
			if ($0 ~ /[[:space:]]jalr[[:space:]]/ && prev ~ /[[:space:]]auipc[[:space:]]+ra,/)
				a = prev_a
			sub(":", "", a); sub(/^0+/, "", a); print obj, a
		}
		{ prev = $0; prev_a = $1 }'
}
run $OUT/prog sites > $OUT/sites.out 2> $OUT/sites.err
grep '^SITE' $OUT/sites.out | awk '{ print $2, $3 }' | sort > $OUT/sites.got
{ for o in prog liba.so libb.so libdyn.so; do hooks_of $o; done; } |
	sort > $OUT/sites.want
if [ -s $OUT/sites.want ] && cmp -s $OUT/sites.got $OUT/sites.want &&
   ! grep -q refused $OUT/sites.out; then
	pass "every hook objdump shows in prog and its 3 libraries is a site the runtime reports ($(wc -l < $OUT/sites.want))"
else
	fail "objdump's hooks against the runtime's sites:"
	diff $OUT/sites.want $OUT/sites.got | head -20 | sed 's/^/  /'
	grep refused $OUT/sites.out | head -5 | sed 's/^/  /'
fi

# check <name> <expected status> <command...>: its PASS/FAIL lines, tagged
check() {
	what=$1; want=$2; shift 2
	run "$@" > $OUT/$what.out 2> $OUT/$what.err
	st=$?
	sed -n "s/^\(PASS\|FAIL\|XFAIL\): /\1: $TAG $what: /p" $OUT/$what.out
	failures=$((failures + $(grep -c '^FAIL' $OUT/$what.out)))
	if [ "$st" = "$want" ]; then pass "$what: exit status $st"
	else fail "$what: exit status $st, not $want"; sed 's/^/  /' $OUT/$what.err | tail -5
	fi
}
check names 0 $OUT/prog names
check far 0 $OUT/far/prog names
check toc 0 $OUT/prog toc
check far-toc 0 $OUT/far/prog toc
check loop 0 $OUT/prog loop "$LOOPS"
check fork 0 $OUT/prog fork
check two 0 $OUT/two
# lock.c runs a lookup from a signal handler; qemu-i386 7.2 gives a
# thread another thread's TLS once a handler returns (tlsprobe.c), and
# lock's dlopen then fails with no dlerror, now and then: where the
# probe fails under the runner, a SKIP line with its answer.  The probe
# asks the emulator, not the compiler: it is built with GCC for every
# variant.
lock_why=
if [ -n "$RUN" ] &&
   $RT_CC_DEFAULT -O1 -o $OUT/tlsprobe tests/trace/tlsprobe.c -lpthread 2>/dev/null &&
   ! why=$(timeout -k 5 60 $RUN $OUT/tlsprobe); then
	lock_why="under $RUN a thread loses its TLS when a signal handler returns (tests/trace/tlsprobe.c: ${why:-no answer})"
fi
if [ -n "$lock_why" ]; then
	echo "SKIP: $TAG lock: $lock_why"
else
	check lock 0 $OUT/lock $OUT/libdyn.so
fi
if [ -n "$CROWD_REACH" ]; then
	export CROWD_REACH
	check crowd 0 $OUT/far/crowd $OUT/libcrowd.so
else
	echo "SKIP: $TAG crowd: i386's calls reach every address (no thunks)"
fi

# valgrind (natively): leaks and bad reads over a few loads
if [ -z "$RUN" ] && [ -z "${NO_VALGRIND:-}" ] && command -v valgrind >/dev/null; then
	if valgrind -q --smc-check=all --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite $OUT/prog loop 20 \
		> $OUT/vg.out 2> $OUT/vg.err; then
		pass "valgrind: 20 loads and unloads, no error, no leak"
	else
		fail "valgrind (see $OUT/vg.err)"; grep -m5 '==' $OUT/vg.err
	fi
else
	echo "SKIP: $TAG valgrind: natively only (${NO_VALGRIND:+NO_VALGRIND set, }${RUN:+runs under $RUN, }or none installed)"
fi
[ $failures -eq 0 ] && echo "PASS: tests/solib [$RT_ARCH]" || echo "FAIL: tests/solib [$RT_ARCH] ($failures)"
[ $failures -eq 0 ]
