/* SPDX-License-Identifier: MIT */
/*
 * format.h - the file a recording writes (MCOUNT_TRACE=FILE, any name
 * not ending in .json) and mctrace reads.  Shared by recorder/ and
 * mctrace/; nothing else.
 *
 * Little-endian words, whatever the recorder's byte order (a big-endian
 * one, s390x, swaps them as it writes).  The file is a header, then
 * blocks, each opened by a struct mct_block.  A reader skips blocks of
 * kinds it does not know, by `bytes`, and refuses a file whose magic
 * names another version (MCT_VERSION): its events would not decode.
 * A file may end in the middle of a block (a recording killed): every
 * whole block before it stands.  A damaged block (a kind of 0, a size
 * past the end, events that do not decode) is skipped: mctrace finds
 * the next block at the first later byte that starts a whole, sane
 * block (a known kind, a tid within Linux's pid limit, a size its kind
 * allows) followed by another sane header or the end (mctrace/trace.c).
 *
 *   MCT_EVENTS   events of thread `tid`, in its order, compact (below)
 *   MCT_NAME     one function name: u64 address, then the name's bytes
 *                (bytes - 8 of them, no NUL)
 *   MCT_LOST     u64: calls of thread `tid` not recorded so far, for
 *                whatever reason; the last one counts
 *   MCT_LOST_WHY u64 each: the same calls by reason, one count per
 *                enum mct_lost_why in its order (bytes / 8 of them:
 *                a reader counts the ones it does not know as of
 *                another reason); the last one counts.  Written with
 *                an MCT_LOST of their sum, which a reader that knows
 *                only MCT_LOST reads alone
 *   MCT_CLOCK    two u64 pairs (ticks, ns): the clock's ticks at two
 *                instants and CLOCK_MONOTONIC then, in ns; timestamps
 *                convert linearly through them.  Written early in the
 *                recording, again as it goes and at its end, so a file
 *                cut short keeps one: a reader uses the last whole one
 *                for every event, those before it too
 *   MCT_NAME_AT  a name from a time on: u64 address, u64 ticks, u64
 *                base, then the name's bytes (bytes - 24); it names the
 *                events at that address from those ticks on (the load
 *                of a library opened while recording, mapped from
 *                `base`), until a later one of the address or an
 *                MCT_UNLOAD over it
 *   MCT_UNLOAD   three u64: lo, hi, ticks: the object mapped at [lo, hi)
 *                was unloaded then; names of addresses in it end there
 *   MCT_INFO     what the recording is of, written once by each process
 *                as it starts (tid: its pid): "key=value" strings, each
 *                ended by a NUL; a reader ignores keys it does not know.
 *                Keys: exe (the program's path), arg (one per argument,
 *                argv[0] first, in order), pid, ppid, start_ns
 *                (CLOCK_REALTIME, ns), start_ticks, clock (what ticks
 *                count: arch/'s trace_clock), build_id (hex),
 *                sites (hooks the runtime knows), sites_enabled
 *   MCT_PROCESS  another process of the same recording (tid: its pid):
 *                its whole trace, a header and blocks as it wrote them
 *                to FILE.PID (recorder/start.c), which `mctrace record`
 *                appends to FILE once the program has ended, so that a
 *                process tree is one file.  A reader reads the payload
 *                as a trace of its own (its own names, addresses and
 *                clock: a child from exec has another program's) and
 *                gives its threads that pid; a payload cut short reads
 *                as a trace cut short.  One level only: an MCT_PROCESS
 *                inside one is skipped.  A reader that does not know
 *                the kind skips it and reads the first process alone
 *   MCT_ARGS     the values captured (mctrace record -A/-R) among the
 *                events of the MCT_EVENTS block of thread `tid` that
 *                comes next: u64 that block's `ticks`, u32 its `count`,
 *                u32 0, then items of 16 bytes: u32 `at` (how many of
 *                the block's events come before it), u32 the item's
 *                word (MCT_DATA_*, below), u64 its value.  An item
 *                belongs to the innermost call open at its place: an
 *                argument follows its call's entry, a return value
 *                precedes its exit.  A reader that does not know the
 *                kind skips it and shows the calls without values; one
 *                whose next MCT_EVENTS block is not the one it names
 *                (damaged, lost) drops it
 *
 * An MCT_NAME names its address from the start.  A library closed and
 * another (or the same) opened at its address give one address several
 * names over time: a reader takes the one in force at the ticks of the
 * call's entry.  A reader that knows only MCT_NAME skips the others and
 * shows those functions by address, never by a wrong name.
 *
 * Ticks are rec_ticks()'s (rdtsc on x86, CNTVCT_EL0 on aarch64, rdtime
 * on riscv64, CLOCK_MONOTONIC's ns elsewhere), converted through
 * MCT_CLOCK.
 * A function is named by a run-time address inside it, the same for all
 * its events (the return address of its hook), and the address of its
 * MCT_NAME block.
 *
 * An MCT_EVENTS block is a struct mct_events, then its events as bytes:
 * one op byte, then for an entry of a function the block has not named
 * yet its u64 address (8 bytes), then the ticks since the previous
 * event (the block's first: since `ticks`), zigzag LEB128 (they may go
 * back when a thread moves between CPUs).  Op:
 *
 *   0x00-0x0f  an exit, of the innermost open call; the op is that
 *              function's MCT_EXIT_TAG, which the reader checks
 *   0x10       an entry of a function the block has not named: its
 *              address follows, and it takes the block's next slot
 *   0x11-0xff  an entry of the function in slot op - 0x11 (slots in the
 *              order the block first named them; a block names at most
 *              MCT_SLOTS functions, later new ones go as 0x10 each time)
 *
 * Each block starts from an absolute time and its own slots, so a block
 * stands alone: a block lost or cut short cannot move or rename the
 * events of the next.
 */
