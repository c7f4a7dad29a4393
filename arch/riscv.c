/* SPDX-License-Identifier: MIT */
/*
 * riscv.c - 64-bit RISC-V (RV64), little endian.
 *
 * The machine: base instructions are 4 bytes; with the C extension
 * (Debian's default, rv64gc) many also have 2-byte forms, so code is
 * only 2-byte aligned and a hook may start at any even offset.  The low
 * two bits of an instruction tell its length: 11 is 4 bytes, anything
 * else a 2-byte compressed one.  Calls are `jal rd, imm20` (+-1 MiB) or,
 * for anything farther, the pair `auipc rd, hi20; jalr rd, lo12(rd)`
 * (+-2 GiB), which the assembler writes for the `call` pseudo.
 *
 * What GCC emits for -pg (any -O level, PIC or not, compressed or not):
 * after the prologue, the caller's return address goes in a0 and
 *
 *     mv     a0, ra
 *     auipc  ra, 0        R_RISCV_CALL_PLT _mcount  (R_RISCV_CALL with
 *                         R_RISCV_RELAX *ABS*       older assemblers)
 *     jalr   ra, 0(ra)
 *
 * One relocation marks the pair, on the auipc: the site is the auipc,
 * 8 bytes (field_offset 0).  R_RISCV_RELAX, absent with -mno-relax,
 * names no symbol: it only lets ld shrink the pair.
 *
 * --nop writes two `nop`s (addi x0, x0, 0 = 00000013), each 4 bytes,
 * which exist whether or not the C extension does.  encode_nop also
 * writes the 2-byte `c.nop` (0001) for lengths of 4k+2 bytes, which only
 * a compressed site can have (rv32's relaxed `c.jal`); a 4-byte `nop`
 * would not fit there.
 *
 * Linker relaxation: unless told --no-relax (or the objects were built
 * with -mno-relax), ld turns the pair into `jal ra, _mcount` (4 bytes)
 * when the hook is within 1 MiB, and deletes bytes from the section,
 * moving everything after.  ld corrects the relocations and symbols of
 * the section it shrinks, but a reference from another section keeps
 * its meaning only if it is against a symbol whose value ld moves: a
 * section symbol plus an addend is NOT adjusted.  That is why RISC-V
 * assemblers keep local labels (.L...) as symbols, and why this arch
 * sets anchor_at_site: every table entry is relocated against its own
 * unnamed local label at the auipc, which ld moves with the code (the
 * tests link relaxed objects and find the table still pointing at each
 * `jal`).  The kernel itself avoids the
 * question: linux-6.1 links vmlinux with --no-relax and builds modules
 * with -mno-relax when DYNAMIC_FTRACE is on.  In a relaxed image the
 * site is a 4-byte `jal`; the decoder reads both shapes.
 *
 * The table: R_RISCV_64 in RELA, R_RISCV_RELATIVE in a PIE.
 */
#include "arch.h"

enum {
	EM_RISCV_ = 243,

