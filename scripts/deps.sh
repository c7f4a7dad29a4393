#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# scripts/deps.sh [GROUP|PACKAGE]... - make sure the Debian packages a
# make target needs are present.  As root, install what is missing (and
# say so); as anyone else, print the exact apt-get line for just the
# missing packages and fail.  With no dpkg-query (not Debian), name the
# packages and succeed.
#
# make deps, make demo and every test and benchmark target ask for their
# group before they build anything (the top of the Makefile), so each
# works as the first command on a fresh Debian 12 machine; building
# (make, make install) never asks: it needs the build group only.
# Arguments are group names (below) or Debian package names; none means
# "check".
#
#   build     the tool and the runtime library (make, make install)
#   demo      what make demo needs: the build group, nothing more
#   firmware  the bare-metal images and their QEMU boards
#   check     every test suite of make check (and check-tool,
#             check-valgrind, bench)
#   fresh     make check-fresh: a pristine Debian root to run it in
#   deb       make check-deb: build the Debian packages (debian/) and
#             check them with lintian
# The kernel scripts pass their own list (kernel/lib.sh).
#
#   scripts/deps.sh --list [GROUP|PACKAGE]...  prints the packages, one a
#   line, and installs nothing (tests/deps checks the commands the
#   project's scripts call against them).
set -eu

build="make gcc libc6-dev libelf-dev zlib1g-dev pkg-config binutils"

firmware="$build python3 gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
qemu-system-arm qemu-system-misc"

# i386 code comes from Debian's i686 cross compiler, not gcc-multilib,
# which conflicts with every other cross compiler; libc6-i386 lets the
# tests run what it links.  The other cross compilers (and their C
# libraries, for programs run under qemu-user) test every architecture.
# xxd: the runtime suite reads patched bytes back with it; cmake to
# icecc: the build systems check-integrate tries the launcher in, and
# iproute2 for its icecream case (ip brings up the loopback of the
# network namespace the daemons run in).  The kernel
# harness check (check-harness) asks for the kernel's own list itself.
# clang 14 and 16 are the second compiler family of every suite; clang
# with libclang-rt builds the libFuzzer targets (fuzz/).  llvm-16's
# llvm-mc, llvm-objdump and llvm-readelf are LoongArch's oracles (Debian
# 12 has no LoongArch binutils; LLVM 14's tools lack the target), and
# lld-16's ld.lld-16 -r makes its relocatable modules for --finalize.  check-hosts
# builds the tool statically for s390x and i386 with the s390x and i686
# cross compilers and their C libraries (both below) and runs it under
# qemu-user; the hosts' libelf, zlib and Check are unpacked from Debian's
# own packages into a cache (tests/hosts/sysroot.sh), never installed;
# so is arm64's busybox-static for the ftrace selftests
# (kernel/ftracetest.sh; x86_64's busybox-static is installed, through
# kernel/lib.sh's list).
# check-link links with every linker Debian ships (GNU ld and gold come
# with binutils, in the build group; lld; mold) and builds googletest
# from its source.  uftrace: check-trace compares its call graph with
# uftrace's, and make bench times both recorders on the same object
# code, in CPU time from perf's task-clock (linux-perf; without it,
# time's 10 ms steps, too coarse for a per-call figure).  The
# cross g++ compilers: check-solib's C++ library on each backend (and
# clang++ --target finds their libstdc++ headers).
# chromium: check-trace opens mctrace's flame graph in it, headless, and
# reads back what the graph's script did.
# protobuf-compiler: check-trace decodes mctrace's Perfetto traces with
# protoc against our own statement of their fields.
# dpkg-dev: check-zlib unpacks Debian's zlib source with dpkg-source
# (tests/zlib/fetch.sh downloads it with apt-get into a cache of its
# own, outside the tree; nothing is installed).
check="$firmware git g++ check clang clang-16 llvm-16 lld-16 libclang-rt-14-dev lld mold googletest
gcc-i686-linux-gnu g++-i686-linux-gnu libc6-dev-i386-cross libc6-i386
valgrind xxd cmake meson ninja-build ccache distcc icecc iproute2
gcc-arm-linux-gnueabihf
gcc-powerpc64le-linux-gnu gcc-powerpc64-linux-gnu gcc-powerpc-linux-gnu
gcc-s390x-linux-gnu gcc-mips-linux-gnu gcc-mips64el-linux-gnuabi64
gcc-sparc64-linux-gnu gcc-sh4-linux-gnu
libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-riscv64-cross
libc6-dev-ppc64el-cross libc6-dev-s390x-cross qemu-user uftrace linux-perf
dpkg-dev protobuf-compiler g++-aarch64-linux-gnu g++-arm-linux-gnueabihf g++-riscv64-linux-gnu
g++-powerpc64le-linux-gnu g++-s390x-linux-gnu chromium"

