#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# vm.sh ARCH - mctrace record -p inside a booted kernel of machine ARCH
# (aarch64, riscv64, x86_64 or i386), where ptrace works as it does not under
# qemu-user (make check-attach-vm, tests/attach/attach.mk):
#
#   RECORDMCOUNT=build/recordmcount VM_MCTRACE=build/attach-vm/ARCH/mctrace \
#   VM_LIBDIR=build/ARCH OUT=build/tests/attach-vm/ARCH CYCLES=20 \
#   sh tests/attach/vm.sh ARCH
#
# 1. The kernel: kernel/build.sh with MC_KERNEL_VARIANT=attach (the
#    boot test's tinyconfig and fragments, then kernel/attach.config:
#    futexes, membarrier), in the kernel cache, reused between runs.
# 2. The VM's userland: /init is vminit.c (the test), /bin/mctrace the
#    static VM_MCTRACE, /lib/libmcount.so.0 from VM_LIBDIR, and in /t
#    target.c built four ways (pads alone, -pg recorded and linked with
#    VM_LIBDIR's libmcount.a, plain, static) and the library its
#    "dlopen" mode loads (dlib.c, pads alone), with the loader and the
#    libraries they need from the cross toolchain's root.
# 3. Boot it under qemu-system (TCG) and report the PASS/FAIL/SKIP
#    lines vminit printed; FAIL if it did not end.  A machine without
#    its cross compiler or qemu-system is one SKIP line.
set -u
arch=${1:?usage: vm.sh aarch64|riscv64|x86_64|i386}
T=tests/attach
OUT=${OUT:-build/tests/attach-vm/$arch}
CYCLES=${CYCLES:-20}
TAG="[attach-vm $arch]"
fails=0
pass() { echo "PASS: $TAG $1"; }
fail() { echo "FAIL: $TAG $1"; fails=$((fails + 1)); }
skip() { echo "SKIP: $TAG $1"; exit 0; }

# Per machine: the kernel's name for it, the pad the runtime takes, the
# hook flags, and where the cross toolchain's libraries are.
case $arch in
aarch64)
	karch=arm64 triple=aarch64-linux-gnu pad=2 hook="-pg"
	sysroot=/usr/aarch64-linux-gnu/lib ;;
riscv64)
	karch=riscv64 triple=riscv64-linux-gnu pad=4 hook="-pg"
	sysroot=/usr/riscv64-linux-gnu/lib ;;
x86_64)
	karch=x86_64 triple=x86_64-linux-gnu pad=5 hook="-pg -mfentry"
	sysroot=/lib/x86_64-linux-gnu ;;
i386)
	# GCC refuses -mfentry with -fpic on i386: the hooks target is no PIE
	karch=i386 triple=i686-linux-gnu pad=5 hook="-pg -mfentry -fno-pie"
	link=-no-pie sysroot=/usr/i686-linux-gnu/lib ;;
*)
	echo "vm.sh: no attach VM for $arch" >&2
	exit 2 ;;
esac
CC=$triple-gcc
[ "$arch" != "$(uname -m)" ] || CC=${HOST_CC:-gcc}
command -v "$CC" > /dev/null || skip "no $CC"

# kernel/lib.sh's settings for that kernel, read in a shell whose $0
# is in kernel/, where lib.sh finds its fragments from
MC_KERNEL_ARCH=$karch MC_KERNEL_VARIANT=attach
export MC_KERNEL_ARCH MC_KERNEL_VARIANT
# (one a line: KERNEL_PACKAGES, which has newlines, last and flattened)
{
	read -r QEMU; read -r KBUILD; read -r IMAGE; read -r CONSOLE
	read -r BOOT_TIMEOUT; read -r CROSS_COMPILE; read -r KERNEL_SRC
	read -r FRAGMENTS; read -r KERNEL_PACKAGES
} <<EOF
$(sh -c '. kernel/lib.sh && printf "%s\n" "$QEMU" "$KBUILD" "$IMAGE" \
	"$CONSOLE" "$BOOT_TIMEOUT" "$CROSS_COMPILE" "$KERNEL_SRC" \
	"$FRAGMENTS" && echo $KERNEL_PACKAGES' kernel/vm.sh)
EOF
qemu=${QEMU%% *}
command -v "$qemu" > /dev/null || skip "no $qemu"

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
# VM_NO_BOOT=1: the userland alone, in $OUT/root (to try vminit in a
# chroot of the host's machine, x86_64), no kernel.
# The kernel harness's packages (kernel/lib.sh's list), as check.sh asks
# shellcheck disable=SC2086 # one argument per package
if [ -z "${VM_NO_BOOT:-}" ] && ! scripts/deps.sh $KERNEL_PACKAGES > "$OUT/deps.log" 2>&1; then
	fail "the kernel harness's packages are missing: $(tail -1 "$OUT/deps.log")"
	exit 1
fi
# The kernel is only the stage here: one built by an earlier run with
# the same configuration (build.sh's id of the fragments) is booted as
# it is, even if recordmcount changed since, which would make build.sh
# compile every object again.  ATTACH_VM_REBUILD=1: build.sh anyway.
# shellcheck disable=SC2086 # one argument per fragment
config_id=$(cd kernel && cat $FRAGMENTS "$KERNEL_SRC/.mc-extracted" 2>/dev/null |
	sha256sum | cut -c1-16)
