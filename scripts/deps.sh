#!/bin/sh
# Make sure the Debian packages the build and the tests use are present.
# As root, install what is missing (and say so); as anyone else, print
# the exact apt-get line and fail.  Extra package names may be passed.
set -eu

# i386 code comes from Debian's i686 cross compiler, not gcc-multilib,
# which conflicts with every other cross compiler; libc6-i386 lets the
# tests run what it links.  The other cross compilers (and their C
# libraries, for programs run under qemu-user) test every architecture.
# clang with libclang-rt builds the libFuzzer targets (fuzz/).
packages="make gcc g++ libc6-dev libelf-dev zlib1g-dev check pkg-config binutils
gcc-i686-linux-gnu g++-i686-linux-gnu libc6-dev-i386-cross libc6-i386
python3 valgrind
gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-riscv64-linux-gnu
gcc-powerpc64le-linux-gnu gcc-powerpc64-linux-gnu gcc-powerpc-linux-gnu
gcc-s390x-linux-gnu gcc-mips-linux-gnu gcc-mips64el-linux-gnuabi64
gcc-sparc64-linux-gnu gcc-sh4-linux-gnu
libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-riscv64-cross
libc6-dev-ppc64el-cross libc6-dev-s390x-cross qemu-user
qemu-system-misc qemu-system-arm
clang libclang-rt-14-dev
$*"

missing=""
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "recordmcount needs these Debian packages; please run:" >&2
	echo "  sudo apt-get install$missing" >&2
	exit 1
fi
echo "Installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
