/* SPDX-License-Identifier: MIT */
/*
 * text.c - the write window over code: what the platform said is
 * readable and what it made writable, kept so that the boot pass asks
 * once per mapping rather than once per site, and the span of code
 * written and not yet flushed to instruction fetch (core.h has the
 * inline fast paths: text_open, note_written, write_code).
 */
#include "../platform.h"
#include "window.h"

struct text_window mc_rt_text;

size_t mc_rt_code_avail_far(uintptr_t addr)
{
	size_t n = mc_plat_mem_avail(addr, true);

	mc_rt_text.code.lo = addr;
	mc_rt_text.code.hi = addr + n;
	return n;
}

void mc_rt_text_close(void)
{
	mc_plat_text_close();
	mc_rt_text.code.lo = mc_rt_text.code.hi = 0;
	mc_rt_text.open.lo = mc_rt_text.open.hi = 0;
}

bool mc_rt_text_open_more(uintptr_t addr, size_t len, bool rest)
{
	size_t n = window_code_avail(&mc_rt_text, addr);

	if (!n)
		n = mc_rt_code_avail_far(addr);
	if (n < len || mc_plat_text_open(addr, rest ? n : len) != 0)
		return false;
	mc_rt_text.open.lo = addr;
	mc_rt_text.open.hi = addr + (rest ? n : len);
	return true;
}

/*
 * Flush now, start a span, or widen it downward: `addr` is not just
 * past (or inside) the span gathered so far.
 */
void mc_rt_note_written_far(uintptr_t addr, size_t len)
{
	if (!mc_rt_text.flush.on) {
		mc_plat_flush_icache(addr, len);
		return;
	}
	if (mc_rt_text.flush.hi > mc_rt_text.flush.lo &&
	    (addr + len + FLUSH_GAP < mc_rt_text.flush.lo ||
	     addr > mc_rt_text.flush.hi + FLUSH_GAP)) {
		mc_plat_flush_icache(mc_rt_text.flush.lo,
				     mc_rt_text.flush.hi - mc_rt_text.flush.lo);
		mc_rt_text.flush.lo = mc_rt_text.flush.hi = 0;
	}
	if (mc_rt_text.flush.lo == mc_rt_text.flush.hi ||
	    addr < mc_rt_text.flush.lo)
		mc_rt_text.flush.lo = addr;
	if (addr + len > mc_rt_text.flush.hi)
		mc_rt_text.flush.hi = addr + len;
}

/*
 * A toggle's usual batch is one site: its store through the platform's
 * poke costs a system call or two, where a window costs two protection
 * changes, each flushing the page from every core's TLB.  A large
 * batch writes many sites a page: past the first few, the window's
 * plain stores are cheaper.
 */
#define POKE_MAX 16

bool mc_rt_text_poke(uintptr_t addr, uint8_t byte)
{
	if (mc_rt_text.pokes >= POKE_MAX || !mc_plat_text_poke(addr, byte))
		return false;
	mc_rt_text.pokes++;
	return true;
}

void mc_rt_flush_begin(void)
{
	mc_rt_text.pokes = 0;
	mc_rt_text.flush.on = true;
	mc_rt_text.flush.lo = mc_rt_text.flush.hi = 0;
}

void mc_rt_flush_end(void)
{
	mc_rt_text.flush.on = false;
	if (mc_rt_text.flush.hi > mc_rt_text.flush.lo)
		mc_plat_flush_icache(mc_rt_text.flush.lo,
				     mc_rt_text.flush.hi - mc_rt_text.flush.lo);
}
