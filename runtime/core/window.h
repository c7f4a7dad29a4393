/* SPDX-License-Identifier: MIT */
/*
 * window.h - the text window's state and text.c's calls: what core.h's
 * inline fast paths (text_open, note_written, write_code, code_avail)
 * and text.c share.
 */
#ifndef MC_RT_WINDOW_H
#define MC_RT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform.h"

/*
 * The state of writing code, shared by the boot pass and the toggles
 * (one at a time: both hold the patching lock).
 */
struct text_window {
	/*
	 * Code written and not yet made visible to instruction fetch:
	 * [lo, hi), while `on` (a boot pass, a batch of toggles).  Nothing
	 * runs the patched code until mcount_boot() returns (the engine
	 * and the platform are not traced), so one flush of the whole span
	 * at the end serves every site.
	 */
	struct {
		bool on;
		uintptr_t lo, hi;
	} flush;
	/* An image's boot pass is running: it may open whole spans. */
	bool whole;
	/* One-byte stores made through the platform's poke this batch. */
	unsigned pokes;
	/*
	 * The platform's last answers, so that the boot pass asks once per
	 * mapping rather than once per site (the table is sorted, so its
	 * sites come in runs inside one text segment): code readable in
	 * [code.lo, code.hi), and writable in [open.lo, open.hi) until
	 * mc_rt_text_close().  Both are forgotten when the window closes.
	 */
	struct {
		uintptr_t lo, hi;
	} code, open;
};
MC_RT_HIDDEN extern struct text_window mc_rt_text;

/*
 * Bytes of code readable from `addr` on, as the window's last answer
 * says; 0 when that answer does not cover addr.
 */
static inline size_t window_code_avail(const struct text_window *w,
				       uintptr_t addr)
{
	return addr >= w->code.lo && addr < w->code.hi ? w->code.hi - addr : 0;
}

/* code_avail's answer when addr is outside the last one. */
MC_RT_HIDDEN size_t mc_rt_code_avail_far(uintptr_t addr);
/* Close the platform's window and forget its answers. */
MC_RT_HIDDEN void mc_rt_text_close(void);
/* text_open's answer when [addr, addr + len) is not open yet. */
MC_RT_HIDDEN bool mc_rt_text_open_more(uintptr_t addr, size_t len, bool rest);
/* note_written's answer where `addr` is not near the span so far. */
MC_RT_HIDDEN void mc_rt_note_written_far(uintptr_t addr, size_t len);
/*
 * Store one byte of live code through the platform's poke, which leaves
 * no page writable; false when the batch should open a window instead.
 */
MC_RT_HIDDEN bool mc_rt_text_poke(uintptr_t addr, uint8_t byte);
/* Start gathering written code into one flush, and flush it all. */
MC_RT_HIDDEN void mc_rt_flush_begin(void);
MC_RT_HIDDEN void mc_rt_flush_end(void);

/*
 * Writes farther than this from the span gathered so far start a span
 * of their own, the old one flushed first: a batch across objects (the
 * program's sites and a library's, gigabytes apart) must not make the
 * platform clean every cache line in between (on aarch64, a `dc cvau`
 * per 64 bytes of the gap).
 */
#define FLUSH_GAP ((uintptr_t)64 * 1024)

#endif
