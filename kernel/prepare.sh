#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/prepare.sh - extract Debian's linux-source-SERIES (lib.sh's
# KERNEL_SERIES: 6.12 or 6.1) into the cache
# (once per package version) and make its Kconfig pick recordmcount.
#
# Why the edit: on x86 with GCC >= 5, kernel/trace/Kconfig turns on
# FTRACE_MCOUNT_USE_CC (the compiler's -mrecord-mcount writes the
# table) and, failing that, FTRACE_MCOUNT_USE_OBJTOOL (objtool --mcount
# writes it).  FTRACE_MCOUNT_USE_RECORDMCOUNT, the path that runs
# scripts/recordmcount on every object, is chosen only when both are
# off, and neither has a prompt.  So one line, "depends on
# MC_NEVER_DEFINED", is added to each of those two entries: an
# undefined symbol is n, the two options go away, recordmcount is
# chosen, and nothing else changes.  build.sh checks the .config.
#
# A second edit, for arm64: there, with a compiler that takes
# -fpatchable-function-entry=2 (GCC 12 does), Kconfig turns on
# DYNAMIC_FTRACE_WITH_REGS (def_bool y, no prompt: no config line can
# turn it off), arch/arm64/Makefile then sets CC_FLAGS_FTRACE to
# -fpatchable-function-entry=2 instead of -pg, and arm64's Kconfig
# selects FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY: the compiler
# writes the table and Kbuild never calls scripts/recordmcount.  6.1
# still has the -pg path (arch/arm64/kernel/entry-ftrace.S: "bl
# _mcount", patched by ftrace_make_nop/call) for when that option is
# off.  So a prompted option is added, MC_NO_FTRACE_WITH_REGS, default
# n, and DYNAMIC_FTRACE_WITH_REGS depends on its being off:
# arm64.config turns it on and gets the -pg build; every other
# configuration, and a future arm64 build that wants the
# patchable-entry path, is unchanged.  A prompt rather than
# "depends on MC_NEVER_DEFINED" keeps both arm64 builds possible from
# the one shared source.
#
# From 6.2 on, arm64's patchable-entry path hangs on
# DYNAMIC_FTRACE_WITH_ARGS, not WITH_REGS: on 6.12 the same option also
# keeps WITH_ARGS off (a third line), and the -pg path of
# entry-ftrace.S ("bl _mcount") is what is left, as in 6.1.
#
# A third, for s390 and sh: they do not select HAVE_C_RECORDMCOUNT, so
# Kbuild would run scripts/recordmcount.pl (perl over objdump's output)
# instead of the program scripts/recordmcount our wrapper replaces.  A
# prompted option, MC_C_RECORDMCOUNT (default n), selects
# HAVE_C_RECORDMCOUNT; s390x.config and sh4.config turn it on, and
# nothing else changes.  (On s390 6.1 itself never runs either: GCC's
# -mrecord-mcount -mnop-mcount writes the table, which the first edit
# turns off.)
#
# A fourth, on 6.12, for riscv: edit_riscv_kconfig says why; a fifth,
# on 6.12, for 32-bit powerpc: edit_powerpc_kconfig; four more, on
# 6.12, for sparc's and sh's builds and riscv's and i386's with clang,
# not their Kconfig: edit_sparc_fcntl, edit_sh_vsyscall,
# edit_riscv_fpu, edit_i386_clang_maccess.
#
# The edits are made idempotently, also on a tree extracted before an
# edit was added here, so that adding one does not throw away the
# other architectures' build trees (build.sh's config id holds the
# stamp, the package version).
set -eu
. "$(dirname "$0")/lib.sh"

if [ -n "$FTRACE_BLOCKER" ]; then
	need_source_packages
else
	need_packages
fi

version=$(dpkg-query -W -f='${Version}' "linux-source-$KERNEL_SERIES")
stamp=$KERNEL_SRC/.mc-extracted

