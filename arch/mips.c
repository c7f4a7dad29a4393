/* SPDX-License-Identifier: MIT */
/*
 * mips.c - MIPS: o32 and n32 (ELF32), n64 (ELF64), either byte order.
 *
 * The machine: fixed 4-byte instructions, aligned, in the file's byte
 * order.  Every jump and branch has a delay slot: the instruction after
 * it runs before the target does, whether or not the jump happens.  The
 * NOP is `sll zero,zero,0`, the all-zero word, the same in both byte
 * orders.  Three ABIs matter: o32 (ELF32, REL relocations, addends in
 * the instruction), n32 (ELF32 with EF_MIPS_ABI2, RELA) and n64 (ELF64,
 * RELA, and an r_info that is not ELF64_R_INFO: a 32-bit symbol, then
 * one byte each of special symbol, third, second and first type; the
 * ELF model in elf/reloc.c unpacks it).
 *
 * GCC's -pg writes a fixed text before the function body, never
 * scheduled by the compiler: `move at,ra` (the hook finds its caller
 * there), on o32 `subu sp,sp,8` (o32's _mcount pops two words the
 * caller reserved for it, a convention older than the ABI), then the
 * call.  What the assembler makes of the call depends on the flags:
 *
 *   kernel, -mno-abicalls -fno-pic:
 *     jal _mcount                R_MIPS_26; the delay slot gets the
 *                                o32 `addiu sp,sp,-8`, or on n32/n64
 *                                `nop` (-mmcount-ra-address: `move
 *                                $12,zero` or `daddiu $12,sp,N`)
 *   kernel modules, -mlong-calls (o32, n32, n64 with -msym32):
 *     lui v1,%hi(_mcount)        R_MIPS_HI16      <- the site
 *     (d)addiu v1,v1,%lo(_mcount) R_MIPS_LO16
 *     move at,ra
 *     [o32 -mmcount-ra-address: `move t4,zero` or `addiu t4,sp,N`]
 *     jalr v1                    delay slot as for jal
 *   n64 -mlong-calls without -msym32, a 64-bit address in 8 insns:
 *     lui v1,%highest            R_MIPS_HIGHEST   <- the site
 *     lui at,%hi                 R_MIPS_HI16      <- what we match on
 *     daddiu v1,v1,%higher       R_MIPS_HIGHER
 *     daddiu at,at,%lo           R_MIPS_LO16
 *     dsll32 v1,v1,0; daddu v1,v1,at; move at,ra; jalr v1
 *   userspace, -mabicalls (PIC, Debian's default):
 *     [o32: addiu sp,sp,-8       <- the o32 site, see below]
 *     lw/ld t9,%call16(_mcount)(gp)  R_MIPS_CALL16   <- n32/n64 site
 *     jalr t9                    R_MIPS_JALR (a hint: ld may turn it
 *                                into `bal _mcount`)
 *   the same from clang 14 and 16 (integrated assembler):
 *     n32/n64: lw/ld t9,%call16(_mcount)(gp); move at,ra; jalr t9
 *                                (the `move at,ra` after the load)
 *     o32: lw t9,%call16(_mcount)(s0); move gp,s0; move at,ra;
 *          jalr t9; addiu sp,sp,-8 (in the delay slot); at -O0 the
 *          load is `lw t9,%got(_mcount)(at)`, R_MIPS_GOT16
 *                                the GOT base in any register and the
 *                                gp set-up inside the sequence: the
 *                                load is the site, recorded but never
 *                                NOPed (a NOP run would take the gp
 *                                set-up with it)
 *
 * The site is where the kernel's tool and its ftrace put it: the `jal`,
 * or the first `lui` of a long call (it keeps the first of the hook
 * relocations 4 bytes apart and drops the rest as "fake mcount"; we
 * match the sequences instead).  Its runtime disables a site by
 * writing `nop` over the jal (and, on 32-bit, the `addiu sp` in its
 * delay slot too), or `b 1f` over a long call's lui, jumping past the
 * delay slot of the jalr.
 *
 * --nop has no stop_machine to worry about, so it writes NOPs over the
 * whole call sequence, every byte of which this file's patterns check
 * first, and the CLI voids every relocation inside them (the %lo half,
 * the JALR hint, which would otherwise let ld write a `bal` back).  The
 * one thing a NOP must not break is o32's stack convention: the
 * `addiu sp,sp,-8` goes with the call it pays for.  So on o32 a jal is
 * only NOPed with its delay slot holding that addiu, a long call with
 * its jalr's delay slot, and the PIC call starting at the addiu before
 * the lw (which makes the addiu the o32 PIC site: the first instruction
 * --nop rewrites).  On n32/n64 the delay slot is left to run as before.
 * Calls in any other arrangement are recorded but not NOPed.
 *
 * The table is what GCC writes for a pointer: R_MIPS_32 in .rel (o32,
 * addend in the slot) or .rela (n32), R_MIPS_64 in .rela (n64, second
 * and third types R_MIPS_NONE).
 *
 * Linked PIC code still calls through the GOT unless ld relaxed the
 * jalr to `bal`, and no relocation names a GOT slot: the psABI's loader
 * fills the global part of the GOT in .dynsym's order (got_layout), so
 * --check finds the slot from $gp and the load's offset (got_call).
 */
