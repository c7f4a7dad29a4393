/* SPDX-License-Identifier: MIT */
/*
 * start.S - aarch64 reset code for QEMU's virt board (-cpu cortex-a57).
 * QEMU loads the ELF where it is linked (0x40080000, in RAM) and enters
 * _start at EL1 with the MMU and the data cache off.  Without the MMU,
 * data accesses are Device-nGnRnE: the text can be written in place,
 * but every access must be aligned (the C code is built -mstrict-align).
 *
 * Only CPU 0 runs.  FP/SIMD is enabled (CPACR_EL1.FPEN) in case a
 * trampoline saves the vector argument registers; the C code is built
 * -mgeneral-regs-only and uses none.  Any exception lands in a vector
 * table whose every entry reports ESR, ELR and FAR through fw_trap.
 */
	.section .text.boot, "ax", %progbits
	.globl	_start
	.type	_start, %function
_start:
	mrs	x0, mpidr_el1
	tst	x0, #0xff		/* Aff0: CPU number */
	b.ne	park
	adrp	x0, __stack_top
	add	x0, x0, :lo12:__stack_top
	mov	sp, x0
	adrp	x0, vectors
	add	x0, x0, :lo12:vectors
	msr	vbar_el1, x0
	mov	x0, #(3 << 20)		/* CPACR_EL1.FPEN: no FP/SIMD traps */
	msr	cpacr_el1, x0
	isb
	adrp	x0, __bss_start
	add	x0, x0, :lo12:__bss_start
	adrp	x1, __bss_end
	add	x1, x1, :lo12:__bss_end
1:	cmp	x0, x1
	b.hs	2f
	str	xzr, [x0], #8
	b	1b
2:	bl	fw_main
	bl	board_exit		/* with fw_main's status in w0 */
park:
	wfe
	b	park
	.size	_start, . - _start

	.type	trap, %function
trap:
	adrp	x0, __stack_top
	add	x0, x0, :lo12:__stack_top
	mov	sp, x0
	mrs	x0, esr_el1
	mrs	x1, elr_el1
	mrs	x2, far_el1
	bl	fw_trap
	.size	trap, . - trap

/* 4 kinds x 4 origins, 0x80 bytes each, the table 2 KiB aligned. */
	.balign	0x800
vectors:
	.rept	16
	.balign	0x80
	b	trap
	.endr

	.section .note.GNU-stack, "", %progbits
