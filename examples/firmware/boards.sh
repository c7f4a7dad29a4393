# SPDX-License-Identifier: MIT
# boards.sh - what build.sh and check.sh need to know per board.
# Sourced; `fw_board <board>` sets, or returns 1 for an unknown board:
#
#   FW_CC         Debian's cross compiler for the board
#   FW_FLAGS      its target flags, for every file
#   FW_HOOKS      the hook flags the firmware's own code is built with:
#                 -pg, or -fpatchable-function-entry=N for NOP pads
#   FW_ARCH_SRC   the arch/ file of the runtime backend
#   FW_TOOLS      binutils prefix (nm, readelf, objdump)
#   FW_QEMU       the command that boots an image given after it; it
#                 names the devices it needs and no others (-nic none:
#                 a default network card wants an option ROM that is
#                 in no package we install)
#   FW_QEMU_PKG   the Debian package that has it
#
# To add a board: a case here and examples/firmware/<board>/ with
# start.S, board.c and fw.lds; FW_BOARDS in firmware.mk.

fw_board() {
	case $1 in
	riscv64)
		# M-mode from reset; rv64gc's F and D only for a trampoline
		# that saves float arguments (start.S turns the FPU on).
		FW_CC=riscv64-linux-gnu-gcc
		FW_FLAGS="-march=rv64gc -mabi=lp64d -mcmodel=medany"
		FW_HOOKS=-pg
		FW_ARCH_SRC=arch/riscv.c
		FW_QEMU="qemu-system-riscv64 -M virt -nic none -bios none -nographic -kernel"
		FW_QEMU_PKG=qemu-system-misc
		;;
	aarch64)
		# MMU off: Device memory, so no unaligned access at all; no
		# FP/SIMD in C; no calls to libgcc's out-of-line atomics.
		# Hooks are NOP pads here (two NOPs at each entry), so that
		# the two boards prove both kinds: riscv64 patches -pg calls
		# at boot, aarch64 finds its pads already neutral.
		FW_CC=aarch64-linux-gnu-gcc
		FW_FLAGS="-mcpu=cortex-a57 -mgeneral-regs-only -mstrict-align
			  -mno-outline-atomics"
		FW_HOOKS=-fpatchable-function-entry=2
		FW_ARCH_SRC=arch/aarch64.c
		FW_QEMU="qemu-system-aarch64 -M virt -nic none -cpu cortex-a57 -nographic
			 -semihosting -kernel"
		FW_QEMU_PKG=qemu-system-arm
		;;
	*)
		return 1
		;;
	esac
	FW_TOOLS=${FW_CC%gcc}
}
