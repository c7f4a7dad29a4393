/* SPDX-License-Identifier: MIT */
/*
 * aarch64.c - 64-bit ARM (AArch64), little endian.
 *
 * The machine: every instruction is 4 bytes, 4-byte aligned, and stored
 * little endian even on a big-endian (aarch64_be) system, where only
 * data is big endian.  Patching one aligned 4-byte word is atomic with
 * respect to instruction fetch, which is why a hook is always a single
 * instruction here.
 *
 * What GCC emits for -pg (at any -O level, PIC or not): after the frame
 * record is set up, the caller's return address is passed in x0 and the
 * hook is called directly:
 *
 *     stp  x29, x30, [sp, #-N]!
 *     mov  x29, sp
 *     ...                  (callee-saved stores, xpaclri on GCC 12)
 *     mov  x0, x30
 *     bl   _mcount         R_AARCH64_CALL26 _mcount
 *
 * The relocation sits on the `bl` itself (imm26 is the low 26 bits of
 * the word), so the site is the `bl`: field_offset 0, length 4.  -fpic
 * and PIE change nothing, because `bl` reaches +-128 MiB and the linker
 * inserts a veneer (or a PLT entry) when the hook is farther or in a
 * shared library; the call in the object stays a plain `bl`.  A tail
 * call to the hook (`b _mcount`, R_AARCH64_JUMP26) is never emitted for
 * -pg and would not be an entry hook, so it is not a form.
 *
 * The neutral replacement is `nop` (d503201f), as in the kernel's arm64
 * ftrace.  Skipping the call is safe although `mov x0, x30` has already
 * overwritten the first argument: GCC treats the hook as an ordinary
 * call that clobbers x0-x18, so it moved the argument to a callee-saved
 * register first (`mov w19, w0`) and never reads x0 again.
 *
 * The table: R_AARCH64_ABS64 in RELA (the psABI's only relocation
 * format), R_AARCH64_RELATIVE in a PIE's dynamic table.
 *
 * Linked code: `bl` is 100101 imm26, target = site + sext(imm26) * 4.
 * A hook too far for `bl` is reached through a linker veneer, and the
 * decoder reports the veneer's address: following it is the runtime's
 * business.
 */
#include "arch.h"

enum {
	EM_AARCH64_ = 183,

