/* SPDX-License-Identifier: MIT */
/*
 * x86.c - x86_64 and i386.
 *
 * The machine: variable-length instructions (1 to 15 bytes), little
 * endian, no alignment rules for code.  A hook is always one call
 * instruction, so a site is patched by overwriting that instruction with
 * a NOP of the same length, and back.
 *
 * What compilers emit at function entry:
 *   -pg -mfentry, non-PIC:  e8 rel32      call __fentry__    (first insn)
 *   -pg, non-PIC:           e8 rel32      call mcount        (after the
 *                                         frame set-up: push %rbp; mov ...)
 *   -pg[-mfentry], PIE/PIC on x86_64 (Debian's gcc default):
 *                           ff 15 disp32  call *__fentry__@GOTPCREL(%rip)
 *   -pg, PIC on i386:       ff 93 disp32  call *mcount@GOT(%ebx)
 *   -mcf-protection puts a 4-byte endbr64/endbr32 before any of these.
 *
 * The relocation sits on the 32-bit field, one byte into `e8` and two
 * into `ff 15`/`ff 93`; the site (what __mcount_loc records, and what
 * GCC's -mrecord-mcount records) is the first byte of the instruction.
 *
 * After linking, ld relaxes `call *foo@GOTPCREL(%rip)` when foo is
 * defined in the output: by default into `67 e8 rel32` (addr32 call),
 * with -z call-nop=prefix-nop into `90 e8 rel32`, with suffix-nop into
 * `e8 rel32 90`.  The decoder accepts all three.  ld 2.40 treats i386's
 * `call *mcount@GOT(%ebx)` (R_386_GOT32X) the same way, in PIE and
 * non-PIE links alike; only the older R_386_GOT32 keeps `ff 93`.
 *
 * The tables are absolute addresses: R_X86_64_64 in RELA (addend in the
 * relocation) on x86_64, R_386_32 in REL (addend in the section) on i386,
 * exactly what GCC's -mrecord-mcount produces.
 */
#include "arch.h"

/* ELF facts (from the System V psABI for each processor). */
enum {
	EM_386_ = 3,
	EM_X86_64_ = 62,

	R_386_NONE_ = 0,
	R_386_32_ = 1,
	R_386_PC32_ = 2,
	R_386_GOT32_ = 3,
	R_386_PLT32_ = 4,
	R_386_RELATIVE_ = 8,
	R_386_GOT32X_ = 43,

	R_X86_64_NONE_ = 0,
	R_X86_64_64_ = 1,
	R_X86_64_PC32_ = 2,
	R_X86_64_PLT32_ = 4,
	R_X86_64_RELATIVE_ = 8,
	R_X86_64_GOTPCREL_ = 9,
	R_X86_64_GOTPCRELX_ = 41,
};

/*
 * Names of the types a hook symbol is referred to by, outside a call
 * (taking its address, loading it from the GOT), and of those that fill
 * a linked table's slot: what a warning or --finalize may name.
 */
static const struct mc_reloc_name x86_64_reloc_names[] = {
	{ 0, "R_X86_64_NONE" }, { 1, "R_X86_64_64" }, { 2, "R_X86_64_PC32" },
	{ 4, "R_X86_64_PLT32" }, { 6, "R_X86_64_GLOB_DAT" },
	{ 7, "R_X86_64_JUMP_SLOT" }, { 8, "R_X86_64_RELATIVE" },
	{ 9, "R_X86_64_GOTPCREL" }, { 10, "R_X86_64_32" },
	{ 11, "R_X86_64_32S" }, { 41, "R_X86_64_GOTPCRELX" },
	{ 42, "R_X86_64_REX_GOTPCRELX" },
};