	R_RISCV_NONE_ = 0,
	R_RISCV_64_ = 2,
	R_RISCV_RELATIVE_ = 3,
	R_RISCV_CALL_ = 18,
	R_RISCV_CALL_PLT_ = 19,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name rv_reloc_names[] = {
	{ 0, "R_RISCV_NONE" }, { 1, "R_RISCV_32" }, { 2, "R_RISCV_64" },
	{ 3, "R_RISCV_RELATIVE" }, { 5, "R_RISCV_JUMP_SLOT" },
	{ 17, "R_RISCV_JAL" }, { 18, "R_RISCV_CALL" },
	{ 19, "R_RISCV_CALL_PLT" }, { 20, "R_RISCV_GOT_HI20" },
	{ 23, "R_RISCV_PCREL_HI20" }, { 24, "R_RISCV_PCREL_LO12_I" },
	{ 26, "R_RISCV_HI20" }, { 27, "R_RISCV_LO12_I" },
	{ 51, "R_RISCV_RELAX" },
};

#define RV_AUIPC_RA 0x00000097u		/* auipc ra, 0 */
#define RV_JALR_RA 0x000080e7u		/* jalr ra, 0(ra) */
#define RV_JAL_RA 0x000000efu		/* jal ra, 0 */
#define RV_NOP 0x00000013u		/* addi x0, x0, 0 */
#define RV_CNOP 0x0001u			/* c.nop */
#define RV_JAL_RANGE (1ll << 20)	/* +-1 MiB */

static const uint8_t rv_nop8[8] = {
	0x13, 0x00, 0x00, 0x00,		/* nop */
	0x13, 0x00, 0x00, 0x00,		/* nop */
};

static const char *const rv_hook_symbols[] = { "_mcount", NULL };

static const struct mc_object_form rv_forms[] = {
	{ .name = "auipc ra; jalr ra",
	  .reloc_types = { R_RISCV_CALL_PLT_, R_RISCV_CALL_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 8,
	  .opcode = { 0x97, 0x00, 0x00, 0x00,		/* auipc ra, hi20 */
		      0xe7, 0x80, 0x00, 0x00 },		/* jalr ra, lo12(ra) */
	  .mask = { 0xff, 0x0f, 0x00, 0x00, 0xff, 0xff, 0x0f, 0x00 },
	  .opcode_len = 8, .nop = rv_nop8 },
};

/* 4-byte `nop`s, then one `c.nop` when two bytes are left over. */
static bool rv_encode_nop(const struct mc_arch *arch, uint8_t *out,
			  unsigned len)
{
	(void)arch;
	if (len == 0 || len > MC_MAX_SITE_LEN || (len & 1))
		return false;
	for (; len >= 4; len -= 4, out += 4)
		mc_put_le32(out, RV_NOP);
	if (len == 2)
		mc_put_le16(out, RV_CNOP);
	return true;
}

/* jal's scrambled immediate: imm[20|10:1|11|19:12] in bits 31..12. */
static uint32_t rv_jal(int64_t d)
{
	uint32_t v = (uint32_t)d;

	return RV_JAL_RA | ((v >> 20) & 1) << 31 | ((v >> 1) & 0x3ff) << 21 |
	       ((v >> 11) & 1) << 20 | ((v >> 12) & 0xff) << 12;
}

static int64_t rv_jal_offset(uint32_t insn)
{
	uint64_t v = ((insn >> 31) & 1) << 20 | ((insn >> 21) & 0x3ff) << 1 |
		     ((insn >> 20) & 1) << 11 | ((insn >> 12) & 0xff) << 12;

	return mc_sign_extend(v, 21);
}

/*
 * 8 bytes: auipc+jalr, reaching +-2 GiB (jalr adds a sign-extended
 * lo12: mc_hi20 and mc_lo12).  4 bytes: the `jal` a relaxed image has.
 */
static bool rv_encode_call(const struct mc_arch *arch, uint8_t *out,
			   unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	(void)arch;
	if ((site & 1) || (target & 1))
		return false;
	if (len == 4) {
		if (d < -RV_JAL_RANGE || d >= RV_JAL_RANGE)
			return false;
		mc_put_le32(out, rv_jal(d));
		return true;
	}
	if (len != 8 || !mc_hi20_lo12_fits(d))
		return false;
	mc_put_le32(out, RV_AUIPC_RA | ((uint32_t)mc_hi20(d) << 12));
	mc_put_le32(out + 4, RV_JALR_RA | ((uint32_t)mc_lo12(d) << 20));
	return true;
}

static struct mc_site rv_decode_site(const struct mc_arch *arch,
				     const uint8_t *p, size_t avail,
				     uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };
	uint32_t a = avail >= 4 ? mc_get_le32(p) : 0;
	uint32_t b = avail >= 8 ? mc_get_le32(p + 4) : 0;

	(void)arch;
	if (avail >= 8 && (a & 0xfff) == RV_AUIPC_RA &&
	    (b & 0xfffff) == RV_JALR_RA) {
		int64_t off = mc_sign_extend(a & 0xfffff000u, 32) +
			      mc_sign_extend(b >> 20, 12);
		s = (struct mc_site){ MC_SITE_CALL, 8, addr + (uint64_t)off };
	} else if (avail >= 8 && mc_bytes_equal(p, rv_nop8, 8)) {
		s = (struct mc_site){ MC_SITE_NOP, 8, 0 };
	} else if (avail >= 4 && (a & 0xfff) == RV_JAL_RA) {
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      addr + (uint64_t)rv_jal_offset(a) };
	} else if (avail >= 4 && a == RV_NOP) {
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	} else if (avail >= 2 && p[0] == (uint8_t)RV_CNOP && p[1] == 0) {
		s = (struct mc_site){ MC_SITE_NOP, 2, 0 };
	}
	return s;
}