	R_AARCH64_NONE_ = 0,
	R_AARCH64_ABS64_ = 257,
	R_AARCH64_CALL26_ = 283,
	R_AARCH64_RELATIVE_ = 1027,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name a64_reloc_names[] = {
	{ 0, "R_AARCH64_NONE" }, { 257, "R_AARCH64_ABS64" },
	{ 258, "R_AARCH64_ABS32" }, { 261, "R_AARCH64_PREL32" },
	{ 275, "R_AARCH64_ADR_PREL_PG_HI21" },
	{ 277, "R_AARCH64_ADD_ABS_LO12_NC" }, { 282, "R_AARCH64_JUMP26" },
	{ 283, "R_AARCH64_CALL26" }, { 311, "R_AARCH64_ADR_GOT_PAGE" },
	{ 312, "R_AARCH64_LD64_GOT_LO12_NC" }, { 1025, "R_AARCH64_GLOB_DAT" },
	{ 1026, "R_AARCH64_JUMP_SLOT" }, { 1027, "R_AARCH64_RELATIVE" },
};

#define A64_BL 0x94000000u		/* bl #0 */
#define A64_BL_MASK 0xfc000000u		/* opcode bits of b/bl */
#define A64_BL_RANGE (128ll << 20)	/* +-128 MiB */

static const uint8_t a64_nop[4] = { 0x1f, 0x20, 0x03, 0xd5 };	/* nop */

static const char *const a64_hook_symbols[] = { "_mcount", NULL };

static const struct mc_object_form a64_forms[] = {
	{ .name = "bl",
	  .reloc_types = { R_AARCH64_CALL26_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { 0x00, 0x00, 0x00, 0x94 },		/* bl imm26 */
	  .mask = { 0x00, 0x00, 0x00, 0xfc }, .opcode_len = 4,
	  .nop = a64_nop },
};

static bool a64_encode_nop(const struct mc_arch *arch, uint8_t *out,
			   unsigned len)
{
	(void)arch;
	if (len != 4)
		return false;
	mc_bytes_copy(out, a64_nop, 4);
	return true;
}

/* A `bl` from `site` to `target`: both aligned, within +-128 MiB. */
static bool a64_encode_call(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	(void)arch;
	if (len != 4 || (site & 3) || (target & 3) || d < -A64_BL_RANGE ||
	    d >= A64_BL_RANGE)
		return false;
	mc_put_le32(out, A64_BL | ((uint32_t)(d >> 2) & 0x03ffffffu));
	return true;
}

static struct mc_site a64_decode_site(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	(void)arch;
	if (avail < 4)
		return s;
	uint32_t insn = mc_get_le32(p);
	if ((insn & A64_BL_MASK) == A64_BL) {
		/* imm26 sign-extended from bit 25, in words. */
		int64_t imm = mc_sign_extend(insn & 0x03ffffffu, 26);
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      addr + (uint64_t)(imm * 4) };
	} else if (mc_bytes_equal(p, a64_nop, 4)) {
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	}
	return s;
}

/* Every hook is one `bl`: `nop` neutralises it. */
static const uint8_t *a64_site_neutral(const struct mc_arch *arch,
				       const struct mc_site *site)
{
	(void)arch;
	return site->kind != MC_SITE_UNKNOWN && site->len == 4 ? a64_nop : NULL;
}

/* -fpatchable-function-entry pads; BTI's landing pad may come first. */
static const struct mc_insn a64_pad_nops[] = {
	{ 4, { 0x1f, 0x20, 0x03, 0xd5 } },		/* nop */
};

static const struct mc_insn a64_entry_prefixes[] = {
	{ 4, { 0x5f, 0x24, 0x03, 0xd5 } },		/* bti c */
};

/*
 * The runtime enables a pad as the kernel's arm64 ftrace does, with two
 * instructions at the function's entry (after `bti c`), where the link
 * register still holds the function's own return address:
 *
 *     mov  x9, x30          aa1e03e9   the function's return address
 *     bl   <trampoline>                x30 := back into the function
 *
 * x9 is a scratch register nothing expects to survive a call, so the
 * trampoline may return with `ret x9` after restoring x30 from it.
 * With M > 0, the NOPs before the entry are never run by a normal call:
 * the sequence always goes at the entry.
 */
#define A64_MOV_X9_X30 0xaa1e03e9u	/* mov x9, x30 (orr x9, xzr, x30) */

static const uint8_t a64_pad_nop2[8] = {
	0x1f, 0x20, 0x03, 0xd5,				/* nop */
	0x1f, 0x20, 0x03, 0xd5,				/* nop */
};

static bool a64_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				unsigned len, uint64_t site, uint64_t target)
{
	if (len != 8)
		return false;
	mc_put_le32(out, A64_MOV_X9_X30);
	return a64_encode_call(arch, out + 4, 4, site + 4, target);
}

static const uint8_t *a64_pad_neutral(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      unsigned *len)
{
	(void)arch;
	*len = 8;
	return avail >= 8 && mc_bytes_equal(p, a64_pad_nop2, 8) ?
		a64_pad_nop2 : NULL;
}

/*
 * Live patching (arch.h's live_forms): a pad's first word stays `mov
 * x9, x30` from boot on and only the second changes, `nop` disabled,
 * `bl` enabled, as the kernel's arm64 ftrace toggles its pads: B, BL
 * and NOP are among the instructions the architecture lets one PE
 * rewrite while another executes them, so that it runs the old one or
 * the new one.  Disabled, the pad costs a `mov` into x9, which the
 * enabled pad (and the trampoline's `ret x9`) overwrites too: a scratch
 * register nothing expects kept across the entry of a function.  A
 * hook is one `bl`, swapped for its `nop`.
 */