#include "arch.h"

/* ELF facts (System V MIPS psABI and the MIPS64 ELF supplement). */
enum {
	EM_MIPS_ = 8,
	EF_MIPS_ABI2_ = 0x20,

	R_MIPS_NONE_ = 0,
	R_MIPS_32_ = 2,
	R_MIPS_REL32_ = 3,
	R_MIPS_26_ = 4,
	R_MIPS_HI16_ = 5,
	R_MIPS_LO16_ = 6,
	R_MIPS_GOT16_ = 9,
	R_MIPS_CALL16_ = 11,
	R_MIPS_64_ = 18,
	R_MIPS_HIGHER_ = 28,
	R_MIPS_HIGHEST_ = 29,
	R_MIPS_JALR_ = 37,

	/* The dynamic tags that lay out the GOT (mc_got_layout). */
	DT_MIPS_LOCAL_GOTNO_ = 0x7000000a,
	DT_MIPS_SYMTABNO_ = 0x70000011,
	DT_MIPS_GOTSYM_ = 0x70000013,
	/* $gp points this far into the primary GOT: 16-bit signed offsets
	   from it reach all of the GOT's first 64 KB. */
	MIPS_GP_BIAS = 0x7ff0,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name mips_reloc_names[] = {
	{ 0, "R_MIPS_NONE" }, { 2, "R_MIPS_32" }, { 3, "R_MIPS_REL32" },
	{ 4, "R_MIPS_26" }, { 5, "R_MIPS_HI16" }, { 6, "R_MIPS_LO16" },
	{ 9, "R_MIPS_GOT16" }, { 11, "R_MIPS_CALL16" }, { 18, "R_MIPS_64" },
	{ 19, "R_MIPS_GOT_DISP" }, { 28, "R_MIPS_HIGHER" },
	{ 29, "R_MIPS_HIGHEST" }, { 30, "R_MIPS_CALL_HI16" },
	{ 31, "R_MIPS_CALL_LO16" }, { 37, "R_MIPS_JALR" },
	{ 127, "R_MIPS_JUMP_SLOT" },
};

/* Instruction words, as the MIPS manuals spell them. */
enum {
	MIPS_NOP = 0x00000000,		/* nop (sll zero,zero,0) */
	MIPS_JAL = 0x0c000000,		/* jal target26 */
	MIPS_JAL_MASK = 0xfc000000,
	MIPS_BAL = 0x04110000,		/* bal off16 (bgezal zero) */
	MIPS_J = 0x08000000,		/* j target26 */
	MIPS_LUI_T9 = 0x3c190000,	/* lui t9,imm16 */
	MIPS_ADDIU_T9 = 0x27390000,	/* addiu t9,t9,imm16 */
	MIPS_IMM_MASK = 0xffff0000,	/* keep the opcode and registers */
	MIPS_LW_ANY_BASE_MASK = 0xfc1f0000,	/* opcode and rt, any base */
};

/*
 * A form's byte patterns are instruction words in the file's order:
 * BE()/LE() spell one word as its four bytes, and each pattern below is
 * written once, as a macro over the word speller, for both orders.
 */
#define BE(w) (uint8_t)((w) >> 24), (uint8_t)((w) >> 16), \
	      (uint8_t)((w) >> 8), (uint8_t)(w)
#define LE(w) (uint8_t)(w), (uint8_t)((w) >> 8), (uint8_t)((w) >> 16), \
	      (uint8_t)((w) >> 24)
#define FULL 0xffffffff

/* The NOP is all zero bits, so one array serves every length and order. */
static const uint8_t mips_nops[MC_MAX_FORM_BYTES];

static const char *const mips_hook_symbols[] = { "_mcount", NULL };

/*
 * o32.  The fallbacks at the end match a jal or a CALL16 load in any
 * other arrangement: recorded, never NOPed (the stack adjustment could
 * be anywhere).
 */
#define O32_FORMS(W) {							\
	{ .name = "jal _mcount; addiu sp,sp,-8",			\
	  .reloc_types = { R_MIPS_26_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 8,					\
	  .opcode = { W(MIPS_JAL),		/* jal _mcount */	\
		      W(0x27bdfff8) },		/* addiu sp,sp,-8 */	\
	  .mask = { W(MIPS_JAL_MASK), W(FULL) }, .opcode_len = 8,	\
	  .nop = mips_nops },						\
	{ .name = "lui/addiu v1; jalr v1; addiu sp,sp,-8",		\
	  .reloc_types = { R_MIPS_HI16_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 20,					\
	  .opcode = { W(0x3c030000),		/* lui v1,%hi */	\
		      W(0x24630000),		/* addiu v1,v1,%lo */	\
		      W(0x03e00825),		/* move at,ra */	\
		      W(0x0060f809),		/* jalr v1 */		\
		      W(0x27bdfff8) },		/* addiu sp,sp,-8 */	\
	  .mask = { W(MIPS_IMM_MASK), W(MIPS_IMM_MASK), W(FULL),	\
		    W(FULL), W(FULL) }, .opcode_len = 20,		\
	  .nop = mips_nops },						\
	{ .name = "lui/addiu v1; jalr v1 (-mmcount-ra-address)",	\
	  .reloc_types = { R_MIPS_HI16_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 24,					\
	  .opcode = { W(0x3c030000),		/* lui v1,%hi */	\
		      W(0x24630000),		/* addiu v1,v1,%lo */	\
		      W(0x03e00825),		/* move at,ra */	\
		      W(0),			/* t4 = &saved ra */	\
		      W(0x0060f809),		/* jalr v1 */		\
		      W(0x27bdfff8) },		/* addiu sp,sp,-8 */	\
	  .mask = { W(MIPS_IMM_MASK), W(MIPS_IMM_MASK), W(FULL), W(0),	\
		    W(FULL), W(FULL) }, .opcode_len = 24,		\
	  .nop = mips_nops },						\
	{ .name = "addiu sp,sp,-8; lw t9,%call16(_mcount)(gp); jalr t9", \
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 4, .len = 12,					\
	  .opcode = { W(0x27bdfff8),		/* addiu sp,sp,-8 */	\
		      W(0x8f990000),		/* lw t9,%call16(gp) */	\
		      W(0x0320f809) },		/* jalr t9 */		\
	  .mask = { W(FULL), W(MIPS_IMM_MASK), W(FULL) },		\
	  .opcode_len = 12, .nop = mips_nops },				\
	{ .name = "jal _mcount",					\
	  .reloc_types = { R_MIPS_26_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 4,					\
	  .opcode = { W(MIPS_JAL) }, .mask = { W(MIPS_JAL_MASK) },	\
	  .opcode_len = 4, .nop = NULL },				\
	{ .name = "lw t9,%call16(_mcount)(gp)",				\
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 0, .len = 4,					\
	  .opcode = { W(0x8f990000) }, .mask = { W(MIPS_IMM_MASK) },	\
	  .opcode_len = 4, .nop = NULL },				\
	{ .name = "lw t9,%call16(_mcount)(base)",			\
	  .reloc_types = { R_MIPS_CALL16_, R_MIPS_GOT16_ },		\
	  .n_reloc_types = 2,						\
	  .field_offset = 0, .len = 4,					\
	  .opcode = { W(0x8c190000) },		/* lw t9,%call16(any) */ \
	  .mask = { W(MIPS_LW_ANY_BASE_MASK) },				\
	  .opcode_len = 4, .nop = NULL },				\
}

/*
 * n32 and n64: no stack adjustment, so the delay slot (a nop, or the
 * -mmcount-ra-address set-up) stays and runs as it always did.  addiu
 * (n32) and daddiu (n64) differ in one opcode bit, masked out.
 */
#define NEW_ABI_FORMS(W) {						\
	{ .name = "jal _mcount",					\
	  .reloc_types = { R_MIPS_26_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 4,					\
	  .opcode = { W(MIPS_JAL) }, .mask = { W(MIPS_JAL_MASK) },	\
	  .opcode_len = 4, .nop = mips_nops },				\
	{ .name = "lui/daddiu v1; jalr v1",				\
	  .reloc_types = { R_MIPS_HI16_ }, .n_reloc_types = 1,		\
	  .field_offset = 0, .len = 16,					\
	  .opcode = { W(0x3c030000),		/* lui v1,%hi */	\
		      W(0x24630000),		/* [d]addiu v1,v1,%lo */ \
		      W(0x03e00825),		/* move at,ra */	\
		      W(0x0060f809) },		/* jalr v1 */		\
	  .mask = { W(MIPS_IMM_MASK), W(0xbfff0000), W(FULL), W(FULL) }, \
	  .opcode_len = 16, .nop = mips_nops },				\
	{ .name = "lui v1,%highest; ...; jalr v1",			\
	  .reloc_types = { R_MIPS_HI16_ }, .n_reloc_types = 1,		\
	  .field_offset = 4, .len = 32,					\
	  .opcode = { W(0x3c030000),		/* lui v1,%highest */	\
		      W(0x3c010000),		/* lui at,%hi */	\
		      W(0x64630000),		/* daddiu v1,v1,%higher */ \
		      W(0x64210000),		/* daddiu at,at,%lo */	\
		      W(0x0003183c),		/* dsll32 v1,v1,0 */	\
		      W(0x0061182d),		/* daddu v1,v1,at */	\
		      W(0x03e00825),		/* move at,ra */	\
		      W(0x0060f809) },		/* jalr v1 */		\
	  .mask = { W(MIPS_IMM_MASK), W(MIPS_IMM_MASK), W(MIPS_IMM_MASK), \
		    W(MIPS_IMM_MASK), W(FULL), W(FULL), W(FULL), W(FULL) }, \
	  .opcode_len = 32, .nop = mips_nops },				\
	{ .name = "ld t9,%call16(_mcount)(gp); jalr t9",		\
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 0, .len = 8,					\
	  .opcode = { W(0xdf990000),		/* ld t9,%call16(gp) */	\
		      W(0x0320f809) },		/* jalr t9 */		\
	  .mask = { W(MIPS_IMM_MASK), W(FULL) }, .opcode_len = 8,	\
	  .nop = mips_nops },						\
	{ .name = "lw t9,%call16(_mcount)(gp); jalr t9",		\
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 0, .len = 8,					\
	  .opcode = { W(0x8f990000),		/* lw t9,%call16(gp) */	\
		      W(0x0320f809) },		/* jalr t9 */		\
	  .mask = { W(MIPS_IMM_MASK), W(FULL) }, .opcode_len = 8,	\
	  .nop = mips_nops },						\
	{ .name = "ld t9,%call16(_mcount)(gp); move at,ra; jalr t9",	\
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 0, .len = 12,					\
	  .opcode = { W(0xdf990000),		/* ld t9,%call16(gp) */	\
		      W(0x03e00825),		/* move at,ra */	\
		      W(0x0320f809) },		/* jalr t9 */		\
	  .mask = { W(MIPS_IMM_MASK), W(FULL), W(FULL) },		\
	  .opcode_len = 12, .nop = mips_nops },				\
	{ .name = "lw t9,%call16(_mcount)(gp); move at,ra; jalr t9",	\
	  .reloc_types = { R_MIPS_CALL16_ }, .n_reloc_types = 1,	\
	  .field_offset = 0, .len = 12,					\
	  .opcode = { W(0x8f990000),		/* lw t9,%call16(gp) */	\
		      W(0x03e00825),		/* move at,ra */	\
		      W(0x0320f809) },		/* jalr t9 */		\
	  .mask = { W(MIPS_IMM_MASK), W(FULL), W(FULL) },		\
	  .opcode_len = 12, .nop = mips_nops },				\
}

static const struct mc_object_form mips_o32_be_forms[] = O32_FORMS(BE);
static const struct mc_object_form mips_o32_le_forms[] = O32_FORMS(LE);
static const struct mc_object_form mips_new_be_forms[] = NEW_ABI_FORMS(BE);
static const struct mc_object_form mips_new_le_forms[] = NEW_ABI_FORMS(LE);

#define N_FORMS(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/*
 * Hook relocations that are not the site's own: the other halves of a
 * long call's address and the jalr hint.  HI16 is both: the site of a
 * 32-bit long call, the second relocation of a 64-bit one; the forms
 * tell them apart.
 */
#define MIPS_COMPANIONS							\
	.companion_relocs = { R_MIPS_LO16_, R_MIPS_HIGHER_,		\
			      R_MIPS_HIGHEST_, R_MIPS_JALR_ },		\
	.n_companion_relocs = 4

/*
 * Linked code: `jal` (the kernel's form), `bal` (what ld makes of a PIC
 * jalr t9 when the hook is near), or the NOP.  A long call or a GOT
 * load is not one instruction and stays UNKNOWN.  jal keeps the top
 * four bits of its delay slot's address: it reaches its own 256 MB.
 */
static struct mc_site mips_decode_site(const struct mc_arch *arch,
				       const uint8_t *p, size_t avail,
				       uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail < 4)
		return s;
	uint32_t w = mc_get32(arch->endian, p);
	if ((w & MIPS_JAL_MASK) == MIPS_JAL)
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      ((addr + 4) & ~(uint64_t)0x0fffffff) |
				      (uint64_t)(w & 0x03ffffff) << 2 };
	else if ((w & 0xffff0000) == MIPS_BAL)
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      addr + 4 +
				      (uint64_t)((int64_t)(int16_t)w * 4) };
	else if (w == MIPS_NOP)
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	return s;
}

/* Any whole number of instructions: all zero bytes in either order. */
static bool mips_encode_nop(const struct mc_arch *arch, uint8_t *out,
			    unsigned len)
{
	(void)arch;
	if (len == 0 || len % 4 || len > MC_MAX_FORM_BYTES)
		return false;
	mc_bytes_copy(out, mips_nops, len);
	return true;
}

/*
 * `jal target`, then NOPs to fill `len` (8: the o32 delay slot, which no
 * longer pays _mcount's two words: the target is a trampoline that
 * knows, as the kernel's ftrace_caller does).  False when the target is
 * unaligned or outside the 256 MB region of the delay slot.
 */
static bool mips_encode_call(const struct mc_arch *arch, uint8_t *out,
			     unsigned len, uint64_t site, uint64_t target)
{
	uint64_t region = (site + 4) & ~(uint64_t)0x0fffffff;

	if ((len != 4 && len != 8) || (target & 3) ||
	    (target & ~(uint64_t)0x0fffffff) != region)
		return false;
	mc_put32(arch->endian, out,			/* jal target */
		 MIPS_JAL | (uint32_t)((target >> 2) & 0x03ffffff));
	if (len == 8)				/* nop (delay slot) */
		mc_put32(arch->endian, out + 4, MIPS_NOP);
	return true;
}

/* A decoded jal, bal or NOP is neutralised by NOPs of its length. */
static const uint8_t *mips_site_neutral(const struct mc_arch *arch,
					const struct mc_site *site)
{
	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN || site->len == 0 ||
	    site->len % 4 || site->len > MC_MAX_FORM_BYTES)
		return NULL;
	return mips_nops;
}

