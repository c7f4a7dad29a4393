/* SPDX-License-Identifier: MIT */
/*
 * sh.c - SuperH (SH-4), 32-bit, little-endian (Debian's sh4) or
 * big-endian (-mb).
 *
 * The machine: fixed 2-byte instructions with a delay slot after every
 * jump.  An instruction has room for an 8-bit constant at most, so a
 * full address comes from a literal pool: a 4-byte-aligned data word in
 * the code, read with a PC-relative `mov.l`.  There is no direct call
 * that reaches far: a call is `jsr @rN` or `jmp @rN` with the return
 * address put in the pr register by hand.
 *
 * What GCC emits with -pg at the top of each function (kernel and
 * non-PIC userspace alike):
 *
 *     mov.l  1f,r1          d1 0n    r1 = mcount, from the pool word
 *     sts.l  pr,@-r15       4f 22    save the caller's pr
 *     mova   2f,r0          c7 0n    r0 = the return point
 *     jmp    @r1            41 2b
 *      lds   r0,pr          40 2a    (delay slot) pr = 2f
 *     [nop                  00 09    pad to 4-byte alignment]
 *  1: .long  mcount                  R_SH_DIR32 mcount   <- the site
 *  2: lds.l  @r15+,pr       4f 26    restore pr; the body follows
 *
 * The only relocation against the hook is on the pool word, not on an
 * instruction.  The kernel records that word (its recordmcount.pl takes
 * the offset of the R_SH_DIR32 line as is), because its ftrace patches
 * nothing but the word: MCOUNT_INSN_SIZE is 4, a call is "the word holds
 * the tracer's address", and disabled is "the word holds its own
 * address + 4", so the jmp lands on label 2 and runs on.  We record the
 * same word, and check that `lds.l @r15+,pr` follows it.
 *
 * --nop cannot do that: the neutral word is an absolute address, which
 * needs a relocation against the section, while --nop's neutral bytes
 * stand on their own and the hook's relocation is voided.  (Rewriting
 * `jmp @r1` into `bra 2f` would be position-independent, but it is not
 * at the site, and the pool word moves relative to the jmp with the
 * padding.)  So the form has no NOP: --nop fails on SH, and hooks in
 * untraced sections are left calling mcount, as without this tool.
 * For the same reason encode_nop has nothing to offer, while
 * encode_call is simply the target's address in the word.
 *
 * PIC code (-fPIC) loads mcount through the GOT (R_SH_GOT32 on the pool
 * word, then an R_SH_GOTPC word): recorded the same way, on its word.
 * Linked, the sequence reads
 *
 *     mov.l  2f,r1          r1 = GOT - 2f
 *     mova   2f,r0
 *     add    r1,r0          r0 = the GOT
 *     mov.l  1f,r1          r1 = mcount's slot, from the GOT's start
 *     mov.l  @(r0,r1),r1    r1 = mcount, as the loader bound its slot
 *     sts.l  pr,@-r15; mova 3f,r0; jmp @r1; lds r0,pr; [nop]
 *  1: .long  slot - GOT                                  <- the site
 *  2: .long  GOT - 2b
 *  3: lds.l  @r15+,pr
 *
 * so the two words give the slot's address with no register state: a
 * call through the pointer there (R_SH_GLOB_DAT names mcount on it).
 * The site sits 18 or 20 bytes in (nine instructions, then a nop where
 * the words need aligning).
 *
 * A call to a function another object defines goes through a PLT
 * entry, 28 bytes in GNU ld's form:
 *
 *     mov.l  1f,r0          PIC: r0 = the slot's offset from the GOT,
 *     mov.l  @(r0,r12),r0        r12 (the GOT, as every PIC caller
 *                               holds it; the first entry reads from it)
 *                           non-PIC: mov.l 1f,r0; mov.l @r0,r0: r0 =
 *                               the slot's own address
 *     jmp    @r0            (non-PIC: after a mov.l of .plt into r1)
 *     nop
 *     ... the lazy-binding path, then the pool: 1: .long the slot
 *
 * and mcount's own word holds such an entry's address where a program
 * links non-PIC code against a libmcount.so.
 *
 * The table is R_SH_DIR32 in .rela, but with the addend in the slot and
 * r_addend 0, as GAS writes `.long sym+N`: binutils' R_SH_DIR32 is
 * "partial in place", and ld takes the addend from the slot (a table
 * with the addend in r_addend and zero slots links to wrong addresses).
 */
#include "arch.h"

/* ELF facts (the SH ELF ABI, binutils' include/elf/sh.h). */
enum {
	EM_SH_ = 42,

