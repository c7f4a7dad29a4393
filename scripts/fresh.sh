#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# scripts/fresh.sh [TARGET]... - run make TARGETs (default: demo, then
# check: the README's two commands) in a pristine Debian 12 root, as a
# new user on a new machine would, on a clean clone of this repository's
# HEAD.  This is `make check-fresh`, and the first stage of .ci/run.
#
# Why: a green run on a developer's or CI's machine proves nothing about
# packages that were already there (it happened: xxd and QEMU's option
# ROMs).  The root is made by debootstrap --variant=minbase with git,
# make and ca-certificates only, and nothing the project installed:
# every package a target needs, it must install itself: make demo the
# build group, make check the rest.  Before a plain build target (make,
# make install, make firmware), which installs nothing, the run installs
# the build group (scripts/deps.sh build), as its reader would.
#
# The pristine root is made once and kept in the cache (outside the
# tree); every run works on a copy of it, which is removed afterwards,
# with /proc, /sys and /dev bind-mounted for the run and unmounted on
# any exit.  Needs root (debootstrap, chroot, mount).
#
#   MC_FRESH_CACHE   where the pristine root lives
#                    (default ${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount/fresh)
#   FRESH_MAKEFLAGS  extra arguments for every make (CI: WERROR=-Werror)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MC_FRESH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/recordmcount/fresh}
pristine=$cache/bookworm-minbase
suite=bookworm

say() { printf 'fresh: %s\n' "$*" >&2; }
die() { printf 'fresh: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mount)"
[ $# -gt 0 ] || set -- demo check
"$top/scripts/deps.sh" fresh
git -C "$top" rev-parse --verify -q HEAD >/dev/null || die "$top is not a git checkout with a commit"

# --- the pristine root, once ---------------------------------------
if [ ! -f "$pristine/.mc-complete" ]; then
	say "making a pristine Debian $suite root in $pristine (once; a few minutes)"
	rm -rf "$pristine" "$pristine.tmp"
	mkdir -p "$cache"
	debootstrap --variant=minbase --include=git,make,ca-certificates \
		"$suite" "$pristine.tmp" >"$cache/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log: $cache/debootstrap.log)"; }
	date -u '+%Y-%m-%d %H:%M UTC' >"$pristine.tmp/.mc-complete"
	mv "$pristine.tmp" "$pristine"
fi
say "pristine root of $(cat "$pristine/.mc-complete")"

# --- a copy of it for this run ---------------------------------------
run=$(mktemp -d "$cache/run.XXXXXX")
root=$run/root
mounted=""
# Every process whose root is the copy: what a stop must end first.
kill_inside() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] &&
			kill -9 "${p#/proc/}" 2>/dev/null
	done
	return 0
}
cleanup() {
	status=$?
	kill_inside
	# Innermost first; lazily, so that a process still holding a file
	# cannot keep the copy from being removed.
	for m in $mounted; do umount -R -l "$m" 2>/dev/null || true; done
	# Nothing may stay mounted under the copy before it is removed.
	if grep -q " $run/" /proc/mounts; then
		say "still mounted under $run; not removing it"
	else
		rm -rf "$run"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "copying the root"
cp -a "$pristine" "$root"
rm -f "$root/.mc-complete"
# No package may start a service in the root: it would run on this
# machine's network (a chroot has no network of its own), and icecc's
# (make check installs it) starts iceccd, which listens on every
# interface and looks for a scheduler on the LAN.  Debian's way to say
# so, as in its container images: a policy-rc.d that refuses.
printf '#!/bin/sh\n# scripts/fresh.sh: no service starts in this root\nexit 101\n' \
	>"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# The same package sources as this machine (a fresh install of Debian 12
# gets its security and point-release updates too), and its resolver.
if [ -d /etc/apt/sources.list.d ] && ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
	cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
	: >"$root/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

say "cloning $(git -C "$top" rev-parse --short HEAD) into the root"
git clone -q --no-hardlinks "$top" "$root/root/recordmcount"

for fs in proc sys dev; do
	case $fs in
	proc) mount -t proc proc "$root/proc" ;;
	sys) mount -t sysfs sysfs "$root/sys" ;;
	dev) mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" ;;
	esac
	mounted="$root/$fs $mounted"
done

# --- the targets, as root in the new system ----------------------------
steps=""
for t; do
	# Building installs nothing by itself: before make (make install,
	# make firmware), the build group, a compiler, libelf and zlib.
	# make demo and make check install their own: nothing before them.
	case $t in
	all|install|firmware)
		case $steps in *deps.sh*) ;; *)
			steps="$steps && echo '=== scripts/deps.sh build' && scripts/deps.sh build" ;;
		esac ;;
	esac
	steps="$steps && echo '=== make $t' && make ${FRESH_MAKEFLAGS:-} $t"
done
say "running:$(printf ' make %s;' "$@")"
start=$(date +%s)
status=0
# In the background and waited for, so that a stop (INT, TERM) is
# handled at once: a shell runs its traps only between commands.
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/sh -c "cd /root/recordmcount $steps" &
wait $! || status=$?
say "make$(printf ' %s' "$@") in the pristine root: exit $status after $(($(date +%s) - start)) s"
exit "$status"
