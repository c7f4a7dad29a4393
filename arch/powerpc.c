/* SPDX-License-Identifier: MIT */
/*
 * powerpc.c - 64-bit PowerPC little endian (ppc64le), 64-bit big endian
 * (ppc64) and 32-bit big endian (ppc).
 *
 * The machine: every instruction is one 32-bit word, aligned to four
 * bytes, stored in the object's byte order (the same instruction is
 * `48 00 00 01` in a big-endian file and `01 00 00 48` in a little-endian
 * one).  A direct call is `bl`: primary opcode 18 in the top six bits, a
 * signed 24-bit word displacement (the LI field, bits 2..25, giving
 * +/- 32 MiB) relative to the bl itself, AA = 0 (relative), LK = 1 (set
 * the link register).  The canonical no-op is `nop` = `ori 0,0,0`,
 * 0x60000000.  Replacing one aligned word is atomic, so a site is
 * patched by swapping `bl` and `nop` in place.
 *
 * What compilers emit at function entry:
 *   -pg -mprofile-kernel (linux-6.1's choice on ppc64le):
 *                    mflr r0; bl _mcount        right after the ELFv2
 *                                               global-entry TOC set-up
 *   -pg, ppc64:      ... frame set-up ...; bl _mcount; nop
 *                    the nop is the TOC-restore slot every ppc64 call
 *                    to another module gets: ld turns it into
 *                    `ld r2,24(r1)` (ELFv2) or `ld r2,40(r1)` (ELFv1)
 *                    when the call goes through a stub
 *   -pg, ppc32:      mflr r0; stw r0,4(r1); bl _mcount
 *   -pg -mcpu=power10 (ELFv2 PC-relative code): bl _mcount with
 *                    R_PPC64_REL24_NOTOC and no TOC-restore slot
 *   -pg -mlongcall, ELFv2: an inline PLT call,
 *                    addis r12,r2,_mcount@plt@ha   R_PPC64_PLT16_HA
 *                    ld r12,_mcount@plt@l(r12)     R_PPC64_PLT16_LO_DS
 *                    mtctr r12                     R_PPC64_PLTSEQ
 *                    bctrl                         R_PPC64_PLTCALL
 *                    (with power10: pld r12,_mcount@plt@pcrel,
 *                    R_PPC64_PLT_PCREL34_NOTOC; R_PPC64_PLTCALL_NOTOC)
 *
 * The relocation of a `bl` (R_PPC64_REL24, R_PPC_REL24, or on ppc32
 * with -fpic/-fPIC/PIE - Debian's default - R_PPC_PLTREL24) covers the
 * whole instruction word, so r_offset is the site itself.  The site is
 * the `bl` (or the `bctrl`), which is what the kernel's ftrace patches;
 * in an inline PLT call only the bctrl marks a site, the three loads
 * before it are companions (and, lying outside the NOPed word, keep
 * naming the hook after --nop: such an object still needs the symbol at
 * link time).  --nop writes `nop` over the call word; the
 * TOC-restore slot after a -pg call is already a nop in the object, and
 * with the call's relocation voided ld leaves it alone.  (In *linked*
 * ELFv1/-pg code whose slot became `ld r2,40(r1)`, the kernel uses
 * `b +8` rather than `nop` so r2 is not reloaded from a slot nobody
 * wrote: a concern for a runtime, not for objects.)
 *
 * The ABIs: ELFv1 (e_flags 0; Debian's powerpc64-linux-gnu-gcc default)
 * puts every function's symbol in .opd, a table of function descriptors
 * (entry, TOC, environment), while the code itself sits in .text under
 * no symbol, or with -mcall-aixdesc (which linux-6.1 passes for ELFv1)
 * under an old-style `.name` dot symbol; the profiler call then names
 * `._mcount` instead of `_mcount`, so both are hooks.  A descriptor symbol
 * must never anchor a __mcount_loc entry: it lives in .opd, another
 * section than the code, which the anchor rule (same section only)
 * already excludes, so ELFv1 needs no filter of its own.  ELFv2
 * (e_flags 2: ppc64le's default, and BE with -mabi=elfv2) has no
 * descriptors and two entry points per function; the table records the
 * call itself, so neither matters.  Hooks look the same under both ABIs,
 * so one entry per byte order serves both.
 *
 * The tables: R_PPC64_ADDR64 on ppc64 and R_PPC_ADDR32 on ppc32, both
 * RELA (PowerPC uses RELA for everything), as the kernel's recordmcount
 * writes them.
 */