# (an image older than .config is from before the configuration: a
# build that stopped, or started from a copy of the boot build's tree)
if [ -f "$KBUILD/$IMAGE" ] && [ -z "${ATTACH_VM_REBUILD:-}" ] &&
   [ "$KBUILD/$IMAGE" -nt "$KBUILD/.config" ] &&
   [ "$(cat "$KBUILD/.mc-config-id" 2>/dev/null)" = "$config_id" ]; then
	echo "$TAG reusing the kernel in $KBUILD (ATTACH_VM_REBUILD=1 builds it again)"
elif [ -z "${VM_NO_BOOT:-}" ] &&
   ! kernel/build.sh "$RECORDMCOUNT" > "$OUT/kernel.log" 2>&1; then
	fail "the attach kernel did not build: $(tail -1 "$OUT/kernel.log")"
	exit 1
fi

root=$OUT/root
mkdir -p "$root/bin" "$root/lib" "$root/t" "$root/tmp"
build() {
	$CC -O2 -pthread -fpatchable-function-entry=$pad -o "$root/t/pads" \
		$T/target.c &&
	$CC -O2 -fPIC -shared -fpatchable-function-entry=$pad \
		-o "$root/t/libdl.so" $T/dlib.c &&
	$CC -O2 -pthread -o "$root/t/plain" $T/target.c &&
	$CC -O2 -pthread -static -fpatchable-function-entry=$pad \
		-o "$root/t/static" $T/target.c &&
	$CC -O2 $hook -c -o "$OUT/hooks.o" $T/target.c &&
	"$RECORDMCOUNT" "$OUT/hooks.o" &&
	$CC -pthread ${link:-} -o "$root/t/hooks" "$OUT/hooks.o" \
		-Wl,-T,lds/mcount.lds "$VM_LIBDIR/libmcount.a" &&
	$CC -static -O2 -Wall -Wextra -o "$OUT/init" $T/vminit.c &&
	cp "$VM_MCTRACE" "$root/bin/mctrace" &&
	cp "$VM_LIBDIR/libmcount.so.0" "$root/lib/"
}
if ! build > "$OUT/build.log" 2>&1; then
	fail "cannot build the VM's userland: $(tail -1 "$OUT/build.log")"
	exit 1
fi

# needed FILE...: the libraries they need, and those the libraries
# need, copied from the toolchain's root into /lib; the loader to the
# path the programs name (vminit points LD_LIBRARY_PATH at /lib)
needed() {
	for f; do
		${CROSS_COMPILE}readelf -d "$f" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
	done | sort -u | while read -r lib; do
		[ -e "$root/lib/$lib" ] && continue
		cp -L "$sysroot/$lib" "$root/lib/$lib" || exit 1
		needed "$root/lib/$lib"
	done
}
interp=$(${CROSS_COMPILE}readelf -l "$root/t/pads" |
	sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
if ! needed "$root/t/pads" "$root/t/hooks" "$root/lib/libmcount.so.0" ||
   [ -z "$interp" ] || ! mkdir -p "$root$(dirname "$interp")" ||
   ! cp -L "$sysroot/$(basename "$interp")" "$root$interp"; then
	fail "cannot copy the loader and libraries from $sysroot"
	exit 1
fi
python3 kernel/mkcpio.py "$OUT/initramfs.cpio" "$OUT/init" --tree "$root" ||
	exit 1
if [ -n "${VM_NO_BOOT:-}" ]; then
	cp "$OUT/init" "$root/init"
	echo "$TAG the userland is in $root (VM_NO_BOOT)"
	exit 0
fi

# Two CPUs where the kernel has SMP (arm64): the threads then run on
# both while the runtime patches, as membarrier's SYNC_CORE is for.
smp=1
! grep -q '^CONFIG_SMP=y' "$KBUILD/.config" || smp=2
start=$(date +%s)
# shellcheck disable=SC2086 # $QEMU is the program and its machine options
# The boot's own time (lib.sh's, for the boot test) and the test's: the
# i386 guest (TCG, one CPU) took over 180 s for the test alone.
timeout $((BOOT_TIMEOUT + 600)) $QEMU -nographic -no-reboot -m 512M -smp $smp \
	-kernel "$KBUILD/$IMAGE" -initrd "$OUT/initramfs.cpio" \
	-append "console=$CONSOLE panic=-1 attach_cycles=$CYCLES" \
	< /dev/null > "$OUT/serial.raw" 2>&1
status=$?
tr -d '\r' < "$OUT/serial.raw" > "$OUT/serial.log"
echo "$TAG QEMU ($smp CPU) ended after $(($(date +%s) - start)) s (status $status), log: $OUT/serial.log"
grep -E '^(PASS|FAIL|SKIP): ' "$OUT/serial.log"
fails=$(grep -c '^FAIL: ' "$OUT/serial.log")
if ! grep -q '^attach-vm: done' "$OUT/serial.log"; then
	fail "the VM's test did not finish: $(grep -v '^\s*$' "$OUT/serial.log" | tail -1)"
fi
# a failed run's log kept apart: the next run writes serial.log again,
# and a rare failure's evidence would go with it
if [ "$fails" -ne 0 ]; then
	kept="$OUT/serial-failed-$(date -u +%Y%m%dT%H%M%S).log"
	cp "$OUT/serial.log" "$kept" && echo "$TAG this run's log kept as $kept"
fi
[ "$fails" -eq 0 ]
