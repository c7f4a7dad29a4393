#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/integrate/run.sh BUILD - the one-line integrations of
# doc/build-systems.md, each tried on a three-file program
# (tests/integrate/proj): plain make, CMake's compiler launchers (C, and
# C++ on tests/integrate/proj-cxx), meson, ccache before and after the
# launcher (with a cache hit, in hard-link mode and in its default
# hash_dir mode), distcc on localhost, icecream on 127.0.0.1, a failed
# record, and the installed pkg-config file and CMake package.
#
# The oracle for "every hook is in the table" is independent of our
# tool: objdump -dr counts the calls to __fentry__ in the objects, and
# the linked program, run, reports how many sites the runtime patched
# (and that tracing thrice() reaches the callback once).
set -u
build=$(realpath "${1:?usage: run.sh BUILD-DIR}")
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TEST_RESULTS:-.}/integrate.log
work=$build/tests/integrate
rm -rf "$work" && mkdir -p "$work"
cc_launcher=$build/recordmcount-cc

pass() { echo "PASS: $1" | tee -a "$log"; }
fail() { echo "FAIL: $1: $2" | tee -a "$log"; }
skip() { echo "SKIP: $1: $2" | tee -a "$log"; }

# fresh NAME: a new copy of the project in $work/NAME; prints its path.
fresh() {
	rm -rf "${work:?}/$1" && cp -r "$top/tests/integrate/proj" "$work/$1" && echo "$work/$1"
}

# hooks DIR: calls to __fentry__ in DIR's objects, by objdump -dr.
hooks() {
	find "$1" -name '*.o' -exec objdump -dr {} + | grep -c 'R_X86_64_[A-Z0-9]*[[:space:]]*__fentry__'
}

# judge NAME DIR PROGRAM: the program ran and patched one site per hook.
judge() {
	name=$1 dir=$2 prog=$3
	want=$(hooks "$dir")
	out=$("$prog" 2>&1)
	expect="sites=$want patched=$want refused=0 traced=1 result=13"
	if [ "$want" -gt 0 ] && [ "$out" = "$expect" ]; then
		pass "$name"
	else
		fail "$name" "program says '$out', objdump counts $want hooks (want '$expect')"
	fi
}

link_flags="$build/libmcount.a -Wl,-T,$top/lds/mcount.lds"
inc="-I$top/runtime/include"

# --- make: CC="recordmcount-cc gcc" ----------------------------------
d=$(fresh make)
if make -s -C "$d" CC="$cc_launcher gcc" EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" >"$d.log" 2>&1; then
	judge integrate-make "$d" "$d/prog"
else
	fail integrate-make "build failed: $(tail -n 3 "$d.log" | tr '\n' ' ')"
fi

# Without the launcher the same build gets no table: the runtime finds
# nothing (so the check above can fail).
d=$(fresh make-plain)
make -s -C "$d" CC=gcc EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" >"$d.log" 2>&1
out=$("$d/prog" 2>&1)
case $out in
"sites=0 "*) pass integrate-make-without-launcher-has-no-table ;;
*) fail integrate-make-without-launcher-has-no-table "program says '$out'" ;;
esac

# --- a failed record removes the object and fails the compile --------
d=$(fresh fail)
status=0
(cd "$d" && RECORDMCOUNT_FLAGS=--no-such-option "$cc_launcher" gcc -O2 -pg -mfentry -c a.c -o a.o) \
	>"$d.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] && [ ! -e "$d/a.o" ] && grep -q 'recording failed' "$d.log"; then
	pass integrate-failed-record-removes-object
else
	fail integrate-failed-record-removes-object "exit $status, a.o $( [ -e "$d/a.o" ] && echo kept || echo gone)"
fi
# ... and make does not take anything for up to date afterwards.
status=0
make -s -C "$d" CC="$cc_launcher gcc" EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" \
	RECORDMCOUNT_FLAGS=--no-such-option >>"$d.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] && [ -z "$(find "$d" -name '*.o')" ] && [ ! -e "$d/prog" ]; then
	pass integrate-failed-record-make-keeps-nothing
else
	fail integrate-failed-record-make-keeps-nothing "exit $status, left: $(cd "$d" && ls ./*.o prog 2>/dev/null | tr '\n' ' ')"
fi