static bool mips_is_o32(const struct mc_arch *arch, uint32_t e_flags)
{
	(void)arch;
	return !(e_flags & EF_MIPS_ABI2_);
}

static bool mips_is_n32(const struct mc_arch *arch, uint32_t e_flags)
{
	(void)arch;
	return (e_flags & EF_MIPS_ABI2_) != 0;
}

/* `lw/ld t9, X(base)`, the PIC load of a hook's address. */
static bool is_t9_load(uint32_t insn)
{
	/* lw or ld (opcode 0x23 or 0x37), rt = t9 (25), any base */
	return (insn & 0xfc1f0000) == 0x8c190000 ||
	       (insn & 0xfc1f0000) == 0xdc190000;
}

/* `addiu sp,sp,-8`, the stack adjustment a -pg call pays for. */
static bool is_hook_stack_adjust(uint32_t insn)
{
	return insn == 0x27bdfff8;		/* addiu sp,sp,-8 */
}

static bool word_at(const struct mc_arch *arch, const struct mc_image *img,
		    uint64_t addr, uint32_t *w)
{
	const uint8_t *p = img->bytes_at(img->ctx, addr, 4);

	if (!p)
		return false;
	*w = mc_get32(arch->endian, p);
	return true;
}

/*
 * MIPS PIC (-mabicalls) records an instruction before the call that
 * linked code shows: the `lw/ld t9, %call16(_mcount)` that loads the
 * hook's address (the call follows it, after GCC's or clang's `move
 * at,ra` and `move gp,s0` if any), or on o32 (which keeps `addiu
 * sp,sp,-8` with the call) the adjustment right before that load.  The
 * entry is right when it is one of those and the function's hook call
 * follows within the sequence; any other instruction in the few before
 * the call is no site at all.
 */