/*
 * The NOPs of a site's own length: two for the auipc+jalr pair, one for
 * a relaxed `jal` (rv64 has no 2-byte c.jal, but a 2-byte neutral site
 * is c.nop).
 */
static const uint8_t *rv_site_neutral(const struct mc_arch *arch,
				      const struct mc_site *site)
{
	static const uint8_t cnop[2] = { 0x01, 0x00 };	/* c.nop */

	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN)
		return NULL;
	switch (site->len) {
	case 8:
	case 4:
		return rv_nop8;		/* nop; nop (or its first half) */
	case 2:
		return cnop;
	default:
		return NULL;
	}
}

/* -fpatchable-function-entry pads: c.nop when RVC is on, else nop. */
static const struct mc_insn rv_pad_nops[] = {
	{ 2, { 0x01, 0x00 } },				/* c.nop */
	{ 4, { 0x13, 0x00, 0x00, 0x00 } },		/* nop (addi x0,x0,0) */
};

/*
 * The runtime enables a pad as the kernel's riscv ftrace does, with the
 * pair at the function's entry linking through t0, so that ra still
 * holds the function's own return address in the trampoline, which
 * returns with `jr t0`:
 *
 *     auipc  t0, hi20       (hi20 << 12) | 00000297
 *     jalr   t0, lo12(t0)   (lo12 << 20) | 000282e7
 *
 * t0 is a temporary no caller expects to survive a call.  The pair
 * needs 8 bytes of pad: four `c.nop` (GCC's NOP with the C extension)
 * or two `nop`, which disabling writes back as they were.
 */
#define RV_AUIPC_T0 0x00000297u		/* auipc t0, 0 */
#define RV_JALR_T0 0x000282e7u		/* jalr t0, 0(t0) */

static const uint8_t rv_pad_cnop4[8] = {
	0x01, 0x00, 0x01, 0x00,				/* c.nop; c.nop */
	0x01, 0x00, 0x01, 0x00,				/* c.nop; c.nop */
};

static bool rv_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
			       unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	(void)arch;
	if (len != 8 || (site & 1) || (target & 1) || !mc_hi20_lo12_fits(d))
		return false;
	mc_put_le32(out, RV_AUIPC_T0 | ((uint32_t)mc_hi20(d) << 12));
	mc_put_le32(out + 4, RV_JALR_T0 | ((uint32_t)mc_lo12(d) << 20));
	return true;
}

static const uint8_t *rv_pad_neutral(const struct mc_arch *arch,
				     const uint8_t *p, size_t avail,
				     unsigned *len)
{
	(void)arch;
	*len = 8;
	if (avail < 8)
		return NULL;
	if (mc_bytes_equal(p, rv_pad_cnop4, 8))
		return rv_pad_cnop4;
	return mc_bytes_equal(p, rv_nop8, 8) ? rv_nop8 : NULL;
}

/*
 * Live patching (arch.h's live_forms).  A fetch is atomic for an
 * instruction at its natural alignment (Ziccif: a 4-byte instruction
 * at a multiple of 4, a 2-byte one at a multiple of 2), so a toggle
 * must swap one such instruction whole, while every byte of the site
 * but that instruction stays as boot left it.  Which one depends on
 * where the site is:
 *
 * At a multiple of 4 (every site without the C extension, half of them
 * with it), the call's last word: boot writes the call's `auipc` for
 * good and toggles the `jalr` against `nop`, as the kernel's riscv
 * ftrace does; a relaxed site's one `jal` is toggled against `nop`.
 * Disabled, the `auipc` still writes its register (ra for a hook, t0
 * for a pad), which the enabled call writes too: dead at the site.
 *
 *     auipc  ra, hi            auipc  ra, hi
 *     jalr   ra, lo(ra)        nop                  (a pad: t0)
 *
 * At 2 mod 4 (the C extension's code is only 2-byte aligned), that
 * word is not aligned and neither is the call.  The toggled unit is
 * then the call's first halfword: disabled, it is a `c.j` over the
 * whole site, whose other bytes keep the enabled call's, never run:
 *
 *     auipc  ra, hi            c.j  .+8             (jal: c.j .+4)
 *     jalr   ra, lo(ra)        (the rest of the call, jumped over)
 *
 * A fetch sees the old halfword or the new: `c.j` and nothing after
 * it, or the call's first half, and then its other bytes, which never
 * change.  Code at 2 mod 4 implies the C extension, so `c.j` exists.
 */
#define RV_CJ 0xa001u			/* c.j .+0 (CJ format) */