#ifndef MCT_FORMAT_H
#define MCT_FORMAT_H

#include <stdint.h>

#define MCT_MAGIC "MCTRACE2"
#define MCT_MAGIC_STEM 7	/* "MCTRACE": the version digit follows */
#define MCT_VERSION 2

enum mct_kind {
	MCT_ENTRY = 0,
	MCT_EXIT = 1,
	MCT_DATA = 2,		/* a value captured: MCT_ARGS's items */
};

enum mct_block_kind {
	MCT_EVENTS = 1,
	MCT_NAME = 2,
	MCT_LOST = 3,
	MCT_CLOCK = 4,
	MCT_NAME_AT = 5,
	MCT_UNLOAD = 6,
	MCT_LOST_WHY = 7,
	MCT_INFO = 8,
	MCT_PROCESS = 9,
	MCT_ARGS = 10,
	MCT_BLOCK_KINDS		/* one past the last kind this version has */
};

/*
 * Why a call was not recorded (recorder/record.c).  New reasons go at
 * the end: a file's counts are in this order.
 */
enum mct_lost_why {
	MCT_LOST_RING,		/* its thread's ring had no room: the
				   writer fell behind */
	MCT_LOST_SHADOW,	/* the shadow stack was full (deep
				   recursion) */
	MCT_LOST_FRAME,		/* its return address could not be found
				   (recorder/<arch>/frame.c) */
	MCT_LOST_STACK,		/* it ran on another stack (sigaltstack,
				   a coroutine) */
	MCT_LOST_WHYS
};

/* How readers and the recorder's end message name each reason. */
static inline const char *mct_lost_why_text(unsigned why)
{
	static const char *const text[MCT_LOST_WHYS] = {
		"buffers full", "shadow stack full",
		"return address not found", "on another stack",
	};

	return why < MCT_LOST_WHYS ? text[why] : "another reason";
}

/* The same as a JSON key ("lost_" and the text, '_' for ' '). */
static inline const char *mct_lost_why_key(unsigned why)
{
	static const char *const key[MCT_LOST_WHYS] = {
		"lost_buffers_full", "lost_shadow_stack_full",
		"lost_return_address_not_found", "lost_on_another_stack",
	};

	return why < MCT_LOST_WHYS ? key[why] : "lost_another_reason";
}

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

/* The head of an MCT_EVENTS block's payload. */
struct mct_events {
	uint64_t ticks;		/* the first event's delta is from this */
	uint32_t count;		/* events that follow */
	uint32_t flags;		/* 0 */
};

#define MCT_OP_EXIT_END 0x10	/* ops below it are exits */
#define MCT_OP_NEW 0x10
#define MCT_OP_SLOT0 0x11
#define MCT_SLOTS (0x100 - MCT_OP_SLOT0)
/* The most bytes one event takes: op, address, a 64-bit LEB128. */
#define MCT_EVENT_MAX (1 + 8 + 10)

/* The 4-bit check an exit carries of the function it leaves. */
static inline unsigned mct_exit_tag(uint64_t func)
{
	return (unsigned)((func * 0x9e3779b97f4a7c15ull) >> 60);
}

/*
 * An event in a recorder's ring (not in the file): `word` = ticks << 2 |
 * kind, and `func`.  Exits name their function too: the writer takes
 * its tag from it.
 */
struct mct_event {
	uint64_t word;		/* ticks << 2 | enum mct_kind */
	uint64_t func;
};

#define MCT_TICKS(w) ((w) >> 2)
#define MCT_KIND(w) ((unsigned)((w) & 3))

/*
 * An MCT_DATA event (in the ring, and an MCT_ARGS item's word): no
 * ticks, but what the value is.  Bits 0-1 the kind; bit 2 set: the
 * next bytes of the string the last item began (`func` holds up to 8
 * of them, MCT_DATA_LEN of them); else a value: bits 3-6 which (0 the
 * return value, n the nth argument), bits 8-15 its format as mctrace
 * record -A takes it ('d' signed, 'u' unsigned, 'x' hex, 'p' pointer,
 * 'c' character, 's' string), bits 16-23 its bits (8, 16, 32, 64: the
 * low ones of the register count); for a string, `func` is the
 * pointer, bits 16-23 an enum mct_str and bits 24-31 the bytes of it
 * that follow, in items of their own.
 */
#define MCT_DATA_MORE 4u
#define MCT_DATA_WORD(which, fmt, bits, len) \
	((uint64_t)MCT_DATA | (uint64_t)(which) << 3 | \
	 (uint64_t)(uint8_t)(fmt) << 8 | (uint64_t)(bits) << 16 | \
	 (uint64_t)(len) << 24)
#define MCT_DATA_WHICH(w) ((unsigned)((w) >> 3) & 15)
#define MCT_DATA_FMT(w) ((char)((w) >> 8))
#define MCT_DATA_BITS(w) ((unsigned)((w) >> 16) & 255)
#define MCT_DATA_LEN(w) ((unsigned)((w) >> 24) & 255)
#define MCT_DATA_MAX_ARGS 15	/* `which` has 4 bits */

/* What a string argument's pointer led to. */
enum mct_str {
	MCT_STR_OK,		/* a string, whole: its bytes follow */
	MCT_STR_NULL,		/* a null pointer */
	MCT_STR_BAD,		/* a pointer to no readable memory */
	MCT_STR_CUT,		/* longer than the bytes that follow */
};

#endif