static enum mc_early_entry judge_early(const struct mc_arch *arch,
				       const struct mc_image *img,
				       uint64_t entry, uint64_t hook, bool o32)
{
	uint32_t w, other;

	if (hook <= entry || hook - entry > 12 ||
	    !word_at(arch, img, entry, &w))
		return MC_EARLY_UNJUDGED;
	if (is_t9_load(w))
		return o32 && word_at(arch, img, entry - 4, &other) &&
		       is_hook_stack_adjust(other) ? MC_EARLY_UNJUDGED
						   : MC_EARLY_SITE;
	if (is_hook_stack_adjust(w))
		return hook == entry + 8 &&
		       word_at(arch, img, entry + 4, &other) &&
		       is_t9_load(other) ? MC_EARLY_SITE : MC_EARLY_UNJUDGED;
	return MC_EARLY_CORRUPT;
}

static enum mc_early_entry o32_judge_early(const struct mc_arch *arch,
					   const struct mc_image *img,
					   uint64_t entry, uint64_t hook)
{
	return judge_early(arch, img, entry, hook, true);
}

/* n32 and n64: no stack adjustment before the call. */
static enum mc_early_entry new_judge_early(const struct mc_arch *arch,
					   const struct mc_image *img,
					   uint64_t entry, uint64_t hook)
{
	return judge_early(arch, img, entry, hook, false);
}