/* c.j's offset field: imm[11|4|9:8|10|6|7|3:1|5] in bits 12..2. */
static uint16_t rv_cj(unsigned d)
{
	return (uint16_t)(RV_CJ | ((d >> 11) & 1) << 12 | ((d >> 4) & 1) << 11 |
			  ((d >> 8) & 3) << 9 | ((d >> 10) & 1) << 8 |
			  ((d >> 6) & 1) << 7 | ((d >> 7) & 1) << 6 |
			  ((d >> 1) & 7) << 3 | ((d >> 5) & 1) << 2);
}

/* The runtime's call at a site: a hook's pair or jal, a pad's pair. */
static bool rv_is_live_call(const uint8_t *on, unsigned len, bool pad)
{
	uint32_t a;

	if (len != 4 && len != 8)
		return false;
	a = mc_get_le32(on);
	if (len == 4)
		return !pad && (a & 0xfff) == RV_JAL_RA;
	if (pad)
		return (a & 0xfff) == RV_AUIPC_T0 &&
		       (mc_get_le32(on + 4) & 0xfffff) == RV_JALR_T0;
	return (a & 0xfff) == RV_AUIPC_RA &&
	       (mc_get_le32(on + 4) & 0xfffff) == RV_JALR_RA;
}

static bool rv_live_forms(const struct mc_arch *arch, uint8_t *on,
			  uint8_t *off, unsigned pre, unsigned len, bool pad,
			  uint64_t at)
{
	(void)arch;
	if (pre != 0 || (at & 1) || !rv_is_live_call(on, len, pad))
		return false;
	mc_bytes_copy(off, on, len);
	if (at & 2)
		mc_put_le16(off, rv_cj(len));		/* c.j .+len */
	else
		mc_put_le32(off + len - 4, RV_NOP);	/* jalr (jal) -> nop */
	return true;
}

/*
 * A thunk where the site's call cannot reach the trampoline (`jal`:
 * +-1 MiB; `auipc; jalr`: +-2 GiB):
 *   00000e17   auipc t3, 0
 *   010e3e03   ld    t3, 16(t3)
 *   000e0067   jr    t3
 *   00000013   nop
 *   <8 bytes>  the trampoline
 * t3 is what a PLT entry clobbers on any call; ra (and a pad's t0)
 * reach the trampoline as from a direct call.
 */
static bool rv_encode_thunk(const struct mc_arch *arch, uint8_t *out,
			    uint64_t target, bool pad)
{
	(void)arch;
	(void)pad;
	mc_put_le32(out, 0x00000e17);		/* auipc t3, 0 */
	mc_put_le32(out + 4, 0x010e3e03);	/* ld t3, 16(t3) */
	mc_put_le32(out + 8, 0x000e0067);	/* jr t3 */
	mc_put_le32(out + 12, RV_NOP);
	mc_put_le64(out + 16, target);
	return true;
}

/* A relaxed site's `jal` reaches 1 MiB; the 8-byte pairs 2 GiB. */
static uint64_t rv_site_reach(const struct mc_arch *arch, unsigned len,
			      bool pad)
{
	return len == 4 && !pad ? RV_JAL_RANGE : arch->call_reach;
}

/*
 * A PLT entry (GNU ld, lld): 16 bytes after a 32-byte header,
 *     auipc t3, %pcrel_hi(slot)
 *     ld    t3, %pcrel_lo(slot)(t3)
 *     jalr  t1, t3
 *     nop
 * slot = entry + the auipc's upper 20 bits + the ld's signed 12.
 */
static uint64_t rv_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			    size_t avail, uint64_t addr, uint64_t base)
{
	uint32_t auipc, ld;

	(void)arch;
	(void)base;
	if (avail < 12)
		return 0;
	auipc = mc_get_le32(p);
	ld = mc_get_le32(p + 4);
	if ((auipc & 0xfff) != 0x00000e17u ||		/* auipc t3 */
	    (ld & 0xfffff) != 0x000e3e03u ||		/* ld t3, (t3) */
	    mc_get_le32(p + 8) != 0x000e0367u)		/* jalr t1, t3 */
		return 0;
	return addr + (uint64_t)mc_sign_extend(auipc & 0xfffff000u, 32) +
	       (uint64_t)mc_sign_extend(ld >> 20, 12);
}

static const char *const riscv64_int_arg_regs[] = {
	"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
};

