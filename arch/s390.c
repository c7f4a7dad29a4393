/* SPDX-License-Identifier: MIT */
/*
 * s390.c - 64-bit IBM Z (s390x), big endian.
 *
 * The machine: instructions are 2, 4 or 6 bytes long, halfword aligned,
 * the length given by the top two bits of the first byte.  Relative
 * branches count halfwords from the branch instruction itself (not from
 * its end): the "relative-long" ones used here carry a signed 32-bit RI
 * field in bytes 2..5, reaching +/- 4 GiB.  The calls and no-ops below:
 *
 *   c0 R5 RI32   brasl %rR,target   call, return address into %rR
 *   c0 M4 RI32   brcl  M,target     branch on condition mask M; with
 *                                   M = 0 never taken: `jgnop`, the
 *                                   six-byte no-op (M = 15 is `jg`)
 *   c0 10 RI32   larl  %r1,label
 *   e3 e0 f0 08 00 24   stg %r14,8(%r15)
 *   e3 e0 f0 08 00 04   lg  %r14,8(%r15)
 *
 * What GCC emits at function entry:
 *   -pg -mfentry (GCC 9+; the kernel's choice):
 *                    brasl %r0,__fentry__        the first instruction;
 *                    %r0 takes the return address so no register the
 *                    function uses is disturbed
 *   -pg:             stg %r14,8(%r15)            save the return address
 *                    brasl %r14,_mcount          in an unused stack slot
 *                    lg %r14,8(%r15)
 *   -pg, old GCC (profile counters): the same with
 *                    larl %r1,.LPn between stg and brasl
 *   -mnop-mcount:    the whole block as `brcl 0,0` no-ops of the same
 *                    length (one for -mfentry, three for -pg) and no
 *                    relocation; -mrecord-mcount: GCC's own __mcount_loc.
 *
 * GCC calls through `@PLT` even in non-PIC code, so the relocation is
 * R_390_PLT32DBL (assembler input without @PLT gives R_390_PC32DBL); it
 * sits on the RI field two bytes into the brasl, with addend +2 because
 * the field's value is relative to the instruction's start, not to the
 * field.  The site - what GCC's -mrecord-mcount records and what the
 * kernel's recordmcount computed with its fixed -14 adjustment for the
 * old larl block - is the first byte of the block: the brasl for
 * -mfentry (r_offset - 2), the stg for -pg (r_offset - 8, or - 14 with
 * the larl).
 *
 * --nop writes the bytes -mnop-mcount would have emitted: `brcl 0,0` over
 * every instruction of the block (the core voids the larl's relocation
 * with the brasl's, as both lie inside the rewritten bytes).  Leaving
 * the stg and lg of a -pg block alive would be harmless but the lg alone
 * must never stay: it would reload %r14 from a slot nothing wrote, so
 * the form's pattern pins down the whole block, lg included, before a
 * byte of it is rewritten.
 *
 * The table is R_390_64 in RELA, as both GCC and the kernel write it.
 * (31-bit s390 objects, EM_S390 ELFCLASS32, are not supported.)
 *
 * Live patching (the runtime toggles a site while other threads run it)
 * rests on two rules of the Principles of Operation and what follows:
 *   - Stores: an aligned halfword, word or doubleword store (sth, st,
 *     stg) is block-concurrent, so no other CPU sees part of it; a byte
 *     store trivially so.
 *   - Instruction fetch: a CPU may run a prefetched copy of an
 *     instruction that another CPU has since changed, until it performs
 *     a serialising operation (every interruption is one; so are bcr
 *     15,0 and compare-and-swap); and when another CPU changes an
 *     instruction, a CPU may recognise some of the changed bit positions
 *     but not all.  Block-concurrency of the store does not carry over
 *     to the fetch.
 *   - So both old and new copy must be right to run at any time, and
 *     so must every mixture of their bits.
 * So enabled and disabled forms differ in one bit: the second byte of
 * the call, where brasl's R1 field and the low opcode nibble sit.  The
 * rest of the site, the RI field included, points at the trampoline in
 * both forms and is written once, at boot, while no other thread runs:
 *
 *   -mfentry   c0 05 RI   brasl %r0,tramp   <->  c0 04 RI   brcl 0,tramp
 *   -pg        stg; c0 e5 RI brasl %r14 ... <->  stg; c0 e1 RI lgfi %r14
 *   pad        c0 15 RI   brasl %r1,tramp   <->  c0 11 RI   lgfi %r1,RI
 *
 * brcl 0 never branches (the kernel's ftrace toggles its mask the same
 * way, 0 <-> 15, where every mixture is a branch taken or not to the
 * same place).  Against %r14's or %r1's brasl, a brcl would differ in
 * two or four bits, and a mixture could be `brcl 14,tramp`, a jump to
 * the trampoline without a return address; `lgfi` (load immediate,
 * extended-immediate facility, z9 and later) is one bit away instead.
 * It writes the RI field's value into the register, which is harmless
 * in both places: the -pg block's `lg` reloads %r14 from the slot the
 * `stg` (kept) has just written, and %r1 carries nothing into a function.
 * A stale prefetched copy on another CPU is one of the two forms, so it
 * only delays the change; the byte stored is its own aligned word
 * (live_store_max 1).
 */