	R_SH_NONE_ = 0,
	R_SH_DIR32_ = 1,
	R_SH_GOT32_ = 160,
	R_SH_RELATIVE_ = 165,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name sh_reloc_names[] = {
	{ 0, "R_SH_NONE" }, { 1, "R_SH_DIR32" }, { 2, "R_SH_REL32" },
	{ 160, "R_SH_GOT32" }, { 161, "R_SH_PLT32" },
	{ 163, "R_SH_GLOB_DAT" }, { 164, "R_SH_JMP_SLOT" },
	{ 165, "R_SH_RELATIVE" }, { 166, "R_SH_GOTOFF" },
	{ 167, "R_SH_GOTPC" },
};

static const char *const sh_hook_symbols[] = { "mcount", NULL };

/*
 * The pool word (any contents), then `lds.l @r15+,pr` (0x4f26) in the
 * file's byte order; for PIC, the GOTPC word sits in between.
 */
static const struct mc_object_form sh_le_forms[] = {
	{ .name = ".long mcount (literal pool)",
	  .reloc_types = { R_SH_DIR32_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { 0, 0, 0, 0, 0x26, 0x4f },		/* .long; lds.l */
	  .mask = { 0, 0, 0, 0, 0xff, 0xff }, .opcode_len = 6,
	  .nop = NULL },
	{ .name = ".long mcount@GOT (literal pool)",
	  .reloc_types = { R_SH_GOT32_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { [8] = 0x26, [9] = 0x4f },	/* .long; .long; lds.l */
	  .mask = { [8] = 0xff, [9] = 0xff }, .opcode_len = 10,
	  .nop = NULL },
};

static const struct mc_object_form sh_be_forms[] = {
	{ .name = ".long mcount (literal pool)",
	  .reloc_types = { R_SH_DIR32_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { 0, 0, 0, 0, 0x4f, 0x26 },		/* .long; lds.l */
	  .mask = { 0, 0, 0, 0, 0xff, 0xff }, .opcode_len = 6,
	  .nop = NULL },
	{ .name = ".long mcount@GOT (literal pool)",
	  .reloc_types = { R_SH_GOT32_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { [8] = 0x4f, [9] = 0x26 },	/* .long; .long; lds.l */
	  .mask = { [8] = 0xff, [9] = 0xff }, .opcode_len = 10,
	  .nop = NULL },
};

static bool sh_is_lds_pr(const uint8_t *p, enum mc_endian e)
{
	return e == MC_LITTLE_ENDIAN ? p[0] == 0x26 && p[1] == 0x4f
				     : p[0] == 0x4f && p[1] == 0x26;
}

/*
 * Linked code, at the pool word: the word is the jmp's destination.
 * Holding its own address + 4 is the kernel's disabled state (NOP);
 * anything else is a call to that address.  PIC's pair of words (the
 * slot's offset, then the GOT's from the second word) is a call through
 * the slot.  Only words followed by `lds.l @r15+,pr` are taken for a
 * hook at all.
 */
static struct mc_site sh_decode_site(const struct mc_arch *arch,
				     const uint8_t *p, size_t avail,
				     uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };
	enum mc_endian e = arch->endian;

	if (avail < 6 || (addr & 3))
		return s;
	uint32_t w = mc_get32(e, p);
	if (!sh_is_lds_pr(p + 4, e)) {
		if (avail >= 10 && sh_is_lds_pr(p + 8, e))
			s = (struct mc_site){ MC_SITE_CALL_INDIRECT, 4,
				(uint32_t)(addr + 4 + mc_get32(e, p + 4) + w) };
		return s;
	}
	if (w == (uint32_t)(addr + 4))
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	else
		s = (struct mc_site){ MC_SITE_CALL, 4, w };
	return s;
}

/* The 16-bit instruction at p in the object's byte order. */
static uint16_t sh_insn(enum mc_endian e, const uint8_t *p)
{
	return e == MC_LITTLE_ENDIAN ? (uint16_t)(p[0] | p[1] << 8)
				     : (uint16_t)(p[0] << 8 | p[1]);
}

enum {
	SH_MOVL_PC_R0 = 0xd000,		/* mov.l @(disp,pc),r0: d0 dd */
	SH_MOVL_PC_R1 = 0xd100,		/* mov.l @(disp,pc),r1: d1 dd */
	SH_MOVL_R0_R12_R0 = 0x00ce,	/* mov.l @(r0,r12),r0 */
	SH_MOVL_AT_R0_R0 = 0x6002,	/* mov.l @r0,r0 */
	SH_JMP_R0 = 0x402b,		/* jmp @r0 */
	SH_PLT_ENTRY = 28,		/* GNU ld's entry: code, then pool */
};

/* `jmp @r0` third, or fourth after non-PIC's `mov.l @(disp,pc),r1`. */
static bool sh_jumps_r0(enum mc_endian e, const uint8_t *p, size_t avail)
{
	return sh_insn(e, p + 4) == SH_JMP_R0 ||
	       (avail >= 8 && (sh_insn(e, p + 4) & 0xff00u) == SH_MOVL_PC_R1 &&
		sh_insn(e, p + 6) == SH_JMP_R0);
}

/*
 * The slot a PLT entry at `addr` jumps through (the layout is above);
 * `base`: the GOT, which r12 holds in PIC code.  The pool word
 * `mov.l` reads must lie inside the entry.
 */
static uint64_t sh_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			    size_t avail, uint64_t addr, uint64_t base)
{
	enum mc_endian e = arch->endian;
	uint16_t mov, load;
	uint64_t lit;

	if (avail < 6 || (addr & 3))
		return 0;
	mov = sh_insn(e, p);
	load = sh_insn(e, p + 2);
	if ((mov & 0xff00u) != SH_MOVL_PC_R0 || !sh_jumps_r0(e, p, avail))
		return 0;
	/* the word: (pc & ~3) + 4 + disp * 4, pc the mov.l's own address */
	lit = ((addr & ~(uint64_t)3) + 4 + (mov & 0xffu) * 4) - addr;
	if (lit + 4 > SH_PLT_ENTRY || lit + 4 > avail)
		return 0;
	if (load == SH_MOVL_AT_R0_R0)
		return mc_get32(e, p + lit);
	if (load == SH_MOVL_R0_R12_R0 && base)
		return (uint32_t)(base + mc_get32(e, p + lit));
	return 0;
}

/* The disabled word depends on its own address, which this is not told. */
static bool sh_encode_nop(const struct mc_arch *arch, uint8_t *out,
			  unsigned len)
{
	(void)arch;
	(void)out;
	(void)len;
	return false;
}

/* Enabling a site stores the target's address in its pool word. */
static bool sh_encode_call(const struct mc_arch *arch, uint8_t *out,
			   unsigned len, uint64_t site, uint64_t target)
{
	if (len != 4 || (site & 3) || target > UINT32_MAX)
		return false;
	mc_put32(arch->endian, out, (uint32_t)target);
	return true;
}

/*
 * mov.l, sts.l, mova, jmp, lds, nop: the word is at most 12 bytes in;
 * PIC's five more instructions before them put it 20 bytes in.
 */
#define SH_MAX_ENTRY_OFFSET 20

/* -fpatchable-function-entry pads: the 2-byte `nop` in each byte order. */
static const struct mc_insn sh_le_pad_nops[] = {
	{ 2, { 0x09, 0x00 } },				/* nop */
};

static const struct mc_insn sh_be_pad_nops[] = {
	{ 2, { 0x00, 0x09 } },				/* nop */
};

/* What both byte orders share; each entry adds its order's pieces. */
#define SH_COMMON							\
	.e_machine = EM_SH_,						\
	.elf_class = 32,						\
	.addr_size = 4,							\
	.table_uses_rela = true,					\
	.table_addend_in_place = true,					\
	.table_reloc = R_SH_DIR32_,					\
	.none_reloc = R_SH_NONE_,					\
	.relative_reloc = R_SH_RELATIVE_,				\
	.hook_symbols = sh_hook_symbols,				\
	.n_pad_nops = 1,						\
	.max_entry_offset = SH_MAX_ENTRY_OFFSET,			\
	.insn_step = 2,							\
	.decode_site = sh_decode_site,					\
	.encode_nop = sh_encode_nop,					\
	.encode_call = sh_encode_call,					\
	.call_word = true,						\
	.plt_slot = sh_plt_slot, .plt_base_section = ".got",		\
	.plt_read = SH_PLT_ENTRY, .plt_step = 4

const struct mc_arch mc_arch_sh = {
	.name = "sh", SH_COMMON, .endian = MC_LITTLE_ENDIAN,
	.reloc_names = sh_reloc_names,
	.n_reloc_names = MC_COUNT(sh_reloc_names),
	.forms = sh_le_forms, .n_forms = MC_COUNT(sh_le_forms),
	.pad_nops = sh_le_pad_nops,
};

const struct mc_arch mc_arch_sheb = {
	.name = "sheb", SH_COMMON, .endian = MC_BIG_ENDIAN,
	.reloc_names = sh_reloc_names,
	.n_reloc_names = MC_COUNT(sh_reloc_names),
	.forms = sh_be_forms, .n_forms = MC_COUNT(sh_be_forms),
	.pad_nops = sh_be_pad_nops,
};