const struct mc_arch mc_arch_riscv64 = {
	.int_arg_regs = riscv64_int_arg_regs,
	.n_int_arg_regs = 8,
	.int_ret_reg = "a0",
	.name = "riscv64",
	/* the time CSR, which the vDSO's clock_gettime reads too */
	.trace_clock = "rdtime",
	.reloc_names = rv_reloc_names,
	.n_reloc_names = MC_COUNT(rv_reloc_names),
	.e_machine = EM_RISCV_,
	.elf_class = 64,
	.endian = MC_LITTLE_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_RISCV_64_,
	.none_reloc = R_RISCV_NONE_,
	.relative_reloc = R_RISCV_RELATIVE_,
	.hook_symbols = rv_hook_symbols,
	.forms = rv_forms,
	.pad_nops = rv_pad_nops, .n_pad_nops = MC_COUNT(rv_pad_nops),
	.pad_call_len = 8,
	.encode_pad_call = rv_encode_pad_call,
	.pad_neutral = rv_pad_neutral,
	.n_forms = sizeof(rv_forms) / sizeof(rv_forms[0]),
	.anchor_at_site = true,
	/* After the prologue's saves (compressed or not) and `mv a0, ra`. */
	.max_entry_offset = 64,
	.insn_step = 2,
	/* one 32-bit instruction, or a 2-byte one (live_forms) */
	.live_store_max = 4,
	.live_forms = rv_live_forms,
	.decode_site = rv_decode_site,
	.encode_nop = rv_encode_nop,
	.encode_call = rv_encode_call,
	.site_neutral = rv_site_neutral,
	.thunk_len = 24,
	.call_reach = 1ull << 31,
	.encode_thunk = rv_encode_thunk,
	.site_reach = rv_site_reach,
	.plt_slot = rv_plt_slot,
	.plt_read = 12,
	.plt_step = 4,
};

/*
 * ---- for the runtime: where an mcount hook's caller is ----------------
 *
 * GCC's -pg passes the function's return address (its caller) in a0:
 * `mv a0, ra` (c.mv a0, ra, or addi a0, ra, 0), sometimes several
 * instructions before the call (the scheduler moves it).  clang's -pg
 * passes nothing: a0 still holds the first argument.  But clang keeps a
 * frame pointer with -pg, and its prologue stores ra just below it:
 *
 *     addi  sp, sp, -N
 *     sd    ra, N-8(sp)
 *     ...
 *     addi  s0, sp, N        (c.addi4spn s0, sp, N)
 *
 * so that -8(s0) holds the caller.  mc_arch_riscv64_caller reads the
 * code from the function's entry to the hook (`code`, `len` bytes, the
 * hook itself not included) and says which of the two holds, by what
 * that code does, not by which compiler made it (enum mc_rv_caller,
 * arch.h):
 *
 *   1 (a0)     the last write to a0 is `mv a0, ra` (or a copy of a
 *              register that got the entry's ra that way: GCC -O0's
 *              `mv a5, ra` ... `mv a0, a5`)
 *   2 (s0)     s0 = (entry sp) + k, not written since, and the entry's
 *              ra was stored at (entry sp) + k - 8 and that slot not
 *              written since
 *   0          neither, or the code is not a straight run of
 *              instructions this reader knows ending at the hook (a
 *              jump or branch, an instruction longer than 4 bytes, one
 *              that does not end at `len`): the runtime refuses the site
 *
 * Stores through any base but sp or a known s0, or of unknown width,
 * may hit ra's slot and forget it; any instruction not known to leave
 * a register alone counts as writing the one in its rd field.
 */
enum { RV_RA = 1, RV_SP = 2, RV_S0 = 8, RV_A0 = 10 };

/* What one instruction does, as far as the caller's whereabouts go. */
struct rv_effect {
	unsigned len;		/* 2 or 4; 0: stop (unknown, jump, branch) */
	int rd;			/* integer register written, or -1 */
	bool store;		/* writes memory ... */
	int base;		/* ... at base + imm, width bytes (0: unknown) */
	int64_t imm;
	unsigned width;
	int src;		/* stored register (integer stores), or -1 */
	int rs1;		/* addi: rd := rs1 + imm; else -1 */
};

static struct rv_effect rv_effect16(uint32_t h)
{
	struct rv_effect e = { .len = 2, .rd = -1, .base = -1, .src = -1,
			       .rs1 = -1 };
	unsigned f3 = h >> 13, rd = (h >> 7) & 31, rs2 = (h >> 2) & 31;
	unsigned rdp = 8 + ((h >> 2) & 7), rs1p = 8 + ((h >> 7) & 7);
	int64_t imm6 = mc_sign_extend(((h >> 7) & 0x20) | ((h >> 2) & 0x1f), 6);