#include "arch.h"

/* ELF facts: the s390x ELF ABI supplement. */
enum {
	EM_S390_ = 22,

	R_390_NONE_ = 0,
	R_390_RELATIVE_ = 12,
	R_390_PC32DBL_ = 19,
	R_390_PLT32DBL_ = 20,
	R_390_64_ = 22,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name s390_reloc_names[] = {
	{ 0, "R_390_NONE" }, { 4, "R_390_32" }, { 10, "R_390_GLOB_DAT" },
	{ 11, "R_390_JMP_SLOT" }, { 12, "R_390_RELATIVE" },
	{ 19, "R_390_PC32DBL" }, { 20, "R_390_PLT32DBL" }, { 22, "R_390_64" },
	{ 26, "R_390_GOTENT" },
};

#define JGNOP 0xc0, 0x04, 0x00, 0x00, 0x00, 0x00	/* brcl 0,. */
#define STG_R14 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x24	/* stg %r14,8(%r15) */
#define LG_R14 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x04	/* lg %r14,8(%r15) */
#define ONES6 0xff, 0xff, 0xff, 0xff, 0xff, 0xff

enum {
	BRASL_LEN = 6,
	PG_BLOCK_LEN = 18,	/* stg; brasl; lg */
	PG_LARL_BLOCK_LEN = 24,	/* stg; larl; brasl; lg */
};

/* Up to four six-byte no-ops: the longest block is four instructions. */
static const uint8_t s390_nops[PG_LARL_BLOCK_LEN] = {
	JGNOP,			/* brcl 0,. */
	JGNOP,			/* brcl 0,. */
	JGNOP,			/* brcl 0,. */
	JGNOP,			/* brcl 0,. */
};

static const uint8_t stg_r14[6] = { STG_R14 };	/* stg %r14,8(%r15) */
static const uint8_t lg_r14[6] = { LG_R14 };	/* lg %r14,8(%r15) */

static const char *const s390_hook_symbols[] = {
	"__fentry__", "_mcount", NULL
};

/*
 * clang's -pg without -mfentry calls glibc's gprof entry instead:
 * "brasl %r14,mcount" with no block around it, which returns to the
 * function through %r14 and so cannot be neutralised like the kernel's
 * -pg block.  Reported per site, never taken for an object with no hooks.
 */
static const char *const s390_unsupported_hooks[] = { "mcount", NULL };

/*
 * Most specific first: the -pg blocks are recognised by their stg, and
 * only then does a lone brasl (-mfentry, or hand-written assembly) match.
 */
static const struct mc_object_form s390x_forms[] = {
	{ .name = "stg; brasl %r14; lg",
	  .reloc_types = { R_390_PLT32DBL_, R_390_PC32DBL_ },
	  .n_reloc_types = 2, .field_offset = 8, .len = PG_BLOCK_LEN,
	  .opcode = { STG_R14,				/* stg %r14,8(%r15) */
		      0xc0, 0xe5, 0, 0, 0, 0,		/* brasl %r14,_mcount */
		      LG_R14 },				/* lg %r14,8(%r15) */
	  .mask = { ONES6, 0xff, 0xff, 0, 0, 0, 0, ONES6 },
	  .opcode_len = PG_BLOCK_LEN, .nop = s390_nops },
	{ .name = "stg; larl %r1; brasl %r14; lg",
	  .reloc_types = { R_390_PLT32DBL_, R_390_PC32DBL_ },
	  .n_reloc_types = 2, .field_offset = 14, .len = PG_LARL_BLOCK_LEN,
	  .opcode = { STG_R14,				/* stg %r14,8(%r15) */
		      0xc0, 0x10, 0, 0, 0, 0,		/* larl %r1,.LPn */
		      0xc0, 0xe5, 0, 0, 0, 0,		/* brasl %r14,_mcount */
		      LG_R14 },				/* lg %r14,8(%r15) */
	  .mask = { ONES6, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0,
		    ONES6 },
	  .opcode_len = PG_LARL_BLOCK_LEN, .nop = s390_nops },
	{ .name = "brasl",
	  .reloc_types = { R_390_PLT32DBL_, R_390_PC32DBL_ },
	  .n_reloc_types = 2, .field_offset = 2, .len = BRASL_LEN,
	  .opcode = { 0xc0, 0x05 }, .mask = { 0xff, 0x0f },	/* brasl %rN */
	  .opcode_len = 2, .nop = s390_nops },
};

static bool is_brasl(const uint8_t *p)
{
	return p[0] == 0xc0 && (p[1] & 0x0f) == 0x05;
}

static bool is_brasl_r14(const uint8_t *p)
{
	return p[0] == 0xc0 && p[1] == 0xe5;
}

/* Where the relative-long instruction at `addr` (bytes `p`) points. */
static uint64_t ril_target(const uint8_t *p, uint64_t addr)
{
	return addr + (uint64_t)(mc_sign_extend(mc_get_be32(p + 2), 32) * 2);
}

static struct mc_site s390_decode_block(const uint8_t *p, size_t avail,
					uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail >= PG_BLOCK_LEN && is_brasl_r14(p + 6) &&
	    mc_bytes_equal(p + 12, lg_r14, 6))
		s = (struct mc_site){ MC_SITE_CALL, PG_BLOCK_LEN,
				      ril_target(p + 6, addr + 6) };
	else if (avail >= PG_LARL_BLOCK_LEN && p[6] == 0xc0 &&
		 p[7] == 0x10 && is_brasl_r14(p + 12) &&
		 mc_bytes_equal(p + 18, lg_r14, 6))
		s = (struct mc_site){ MC_SITE_CALL, PG_LARL_BLOCK_LEN,
				      ril_target(p + 12, addr + 12) };
	return s;
}