static const struct mc_reloc_name i386_reloc_names[] = {
	{ 0, "R_386_NONE" }, { 1, "R_386_32" }, { 2, "R_386_PC32" },
	{ 3, "R_386_GOT32" },
	{ 4, "R_386_PLT32" }, { 6, "R_386_GLOB_DAT" },
	{ 7, "R_386_JMP_SLOT" }, { 8, "R_386_RELATIVE" },
	{ 9, "R_386_GOTOFF" }, { 10, "R_386_GOTPC" }, { 43, "R_386_GOT32X" },
};

/*
 * The recommended multi-byte NOPs (Intel SDM vol. 2, "NOP"), indexed by
 * length.  Each is one instruction, so a thread is never caught between
 * two halves of a NOP.
 */
static const uint8_t x86_nops[9][8] = {
	[1] = { 0x90 },					/* nop */
	[2] = { 0x66, 0x90 },				/* xchg %ax,%ax */
	[3] = { 0x0f, 0x1f, 0x00 },			/* nopl (%rax) */
	[4] = { 0x0f, 0x1f, 0x40, 0x00 },		/* nopl 0(%rax) */
	[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 },		/* nopl 0(%rax,%rax,1) */
	[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },	/* nopw 0(%rax,%rax,1) */
	[7] = { 0x0f, 0x1f, 0x80, 0, 0, 0, 0 },		/* nopl 0(%rax) disp32 */
	[8] = { 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0 },	/* nopl 0(%rax,%rax,1) disp32 */
};

static const char *const x86_hook_symbols[] = {
	"__fentry__", "mcount", "_mcount", NULL
};

static const struct mc_object_form x86_64_forms[] = {
	{ .name = "call rel32",
	  .reloc_types = { R_X86_64_PC32_, R_X86_64_PLT32_ }, .n_reloc_types = 2,
	  .field_offset = 1, .len = 5,
	  .opcode = { 0xe8 }, .mask = { 0xff }, .opcode_len = 1,
	  .nop = x86_nops[5] },				/* call rel32 */
	{ .name = "call *rel32(%rip)",
	  .reloc_types = { R_X86_64_GOTPCRELX_, R_X86_64_GOTPCREL_ },
	  .n_reloc_types = 2, .field_offset = 2, .len = 6,
	  .opcode = { 0xff, 0x15 }, .mask = { 0xff, 0xff }, .opcode_len = 2,
	  .nop = x86_nops[6] },				/* call *disp32(%rip) */
};

static const struct mc_object_form i386_forms[] = {
	{ .name = "call rel32",
	  .reloc_types = { R_386_PC32_, R_386_PLT32_ }, .n_reloc_types = 2,
	  .field_offset = 1, .len = 5,
	  .opcode = { 0xe8 }, .mask = { 0xff }, .opcode_len = 1,
	  .nop = x86_nops[5] },				/* call rel32 */
	{ .name = "call *disp32(%ebx)",
	  .reloc_types = { R_386_GOT32X_, R_386_GOT32_ }, .n_reloc_types = 2,
	  .field_offset = 2, .len = 6,
	  .opcode = { 0xff, 0x93 }, .mask = { 0xff, 0xff }, .opcode_len = 2,
	  .nop = x86_nops[6] },				/* call *disp32(%ebx) */
};

static bool x86_encode_nop(const struct mc_arch *arch, uint8_t *out,
			   unsigned len)
{
	(void)arch;
	if (len == 0 || len >= sizeof(x86_nops) / sizeof(x86_nops[0]))
		return false;
	mc_bytes_copy(out, x86_nops[len], len);
	return true;
}

/*
 * The 32-bit displacement from the end of a `len`-byte call to target.
 * In 32-bit code the instruction pointer wraps at 4 GiB, so rel32
 * reaches every address there (i386: a PIE near the bottom calling
 * libmcount.so near the top); x86_64's reaches +-2 GiB.
 */
static bool x86_rel32(const struct mc_arch *arch, uint64_t site, unsigned len,
		      uint64_t target, uint32_t *rel)
{
	int64_t d = (int64_t)(target - (site + len));

	if (arch->addr_size == 4)
		d = (int32_t)(uint32_t)d;
	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (uint32_t)d;
	return true;
}