/*
 * Calls through the GOT, for --check of a linked PIC image.  A PIC
 * call loads the callee's address into t9 from the GOT and calls it:
 *
 *   lui gp,%hi(_gp_disp); addiu gp,gp,%lo(_gp_disp); addu gp,gp,t9
 *                            (o32: $gp from t9, the function's own
 *                            address; n64: lui; daddu t9; daddiu)
 *   ...
 *   lw/ld t9,off(gp)         the slot: $gp + off
 *   [move at,ra; addiu sp,sp,-8; move gp,s0]
 *   jalr t9                  (or `bal`, when ld relaxed it)
 *
 * The base need not be gp: clang keeps $gp in another register (at,
 * s0) until it sets gp, and -mxgot adds a %call_hi half to gp first.
 * So the registers are followed from the function's entry, where t9
 * holds its address, to the load: straight-line code only, every
 * instruction this does not model making its destination unknown.  A
 * function that never sets its base register uses the primary GOT's
 * $gp (`gp`), which a multi-GOT link makes unknowable.
 */
struct mips_regs {
	uint64_t v[32];
	uint32_t known;			/* bit r: v[r] is register r's value */
	uint32_t written;		/* bit r: the code set register r */
};

enum {
	MIPS_REG_T9 = 25,
	MIPS_REG_GP = 28,
	MIPS_JALR_T9 = 0x0320f809,	/* jalr t9 (ra = return address) */
	MIPS_WALK_MAX = 4096,		/* words followed from the entry */
};