	switch ((h & 3) << 3 | f3) {
	case 0 << 3 | 0:	/* c.addi4spn rd', sp, nzuimm */
		if (h == 0)
			break;
		e.rd = (int)rdp;
		e.rs1 = RV_SP;
		e.imm = ((h >> 7) & 0x30) | ((h >> 1) & 0x3c0) |
			((h >> 4) & 4) | ((h >> 2) & 8);
		return e;
	case 0 << 3 | 1:	/* c.fld */
		return e;
	case 0 << 3 | 2:	/* c.lw */
	case 0 << 3 | 3:	/* c.ld */
		e.rd = (int)rdp;
		return e;
	case 0 << 3 | 5:	/* c.fsd */
	case 0 << 3 | 7:	/* c.sd */
		e.store = true;
		e.base = (int)rs1p;
		e.imm = ((h >> 7) & 0x38) | ((h << 1) & 0xc0);
		e.width = 8;
		e.src = f3 == 7 ? (int)rdp : -1;
		return e;
	case 0 << 3 | 6:	/* c.sw */
		e.store = true;
		e.base = (int)rs1p;
		e.imm = ((h >> 7) & 0x38) | ((h >> 4) & 4) | ((h << 1) & 0x40);
		e.width = 4;
		e.src = (int)rdp;
		return e;
	case 1 << 3 | 0:	/* c.addi rd, imm (c.nop) */
		e.rd = rd ? (int)rd : -1;
		e.rs1 = (int)rd;
		e.imm = imm6;
		return e;
	case 1 << 3 | 1:	/* c.addiw */
	case 1 << 3 | 2:	/* c.li */
		e.rd = (int)rd;
		return e;
	case 1 << 3 | 3:	/* c.addi16sp, or c.lui */
		e.rd = (int)rd;
		if (rd == RV_SP) {
			e.rs1 = RV_SP;
			e.imm = mc_sign_extend(((h >> 3) & 0x200) |
					    ((h >> 2) & 0x10) |
					    ((h << 1) & 0x40) |
					    ((h << 4) & 0x180) |
					    ((h << 3) & 0x20), 10);
		}
		return e;
	case 1 << 3 | 4:	/* c.srli ... c.addw: rd' */
		e.rd = (int)rs1p;
		return e;
	case 2 << 3 | 0:	/* c.slli */
	case 2 << 3 | 2:	/* c.lwsp */
	case 2 << 3 | 3:	/* c.ldsp */
		e.rd = (int)rd;
		return e;
	case 2 << 3 | 1:	/* c.fldsp */
		return e;
	case 2 << 3 | 4:	/* c.mv, c.add; c.jr, c.jalr, c.ebreak stop */
		if (rs2 == 0)
			break;
		e.rd = (int)rd;
		if (!(h & 0x1000)) {		/* c.mv rd, rs2 */
			e.rs1 = (int)rs2;
			e.imm = 0;
		}
		return e;
	case 2 << 3 | 5:	/* c.fsdsp */
	case 2 << 3 | 7:	/* c.sdsp */
		e.store = true;
		e.base = RV_SP;
		e.imm = ((h >> 7) & 0x38) | ((h >> 1) & 0x1c0);
		e.width = 8;
		e.src = f3 == 7 ? (int)rs2 : -1;
		return e;
	case 2 << 3 | 6:	/* c.swsp */
		e.store = true;
		e.base = RV_SP;
		e.imm = ((h >> 7) & 0x3c) | ((h >> 1) & 0xc0);
		e.width = 4;
		e.src = (int)rs2;
		return e;
	default:		/* c.j, c.beqz, c.bnez, reserved */
		break;
	}
	e.len = 0;
	return e;
}

static struct rv_effect rv_effect32(uint32_t i)
{
	struct rv_effect e = { .len = 4, .rd = (int)((i >> 7) & 31),
			       .base = -1, .src = -1, .rs1 = -1 };
	unsigned f3 = (i >> 12) & 7;
	static const unsigned char widths[8] = { 1, 2, 4, 8, 16, 0, 0, 0 };