/*
 * A 5-byte site gets `e8 rel32`; a 6-byte one (where the compiler put
 * `ff 15`) gets `67 e8 rel32`, the same single instruction ld writes
 * when it relaxes the GOT call, so the return address is site + len.
 */
static bool x86_encode_call(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target)
{
	uint32_t rel;

	if ((len != 5 && len != 6) || !x86_rel32(arch, site, len, target, &rel))
		return false;
	if (len == 6)
		*out++ = 0x67;		/* addr32 prefix */
	out[0] = 0xe8;			/* call rel32 */
	mc_put_le32(out + 1, rel);
	return true;
}

static uint64_t x86_call_target(uint64_t next_insn, const uint8_t *rel32)
{
	return next_insn + (uint64_t)mc_sign_extend(mc_get_le32(rel32), 32);
}

/* In 32-bit code the instruction pointer wraps at 4 GiB (x86_rel32). */
static struct mc_site x86_wrap(const struct mc_arch *arch, struct mc_site s,
			       uint64_t addr)
{
	if (arch->addr_size == 4 && s.kind == MC_SITE_CALL &&
	    addr <= 0xffffffffu)
		s.target &= 0xffffffffu;
	return s;
}

static struct mc_site x86_decode_common(const uint8_t *p, size_t avail,
					uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail >= 5 && p[0] == 0xe8) {			/* call rel32 */
		s = (struct mc_site){ MC_SITE_CALL, 5,
				      x86_call_target(addr + 5, p + 1) };
	} else if (avail >= 6 && (p[0] == 0x67 || p[0] == 0x90) &&
		   p[1] == 0xe8) {	/* addr32 call / nop; call (ld relaxed) */
		s = (struct mc_site){ MC_SITE_CALL, 6,
				      x86_call_target(addr + 6, p + 2) };
	} else if (avail >= 6 && mc_bytes_equal(p, x86_nops[6], 6)) {
		s = (struct mc_site){ MC_SITE_NOP, 6, 0 };
	} else if (avail >= 5 && mc_bytes_equal(p, x86_nops[5], 5)) {
		s = (struct mc_site){ MC_SITE_NOP, 5, 0 };
	}
	return s;
}

static struct mc_site x86_64_decode_site(const struct mc_arch *arch,
					 const uint8_t *p, size_t avail,
					 uint64_t addr)
{
	(void)arch;
	if (avail >= 6 && p[0] == 0xff && p[1] == 0x15)	/* call *d32(%rip) */
		return (struct mc_site){ MC_SITE_CALL_INDIRECT, 6,
					 x86_call_target(addr + 6, p + 2) };
	return x86_decode_common(p, avail, addr);
}

/*
 * `call *d32(%ebx)`: PIC code holds its GOT's address in %ebx when it
 * calls through the GOT (i386 psABI), so the pointer is at GOT + d32.
 * ld leaves this form when the assembler used R_386_GOT32 (binutils
 * before 2.26, or -mrelax-relocations=no); the runtime knows its GOT.
 */
static struct mc_site i386_decode_site(const struct mc_arch *arch,
				       const uint8_t *p, size_t avail,
				       uint64_t addr)
{
	struct mc_site s;

	if (avail >= 6 && p[0] == 0xff && p[1] == 0x93)	/* call *d32(%ebx) */
		return (struct mc_site){ MC_SITE_CALL_GOT, 6,
			(uint64_t)mc_sign_extend(mc_get_le32(p + 2), 32) };
	s = x86_decode_common(p, avail, addr);
	return x86_wrap(arch, s, addr);
}