/*
 * A lone `brcl 0` is the six-byte NOP.  Three in a row are a -pg block
 * neutralised (by -mnop-mcount, --nop or the runtime), read as one
 * 18-byte site so that the runtime turns it back into the whole block
 * (a fourth, from the larl block, stays a NOP after it).  A -mfentry
 * site's NOP followed by two more `brcl 0` in the function's own code
 * would read as a block too: no compiler writes that.
 */
static struct mc_site s390_decode_site(const struct mc_arch *arch,
				       const uint8_t *p, size_t avail,
				       uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	(void)arch;
	if (avail >= 6 && mc_bytes_equal(p, stg_r14, 6))
		s = s390_decode_block(p, avail, addr);
	else if (avail >= BRASL_LEN && is_brasl(p))
		s = (struct mc_site){ MC_SITE_CALL, BRASL_LEN,
				      ril_target(p, addr) };
	else if (avail >= PG_BLOCK_LEN &&
		 mc_bytes_equal(p, s390_nops, PG_BLOCK_LEN))
		s = (struct mc_site){ MC_SITE_NOP, PG_BLOCK_LEN, 0 };
	else if (avail >= BRASL_LEN && mc_bytes_equal(p, s390_nops, 6))
		s = (struct mc_site){ MC_SITE_NOP, BRASL_LEN, 0 };
	return s;
}

/* One, three or four `brcl 0,0`: the lengths of the blocks above. */
static bool s390_encode_nop(const struct mc_arch *arch, uint8_t *out,
			    unsigned len)
{
	(void)arch;
	if (len != BRASL_LEN && len != PG_BLOCK_LEN &&
	    len != PG_LARL_BLOCK_LEN)
		return false;
	mc_bytes_copy(out, s390_nops, len);
	return true;
}

/* brasl %rR,target at `at`: even distance within +/- 4 GiB. */
static bool put_brasl(uint8_t *out, unsigned reg, uint64_t at,
		      uint64_t target)
{
	int64_t d = (int64_t)(target - at);

	if ((d & 1) || d / 2 < INT32_MIN || d / 2 > INT32_MAX)
		return false;
	out[0] = 0xc0;				/* brasl %rR,RI */
	out[1] = (uint8_t)(reg << 4 | 0x05);
	mc_put_be32(out + 2, (uint32_t)(int32_t)(d / 2));
	return true;
}

