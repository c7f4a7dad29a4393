/* SPDX-License-Identifier: MIT */
/*
 * start.S - riscv64 reset code for QEMU's virt board with -bios none:
 * the CPU starts here, at 0x80000000, in M-mode, with a0 = hart id.
 * No PMP entry is set, which in M-mode means every address is readable,
 * writable and executable: the text can be patched in place.
 *
 * Only hart 0 runs; any other waits for interrupts forever.  The FPU is
 * switched on (mstatus.FS = Initial) in case a trampoline saves the
 * floating-point argument registers; the C code itself uses none.
 */
	.section .text.boot, "ax", %progbits
	.globl	_start
	.type	_start, %function
_start:
	bnez	a0, park
	la	sp, __stack_top
	la	t0, trap
	csrw	mtvec, t0
	li	t0, 1 << 13		/* mstatus.FS = 01, Initial */
	csrs	mstatus, t0
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
2:	call	fw_main
	call	board_exit		/* with fw_main's status in a0 */
park:
	wfi
	j	park
	.size	_start, . - _start

/* Any exception: report mcause, mepc and mtval, then fail (fw_trap). */
	.p2align 2
	.type	trap, %function
trap:
	la	sp, __stack_top
	csrr	a0, mcause
	csrr	a1, mepc
	csrr	a2, mtval
	call	fw_trap
	.size	trap, . - trap

	.section .note.GNU-stack, "", %progbits