#include "arch.h"

/* ELF facts: the PowerPC and 64-bit PowerPC ELF ABI supplements. */
enum {
	EM_PPC_ = 20,
	EM_PPC64_ = 21,

	R_PPC_NONE_ = 0,
	R_PPC_ADDR32_ = 1,
	R_PPC_REL24_ = 10,
	R_PPC_PLTREL24_ = 18,
	R_PPC_RELATIVE_ = 22,

	R_PPC64_NONE_ = 0,
	R_PPC64_REL24_ = 10,
	R_PPC64_RELATIVE_ = 22,
	R_PPC64_PLT16_HA_ = 31,
	R_PPC64_ADDR64_ = 38,
	R_PPC64_PLT16_LO_DS_ = 60,
	R_PPC64_REL24_NOTOC_ = 116,
	R_PPC64_PLTSEQ_ = 119,
	R_PPC64_PLTCALL_ = 120,
	R_PPC64_PLTSEQ_NOTOC_ = 121,
	R_PPC64_PLTCALL_NOTOC_ = 122,
	R_PPC64_PLT_PCREL34_ = 134,
	R_PPC64_PLT_PCREL34_NOTOC_ = 135,

	EF_PPC64_ABI_ = 3,	/* e_flags: 1 ELFv1, 2 ELFv2, 0 unstated */
	EF_PPC64_ABI_V2_ = 2,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name ppc_reloc_names[] = {
	{ 0, "R_PPC_NONE" }, { 1, "R_PPC_ADDR32" }, { 4, "R_PPC_ADDR16_LO" },
	{ 6, "R_PPC_ADDR16_HA" }, { 10, "R_PPC_REL24" },
	{ 18, "R_PPC_PLTREL24" }, { 20, "R_PPC_GLOB_DAT" },
	{ 21, "R_PPC_JMP_SLOT" }, { 22, "R_PPC_RELATIVE" },
};

static const struct mc_reloc_name ppc64_reloc_names[] = {
	{ 0, "R_PPC64_NONE" }, { 1, "R_PPC64_ADDR32" },
	{ 4, "R_PPC64_ADDR16_LO" }, { 6, "R_PPC64_ADDR16_HA" },
	{ 10, "R_PPC64_REL24" }, { 20, "R_PPC64_GLOB_DAT" },
	{ 21, "R_PPC64_JMP_SLOT" }, { 22, "R_PPC64_RELATIVE" },
	{ 31, "R_PPC64_PLT16_HA" }, { 38, "R_PPC64_ADDR64" },
	{ 47, "R_PPC64_TOC16" }, { 48, "R_PPC64_TOC16_LO" },
	{ 50, "R_PPC64_TOC16_HA" }, { 60, "R_PPC64_PLT16_LO_DS" },
	{ 116, "R_PPC64_REL24_NOTOC" }, { 119, "R_PPC64_PLTSEQ" },
	{ 120, "R_PPC64_PLTCALL" }, { 121, "R_PPC64_PLTSEQ_NOTOC" },
	{ 122, "R_PPC64_PLTCALL_NOTOC" }, { 134, "R_PPC64_PLT_PCREL34" },
	{ 135, "R_PPC64_PLT_PCREL34_NOTOC" },
};

/* Instruction words, in neither byte order yet. */
enum {
	PPC_NOP = 0x60000000,		/* ori r0,r0,0 */
	PPC_BL = 0x48000001,		/* bl: opcode 18, AA = 0, LK = 1 */
	PPC_BL_MASK = 0xfc000003,	/* opcode, AA and LK bits */
	PPC_LI_MASK = 0x03fffffc,	/* the displacement, in bytes */
	PPC_BCTRL = 0x4e800421,		/* bcctrl 20,0: call through CTR */
	PPC_MFLR_R0 = 0x7c0802a6,	/* mflr r0 (mfspr r0,LR) */
};

/* The same words as bytes in each byte order. */
static const uint8_t nop_be[4] = { 0x60, 0x00, 0x00, 0x00 };	/* nop */
static const uint8_t nop_le[4] = { 0x00, 0x00, 0x00, 0x60 };	/* nop */

static const char *const ppc64_hook_symbols[] = {
	"_mcount", "._mcount", NULL
};

static const char *const ppc32_hook_symbols[] = { "_mcount", NULL };

/*
 * A bl matches whatever its displacement (zero in an object: the addend
 * is in the RELA entry); only the opcode, AA and LK bits are compared.
 */
#define BL_BE_OPCODE { 0x48, 0x00, 0x00, 0x01 }	/* bl */
#define BL_BE_MASK { 0xfc, 0x00, 0x00, 0x03 }
#define BL_LE_OPCODE { 0x01, 0x00, 0x00, 0x48 }	/* bl */
#define BL_LE_MASK { 0x03, 0x00, 0x00, 0xfc }
#define BCTRL_BE { 0x4e, 0x80, 0x04, 0x21 }		/* bctrl */
#define BCTRL_LE { 0x21, 0x04, 0x80, 0x4e }		/* bctrl */
#define ALL_ONES { 0xff, 0xff, 0xff, 0xff }

static const struct mc_object_form ppc64le_forms[] = {
	{ .name = "bl",
	  .reloc_types = { R_PPC64_REL24_, R_PPC64_REL24_NOTOC_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = BL_LE_OPCODE, .mask = BL_LE_MASK, .opcode_len = 4,
	  .nop = nop_le },
	{ .name = "bctrl",
	  .reloc_types = { R_PPC64_PLTCALL_, R_PPC64_PLTCALL_NOTOC_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = BCTRL_LE, .mask = ALL_ONES, .opcode_len = 4,
	  .nop = nop_le },
};

static const struct mc_object_form ppc64_forms[] = {
	{ .name = "bl",
	  .reloc_types = { R_PPC64_REL24_, R_PPC64_REL24_NOTOC_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = BL_BE_OPCODE, .mask = BL_BE_MASK, .opcode_len = 4,
	  .nop = nop_be },
	{ .name = "bctrl",
	  .reloc_types = { R_PPC64_PLTCALL_, R_PPC64_PLTCALL_NOTOC_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = BCTRL_BE, .mask = ALL_ONES, .opcode_len = 4,
	  .nop = nop_be },
};

static const struct mc_object_form ppc32_forms[] = {
	{ .name = "bl",
	  .reloc_types = { R_PPC_REL24_, R_PPC_PLTREL24_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = BL_BE_OPCODE, .mask = BL_BE_MASK, .opcode_len = 4,
	  .nop = nop_be },
};

/* The destination of the bl word `insn` sitting at `addr`. */
static uint64_t bl_target(uint32_t insn, uint64_t addr)
{
	return addr + (uint64_t)mc_sign_extend(insn & PPC_LI_MASK, 26);
}

/*
 * `bctrl` calls through CTR, loaded by code before it: like i386's
 * `call *d(%ebx)` nothing static says where it goes, so it is UNKNOWN.
 */
static struct mc_site ppc_decode_site(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail < 4)
		return s;
	uint32_t insn = mc_get32(arch->endian, p);
	if ((insn & PPC_BL_MASK) == PPC_BL)
		s = (struct mc_site){ MC_SITE_CALL, 4, bl_target(insn, addr) };
	else if (insn == PPC_NOP)
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	return s;
}

/* Only one word: a longer run of nops would not be one instruction. */
static bool ppc_encode_nop(const struct mc_arch *arch, uint8_t *out,
			   unsigned len)
{
	if (len != 4)
		return false;
	mc_put32(arch->endian, out, PPC_NOP);
	return true;
}

/*
 * bl reaches +/- 32 MiB in whole words: the displacement must be a
 * multiple of four within [-2^25, 2^25 - 4].
 */
static bool ppc_encode_call(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	if (len != 4 || (d & 3) || d < -0x2000000 || d > 0x1fffffc)
		return false;
	mc_put32(arch->endian, out, PPC_BL | ((uint32_t)d & PPC_LI_MASK));
	return true;
}

/*
 * For the runtime: every hook is one word, neutralised by `nop` (the
 * TOC-restore slot after a -pg call stays the nop it already is).
 */
static const uint8_t *ppc_site_neutral(const struct mc_arch *arch,
				       const struct mc_site *site)
{
	if (site->kind == MC_SITE_UNKNOWN || site->len != 4)
		return NULL;
	return arch->endian == MC_BIG_ENDIAN ? nop_be : nop_le;
}

/*
 * ppc64 -pg puts the bl after the whole register save: 168 bytes in for
 * a function saving all 18 non-volatile GPRs and FPRs at -O2.  ppc32's
 * bl is always the third instruction.
 */
#define PPC64_MAX_ENTRY_OFFSET 192
#define PPC32_MAX_ENTRY_OFFSET 16

#define PPC64_COMPANIONS						\
	.companion_relocs = { R_PPC64_PLT16_HA_, R_PPC64_PLT16_LO_DS_,	\
			      R_PPC64_PLTSEQ_, R_PPC64_PLTSEQ_NOTOC_,	\
			      R_PPC64_PLT_PCREL34_,			\
			      R_PPC64_PLT_PCREL34_NOTOC_ },		\
	.n_companion_relocs = 6

/* -fpatchable-function-entry pads: `nop` (ori 0,0,0) in each byte order. */
static const struct mc_insn ppc_le_pad_nops[] = {
	{ 4, { 0x00, 0x00, 0x00, 0x60 } },		/* nop */
};

static const struct mc_insn ppc_be_pad_nops[] = {
	{ 4, { 0x60, 0x00, 0x00, 0x00 } },		/* nop */
};

/*
 * For the runtime (ppc64le): a pad is enabled with `mflr r0; bl target`
 * over its first two NOPs at the function's entry, the -mprofile-kernel
 * hook, whose trampoline serves pads as well; so a pad needs
 * -fpatchable-function-entry=2 or more NOPs from the entry.  Its live
 * form (ppc_le_live_forms) keeps the `mflr r0` for good and toggles the
 * second word alone.
 */
static const uint8_t ppc_le_pad_nop2[8] = {
	0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x60,	/* nop; nop */
};

static bool ppc_le_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				   unsigned len, uint64_t site, uint64_t target)
{
	if (len != 8)
		return false;
	mc_put_le32(out, PPC_MFLR_R0);			/* mflr r0 */
	return ppc_encode_call(arch, out + 4, 4, site + 4, target);
}

static const uint8_t *ppc_le_pad_neutral(const struct mc_arch *arch,
					 const uint8_t *p, size_t avail,
					 unsigned *len)
{
	(void)arch;
	*len = 8;
	return avail >= 8 && mc_bytes_equal(p, ppc_le_pad_nop2, 8) ?
		ppc_le_pad_nop2 : NULL;
}

/*
 * Live patching (the runtime toggles a site while other threads run
 * it).  The Power ISA defines concurrent modification and execution
 * (CMODX, Book II) for one word-aligned word whose old and new values
 * are both of the "patch class": the I-form branch b[l][a] and the
 * preferred no-op `ori 0,0,0`.  A thread fetching the word then
 * executes one or the other, never a mixture; the patching thread's
 * dcbst/sync/icbi/isync (__builtin___clear_cache) make the new word
 * visible to instruction fetch.  So enabled and disabled differ in the
 * `bl` word alone, which toggles `bl` <-> `nop`:
 *
 *   hook (-pg, -mprofile-kernel)   bl tramp            <-> nop
 *   pad                            mflr r0; bl tramp   <-> mflr r0; nop
 *
 * A disabled pad keeps its `mflr r0`, written once at boot while no
 * other thread runs: it copies LR into r0, which no function takes as
 * an argument (ELFv2: r0 is volatile and carries nothing into a call;
 * GCC's own -mprofile-kernel hook writes it the same way).  A thread
 * that ran the `mflr` while the site was disabled and reaches the word
 * after it was enabled still has LR in r0, as the trampoline
 * (mc_rt_tramp_fentry) expects: it keeps r0 as the function's return
 * address and puts it back in LR.
 */
static bool ppc_le_live_forms(const struct mc_arch *arch, uint8_t *on,
			      uint8_t *off, unsigned pre, unsigned len, bool pad,
			      uint64_t at)
{
	unsigned call = pre + len - 4;		/* the bl word */

	(void)at;
	if (len != (pad ? 8u : 4u) ||
	    (mc_get32(arch->endian, on + call) & PPC_BL_MASK) != PPC_BL ||
	    (pad && mc_get32(arch->endian, on + pre) != PPC_MFLR_R0))
		return false;
	mc_bytes_copy(off, on, pre + len);
	mc_put32(arch->endian, off + call, PPC_NOP);	/* nop */
	return true;
}

/*
 * For the runtime (ppc64le): a thunk for a site whose `bl` cannot reach
 * its trampoline (+/- 32 MiB; a library mapped far from libmcount.so).
 * It builds the target's absolute address in r12 and jumps there
 * through CTR, leaving LR (the return into the hooked function) alone:
 *
 *   lis r12,A3; ori r12,r12,A2; sldi r12,r12,32;
 *   oris r12,r12,A1; ori r12,r12,A0; mtctr r12; bctr
 *
 * r12 and CTR are dead at every hook the runtime patches: a -pg hook is
 * an ordinary call, which may clobber both (a linker stub does); at an
 * -mprofile-kernel hook or a pad the TOC set-up has consumed r12, and
 * neither carries an argument.  No load, so no TOC pointer is needed.
 */
#define PPC_THUNK_LEN 28

static bool ppc_le_encode_thunk(const struct mc_arch *arch, uint8_t *out,
				uint64_t target, bool pad)
{
	static const uint32_t op[5] = {
		0x3d800000u,	/* lis r12,0 */
		0x618c0000u,	/* ori r12,r12,0 */
		0x798c07c6u,	/* sldi r12,r12,32 */
		0x658c0000u,	/* oris r12,r12,0 */
		0x618c0000u,	/* ori r12,r12,0 */
	};
	const unsigned shift[5] = { 48, 32, 0, 16, 0 };

	(void)arch;
	(void)pad;
	for (unsigned i = 0; i < 5; i++)
		mc_put_le32(out + 4 * i,
			    op[i] | (i == 2 ? 0 :
				     (uint32_t)(target >> shift[i]) & 0xffffu));
	mc_put_le32(out + 20, 0x7d8903a6u);	/* mtctr r12 */
	mc_put_le32(out + 24, 0x4e800420u);	/* bctr */
	return true;
}

/* The code of every entry: its functions read the entry's byte order. */
#define PPC_CODE							\
	.insn_step = 2,							\
	.decode_site = ppc_decode_site, .encode_nop = ppc_encode_nop,	\
	.encode_call = ppc_encode_call, .site_neutral = ppc_site_neutral

/* What a byte order decides: the byte order, and the pad's NOP. */
#define PPC_LE_CODE							\
	.endian = MC_LITTLE_ENDIAN, PPC_CODE,				\
	.pad_nops = ppc_le_pad_nops, .n_pad_nops = MC_COUNT(ppc_le_pad_nops)

#define PPC_BE_CODE							\
	.endian = MC_BIG_ENDIAN, PPC_CODE,				\
	.pad_nops = ppc_be_pad_nops, .n_pad_nops = MC_COUNT(ppc_be_pad_nops)

/*
 * A linked ppc64 object calls a function another object defines through
 * a stub the linker puts among its functions (GNU ld's plt_call, and the
 * same from lld), `bl stub; ld r2,24(r1)` at the call.  The stub loads
 * the target from its PLT slot relative to r2, the TOC pointer, which
 * both linkers put 0x8000 bytes past the start of .got:
 *     std   r2,24(r1)          absent where the caller saved r2 itself
 *     addis r12,r2,ha          only for a slot beyond +/- 32 KiB of it
 *     ld    r12,lo(r2 | r12)
 *     mtctr r12
 *     bctr
 * A stub that reads a slot through another TOC (a huge object's second
 * one) gives a slot no relocation binds: not a hook, and the runtime
 * refuses the site.
 *
 * PC-relative code (-mcpu=power10, ELFv2) keeps no TOC: `bl stub` with
 * no restore after it, and the stub finds the slot from its own address
 * (GNU ld's plt_call_notoc, lld's __plt_pcrel_ stubs), either with a
 * prefixed load (ld --power10-stubs, and lld for power10):
 *     pld   r12,slot-.         prefix 0x04100000 | d0 (R = 1: relative
 *                              to the pld), then 0xe5800000 | d1; the
 *                              34-bit displacement is d0:d1
 *     mtctr r12
 *     bctr
 * or, for a machine older than power10, through the link register:
 *     mflr  r12
 *     bcl   20,31,.+4          r11 = the address after the bcl
 *     mflr  r11
 *     mtlr  r12
 *     addis r12,r11,ha         only for a slot beyond +/- 32 KiB of it
 *     ld    r12,lo(r11 | r12)
 *     mtctr r12
 *     bctr
 * Both may follow a `std r2,24(r1)` (a stub shared with TOC callers).
 * Stubs for slots more than 2 GiB away build the offset in more steps:
 * not decoded.
 */
enum {
	PPC_STD_R2_24 = 0xf8410018u,	/* std r2,24(r1) */
	PPC_MTCTR_R12 = 0x7d8903a6u,	/* mtctr r12 */
	PPC_BCTR = 0x4e800420u,		/* bctr */
	PPC_MFLR_R12 = 0x7d8802a6u,	/* mflr r12 */
	PPC_BCL_NEXT = 0x429f0005u,	/* bcl 20,31,.+4 */
	PPC_MFLR_R11 = 0x7d6802a6u,	/* mflr r11 */
	PPC_MTLR_R12 = 0x7d8803a6u,	/* mtlr r12 */
};

/* The word at `at` of the stub at p, or 0 (no instruction) past avail. */
static uint32_t stub_word(enum mc_endian e, const uint8_t *p, size_t avail,
			  size_t at)
{
	return avail >= at + 4 ? mc_get32(e, p + at) : 0;
}

/* `mtctr r12; bctr` at `at`: the jump every stub ends with. */
static bool stub_ends(enum mc_endian e, const uint8_t *p, size_t avail,
		      size_t at)
{
	return stub_word(e, p, avail, at) == PPC_MTCTR_R12 &&
	       stub_word(e, p, avail, at + 4) == PPC_BCTR;
}

/*
 * `[addis r12,rB,ha;] ld r12,lo(rB | r12); mtctr r12; bctr` at `at`:
 * the slot's offset from rB's value, through *off; false if not that.
 */
static bool stub_load(enum mc_endian e, const uint8_t *p, size_t avail,
		      size_t at, unsigned rb, int64_t *off)
{
	uint32_t w = stub_word(e, p, avail, at);
	bool addis = (w & 0xffff0000u) == (0x3d800000u | rb << 16);

	*off = 0;
	if (addis) {				/* addis r12,rB,ha */
		*off = mc_sign_extend(w & 0xffffu, 16) * 65536;
		at += 4;
		w = stub_word(e, p, avail, at);
	}
	/* ld r12,lo(r12) after the addis, ld r12,lo(rB) without one */
	if ((w & 0xffff0003u) != (0xe9800000u | (addis ? 12u : rb) << 16) ||
	    !stub_ends(e, p, avail, at + 4))
		return false;
	*off += mc_sign_extend(w & 0xfffcu, 16);
	return true;
}

/* The slot of a `pld r12,slot@pcrel; mtctr r12; bctr` stub, or 0. */
static uint64_t pld_stub_slot(enum mc_endian e, const uint8_t *p,
			      size_t avail, uint64_t addr)
{
	uint32_t prefix = stub_word(e, p, avail, 0);
	uint32_t suffix = stub_word(e, p, avail, 4);
	uint64_t d = (uint64_t)(prefix & 0x3ffffu) << 16 | (suffix & 0xffffu);

	if ((prefix & 0xfffc0000u) != 0x04100000u ||	/* pld prefix, R=1 */
	    (suffix & 0xffff0000u) != 0xe5800000u ||	/* pld r12,d(0) */
	    !stub_ends(e, p, avail, 8))
		return 0;
	return addr + (uint64_t)mc_sign_extend(d, 34);
}

/* The slot of a stub that reads its own address with bcl, or 0. */
static uint64_t bcl_stub_slot(enum mc_endian e, const uint8_t *p,
			      size_t avail, uint64_t addr)
{
	int64_t off;

	if (stub_word(e, p, avail, 0) != PPC_MFLR_R12 ||
	    stub_word(e, p, avail, 4) != PPC_BCL_NEXT ||
	    stub_word(e, p, avail, 8) != PPC_MFLR_R11 ||
	    stub_word(e, p, avail, 12) != PPC_MTLR_R12 ||
	    !stub_load(e, p, avail, 16, 11, &off))
		return 0;
	return addr + 8 + (uint64_t)off;		/* r11: after the bcl */
}

static uint64_t ppc64_stub_slot(const struct mc_arch *arch, const uint8_t *p,
				size_t avail, uint64_t addr, uint64_t base)
{
	enum mc_endian e = arch->endian;
	size_t at = stub_word(e, p, avail, 0) == PPC_STD_R2_24 ? 4 : 0;
	uint64_t slot;
	int64_t off;

	if (avail < at)
		return 0;
	if ((slot = pld_stub_slot(e, p + at, avail - at, addr + at)) ||
	    (slot = bcl_stub_slot(e, p + at, avail - at, addr + at)))
		return slot;
	if (!base || !stub_load(e, p + at, avail - at, 0, 2, &off))
		return 0;
	return base + (uint64_t)off;
}

/* Every ppc64 object but an ELFv2 one calls through .opd's descriptors. */
static bool ppc64_uses_descriptors(const struct mc_arch *arch,
				   uint32_t e_flags)
{
	(void)arch;
	return (e_flags & EF_PPC64_ABI_) != EF_PPC64_ABI_V2_;
}

/* What ELFv1 (big-endian) and ELFv2 (little-endian) ppc64 share. */
#define PPC64_COMMON							\
	.e_machine = EM_PPC64_, .elf_class = 64, .addr_size = 8,	\
	.table_uses_rela = true, .table_reloc = R_PPC64_ADDR64_,	\
	.none_reloc = R_PPC64_NONE_, .relative_reloc = R_PPC64_RELATIVE_, \
	.hook_symbols = ppc64_hook_symbols, PPC64_COMPANIONS,		\
	.max_entry_offset = PPC64_MAX_ENTRY_OFFSET,			\
	.descriptor_section = ".opd",					\
	.uses_descriptors = ppc64_uses_descriptors,			\
	.plt_slot = ppc64_stub_slot, .plt_base_section = ".got",	\
	.plt_base_bias = 0x8000, .plt_in_code = true, .plt_read = 36,	\
	.plt_step = 4

static const char *const ppc64le_int_arg_regs[] = {
	"r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
};

const struct mc_arch mc_arch_ppc64le = {
	.int_arg_regs = ppc64le_int_arg_regs,
	.n_int_arg_regs = 8,
	.int_ret_reg = "r3",
	.name = "ppc64le", PPC64_COMMON, PPC_LE_CODE,
	/* the timebase (mftb) would do, once the recorder has an entry in
	   assembly here; till then clock_gettime */
	.trace_clock = NULL,
	.reloc_names = ppc64_reloc_names,
	.n_reloc_names = MC_COUNT(ppc64_reloc_names),
	.live_store_max = 4,	/* one instruction word */
	.live_forms = ppc_le_live_forms,
	.pad_call_len = 8, .encode_pad_call = ppc_le_encode_pad_call,
	.pad_neutral = ppc_le_pad_neutral,
	.forms = ppc64le_forms, .n_forms = MC_COUNT(ppc64le_forms),
	.thunk_len = PPC_THUNK_LEN,
	.call_reach = 32ull << 20,	/* bl: +/- 32 MiB */
	.encode_thunk = ppc_le_encode_thunk,
};

const struct mc_arch mc_arch_ppc64 = {
	.name = "ppc64", PPC64_COMMON, PPC_BE_CODE,
	.reloc_names = ppc64_reloc_names,
	.n_reloc_names = MC_COUNT(ppc64_reloc_names),
	.forms = ppc64_forms, .n_forms = MC_COUNT(ppc64_forms),
};

const struct mc_arch mc_arch_ppc = {
	.name = "ppc", PPC_BE_CODE,
	.reloc_names = ppc_reloc_names,
	.n_reloc_names = MC_COUNT(ppc_reloc_names),
	.e_machine = EM_PPC_, .elf_class = 32, .addr_size = 4,
	.table_uses_rela = true, .table_reloc = R_PPC_ADDR32_,
	.none_reloc = R_PPC_NONE_, .relative_reloc = R_PPC_RELATIVE_,
	.hook_symbols = ppc32_hook_symbols,
	.forms = ppc32_forms, .n_forms = MC_COUNT(ppc32_forms),
	.max_entry_offset = PPC32_MAX_ENTRY_OFFSET,
	/*
	 * GNU ld links -pg code with the BSS PLT, calls `bl entry` into
	 * it; the secure PLT's call stubs (in .text, reading their slot
	 * relative to r30, which each caller sets) are not decoded.
	 */
	.plt_bss = true, .plt_step = 4,
};

bool mc_arch_ppc64le_is_toc_setup(const uint8_t *p)
{
	uint32_t hi = mc_get_le32(p) & 0xffff0000u;

	return (hi == 0x3c4c0000u /* addis r2,r12 */ ||
		hi == 0x3c400000u /* lis r2 */) &&
	       (mc_get_le32(p + 4) & 0xffff0000u) == 0x38420000u; /* addi r2,r2 */
}

bool mc_arch_ppc64le_is_nop(const uint8_t *p)
{
	return mc_get_le32(p) == PPC_NOP;
}

/*
 * Which general registers a ppc64le instruction of a -pg prologue
 * writes, for a recorder of arguments (bit n: rn); ~0 for one this
 * reader does not know, or a branch (not a straight run to the hook).
 * D-form loads and arithmetic write RT; logical and rotate forms RA;
 * stores nothing but RA in their update forms.  Where unsure, both RT
 * and RA count as written: a refusal, never a wrong register.
 */
static bool ppc_in(uint32_t xo, const uint16_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (xo == list[i])
			return true;
	return false;
}

/* Opcode 31's X and XO forms. */
static uint32_t ppc_x31_writes(uint32_t w, uint32_t rt, uint32_t ra)
{
	static const uint16_t to_rt[] = {	/* mfcr, mfmsr, mfspr, mftb */
		19, 83, 339, 371 };
	static const uint16_t arith[] = {	/* XO form, 9 bits: RT */
		8, 10, 40, 73, 75, 104, 136, 138, 200, 202, 232, 233, 234,
		235, 266, 457, 459, 489, 491 };
	static const uint16_t logical[] = {	/* write RA alone */
		24, 26, 27, 28, 58, 60, 122, 124, 284, 316, 378, 412, 444,
		476, 506, 508, 536, 538, 539, 570, 792, 794, 824, 922, 954,
		986 };
	static const uint16_t stores[] = {	/* write nothing */
		135, 140, 144, 149, 150, 151, 167, 199, 214, 215, 231, 396,
		407, 467, 487, 598, 652, 660, 662, 663, 716, 727, 908, 918,
		972, 983 };
	static const uint16_t updates[] = {	/* write RA alone */
		181, 183, 247, 439, 695, 759 };
	uint32_t xo = w >> 1 & 0x3ff;

	if ((w >> 2 & 0x1ff) == 413 || (w >> 2 & 0x1ff) == 445)
		return ra;			/* sradi, extswsli */
	if (ppc_in(xo, to_rt, MC_COUNT(to_rt)) ||
	    ppc_in(xo & 0x1ff, arith, MC_COUNT(arith)))
		return rt;
	if (ppc_in(xo, logical, MC_COUNT(logical)) ||
	    ppc_in(xo, updates, MC_COUNT(updates)))
		return ra;
	return ppc_in(xo, stores, MC_COUNT(stores)) ? 0 : rt | ra;
}

static uint32_t ppc_writes(uint32_t w)
{
	unsigned op = w >> 26;
	uint32_t rt = 1u << (w >> 21 & 31), ra = 1u << (w >> 16 & 31);
	bool update = op & 1;

	if (op == 31)
		return ppc_x31_writes(w, rt, ra);
	if (op == 2 || op == 3 || op == 10 || op == 11 || op == 59 ||
	    op == 61 || op == 63)
		return 0;	/* traps, compares, floating point, stores */
	if ((op >= 36 && op <= 39) || op == 44 || op == 45 ||
	    (op >= 52 && op <= 55))
		return update ? ra : 0;			/* stores */
	if (op == 62)
		return (w & 3) == 1 ? ra : 0;		/* std, stdu */
	if (op == 47)
		return 0;				/* stmw */
	if (op == 46)
		return ~0u << (w >> 21 & 31);		/* lmw rt..r31 */
	if (op >= 48 && op <= 51)
		return update ? ra : 0;		/* floating-point loads */
	if (op >= 20 && op <= 30 && op != 22)
		return ra;		/* rotates, ori ... andis. */
	if (op == 7 || op == 8 || op == 12 || op == 13 || op == 14 ||
	    op == 15 || (op >= 32 && op <= 35) || op == 40 || op == 41 ||
	    op == 42 || op == 43 || op == 58)
		return rt | (((op >= 32 && update) || (op == 58 &&
				(w & 3) == 1)) ? ra : 0);  /* arithmetic, loads */
	return ~0u;
}

bool mc_arch_ppc64le_args_kept(const uint8_t *code, size_t len)
{
	uint32_t written = 0;

	if (len % 4)
		return false;
	for (size_t i = 0; i < len; i += 4)
		written |= ppc_writes(mc_get_le32(code + i));
	return !(written & 0x7f8u);		/* r3 .. r10 */
}