# The Kconfig edits, each made once (a marker comment says it is there).
edit_kconfig() {
	kconfig=$KERNEL_SRC/kernel/trace/Kconfig
	if ! grep -q MC_NEVER_DEFINED "$kconfig"; then
		for opt in FTRACE_MCOUNT_USE_CC FTRACE_MCOUNT_USE_OBJTOOL; do
			grep -q "^config $opt\$" "$kconfig" || die "$kconfig has no $opt"
			sed -i "/^config $opt\$/a\\
	depends on MC_NEVER_DEFINED # recordmcount test: use scripts/recordmcount" \
				"$kconfig"
		done
	fi
	[ "$(grep -c MC_NEVER_DEFINED "$kconfig")" -eq 2 ] || die "Kconfig edit failed"
	edit_reference_kconfig
	# From 6.2 arm64 takes the patchable-entry path through
	# DYNAMIC_FTRACE_WITH_ARGS instead (arch/arm64/Kconfig selects
	# FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY if it is on): the same
	# option keeps that one off too.  6.1 is left as it was, so that its
	# build trees do not see a changed Kconfig.
	no_regs_lines=2
	if [ "$KERNEL_SERIES" != 6.1 ]; then
		no_regs_lines=3
		if ! grep -q 'depends on !MC_NO_FTRACE_WITH_REGS # .*WITH_ARGS' "$kconfig"; then
			grep -q '^config DYNAMIC_FTRACE_WITH_ARGS$' "$kconfig" ||
				die "$kconfig has no DYNAMIC_FTRACE_WITH_ARGS"
			sed -i '/^config DYNAMIC_FTRACE_WITH_ARGS$/a\
	depends on !MC_NO_FTRACE_WITH_REGS # recordmcount test (arm64 -pg build, WITH_ARGS)' \
				"$kconfig"
		fi
	fi
	if ! grep -q '^config MC_NO_FTRACE_WITH_REGS$' "$kconfig"; then
		grep -q '^config DYNAMIC_FTRACE_WITH_REGS$' "$kconfig" ||
			die "$kconfig has no DYNAMIC_FTRACE_WITH_REGS"
		sed -i '/^config DYNAMIC_FTRACE_WITH_REGS$/{
i\
config MC_NO_FTRACE_WITH_REGS\
	bool "recordmcount test: -pg and scripts/recordmcount, not DYNAMIC_FTRACE_WITH_REGS"\
	help\
	  Added by the recordmcount project'"'"'s kernel/prepare.sh: keeps\
	  DYNAMIC_FTRACE_WITH_REGS off, so that arm64 builds with -pg and\
	  Kbuild runs scripts/recordmcount.\

a\
	depends on !MC_NO_FTRACE_WITH_REGS # recordmcount test (arm64 -pg build)
}' "$kconfig"
	fi
	[ "$(grep -c MC_NO_FTRACE_WITH_REGS "$kconfig")" -eq "$no_regs_lines" ] ||
		die "Kconfig edit (MC_NO_FTRACE_WITH_REGS) failed"
	if ! grep -q '^config MC_C_RECORDMCOUNT$' "$kconfig"; then
		grep -q '^config HAVE_C_RECORDMCOUNT$' "$kconfig" ||
			die "$kconfig has no HAVE_C_RECORDMCOUNT"
		sed -i '/^config HAVE_C_RECORDMCOUNT$/i\
config MC_C_RECORDMCOUNT\
	bool "recordmcount test: the C scripts/recordmcount, not recordmcount.pl"\
	select HAVE_C_RECORDMCOUNT\
	help\
	  Added by the recordmcount project'"'"'s kernel/prepare.sh: makes\
	  Kbuild run scripts/recordmcount on an architecture that does not\
	  select HAVE_C_RECORDMCOUNT itself (s390, sh).\
' "$kconfig"
	fi
	[ "$(grep -c MC_C_RECORDMCOUNT "$kconfig")" -eq 1 ] || die "Kconfig edit (MC_C_RECORDMCOUNT) failed"
	edit_arm64_kconfig
	edit_riscv_kconfig
	edit_powerpc_kconfig
	edit_sparc_fcntl
	edit_sh_vsyscall
	edit_riscv_fpu
	edit_i386_clang_maccess
}

