/* SPDX-License-Identifier: MIT */
/*
 * sparc.c - SPARC V9, 64-bit (sparc64).
 *
 * The machine: fixed 4-byte instructions, aligned, always big-endian.
 * Calls, jumps and branches have a delay slot: the next instruction runs
 * before the target.  `call` is one instruction reaching +-2 GB: the top
 * two bits 01, then a 30-bit word displacement from the call itself.
 * The NOP is `sethi 0,%g0` (01 00 00 00); %g0 always reads zero, so
 * writing it has no effect.
 *
 * What GCC emits with -pg (the kernel's -m64 -mcmodel=medlow, and
 * userspace alike): after the `save` that opens the register window,
 *
 *     call _mcount         R_SPARC_WDISP30 (-fno-pic), R_SPARC_WPLT30
 *                          (PIC/PIE, Debian's default)
 *     <delay slot>         usually the first instruction of the body
 *
 * The relocation sits on the call and the site is the call, as the
 * kernel's tool and its ftrace have it.  Disabling a site means
 * replacing the call with a NOP (the kernel's ftrace_make_nop does
 * exactly that); the delay slot instruction then simply runs next, as
 * it ran before the call's target did, so it stays.
 *
 * The table is R_SPARC_64 in .rela (addend in the relocation).
 */
#include "arch.h"

/* ELF facts (SPARC Compliance Definition 2.4.1). */
enum {
	EM_SPARCV9_ = 43,

	R_SPARC_NONE_ = 0,
	R_SPARC_WDISP30_ = 7,
	R_SPARC_WPLT30_ = 18,
	R_SPARC_RELATIVE_ = 22,
	R_SPARC_64_ = 32,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name sparc_reloc_names[] = {
	{ 0, "R_SPARC_NONE" }, { 3, "R_SPARC_32" }, { 7, "R_SPARC_WDISP30" },
	{ 9, "R_SPARC_HI22" }, { 12, "R_SPARC_LO10" },
	{ 18, "R_SPARC_WPLT30" }, { 20, "R_SPARC_GLOB_DAT" },
	{ 21, "R_SPARC_JMP_SLOT" }, { 22, "R_SPARC_RELATIVE" },
	{ 32, "R_SPARC_64" }, { 34, "R_SPARC_HH22" }, { 35, "R_SPARC_HM10" },
	{ 54, "R_SPARC_UA64" },
	{ 80, "R_SPARC_GOTDATA_HIX22" }, { 81, "R_SPARC_GOTDATA_LOX10" },
	{ 82, "R_SPARC_GOTDATA_OP_HIX22" }, { 83, "R_SPARC_GOTDATA_OP_LOX10" },
	{ 84, "R_SPARC_GOTDATA_OP" },
};

static const uint8_t sparc_nop[4] = { 0x01, 0x00, 0x00, 0x00 };	/* nop */

static const char *const sparc_hook_symbols[] = { "_mcount", NULL };

/*
 * clang's -pg calls `mcount`, which the kernel's sparc64 tracer never
 * defines and the runtime has no trampoline for: reported per site,
 * never taken for an object with no hooks.
 */
static const char *const sparc_unsupported_hooks[] = { "mcount", NULL };

static const struct mc_object_form sparc64_forms[] = {
	{ .name = "call _mcount",
	  .reloc_types = { R_SPARC_WDISP30_, R_SPARC_WPLT30_ },
	  .n_reloc_types = 2, .field_offset = 0, .len = 4,
	  .opcode = { 0x40 }, .mask = { 0xc0 }, .opcode_len = 1,
	  .nop = sparc_nop },				/* call disp30 */
};

static struct mc_site sparc_decode_site(const struct mc_arch *arch,
					const uint8_t *p, size_t avail,
					uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	(void)arch;
	if (avail < 4)
		return s;
	uint32_t w = mc_get_be32(p);
	if ((w >> 30) == 1) {		/* call: disp30, sign-extended, x4 */
		int64_t d = mc_sign_extend((uint64_t)w << 2, 32);
		s = (struct mc_site){ MC_SITE_CALL, 4, addr + (uint64_t)d };
	} else if (mc_bytes_equal(p, sparc_nop, 4)) {
		s = (struct mc_site){ MC_SITE_NOP, 4, 0 };
	}
	return s;
}

static bool sparc_encode_nop(const struct mc_arch *arch, uint8_t *out,
			     unsigned len)
{
	(void)arch;
	if (len == 0 || len % 4)
		return false;
	for (unsigned i = 0; i < len; i += 4)
		mc_bytes_copy(out + i, sparc_nop, 4);
	return true;
}

/* A decoded call or NOP: the delay slot stays, the call becomes a NOP. */
static const uint8_t *sparc_site_neutral(const struct mc_arch *arch,
					 const struct mc_site *site)
{
	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN || site->len != 4)
		return NULL;
	return sparc_nop;
}