fresh="debootstrap git"

# dpkg-buildpackage (dpkg-dev) runs debian/rules under fakeroot, with
# debhelper's dh; git clones HEAD for a clean build; lintian checks the
# packages.
deb="$build git dpkg-dev debhelper fakeroot lintian"

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -gt 0 ] || set -- check
packages=""
for arg; do
	case $arg in
	build|demo) packages="$packages $build" ;;
	firmware) packages="$packages $firmware" ;;
	check) packages="$packages $check" ;;
	fresh) packages="$packages $fresh" ;;
	deb) packages="$packages $deb" ;;
	*) packages="$packages $arg" ;;
	esac
done

if [ "$list" -eq 1 ]; then
	printf '%s\n' $packages | sort -u
	exit 0
fi

# Not Debian (no dpkg-query): name the packages, for the reader to find
# under their own distribution's names, and go on; a suite whose tool
# is missing then fails or skips by itself.  Never an error: this runs
# before the test targets, which must still run where they can.
if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: no dpkg-query here (not Debian): nothing installed. These Debian" >&2
	echo "deps: packages are what the targets use; install their equivalents:" >&2
	# shellcheck disable=SC2086 # one package a word
	printf '%s\n' $packages | sort -u | tr '\n' ' ' | fold -s -w 72 | sed 's/^/deps:   /' >&2
	echo >&2
	exit 0
fi

# One dpkg-query for all of them: this runs before every test target.
# shellcheck disable=SC2086 # one argument per package
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $packages 2>/dev/null |
	awk '$NF == "installed" { print $1 }')
missing=""
for p in $packages; do
	case " $missing " in *" $p "*) continue ;; esac
	echo "$installed" | grep -qx -- "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "recordmcount needs these Debian packages; please run:" >&2
	echo "  sudo apt-get install$missing" >&2
	exit 1
fi
echo "Installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# The packages are tools for the tests, not services: icecc's postinst
# would start iceccd, which listens on every interface and looks for a
# scheduler on the network.  While installing, a policy-rc.d that
# refuses keeps every service from starting (Debian's way, as in its
# container images), unless the machine already has one of its own.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
	own_policy=1
	trap 'rm -f "$policy"' EXIT
	trap 'exit 130' INT TERM
	printf '#!/bin/sh\n# scripts/deps.sh: no service starts while it installs\nexit 101\n' >"$policy"
	chmod 755 "$policy"
fi
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ "$own_policy" -eq 0 ] || rm -f "$policy"
# ...nor at the next boot: the test starts its own daemons on 127.0.0.1.
case " $missing " in
*" icecc "*)
	if command -v systemctl >/dev/null 2>&1 &&
		systemctl is-enabled iceccd.service >/dev/null 2>&1; then
		systemctl disable iceccd.service >/dev/null 2>&1 &&
			echo "deps: iceccd (icecream's daemon) disabled at boot; the tests start their own" >&2
	fi ;;
esac