# Flags pass through: --nop leaves NOPs where the calls were.
d=$(fresh nop)
(cd "$d" && RECORDMCOUNT_FLAGS=--nop "$cc_launcher" gcc -O2 -pg -mfentry -c a.c -o a.o) >"$d.log" 2>&1
if [ "$(hooks "$d")" -eq 0 ] && objdump -d "$d/a.o" | grep -q 'nop'; then
	pass integrate-flags-pass-through
else
	fail integrate-flags-pass-through "a.o still calls __fentry__ after RECORDMCOUNT_FLAGS=--nop"
fi

# Compiles without hook flags, and link lines, pass through untouched.
d=$(fresh nohooks)
(cd "$d" && gcc -O2 -c a.c -o want.o && "$cc_launcher" gcc -O2 -c a.c -o a.o)
if cmp -s "$d/want.o" "$d/a.o"; then
	pass integrate-no-hook-flags-untouched
else
	fail integrate-no-hook-flags-untouched "a.o differs from the compiler's own"
fi

# --- install: pkg-config and the CMake package -----------------------
prefix=$work/prefix
if make -s -C "$top" install PREFIX="$prefix" >"$work/install.log" 2>&1; then
	pass integrate-install
else
	fail integrate-install "$(tail -n 3 "$work/install.log" | tr '\n' ' ')"
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
d=$(fresh pkgconfig)
if (cd "$d" && for f in main a b; do
		"$prefix/bin/recordmcount-cc" gcc -O2 -pg -mfentry $(pkg-config --cflags mcount) -c $f.c || exit 1
	done && gcc -o prog main.o a.o b.o $(pkg-config --libs mcount) \
		-Wl,-T,"$(pkg-config --variable=ldscript mcount)") >"$d.log" 2>&1; then
	judge integrate-pkg-config "$d" "$d/prog"
else
	fail integrate-pkg-config "$(tail -n 3 "$d.log" | tr '\n' ' ')"
fi

# --- every installed program answers --help and --version ------------
# --help: exit 0, "Usage:" on stdout, nothing on stderr; --version:
# exit 0, one line "NAME VERSION" (the launcher used to run "--help"
# as a compiler: exit 127).  With no argument the launcher is a usage
# error (2), and its first argument, when an option, is no compiler.
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
for p in "$prefix"/bin/*; do
	n=$(basename "$p")
	h_rc=0; h_out=$("$p" --help 2>"$work/help.err") || h_rc=$?
	v_rc=0; v_out=$("$p" --version 2>&1) || v_rc=$?
	if [ "$h_rc" -eq 0 ] && printf '%s\n' "$h_out" | grep -q '^Usage: ' &&
		[ ! -s "$work/help.err" ] && [ "$v_rc" -eq 0 ] &&
		[ "$v_out" = "$n $version" ]; then
		pass "integrate-help-version/$n"
	else
		fail "integrate-help-version/$n" "--help exit $h_rc ($(head -c 80 "$work/help.err")), --version exit $v_rc: '$v_out', want '$n $version'"
	fi
done
rc=0; "$prefix/bin/recordmcount-cc" >/dev/null 2>&1 || rc=$?
rc2=0; "$prefix/bin/recordmcount-cc" -O2 -c x.c >/dev/null 2>"$work/opt.err" || rc2=$?
if [ "$rc" -eq 2 ] && [ "$rc2" -eq 2 ] && grep -q "the first argument is the compiler" "$work/opt.err"; then
	pass integrate-launcher-usage-errors
else
	fail integrate-launcher-usage-errors "no argument: exit $rc; an option first: exit $rc2, $(cat "$work/opt.err")"
fi

# --- the man pages are installed, and mcount(3) names the whole API ---
man_dir=$prefix/share/man
missing=""
for m in man1/recordmcount.1 man1/recordmcount-cc.1 man3/mcount.3; do
	[ -f "$man_dir/$m" ] || missing="$missing $m"
done
# The functions mcount.h declares, against mcount(3)'s NAME section.
api=$(sed -n 's/^[a-z][a-z_ *]*[ *]\(mcount_[a-z_]*\)(.*/\1/p' "$top/runtime/include/mcount.h" | sort -u)
named=$(sed -n '/^\.SH NAME/,/^\.SH/p' "$top/man/mcount.3" | tr -c 'a-z_\n' ' ' | tr ' ' '\n' | grep '^mcount_' | sort -u)
unnamed=$(printf '%s\n' "$api" | grep -vxF "$named")
if [ -z "$missing" ] && [ -n "$api" ] && [ -z "$unnamed" ] &&
	[ "$(printf '%s\n' "$api" | wc -l)" -ge 14 ]; then
	pass integrate-man-pages
