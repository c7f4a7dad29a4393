/* SPDX-License-Identifier: MIT */
/*
 * loongarch.c - LoongArch64 (LA64), little endian.
 *
 * The machine: every instruction is 32 bits, 4-byte aligned, stored
 * little-endian; there is no compressed form, so a hook can only start
 * at a multiple of 4.  $r0 ($zero) reads as zero and ignores writes;
 * $r1 ($ra) is the return-address register.  The calls:
 *
 *   bl   offs26          top six bits 010101; the word offset's low 16
 *                        bits in bits 25..10, its high 10 in bits 9..0;
 *                        target = pc + (offs26 << 2), +-128 MiB.  Writes
 *                        pc + 4 to $ra.
 *   pcalau12i rd, si20   rd = (pc + (si20 << 12)) & ~0xfff: the 4 KiB
 *                        page of the target
 *   jirl rd, rj, offs16  rd = pc + 4; pc = rj + (offs16 << 2)
 *
 * The NOP is `andi $zero, $zero, 0`, 03400000 (bytes 00 00 40 03).
 *
 * What clang 16 (`--target=loongarch64-linux-gnu -pg`, PIC or not,
 * -O0 to -O2) emits: the call comes after the prologue, which has
 * already saved $ra (`st.d $ra, $sp, N`) and set up $fp, so the call
 * may clobber $ra:
 *
 *     bl     mcount       R_LARCH_B26 mcount          (normal code model)
 *
 *     pcalau12i $ra, 0    R_LARCH_PCALA_HI20 mcount   (-mcmodel=medium)
 *     jirl   $ra, $ra, 0  R_LARCH_PCALA_LO12 mcount
 *
 * clang calls `mcount`; GCC's -pg calls `_mcount`, the one the kernel
 * defines and its recordmcount looks for: both are hook symbols.  The site is the instruction the
 * first relocation is on (the `bl`, or the `pcalau12i`: field_offset
 * 0); R_LARCH_PCALA_LO12 on the `jirl` is its companion.  --nop writes
 * one NOP per instruction of the site and voids both relocations.
 * clang 16 has no -mcmodel=large for LoongArch; the `pcaddu18i; jirl`
 * pair newer compilers write for the medium model (R_LARCH_CALL36) is
 * not recognised: a hook call of that shape is reported, not recorded.
 *
 * -fpatchable-function-entry=N[,M] (GCC; clang 16 refuses it for this
 * target) fills the pad with N `nop`s, M of them before the entry, and
 * lists each pad in __patchable_function_entries, as on every other
 * architecture; pad_nops knows that one NOP.  No runtime backend patches
 * LoongArch code (pad_call_len 0, no live forms, no thunks).
 *
 * Linker relaxation: GNU ld relaxes LoongArch code since binutils 2.41
 * (with objects that carry R_LARCH_RELAX, which clang 16 never writes),
 * deleting bytes inside a section as RISC-V's ld does, so a table entry
 * against a section symbol plus an addend would point past its call.
 * As on RISC-V, anchor_at_site relocates every entry against a local
 * label at its own site, which such a linker moves with the code.
 *
 * The table: R_LARCH_64 in RELA, R_LARCH_RELATIVE in a PIE.  Only LA64
 * has an entry: an LA32 object (ELFCLASS32, which clang 16 also writes)
 * is refused as an unsupported machine.
 *
 * What stays untested here: Debian 12 has no LoongArch GCC or binutils,
 * and its lld (16) cannot link LoongArch, so GCC's objects and linked
 * LoongArch images (--check and --finalize of an executable, the
 * linked-code decoder on real links) are checked against llvm-mc's
 * encodings only (tests/unit/test_arch_loongarch.c).
 */
#include "arch.h"

/* ELF facts (the LoongArch ELF psABI; llvm-readelf names them). */
enum {
	EM_LOONGARCH_ = 258,

	R_LARCH_NONE_ = 0,
	R_LARCH_64_ = 2,
	R_LARCH_RELATIVE_ = 3,
	R_LARCH_B26_ = 66,
	R_LARCH_PCALA_HI20_ = 71,
	R_LARCH_PCALA_LO12_ = 72,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address absolute, PC-relative or from the GOT, a
 * tail call `b`, a PLT slot).
 */