/*
 * Six bytes: the -mfentry call, `brasl %r0,target`.  Eighteen: the -pg
 * block restored, `stg %r14,8(%r15); brasl %r14,target; lg %r14,8(%r15)`.
 * The larl block needs its counter's address, which only the compiler
 * knows, so it has no encoding.
 */
static bool s390_encode_call(const struct mc_arch *arch, uint8_t *out,
			     unsigned len, uint64_t site, uint64_t target)
{
	uint8_t call[BRASL_LEN];

	(void)arch;
	if (len == BRASL_LEN)
		return put_brasl(out, 0, site, target);
	if (len != PG_BLOCK_LEN || !put_brasl(call, 14, site + 6, target))
		return false;
	mc_bytes_copy(out, stg_r14, 6);
	mc_bytes_copy(out + 6, call, BRASL_LEN);
	mc_bytes_copy(out + 12, lg_r14, 6);
	return true;
}

/* -fpatchable-function-entry pads: the 2-byte `nopr` (bcr 0,%r0). */
static const struct mc_insn s390_pad_nops[] = {
	{ 2, { 0x07, 0x00 } },				/* nopr */
};

/*
 * For the runtime: a pad is enabled with `brasl %r1,target` (6 bytes)
 * over its first three `nopr` at the function's entry, so a pad needs
 * -fpatchable-function-entry=3 or more (halfwords after the entry).
 * %r1, not -mfentry's %r0: %r0 is GCC's static chain on s390, which a
 * nested function reads at its entry (GCC refuses -mfentry for one, but
 * pads it like any other), while %r1 carries nothing into a function
 * (PLT stubs clobber it).  Disabling writes the three `nopr` back.
 */
static const uint8_t s390_pad_nop3[BRASL_LEN] = {
	0x07, 0x00, 0x07, 0x00, 0x07, 0x00,		/* nopr x 3 */
};

static bool s390_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				 unsigned len, uint64_t site, uint64_t target)
{
	(void)arch;
	return len == BRASL_LEN && put_brasl(out, 1, site, target);
}

static const uint8_t *s390_pad_neutral(const struct mc_arch *arch,
				       const uint8_t *p, size_t avail,
				       unsigned *len)
{
	(void)arch;
	*len = BRASL_LEN;
	return avail >= BRASL_LEN && mc_bytes_equal(p, s390_pad_nop3, BRASL_LEN) ?
		s390_pad_nop3 : NULL;
}

/*
 * The live forms (see the top of this file): the enabled `brasl` of a
 * hook or pad, disabled by one bit of its second byte.  Only the three
 * calls the runtime writes: %r0 alone (-mfentry), %r14 in the -pg block
 * and %r1 in a pad.
 */
static bool s390_live_forms(const struct mc_arch *arch, uint8_t *on,
			    uint8_t *off, unsigned pre, unsigned len, bool pad,
			    uint64_t at)
{
	unsigned call = len == PG_BLOCK_LEN && !pad ? 6 : 0;
	unsigned reg = pad ? 1 : len == PG_BLOCK_LEN ? 14 : 0;
	uint8_t *p = on + pre + call;

	(void)arch;
	(void)at;
	if ((len != BRASL_LEN && (pad || len != PG_BLOCK_LEN)) ||
	    p[0] != 0xc0 || p[1] != (uint8_t)(reg << 4 | 0x05))
		return false;
	mc_bytes_copy(off, on, pre + len);
	off[pre + call + 1] = reg ? (uint8_t)(reg << 4 | 0x01)	/* lgfi %rR */
				  : 0x04;			/* brcl 0 */
	return true;
}

/* -mnop-mcount -mfentry: a 6-byte `brcl 0,0` where the brasl would be. */
static const struct mc_object_form s390_entry_nop_form = {
	.name = "brcl 0,0 (-mnop-mcount)", .len = BRASL_LEN,
	.opcode = { JGNOP }, .mask = { ONES6 }, .opcode_len = BRASL_LEN,
	.nop = s390_nops,
};

/* For the runtime: `brcl 0,0` over every instruction of the site. */
static const uint8_t *s390_site_neutral(const struct mc_arch *arch,
					const struct mc_site *site)
{
	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN ||
	    (site->len != BRASL_LEN && site->len != PG_BLOCK_LEN &&
	     site->len != PG_LARL_BLOCK_LEN))
		return NULL;
	return s390_nops;
}