else
	fail integrate-man-pages "not installed:${missing:- none}; mcount.h functions mcount(3) does not name: $(echo $unnamed)"
fi

# --- the README's callback example, built the README's way -----------
# The file is the README's copy (after the SPDX line), compiled with the
# installed launcher and pkg-config, linked with no script; square() is
# traced twice (from main), then not once it is disabled.
d=$work/callback
rm -rf "$d" && mkdir -p "$d"
readme_copy=$(sed -n '/^<!-- examples\/callback\/trace.c -->$/,/^```$/p' "$top/README.md" |
	sed -e '1,2d' -e '$d')
if [ "$readme_copy" != "$(sed 1d "$top/examples/callback/trace.c")" ]; then
	fail integrate-readme-callback "README.md's copy of examples/callback/trace.c differs from the file"
elif (cd "$d" && cp "$top/examples/callback/trace.c" . &&
	"$prefix/bin/recordmcount-cc" gcc -O2 -pg -mfentry $(pkg-config --cflags mcount) -c trace.c &&
	gcc -o trace trace.o $(pkg-config --libs mcount)) >"$d.log" 2>&1; then
	out=$("$d/trace" 2>&1)
	want='square called from main+0x[0-9a-f]*
square called from main+0x[0-9a-f]*
25
25'
	if printf '%s\n' "$out" | tr '\n' '|' | grep -qx "$(printf '%s\n' "$want" | tr '\n' '|')"; then
		pass integrate-readme-callback
	else
		fail integrate-readme-callback "trace printed '$(printf '%s' "$out" | tr '\n' '|')'"
	fi
else
	fail integrate-readme-callback "build failed: $(tail -n 3 "$d.log" | tr '\n' ' ')"
fi

# --- --print-lds: the fragment a Makefile puts on its link line ------
# Installed: the file install put in DATADIR, also after the whole
# prefix is moved; from the build tree: the tree's own lds/mcount.lds.
lds_installed=$("$prefix/bin/recordmcount" --print-lds 2>&1)
mv "$prefix" "$prefix.moved"
lds_moved=$("$prefix.moved/bin/recordmcount" --print-lds 2>&1)
mv "$prefix.moved" "$prefix"
lds_tree=$("$build/recordmcount" --print-lds 2>&1)
if [ "$lds_installed" = "$(pkg-config --variable=ldscript mcount)" ] &&
	[ "$lds_moved" = "$prefix.moved/share/recordmcount/mcount.lds" ] &&
	[ "$lds_tree" = "$top/lds/mcount.lds" ] &&
	cmp -s "$lds_installed" "$top/lds/mcount.lds"; then
	pass integrate-print-lds
else
	fail integrate-print-lds "installed: $lds_installed; moved: $lds_moved; tree: $lds_tree"
fi

# --- CMake: the launcher and find_package(mcount) ----------------------
d=$(fresh cmake)
if cmake -S "$d" -B "$d/b" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER_LAUNCHER="$prefix/bin/recordmcount-cc" >"$d.log" 2>&1 &&
	cmake --build "$d/b" >>"$d.log" 2>&1; then
	judge integrate-cmake-launcher "$d/b" "$d/b/prog"
else
	fail integrate-cmake-launcher "$(tail -n 3 "$d.log" | tr '\n' ' ')"
fi