	switch (i & 0x7f) {
	case 0x13:		/* OP-IMM: addi rd, rs1, imm */
		if (f3 == 0) {
			e.rs1 = (int)((i >> 15) & 31);
			e.imm = mc_sign_extend(i >> 20, 12);
		}
		break;
	case 0x23:		/* STORE */
	case 0x27:		/* STORE-FP (and vector stores: width 0) */
		e.rd = -1;
		e.store = true;
		e.base = (int)((i >> 15) & 31);
		e.imm = mc_sign_extend(((i >> 25) << 5) | ((i >> 7) & 31), 12);
		e.width = (i & 0x7f) == 0x23 ? (f3 < 4 ? widths[f3] : 0) :
			  (f3 >= 1 && f3 <= 4 ? widths[f3] : 0);
		e.src = (i & 0x7f) == 0x23 ? (int)((i >> 20) & 31) : -1;
		break;
	case 0x2f:		/* AMO: rd, and memory anywhere */
		e.store = true;
		break;
	case 0x07:		/* LOAD-FP */
	case 0x43:		/* FMADD ... FNMADD */
	case 0x47:
	case 0x4b:
	case 0x4f:
		e.rd = -1;	/* an FP register */
		break;
	case 0x53:		/* OP-FP: compares, fcvt to int, fmv.x, fclass */
		switch (i >> 27) {
		case 0x14:
		case 0x18:
		case 0x1c:
			break;
		default:
			e.rd = -1;
		}
		break;
	case 0x63:		/* BRANCH */
	case 0x67:		/* JALR */
	case 0x6f:		/* JAL */
	case 0x73:		/* SYSTEM */
		e.len = 0;
		break;
	default:		/* rd, if it has one, is written */
		break;
	}
	if (e.rd == 0)
		e.rd = -1;
	return e;
}

/* What a prologue did by the hook, relative to the entry's sp. */
struct rv_prologue {
	int64_t sp, s0, slot;	/* sp; s0; where the entry's ra was stored */
	bool sp_ok, s0_ok, slot_ok;
	uint32_t has_ra;	/* registers holding the entry's ra */
	uint32_t known;		/* registers holding a constant ... */
	int64_t value[32];	/* ... which is this */
	uint32_t written;	/* registers written (bit n: xn) */
};

/*
 * A constant into a register (lui, addi(w) of a known one, li), or sp
 * moved by a register holding one (add/sub sp, sp, rs; c.add sp, rs):
 * how GCC sizes a frame past addi's 2 KiB (`lui t0, -1; add sp, sp,
 * t0`).  True if `code` was one of these and `p` now says so.
 */
static bool rv_constant(const uint8_t *code, size_t room, unsigned len,
			struct rv_prologue *p)
{
	uint32_t i = len == 4 && room >= 4 ? mc_get_le32(code) :
		     (uint32_t)(code[0] | code[1] << 8);
	unsigned rd = (i >> 7) & 31, rs1 = (i >> 15) & 31, rs2 = (i >> 20) & 31;
	int64_t v;

	if (len == 2) {
		rs2 = (i >> 2) & 31;
		if ((i & 0xe003) == 0x4001 && rd) {		/* c.li */
			v = mc_sign_extend(((i >> 7) & 0x20) | ((i >> 2) & 0x1f), 6);
		} else if ((i & 0xe003) == 0x6001 && rd && rd != RV_SP) {
			v = mc_sign_extend(((uint64_t)(i >> 12) & 1) << 17 |
					   (uint64_t)((i >> 2) & 0x1f) << 12, 18);
		} else if ((i & 0xf003) == 0x9002 && rd == RV_SP && rs2 &&
			   (p->known >> rs2 & 1)) {		/* c.add sp, rs2 */
			p->sp += p->value[rs2];
			return true;
		} else {
			return false;
		}
	} else if ((i & 0x7f) == 0x37 && rd) {			/* lui */
		v = mc_sign_extend(i & 0xfffff000u, 32);
	} else if (((i & 0x707f) == 0x13 || (i & 0x707f) == 0x1b) && rd &&
		   (rs1 == 0 || (p->known >> rs1 & 1))) {	/* addi(w) */
		v = (rs1 ? p->value[rs1] : 0) + mc_sign_extend(i >> 20, 12);
		if ((i & 0x7f) == 0x1b)
			v = mc_sign_extend((uint64_t)v & 0xffffffffu, 32);
	} else if ((i & 0xbe0fffff) == 0x00010133 && rs2 &&
		   (p->known >> rs2 & 1)) {	/* add/sub sp, sp, rs2 */
		p->sp += i & 0x40000000 ? -p->value[rs2] : p->value[rs2];
		return true;
	} else {
		return false;
	}
	if (rd == RV_SP)
		return false;	/* sp itself made a constant: not followed */
	p->value[rd] = v;
	p->known |= 1u << rd;
	return true;
}

