#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/build/nodpkg.sh BUILD-DIR - building needs a C compiler, libelf
# and zlib, found by pkg-config, and nothing of Debian's:
#
#   build/no-dpkg           make and make install succeed with a PATH
#                           holding only the tools they need (a folder of
#                           symlinks), with no dpkg-query and no apt-get
#   build/hint-libelf       pkg-config finds no libelf: make stops with
#                           the one-line hint naming each distribution's
#                           package, before compiling anything
#   build/hint-pkg-config   no pkg-config at all: its hint
#   build/deps-no-dpkg      scripts/deps.sh (what the test targets run
#                           first) with no dpkg-query: names the
#                           packages and succeeds
#
# Each make runs as a top-level one (the parent's MAKEFLAGS and
# MC_DEPS_DONE removed) into a build folder of its own.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:?usage: nodpkg.sh BUILD-DIR}" && cd "$1" && pwd)/tests/build
log=${TEST_RESULTS:-.}/build.log
rm -rf "$work" && mkdir -p "$work"

pass() { echo "PASS: $1" | tee -a "$log"; }
fail() { echo "FAIL: $1: $2" | tee -a "$log"; }

# bin_with NAME TOOL...: $work/NAME, a folder of symlinks to TOOLs.
bin_with() {
	dir=$work/$1
	shift
	mkdir -p "$dir"
	for t; do
		p=$(command -v "$t") || { echo "nodpkg: no $t here" >&2; return 1; }
		ln -sf "$p" "$dir/$t"
	done
	echo "$dir"
}

# What make, make install and the compiler driver call (awk, grep and id
# too, so that the old Makefile's deps.sh fails only for want of dpkg).
BUILD_TOOLS="make sh cc gcc as ld ar pkg-config mkdir cp chmod rm sed cmp
echo cat install rmdir awk grep id ln od mv"

# topmake PATH ARGS...: a top-level make of this tree with only PATH.
topmake() {
	path=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MC_DEPS_DONE -u MAKEOVERRIDES \
		PATH="$path" make -C "$top" --no-print-directory "$@"
}

# --- make and make install with no dpkg-query, no apt-get ------------
# shellcheck disable=SC2086 # one tool a word
bin=$(bin_with bin $BUILD_TOOLS) || exit 1
if PATH=$bin command -v dpkg-query >/dev/null 2>&1 ||
	PATH=$bin command -v apt-get >/dev/null 2>&1; then
	fail build/no-dpkg "dpkg-query or apt-get is on the test's own PATH"
elif topmake "$bin" -j2 BUILD="$work/out" >"$work/make.log" 2>&1 &&
	topmake "$bin" BUILD="$work/out" install DESTDIR="$work/dest" PREFIX=/usr \
		>>"$work/make.log" 2>&1 &&
	[ -x "$work/out/recordmcount" ] && [ -f "$work/out/libmcount.a" ] &&
	[ -x "$work/dest/usr/bin/recordmcount" ]; then
	if "$work/dest/usr/bin/recordmcount" --version >/dev/null 2>&1; then
		pass build/no-dpkg
	else
		fail build/no-dpkg "the installed recordmcount does not run"
	fi
else
	fail build/no-dpkg "$(grep -v '^[a-z]*cc \|^ar \|^install \|^sed \|^cp ' "$work/make.log" | tail -n 4 | tr '\n' ' ')"
fi

# --- no libelf for pkg-config: the hint, and nothing compiled --------
out=$(PKG_CONFIG_LIBDIR=$work/empty PKG_CONFIG_PATH= topmake "$bin" BUILD="$work/nolibelf" 2>&1)
rc=$?
hint="libelf not found: install libelf-dev (Debian), elfutils-libelf-devel (Fedora), libelf (Arch)"
if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -qxF "$hint" &&
	[ -z "$(find "$work/nolibelf" -name '*.o' 2>/dev/null)" ]; then
	pass build/hint-libelf
else
	fail build/hint-libelf "exit $rc, said: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
fi

# --- no pkg-config: its hint -----------------------------------------
# shellcheck disable=SC2086
nopc=$(bin_with nopc $(echo $BUILD_TOOLS | sed 's/pkg-config//')) || exit 1
out=$(topmake "$nopc" BUILD="$work/nopc" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && printf '%s\n' "$out" |
	grep -qxF "pkg-config not found: install pkg-config (Debian), pkgconf (Fedora, Arch)"; then
	pass build/hint-pkg-config
else
	fail build/hint-pkg-config "exit $rc, said: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
fi

# --- the test targets' package step with no dpkg-query ---------------
deps_bin=$(bin_with deps sh sort tr fold sed printf id awk grep cat) || exit 1
out=$(PATH=$deps_bin sh "$top/scripts/deps.sh" check 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q 'no dpkg-query' &&
	printf '%s\n' "$out" | grep -qw 'libelf-dev'; then
	pass build/deps-no-dpkg
else
	fail build/deps-no-dpkg "exit $rc, said: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
fi
exit 0