static void reg_set(struct mips_regs *r, unsigned reg, bool known,
		    uint64_t value, bool word)
{
	if (reg == 0)
		return;				/* zero stays zero */
	if (word)				/* 32-bit results, sign-extended */
		value = (uint64_t)(int64_t)(int32_t)value;
	r->v[reg] = value;
	r->written |= 1u << reg;
	r->known = known ? r->known | 1u << reg : r->known & ~(1u << reg);
}

static bool reg_known(const struct mips_regs *r, unsigned reg)
{
	return (r->known >> reg) & 1;
}

/* Does `w` end straight-line code: a branch or a jump? */
static bool ends_straight_line(uint32_t w)
{
	uint32_t op = w >> 26, funct = w & 0x3f;

	if (op == 0)			/* jr, jalr, syscall, break */
		return funct == 0x08 || funct == 0x09 || funct == 0x0c ||
		       funct == 0x0d;
	if (op >= 0x10 && op <= 0x13)	/* COPz: bc1t/bc1f and kin */
		return ((w >> 21) & 0x1f) == 0x08;
	return op == 0x01 || (op >= 0x02 && op <= 0x07) ||	/* REGIMM, j,
								   jal, beq.. */
	       (op >= 0x14 && op <= 0x17);			/* beql.. */
}

/* Stores, cache and pref write no register (sc and scd do: rt). */
static bool writes_no_register(uint32_t op)
{
	return (op >= 0x28 && op <= 0x2f) || op == 0x33 ||
	       (op >= 0x39 && op <= 0x3b) || op == 0x3d || op == 0x3e ||
	       op == 0x3f;
}

/* One instruction's effect on the registers followed. */
static void reg_step(struct mips_regs *r, uint32_t w)
{
	uint32_t op = w >> 26, funct = w & 0x3f;
	unsigned rs = (w >> 21) & 0x1f, rt = (w >> 16) & 0x1f;
	unsigned rd = (w >> 11) & 0x1f;
	uint64_t imm = (uint64_t)(int64_t)(int16_t)(w & 0xffff);
	bool s_known = reg_known(r, rs), t_known = reg_known(r, rt);

	switch (op) {
	case 0x0f:				/* lui rt,imm */
		reg_set(r, rt, true, imm << 16, true);
		return;
	case 0x09:				/* addiu rt,rs,imm */
		reg_set(r, rt, s_known, r->v[rs] + imm, true);
		return;
	case 0x19:				/* daddiu rt,rs,imm */
		reg_set(r, rt, s_known, r->v[rs] + imm, false);
		return;
	case 0x0d:				/* ori rt,rs,uimm */
		reg_set(r, rt, s_known, r->v[rs] | (w & 0xffff), false);
		return;
	case 0x00:
		if (funct == 0x21)		/* addu rd,rs,rt (move) */
			reg_set(r, rd, s_known && t_known,
				r->v[rs] + r->v[rt], true);
		else if (funct == 0x2d)		/* daddu rd,rs,rt (move) */
			reg_set(r, rd, s_known && t_known,
				r->v[rs] + r->v[rt], false);
		else if (funct == 0x25)		/* or rd,rs,rt (move) */
			reg_set(r, rd, s_known && t_known,
				r->v[rs] | r->v[rt], false);
		else
			reg_set(r, rd, false, 0, false);
		return;
	}
	if (writes_no_register(op))
		return;
	/* Anything else may write rt or rd: both become unknown. */
	reg_set(r, rt, false, 0, false);
	reg_set(r, rd, false, 0, false);
}

/* `lw t9,off(base)` (32-bit) or `ld t9,off(base)` (64-bit). */
static bool loads_t9(const struct mc_arch *arch, uint32_t w)
{
	uint32_t op = arch->elf_class == 64 ? 0x37 : 0x23;

	return w >> 26 == op && ((w >> 16) & 0x1f) == MIPS_REG_T9;
}

/*
 * The `jalr t9` in the three words after the load at `at` (clang puts
 * `move gp,s0`, `move at,ra` or o32's `addiu sp,sp,-8` between them),
 * with nothing between them that writes t9 or leaves straight-line
 * code.
 */
static bool t9_called(const struct mc_arch *arch, const struct mc_image *img,
		      uint64_t at, uint64_t *call)
{
	uint32_t w;

	for (uint64_t a = at + 4; a <= at + 12; a += 4) {
		if (!word_at(arch, img, a, &w))
			return false;
		if (w == MIPS_JALR_T9) {
			*call = a;
			return true;
		}
		struct mips_regs r = { .known = 0 };
		reg_step(&r, w);
		if (ends_straight_line(w) || (r.written & 1u << MIPS_REG_T9))
			return false;
	}
	return false;
}