# On 6.12 the ftrace selftests compare our kernel with one whose table
# the compiler wrote (ftracetest.sh): on x86 that is -mrecord-mcount,
# which the first edit turns off in the one shared source.  A prompted
# option, MC_COMPILER_TABLE (default n), gives both of that edit's
# entries back their upstream meaning where it is on (the reference
# build's fragment, x86_64-ftracetest-ref.config); everywhere else
# nothing changes.  6.1 is left as it was.
edit_reference_kconfig() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	if ! grep -q '^config MC_COMPILER_TABLE$' "$kconfig"; then
		sed -i -e 's/^	depends on MC_NEVER_DEFINED # recordmcount test: use scripts\/recordmcount$/	depends on MC_NEVER_DEFINED || MC_COMPILER_TABLE # recordmcount test: use scripts\/recordmcount/' \
			-e '/^config FTRACE_MCOUNT_USE_CC$/i\
config MC_COMPILER_TABLE\
	bool "recordmcount test: the reference build, whose table the compiler writes"\
	help\
	  Added by the recordmcount project'"'"'s kernel/prepare.sh: lets\
	  FTRACE_MCOUNT_USE_CC and _OBJTOOL be chosen as upstream does, for\
	  the reference kernel of the ftrace selftests.\
' "$kconfig"
	fi
	[ "$(grep -c 'MC_NEVER_DEFINED || MC_COMPILER_TABLE' "$kconfig")" -eq 2 ] &&
		[ "$(grep -c '^config MC_COMPILER_TABLE$' "$kconfig")" -eq 1 ] ||
		die "Kconfig edit (MC_COMPILER_TABLE) failed"
}

# On 6.12 arm64's headers need HAVE_DYNAMIC_FTRACE_WITH_ARGS off as well
# as DYNAMIC_FTRACE_WITH_ARGS: with the first on and the second off,
# asm/ftrace.h defines no arch_ftrace_get_regs() and linux/ftrace.h
# provides none either (asm-offsets.c stops there).  arm64 selects it
# when the compiler takes -fpatchable-function-entry, so
# MC_NO_FTRACE_WITH_REGS makes Kconfig take GCC and clang for compilers
# that do not: the configuration upstream builds with -pg for them.
edit_arm64_kconfig() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	a64=$KERNEL_SRC/arch/arm64/Kconfig
	if ! grep -q MC_NO_FTRACE_WITH_REGS "$a64"; then
		for opt in GCC_SUPPORTS_DYNAMIC_FTRACE_WITH_ARGS CLANG_SUPPORTS_DYNAMIC_FTRACE_WITH_ARGS; do
			grep -q "^config $opt\$" "$a64" || die "$a64 has no $opt"
			sed -i "/^config $opt\$/a\\
	depends on !MC_NO_FTRACE_WITH_REGS # recordmcount test (arm64 -pg build)" "$a64"
		done
	fi
	[ "$(grep -c MC_NO_FTRACE_WITH_REGS "$a64")" -eq 2 ] || die "Kconfig edit of $a64 failed"
}

# From 6.6 riscv selects FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY with
# DYNAMIC_FTRACE: the linker gathers the compiler's own tables and
# Kbuild runs no recordmcount.  Where MC_C_RECORDMCOUNT is on
# (riscv64.config) the select is dropped, and recordmcount moves the
# pads into __mcount_loc, as on 6.1, which never selected it.
edit_riscv_kconfig() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	rv=$KERNEL_SRC/arch/riscv/Kconfig
	select='select FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY if DYNAMIC_FTRACE'
	if ! grep -q MC_C_RECORDMCOUNT "$rv"; then
		grep -q "^	$select\$" "$rv" || die "$rv has no \"$select\""
		sed -i "s/^	$select\$/	$select \&\& !MC_C_RECORDMCOUNT # recordmcount test/" "$rv"
	fi
	[ "$(grep -c MC_C_RECORDMCOUNT "$rv")" -eq 1 ] || die "Kconfig edit of $rv failed"
}

