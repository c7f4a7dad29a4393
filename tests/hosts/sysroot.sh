#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/hosts/sysroot.sh ARCH DIR [PACKAGE]... - Debian's libelf, zlib
# and Check for the Debian architecture ARCH (s390x, i386), unpacked
# into DIR/sysroot for a static cross link of the tool and its unit
# tests; or, where named, those packages instead (kernel/ftracetest.sh:
# busybox-static for arm64, the ftrace selftests' userland).
#
# No multiarch installation: ARCH is added to dpkg only for the download
# and removed again on any exit (unless it was there before), nothing is
# installed, and each .deb is only unpacked (dpkg -x) into DIR, which
# lives outside the tree (check-hosts passes
# ${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount/hosts/ARCH, the
# convention of kernel/lib.sh's MC_KERNEL_CACHE).  A foreign index that
# fails to update does not stop the run: the download then says what is
# missing.  DIR/sysroot/.complete marks a finished sysroot, which later
# runs reuse as it is.
#
# The package list is what bookworm's libelf1 links against and nothing
# more: libelf.so.1 needs only libz.so.1 (elfutils 0.188 is built
# without zstd, bzip2 or lzma in libelf; `objdump -p` lists its NEEDED
# entries), so libzstd is not fetched.  check needs libsubunit.
set -eu

[ $# -ge 2 ] || { echo "usage: $0 ARCH DIR [PACKAGE]..." >&2; exit 2; }
arch=$1 dir=$2
shift 2
sysroot=$dir/sysroot
packages="libelf-dev libelf1 zlib1g-dev zlib1g check libsubunit-dev libsubunit0"
[ $# -eq 0 ] || packages=$*

[ -e "$sysroot/.complete" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "$0: $arch packages not cached in $dir; fetching them needs root (dpkg --add-architecture)" >&2
	exit 1
fi

added=""
cleanup() {
	[ -z "$added" ] || dpkg --remove-architecture "$arch" ||
		echo "$0: could not remove dpkg architecture $arch" >&2
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
if ! dpkg --print-foreign-architectures | grep -qx "$arch" &&
	[ "$(dpkg --print-architecture)" != "$arch" ]; then
	dpkg --add-architecture "$arch"
	added=1
fi
# Another apt run on the machine holds the lock for a while: wait.
apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 ||
	echo "$0: apt-get update reported errors (continuing: the download says what is missing)" >&2

rm -rf "$dir/debs" "$sysroot"
mkdir -p "$dir/debs" "$sysroot"
list=""
for p in $packages; do list="$list $p:$arch"; done
# shellcheck disable=SC2086 # one argument per package
(cd "$dir/debs" && apt-get download -q $list >&2)
for deb in "$dir"/debs/*.deb; do
	dpkg -x "$deb" "$sysroot"
done
touch "$sysroot/.complete"
echo "$0: $arch sysroot ready in $sysroot" >&2
