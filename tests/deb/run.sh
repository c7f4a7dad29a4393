#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/deb/run.sh - make check-deb: the Debian packages (debian/), built
# from a clean clone of HEAD, checked by lintian, installed, and used.
#
#   deb/copyright  debian/copyright gives every file the license of its
#                  SPDX line (tests/deb/copyright.py)
#   deb/build      dpkg-buildpackage -us -uc -b in a clone of HEAD in a
#                  temporary folder (the tree is never written to) makes
#                  recordmcount, mctrace, libmcount0 and libmcount-dev
#   deb/lintian    lintian -i --fail-on error,warning on the .changes
#   deb/install    dpkg -i of the four, dependencies checked, in a
#                  throwaway root
#   deb/files      the README's userspace example (examples/callback/
#                  trace.c) is built there with the installed
#                  recordmcount-cc and pkg-config's answer from the
#                  installed mcount.pc, each file dpkg says is ours
#   deb/run        the program prints what its source says it computes
#   deb/trace      mctrace record, then mctrace report counts main once
#                  and square as often as the program's callback saw it
#
# The throwaway root is this machine's own root under an overlay (a
# tmpfs takes every write; unmounted and gone on any exit), chrooted
# into with no /usr/local on PATH: dpkg -i checks the packages'
# dependencies against a real Debian system, and nothing the project
# built or installed elsewhere (build/, /usr/local) is on any path.  A
# pristine debootstrap root (scripts/fresh.sh) would need a compiler,
# pkg-config and libelf downloaded into it first: minutes, and the
# network, for what the overlay proves in seconds.  Needs root (mount,
# chroot).  Only committed files are packaged: commit debian/ first.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TEST_RESULTS:-.}/deb.log
: >"$log"

pass() { echo "PASS: $1" | tee -a "$log"; }
fail() { echo "FAIL: $1: $2" | tee -a "$log"; }
# tail_of FILE: its last lines on one line, for a FAIL message.
tail_of() { tail -n 4 "$1" | tr '\n' ' '; }