# From 6.6 powerpc selects FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY
# through ARCH_USING_PATCHABLE_FUNCTION_ENTRY (def_bool y on PPC32
# wherever the compiler takes -fpatchable-function-entry, as GCC 12
# does): the compiler writes the table and Kbuild runs no recordmcount.
# 6.12 keeps PPC32's -pg path ("mflr r0; stw r0, 4(r1); bl _mcount",
# ftrace_init_nop in arch/powerpc/kernel/trace/ftrace.c).  Where
# MC_C_RECORDMCOUNT is on (ppc32-6.12.config) the option is off, so
# CC_FLAGS_FTRACE is -pg and recordmcount writes the table, as on 6.1.
# ppc64le builds with -mprofile-kernel, where GCC 12 fails the
# option's own check (gcc-check-fpatchable-function-entry.sh), and
# leaves MC_C_RECORDMCOUNT off: unchanged.
edit_powerpc_kconfig() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	ppc=$KERNEL_SRC/arch/powerpc/Kconfig
	if ! grep -q MC_C_RECORDMCOUNT "$ppc"; then
		grep -q '^config ARCH_USING_PATCHABLE_FUNCTION_ENTRY$' "$ppc" ||
			die "$ppc has no ARCH_USING_PATCHABLE_FUNCTION_ENTRY"
		sed -i '/^config ARCH_USING_PATCHABLE_FUNCTION_ENTRY$/a\
	depends on !MC_C_RECORDMCOUNT # recordmcount test (ppc32 -pg build)' "$ppc"
	fi
	[ "$(grep -c MC_C_RECORDMCOUNT "$ppc")" -eq 1 ] || die "Kconfig edit of $ppc failed"
}

# 6.12.105 took "fsnotify: opt-in for permission events at file open
# time" from a later series (Debian's changelog lists it there), which
# moves FMODE_NONOTIFY to bit 25, 0x2000000; on sparc that is
# __O_TMPFILE, while fanotify still passes __FMODE_NONOTIFY among open
# flags.  fs/fcntl.c's BUILD_BUG_ON, which counts the open flags' bits
# to catch just such a clash, then stops every sparc build at
# fs/fcntl.o (19 bits, not 20), whatever the recordmcount.  Nothing the
# ftrace test runs opens files with O_TMPFILE or fanotify, so on sparc
# the check asserts that clash and counts one bit fewer: any other
# clash still stops the build, and so does a kernel that moves the bit
# (then this edit is to be dropped); every other architecture keeps
# the check as it was.
edit_sparc_fcntl() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	fcntl=$KERNEL_SRC/fs/fcntl.c
	if ! grep -q 'recordmcount test' "$fcntl"; then
		grep -q '^	BUILD_BUG_ON(21 - 1 /\* for O_RDONLY being 0 \*/ !=$' "$fcntl" &&
			grep -q '^			__FMODE_EXEC | __FMODE_NONOTIFY));$' "$fcntl" ||
			die "$fcntl has no BUILD_BUG_ON of the open flags as 6.12.118 has it"
		sed -i -e '/^	BUILD_BUG_ON(21 - 1 \/\* for O_RDONLY being 0 \*\/ !=$/i\
#ifndef CONFIG_SPARC /* recordmcount test: FMODE_NONOTIFY is __O_TMPFILE here */' \
			-e '/^			__FMODE_EXEC | __FMODE_NONOTIFY));$/a\
#else\
	BUILD_BUG_ON(__FMODE_NONOTIFY != __O_TMPFILE);\
	BUILD_BUG_ON(21 - 1 - 1 != HWEIGHT32((VALID_OPEN_FLAGS & ~(O_NONBLOCK | O_NDELAY)) |\
		__FMODE_EXEC | __FMODE_NONOTIFY));\
#endif' "$fcntl"
	fi
	[ "$(grep -c 'recordmcount test' "$fcntl")" -eq 1 ] &&
		[ "$(grep -c '^	BUILD_BUG_ON(__FMODE_NONOTIFY != __O_TMPFILE);$' "$fcntl")" -eq 1 ] ||
		die "edit of $fcntl failed"
}

# 6.12's arch/sh/kernel/vsyscall/Makefile names "vsyscall-traps.so"
# in targets where the rule builds vsyscall-trapa.so (6.1 named it
# right): Kbuild never reads that file's .cmd, if_changed takes its
# command for changed, and every make links vmlinux again, the boot
# image's too, after build.sh's --finalize (build.sh stops there).
# The one word is put right.
edit_sh_vsyscall() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	vsys=$KERNEL_SRC/arch/sh/kernel/vsyscall/Makefile
	if ! grep -q 'recordmcount test' "$vsys"; then
		grep -q '^targets += vsyscall-trapa\.o vsyscall-traps\.so$' "$vsys" ||
			die "$vsys has no \"targets += vsyscall-trapa.o vsyscall-traps.so\""
		sed -i 's/^targets += vsyscall-trapa\.o vsyscall-traps\.so$/targets += vsyscall-trapa.o vsyscall-trapa.so # recordmcount test: was "traps.so"/' "$vsys"
	fi
	[ "$(grep -c '^targets += vsyscall-trapa\.o vsyscall-trapa\.so # recordmcount test' "$vsys")" -eq 1 ] ||
		die "edit of $vsys failed"
}