static const struct mc_reloc_name la_reloc_names[] = {
	{ 0, "R_LARCH_NONE" }, { 1, "R_LARCH_32" }, { 2, "R_LARCH_64" },
	{ 3, "R_LARCH_RELATIVE" }, { 5, "R_LARCH_JUMP_SLOT" },
	{ 66, "R_LARCH_B26" }, { 67, "R_LARCH_ABS_HI20" },
	{ 68, "R_LARCH_ABS_LO12" }, { 71, "R_LARCH_PCALA_HI20" },
	{ 72, "R_LARCH_PCALA_LO12" }, { 75, "R_LARCH_GOT_PC_HI20" },
	{ 76, "R_LARCH_GOT_PC_LO12" }, { 99, "R_LARCH_32_PCREL" },
};

#define LA_NOP 0x03400000u		/* andi $zero, $zero, 0 */
#define LA_BL 0x54000000u		/* bl 0 */
#define LA_BL_MASK 0xfc000000u
#define LA_PCALAU12I_RA 0x1a000001u	/* pcalau12i $ra, 0 */
#define LA_PCALAU12I_MASK 0xfe00001fu	/* opcode and rd */
#define LA_JIRL_RA_RA 0x4c000021u	/* jirl $ra, $ra, 0 */
#define LA_JIRL_MASK 0xfc0003ffu	/* opcode, rj and rd */
#define LA_BL_RANGE (1ll << 27)		/* +-128 MiB */

static const uint8_t la_nop8[8] = {
	0x00, 0x00, 0x40, 0x03,		/* nop */
	0x00, 0x00, 0x40, 0x03,		/* nop */
};

static const char *const la_hook_symbols[] = { "_mcount", "mcount", NULL };