# C++: CMAKE_CXX_COMPILER_LAUNCHER.  tests/integrate/proj-cxx has a C++
# main (a template and an inline member function, each in its COMDAT
# group) beside the program's a.c and b.c: the C++ object must hold its
# table (readelf; recordmcount --check judges it against its code), and
# the program, linked by g++, patch every hook of all three objects.
# fresh_cxx NAME: a new copy of the C++ project; prints its path.
fresh_cxx() {
	rm -rf "${work:?}/$1" && cp -r "$top/tests/integrate/proj-cxx" "$work/$1" &&
		cp "$top/tests/integrate/proj/a.c" "$top/tests/integrate/proj/b.c" "$work/$1" && echo "$work/$1"
}
# has_table OBJECT: OBJECT has a table section (.mcount_loc: the
# launcher records --per-section; __mcount_loc: the kernel's form).
has_table() { readelf -SW "$1" | grep -q -e ' \.mcount_loc ' -e ' __mcount_loc '; }
d=$(fresh_cxx cmake-cxx)
if cmake -S "$d" -B "$d/b" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER_LAUNCHER="$prefix/bin/recordmcount-cc" \
	-DCMAKE_CXX_COMPILER_LAUNCHER="$prefix/bin/recordmcount-cc" >"$d.log" 2>&1 &&
	cmake --build "$d/b" >>"$d.log" 2>&1; then
	obj=$(find "$d/b" -name 'main.cc.o')
	if [ -z "$obj" ]; then
		fail integrate-cmake-cxx-launcher "no main.cc.o in $d/b"
	elif ! has_table "$obj" || ! "$build/recordmcount" --check "$obj" >>"$d.log" 2>&1; then
		fail integrate-cmake-cxx-launcher "the C++ object has no complete table: $(tail -n 2 "$d.log" | tr '\n' ' ')"
	else
		judge integrate-cmake-cxx-launcher "$d/b" "$d/b/prog"
	fi
else
	fail integrate-cmake-cxx-launcher "$(tail -n 3 "$d.log" | tr '\n' ' ')"
fi
# ... and it is the CXX launcher that records it: with the C one alone,
# the C++ object has no table (so the check above can fail).
d=$(fresh_cxx cmake-c-only)
if cmake -S "$d" -B "$d/b" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER_LAUNCHER="$prefix/bin/recordmcount-cc" >"$d.log" 2>&1 &&
	cmake --build "$d/b" >>"$d.log" 2>&1; then
	obj=$(find "$d/b" -name 'main.cc.o')
	if [ -n "$obj" ] && ! has_table "$obj" && has_table "$(find "$d/b" -name 'a.c.o')"; then
		pass integrate-cmake-cxx-without-cxx-launcher-has-no-table
	else
		fail integrate-cmake-cxx-without-cxx-launcher-has-no-table "main.cc.o: '$obj', a table in it or none in a.c.o"
	fi
else
	fail integrate-cmake-cxx-without-cxx-launcher-has-no-table "$(tail -n 3 "$d.log" | tr '\n' ' ')"
fi

# --- meson: CC with the launcher, the pkg-config dependency ------------
d=$(fresh meson)
if (cd "$d" && CC="$prefix/bin/recordmcount-cc gcc" meson setup b) >"$d.log" 2>&1 &&
	ninja -C "$d/b" >>"$d.log" 2>&1; then
	judge integrate-meson "$d/b" "$d/b/prog"
else
	fail integrate-meson "$(tail -n 3 "$d.log" | tr '\n' ' ')"
fi
make -s -C "$top" uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f | head -n 3)
if [ -z "$left" ]; then pass integrate-uninstall; else fail integrate-uninstall "left: $left"; fi
unset PKG_CONFIG_PATH

# --- ccache, before and after the launcher ----------------------------
# ccache_build NAME CC [ccache settings...]: two builds of fresh copies
# with an empty cache; the second must be all hits.
ccache_build() {
	name=$1 cc=$2; shift 2
	cache=$work/$name.cache
	rm -rf "$cache"
	for round in 1 2; do
		d=$(fresh "$name-$round")
		env CCACHE_DIR="$cache" CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$work" "$@" \
			make -s -C "$d" CC="$cc" EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" \
			>"$d.log" 2>&1 || { fail "$name" "round $round failed: $(tail -n 2 "$d.log" | tr '\n' ' ')"; return; }
	done
	hits=$(CCACHE_DIR="$cache" ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }')
	if [ "$hits" -ne 3 ]; then
		fail "$name" "the second build had $hits cache hits, not 3"
		return
	fi
	judge "$name-hit" "$d" "$d/prog"
}
ccache_build integrate-ccache-after-launcher "$cc_launcher ccache gcc"
ccache_build integrate-ccache-before-launcher "ccache $cc_launcher gcc"
ccache_build integrate-ccache-hardlink "ccache $cc_launcher gcc" CCACHE_HARDLINK=1
ccache_build integrate-ccache-hardlink-after "$cc_launcher ccache gcc" CCACHE_HARDLINK=1
# In hard-link mode the cached objects must stay the compiler's own
# when we record after ccache: our write replaces the file, never
# writes through the link into the cache.
# (ccache 4 keeps the raw object of a hard-link entry as a file whose
# name ends in W.)
unrecorded=$(find "$work/integrate-ccache-hardlink-after.cache" -name '*W' -type f \
	-exec sh -c 'readelf -S "$1" | grep -q mcount_loc || echo "$1"' _ {} \; | wc -l)