static bool a64_live_forms(const struct mc_arch *arch, uint8_t *on,
			   uint8_t *off, unsigned pre, unsigned len, bool pad,
			   uint64_t at)
{
	(void)arch;
	if (pre != 0 || (at & 3) || len != (pad ? 8u : 4u) ||
	    (mc_get_le32(on + len - 4) & A64_BL_MASK) != A64_BL ||
	    (pad && mc_get_le32(on) != A64_MOV_X9_X30))
		return false;
	mc_bytes_copy(off, on, len - 4);
	mc_bytes_copy(off + len - 4, a64_nop, 4);
	return true;
}

/*
 * A thunk where `bl` (+-128 MiB) cannot reach the trampoline:
 *   58000050   ldr x16, .+8
 *   d61f0200   br  x16
 *   <8 bytes>  the trampoline
 * x16 (IP0) is what a linker's veneer or PLT entry may clobber on any
 * call; x30 (and a pad's x9) reach the trampoline as from a direct
 * call, whose `bti c` accepts a `br x16`.
 */
static bool a64_encode_thunk(const struct mc_arch *arch, uint8_t *out,
			     uint64_t target, bool pad)
{
	(void)arch;
	(void)pad;
	mc_put_le32(out, 0x58000050);		/* ldr x16, .+8 */
	mc_put_le32(out + 4, 0xd61f0200);	/* br x16 */
	mc_put_le64(out + 8, target);
	return true;
}

/*
 * A PLT entry (GNU ld, lld, mold): [bti c] then
 *     adrp x16, <slot's page>
 *     ldr  x17, [x16, #<slot's offset in it>]
 *     add  x16, x16, #<the same>
 *     br   x17
 * The slot: the entry's page (of the adrp's address) plus the adrp's
 * 21-bit page count, plus the ldr's 12-bit immediate in 8-byte units.
 */
static uint64_t a64_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			     size_t avail, uint64_t addr, uint64_t base)
{
	uint32_t adrp, ldr;
	int64_t pages;

	(void)arch;
	(void)base;
	if (avail >= 4 && mc_get_le32(p) == 0xd503245f) {	/* bti c */
		p += 4;
		addr += 4;
		avail -= 4;
	}
	if (avail < 8)
		return 0;
	adrp = mc_get_le32(p);
	ldr = mc_get_le32(p + 4);
	if ((adrp & 0x9f00001fu) != 0x90000010u ||		/* adrp x16 */
	    (ldr & 0xffc003ffu) != 0xf9400211u)		/* ldr x17, [x16, #] */
		return 0;
	pages = mc_sign_extend((adrp >> 5 & 0x7ffff) << 2 | (adrp >> 29 & 3),
			       21);
	return (addr & ~(uint64_t)0xfff) + (uint64_t)pages * 4096 +
	       (ldr >> 10 & 0xfff) * 8;
}

static const char *const aarch64_int_arg_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7",
};

