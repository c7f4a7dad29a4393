#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/harness/run.sh TOOL - the kernel harness on an empty cache.
#
# check-kernel keeps its kernel source and build trees in a cache that
# survives between runs, so a step that only goes wrong on the first run
# (extraction into an empty cache, or after a new linux-source package)
# is never seen on a developer's machine.  This runs kernel/check.sh for
# x86_64 against a new, empty MC_KERNEL_CACHE and stops it once the
# kernel is configured (MC_KERNEL_STOP=configured): far enough to see
# that the source was extracted and patched, that the tool under test
# survived preparation, and that Kbuild was configured to call
# scripts/recordmcount.  The cache is removed afterwards.
set -u
tool=$(realpath "${1:?usage: run.sh TOOL}")
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TEST_RESULTS:-.}/harness.log

pass() { echo "PASS: $1" | tee -a "$log"; }
failed=0
fail() { echo "FAIL: $1: $2" | tee -a "$log"; failed=1; }

cache=$(mktemp -d "${TMPDIR:-/tmp}/recordmcount-harness.XXXXXX")
trap 'rm -rf "$cache"' EXIT INT TERM
out=$cache/check.out
status=0
MC_KERNEL_CACHE=$cache MC_KERNEL_ARCH=x86_64 MC_KERNEL_CC=gcc MC_KERNEL_STOP=configured \
	TEST_RESULTS= "$top/kernel/check.sh" "$tool" >"$out" 2>&1 || status=$?

# kernel/lib.sh's series (6.12 by default; KERNEL_SERIES=6.1 too) and
# where it keeps that series's x86_64 build and source; 6.12's Kconfig
# carries a third MC_NO_FTRACE_WITH_REGS line (prepare.sh: WITH_ARGS),
# its fs/fcntl.c sparc's assertion, sh's vsyscall Makefile its
# target's name put right, riscv's fpu.S the alignment clang 14 needs
# and mm/maccess.c i386 clang's guard (prepare.sh: edit_sparc_fcntl,
# edit_sh_vsyscall, edit_riscv_fpu, edit_i386_clang_maccess).
series=${KERNEL_SERIES:-6.12}
case $series in
6.1) work=$cache/x86_64 no_regs_lines=2 build_edits=0 ;;
*) work=$cache/linux-$series/x86_64 no_regs_lines=3 build_edits=1 ;;
esac
src=$cache/src/linux-source-$series
if [ "$status" -eq 0 ] && grep -q '^PASS: kernel-x86_64-configured-tool-kept$' "$out"; then
	pass harness-empty-cache-check-sh
else
	fail harness-empty-cache-check-sh "exit $status: $(grep -e FAIL -e error "$out" | head -n 2 | tr '\n' ' ')"
fi
# Checked here too, not only by the harness itself.
if cmp -s "$tool" "$work/recordmcount-under-test"; then
	pass harness-empty-cache-tool-survives-prepare
else
	fail harness-empty-cache-tool-survives-prepare "$work/recordmcount-under-test missing or different"
fi
if [ -f "$src/.mc-extracted" ] &&
	[ "$(grep -c MC_NEVER_DEFINED "$src/kernel/trace/Kconfig")" -eq 2 ] &&
	[ "$(grep -c MC_NO_FTRACE_WITH_REGS "$src/kernel/trace/Kconfig")" -eq "$no_regs_lines" ] &&
	[ "$(grep -c '__FMODE_NONOTIFY != __O_TMPFILE' "$src/fs/fcntl.c")" -eq "$build_edits" ] &&
	[ "$(grep -c 'vsyscall-trapa.so # recordmcount test' "$src/arch/sh/kernel/vsyscall/Makefile")" -eq "$build_edits" ] &&
	[ "$(grep -c '^\.balign 4 /\* recordmcount test' "$src/arch/riscv/kernel/fpu.S")" -eq "$build_edits" ] &&
	[ "$(grep -c 'recordmcount test: "=a" of a u64' "$src/mm/maccess.c")" -eq "$build_edits" ]; then
	pass harness-empty-cache-source-extracted-and-patched
else
	fail harness-empty-cache-source-extracted-and-patched "no patched source in $cache/src"
fi
config=$work/build/.config
if grep -qx 'CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y' "$config" 2>/dev/null &&
	grep -qx 'CONFIG_DYNAMIC_FTRACE=y' "$config"; then
	pass harness-empty-cache-kbuild-configured-for-recordmcount
else
	fail harness-empty-cache-kbuild-configured-for-recordmcount "see $config"
fi
if [ "$status" -ne 0 ]; then
	sed 's/^/    /' "$out" | tail -n 20
fi

# lib.sh's FTRACE_BLOCKER (ppc32 with clang on 6.12): the same source
# read, nothing built while arch/powerpc/Kconfig still keeps the
# function tracer from PPC32 with clang; with that line gone, the build
# goes on (stopped here once prepared: it would install ppc32's
# cross tools).
if [ "$series" != 6.1 ]; then
	blocked() {
		MC_KERNEL_CACHE=$cache MC_KERNEL_ARCH=ppc32 MC_KERNEL_CC=clang MC_KERNEL_STOP=prepared \
			TEST_RESULTS= "$top/kernel/check.sh" "$tool" >"$cache/ppc32.out" 2>&1
	}
	ppc_status=0
	blocked || ppc_status=$?
	if [ "$ppc_status" -eq 0 ] &&
		grep -q '^PASS: kernel-ppc32-clang-ftrace-blocker-holds$' "$cache/ppc32.out" &&
		grep -q '^SKIP: kernel-ppc32-clang-build: Linux .* offers no function tracer on PPC32' "$cache/ppc32.out" &&
		[ ! -e "$cache/linux-$series/ppc32-clang" ]; then
		pass harness-ftrace-blocker-skips-ppc32-clang
	else
		fail harness-ftrace-blocker-skips-ppc32-clang "exit $ppc_status: $(tail -n 2 "$cache/ppc32.out" | tr '\n' ' ')"
	fi
	sed -i 's/(PPC32 && CC_IS_GCC)$/PPC32/' "$src/arch/powerpc/Kconfig"
	ppc_status=0
	blocked || ppc_status=$?
	if [ "$ppc_status" -eq 0 ] &&
		! grep -q -e '^SKIP' -e '^PASS' "$cache/ppc32.out" &&
		grep -q '^kernel: arch/powerpc/Kconfig no longer has the line' "$cache/ppc32.out" &&
		grep -q '^kernel: stopped once prepared$' "$cache/ppc32.out"; then
		pass harness-ftrace-blocker-gone-builds
	else
		fail harness-ftrace-blocker-gone-builds "exit $ppc_status: $(tail -n 2 "$cache/ppc32.out" | tr '\n' ' ')"
	fi
fi
exit "$failed"