static const struct mc_object_form la_forms[] = {
	{ .name = "bl",
	  .reloc_types = { R_LARCH_B26_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4,
	  .opcode = { 0x00, 0x00, 0x00, 0x54 },		/* bl offs26 */
	  .mask = { 0x00, 0x00, 0x00, 0xfc },
	  .opcode_len = 4, .nop = la_nop8 },
	{ .name = "pcalau12i $ra; jirl $ra",
	  .reloc_types = { R_LARCH_PCALA_HI20_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 8,
	  .opcode = { 0x01, 0x00, 0x00, 0x1a,		/* pcalau12i $ra, si20 */
		      0x21, 0x00, 0x00, 0x4c },		/* jirl $ra, $ra, offs16 */
	  .mask = { 0x1f, 0x00, 0x00, 0xfe, 0xff, 0x03, 0x00, 0xfc },
	  .opcode_len = 8, .nop = la_nop8 },
};

static bool la_encode_nop(const struct mc_arch *arch, uint8_t *out,
			  unsigned len)
{
	(void)arch;
	if (len == 0 || len % 4 || len > MC_MAX_SITE_LEN)
		return false;
	for (unsigned i = 0; i < len; i += 4)
		mc_put_le32(out + i, LA_NOP);
	return true;
}

/* bl's word offset: low 16 bits in 25..10, high 10 bits in 9..0. */
static uint32_t la_bl(int64_t d)
{
	uint32_t w = (uint32_t)(d >> 2);

	return LA_BL | (w & 0xffff) << 10 | ((w >> 16) & 0x3ff);
}

static int64_t la_bl_offset(uint32_t insn)
{
	uint64_t w = ((insn >> 10) & 0xffff) | (uint64_t)(insn & 0x3ff) << 16;

	return mc_sign_extend(w, 26) * 4;
}

/*
 * 4 bytes: `bl`, +-128 MiB.  8 bytes: the medium model's pair, whose
 * `jirl` adds a sign-extended 12-bit page offset (as the psABI has the
 * linker write it) to the page `pcalau12i` forms; +-2 GiB of pages.
 */
static bool la_encode_call(const struct mc_arch *arch, uint8_t *out,
			   unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	(void)arch;
	if ((site & 3) || (target & 3))
		return false;
	if (len == 4) {
		if (d < -LA_BL_RANGE || d >= LA_BL_RANGE)
			return false;
		mc_put_le32(out, la_bl(d));
		return true;
	}
	if (len != 8)
		return false;
	int64_t lo = mc_sign_extend(target & 0xfff, 12);
	int64_t pages = (int64_t)((target - (uint64_t)lo) -
				  (site & ~(uint64_t)0xfff)) >> 12;
	if (pages < -(1 << 19) || pages >= (1 << 19))
		return false;
	mc_put_le32(out, LA_PCALAU12I_RA | ((uint32_t)pages & 0xfffff) << 5);
	mc_put_le32(out + 4, LA_JIRL_RA_RA |
			     ((uint32_t)(lo >> 2) & 0xffff) << 10);
	return true;
}

/* The pair's destination, by the ISA: page(pc + si20 << 12) + offs16 << 2. */
static uint64_t la_pair_target(uint32_t a, uint32_t b, uint64_t addr)
{
	int64_t hi = mc_sign_extend((a >> 5) & 0xfffff, 20) * 4096;
	int64_t lo = mc_sign_extend((b >> 10) & 0xffff, 16) * 4;

	return ((addr + (uint64_t)hi) & ~(uint64_t)0xfff) + (uint64_t)lo;
}

static struct mc_site la_decode_site(const struct mc_arch *arch,
				     const uint8_t *p, size_t avail,
				     uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };
	uint32_t a = avail >= 4 ? mc_get_le32(p) : 0;
	uint32_t b = avail >= 8 ? mc_get_le32(p + 4) : 0;

	(void)arch;
	if (avail >= 8 && (a & LA_PCALAU12I_MASK) == LA_PCALAU12I_RA &&
	    (b & LA_JIRL_MASK) == LA_JIRL_RA_RA) {
		s = (struct mc_site){ MC_SITE_CALL, 8,
				      la_pair_target(a, b, addr) };
	} else if (avail >= 8 && mc_bytes_equal(p, la_nop8, 8)) {
		s = (struct mc_site){ MC_SITE_NOP, 8, 0 };
	} else if (avail >= 4 && (a & LA_BL_MASK) == LA_BL) {
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      addr + (uint64_t)la_bl_offset(a) };
	} else if (avail >= 4 && a == LA_NOP) {
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	}
	return s;
}

/* One NOP per instruction of the site: `bl` one, the pair two. */
static const uint8_t *la_site_neutral(const struct mc_arch *arch,
				      const struct mc_site *site)
{
	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN ||
	    (site->len != 4 && site->len != 8))
		return NULL;
	return la_nop8;
}

/* -fpatchable-function-entry pads: `nop` (andi $zero, $zero, 0). */
static const struct mc_insn la_pad_nops[] = {
	{ 4, { 0x00, 0x00, 0x40, 0x03 } },		/* nop */
};

const struct mc_arch mc_arch_loongarch64 = {
	.name = "loongarch64",
	.reloc_names = la_reloc_names,
	.n_reloc_names = MC_COUNT(la_reloc_names),
	.e_machine = EM_LOONGARCH_,
	.elf_class = 64,
	.endian = MC_LITTLE_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_LARCH_64_,
	.none_reloc = R_LARCH_NONE_,
	.relative_reloc = R_LARCH_RELATIVE_,
	.hook_symbols = la_hook_symbols,
	.forms = la_forms,
	.n_forms = MC_COUNT(la_forms),
	.companion_relocs = { R_LARCH_PCALA_LO12_ },
	.n_companion_relocs = 1,
	.anchor_at_site = true,
	.pad_nops = la_pad_nops, .n_pad_nops = MC_COUNT(la_pad_nops),
	/* After the prologue's stores of $ra, $fp and the saved registers. */
	.max_entry_offset = 64,
	/* Every instruction is a whole aligned word. */
	.insn_step = 4,
	.decode_site = la_decode_site,
	.encode_nop = la_encode_nop,
	.encode_call = la_encode_call,
	.site_neutral = la_site_neutral,
};