const struct mc_arch mc_arch_aarch64 = {
	.int_arg_regs = aarch64_int_arg_regs,
	.n_int_arg_regs = 8,
	.int_ret_reg = "x0",
	.name = "aarch64",
	/*
	 * The generic timer's virtual count, which Linux lets EL0 read and
	 * its vDSO's clock_gettime reads: the same resolution, no call.
	 */
	.trace_clock = "cntvct_el0",
	.reloc_names = a64_reloc_names,
	.n_reloc_names = MC_COUNT(a64_reloc_names),
	.e_machine = EM_AARCH64_,
	.elf_class = 64,
	.endian = MC_LITTLE_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_AARCH64_ABS64_,
	.none_reloc = R_AARCH64_NONE_,
	.relative_reloc = R_AARCH64_RELATIVE_,
	.hook_symbols = a64_hook_symbols,
	.forms = a64_forms,
	.pad_nops = a64_pad_nops, .n_pad_nops = MC_COUNT(a64_pad_nops),
	.entry_prefixes = a64_entry_prefixes,
	.n_entry_prefixes = MC_COUNT(a64_entry_prefixes),
	.pad_call_len = 8,
	.encode_pad_call = a64_encode_pad_call,
	.pad_neutral = a64_pad_neutral,
	.n_forms = sizeof(a64_forms) / sizeof(a64_forms[0]),
	/*
	 * The call follows the prologue's register saves: up to six `stp`
	 * pairs, a `sub sp`, BTI/PAC hints and the `mov x0, x30`.
	 */
	.max_entry_offset = 64,
	/* one A64 instruction: NOP <-> BL is safe to swap live */
	.live_store_max = 4,
	.insn_step = 2,
	.live_forms = a64_live_forms,
	.decode_site = a64_decode_site,
	.encode_nop = a64_encode_nop,
	.encode_call = a64_encode_call,
	.site_neutral = a64_site_neutral,
	.thunk_len = 16,
	.call_reach = 128ull << 20,
	.encode_thunk = a64_encode_thunk,
	.plt_slot = a64_plt_slot,
	.plt_read = 12,
	.plt_step = 4,
};

/*
 * A -pg function's prologue, for a recorder of exits: the hook comes
 * after it, and the function returns through the frame record's x30,
 * [x29, #8].  Where the record sits depends on the compiler and the
 * frame's size:
 *
 *	GCC	stp x29, x30, [sp, #-N]!; mov x29, sp
 *		sub sp, sp, #N; stp x29, x30, [sp]; mov x29, sp
 *		mov x12, #N; sub sp, sp, x12; stp x29, x30, [sp]; ...
 *	clang	stp x29, x30, [sp, #-16]!; ...; mov x29, sp; sub sp, sp, #M
 *		sub sp, sp, #N; stp x29, x30, [sp, #K]; add x29, sp, #K
 *
 * The reader follows the stack pointer's moves from the entry to the
 * hook and where x29 and the record were put.  Any other write to sp, a
 * branch, or a movz constant it lost track of, stops it.
 */
struct a64_prologue {
	int64_t sp;		/* sp now, from the entry's */
	int64_t x29;		/* x29, once set */
	int64_t record;		/* where x29, x30 were stored, once */
	bool x29_set, record_set, signs;
	uint32_t known;		/* registers holding a movz constant */
	uint64_t value[31];	/* ... which is this */
};

#define A64_PACIASP	0xd503233fu	/* hint #25 */
#define A64_PACIBSP	0xd503237fu	/* hint #27 */

enum a64_step { A64_OTHER, A64_FOLLOWED, A64_LOST };

/* One instruction's move of sp, store of the record or setting of x29. */
static enum a64_step a64_stack_step(struct a64_prologue *p, uint32_t i)
{
	if ((i & 0xffc07fff) == 0xa9807bfd) {
		/* stp x29, x30, [sp, #imm]! */
		p->sp += mc_sign_extend(i >> 15 & 0x7f, 7) * 8;
		p->record = p->sp;
		p->record_set = true;
	} else if ((i & 0xffc07fff) == 0xa9007bfd) {
		/* stp x29, x30, [sp, #imm] */
		p->record = p->sp + mc_sign_extend(i >> 15 & 0x7f, 7) * 8;
		p->record_set = true;
	} else if ((i & 0xffc003e0) == 0xa98003e0 ||
		   (i & 0xffc003e0) == 0x6d8003e0) {
		/* stp x, x / d, d, [sp, #imm]! */
		p->sp += mc_sign_extend(i >> 15 & 0x7f, 7) * 8;
	} else if ((i & 0xffc003e0) == 0xad8003e0) {
		/* stp q, q, [sp, #imm]! */
		p->sp += mc_sign_extend(i >> 15 & 0x7f, 7) * 16;
	} else if ((i & 0xffe00fe0) == 0xf8000fe0 ||
		   (i & 0xffe00fe0) == 0xfc000fe0) {
		/* str x / d, [sp, #imm]! */
		p->sp += mc_sign_extend(i >> 12 & 0x1ff, 9);
	} else if ((i & 0xff8003ff) == 0xd10003ff) {
		/* sub sp, sp, #imm{, lsl #12} */
		p->sp -= (int64_t)(i >> 10 & 0xfff) << (i >> 22 & 1 ? 12 : 0);
	} else if ((i & 0xffe0ffff) == 0xcb2063ff) {
		/* sub sp, sp, xm (uxtx) */
		unsigned rm = i >> 16 & 31;

		if (rm == 31 || !(p->known >> rm & 1))
			return A64_LOST;
		p->sp -= (int64_t)p->value[rm];
	} else if ((i & 0xff8003ff) == 0x910003fd) {
		/* add x29, sp, #imm{, lsl #12} (mov x29, sp) */
		p->x29 = p->sp + ((int64_t)(i >> 10 & 0xfff) <<
				  (i >> 22 & 1 ? 12 : 0));
		p->x29_set = true;
	} else {
		return A64_OTHER;
	}
	return A64_FOLLOWED;
}

