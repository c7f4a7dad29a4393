/* SPDX-License-Identifier: MIT */
/*
 * format.h - the file a recording writes (MCOUNT_TRACE=FILE, any name
 * not ending in .json) and mctrace reads.  Shared by recorder/ and
 * mctrace/; nothing else.
 *
 * Little-endian words, whatever the recorder's byte order (a big-endian
 * one, s390x, swaps them as it writes).  The file is a header, then blocks, each
 * opened by a struct mct_block.  A reader skips blocks of kinds it does
 * not know, by `bytes`.
 *
 *   MCT_EVENTS   `bytes` / 16 events of thread `tid`, in its order
 *   MCT_NAME     one function name: u64 address, then the name's bytes
 *                (bytes - 8 of them, no NUL)
 *   MCT_LOST     u64: calls of thread `tid` not recorded so far (its
 *                buffer or shadow stack was full); the last one counts
 *   MCT_CLOCK    two u64 pairs (ticks, ns): the clock's ticks at two
 *                instants and CLOCK_MONOTONIC then, in ns; timestamps
 *                convert linearly through them (the last block wins)
 *   MCT_NAME_AT  a name from a time on: u64 address, u64 ticks, u64
 *                base, then the name's bytes (bytes - 24); it names the
 *                events at that address from those ticks on (the load
 *                of a library opened while recording, mapped from
 *                `base`), until a later one of the address or an
 *                MCT_UNLOAD over it
 *   MCT_UNLOAD   three u64: lo, hi, ticks: the object mapped at [lo, hi)
 *                was unloaded then; names of addresses in it end there
 *
 * An MCT_NAME names its address from the start.  A library closed and
 * another (or the same) opened at its address give one address several
 * names over time: a reader takes the one in force at the ticks of the
 * call's entry.  A reader that knows only MCT_NAME skips the others and
 * shows those functions by address, never by a wrong name.
 *
 * An event is two u64: `word` = ticks << 2 | kind, and `func`, which
 * names the function: a run-time address inside it, the same for all
 * its events (the return address of its hook), and the address of its
 * MCT_NAME block.  Ticks are rec_ticks()'s (rdtsc on x86), converted
 * through MCT_CLOCK.  Exits name their function too, so a reader can
 * check each against its entry.
 */
#ifndef MCT_FORMAT_H
#define MCT_FORMAT_H

#include <stdint.h>

#define MCT_MAGIC "MCTRACE1"

enum mct_kind {
	MCT_ENTRY = 0,
	MCT_EXIT = 1,
};

enum mct_block_kind {
	MCT_EVENTS = 1,
	MCT_NAME = 2,
	MCT_LOST = 3,
	MCT_CLOCK = 4,
	MCT_NAME_AT = 5,
	MCT_UNLOAD = 6,
};

struct mct_header {
	char magic[8];		/* MCT_MAGIC */
	uint32_t pid;
	uint32_t flags;		/* 0 */
	uint64_t min_time_ns;	/* --min-time: readers drop shorter calls */
};

struct mct_block {
	uint32_t kind;		/* enum mct_block_kind */
	uint32_t tid;
	uint64_t bytes;		/* of the payload that follows */
};

struct mct_event {
	uint64_t word;		/* ticks << 2 | enum mct_kind */
	uint64_t func;
};

#define MCT_TICKS(w) ((w) >> 2)
#define MCT_KIND(w) ((unsigned)((w) & 3))

#endif
