# SPDX-License-Identifier: GPL-2.0-only
# kernel/lib.sh - settings shared by the kernel test scripts (sourced).
#
# Everything big lives in a cache outside the repository, reused
# between runs:
#
#   $MC_KERNEL_CACHE            default ${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount
#     src/linux-source-SERIES/  the extracted Debian source, patched (prepare.sh),
#                               shared by every architecture
#     ARCH/ (ARCH-clang/ for clang, below), 6.1's; a later series's are
#     under linux-SERIES/ (linux-6.12/x86_64/), so that switching
#     KERNEL_SERIES rebuilds neither:
#     ARCH/build/               the O= tree of the tinyconfig+ftrace kernel
#     ARCH/capture/             every object as Kbuild handed it to
#                               scripts/recordmcount, before any change
#     ARCH/kernel-recordmcount  the kernel's own tool, built by Kbuild
#     ARCH/boot/                init, initramfs, serial log of the last boot
#     ARCH/debug/build, ARCH/debug/capture
#                               the same with -g, kernel/ and mm/ only: the
#                               benchmark's second corpus
#                               (MC_KERNEL_VARIANT=debug)
#     ARCH/defconfig/build, ARCH/defconfig/capture
#                               defconfig + ftrace (defconfig.config):
#                               vmlinux and the in-tree modules, for
#                               agree.py only (MC_KERNEL_VARIANT=defconfig,
#                               kernel/defconfig.sh; x86_64 and i386)
#     ARCH/defconfig-ibt/...    the same with X86_KERNEL_IBT
#                               (MC_KERNEL_VARIANT=defconfig-ibt)
#
# ARCH is $MC_KERNEL_ARCH: x86_64 (the default) or another of KERNEL_ALL_ARCHS.
# Everything that differs between them is in the table below; the
# config fragment is kernel/ARCH.config.
#
# The compiler is $MC_KERNEL_CC: gcc (the default) or clang.  A clang
# kernel is built with LLVM=1 (clang, ld.lld, llvm-ar, llvm-nm,
# llvm-objcopy, ... and clang as the host compiler, so the kernel's own
# recordmcount too; ppc64le, ppc32 and s390x: CC=clang only, below) in a
# folder of its own, ARCH-clang/ instead of
# ARCH/, so that the two builds never rebuild each other's objects; its
# check names read kernel-ARCH-clang-*.
#
# Scripts print "PASS: name" / "FAIL: name: reason" and append those
# lines to $TEST_RESULTS/kernel.log when TEST_RESULTS is set.

# shellcheck shell=sh disable=SC2034
MC_KERNEL_CACHE=${MC_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/recordmcount}
# KERNEL_SERIES: the Debian linux-source-SERIES package built: 6.12
# (the LTS distributions ship now; Debian 12 has it from
# bookworm-security, no backports needed) or 6.1.
KERNEL_SERIES=${KERNEL_SERIES:-6.12}
# SORTTABLE_ZEROES: "yes" where the series's scripts/sorttable zeroes
# the __mcount_loc entries that lie in no function (6.12.118 does; 6.1
# only sorts): check.sh compares its table with our --finalize's.
# FTRACE_SKIPS_ZEROED: "yes" where ftrace's boot line "allocating N
# entries" leaves out the zeroed entries it skipped (6.12.118's
# ftrace_process_locs; 6.1 counts them): boot.sh's prediction.
case $KERNEL_SERIES in
6.1) SERIES_DIR='' SORTTABLE_ZEROES='' FTRACE_SKIPS_ZEROED='' ;;
6.12) SERIES_DIR=linux-$KERNEL_SERIES/ SORTTABLE_ZEROES=yes FTRACE_SKIPS_ZEROED=yes ;;
*)
	echo "kernel: KERNEL_SERIES is 6.12 or 6.1" >&2
	exit 2 ;;