/* True for an instruction that writes sp in a way a64_stack_step does
 * not follow, or branches. */
static bool a64_unfollowed(uint32_t i)
{
	unsigned rn = i >> 5 & 31, rd = i & 31;

	if (rd == 31 && (i & 0x1f000000) == 0x11000000)
		return true;		/* another add/sub (imm) to sp */
	if (rd == 31 && (i & 0x1f200000) == 0x0b200000)
		return true;		/* add/sub (extended register) to sp */
	if (rn == 31 && (i & 0x3a000000) == 0x28000000 && (i >> 23 & 1))
		return true;		/* another pair with sp written back */
	if (rn == 31 && (i & 0x3b200400) == 0x38000400)
		return true;		/* another single with sp written back */
	return (i & 0x7c000000) == 0x14000000 ||
	       (i & 0x7e000000) == 0x34000000 ||
	       (i & 0xff000010) == 0x54000000 ||
	       (i & 0xfe000000) == 0xd6000000;	/* a branch */
}

/* One instruction; false if it is one this reader does not follow. */
static bool a64_prologue_step(struct a64_prologue *p, uint32_t i)
{
	unsigned rd = i & 31;
	enum a64_step stack = A64_OTHER;

	if (i == A64_PACIASP || i == A64_PACIBSP) {
		p->signs = true;
	} else if ((stack = a64_stack_step(p, i)) != A64_OTHER) {
		if (stack == A64_LOST)
			return false;
	} else if ((i & 0xff800000) == 0xd2800000 && rd != 31) {
		/* movz xd, #imm16{, lsl #16 * hw}: a big frame's size */
		p->value[rd] = (uint64_t)(i >> 5 & 0xffff) <<
			       (16 * (i >> 21 & 3));
		p->known |= 1u << rd;
		return true;
	} else if (a64_unfollowed(i)) {
		return false;
	}
	if (rd != 31)
		p->known &= ~(1u << rd);	/* (rd of most forms) */
	return true;
}

enum mc_a64_frame mc_arch_aarch64_frame_record(const uint8_t *code,
					       size_t len, int64_t *x29,
					       bool *signs)
{
	struct a64_prologue p;

	/* field by field: value[] is read only where `known` says (and a
	 * whole-struct store would be a memset, which freestanding lacks) */
	p.sp = p.x29 = p.record = 0;
	p.x29_set = p.record_set = p.signs = false;
	p.known = 0;
	for (size_t off = 0; off + 4 <= len; off += 4)
		if (!a64_prologue_step(&p, mc_get_le32(code + off)))
			return MC_A64_FRAME_UNFOLLOWED;
	*signs = p.signs;
	if (len % 4)
		return MC_A64_FRAME_UNFOLLOWED;
	if (!p.x29_set || !p.record_set || p.record != p.x29 || p.x29 >= 0)
		return MC_A64_FRAME_NO_RECORD;
	*x29 = p.x29;
	return MC_A64_FRAME_RECORD;
}
