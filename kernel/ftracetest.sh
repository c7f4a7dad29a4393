#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/ftracetest.sh TOOL - the kernel's own ftrace selftests
# (tools/testing/selftests/ftrace: ftracetest on test.d/00basic and
# test.d/ftrace) inside two kernels of $MC_KERNEL_ARCH, each booted
# under QEMU: ours, the boot build of check.sh (build.sh: TOOL as
# scripts/recordmcount), and a reference with the same configuration
# whose table the compiler writes as upstream builds it
# (MC_KERNEL_VARIANT=ftracetest-ref, lib.sh: -mrecord-mcount on x86_64,
# -fpatchable-function-entry's pads on arm64).
# Every test that passes on the reference must pass on ours
# (ftracecmp.py); each difference is named.  The userland is Debian's
# busybox-static; ftracetest-init.sh is /init.  Prints PASS/FAIL lines
# and a summary; exits 1 if a check failed.
set -eu
MC_FTRACETEST=yes
export MC_FTRACETEST
. "$(dirname "$0")/lib.sh"

under_test=${1:?usage: ftracetest.sh PATH-TO-OUR-RECORDMCOUNT}
FTRACETEST_TIMEOUT=${FTRACETEST_TIMEOUT:-1200}
# The folders of test.d that run, as the issue asks.
FTRACETEST_DIRS="test.d/00basic test.d/ftrace"

# The target's static busybox: the host's own on x86_64; on arm64
# Debian's busybox-static for arm64, downloaded and unpacked into the
# cache, never installed (tests/hosts/sysroot.sh: dpkg learns arm64
# only for the download, as root).
target_busybox() {
	case $KARCH in
	x86_64) echo /bin/busybox ;;
	arm64)
		dir=$MC_KERNEL_CACHE/busybox/arm64
		"$MC_TOP/tests/hosts/sysroot.sh" arm64 "$dir" busybox-static >&2 ||
			die "ftracetest.sh: could not fetch Debian's busybox-static for arm64 into $dir"
		echo "$dir/sysroot/bin/busybox" ;;
	*) die "ftracetest.sh: no busybox for $KARCH yet (x86_64, arm64)" ;;
	esac
}

# The initramfs: busybox, the selftests in /ftrace, the user and group
# files two of 00basic's tests read, and the init script.
make_initramfs() {
	root=$1/root
	rm -rf "$root" && mkdir -p "$root/bin" "$root/etc"
	cp "$(target_busybox)" "$root/bin/busybox"
	cp -r "$KERNEL_SRC/tools/testing/selftests/ftrace" "$root/ftrace"
	echo "$FTRACETEST_DIRS" >"$root/ftrace-dirs"
	# mount_options.tc and test_ownership.tc take a user and a group
	# other than root's from these (without them both FAIL).
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	python3 "$MC_TOP/kernel/mkcpio.py" "$1/initramfs.cpio" \
		"$MC_TOP/kernel/ftracetest-init.sh" --tree "$root"
}

# ftracetest in one kernel: run_selftests NAME IMAGE FOLDER; the console
# log is FOLDER/serial.log.  busybox runs the init script (rdinit), so
# the kernel needs no BINFMT_SCRIPT.
run_selftests() {
	mkdir -p "$3"
	make_initramfs "$3"
	note "kernel: $1: ftracetest under $QEMU (TCG), log: $3/serial.log"
	start=$(now)
	status=0
	# shellcheck disable=SC2086 # $QEMU is the program and its machine options
	timeout "$FTRACETEST_TIMEOUT" $QEMU -nographic -no-reboot -m 256M \
		-kernel "$2" -initrd "$3/initramfs.cpio" \
		-append "console=$CONSOLE panic=-1 loglevel=1 rdinit=/bin/busybox -- sh /init" \
		</dev/null >"$3/serial.raw" 2>&1 || status=$?
	tr -d '\r' <"$3/serial.raw" >"$3/serial.log"
	note "kernel: $1: QEMU exited after $(elapsed "$start") (status $status)"
	if grep -q '^mcftrace: done' "$3/serial.log"; then
		pass "$NAME-ftracetest-$1-ran"
	else
		fail "$NAME-ftracetest-$1-ran" "ftracetest did not finish (QEMU status $status), see $3/serial.log"
	fi
}

"$MC_TOP/kernel/prepare.sh" || { fail "$NAME-ftracetest-prepare" "could not extract linux-source-$KERNEL_SERIES"; exit 1; }
mkdir -p "$WORK"
cp "$under_test" "$WORK/ftracetest-tool"
tool=$WORK/ftracetest-tool
t0=$(now)
# Ours: the boot build (a no-op where check.sh built it with this tool).
"$MC_TOP/kernel/build.sh" "$tool" || { fail "$NAME-build" "see $WORK/build.log"; exit 1; }
ref_dir=$WORK/ftracetest-ref
if ! MC_KERNEL_VARIANT=ftracetest-ref "$MC_TOP/kernel/build.sh" "$tool"; then
	fail "$NAME-ftracetest-ref-build" "see $ref_dir/build.log"
	exit 1
fi
# The reference's table is the compiler's: Kbuild never ran our wrapper.
if [ -e "$ref_dir/capture/.invocations" ]; then
	fail "$NAME-ftracetest-ref-compiler-table" "Kbuild ran scripts/recordmcount ($ref_dir/capture/.invocations)"
fi
run_selftests ref "$ref_dir/build/$IMAGE" "$ref_dir/run"
run_selftests ours "$KBUILD/$IMAGE" "$WORK/ftracetest"
logs="$ref_dir/run/serial.log $WORK/ftracetest/serial.log"
# shellcheck disable=SC2086 # the two logs
if python3 "$MC_TOP/kernel/ftracecmp.py" $logs >"$WORK/ftracetest-cmp.txt" 2>&1; then
	pass "$NAME-ftracetest-no-regression"
else
	fail "$NAME-ftracetest-no-regression" "$(grep -m 3 -e regression: -e 'did not finish' "$WORK/ftracetest-cmp.txt" | tr '\n' ' ')see $WORK/ftracetest-cmp.txt"
fi
sed 's/^/    /' "$WORK/ftracetest-cmp.txt"
differences=$(grep -c -e '^difference: ' -e '^regression: ' "$WORK/ftracetest-cmp.txt" || true)
result "kernel $KARCH $KCC ftracetest ($FTRACETEST_DIRS): reference $(sed -n 's/^reference: //p' "$WORK/ftracetest-cmp.txt"); ours $(sed -n 's/^ours: *//p' "$WORK/ftracetest-cmp.txt"); $differences differences; $(elapsed "$t0")"
exit "$MC_FAILED"