esac
KERNEL_TARBALL=/usr/src/linux-source-$KERNEL_SERIES.tar.xz
KERNEL_SRC=$MC_KERNEL_CACHE/src/linux-source-$KERNEL_SERIES
KARCH=${MC_KERNEL_ARCH:-x86_64}
# Per architecture:
#   SRCARCH        make's ARCH= (the folder under arch/), where it is
#                  not the name of the table entry (ppc64le: powerpc)
#   CROSS_COMPILE  prefix of the target's toolchain ("" = the host's)
#   IMAGE          what the boot target writes, relative to the O= tree
#   FTRACE_CFLAGS  CC_FLAGS_FTRACE: the flags of every object Kbuild
#                  hands to scripts/recordmcount
#   WORD           bytes per __mcount_loc entry
#   QEMU           the system emulator and its machine, and its package;
#                  no network card (-nic none: the default one wants an
#                  option ROM from a package we do not install)
#   CONSOLE        the serial console's device name
#   INIT_CFLAGS    how init.c is compiled (static, for the target)
#   TARGET_PACKAGES  the Debian packages of that compiler and its libc
#   BOOT_TIMEOUT   seconds before the boot is given up on
#   FTRACE_MAX_OFFSET  ftrace's FTRACE_MCOUNT_MAX_OFFSET, "" where the
#                  architecture defines none (boot.sh, figures.py)
#   HOOK_SYMBOL    the function the hook calls
#   WEAK_ONLY      an object on which the kernel's own recordmcount stops
#                  the build (a section whose only symbol is weak, see
#                  README.md), or "" if it has none
#   TOOL_FLAGS     what the wrapper passes our tool before Kbuild's
#                  arguments ("" but on s390x: --nop)
#   LINKED_HOOK_SYMBOL  the name objdump gives the hook in the linked
#                  image: HOOK_SYMBOL, but where another symbol of the
#                  same address comes first (mips: ftrace_caller)
#   MODULE_HOOK_RELOC  the relocation types (a regular expression) that
#                  mark one hook call each in the module (boot.sh):
#                  any, but one of a long call's two halves (mips)
#   LINKED_HOOK    "" where the linked image still calls HOOK_SYMBOL;
#                  else the bytes (objdump's) of the NOP each hook
#                  became (hooks.py, boot.sh; s390x only: hooks.py
#                  reads s390's .altinstructions to tell the entry
#                  code's padding of the same bytes apart)
#   LINKED_HOOK_FORM  "" where a hook is an instruction; "literal-pool"
#                  (sh4) where it is the literal-pool word a call loads
#                  the hook's address from (hooks.py --literal-pool)
#   BOOT_BLOCKER   "" where the kernel boots; else why it cannot here
#                  (sh4), with BOOT_BLOCKER_SOURCE, a file of kernel/
#                  whose -Os assembly shows the cause (check.sh: the
#                  boot is tried, and its checks are one SKIP while it
#                  fails that way)
#   FTRACE_BLOCKER "" where the series offers the function tracer for
#                  this architecture and compiler; else why it does not
#                  (ppc32 with clang on 6.12), with FTRACE_BLOCKER_FILE,
#                  a file of the kernel source, and FTRACE_BLOCKER_LINE,
#                  the line of it (blanks squeezed to one space) that
#                  says so.  check.sh then builds nothing: one SKIP line,
#                  and one check that passes only while the source
#                  still says it
#   MODULE_BLOCKER "" where the out-of-tree module's sites can be traced;
#                  else why they cannot (mips and mips64el with clang:
#                  below).  check.sh and boot.sh then build the module
#                  and check its objects but do not load it: its checks
#                  are SKIP lines with this reason, and one check
#                  passes only while the cause is still in the module's
#                  objects (check.sh, module_blocker_check)
#   KERNEL_TOOL_SHIFT  bytes the kernel's own tool puts each entry
#                  before the site for a known reason (agree.py), or 0
#   PADS           "" where the compiler leaves hook calls; else the
#                  bytes (objdump's, one word per instruction) of the NOP
#                  pad -fpatchable-function-entry leaves at each traced
#                  function's entry (riscv64): check.sh's checks count
#                  pads instead of calls (hooks.py --pads), and agree.py
#                  compares with the compiler's own
#                  __patchable_function_entries
#   MODULE_TOOL_FLAGS  what the wrapper passes our tool besides
#                  TOOL_FLAGS when build.sh builds the out-of-tree
#                  module ("" but on riscv64: --keep-patchable, see
#                  there)
#   MODULE_INIT_KEPT  "yes" where the kernel keeps a module's .init.text
#                  with its core text (ppc64: module_init_section() is
#                  always false), so ftrace keeps listing its __init
#                  functions after the module's init (boot.sh)
# Every architecture of the table below (make check-kernel-all).
KERNEL_ALL_ARCHS="x86_64 arm arm64 i386 ppc64le s390x mips mips64el ppc32 sparc64 riscv64 sh4"
SRCARCH=$KARCH
TOOL_FLAGS=
LINKED_HOOK_SYMBOL=
MODULE_HOOK_RELOC='R_[A-Z0-9_]+'
LINKED_HOOK=
LINKED_HOOK_FORM=
BOOT_BLOCKER=
BOOT_BLOCKER_SOURCE=
FTRACE_BLOCKER=
FTRACE_BLOCKER_FILE=
FTRACE_BLOCKER_LINE=
MODULE_BLOCKER=
KERNEL_TOOL_SHIFT=0
MODULE_INIT_KEPT=
PADS=
MODULE_TOOL_FLAGS=
case $KARCH in
x86_64)
	CROSS_COMPILE=
	IMAGE=arch/x86/boot/bzImage
	FTRACE_CFLAGS="-pg -mfentry"
	HOOK_SYMBOL=__fentry__
	WORD=8
	QEMU="qemu-system-x86_64 -accel tcg -nic none"
	QEMU_PACKAGE=qemu-system-x86
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc libc6-dev"
	BOOT_TIMEOUT=180
	# ENDBR_INSN_SIZE: 0 without X86_KERNEL_IBT (x86_64.config)
	FTRACE_MAX_OFFSET=0
	WEAK_ONLY=kernel/exit.o ;;
