# kernel/lib.sh - settings shared by the kernel test scripts (sourced).
#
# Everything big lives in a cache outside the repository, reused
# between runs:
#
#   $MC_KERNEL_CACHE            default ${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount
#     src/linux-source-6.1/     the extracted Debian source, patched (prepare.sh)
#     x86_64/build/             the O= tree of the tinyconfig+ftrace kernel
#     x86_64/capture/           every object as Kbuild handed it to
#                               scripts/recordmcount, before any change
#     x86_64/kernel-recordmcount  the kernel's own tool, built by Kbuild
#     x86_64/boot/              init, initramfs, serial log of the last boot
#     x86_64/debug/build, x86_64/debug/capture
#                               the same with -g, kernel/ and mm/ only: the
#                               benchmark's second corpus
#                               (MC_KERNEL_VARIANT=debug)
#
# Scripts print "PASS: name" / "FAIL: name: reason" and append those
# lines to $TEST_RESULTS/kernel.log when TEST_RESULTS is set.

# shellcheck shell=sh disable=SC2034
MC_KERNEL_CACHE=${MC_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/recordmcount}
KERNEL_SERIES=6.1
KERNEL_TARBALL=/usr/src/linux-source-$KERNEL_SERIES.tar.xz
KERNEL_SRC=$MC_KERNEL_CACHE/src/linux-source-$KERNEL_SERIES
KARCH=x86_64
WORK=$MC_KERNEL_CACHE/$KARCH
MC_KERNEL_VARIANT=${MC_KERNEL_VARIANT:-boot}
case $MC_KERNEL_VARIANT in
boot)
	KBUILD=$WORK/build
	CAPTURE=$WORK/capture
	FRAGMENTS="$KARCH.config"
	TARGETS=bzImage ;;
debug)
	KBUILD=$WORK/debug/build
	CAPTURE=$WORK/debug/capture
	FRAGMENTS="$KARCH.config debug.config"
	TARGETS="kernel/ mm/" ;;
*)
	echo "kernel: MC_KERNEL_VARIANT is boot or debug" >&2
	exit 2 ;;
esac
KERNEL_TOOL=$WORK/kernel-recordmcount
BOOT=$WORK/boot
JOBS=${JOBS:-$(nproc)}

# Debian packages the kernel test, the boot and the benchmark need.
KERNEL_PACKAGES="linux-source-$KERNEL_SERIES qemu-system-x86 make gcc
libc6-dev bc bison flex libssl-dev libelf-dev cpio xz-utils
python3 time binutils"

# The repository root (this file's folder's parent).
MC_TOP=$(cd "$(dirname "$0")/.." && pwd)

note() { printf '%s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

result() {
	printf '%s\n' "$1"
	if [ -n "${TEST_RESULTS:-}" ]; then
		mkdir -p "$TEST_RESULTS" && printf '%s\n' "$1" >>"$TEST_RESULTS/kernel.log"
	fi
}
pass() { result "PASS: $1"; }
fail() { result "FAIL: $1: $2"; }

# Seconds since the epoch, for the phase timings.
now() { date +%s; }
elapsed() { echo "$(( $(now) - $1 ))s"; }

# Installs what is missing as root (saying so), else prints the
# apt-get line and fails: the project's own deps.sh does just that.
need_packages() {
	# shellcheck disable=SC2086 # one argument per package
	"$MC_TOP/scripts/deps.sh" $KERNEL_PACKAGES
}
