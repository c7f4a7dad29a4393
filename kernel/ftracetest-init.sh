#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the ftrace selftests' initramfs (kernel/ftracetest.sh): the
# userland is Debian's busybox-static, the tests the kernel's own
# tools/testing/selftests/ftrace, in /ftrace.  Runs ftracetest on the
# test folders named in /ftrace-dirs and marks its start and end on the
# console for ftracetest.sh; then reboots, which ends QEMU (-no-reboot).
# busybox runs it (rdinit=/bin/busybox -- sh /init): the kernel needs no
# BINFMT_SCRIPT, which tinyconfig leaves off.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /tmp
mount -t sysfs sysfs /sys
mount -t tracefs nodev /sys/kernel/tracing ||
	echo "mcftrace: error=cannot mount tracefs"
echo "mcftrace: start"
cd /ftrace || echo "mcftrace: error=no /ftrace"
# shellcheck disable=SC2046 # one argument per folder
sh ./ftracetest -v -l /tmp/ftracetest-logs $(cat /ftrace-dirs)
echo "mcftrace: done status=$?"
reboot -f