/* Read `len` bytes of code from the entry; false if not followed. */
static bool rv_read_prologue(const uint8_t *code, size_t len,
			     struct rv_prologue *p)
{
	size_t off = 0;

	/* field by field: value[] is read only where `known` says (and a
	 * whole-struct store would be a memset, which freestanding lacks) */
	p->sp = p->s0 = p->slot = 0;
	p->sp_ok = true;
	p->s0_ok = p->slot_ok = false;
	p->has_ra = 1u << RV_RA;
	p->known = 0;
	p->written = 0;
	while (off < len) {
		struct rv_effect e;

		if (len - off >= 2 && (code[off] & 3) != 3)
			e = rv_effect16(code[off] | (uint32_t)code[off + 1] << 8);
		else if (len - off >= 4 && (code[off] & 0x1f) != 0x1f)
			e = rv_effect32(mc_get_le32(code + off));
		else
			return false;
		if (e.len == 0)
			return false;
		if (e.rd > 0)
			p->written |= 1u << e.rd;
		if (rv_constant(code + off, len - off, e.len, p)) {
			p->has_ra &= ~(e.rd > 0 ? 1u << e.rd : 0);
			if (e.rd == RV_S0)
				p->s0_ok = false;
			off += e.len;
			continue;
		}
		if (e.rd > 0)
			p->known &= ~(1u << e.rd);
		if (e.store) {
			bool known = e.width && ((e.base == RV_SP && p->sp_ok) ||
						 (e.base == RV_S0 && p->s0_ok));
			int64_t at = e.imm + (e.base == RV_SP ? p->sp : p->s0);

			if (known && e.src >= 0 && (p->has_ra >> e.src & 1) &&
			    e.width == 8) {
				p->slot = at;
				p->slot_ok = true;
			} else if (p->slot_ok &&
				   (!known ||
				    (at < p->slot + 8 &&
				     at + (int64_t)e.width > p->slot))) {
				p->slot_ok = false;
			}
		}
		if (e.rd > 0) {
			/* mv rd, rs (addi rd, rs, 0) copies the entry's ra */
			bool copy = e.rs1 >= 0 && e.imm == 0 &&
				    (p->has_ra >> e.rs1 & 1);

			p->has_ra = copy ? p->has_ra | 1u << e.rd :
					   p->has_ra & ~(1u << e.rd);
		}
		switch (e.rd) {
		case RV_SP:
			if (e.rs1 == RV_SP && p->sp_ok)
				p->sp += e.imm;
			else
				p->sp_ok = false;
			break;
		case RV_S0:
			p->s0_ok = e.rs1 == RV_SP && p->sp_ok;
			p->s0 = p->sp + e.imm;
			break;
		default:
			break;
		}
		off += e.len;
	}
	return off == len;
}

enum mc_rv_caller mc_arch_riscv64_caller(const uint8_t *code, size_t len)
{
	struct rv_prologue p;

	if (!rv_read_prologue(code, len, &p))
		return MC_RV_CALLER_UNKNOWN;
	if (p.has_ra >> RV_A0 & 1)
		return MC_RV_CALLER_A0;
	if (p.s0_ok && p.slot_ok && p.slot == p.s0 - 8)
		return MC_RV_CALLER_FP;
	return MC_RV_CALLER_UNKNOWN;
}

/* a0-a7 as the entry had them at the hook: no write to them before. */
bool mc_arch_riscv64_args_kept(const uint8_t *code, size_t len)
{
	struct rv_prologue p;

	return rv_read_prologue(code, len, &p) &&
	       !(p.written & 0xffu << RV_A0);
}

/*
 * Where the entry's ra is stored at the hook, and the entry's sp, as
 * offsets from sp at the hook; false if the prologue does not say.
 */
bool mc_arch_riscv64_ra_slot(const uint8_t *code, size_t len,
			     int64_t *slot, int64_t *entry_sp)
{
	struct rv_prologue p;

	if (!rv_read_prologue(code, len, &p) || !p.sp_ok || !p.slot_ok)
		return false;
	*slot = p.slot - p.sp;
	*entry_sp = -p.sp;
	return true;
}