if [ "$unrecorded" -eq 3 ]; then
	pass integrate-ccache-hardlink-cache-untouched
else
	fail integrate-ccache-hardlink-cache-untouched "$unrecorded of 3 cached objects without a table"
fi

# --- ccache in its default hash_dir mode ------------------------------
# The cases above set CCACHE_NOHASHDIR=1 so that a fresh copy in another
# folder hits.  Left at its default (hash_dir = true), ccache puts the
# compile's folder in the hash whenever it makes debug information, so
# the objects carry -g here and the hit is the everyday one: the same
# tree rebuilt after "make clean".  A copy in another folder must then
# miss, or hash_dir was not in force and the case proved nothing new.
# hashdir_env COMMAND...: COMMAND with the case's cache (in $cache) and hash_dir at
# ccache's default (a CCACHE_NOHASHDIR of the caller's must not leak in).
hashdir_env() { env -u CCACHE_NOHASHDIR CCACHE_DIR="$cache" "$@"; }
# hits CACHE: the hits since the statistics were last zeroed.
hits() {
	CCACHE_DIR="$1" ccache --print-stats |
		awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }'
}
ccache_hashdir() {
	hname=$1 cc=$2
	cache=$work/$hname.cache
	rm -rf "$cache"
	d=$(fresh "$hname")
	mode=$(hashdir_env ccache --get-config hash_dir)
	if [ "$mode" != true ]; then
		fail "$hname" "ccache's hash_dir is '$mode' here, not its default true"
		return
	fi
	for step in prog clean prog; do
		[ "$step" = clean ] && hashdir_env ccache -z >/dev/null
		hashdir_env make -s -C "$d" CC="$cc" EXTRA_CFLAGS="$inc -g" LDLIBS="$link_flags" "$step" \
			>>"$d.log" 2>&1 || { fail "$hname" "make $step failed: $(tail -n 2 "$d.log" | tr '\n' ' ')"; return; }
	done
	n=$(hits "$cache")
	if [ "$n" -ne 3 ]; then
		fail "$hname" "the rebuild after make clean had $n cache hits, not 3"
		return
	fi
	# The hit's objects hold their tables (the tool's own judgement of
	# each object against its code; the program's count follows).
	if ! "$build/recordmcount" --check "$d"/*.o >>"$d.log" 2>&1; then
		fail "$hname-hit" "recordmcount --check fails on the objects from the cache: $(tail -n 2 "$d.log" | tr '\n' ' ')"
		return
	fi
	judge "$hname-hit" "$d" "$d/prog"
	e=$(fresh "$hname-elsewhere")
	hashdir_env ccache -z >/dev/null
	hashdir_env make -s -C "$e" CC="$cc" EXTRA_CFLAGS="$inc -g" LDLIBS="$link_flags" >"$e.log" 2>&1
	n=$(hits "$cache")
	if [ "$n" -eq 0 ]; then
		pass "$hname-folder-hashed"
	else
		fail "$hname-folder-hashed" "a copy in another folder had $n hits: hash_dir was not in force"
	fi
}
ccache_hashdir integrate-ccache-hashdir-before-launcher "ccache $cc_launcher gcc"
ccache_hashdir integrate-ccache-hashdir-after-launcher "$cc_launcher ccache gcc"

# --- distcc on localhost ----------------------------------------------
if command -v distccd >/dev/null && command -v distcc >/dev/null; then
	port=$((36000 + $$ % 1000))
	# (as root, distccd runs as the distccd user: its log goes to our
	# stderr, not to a file in a folder of ours.)
	distccd --daemon --no-detach --allow 127.0.0.1 --listen 127.0.0.1 --port "$port" \
		--log-stderr --log-level=info --jobs 2 2>"$work/distccd.log" &
	dpid=$!
	sleep 1
	d=$(fresh distcc)
	if DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1 \
		make -s -C "$d" CC="$cc_launcher distcc gcc" EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" \
		>"$d.log" 2>&1 && grep -q 'COMPILE_OK' "$work/distccd.log"; then
		judge integrate-distcc "$d" "$d/prog"
	else
		fail integrate-distcc "$(tail -n 3 "$d.log" | tr '\n' ' ') (distccd log: $work/distccd.log)"
	fi
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null || true	# 143: the TERM we sent
else
	skip integrate-distcc "distcc not installed"
fi

# --- icecream on 127.0.0.1 --------------------------------------------
# icecc sends each compile, with the compiler as an environment, to
# another machine's daemon, which compiles in a chroot of it and sends
# the object back; the launcher records it where it lands.  The other
# machine is a second daemon on 127.0.0.1 (tests/integrate/icecream.sh,
# run in a network namespace of its own so that nothing it starts
# listens or broadcasts beyond the loopback).
if ! command -v iceccd >/dev/null || ! command -v icecc >/dev/null; then
	skip integrate-icecream "icecc not installed"
elif [ "$(id -u)" -ne 0 ]; then
	skip integrate-icecream "needs root (a network namespace, and the remote daemon's chroot)"
elif ! unshare -n true 2>/dev/null; then
	skip integrate-icecream "no network namespace (unshare -n): the daemons would be reachable beyond 127.0.0.1"
else
	# (In /tmp, not $work: the scheduler runs as the icecc user, which
	# may not reach a build folder under a home directory.)
	ice=$(mktemp -d /tmp/recordmcount-icecream.XXXXXX)
	chown icecc: "$ice"
	d=$(fresh icecream)
	status=0
	unshare -n sh "$top/tests/integrate/icecream.sh" "$ice" \
		make -s -C "$d" CC="$cc_launcher icecc gcc" EXTRA_CFLAGS="$inc" LDLIBS="$link_flags" \
		>"$d.log" 2>&1 || status=$?
	# That icecream compiled them on the other node: the scheduler ended
	# jobs there, that daemon compiled as many files, and the client was
	# sent to its port as often.  All three, as a rule; on a loaded
	# machine icecc may build a job itself when the scheduler has not
	# answered in time (CI saw 2 of 3), which proves nothing about us,
	# so at least one, and the count is printed.  Every object, wherever
	# it was compiled, must hold its table (--check and judge below).
	ended=$(grep -c 'END [0-9]* status=0 .*server=remote *$' "$ice/scheduler.log" 2>/dev/null)
	compiled=$(grep -c 'Remote compilation completed with exit code 0' "$ice/remote.log" 2>/dev/null)
	sent=$(grep -c 'Have to use host 127.0.0.1:10246' "$ice/client.log" 2>/dev/null)
	# The logs stay for a look; the compiler environments (about 100 MB) go.
	rm -rf "$work/icecream-logs" && mkdir "$work/icecream-logs" &&
		cp "$ice"/*.log "$work/icecream-logs/" 2>/dev/null
	rm -rf "$ice"
	if [ "$status" -ne 0 ]; then
		fail integrate-icecream "exit $status: $(tail -n 3 "$d.log" | tr '\n' ' ') (logs: $work/icecream-logs)"
	elif [ "$ended" -lt 1 ] || [ "$ended" -gt 3 ] ||
		[ "$compiled" -ne "$ended" ] || [ "$sent" -ne "$ended" ]; then
		fail integrate-icecream "remote jobs do not add up: scheduler ended $ended on the remote node, it compiled $compiled, the client was sent there $sent times (logs: $work/icecream-logs)"
	elif ! "$build/recordmcount" --check "$d"/*.o >>"$d.log" 2>&1; then
		fail integrate-icecream "recordmcount --check fails on the objects icecream made: $(tail -n 2 "$d.log" | tr '\n' ' ')"
	else
		echo "NOTE: icecream compiled $ended of 3 files on the remote node"
		judge integrate-icecream "$d" "$d/prog"
	fi
fi
# The verdicts are the PASS/FAIL lines; the script itself succeeded.
exit 0
