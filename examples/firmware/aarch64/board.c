/* SPDX-License-Identifier: MIT */
/*
 * board.c - QEMU's aarch64 virt board: a PL011 UART at 0x09000000, and
 * semihosting (-semihosting) to end the emulator with a status.
 */
#include "../../../runtime/platform.h"
#include "../fw.h"

#define UART_BASE 0x09000000ul
#define UART_DR 0x00		/* data register */
#define UART_FR 0x18		/* flag register */
#define UART_FR_TXFF 0x20	/* transmit FIFO full */

#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

const char board_name[] = "aarch64 (QEMU virt, cortex-a57, EL1, MMU off)";

void board_putc(char c)
{
	volatile uint32_t *uart = (volatile uint32_t *)UART_BASE;

	while (uart[UART_FR / 4] & UART_FR_TXFF)
		;
	uart[UART_DR / 4] = (uint8_t)c;
}

/*
 * With the MMU off data is not cached, but instruction fetch may be:
 * the backend's clean-to-PoU / invalidate / barriers sequence.
 */
void board_flush_icache(uintptr_t addr, size_t len)
{
	mc_rt_a64_sync_icache(addr, len);
}

/* SYS_EXIT with a 64-bit parameter block: reason, then status. */
void board_exit(int status)
{
	uint64_t block[2] = { ADP_STOPPED_APPLICATION_EXIT,
			      (uint64_t)(uint32_t)status };
	register uint64_t op __asm__("x0") = SYS_EXIT;
	register uint64_t arg __asm__("x1") = (uint64_t)(uintptr_t)block;

	__asm__ volatile("hlt #0xf000" : : "r"(op), "r"(arg) : "memory");
	for (;;)
		__asm__ volatile("wfe");
}