# 6.12's arch/riscv/kernel/fpu.S (RISCV_MISALIGNED, which riscv64's
# tinyconfig has) turns the compressed instructions off (".option
# norvc") where the code before ends 2 bytes past a word, and the next
# SYM_FUNC_START aligns to 4 there.  clang 14's integrated assembler
# cannot pad 2 bytes without them and stops ("unable to write nop
# sequence of 2 bytes"); clang 16 pads with a c.nop, GNU as lets it be.
# A ".balign 4" before the ".option norvc" pads while c.nop is still
# allowed: clang 14's object then has clang 16's layout (each function
# at the same offset), and the alignment after it has nothing to do.
edit_riscv_fpu() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	fpu=$KERNEL_SRC/arch/riscv/kernel/fpu.S
	if ! grep -q 'recordmcount test' "$fpu"; then
		[ "$(grep -c '^\.option norvc$' "$fpu")" -eq 1 ] ||
			die "$fpu has no one \".option norvc\" line"
		sed -i '/^\.option norvc$/i\
.balign 4 /* recordmcount test: clang 14 cannot pad 2 bytes under norvc */' "$fpu"
	fi
	[ "$(grep -c '^\.balign 4 /\* recordmcount test' "$fpu")" -eq 1 ] || die "edit of $fpu failed"
}

# 6.12's x86 uaccess.h, where the compiler lacks asm goto with outputs
# (CC_HAS_ASM_GOTO_OUTPUT: clang before 17 fails its test, so clang 14
# and 16 here), reads every size of __get_user_size through an "=a"
# output.  copy_from_kernel_nofault's u64 loop (mm/maccess.c) hands it
# a 64-bit lvalue, and on i386 clang refuses the 2- and 4-byte cases of
# the switch though they are never taken ("invalid output size for
# constraint '=a'"), GCC does not: the build stops at mm/maccess.o.
# Where both hold (X86_32 and clang) the u64 loop is left out, and the
# copy goes on 4 bytes at a time, as it does for any source not 8-byte
# aligned; every other build compiles the file as it was.
edit_i386_clang_maccess() {
	[ "$KERNEL_SERIES" != 6.1 ] || return 0
	macc=$KERNEL_SRC/mm/maccess.c
	loop='		copy_from_kernel_nofault_loop(dst, src, size, u64, Efault);'
	if ! grep -q 'recordmcount test' "$macc"; then
		[ "$(grep -c -x -F "$loop" "$macc")" -eq 1 ] &&
			grep -B1 -x -F "$loop" "$macc" | grep -q -x -F '	if (!(align & 7))' ||
			die "$macc has no one u64 copy_from_kernel_nofault_loop after \"if (!(align & 7))\""
		sed -i -e '/^	if (!(align \& 7))$/{
N
/copy_from_kernel_nofault_loop(dst, src, size, u64, Efault);$/{
i\
#if !(defined(CONFIG_X86_32) \&\& defined(CONFIG_CC_IS_CLANG)) /* recordmcount test: "=a" of a u64 */
a\
#endif
}
}' "$macc"
	fi
	[ "$(grep -c 'recordmcount test: "=a" of a u64' "$macc")" -eq 1 ] || die "edit of $macc failed"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
	edit_kconfig
	note "kernel: source $version already in $KERNEL_SRC"
	exit 0
fi

start=$(now)
note "kernel: extracting $KERNEL_TARBALL ($version) into $MC_KERNEL_CACHE/src"
# Only the source goes.  The architectures' folders hold what other
# steps already put there (check.sh's copy of the tool under test, the
# kernel's own tool, boot logs); their build trees are stale now, and
# build.sh sees it: the stamp written below is part of its config id,
# so it starts those trees afresh itself.
rm -rf "$KERNEL_SRC"
mkdir -p "$MC_KERNEL_CACHE/src"
tar -C "$MC_KERNEL_CACHE/src" -xJf "$KERNEL_TARBALL"
[ -f "$KERNEL_SRC/Makefile" ] || die "no $KERNEL_SRC/Makefile after extraction"

edit_kconfig

echo "$version" >"$stamp"
note "kernel: extracted and patched in $(elapsed "$start")"