/* Every hook is one instruction: a NOP of its length neutralises it. */
static const uint8_t *x86_site_neutral(const struct mc_arch *arch,
				       const struct mc_site *site)
{
	(void)arch;
	if (site->kind == MC_SITE_UNKNOWN || site->len == 0 ||
	    site->len >= sizeof(x86_nops) / sizeof(x86_nops[0]))
		return NULL;
	return x86_nops[site->len];
}

/*
 * -fpatchable-function-entry pads.  On x86 N counts bytes, not
 * instructions.  GCC fills them with one-byte NOPs.  Clang (LLVM's x86
 * NOP emitter) writes the fewest NOPs that fill the bytes, largest
 * first, with displacements of its own (8, 0x200) that no hook's NOP
 * has: at most ten bytes each in clang 14, up to fifteen in clang 16
 * (`data16` prefixes on the ten-byte one); for i386 targets without
 * long NOPs (i686 and older), `xchg %ax,%ax` pairs and a final `nop`.
 * The part before the entry (M) and the part after it are separate
 * runs.
 */
#define X86_NOP10 0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00
					/* cs nopw 0x200(%rax,%rax,1) */
static const struct mc_insn x86_pad_nops[] = {
	{ 1, { 0x90 } },					/* nop */
	{ 2, { 0x66, 0x90 } },					/* xchg %ax,%ax */
	{ 3, { 0x0f, 0x1f, 0x00 } },				/* nopl (%rax) */
	{ 4, { 0x0f, 0x1f, 0x40, 0x08 } },			/* nopl 0x8(%rax) */
	{ 5, { 0x0f, 0x1f, 0x44, 0x00, 0x08 } },	/* nopl 0x8(%rax,%rax,1) */
	{ 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x08 } },	/* nopw 0x8(%rax,%rax,1) */
	{ 7, { 0x0f, 0x1f, 0x80, 0x00, 0x02, 0x00, 0x00 } },
							/* nopl 0x200(%rax) */
	{ 8, { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 } },
						/* nopl 0x200(%rax,%rax,1) */
	{ 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 } },
						/* nopw 0x200(%rax,%rax,1) */
	{ 10, { X86_NOP10 } },			/* cs nopw 0x200(%rax,%rax,1) */
	{ 11, { 0x66, X86_NOP10 } },			/* data16 cs nopw ... */
	{ 12, { 0x66, 0x66, X86_NOP10 } },
	{ 13, { 0x66, 0x66, 0x66, X86_NOP10 } },
	{ 14, { 0x66, 0x66, 0x66, 0x66, X86_NOP10 } },
	{ 15, { 0x66, 0x66, 0x66, 0x66, 0x66, X86_NOP10 } },
};

/*
 * The runtime enables a pad with the 5-byte `call rel32`, written at the
 * first NOP at or after the function's entry (after endbr64): the same
 * call, at the same place, as `-pg -mfentry`, so the fentry trampoline
 * serves pads too.  The call must not cut a NOP in two (a thread could
 * be inside it, and the bytes after the call must decode), so it takes
 * the whole NOPs that cover its five bytes: these windows, exactly what
 * GCC and clang put there, which disabling writes back as they were.
 */
static const struct mc_insn x86_pad_windows[] = {
	{ 5, { 0x90, 0x90, 0x90, 0x90, 0x90 } },	/* nop x 5 (GCC) */
	{ 5, { 0x0f, 0x1f, 0x44, 0x00, 0x08 } },	/* nopl 0x8(%rax,%rax,1) */
	{ 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x08 } },	/* nopw 0x8(%rax,%rax,1) */
	{ 7, { 0x0f, 0x1f, 0x80, 0x00, 0x02, 0x00, 0x00 } },
							/* nopl 0x200(%rax) */
	{ 8, { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 } },
						/* nopl 0x200(%rax,%rax,1) */
	{ 9, { 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 } },
						/* nopw 0x200(%rax,%rax,1) */
	{ 10, { X86_NOP10 } },			/* cs nopw 0x200(%rax,%rax,1) */
	{ 11, { 0x66, X86_NOP10 } },			/* data16 cs nopw ... */
	{ 12, { 0x66, 0x66, X86_NOP10 } },
	{ 13, { 0x66, 0x66, 0x66, X86_NOP10 } },
	{ 14, { 0x66, 0x66, 0x66, 0x66, X86_NOP10 } },
	{ 15, { 0x66, 0x66, 0x66, 0x66, 0x66, X86_NOP10 } },
	{ 5, { 0x66, 0x90, 0x66, 0x90, 0x90 } },	/* xchg x 2; nop (i686) */
	{ 6, { 0x66, 0x90, 0x66, 0x90, 0x66, 0x90 } },	/* xchg %ax,%ax x 3 */
};