arm)
	# ARMv7 in ARM state (not THUMB2_KERNEL), on QEMU's "virt" board;
	# init is linked against Debian's armhf (hard-float) libc.
	CROSS_COMPILE=arm-linux-gnueabihf-
	IMAGE=arch/arm/boot/zImage
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=__gnu_mcount_nc
	WORD=4
	QEMU="qemu-system-arm -M virt -nic none -cpu cortex-a15"
	QEMU_PACKAGE=qemu-system-arm
	CONSOLE=ttyAMA0
	INIT_CFLAGS="-static -O2 -marm"
	TARGET_PACKAGES="gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
	BOOT_TIMEOUT=240
	FTRACE_MAX_OFFSET=
	# exit.o's .text.unlikely keeps its section symbol (its unwind
	# table entry relocates against it), the kernel's tool's anchor:
	# it does not fail on arm.
	WEAK_ONLY= ;;
arm64)
	# ARMv8-A on QEMU's "virt" board, built with -pg (prepare.sh's
	# MC_NO_FTRACE_WITH_REGS, set in arm64.config, keeps GCC's
	# -fpatchable-function-entry away): each site is "mov x0, x30;
	# bl _mcount" with R_AARCH64_CALL26.
	CROSS_COMPILE=aarch64-linux-gnu-
	IMAGE=arch/arm64/boot/Image
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=_mcount
	WORD=8
	QEMU="qemu-system-aarch64 -M virt -nic none -cpu cortex-a57"
	QEMU_PACKAGE=qemu-system-arm
	CONSOLE=ttyAMA0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
	BOOT_TIMEOUT=240
	FTRACE_MAX_OFFSET=
	# exit.o's abort() is alone in .text.unlikely as on x86_64, but GNU
	# as for aarch64 keeps every section symbol (binutils 2.36's drop of
	# unused ones is not made for this target): the kernel's tool
	# anchors on .text.unlikely's and does not fail.
	WEAK_ONLY= ;;
i386)
	# A 32-bit x86 kernel (ARCH=i386), -pg -mfentry like x86_64: the
	# same Kconfig edit makes Kbuild run recordmcount (without it GCC's
	# -mrecord-mcount would write the table; objtool is x86_64 only).
	CROSS_COMPILE=i686-linux-gnu-
	IMAGE=arch/x86/boot/bzImage
	FTRACE_CFLAGS="-pg -mfentry"
	HOOK_SYMBOL=__fentry__
	WORD=4
	QEMU="qemu-system-i386 -accel tcg -nic none"
	QEMU_PACKAGE=qemu-system-x86
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-i686-linux-gnu libc6-dev-i386-cross"
	BOOT_TIMEOUT=180
	# ENDBR_INSN_SIZE: X86_KERNEL_IBT is x86_64 only
	FTRACE_MAX_OFFSET=0
	# arch/x86/Makefile compiles 32-bit kernels with -ffreestanding, so
	# GCC does not take kernel/exit.o's weak abort() for the C
	# library's (a cold builtin) and leaves it in .text among the
	# file's other functions, not alone in .text.unlikely as on
	# x86_64: the kernel's tool has a non-weak symbol to anchor on, and
	# does not fail (kernel/README.md).
	WEAK_ONLY= ;;
