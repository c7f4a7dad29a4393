/* SPDX-License-Identifier: MIT */
/*
 * board.c - QEMU's riscv64 virt board: a 16550 UART at 0x10000000 and
 * the SiFive test device at 0x100000, whose register ends the emulator
 * (0x5555: exit status 0; (code << 16) | 0x3333: exit status code).
 */
#include "../../../runtime/platform.h"
#include "../fw.h"

#define UART_BASE 0x10000000ul
#define UART_THR 0		/* transmit holding register */
#define UART_LSR 5		/* line status register */
#define UART_LSR_THRE 0x20	/* room for a byte */

#define TEST_BASE 0x100000ul
#define TEST_PASS 0x5555u
#define TEST_FAIL 0x3333u

const char board_name[] = "riscv64 (QEMU virt, M-mode)";

void board_putc(char c)
{
	volatile uint8_t *uart = (volatile uint8_t *)UART_BASE;

	while (!(uart[UART_LSR] & UART_LSR_THRE))
		;
	uart[UART_THR] = (uint8_t)c;
}

/*
 * One hart runs, and fence.i makes every store it made visible to its
 * own instruction fetch: the range does not matter.
 */
void board_flush_icache(uintptr_t addr, size_t len)
{
	(void)addr;
	(void)len;
	mc_rt_rv_sync_icache();
}

void board_exit(int status)
{
	volatile uint32_t *test = (volatile uint32_t *)TEST_BASE;

	*test = status == 0 ? TEST_PASS :
		(uint32_t)(status & 0xffff) << 16 | TEST_FAIL;
	for (;;)
		__asm__ volatile("wfi");
}
