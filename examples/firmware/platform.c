/* SPDX-License-Identifier: MIT */
/*
 * platform.c - the runtime's platform hooks for bare metal, over the
 * board's three functions (board.c), and the firmware's console.
 *
 * The machine after reset: one CPU, no MMU (or no PMP), so the whole
 * image is readable, writable and executable at its link address; no
 * interrupts are enabled.  Hence text_open/close do nothing, "mapped"
 * means inside the image the linker script laid out, and the recursion
 * guard is a plain flag.  Storage is a static arena.
 *
 * Function names come from fw_syms (syms.c), generated from the linked
 * image itself, which also gives the firmware the by-name calls that
 * hosted programs get from their .symtab.
 *
 * Built without hooks: the engine calls all of this while patching.
 */
#include <stdarg.h>
#include <stdbool.h>

#include <mcount.h>

#include "../../runtime/platform.h"
#include "../../arch/search.h"
#include "fw.h"

/* ---- console ----------------------------------------------------------- */

static void put_str(const char *s)
{
	while (*s) {
		if (*s == '\n')
			board_putc('\r');
		board_putc(*s++);
	}
}

static void put_num(unsigned long v, unsigned base, bool negative)
{
	char buf[24];
	int n = 0;

	do {
		buf[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (negative)
		board_putc('-');
	while (n)
		board_putc(buf[--n]);
}

void fw_printf(const char *fmt, ...)
{
	va_list ap;
	char one[2] = "";

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		bool l = false;
		long d;

		if (*fmt != '%') {
			one[0] = *fmt;
			put_str(one);
			continue;
		}
		if (*++fmt == 'l') {
			l = true;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			put_str(va_arg(ap, const char *));
			break;
		case 'c':
			board_putc((char)va_arg(ap, int));
			break;
		case 'd':
			d = l ? va_arg(ap, long) : va_arg(ap, int);
			put_num(d < 0 ? -(unsigned long)d : (unsigned long)d,
				10, d < 0);
			break;
		case 'u':
			put_num(l ? va_arg(ap, unsigned long) :
				va_arg(ap, unsigned), 10, false);
			break;
		case 'x':
			put_num(l ? va_arg(ap, unsigned long) :
				va_arg(ap, unsigned), 16, false);
			break;
		case 'p':
			put_str("0x");
			put_num((unsigned long)va_arg(ap, void *), 16, false);
			break;
		default:
			board_putc('%');
			if (!*fmt)
				fmt--;
			else
				board_putc(*fmt);
		}
	}
	va_end(ap);
}

void fw_trap(uintptr_t cause, uintptr_t pc, uintptr_t addr)
{
	fw_printf("\ntrap: cause 0x%lx at pc 0x%lx, address 0x%lx\n"
		  "firmware: FAIL: unexpected exception\n",
		  (unsigned long)cause, (unsigned long)pc,
		  (unsigned long)addr);
	board_exit(1);
}

/* ---- symbols ----------------------------------------------------------- */

static bool sym_starts_by(const void *sym, const void *addr)
{
	return ((const struct fw_sym *)sym)->addr <= *(const uintptr_t *)addr;
}

/* The function containing `addr`, or NULL. */
static const struct fw_sym *sym_by_addr(uintptr_t addr)
{
	/* the symbols that start at or before addr: the last may hold it */
	size_t lo = mc_partition_point(fw_syms, fw_nsyms, sizeof(*fw_syms),
				       &addr, sym_starts_by);

	if (lo == 0 || addr - fw_syms[lo - 1].addr >= fw_syms[lo - 1].size)
		return NULL;
	return &fw_syms[lo - 1];
}

static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static const struct fw_sym *sym_by_name(const char *name)
{
	for (size_t i = 0; i < fw_nsyms; i++)
		if (same_name(fw_syms[i].name, name))
			return &fw_syms[i];
	return NULL;
}

const char *mcount_func_name(unsigned long addr, unsigned long *offset)
{
	const struct fw_sym *s = sym_by_addr((uintptr_t)addr);

	if (s && offset)
		*offset = addr - s->addr;
	return s ? s->name : NULL;
}

int mcount_enable_name(const char *name)
{
	const struct fw_sym *s = sym_by_name(name);

	if (!fw_nsyms)
		return MCOUNT_ENOSYMTAB;
	return s ? mcount_enable(s->addr) : MCOUNT_ENOSYM;
}

int mcount_disable_name(const char *name)
{
	const struct fw_sym *s = sym_by_name(name);

	if (!fw_nsyms)
		return MCOUNT_ENOSYMTAB;
	return s ? mcount_disable(s->addr) : MCOUNT_ENOSYM;
}

/* ---- the engine's hooks ------------------------------------------------ */

static uint8_t arena[16 * 1024] __attribute__((aligned(16)));
static size_t arena_used;

void *mc_plat_alloc(size_t bytes)
{
	void *p = arena + arena_used;

	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes > sizeof(arena) - arena_used)
		return NULL;
	arena_used += bytes;
	return p;
}

size_t mc_plat_mem_avail(uintptr_t addr, bool code)
{
	uintptr_t lo = (uintptr_t)(code ? __text_start : __image_start);
	uintptr_t hi = (uintptr_t)(code ? __text_end : __image_end);

	return addr >= lo && addr < hi ? hi - addr : 0;
}

int mc_plat_text_open(uintptr_t addr, size_t len)
{
	return mc_plat_mem_avail(addr, true) >= len ? 0 : -1;
}

void mc_plat_text_close(void)
{
}

/* No path that bypasses protection here; text_open's window serves. */
bool mc_plat_text_poke(uintptr_t addr, uint8_t byte)
{
	(void)addr;
	(void)byte;
	return false;
}

void mc_plat_flush_icache(uintptr_t addr, size_t len)
{
	board_flush_icache(addr, len);
}

void mc_plat_report(uintptr_t addr, const uint8_t *bytes, size_t n,
		    const char *why)
{
	unsigned long off = 0;
	const char *name = mcount_func_name(addr, &off);

	fw_printf("mcount: refused site 0x%lx", (unsigned long)addr);
	if (name)
		fw_printf(" <%s+0x%lx>", name, off);
	fw_printf(":");
	for (size_t i = 0; i < n && i < 8; i++)
		fw_printf(" %x%x", bytes[i] >> 4, bytes[i] & 15);
	fw_printf("%s%s\n", n ? ": " : " ", why);
}

/* The image's script (fw.lds) always places the table. */
int mc_plat_table(const uintptr_t **start, const uintptr_t **stop)
{
	(void)start;
	(void)stop;
	return 0;
}

bool mc_plat_func_bounds(uintptr_t addr, uintptr_t *start, size_t *size)
{
	const struct fw_sym *s = sym_by_addr(addr);

	if (!s)
		return false;
	*start = s->addr;
	*size = s->size;
	return true;
}

static bool in_callback;

MC_RT_NOTRACE bool mc_plat_enter(void)
{
	if (in_callback)
		return false;
	in_callback = true;
	return true;
}

MC_RT_NOTRACE void mc_plat_leave(void)
{
	in_callback = false;
}

/*
 * One core, and nothing hooked runs from interrupts while the firmware
 * patches: no lock is needed, every store is seen by the only core
 * once its caches are maintained, and nothing else runs the code.
 */
void mc_plat_lock(void)
{
}

void mc_plat_unlock(void)
{
}

bool mc_plat_sync_ready(bool required)
{
	(void)required;
	return true;
}

void mc_plat_sync_cores(void)
{
}

bool mc_plat_quiescent(void)
{
	return true;
}