ppc64le)
	# 64-bit little-endian POWER (ELFv2) on QEMU's pseries machine
	# (SLOF loads vmlinux itself, an ELF file; hvc0 is the hypervisor's
	# console).  GCC 12 for ppc64le passes the kernel's
	# gcc-check-mprofile-kernel.sh, so MPROFILE_KERNEL is on and the
	# flags are -pg -mprofile-kernel: each site is "mflr r0; bl _mcount"
	# (R_PPC64_REL24).  GCC for powerpc has no -mrecord-mcount and
	# objtool's --mcount is x86 only: Kbuild runs the C recordmcount.
	SRCARCH=powerpc
	CROSS_COMPILE=powerpc64le-linux-gnu-
	IMAGE=vmlinux
	FTRACE_CFLAGS="-pg -mprofile-kernel"
	HOOK_SYMBOL=_mcount
	WORD=8
	# The spectre capabilities QEMU's pseries asks for by default are
	# ones TCG cannot give: it warns at start (a WARNING line in the
	# serial log) unless they are declared absent.
	QEMU="qemu-system-ppc64 -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -cpu power9 -nic none -vga none"
	QEMU_PACKAGE=qemu-system-ppc
	CONSOLE=hvc0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	# arch/powerpc/kernel/module_64.c: "We don't do .init separately".
	MODULE_INIT_KEPT=yes
	WEAK_ONLY= ;;
s390x)
	# 64-bit z/Architecture on QEMU's s390-ccw-virtio machine, SCLP
	# console.  6.1 wants GCC's -mrecord-mcount -mnop-mcount here
	# (FTRACE_MCOUNT_USE_CC); with that turned off (prepare.sh), and
	# the C recordmcount chosen (MC_C_RECORDMCOUNT, prepare.sh), the
	# flags are -pg -mfentry: each site is "brasl %r0, __fentry__"
	# (R_390_PLT32DBL two bytes in).  The s390 kernel defines no
	# __fentry__ and ftrace_init_nop expects each site to be the
	# -mnop-mcount NOP, "brcl 0,0": the wrapper passes --nop, which
	# writes exactly that over every recorded call.  The kernel's own
	# C tool is made for the old -pg block ("stg; larl; brasl") and
	# puts each entry 14 bytes before the call's relocation, 12 before
	# an -mfentry site.
	SRCARCH=s390
	CROSS_COMPILE=s390x-linux-gnu-
	IMAGE=arch/s390/boot/bzImage
	FTRACE_CFLAGS="-pg -mfentry"
	HOOK_SYMBOL=__fentry__
	WORD=8
	QEMU="qemu-system-s390x -M s390-ccw-virtio -nic none"
	QEMU_PACKAGE=qemu-system-misc
	CONSOLE=ttysclp0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-s390x-linux-gnu libc6-dev-s390x-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	TOOL_FLAGS=--nop
	LINKED_HOOK="c0 04 00 00 00 00"
	KERNEL_TOOL_SHIFT=12
	WEAK_ONLY= ;;
mips)
	# 32-bit big-endian MIPS (MIPS32r2, o32) on QEMU's Malta board,
	# which loads vmlinux, an ELF file, itself.  The kernel is not PIC
	# (-mno-abicalls): each site is "jal _mcount" (R_MIPS_26) with
	# "move at, ra" before it; modules are built with -mlong-calls,
	# where the call is "lui v1, %hi(_mcount); addiu v1, v1,
	# %lo(_mcount); move at, ra; jalr v1" and the table entry is the
	# lui.
	CROSS_COMPILE=mips-linux-gnu-
	IMAGE=vmlinux
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=_mcount
	WORD=4
	QEMU="qemu-system-mips -M malta -nic none"
	QEMU_PACKAGE=qemu-system-mips
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-mips-linux-gnu libc6-dev-mips-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	# arch/mips/kernel/mcount.S defines ftrace_caller at _mcount's
	# address, and objdump names the calls' target by it.  A module's
	# long call is an R_MIPS_HI16/R_MIPS_LO16 pair: one hook each.
	LINKED_HOOK_SYMBOL=ftrace_caller
	MODULE_HOOK_RELOC='R_MIPS_(26|HI16)'
	WEAK_ONLY= ;;
mips64el)
	# 64-bit little-endian MIPS (MIPS64r2, n64) on QEMU's Malta board
	# (a MIPS64r2 CPU: the board's default 5Kf is MIPS64r1).  The
	# same sites as mips, "jal _mcount" after "move at, ra", with
	# n64's three-type relocations.
	SRCARCH=mips
	CROSS_COMPILE=mips64el-linux-gnuabi64-
	IMAGE=vmlinux
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=_mcount
	WORD=8
	QEMU="qemu-system-mips64el -M malta -cpu MIPS64R2-generic -nic none"
	QEMU_PACKAGE=qemu-system-mips
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	# arch/mips/kernel/mcount.S defines ftrace_caller at _mcount's
	# address, and objdump names the calls' target by it.  A module's
	# long call is an R_MIPS_HI16/R_MIPS_LO16 pair: one hook each.
	LINKED_HOOK_SYMBOL=ftrace_caller
	MODULE_HOOK_RELOC='R_MIPS_(26|HI16)'
	WEAK_ONLY= ;;