if [ "$(id -u)" -ne 0 ]; then
	fail deb "needs root (mount and chroot for the throwaway root)"
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mc-deb.XXXXXX")
mounted=""
cleanup() {
	status=$?
	for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
	if grep -q " $work/" /proc/mounts; then
		echo "deb: still mounted under $work; not removing it" >&2
	else
		rm -rf "$work"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build, from a clean clone ------------------------------------------
git clone -q --no-hardlinks "$top" "$work/src" || { fail deb/build "git clone of $top failed"; exit 1; }
if [ ! -f "$work/src/debian/control" ]; then
	fail deb/build "no debian/control in HEAD ($(git -C "$top" rev-parse --short HEAD))"
	exit 1
fi
python3 "$work/src/tests/deb/copyright.py" | tee -a "$log"
if ! (cd "$work/src" && dpkg-buildpackage -us -uc -b -j2) >"$work/build.log" 2>&1; then
	fail deb/build "dpkg-buildpackage failed: $(tail_of "$work/build.log")"
	exit 1
fi
# The four, and nothing else but their debug symbols (-dbgsym).
want="libmcount-dev libmcount0 mctrace recordmcount"
got=$(for d in "$work"/*.deb; do dpkg-deb -f "$d" Package; done | grep -v -- '-dbgsym$' | sort | tr '\n' ' ')
if [ "$got" = "$want " ]; then
	pass "deb/build: dpkg-buildpackage made $want"
else
	fail deb/build "made '$got', want '$want'"
	exit 1
fi

# --- lintian ------------------------------------------------------------
if lintian -i --fail-on error,warning "$work"/*.changes >"$work/lintian.log" 2>&1; then
	pass "deb/lintian: no error, no warning"
else
	fail deb/lintian "$(grep -E '^[EW]: ' "$work/lintian.log" | head -n 5 | tr '\n' ' ')"
fi

# --- the throwaway root ---------------------------------------------------
root=$work/root
mkdir -p "$work/rw" "$root"
if ! mount -t tmpfs tmpfs "$work/rw"; then
	fail deb/install "cannot mount a tmpfs on $work/rw"
	exit 1
fi
mounted="$work/rw"
mkdir -p "$work/rw/upper" "$work/rw/work"
if ! mount -t overlay overlay -o "lowerdir=/,upperdir=$work/rw/upper,workdir=$work/rw/work" "$root"; then
	fail deb/install "cannot mount an overlay of / on $root"
	exit 1
fi
mounted="$root $mounted"
mount -t proc proc "$root/proc" && mounted="$root/proc $mounted"
mount --bind /dev "$root/dev" && mounted="$root/dev $mounted"
mkdir -p "$root/tmp/deb" "$root/tmp/app"
for p in $want; do cp "$work/${p}_"*.deb "$root/tmp/deb/"; done
cp "$work/src/examples/callback/trace.c" "$root/tmp/app/"

# in_root COMMAND: a shell command in the root, nothing of the tree on
# PATH.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "$1"
}

if in_root 'dpkg -i /tmp/deb/*.deb' >"$work/install.log" 2>&1; then
	pass "deb/install: dpkg -i of the four packages, dependencies met"
else
	fail deb/install "dpkg -i failed: $(tail_of "$work/install.log")"
	exit 1
fi

# --- the README's example, against the installed files --------------------
# Every file the build used, by the path it was found at, belongs to
# one of our packages (dpkg -S): the launcher, the tool beside it, and
# what pkg-config names.
build='set -e; cd /tmp/app
flags=$(pkg-config --cflags --libs mcount)
echo "flags: $flags"
for f in $(command -v recordmcount-cc) $(command -v recordmcount) $(command -v mctrace) \
	$(pkg-config --variable=libdir mcount)/libmcount.a \
	$(pkg-config --variable=includedir mcount)/mcount.h; do
	dpkg -S "$f"
done
recordmcount-cc gcc -O2 -pg -mfentry $(pkg-config --cflags mcount) -c trace.c
gcc -o trace trace.o $(pkg-config --libs mcount)'
if in_root "$build" >"$work/app.log" 2>&1; then
	pass "deb/files: trace.c built with the installed launcher, header and library ($(grep '^flags:' "$work/app.log"))"
else
	fail deb/files "$(tail_of "$work/app.log")"
	exit 1
fi

# square(3) + square(4) = 25 traced, then square(5) = 25 untraced: the
# callback prints one line per traced call (trace.c).
out=$(in_root 'cd /tmp/app && ./trace' 2>&1)
expect="square called from main+"
if [ "$(printf '%s\n' "$out" | grep -c "^$expect")" -eq 2 ] &&
	[ "$(printf '%s\n' "$out" | grep -vc "^$expect")" -eq 2 ] &&
	printf '%s\n' "$out" | grep -qx 25; then
	pass "deb/run: two traced calls of square, 25 twice"
else
	fail deb/run "trace printed: $(printf '%s' "$out" | tr '\n' '|')"
fi

in_root 'cd /tmp/app && mctrace record -o app.data -- ./trace >/dev/null && mctrace report app.data' \
	>"$work/report.log" 2>&1
# Calls is the column before the name.  main runs once; square is
# recorded while it is enabled, as many times as the callback saw it
# (trace.c disables it before its third call): two paths to one count.
calls_of() { awk -v f="$1" '$NF == f { print $(NF - 1) }' "$work/report.log"; }
seen=$(printf '%s\n' "$out" | grep -c "^$expect")
if [ "$(calls_of main)" = 1 ] && [ "$(calls_of square)" = "$seen" ]; then
	pass "deb/trace: mctrace report: main once, square $seen times as the callback saw"
else
	fail deb/trace "report: $(head -n 8 "$work/report.log" | tr '\n' '|')"
fi
grep -q '^FAIL' "$log" && exit 1
exit 0