static enum mc_got_call mips_got_call(const struct mc_arch *arch,
				      const struct mc_image *img,
				      uint64_t func, uint64_t at, uint64_t gp,
				      uint64_t *slot, uint64_t *call)
{
	struct mips_regs r = { .known = 1u | 1u << MIPS_REG_T9 };
	uint64_t mask = arch->elf_class == 64 ? UINT64_MAX : 0xffffffffu;
	bool branched = false;
	uint32_t w, load;
	unsigned base;

	if ((at & 3) || (func & 3) || at < func ||
	    !word_at(arch, img, at, &load) || !loads_t9(arch, load) ||
	    !t9_called(arch, img, at, call))
		return MC_GOT_NONE;
	base = (load >> 21) & 0x1f;
	*slot = (uint64_t)(int64_t)(int16_t)(load & 0xffff);
	/* One GOT: $gp holds its _gp everywhere, restored after calls. */
	if (base == MIPS_REG_GP && gp) {
		*slot = (gp + *slot) & mask;
		return MC_GOT_SLOT;
	}
	if ((at - func) / 4 > MIPS_WALK_MAX)
		return MC_GOT_UNKNOWN;
	r.v[MIPS_REG_T9] = func;
	for (uint64_t a = func; a < at; a += 4) {
		if (!word_at(arch, img, a, &w))
			return MC_GOT_UNKNOWN;
		branched |= ends_straight_line(w);
		reg_step(&r, w);
	}
	if (reg_known(&r, base) && !branched) {
		*slot = (r.v[base] + *slot) & mask;
		return MC_GOT_SLOT;
	}
	/* A base the function never sets is its caller's data, no GOT. */
	if (!(r.written & 1u << base) && base != MIPS_REG_GP &&
	    base != MIPS_REG_T9 && !branched)
		return MC_GOT_NONE;
	return MC_GOT_UNKNOWN;
}

/*
 * ld's LA25 stub (the psABI's name for the t9 set-up a PIC function
 * needs), which a non-PIC caller's `jal` reaches it through (ld names
 * it .pic.<function>):
 *
 *   lui t9,%hi(f); j f; addiu t9,t9,%lo(f)
 *
 * or, placed right before f, `lui t9,%hi(f); addiu t9,t9,%lo(f)`,
 * falling into it.  Either way t9 ends up f's address, which the jump
 * (or the fall) must reach: the low 32 bits are compared, all that
 * lui and addiu set (n64 links too write the 32-bit form).
 */
static uint64_t mips_call_stub(const struct mc_arch *arch, const uint8_t *p,
			       size_t avail, uint64_t addr)
{
	uint32_t lui, next, last;
	uint64_t t9, target;

	if (avail < 12)
		return 0;
	lui = mc_get32(arch->endian, p);
	next = mc_get32(arch->endian, p + 4);
	last = mc_get32(arch->endian, p + 8);
	if ((lui & MIPS_IMM_MASK) != MIPS_LUI_T9)
		return 0;
	t9 = ((uint64_t)(lui & 0xffff) << 16) +
	     (uint64_t)(int64_t)(int16_t)(next & 0xffff);
	if ((next & MIPS_IMM_MASK) == MIPS_ADDIU_T9)	/* falls into f */
		target = addr + 8;
	else if ((next & MIPS_JAL_MASK) == MIPS_J &&
		 (last & MIPS_IMM_MASK) == MIPS_ADDIU_T9) {
		t9 = ((uint64_t)(lui & 0xffff) << 16) +
		     (uint64_t)(int64_t)(int16_t)(last & 0xffff);
		target = ((addr + 8) & ~(uint64_t)0x0fffffff) |
			 (uint64_t)(next & 0x03ffffff) << 2;
	} else {
		return 0;
	}
	return ((t9 ^ target) & 0xffffffffu) ? 0 : target;
}

/*
 * GNU ld's PLT entry for the non-PIC o32 ABI (a dynamically linked
 * -mno-abicalls executable calls a library's function with `jal f@plt`;
 * R_MIPS_JUMP_SLOT in .rel.plt names the .got.plt slot):
 *
 *   lui t7,%hi(slot); lw t9,%lo(slot)(t7); jr t9; addiu t8,t7,%lo(slot)
 *
 * The slot's address, or 0 (the PLT's header, another form).
 */
static uint64_t mips_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			      size_t avail, uint64_t addr, uint64_t base)
{
	uint32_t w[4];

	(void)addr;
	(void)base;
	if (avail < sizeof(w))
		return 0;
	for (unsigned i = 0; i < 4; i++)
		w[i] = mc_get32(arch->endian, p + 4 * i);
	if ((w[0] & MIPS_IMM_MASK) != 0x3c0f0000 ||	/* lui t7,hi */
	    (w[1] & MIPS_IMM_MASK) != 0x8df90000 ||	/* lw t9,lo(t7) */
	    w[2] != 0x03200008 ||			/* jr t9 */
	    (w[3] & MIPS_IMM_MASK) != 0x25f80000 ||	/* addiu t8,t7,lo */
	    (w[1] & 0xffff) != (w[3] & 0xffff))
		return 0;
	return (((uint64_t)(w[0] & 0xffff) << 16) +
		(uint64_t)(int64_t)(int16_t)(w[1] & 0xffff)) & 0xffffffffu;
}