sparc64)
	# 64-bit SPARC V9 on QEMU's sun4u machine, whose OpenBIOS loads
	# arch/sparc/boot/image (vmlinux, stripped).  Each site is "call
	# _mcount" (R_SPARC_WDISP30) with its delay slot.
	SRCARCH=sparc64
	CROSS_COMPILE=sparc64-linux-gnu-
	IMAGE=arch/sparc/boot/image
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=_mcount
	WORD=8
	QEMU="qemu-system-sparc64 -M sun4u -nic none"
	QEMU_PACKAGE=qemu-system-sparc
	CONSOLE=ttyS0
	# OpenBIOS cannot reboot (the kernel panics, "Reboot failed!",
	# over and over); init powers off instead (init.c).
	INIT_CFLAGS="-static -O2 -DMC_POWER_OFF"
	TARGET_PACKAGES="gcc-sparc64-linux-gnu libc6-dev-sparc64-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	WEAK_ONLY= ;;
ppc32)
	# 32-bit big-endian PowerPC (a 440EP) on QEMU's bamboo board,
	# which loads vmlinux, an ELF file, and passes its own device tree.
	# -pg: each site is "bl _mcount" (R_PPC_REL24) after "mflr r0;
	# stw r0, 4(r1)".
	SRCARCH=powerpc
	CROSS_COMPILE=powerpc-linux-gnu-
	IMAGE=vmlinux
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=_mcount
	WORD=4
	QEMU="qemu-system-ppc -M bamboo -nic none"
	QEMU_PACKAGE=qemu-system-ppc
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-powerpc-linux-gnu libc6-dev-powerpc-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	WEAK_ONLY= ;;
riscv64)
	# 64-bit RISC-V (RV64GC) on QEMU's "virt" board, in supervisor mode
	# under the OpenSBI firmware QEMU loads by default (qemu-system-data).
	# 6.1 compiles every traced file with -fpatchable-function-entry=4:
	# no hook call, four c.nop at each function's entry, and the
	# compiler's own table of them, __patchable_function_entries.  With
	# MC_C_RECORDMCOUNT (prepare.sh) Kbuild runs our tool on each such
	# object, which moves the pads into __mcount_loc.  The kernel's own
	# C tool has no RISC-V: the agreement is with the compiler's table
	# of each raw object instead (agree.py --compiler-pads).  A module
	# is the exception: arch/riscv/Makefile defines
	# CC_USING_PATCHABLE_FUNCTION_ENTRY, so 6.1's module loader takes a
	# module's sites from __patchable_function_entries only
	# (FTRACE_CALLSITE_SECTION, include/linux/ftrace.h), and the
	# out-of-tree module's objects keep the compiler's table
	# (--keep-patchable): moved, the module would load with no
	# traceable function.
	SRCARCH=riscv
	CROSS_COMPILE=riscv64-linux-gnu-
	IMAGE=arch/riscv/boot/Image
	FTRACE_CFLAGS="-fpatchable-function-entry=4"
	HOOK_SYMBOL=
	WORD=8
	QEMU="qemu-system-riscv64 -M virt -nic none"
	QEMU_PACKAGE="qemu-system-misc qemu-system-data"
	CONSOLE=ttyS0
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-riscv64-linux-gnu libc6-dev-riscv64-cross"
	BOOT_TIMEOUT=300
	FTRACE_MAX_OFFSET=
	PADS="0001 0001 0001 0001"
	MODULE_TOOL_FLAGS=--keep-patchable
	WEAK_ONLY= ;;
