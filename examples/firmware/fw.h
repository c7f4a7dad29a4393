/* SPDX-License-Identifier: MIT */
/*
 * fw.h - the pieces of the bare-metal firmware example and how they
 * meet.
 *
 *   <board>/start.S   reset: stack, bss, trap vector, then fw_main()
 *   <board>/board.c   the board's UART, cache maintenance and exit
 *   <board>/fw.lds    the complete linker script (INCLUDEs the table)
 *   platform.c        the runtime's platform hooks (runtime/platform.h)
 *                     over the board, plus fw_printf and the symbols
 *   main.c, work.c    the firmware proper, compiled with hooks (-pg)
 *   syms.c            generated from the linked image by mksyms.sh
 *
 * No libc anywhere: mem.c has the four functions GCC may call itself.
 */
#ifndef FW_H
#define FW_H

#include <stddef.h>
#include <stdint.h>

/* ---- each board's board.c ---------------------------------------------- */

extern const char board_name[];
void board_putc(char c);
/* Make [addr, addr + len) as written by data stores visible to fetch. */
void board_flush_icache(uintptr_t addr, size_t len);
/* Leave the emulator: status 0 is a pass, anything else a failure. */
__attribute__((noreturn)) void board_exit(int status);

/* ---- platform.c -------------------------------------------------------- */

/* %s %c %d %u %x %p, with an optional l on the integers; nothing else. */
__attribute__((format(printf, 1, 2))) void fw_printf(const char *fmt, ...);

/* Called by start.S for any exception: prints what it can and fails. */
__attribute__((noreturn)) void fw_trap(uintptr_t cause, uintptr_t pc,
				       uintptr_t addr);

/* ---- syms.c (generated) ------------------------------------------------ */

/* One function of the linked image, sorted by address. */
struct fw_sym {
	uintptr_t addr;
	size_t size;
	const char *name;
};

extern const struct fw_sym fw_syms[];
extern const size_t fw_nsyms;

/* ---- the linker script ------------------------------------------------- */

extern char __image_start[], __text_start[], __text_end[], __image_end[];

#endif