/*
 * `len` bytes: `call rel32`, then NOPs for the rest of the window, which
 * run after the call returns.
 */
static bool x86_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				unsigned len, uint64_t site, uint64_t target)
{
	if (len < 5 || len > 15 || !x86_encode_call(arch, out, 5, site, target))
		return false;
	for (unsigned at = 5, k; at < len; at += k) {
		k = len - at < 8 ? len - at : 8;
		x86_encode_nop(arch, out + at, k);
	}
	return true;
}

static const uint8_t *x86_pad_neutral(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      unsigned *len)
{
	(void)arch;
	for (unsigned i = 0; i < MC_COUNT(x86_pad_windows); i++) {
		const struct mc_insn *w = &x86_pad_windows[i];

		if (mc_match_insn(w, 1, p, avail)) {
			*len = w->len;
			return w->bytes;
		}
	}
	return NULL;
}

/*
 * Live patching: the disabled form of `call rel32` is `test $rel32,
 * %eax` (a9 rel32), the same length with the same four bytes after its
 * opcode, so enabling and disabling store one byte, e8 <-> a9, and a
 * thread fetching the site sees one whole instruction or the other.
 * `test` writes only the flags, which are dead where a hook sits (the
 * call it replaces clobbers them too).  A 6-byte site keeps its addr32
 * prefix (67 a9 ...: ignored on an instruction without memory operand);
 * a pad's call keeps the NOPs that follow it.
 */
static unsigned x86_live_opcode(const struct mc_arch *arch, unsigned len,
				bool pad, uint8_t *off)
{
	(void)arch;
	*off = 0xa9;				/* test $imm32,%eax */
	return !pad && len == 6;	/* past encode_call's addr32 prefix */
}

/*
 * The disabled forms live_opcode makes of encode_call's two calls,
 * exactly: `a9 rel32` for a 5-byte site, `67 a9 rel32` for a 6-byte
 * one, read as the call they stand for.
 */
static struct mc_site x86_decode_disabled(const struct mc_arch *arch,
					  const uint8_t *p, size_t avail,
					  uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail >= 5 && p[0] == 0xa9)			/* test $imm32,%eax */
		s = (struct mc_site){ MC_SITE_CALL, 5,
				      x86_call_target(addr + 5, p + 1) };
	else if (avail >= 6 && p[0] == 0x67 && p[1] == 0xa9)	/* addr32 */
		s = (struct mc_site){ MC_SITE_CALL, 6,
				      x86_call_target(addr + 6, p + 2) };
	return x86_wrap(arch, s, addr);
}

static bool x86_live_forms(const struct mc_arch *arch, uint8_t *on,
			   uint8_t *off, unsigned pre, unsigned len, bool pad,
			   uint64_t at)
{
	uint8_t test;
	unsigned op = x86_live_opcode(arch, len, pad, &test);

	(void)at;
	if (len < 5 + op || on[pre + op] != 0xe8)		/* call rel32 */
		return false;
	mc_bytes_copy(off, on, pre + len);
	off[pre + op] = test;
	return true;
}