sh4)
	# Little-endian SH-4 (an SH7751R) on QEMU's r2d board, which loads
	# the raw zImage into its 64 MiB of SDRAM itself (-m must say 64M:
	# the board has no other size).  Each site is the literal-pool word
	# that "mov.l" loads mcount's address from ("mov.l 1f, r1; sts.l
	# pr, @-r15; mova 2f, r0; jmp @r1; lds r0, pr; [nop]; 1: .long
	# mcount; 2: lds.l @r15+, pr"), R_SH_DIR32: the kernel's ftrace
	# patches nothing but that word (arch/sh.c).  The console is the
	# SCIF, QEMU's second serial port.
	SRCARCH="sh"
	CROSS_COMPILE=sh4-linux-gnu-
	IMAGE=arch/sh/boot/zImage
	FTRACE_CFLAGS="-pg"
	HOOK_SYMBOL=mcount
	WORD=4
	QEMU="qemu-system-sh4 -M r2d -nic none -serial null -serial mon:stdio"
	QEMU_PACKAGE=qemu-system-misc
	CONSOLE=ttySC1
	INIT_CFLAGS="-static -O2"
	TARGET_PACKAGES="gcc-sh4-linux-gnu libc6-dev-sh4-cross"
	# A booting kernel would print its banner within seconds; this one
	# prints nothing (below), and QEMU runs to the timeout.
	BOOT_TIMEOUT=60
	FTRACE_MAX_OFFSET=
	LINKED_HOOK_FORM=literal-pool
	# Debian's GCC 12.2 for SH drops the NULL test of a global read
	# again after a call and branches on a stale T bit (reproducer:
	# kernel/sh4-gcc-tbit.c).  The zImage's decompressor has that
	# shape and loops in its error path before it prints a line
	# (kernel/README.md, "sh4").
	BOOT_BLOCKER="the zImage's decompressor, miscompiled by GCC 12.2 for SH (a NULL test after a call dropped, kernel/sh4-gcc-tbit.c), loops in its error path before the kernel starts"
	BOOT_BLOCKER_SOURCE=sh4-gcc-tbit.c
	# arch/sh/lib/mcount.S defines _mcount at mcount's address, and
	# objdump names the loaded word by it.
	LINKED_HOOK_SYMBOL=_mcount
	WEAK_ONLY= ;;
*)
	echo "kernel: MC_KERNEL_ARCH is one of: $KERNEL_ALL_ARCHS" >&2
	exit 2 ;;
esac
LINKED_HOOK_SYMBOL=${LINKED_HOOK_SYMBOL:-$HOOK_SYMBOL}
# Per compiler:
#   KMAKE_CC       what kmake (build.sh) adds to every make command
#   CC_SUFFIX      added to the folder in the cache and to check names
#   CC_PACKAGES    the Debian packages of that compiler
#   CC_CONFIG      what the .config must say about the toolchain Kbuild
#                  found (check.sh)
KCC=${MC_KERNEL_CC:-gcc}
case $KCC in
gcc)
	KMAKE_CC=
	CC_SUFFIX=
	CC_PACKAGES=
	CC_CONFIG="CC_IS_GCC AS_IS_GNU LD_IS_BFD" ;;