/*
 * A thunk where `brasl` (+-4 GiB) cannot reach the trampoline:
 *   c4 18 00 00 00 04   lgrl %r1, .+8
 *   07 f1               br   %r1
 *   <8 bytes>           the trampoline
 * %r1 is a PLT entry's scratch; the -mfentry hook links through %r0
 * and the -pg one through %r14, which reach the trampoline untouched.
 * A pad's call links through %r1 itself, and %r0 may hold a nested
 * function's static chain: no register is free, so no thunk for pads.
 */
static bool s390_encode_thunk(const struct mc_arch *arch, uint8_t *out,
			      uint64_t target, bool pad)
{
	static const uint8_t lgrl_br[] = {
		0xc4, 0x18, 0x00, 0x00, 0x00, 0x04,	/* lgrl %r1, .+8 */
		0x07, 0xf1,				/* br %r1 */
	};

	(void)arch;
	if (pad)
		return false;
	mc_bytes_copy(out, lgrl_br, sizeof(lgrl_br));
	mc_put_be64(out + 8, target);
	return true;
}

/*
 * A PLT entry (GNU ld): 32 bytes after a 32-byte header,
 *     c0 10 <rel32>          larl %r1, slot    (rel32 counts halfwords)
 *     e3 10 10 00 00 04      lg   %r1, 0(%r1)
 *     07 f1                  br   %r1
 * then the lazy-binding tail.  %r1 is the entry's scratch.
 */
static uint64_t s390_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			      size_t avail, uint64_t addr, uint64_t base)
{
	static const uint8_t lg_br[] = {
		0xe3, 0x10, 0x10, 0x00, 0x00, 0x04,	/* lg %r1,0(%r1) */
		0x07, 0xf1,				/* br %r1 */
	};

	(void)arch;
	(void)base;
	if (avail < 14 || p[0] != 0xc0 || p[1] != 0x10 ||	/* larl %r1 */
	    !mc_bytes_equal(p + 6, lg_br, sizeof(lg_br)))
		return 0;
	return addr + (uint64_t)mc_sign_extend(mc_get_be32(p + 2), 32) * 2;
}

static const char *const s390x_int_arg_regs[] = {
	"r2", "r3", "r4", "r5", "r6",
};

const struct mc_arch mc_arch_s390x = {
	.int_arg_regs = s390x_int_arg_regs,
	.n_int_arg_regs = 5,
	.int_ret_reg = "r2",
	.name = "s390x",
	/* the TOD clock (stckf) would do, once the recorder has an entry
	   in assembly here; till then clock_gettime */
	.trace_clock = NULL,
	.reloc_names = s390_reloc_names,
	.n_reloc_names = MC_COUNT(s390_reloc_names),
	.e_machine = EM_S390_,
	.elf_class = 64,
	.endian = MC_BIG_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_390_64_,
	.none_reloc = R_390_NONE_,
	.relative_reloc = R_390_RELATIVE_,
	.hook_symbols = s390_hook_symbols,
	.unsupported_hooks = s390_unsupported_hooks,
	.unsupported_why = "clang's -pg without -mfentry calls glibc's "
		"'mcount' (brasl %r14,mcount), which is not supported "
		"(compile with -mfentry)",
	.forms = s390x_forms,
	.pad_nops = s390_pad_nops, .n_pad_nops = 1,
	.pad_call_len = BRASL_LEN,
	.encode_pad_call = s390_encode_pad_call,
	.pad_neutral = s390_pad_neutral,
	.entry_nop_form = &s390_entry_nop_form,
	.n_forms = sizeof(s390x_forms) / sizeof(s390x_forms[0]),
	/* Both -mfentry and -pg put the block first in the function. */
	.max_entry_offset = 0,
	.live_store_max = 1,	/* one byte: the forms differ in one bit */
	.live_forms = s390_live_forms,
	.insn_step = 2,
	.decode_site = s390_decode_site,
	.encode_nop = s390_encode_nop,
	.encode_call = s390_encode_call,
	.site_neutral = s390_site_neutral,
	.thunk_len = 16,
	.call_reach = 4ull << 30,
	.encode_thunk = s390_encode_thunk,
	.plt_slot = s390_plt_slot,
	.plt_read = 14,
	.plt_step = 2,
};