/* -fcf-protection puts an end-branch marker before hook or pad. */
static const struct mc_insn x86_entry_prefixes[] = {
	{ 4, { 0xf3, 0x0f, 0x1e, 0xfa } },		/* endbr64 */
	{ 4, { 0xf3, 0x0f, 0x1e, 0xfb } },		/* endbr32 */
};

/*
 * -mnop-mcount: the 5-byte NOP where `call __fentry__` would be, with no
 * relocation to find it by.
 */
static const struct mc_object_form x86_entry_nop_form = {
	.name = "nopl (-mnop-mcount)", .len = 5,
	.opcode = { 0x0f, 0x1f, 0x44, 0x00, 0x00 },	/* nopl 0(%rax,%rax,1) */
	.mask = { 0xff, 0xff, 0xff, 0xff, 0xff }, .opcode_len = 5,
	.nop = x86_nops[5],
};

#define X86_ENTRY_FACTS							\
	.pad_nops = x86_pad_nops, .n_pad_nops = MC_COUNT(x86_pad_nops),	\
	.entry_prefixes = x86_entry_prefixes,				\
	.n_entry_prefixes = MC_COUNT(x86_entry_prefixes),		\
	.entry_nop_form = &x86_entry_nop_form,				\
	.pad_call_len = 5, .encode_pad_call = x86_encode_pad_call,	\
	.pad_neutral = x86_pad_neutral, .live_forms = x86_live_forms,	\
	.live_opcode = x86_live_opcode, .decode_disabled = x86_decode_disabled

/*
 * A thunk where `call rel32` (+-2 GiB) cannot reach the trampoline:
 *   ff 25 00 00 00 00   jmp *0(%rip)     to the address that follows
 *   <8 bytes>           the trampoline
 *   66 90               xchg %ax,%ax     (to 16 bytes, never run)
 * No register changes; the trampoline finds the return address into
 * the function on the stack, as from a direct call.
 */
static bool x86_64_encode_thunk(const struct mc_arch *arch, uint8_t *out,
				uint64_t target, bool pad)
{
	static const uint8_t jmp_rip[] = { 0xff, 0x25, 0, 0, 0, 0 };

	(void)arch;
	(void)pad;
	mc_bytes_copy(out, jmp_rip, sizeof(jmp_rip));
	mc_put_le64(out + 6, target);
	out[14] = 0x66;
	out[15] = 0x90;
	return true;
}

/*
 * PLT entries (GNU ld, gold, lld, mold; objdump -d of libraries each
 * linked): 16 bytes after a 16-byte header in .plt, 16 in .plt.sec
 * (-z ibtplt, CET) and 8 or 16 in .plt.got, each starting
 *   [endbr64] [bnd] ff 25 rel32      jmp *slot(%rip)       x86_64
 *   [endbr32] ff 25 abs32            jmp *slot             i386, no PIC
 *   [endbr32] ff a3 d32              jmp *d32(%ebx)        i386 PIC
 * where i386 PIC code holds the GOT's address (.got.plt's start, which
 * _GLOBAL_OFFSET_TABLE_ names) in %ebx.
 */
static unsigned x86_plt_prefixes(const uint8_t *p, size_t avail, uint8_t endbr)
{
	unsigned at = 0;

	if (avail >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e &&
	    p[3] == endbr)
		at = 4;
	if (at < avail && p[at] == 0xf2)		/* bnd */
		at++;
	return at;
}

static uint64_t x86_64_plt_slot(const struct mc_arch *arch, const uint8_t *p,
				size_t avail, uint64_t addr, uint64_t base)
{
	unsigned at = x86_plt_prefixes(p, avail, 0xfa);	/* endbr64 */

	(void)arch;
	(void)base;
	if (avail < at + 6 || p[at] != 0xff || p[at + 1] != 0x25)
		return 0;
	return x86_call_target(addr + at + 6, p + at + 2);
}