clang)
	# Documentation/kbuild/llvm.rst: LLVM=1 uses the unsuffixed LLVM
	# tools (Debian's clang, lld and llvm packages provide them for
	# clang 14) and the integrated assembler.  For arm, CROSS_COMPILE
	# then only sets clang's --target (arm-linux-gnueabihf); the
	# Makefile adds -meabi gnu, so the hook is __gnu_mcount_nc.
	KMAKE_CC="LLVM=1"
	CC_SUFFIX=-clang
	CC_PACKAGES="clang lld llvm"
	CC_CONFIG="CC_IS_CLANG AS_IS_LLVM LD_IS_LLD"
	# Where llvm.rst's table says CC=clang (powerpc, s390): clang
	# compiles, the binutils of CROSS_COMPILE link (ld, ar, objcopy,
	# ...), gcc is the host compiler; LLVM_IAS=0 also has clang run
	# CROSS_COMPILE's "as" (-fno-integrated-as) on C and .S files.
	case $KARCH in
	ppc64le)
		# clang 14 has no -mprofile-kernel ("unknown argument"):
		# MPROFILE_KERNEL is off (ppc64le-clang.config) and each site
		# is the old -pg one, "bl _mcount" (R_PPC64_REL24) after the
		# prologue's "mflr r0; std r0, 16(r1)".
		KMAKE_CC="CC=clang LLVM_IAS=0"
		CC_CONFIG="CC_IS_CLANG AS_IS_GNU LD_IS_BFD"
		FTRACE_CFLAGS="-pg" ;;
	ppc32)
		# llvm.rst: powerpc is CC=clang, as ppc64le; GNU as and ld
		# (LLVM_IAS=0).  -pg as with GCC: "bl _mcount" (R_PPC_REL24).
		# clang 14's -mcpu=440 emits isel, which the 440 lacks (QEMU's
		# bamboo: program exceptions at them, in vprintk_emit over and
		# over, before the console is up); -mno-isel (README.md).
		KMAKE_CC="CC=clang LLVM_IAS=0 KCFLAGS=-mno-isel"
		CC_CONFIG="CC_IS_CLANG AS_IS_GNU LD_IS_BFD"
		# clang's -pg call follows the whole prologue (README.md);
		# 6.1's ftrace patched it there, but from 6.6 ftrace_init_nop
		# wants it right after "mflr r0; stw r0, 4(r1)", and the
		# kernel offers no function tracer on PPC32 with clang.
		if [ "$KERNEL_SERIES" != 6.1 ]; then
			FTRACE_BLOCKER="Linux $KERNEL_SERIES offers no function tracer on PPC32 built with clang (arch/powerpc/Kconfig: HAVE_FUNCTION_TRACER if PPC64 || (PPC32 && CC_IS_GCC)): clang's -pg call follows the whole prologue, where ftrace_init_nop wants it right after \"mflr r0; stw r0, 4(r1)\""
			FTRACE_BLOCKER_FILE=arch/powerpc/Kconfig
			FTRACE_BLOCKER_LINE=' select HAVE_FUNCTION_TRACER if PPC64 || (PPC32 && CC_IS_GCC)'
		fi ;;
	s390x)
		# llvm.rst: CC=clang; the integrated assembler, GNU ld.  6.1
		# wants clang 15 or later for s390 (scripts/min-tool-version.sh;
		# with 14 Kconfig stops: "C compiler is too old ... Minimum
		# Clang version: 15.0.0"): Debian 12's clang-16.  It takes
		# -mfentry for s390: the sites are GCC's.
		KMAKE_CC="CC=clang-16"
		CC_PACKAGES=clang-16
		CC_CONFIG="CC_IS_CLANG AS_IS_LLVM LD_IS_BFD" ;;
	mips|mips64el)
		# LLVM=1 builds and boots, but Kbuild compiles every MIPS
		# module with -mlong-calls, and clang's long -pg call ("lui
		# at, %hi(_mcount); addiu t9, at, %lo(_mcount); jalr t9", on
		# n64 with %highest/%higher and two dsll) has no "move at, ra",
		# which 6.1's _mcount needs (it returns to at) and its ftrace
		# cannot patch: our tool records none of those calls, and
		# loading the module crashes (mips) or lists none of its
		# functions (mips64el).  README.md, "mips with clang".
		MODULE_BLOCKER="clang's -mlong-calls -pg call in the module (lui at / jalr t9, no \"move at, ra\") is not a call 6.1's MIPS ftrace can handle: our tool records none, and the module is not loaded" ;;
	esac
	# No weak-only section: clang does not move __cold functions to
	# .text.unlikely, so the weak abort() of kernel/exit.o stays in
	# .text, whose section symbol the object keeps (README.md).
	WEAK_ONLY= ;;
*)
	echo "kernel: MC_KERNEL_CC is gcc or clang" >&2
	exit 2 ;;
esac
WORK=$MC_KERNEL_CACHE/$SERIES_DIR$KARCH$CC_SUFFIX
# The prefix of every PASS/FAIL name: kernel-x86_64, kernel-arm-clang, ...
NAME=kernel-$KARCH$CC_SUFFIX
MC_KERNEL_VARIANT=${MC_KERNEL_VARIANT:-boot}
# KEPT: where build.sh keeps the linker's vmlinux and the kernel's
# sorted one (vmlinux.raw, vmlinux.sorttable: check.sh's inputs), $WORK
# but for a variant that must not overwrite the boot build's (attach).
KEPT=$WORK
# BASE_CONFIG: the make target build.sh configures with before merging
# FRAGMENTS.
BASE_CONFIG=tinyconfig
case $MC_KERNEL_VARIANT in
boot)
	KBUILD=$WORK/build
	CAPTURE=$WORK/capture
	FRAGMENTS="$KARCH.config"
	# A fragment of the compiler's own where its options differ
	# (ppc64le-clang.config), instead of the architecture's.
	[ ! -f "$(dirname "$0")/../kernel/$KARCH$CC_SUFFIX.config" ] || FRAGMENTS="$KARCH$CC_SUFFIX.config"
	# And one of the series's own where an option differs between
	# series (riscv64-6.12.config: the board's option was renamed).
	[ ! -f "$(dirname "$0")/../kernel/$KARCH-$KERNEL_SERIES.config" ] ||
		FRAGMENTS="$FRAGMENTS $KARCH-$KERNEL_SERIES.config"
	TARGETS=$(basename "$IMAGE") ;;
debug)
	KBUILD=$WORK/debug/build
	CAPTURE=$WORK/debug/capture
	FRAGMENTS="$KARCH.config debug.config"
	TARGETS="kernel/ mm/" ;;