static const struct mc_got_layout mips_got_layout = {
	.local_gotno_tag = DT_MIPS_LOCAL_GOTNO_,
	.gotsym_tag = DT_MIPS_GOTSYM_,
	.symtabno_tag = DT_MIPS_SYMTABNO_,
	.gp_bias = MIPS_GP_BIAS,
	.insn_len = 4,
};

/*
 * The PIC prologue (set up gp, save it) comes before the hook, so it
 * may sit further in than on other machines.
 */
#define MIPS_MAX_ENTRY_OFFSET 64

/* -fpatchable-function-entry pads: `nop` (sll $0,$0,0) in both orders. */
static const struct mc_insn mips_pad_nops[] = {
	{ 4, { 0x00, 0x00, 0x00, 0x00 } },		/* nop */
};

#define MIPS32_COMMON							\
	.e_machine = EM_MIPS_, .elf_class = 32, .addr_size = 4,	\
	.table_reloc = R_MIPS_32_, .none_reloc = R_MIPS_NONE_,		\
	.relative_reloc = R_MIPS_REL32_,				\
	.hook_symbols = mips_hook_symbols, MIPS_COMPANIONS,		\
	.max_entry_offset = MIPS_MAX_ENTRY_OFFSET,			\
	.pad_nops = mips_pad_nops, .n_pad_nops = 1,			\
	.insn_step = 2,							\
	.decode_site = mips_decode_site, .encode_nop = mips_encode_nop,	\
	.encode_call = mips_encode_call, .site_neutral = mips_site_neutral, \
	.got_call = mips_got_call, .got_layout = &mips_got_layout,	\
	.call_stub = mips_call_stub

const struct mc_arch mc_arch_mips = {
	.name = "mips", MIPS32_COMMON, .endian = MC_BIG_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.table_uses_rela = false, .accepts_flags = mips_is_o32,
	.judge_early_entry = o32_judge_early,
	.plt_slot = mips_plt_slot, .plt_read = 16, .plt_step = 4,
	.forms = mips_o32_be_forms, .n_forms = N_FORMS(mips_o32_be_forms),
};

const struct mc_arch mc_arch_mipsel = {
	.name = "mipsel", MIPS32_COMMON, .endian = MC_LITTLE_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.table_uses_rela = false, .accepts_flags = mips_is_o32,
	.judge_early_entry = o32_judge_early,
	.plt_slot = mips_plt_slot, .plt_read = 16, .plt_step = 4,
	.forms = mips_o32_le_forms, .n_forms = N_FORMS(mips_o32_le_forms),
};

const struct mc_arch mc_arch_mipsn32 = {
	.name = "mipsn32", MIPS32_COMMON, .endian = MC_BIG_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.table_uses_rela = true, .accepts_flags = mips_is_n32,
	.judge_early_entry = new_judge_early,
	.forms = mips_new_be_forms, .n_forms = N_FORMS(mips_new_be_forms),
};

const struct mc_arch mc_arch_mipsn32el = {
	.name = "mipsn32el", MIPS32_COMMON, .endian = MC_LITTLE_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.table_uses_rela = true, .accepts_flags = mips_is_n32,
	.judge_early_entry = new_judge_early,
	.forms = mips_new_le_forms, .n_forms = N_FORMS(mips_new_le_forms),
};

#define MIPS64_COMMON							\
	.e_machine = EM_MIPS_, .elf_class = 64, .addr_size = 8,	\
	.table_uses_rela = true, .table_reloc = R_MIPS_64_,		\
	.none_reloc = R_MIPS_NONE_, .relative_reloc = R_MIPS_REL32_,	\
	.hook_symbols = mips_hook_symbols, MIPS_COMPANIONS,		\
	.max_entry_offset = MIPS_MAX_ENTRY_OFFSET,			\
	.pad_nops = mips_pad_nops, .n_pad_nops = 1,			\
	.insn_step = 2, .judge_early_entry = new_judge_early,		\
	.decode_site = mips_decode_site, .encode_nop = mips_encode_nop,	\
	.encode_call = mips_encode_call, .site_neutral = mips_site_neutral, \
	.got_call = mips_got_call, .got_layout = &mips_got_layout,	\
	.call_stub = mips_call_stub

const struct mc_arch mc_arch_mips64 = {
	.name = "mips64", MIPS64_COMMON, .endian = MC_BIG_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.forms = mips_new_be_forms, .n_forms = N_FORMS(mips_new_be_forms),
};

const struct mc_arch mc_arch_mips64el = {
	.name = "mips64el", MIPS64_COMMON, .endian = MC_LITTLE_ENDIAN,
	.reloc_names = mips_reloc_names,
	.n_reloc_names = MC_COUNT(mips_reloc_names),
	.forms = mips_new_le_forms, .n_forms = N_FORMS(mips_new_le_forms),
};