static uint64_t i386_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			      size_t avail, uint64_t addr, uint64_t base)
{
	unsigned at = x86_plt_prefixes(p, avail, 0xfb);	/* endbr32 */

	(void)arch;
	(void)addr;
	if (avail < at + 6 || p[at] != 0xff)
		return 0;
	if (p[at + 1] == 0x25)
		return mc_get_le32(p + at + 2);
	if (p[at + 1] == 0xa3 && base)
		return (base + mc_get_le32(p + at + 2)) & 0xffffffffu;
	return 0;
}

static const char *const x86_64_int_arg_regs[] = {
	"rdi", "rsi", "rdx", "rcx", "r8", "r9",
};

/*
 * cdecl passes every argument on the stack: its "registers" are the
 * caller's words just above the return address, named by their place
 * from %esp at the entry; the first six are read, as on x86_64.
 */
static const char *const i386_int_arg_regs[] = {
	"4(%esp)", "8(%esp)", "12(%esp)", "16(%esp)", "20(%esp)", "24(%esp)",
};

const struct mc_arch mc_arch_x86_64 = {
	.int_arg_regs = x86_64_int_arg_regs,
	.n_int_arg_regs = 6,
	.int_ret_reg = "rax",
	.name = "x86_64",
	/* the TSC: constant-rate where Linux keeps it as a clock */
	.trace_clock = "rdtsc",
	.reloc_names = x86_64_reloc_names,
	.n_reloc_names = sizeof(x86_64_reloc_names) / sizeof(x86_64_reloc_names[0]),
	.e_machine = EM_X86_64_,
	.elf_class = 64,
	.endian = MC_LITTLE_ENDIAN,
	.addr_size = 8,
	.table_uses_rela = true,
	.table_reloc = R_X86_64_64_,
	.none_reloc = R_X86_64_NONE_,
	.relative_reloc = R_X86_64_RELATIVE_,
	.hook_symbols = x86_hook_symbols,
	.forms = x86_64_forms,
	X86_ENTRY_FACTS,
	.n_forms = sizeof(x86_64_forms) / sizeof(x86_64_forms[0]),
	.max_entry_offset = 32,
	.live_store_max = 8,
	.insn_step = 1,
	.decode_site = x86_64_decode_site,
	.encode_nop = x86_encode_nop,
	.encode_call = x86_encode_call,
	.site_neutral = x86_site_neutral,
	.thunk_len = 16,
	.call_reach = 1ull << 31,
	.encode_thunk = x86_64_encode_thunk,
	.plt_slot = x86_64_plt_slot,
	.plt_read = 11,
	.plt_step = 8,
};

const struct mc_arch mc_arch_i386 = {
	.int_arg_regs = i386_int_arg_regs,
	.n_int_arg_regs = 6,
	.int_args_on_stack = true,
	.int_ret_reg = "eax",
	.name = "i386",
	.trace_clock = "rdtsc",
	.reloc_names = i386_reloc_names,
	.n_reloc_names = sizeof(i386_reloc_names) / sizeof(i386_reloc_names[0]),
	.e_machine = EM_386_,
	.elf_class = 32,
	.endian = MC_LITTLE_ENDIAN,
	.addr_size = 4,
	.table_uses_rela = false,
	.table_reloc = R_386_32_,
	.none_reloc = R_386_NONE_,
	.relative_reloc = R_386_RELATIVE_,
	.hook_symbols = x86_hook_symbols,
	.forms = i386_forms,
	X86_ENTRY_FACTS,
	.n_forms = sizeof(i386_forms) / sizeof(i386_forms[0]),
	.max_entry_offset = 32,
	.live_store_max = 4,
	.insn_step = 1,
	.decode_site = i386_decode_site,
	.encode_nop = x86_encode_nop,
	.encode_call = x86_encode_call,
	.site_neutral = x86_site_neutral,
	.plt_slot = i386_plt_slot,
	.plt_base_section = ".got.plt",
	.plt_read = 10,
	.plt_step = 8,
};