defconfig|defconfig-ibt)
	# The architecture's defconfig, not tinyconfig, with ftrace through
	# scripts/recordmcount (the fragment holds no hardware: the x86
	# defconfig's own), every object of vmlinux and of the in-tree
	# modules; not booted (kernel/defconfig.sh).  defconfig-ibt: the
	# same with X86_KERNEL_IBT, as distributions build x86_64.
	KBUILD=$WORK/$MC_KERNEL_VARIANT/build
	CAPTURE=$WORK/$MC_KERNEL_VARIANT/capture
	BASE_CONFIG=defconfig
	FRAGMENTS="defconfig.config"
	[ "$MC_KERNEL_VARIANT" = defconfig ] || FRAGMENTS="$FRAGMENTS $MC_KERNEL_VARIANT.config"
	TARGETS="vmlinux modules" ;;
attach)
	# The kernel the attach test boots (tests/attach/vm.sh): the boot
	# build's fragments, then attach.config (futexes and membarrier for
	# the targets and the runtime), in a tree of its own, so that the
	# boot test's kernel stays tinyconfig's.
	KBUILD=$WORK/attach/build
	CAPTURE=$WORK/attach/capture
	KEPT=$WORK/attach
	FRAGMENTS="$KARCH.config"
	[ ! -f "$(dirname "$0")/../kernel/$KARCH-$KERNEL_SERIES.config" ] ||
		FRAGMENTS="$FRAGMENTS $KARCH-$KERNEL_SERIES.config"
	FRAGMENTS="$FRAGMENTS attach.config"
	# and the machine's own additions for it (i386-attach.config: the
	# 32-bit time system calls its C library sleeps with)
	[ ! -f "$(dirname "$0")/../kernel/$KARCH-attach.config" ] ||
		FRAGMENTS="$FRAGMENTS $KARCH-attach.config"
	TARGETS=$(basename "$IMAGE") ;;
ftracetest-ref)
	# The reference kernel of the ftrace selftests (ftracetest.sh), whose
	# table the compiler writes as upstream builds it: the boot build's
	# fragments, then ARCH-ftracetest-ref.config (-mrecord-mcount on
	# x86_64; the later line of a symbol wins, in the merge and in
	# build.sh's check).  Ours is the boot build itself.
	KBUILD=$WORK/$MC_KERNEL_VARIANT/build
	CAPTURE=$WORK/$MC_KERNEL_VARIANT/capture
	FRAGMENTS="$KARCH.config"
	[ ! -f "$(dirname "$0")/../kernel/$KARCH-$KERNEL_SERIES.config" ] ||
		FRAGMENTS="$FRAGMENTS $KARCH-$KERNEL_SERIES.config"
	FRAGMENTS="$FRAGMENTS $KARCH-ftracetest-ref.config"
	TARGETS=$(basename "$IMAGE") ;;
*)
	echo "kernel: MC_KERNEL_VARIANT is boot, debug, defconfig, defconfig-ibt, ftracetest-ref or attach" >&2
	exit 2 ;;
esac
KERNEL_TOOL=$WORK/kernel-recordmcount
# The kernel's scripts/sorttable, where the configuration builds one
# (build.sh puts a wrapper in its place).
KERNEL_SORTTABLE=$WORK/kernel-sorttable
BOOT=$WORK/boot
JOBS=${JOBS:-$(nproc)}

# Debian packages the kernel test, the boot and the benchmark need.
KERNEL_PACKAGES="linux-source-$KERNEL_SERIES $QEMU_PACKAGE $TARGET_PACKAGES $CC_PACKAGES
make gcc libc6-dev bc bison flex libssl-dev libelf-dev cpio xz-utils
python3 time binutils"
# The ftrace selftests' userland (ftracetest.sh): Debian's static busybox.
[ -z "${MC_FTRACETEST:-}" ] || KERNEL_PACKAGES="$KERNEL_PACKAGES busybox-static"

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
# MC_FAILED: set once a check failed; the script's exit status.
MC_FAILED=0
pass() { result "PASS: $1"; }
fail() { result "FAIL: $1: $2"; MC_FAILED=1; }

# Seconds since the epoch, for the phase timings.
now() { date +%s; }
elapsed() { echo "$(( $(now) - $1 ))s"; }

# Installs what is missing as root (saying so), else prints the
# apt-get line and fails: the project's own deps.sh does just that.
need_packages() {
	# shellcheck disable=SC2086 # one argument per package
	"$MC_TOP/scripts/deps.sh" $KERNEL_PACKAGES
}
# Under an FTRACE_BLOCKER the source alone is read (check.sh), and the
# rest is installed only if the blocker has gone.
need_source_packages() {
	"$MC_TOP/scripts/deps.sh" "linux-source-$KERNEL_SERIES" xz-utils
}