/* `call target`: the displacement counts words from the call itself. */
static bool sparc_encode_call(const struct mc_arch *arch, uint8_t *out,
			      unsigned len, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)(target - site);

	(void)arch;
	if (len != 4 || (d & 3) || d < INT32_MIN || d > INT32_MAX)
		return false;
	mc_put_be32(out, 0x40000000 | (((uint32_t)d >> 2) & 0x3fffffff));
							/* call disp30 */
	return true;
}

/*
 * A linked object calls a function another object defines through a
 * PLT entry the dynamic loader itself rewrites (SCD 2.4: .plt is
 * writable code), so each entry is its own "slot": the R_SPARC_JMP_SLOT
 * relocation that names the callee sits on the entry's address.  Until
 * bound, one of the first 32768 entries, 32 bytes each after four
 * reserved ones, reads (GNU ld, `base` the address of .plt):
 *     sethi (entry - base),%g1             its offset (<< 10), for the
 *                                          resolver
 *     ba,a,pt %xcc, base + 32              into the resolver's entry
 *     nop x 6
 * Anything else (the larger entries past 32768, an entry the loader
 * has already written) is no entry this decoder reads.
 */
static uint64_t sparc64_plt_slot(const struct mc_arch *arch,
				 const uint8_t *p, size_t avail,
				 uint64_t addr, uint64_t base)
{
	uint32_t sethi, ba;

	(void)arch;
	if (avail < 8 || !base || addr < base + 4 * 32 ||
	    addr - base >= (4 + 32768) * 32 || (addr - base) % 32)
		return 0;
	sethi = mc_get_be32(p);
	ba = mc_get_be32(p + 4);
	if ((sethi & 0xffc00000u) != 0x03000000u ||	/* sethi ..,%g1 */
	    (sethi & 0x3fffffu) != addr - base ||
	    (ba & 0xfff80000u) != 0x30680000u)		/* ba,a,pt %xcc */
		return 0;
	if (addr + 4 + (uint64_t)(mc_sign_extend(ba & 0x7ffffu, 19) * 4) !=
	    base + 32)
		return 0;
	return addr;
}

/* -fpatchable-function-entry pads: `nop` (sethi 0,%g0). */
static const struct mc_insn sparc_pad_nops[] = {
	{ 4, { 0x01, 0x00, 0x00, 0x00 } },		/* nop */
};

const struct mc_arch mc_arch_sparc64 = {
	.name = "sparc64",
	.reloc_names = sparc_reloc_names,
	.n_reloc_names = MC_COUNT(sparc_reloc_names),
	.e_machine = EM_SPARCV9_,
	.elf_class = 64,
	.endian = MC_BIG_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_SPARC_64_,
	.none_reloc = R_SPARC_NONE_,
	.relative_reloc = R_SPARC_RELATIVE_,
	.hook_symbols = sparc_hook_symbols,
	.unsupported_hooks = sparc_unsupported_hooks,
	.unsupported_why = "clang's -pg calls 'mcount' (call mcount), which "
		"is not supported (build with gcc, which calls '_mcount')",
	.forms = sparc64_forms,
	.pad_nops = sparc_pad_nops, .n_pad_nops = 1,
	.n_forms = sizeof(sparc64_forms) / sizeof(sparc64_forms[0]),
	.max_entry_offset = 8,		/* save; call */
	.insn_step = 2,
	.decode_site = sparc_decode_site,
	.encode_nop = sparc_encode_nop,
	.encode_call = sparc_encode_call,
	.site_neutral = sparc_site_neutral,
	.plt_slot = sparc64_plt_slot, .plt_base_section = ".plt",
	.plt_read = 8, .plt_step = 32,
};
