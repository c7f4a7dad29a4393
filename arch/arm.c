/* SPDX-License-Identifier: MIT */
/*
 * arm.c - 32-bit ARM (AArch32): the ARM and Thumb-2 instruction sets,
 * little endian.
 *
 * The machine has two instruction sets and switches between them on
 * branches.  ARM state: 4-byte instructions, 4-byte aligned, with a
 * condition field in the top nibble.  Thumb-2: 2- or 4-byte
 * instructions, 2-byte aligned; a 4-byte one is two halfwords, each
 * stored little endian, the first one holding the opcode.  Debian's
 * armhf GCC emits Thumb-2 by default (-mthumb); -marm selects ARM.
 * Interworking convention: an address with bit 0 set is Thumb code,
 * which is why STT_FUNC symbols of Thumb functions have odd values and
 * make bad anchors for __mcount_loc (anchor_avoid_func).
 *
 * What GCC emits for -pg (the AAPCS `__gnu_mcount_nc` protocol; any -O
 * level, PIC or not, with or without -mlong-calls):
 *
 *     ARM:     e52de004  push {lr}            (str lr, [sp, #-4]!)
 *              ebfffffe  bl   __gnu_mcount_nc   R_ARM_CALL
 *     Thumb-2: b500      push {lr}
 *              f7ff fffe bl   __gnu_mcount_nc   R_ARM_THM_CALL
 *
 * Clang (14 and 16, -pg -meabi gnu) writes the same pair in Thumb-2, but
 * in ARM state its push is the other encoding of one register pushed,
 * e92d4000 `stmdb sp!, {lr}` (`push {lr}` as a block store): the same
 * word at the same place, so the same neutral form undoes it.
 *
 * __gnu_mcount_nc pops the word pushed before the call back into lr and
 * returns to its own return address, so the pair leaves sp balanced.  Old assemblers mark the ARM
 * call R_ARM_PC24; the mode follows from the relocation type.  The
 * relocation sits on the `bl`, and the site (what __mcount_loc records,
 * what the kernel patches) is the `bl`: field_offset 0, 4 bytes.  The
 * form also insists on the `push {lr}` just before it (opcode_offset),
 * since the neutral replacement is only right after that push.
 *
 * The neutral replacement must undo the push, because the hook would
 * have: `add sp, sp, #4` (ARM e28dd004, Thumb-2 `add.w sp, sp, #4`
 * f10d 0d04), as linux-6.1's arch/arm/kernel/ftrace.c writes.  Older
 * kernels wrote `pop {lr}` (`ldr lr, [sp], #4`: ARM e49de004, Thumb-2
 * f85d eb04), equally correct since lr still holds the value pushed,
 * but a load; the decoder accepts both.  Plain NOPs, as the kernel's
 * recordmcount writes over push and bl together, would need two sites'
 * worth of bytes and leave the table pointing inside them.
 *
 * The table: R_ARM_ABS32 in REL (the AAPCS uses REL for code), so the
 * addend (section offset of the `bl`) is stored in the slot.  Thumb
 * sites are recorded at even addresses, without the Thumb bit.
 *
 * Linked code cannot tell ARM from Thumb bytes by themselves (an ARM
 * `bl` can also read as a Thumb BLX), so the linked-code functions of
 * the "arm" entry take the interworking convention: a site address with
 * bit 0 set is Thumb, else ARM.  The "thumb2" entry (never picked by
 * e_machine; by name, for an all-Thumb-2 image like a THUMB2_KERNEL)
 * treats every site as Thumb.  Call targets follow the same rule both
 * ways: bit 0 set means a Thumb destination, so encode_call picks BL or
 * BLX and decode_site reports the destination's state.
 *
 * Big endian: in BE8 (ARMv6+) images instructions stay little endian
 * while data is big endian, but relocatable objects hold big-endian
 * instructions that the linker swaps.  Debian has no big-endian ARM
 * compiler to test with, so only little endian is supported.
 */
#include "arch.h"

enum {
	EM_ARM_ = 40,

	R_ARM_NONE_ = 0,
	R_ARM_PC24_ = 1,
	R_ARM_ABS32_ = 2,
	R_ARM_THM_CALL_ = 10,
	R_ARM_RELATIVE_ = 23,
	R_ARM_CALL_ = 28,
};

/*
 * Names of the relocation types a warning or --finalize may name: the
 * hook calls', the table's, and those that refer to a hook symbol other
 * than by a call (its address, a GOT or PLT entry, a tail call).
 */
static const struct mc_reloc_name arm_reloc_names[] = {
	{ 0, "R_ARM_NONE" }, { 1, "R_ARM_PC24" }, { 2, "R_ARM_ABS32" },
	{ 3, "R_ARM_REL32" }, { 10, "R_ARM_THM_CALL" },
	{ 21, "R_ARM_GLOB_DAT" }, { 22, "R_ARM_JUMP_SLOT" },
	{ 23, "R_ARM_RELATIVE" }, { 26, "R_ARM_GOT_BREL" },
	{ 28, "R_ARM_CALL" }, { 29, "R_ARM_JUMP24" },
	{ 30, "R_ARM_THM_JUMP24" }, { 43, "R_ARM_MOVW_ABS_NC" },
	{ 44, "R_ARM_MOVT_ABS" }, { 47, "R_ARM_THM_MOVW_ABS_NC" },
	{ 48, "R_ARM_THM_MOVT_ABS" }, { 96, "R_ARM_GOT_PREL" },
};

#define ARM_BL 0xeb000000u		/* bl #0 (condition AL) */
#define ARM_BLX 0xfa000000u		/* blx #0 (H = 0) */
#define ARM_BL_RANGE (32ll << 20)	/* +-32 MiB */
#define THM_BL_RANGE (16ll << 20)	/* +-16 MiB */

static const uint8_t arm_nop[4] = { 0x04, 0xd0, 0x8d, 0xe2 };	/* add sp, sp, #4 */
static const uint8_t arm_pop_lr[4] = { 0x04, 0xe0, 0x9d, 0xe4 };/* ldr lr, [sp], #4 */
static const uint8_t thm_nop[4] = {
	0x0d, 0xf1, 0x04, 0x0d,		/* add.w sp, sp, #4 */
};
static const uint8_t thm_pop_lr[4] = {
	0x5d, 0xf8, 0x04, 0xeb,		/* ldr.w lr, [sp], #4 */
};

/*
 * A neutral site decodes as MC_SITE_NOP with one of these in `target`,
 * so that site_neutral() can give back the bytes already there.
 */
enum { NEUTRAL_ADD_SP, NEUTRAL_POP_LR };

static const char *const arm_hook_symbols[] = { "__gnu_mcount_nc", NULL };

/*
 * Clang's -pg without -meabi gnu: a bare `bl mcount` (the old protocol,
 * nothing pushed, lr is the caller's only copy).  Not supported; the
 * kernel's Makefile passes -meabi gnu for this reason.
 */
static const char *const arm_unsupported_hooks[] = { "mcount", NULL };

static const struct mc_object_form arm_forms[] = {
	{ .name = "push {lr}; bl",
	  .reloc_types = { R_ARM_CALL_, R_ARM_PC24_ }, .n_reloc_types = 2,
	  .field_offset = 0, .len = 4, .opcode_offset = -4,
	  .opcode = { 0x04, 0xe0, 0x2d, 0xe5,		/* push {lr} */
		      0x00, 0x00, 0x00, 0xeb },		/* bl imm24 */
	  .mask = { 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff },
	  .opcode_len = 8, .nop = arm_nop },
	{ .name = "stmdb sp!, {lr}; bl",		/* clang's push */
	  .reloc_types = { R_ARM_CALL_, R_ARM_PC24_ }, .n_reloc_types = 2,
	  .field_offset = 0, .len = 4, .opcode_offset = -4,
	  .opcode = { 0x00, 0x40, 0x2d, 0xe9,		/* stmdb sp!, {lr} */
		      0x00, 0x00, 0x00, 0xeb },		/* bl imm24 */
	  .mask = { 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff },
	  .opcode_len = 8, .nop = arm_nop },
	{ .name = "push {lr}; bl (Thumb)",
	  .reloc_types = { R_ARM_THM_CALL_ }, .n_reloc_types = 1,
	  .field_offset = 0, .len = 4, .opcode_offset = -2,
	  .opcode = { 0x00, 0xb5,			/* push {lr} */
		      0x00, 0xf0, 0x00, 0xd0 },		/* bl (two halfwords) */
	  .mask = { 0xff, 0xff, 0x00, 0xf8, 0x00, 0xd0 },
	  .opcode_len = 6, .nop = thm_nop },
};

/* -- ARM state ------------------------------------------------------ */

static struct mc_site arm_decode(const uint8_t *p, size_t avail,
				 uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	if (avail < 4)
		return s;
	uint32_t insn = mc_get_le32(p);
	int64_t off = mc_sign_extend(insn & 0x00ffffffu, 24) * 4;
	if ((insn & 0xff000000u) == ARM_BL)
		s = (struct mc_site){ MC_SITE_CALL, 4, addr + 8 + (uint64_t)off };
	else if ((insn & 0xfe000000u) == ARM_BLX)	/* to Thumb: H is bit 1 */
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      (addr + 8 + (uint64_t)off +
				       ((insn >> 23) & 2)) | 1 };
	else if (mc_bytes_equal(p, arm_nop, 4))
		s = (struct mc_site){ MC_SITE_NOP, 4, NEUTRAL_ADD_SP };
	else if (mc_bytes_equal(p, arm_pop_lr, 4))
		s = (struct mc_site){ MC_SITE_NOP, 4, NEUTRAL_POP_LR };
	return s;
}

static bool arm_encode(uint8_t *out, uint64_t site, uint64_t target)
{
	int64_t d = (int64_t)((target & ~1ull) - (site + 8));

	if ((site & 3) || d < -ARM_BL_RANGE || d >= ARM_BL_RANGE)
		return false;
	if (target & 1) {		/* blx: Thumb target, halfword aligned */
		mc_put_le32(out, ARM_BLX | (((uint32_t)d & 2) << 23) |
				 (((uint32_t)d >> 2) & 0x00ffffffu));
		return true;
	}
	if (target & 3)
		return false;
	mc_put_le32(out, ARM_BL | (((uint32_t)d >> 2) & 0x00ffffffu));
	return true;
}

/* -- Thumb-2 state ---------------------------------------------------- */

/*
 * BL/BLX: hw1 = 11110 S imm10, hw2 = 11 J1 x J2 imm11 (x = 1 for BL, 0
 * for BLX); I1 = !(J1 ^ S), I2 = !(J2 ^ S) and the offset is
 * S:I1:I2:imm10:imm11:0 from the site + 4 (BLX: from it rounded down to
 * 4, to an ARM target).
 */
static int64_t thm_offset(uint16_t hw1, uint16_t hw2)
{
	uint32_t s = (hw1 >> 10) & 1;
	uint32_t i1 = !(((hw2 >> 13) & 1) ^ s), i2 = !(((hw2 >> 11) & 1) ^ s);
	uint32_t v = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ffu) << 12 |
		     (hw2 & 0x7ffu) << 1;

	return mc_sign_extend(v, 25);
}

static struct mc_site thm_decode(const uint8_t *p, size_t avail,
				 uint64_t addr)
{
	struct mc_site s = { .kind = MC_SITE_UNKNOWN };

	addr &= ~1ull;
	if (avail < 4)
		return s;
	uint16_t hw1 = mc_get_le16(p);
	uint16_t hw2 = mc_get_le16(p + 2);
	bool prefix = (hw1 & 0xf800) == 0xf000;
	if (prefix && (hw2 & 0xd000) == 0xd000)			/* bl */
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      (addr + 4 + (uint64_t)thm_offset(hw1, hw2)) |
				      1 };
	else if (prefix && (hw2 & 0xd001) == 0xc000)		/* blx */
		s = (struct mc_site){ MC_SITE_CALL, 4,
				      ((addr + 4) & ~3ull) +
				      (uint64_t)thm_offset(hw1, hw2) };
	else if (mc_bytes_equal(p, thm_nop, 4))
		s = (struct mc_site){ MC_SITE_NOP, 4, NEUTRAL_ADD_SP };
	else if (mc_bytes_equal(p, thm_pop_lr, 4))
		s = (struct mc_site){ MC_SITE_NOP, 4, NEUTRAL_POP_LR };
	return s;
}

static bool thm_encode(uint8_t *out, uint64_t site, uint64_t target)
{
	bool to_thumb = target & 1;
	uint64_t from = to_thumb ? (site & ~1ull) + 4 : ((site & ~1ull) + 4) & ~3ull;
	int64_t d = (int64_t)((target & ~1ull) - from);

	if (d < -THM_BL_RANGE || d >= THM_BL_RANGE ||
	    (!to_thumb && (target & 3)))
		return false;
	uint32_t v = (uint32_t)d;
	uint32_t s = (v >> 24) & 1;
	uint32_t j1 = !((v >> 23) & 1) ^ s, j2 = !((v >> 22) & 1) ^ s;
	uint16_t hw1 = (uint16_t)(0xf000 | s << 10 | ((v >> 12) & 0x3ff));
	uint16_t hw2 = (uint16_t)(0xc000 | j1 << 13 | j2 << 11 |
				  ((v >> 1) & 0x7ff) | (to_thumb ? 0x1000 : 0));
	mc_put_le16(out, hw1);		/* bl / blx: hw1 first, each LE */
	mc_put_le16(out + 2, hw2);
	return true;
}

/* -- the two entries' linked-code functions --------------------------- */

static struct mc_site arm_decode_site(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      uint64_t addr)
{
	(void)arch;
	return (addr & 1) ? thm_decode(p, avail, addr)
			  : arm_decode(p, avail, addr);
}

static bool arm_encode_call(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target)
{
	(void)arch;
	if (len != 4)
		return false;
	return (site & 1) ? thm_encode(out, site, target)
			  : arm_encode(out, site, target);
}

static bool arm_encode_nop(const struct mc_arch *arch, uint8_t *out,
			   unsigned len)
{
	(void)arch;
	if (len != 4)
		return false;
	mc_bytes_copy(out, arm_nop, 4);
	return true;
}

static struct mc_site thm_decode_site(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      uint64_t addr)
{
	(void)arch;
	return thm_decode(p, avail, addr);
}

static bool thm_encode_call(const struct mc_arch *arch, uint8_t *out,
			    unsigned len, uint64_t site, uint64_t target)
{
	(void)arch;
	return len == 4 && thm_encode(out, site, target);
}

static bool thm_encode_nop(const struct mc_arch *arch, uint8_t *out,
			   unsigned len)
{
	(void)arch;
	if (len != 4)
		return false;
	mc_bytes_copy(out, thm_nop, 4);
	return true;
}

/* The "thumb2" entry is only ever chosen by name. */
static bool never(const struct mc_arch *arch, uint32_t e_flags)
{
	(void)arch;
	(void)e_flags;
	return false;
}

/*
 * -fpatchable-function-entry pads: Thumb-2 `nop`, or in ARM mode `nop`
 * (ARMv6K+) and the older `mov r0, r0` (GCC 12 writes the M NOPs before
 * a Thumb function in ARM encoding).
 */
static const struct mc_insn arm_pad_nops[] = {
	{ 2, { 0x00, 0xbf } },				/* nop (Thumb) */
	{ 4, { 0x00, 0xf0, 0x20, 0xe3 } },		/* nop (ARM) */
	{ 4, { 0x00, 0x00, 0xa0, 0xe1 } },		/* mov r0, r0 */
};

/* -- for the runtime ------------------------------------------------- */

extern const struct mc_arch mc_arch_arm, mc_arch_thumb2;

/*
 * The runtime enables a pad with a call whose return address the
 * function keeps in ip, the same convention as its live hooks (see
 * "Live patching" below), so one trampoline serves both:
 *
 *   ARM      mov ip, lr  e1a0c00e  + bl/blx   8 bytes: 2 NOPs
 *   Thumb-2  mov ip, lr  46f4      + bl/blx   6 bytes: 3 NOPs
 *
 * A Thumb-2 pad therefore needs -fpatchable-function-entry=3 or more.
 * ip (r12) is free at a function's entry: the AAPCS lets any veneer on
 * the way into the function overwrite it.
 */
static const uint8_t arm_pad_nop2[8] = {
	0x00, 0xf0, 0x20, 0xe3, 0x00, 0xf0, 0x20, 0xe3,	/* nop; nop */
};
static const uint8_t arm_pad_mov2[8] = {
	0x00, 0x00, 0xa0, 0xe1, 0x00, 0x00, 0xa0, 0xe1,	/* mov r0, r0 x2 */
};
static const uint8_t thm_pad_nop3[6] = {
	0x00, 0xbf, 0x00, 0xbf, 0x00, 0xbf,		/* nop; nop; nop */
};

/* GCC's own pushes, from the -pg forms: ARM's 4 bytes, Thumb's 2. */
#define ARM_PUSH_LR (arm_forms[0].opcode)
#define ARM_STMDB_LR (arm_forms[1].opcode)
#define THM_PUSH_LR (arm_forms[2].opcode)

/* What the runtime's live forms are made of (see below). */
static const uint8_t arm_mov_ip_lr[4] = { 0x0e, 0xc0, 0xa0, 0xe1 }; /* mov ip, lr */
#define ARM_HINT_NOP (arm_pad_nops[1].bytes)			/* nop */
static const uint8_t thm_mov_ip_lr[2] = { 0xf4, 0x46 };	/* mov ip, lr */
static const uint8_t thm_skip_bl[2] = { 0x01, 0xe0 };		/* b.n .+6 */

static bool arm_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				unsigned len, uint64_t site, uint64_t target)
{
	(void)arch;
	if (len != 8)
		return false;
	mc_bytes_copy(out, arm_mov_ip_lr, 4);
	return arm_encode(out + 4, site + 4, target);
}

static const uint8_t *arm_pad_neutral(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      unsigned *len)
{
	(void)arch;
	*len = 8;
	if (avail < 8)
		return NULL;
	if (mc_bytes_equal(p, arm_pad_nop2, 8))
		return arm_pad_nop2;
	return mc_bytes_equal(p, arm_pad_mov2, 8) ? arm_pad_mov2 : NULL;
}

static bool thm_encode_pad_call(const struct mc_arch *arch, uint8_t *out,
				unsigned len, uint64_t site, uint64_t target)
{
	(void)arch;
	if (len != 6)
		return false;
	mc_bytes_copy(out, thm_mov_ip_lr, 2);
	return thm_encode(out + 2, site + 2, target);
}

static const uint8_t *thm_pad_neutral(const struct mc_arch *arch,
				      const uint8_t *p, size_t avail,
				      unsigned *len)
{
	(void)arch;
	*len = 6;
	return avail >= 6 && mc_bytes_equal(p, thm_pad_nop3, 6) ?
		thm_pad_nop3 : NULL;
}

/*
 * The entry that reads a pad at a linked address, told by its first
 * instruction (a pad has no push before it): a NOP while the pad is as
 * the compiler left it, `mov ip, lr` (or Thumb's `b.n` over the call)
 * once the runtime has put it in its live form; Thumb's or ARM's.  NULL
 * for anything else.
 */
const struct mc_arch *mc_arch_arm_pad_isa(const uint8_t *p, size_t n)
{
	if (n >= 4 && (mc_bytes_equal(p, arm_pad_nop2, 4) ||
		       mc_bytes_equal(p, arm_pad_mov2, 4) ||
		       mc_bytes_equal(p, arm_mov_ip_lr, 4)))
		return &mc_arch_arm;
	if (n >= 2 && (mc_bytes_equal(p, thm_pad_nop3, 2) ||
		       mc_bytes_equal(p, thm_mov_ip_lr, 2) ||
		       mc_bytes_equal(p, thm_skip_bl, 2)))
		return &mc_arch_thumb2;
	return NULL;
}

/*
 * The bytes that neutralise a decoded site, in one state each: the
 * "arm" entry's answer is for ARM-state sites only (a site address
 * does not carry the state; see mc_arch_arm_site_isa), the "thumb2"
 * entry's for Thumb ones.  A neutral site gets back the form already
 * there.
 */
static const uint8_t *neutral_of(const struct mc_site *site,
				 const uint8_t *add_sp, const uint8_t *pop_lr)
{
	if (site->kind == MC_SITE_UNKNOWN || site->len != 4)
		return NULL;
	if (site->kind == MC_SITE_NOP && site->target == NEUTRAL_POP_LR)
		return pop_lr;
	return add_sp;
}

static const uint8_t *arm_site_neutral(const struct mc_arch *arch,
				       const struct mc_site *site)
{
	(void)arch;
	return neutral_of(site, arm_nop, arm_pop_lr);
}

static const uint8_t *thm_site_neutral(const struct mc_arch *arch,
				       const struct mc_site *site)
{
	(void)arch;
	return neutral_of(site, thm_nop, thm_pop_lr);
}

/*
 * The entry that reads the hook at a linked site, told by the `push
 * {lr}` just before it (the forms' opcode_offset bytes); `before` holds
 * the `n` bytes that end at the site.  The runtime needs this because
 * __mcount_loc holds plain addresses, Thumb ones without bit 0.  The
 * pushes cannot be mistaken for each other: neither of ARM's e52de004
 * and e92d4000 ends in Thumb's b500.  NULL when none is there, because
 * the neutral form (which pops that word) would then corrupt the stack.
 */
const struct mc_arch *mc_arch_arm_site_isa(const uint8_t *before, size_t n)
{
	const struct mc_object_form *a = &arm_forms[0], *c = &arm_forms[1];
	const struct mc_object_form *t = &arm_forms[2];

	if (n >= 4 && (mc_bytes_equal(before + n - 4, a->opcode, 4) ||
		       mc_bytes_equal(before + n - 4, c->opcode, 4)))
		return &mc_arch_arm;
	if (n >= 2 && mc_bytes_equal(before + n - 2, t->opcode, 2))
		return &mc_arch_thumb2;
	return NULL;
}

/*
 * Live patching (the runtime's live_forms): which stores may change an
 * instruction another thread is executing.  The ARM ARM (ARMv7-A/R,
 * A3.5.4 "Concurrent modification and execution of instructions") makes
 * the effect of changing an instruction while another thread executes
 * it UNPREDICTABLE, except when the instruction both before and after
 * the change is one of:
 *
 *   A32: B, BL, NOP, BKPT, SVC, HVC, SMC
 *   T32: the 16-bit encodings of B, NOP, BKPT, SVC
 *
 * Then the other thread executes the old instruction or the new one.
 * `push {lr}` is neither (A32 STR or STMDB, T32 PUSH), nor is the
 * neutral `add sp, sp, #4`, nor `mov`; the list names no 32-bit T32
 * encoding, and a Thumb site's `bl` at a 2-mod-4 address could not be
 * stored whole anyway.  Nor may the hook's `push {lr}` simply stay while
 * the call goes: nothing would pop the word it pushed.
 *
 * So boot (while nothing else runs) puts every site into a form that
 * keeps the function's return address in ip instead of on the stack,
 * `mov ip, lr` in place of the push, and calls a trampoline that
 * expects it there.  ip (r12) is free: the hook is a call, across which
 * the AAPCS lets any veneer overwrite ip, and the -pg stub overwrites it.
 *
 *   ARM hook (push at site - 4, bl at site):
 *     enabled   mov ip, lr ; bl tramp      e1a0c00e  bl/blx
 *     disabled  mov ip, lr ; nop           e1a0c00e  e320f000
 *   Toggling stores the site's word: NOP <-> BL (or BLX), an aligned
 *   A32 word, both sides on the list above.
 *
 *   Thumb-2 hook (push at site - 2, bl at site):
 *     enabled   mov ip, lr ; bl tramp      46f4  bl/blx
 *     disabled  b.n .+6    ; bl tramp      e001  bl/blx
 *   The `bl` is written once, at boot; toggling stores the halfword
 *   before it, MOV <-> B.  No Thumb form of these six bytes can keep to
 *   the list: a toggled 16-bit B or NOP leaves four bytes for the call
 *   and the save of lr together, and the call alone needs four.  This
 *   one relies on what the architecture leaves UNPREDICTABLE: that a
 *   core fetches an aligned halfword written by one 16-bit store (which
 *   is single-copy atomic) as either its old or its new value.  Every
 *   interleaving is consistent then: a thread that ran the `mov` runs
 *   the unchanged `bl`, one that took the branch skipped both.  (Linux
 *   does not rely on any of this on 32-bit ARM: its ftrace patches
 *   under stop_machine.)
 *
 *   Pads (the pad call above, no prelude):
 *     ARM       mov ip, lr ; nop <-> bl    the second word toggles
 *     Thumb-2   mov ip, lr <-> b.n .+6 ; bl   as the Thumb hook
 *
 * `on` holds the bytes before a hook as they are now: GCC's `push {lr}`
 * or clang's `stmdb sp!, {lr}` at boot, the live form's since; anything
 * else is refused.  A hook without live forms (its trampoline out of
 * the call's reach) keeps its push and gets the neutral form above.
 */
static bool arm_hook_head(const uint8_t *p, bool thumb)
{
	if (thumb)
		return mc_bytes_equal(p, THM_PUSH_LR, 2) ||
		       mc_bytes_equal(p, thm_mov_ip_lr, 2) ||
		       mc_bytes_equal(p, thm_skip_bl, 2);
	return mc_bytes_equal(p, ARM_PUSH_LR, 4) ||
	       mc_bytes_equal(p, ARM_STMDB_LR, 4) ||
	       mc_bytes_equal(p, arm_mov_ip_lr, 4);
}

/*
 * True if `on` is a span that has live forms: a hook's push (or the
 * head its live form put there) and its call, or a pad call; *call is
 * where the call starts.
 */
static bool arm_live_shape(const uint8_t *on, unsigned pre, unsigned len,
			   bool pad, bool thumb, unsigned *call)
{
	unsigned head = thumb ? 2 : 4;
	struct mc_site d;

	if (pad ? pre != 0 || len != head + 4 : pre != head || len != 4)
		return false;
	if (pad ? !mc_bytes_equal(on, thumb ? thm_mov_ip_lr : arm_mov_ip_lr,
				  head) : !arm_hook_head(on, thumb))
		return false;
	*call = head;
	d = thumb ? thm_decode(on + head, 4, 0) : arm_decode(on + head, 4, 0);
	return d.kind == MC_SITE_CALL;
}

static bool arm_live_forms(const struct mc_arch *arch, uint8_t *on,
			   uint8_t *off, unsigned pre, unsigned len, bool pad,
			   uint64_t at)
{
	unsigned call;

	(void)arch;
	(void)at;
	if (!arm_live_shape(on, pre, len, pad, false, &call))
		return false;
	mc_bytes_copy(on + call - 4, arm_mov_ip_lr, 4);
	mc_bytes_copy(off, on, pre + len);
	mc_bytes_copy(off + call, ARM_HINT_NOP, 4);
	return true;
}

static bool thm_live_forms(const struct mc_arch *arch, uint8_t *on,
			   uint8_t *off, unsigned pre, unsigned len, bool pad,
			   uint64_t at)
{
	unsigned call;

	(void)arch;
	(void)at;
	if (!arm_live_shape(on, pre, len, pad, true, &call))
		return false;
	mc_bytes_copy(on + call - 2, thm_mov_ip_lr, 2);
	mc_bytes_copy(off, on, pre + len);
	mc_bytes_copy(off + call - 2, thm_skip_bl, 2);
	return true;
}

#define ARM_COMMON							\
	.e_machine = EM_ARM_,						\
	.elf_class = 32,						\
	.endian = MC_LITTLE_ENDIAN,					\
	.addr_size = 4,							\
	.table_uses_rela = false,					\
	.table_reloc = R_ARM_ABS32_,					\
	.none_reloc = R_ARM_NONE_,					\
	.relative_reloc = R_ARM_RELATIVE_,				\
	.hook_symbols = arm_hook_symbols,				\
	.unsupported_hooks = arm_unsupported_hooks,			\
	.unsupported_why = "the bare 'bl mcount' of clang's -pg without "	\
		"-meabi gnu is not supported (compile with -meabi gnu)",	\
	.forms = arm_forms,						\
	.pad_nops = arm_pad_nops, .n_pad_nops = MC_COUNT(arm_pad_nops),	\
	.pad_reader = mc_arch_arm_pad_isa,				\
	.n_forms = sizeof(arm_forms) / sizeof(arm_forms[0]),		\
	.anchor_avoid_func = true,					\
	.symbol_mode_bits = 1,						\
	.insn_step = 2,							\
	/* push {r4-r11, lr} (or push.w), push {lr}, then the bl */	\
	.max_entry_offset = 32

/*
 * A thunk where `bl` (+-32 MiB; Thumb-2 +-16 MiB) cannot reach the
 * trampoline, in ARM state (so Thumb sites reach it with `blx`):
 *   e51ff004   ldr pc, [pc, #-4]   to the word that follows
 *   <4 bytes>  the trampoline (bit 0 set: Thumb, which ldr pc obeys)
 * No register changes: lr, and the live form's ip, reach the
 * trampoline as from a direct call.
 */
static bool arm_encode_thunk(const struct mc_arch *arch, uint8_t *out,
			     uint64_t target, bool pad)
{
	(void)arch;
	(void)pad;
	if (target > UINT32_MAX)
		return false;
	mc_put_le32(out, 0xe51ff004);		/* ldr pc, [pc, #-4] */
	mc_put_le32(out + 4, (uint32_t)target);
	return true;
}

#define ARM_THUNK							\
	.thunk_len = 8, .call_reach = THM_BL_RANGE,			\
	.encode_thunk = arm_encode_thunk

/*
 * A PLT entry (GNU ld; lld's short form is the same), in ARM state,
 * three words, or four where the slot is more than 256 MiB away:
 *     e28fc6xx  add ip, pc, #imm            ip = entry + 8 + imm
 *     e28ccaxx  add ip, ip, #imm            (one or two of these)
 *     e5bcfxxx  ldr pc, [ip, #imm]!         slot = ip + imm
 * the adds' immediates an 8-bit value rotated right by twice the 4-bit
 * field above it.  Thumb code calls the entry with `blx`, or with `bl`
 * the Thumb stub `bx pc; b.n .-4` ld puts just before it: a call to
 * `addr` with bit 0 set (a Thumb target, as the decoders give it).
 */
#define ARM_ADD_IP_PC 0xe28fc000u		/* add ip, pc, #imm */
#define ARM_ADD_IP_IP 0xe28cc000u		/* add ip, ip, #imm */
#define ARM_LDR_PC_IP 0xe5bcf000u		/* ldr pc, [ip, #imm]! */

static uint32_t arm_rotated_imm(uint32_t insn)
{
	uint32_t imm = insn & 0xff, rot = (insn >> 8 & 0xf) * 2;

	return rot ? imm >> rot | imm << (32 - rot) : imm;
}

static uint64_t arm_plt_slot(const struct mc_arch *arch, const uint8_t *p,
			     size_t avail, uint64_t addr, uint64_t base)
{
	uint32_t ip;

	(void)arch;
	(void)base;
	if (addr & 1) {
		if (avail < 4 || mc_get_le16(p) != 0x4778 ||	/* bx pc */
		    mc_get_le16(p + 2) != 0xe7fd)		/* b.n .-4 */
			return 0;
		p += 4;
		avail -= 4;
		addr = (addr & ~(uint64_t)1) + 4;
	}
	if (avail < 12 || (mc_get_le32(p) & 0xfffff000u) != ARM_ADD_IP_PC)
		return 0;
	ip = (uint32_t)addr + 8 + arm_rotated_imm(mc_get_le32(p));
	for (size_t at = 4; at + 4 <= avail && at <= 12; at += 4) {
		uint32_t insn = mc_get_le32(p + at);

		if ((insn & 0xfffff000u) == ARM_LDR_PC_IP)
			return (uint32_t)(ip + (insn & 0xfff));
		if ((insn & 0xfffff000u) != ARM_ADD_IP_IP)
			return 0;
		ip += arm_rotated_imm(insn);
	}
	return 0;
}

#define ARM_PLT .plt_slot = arm_plt_slot, .plt_read = 20, .plt_step = 4

static const char *const arm_int_arg_regs[] = {
	"r0", "r1", "r2", "r3",
};

const struct mc_arch mc_arch_arm = {
	.int_arg_regs = arm_int_arg_regs,
	.n_int_arg_regs = 4,
	.int_ret_reg = "r0",
	.name = "arm",
	/*
	 * None: the generic timer is optional before ARMv7VE (and Linux may
	 * keep user space from it), so clock_gettime.
	 */
	.trace_clock = NULL,
	.reloc_names = arm_reloc_names,
	.n_reloc_names = MC_COUNT(arm_reloc_names),
	ARM_COMMON,
	/* the site's word, NOP <-> BL, after `mov ip, lr` (above) */
	.live_store_max = 4, .live_prelude = 4, .live_forms = arm_live_forms,
	.decode_site = arm_decode_site,
	.encode_nop = arm_encode_nop,
	.encode_call = arm_encode_call,
	.site_neutral = arm_site_neutral,
	.pad_call_len = 8,
	.encode_pad_call = arm_encode_pad_call,
	.pad_neutral = arm_pad_neutral,
	ARM_THUNK,
	ARM_PLT,
};

const struct mc_arch mc_arch_thumb2 = {
	.int_arg_regs = arm_int_arg_regs,
	.n_int_arg_regs = 4,
	.int_ret_reg = "r0",
	.name = "thumb2",
	.reloc_names = arm_reloc_names,
	.n_reloc_names = MC_COUNT(arm_reloc_names),
	ARM_COMMON,
	/* the halfword before the bl, MOV <-> B (above) */
	.live_store_max = 2, .live_prelude = 2, .live_forms = thm_live_forms,
	.accepts_flags = never,
	.decode_site = thm_decode_site,
	.encode_nop = thm_encode_nop,
	.encode_call = thm_encode_call,
	.site_neutral = thm_site_neutral,
	.pad_call_len = 6,
	.encode_pad_call = thm_encode_pad_call,
	.pad_neutral = thm_pad_neutral,
	ARM_THUNK,
	ARM_PLT,
};

/*
 * A -pg function's prologue, for a recorder of exits: from its entry to
 * the `push {lr}` of its hook, what the code did to sp and where it saved
 * lr.  GCC and clang put there pushes (of lr too, in a function that
 * calls others; below the register arguments in a variadic one), `sub
 * sp`, vpush, a frame pointer set from sp, and, clang above all, any
 * straight-line work it scheduled before the call: arithmetic (media
 * instructions too: smmul for a division by a constant, bitfields),
 * compares, moves, loads and stores without writeback to sp (ldrd/strd
 * of arguments, halfwords, register offsets), VFP arithmetic and moves.
 * None of those moves sp or stores lr, so the slot is the pushes' and
 * subtractions' alone; tests/trace/armscan.c measures what is left
 * unread in real code (GCC and clang, ARM and Thumb-2, -O0 to -Os, zlib
 * among it: nothing).  The reader takes those and nothing else: a
 * branch, an IT block, any other write to sp or pc, a store of lr or a
 * second save of it, or (while lr is not saved) a read or write of lr,
 * where the function might return through a copy the hook never sees,
 * make the prologue unreadable, with why.  ARM-state instructions must
 * be unconditional.
 *
 * A function that keeps lr in its register (a leaf) returns through
 * lr, which the hook's push/pop round trip gives back: lr_at is 0.
 */
struct arm_prologue {
	uint32_t taken;		/* bytes taken off sp */
	uint32_t lr_at;		/* lr saved this far below the entry's sp */
	const char *why;	/* set: not readable */
	uint32_t written;	/* bit n: rn written */
};

#define ARM_SP 13
#define ARM_LR 14
#define ARM_PC 15
#define ARM_UNREAD "an instruction of its prologue the recorder does not read"

static unsigned arm_bits_set(uint32_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* A push of `n` registers, `lr` among them (always its top word). */
static void arm_push(struct arm_prologue *p, unsigned n, bool lr)
{
	if (lr && p->lr_at)
		p->why = "its prologue saves lr twice";
	else if (lr)
		p->lr_at = p->taken + 4;
	p->taken += 4 * n;
}

/* An instruction writing `rd`: not sp or pc, nor lr while lr is live. */
static void arm_writes(struct arm_prologue *p, unsigned rd)
{
	p->written |= (uint32_t)1 << (rd & 15);
	if (rd == ARM_SP || rd == ARM_PC || (rd == ARM_LR && !p->lr_at))
		p->why = ARM_UNREAD;
}

/* An instruction reading `rn`: lr, before it is saved, makes a copy. */
static void arm_reads(struct arm_prologue *p, unsigned rn)
{
	if (rn == ARM_LR && !p->lr_at)
		p->why = "its prologue copies lr before saving it";
}

/* A load or store of the registers `list` from or to `rn` (ldm, stm). */
static void arm_block(struct arm_prologue *p, unsigned rn, uint32_t list,
		      bool load, bool writeback)
{
	arm_reads(p, rn);
	if (rn == ARM_PC || (writeback && rn == ARM_SP))
		p->why = ARM_UNREAD;
	else if (load && (list >> ARM_SP & 1 || list >> ARM_PC & 1))
		p->why = ARM_UNREAD;
	else if (load && list >> ARM_LR & 1)
		arm_writes(p, ARM_LR);
	if (load)
		p->written |= list & 0xffff;
	else if (list >> ARM_LR & 1)
		p->why = ARM_UNREAD;	/* lr stored where it is not followed */
}

static uint32_t arm_ror32(uint32_t v, unsigned r)
{
	r &= 31;
	return r ? v >> r | v << (32 - r) : v;
}

/* Thumb-2's modified immediate (ThumbExpandImm), from i:imm3:imm8. */
static uint32_t thm_expand_imm(uint32_t imm12)
{
	uint32_t b = imm12 & 0xff;

	if (imm12 >> 10 == 0) {
		switch (imm12 >> 8 & 3) {
		case 0: return b;
		case 1: return b << 16 | b;
		case 2: return b << 24 | b << 8;
		default: return b << 24 | b << 16 | b << 8 | b;
		}
	}
	return arm_ror32(0x80 | (imm12 & 0x7f), imm12 >> 7);
}

/* A 16-bit Thumb instruction of a prologue. */
/*
 * The low registers a 16-bit Thumb instruction of those classes writes
 * (bit n: rn): its rd in bits 2-0 or 10-8, an ldm's list and base.
 */
static uint32_t thm_low_writes(uint16_t h)
{
	uint32_t lo = 1u << (h & 7), hi = 1u << (h >> 8 & 7);
	bool load = h >> 11 & 1;

	if (h < 0x2000)				/* shifts, add/sub */
		return lo;
	if (h < 0x4000)				/* mov/cmp/add/sub #imm8 */
		return (h >> 11 & 3) == 1 ? 0 : hi;
	if (h < 0x4400) {			/* data processing */
		unsigned op = h >> 6 & 15;

		return op == 8 || op == 10 || op == 11 ? 0 : lo;
	}
	if (h < 0x5000)				/* ldr rd, [pc, #imm] */
		return hi;
	if (h < 0x6000)				/* register offset */
		return (h >> 9 & 7) >= 3 ? lo : 0;
	if (h < 0x9000)				/* ldr/str(b/h) #imm */
		return load ? lo : 0;
	if (h < 0xa000)				/* sp-relative */
		return load ? hi : 0;
	if (h < 0xb000)				/* add rd, pc/sp, #imm */
		return hi;
	return hi | (load ? (h & 0xffu) : 0);	/* stm/ldm rn!, {list} */
}

static void thm_prologue16(struct arm_prologue *p, uint16_t h)
{
	if ((h & 0xfe00) == 0xb400) {			/* push {rlist[, lr]} */
		arm_push(p, arm_bits_set(h & 0x1ff), h & 0x100);
	} else if ((h & 0xff80) == 0xb080) {		/* sub sp, #imm7*4 */
		p->taken += 4u * (h & 0x7f);
	} else if ((h & 0xfc00) == 0x4400 && (h & 0xff00) != 0x4700) {
		/* add, cmp, mov rd, rm (high registers) */
		arm_writes(p, (h >> 4 & 8) | (h & 7));
		arm_reads(p, h >> 3 & 15);
	} else if (h < 0x4400 || (h >= 0x4800 && h < 0xb000) ||
		   (h >= 0xc000 && h < 0xd000)) {
		/* low-register arithmetic, loads and stores (ldm/stm
		   too), add rd, sp/pc: none writes sp or branches */
		p->written |= thm_low_writes(h);
	} else {
		p->why = ARM_UNREAD;
	}
}

/* A Thumb-2 VFP data-processing, register-transfer, vldr or vstr. */
static bool thm_vfp(struct arm_prologue *p, uint16_t h1, uint16_t h2)
{
	unsigned rt = h2 >> 12;

	if ((h2 & 0x0e00) != 0x0a00)
		return false;
	if ((h1 & 0xff20) == 0xed00)		/* vldr/vstr, no writeback */
		return true;
	if ((h1 & 0xff00) != 0xee00)
		return false;
	if (h2 & 0x10) {			/* vmov between core and VFP */
		if (h1 & 0x10)
			arm_writes(p, rt);
		else
			arm_reads(p, rt);
	}
	return true;
}

/*
 * A Thumb-2 load or store of one register (ldr.w, ldrb.w, ldrsh.w...,
 * str.w...: an offset of 12 bits, of 8 with or without writeback, or a
 * register): writeback to sp, pc loaded (a branch, or a preload hint
 * the compilers do not put here) and lr stored are not followed.
 */
static void thm_ldr_str(struct arm_prologue *p, uint16_t h1, uint16_t h2)
{
	unsigned rn = h1 & 15, rt = h2 >> 12;
	bool load = h1 >> 4 & 1, writeback = false;

	if ((h1 & 0x60) == 0x60 || (!load && (h1 >> 8 & 1 || rn == ARM_PC)) ||
	    rt == ARM_PC) {
		p->why = ARM_UNREAD;	/* undefined, SIMD, or pc loaded */
		return;
	}
	if (!(h1 & 0x80) && rn != ARM_PC) {	/* not imm12, not literal */
		if (h2 & 0x0800)
			writeback = h2 >> 8 & 1;		/* imm8 */
		else if (h2 & 0x0fc0)
			p->why = ARM_UNREAD;
		else
			arm_reads(p, h2 & 15);		/* register offset */
	}
	if (writeback && rn == ARM_SP)
		p->why = ARM_UNREAD;
	arm_reads(p, rn);
	if (load)
		arm_writes(p, rt);
	else if (rt == ARM_LR)
		p->why = ARM_UNREAD;	/* lr stored where it is not followed */
}

/* Thumb-2 ldrd, strd (immediate offset, or pc-relative ldrd). */
static void thm_ldrd_strd(struct arm_prologue *p, uint16_t h1, uint16_t h2)
{
	unsigned rn = h1 & 15, rt = h2 >> 12, rt2 = h2 >> 8 & 15;

	if (h1 >> 5 & 1 && (rn == ARM_SP || rn == ARM_PC))
		p->why = ARM_UNREAD;		/* writeback to sp */
	arm_reads(p, rn);
	if (h1 >> 4 & 1) {
		arm_writes(p, rt);
		arm_writes(p, rt2);
	} else if (rt == ARM_LR || rt == ARM_PC || rt2 == ARM_LR ||
		   rt2 == ARM_PC) {
		p->why = ARM_UNREAD;	/* lr stored where it is not followed */
	}
}

/*
 * A Thumb-2 data-processing instruction (modified immediate or shifted
 * register) that only sets flags: tst, teq, cmn, cmp.w, whose Rd field
 * of 1111 names no register (pc is not written).  In the plain binary
 * immediates (addw, movw, bfi...) S is 0: not a compare.
 */
static bool thm_compare(uint16_t h1, uint16_t h2)
{
	unsigned op = h1 >> 5 & 15;

	return (h2 >> 8 & 15) == ARM_PC && (h1 >> 4 & 1) &&
	       (op == 0 || op == 4 || op == 8 || op == 13);
}

/* A Thumb-2 data-processing instruction's destination, if it has one. */
static void thm_writes_rd(struct arm_prologue *p, uint16_t h1, uint16_t h2)
{
	if (!thm_compare(h1, h2))
		arm_writes(p, h2 >> 8 & 15);
}

/* A 32-bit Thumb-2 instruction of a prologue. */
static void thm_prologue32(struct arm_prologue *p, uint16_t h1, uint16_t h2)
{
	uint32_t imm12 = (uint32_t)(h1 >> 10 & 1) << 11 | (h2 >> 4 & 0x700) |
			 (h2 & 0xff);
	unsigned rd = h2 >> 8 & 15, rn = h1 & 15, rt = h2 >> 12;

	if (h1 == 0xe92d && !(h2 & 0xa000)) {		/* push.w {rlist} */
		arm_push(p, arm_bits_set(h2), h2 & 0x4000);
	} else if (h1 == 0xf84d && (h2 & 0x0fff) == 0x0d04) {
		if (rt == ARM_SP || rt == ARM_PC)	/* str.w rt, [sp, #-4]! */
			p->why = ARM_UNREAD;
		arm_push(p, 1, rt == ARM_LR);
	} else if (h1 == 0xed2d && (h2 & 0x0e00) == 0x0a00) {	/* vpush */
		p->taken += 4u * (h2 & 0xff);
	} else if ((h1 & 0xfbff) == 0xf1ad && (h2 & 0x8f00) == 0x0d00) {
		p->taken += thm_expand_imm(imm12);	/* sub.w sp, sp, #c */
	} else if ((h1 & 0xfbff) == 0xf2ad && (h2 & 0x8f00) == 0x0d00) {
		p->taken += imm12;			/* subw sp, sp, #imm */
	} else if ((h1 & 0xfb70) == 0xf240 && !(h2 & 0x8000)) {
		arm_writes(p, rd);			/* movw, movt */
	} else if (h1 >> 11 == 0x1e && !(h2 & 0x8000)) {
		thm_writes_rd(p, h1, h2);	/* data processing, immediate */
		arm_reads(p, rn);
	} else if ((h1 & 0xfe00) == 0xea00 || (h1 & 0xff00) == 0xfa00 ||
		   (h1 & 0xff80) == 0xfb00) {
		if ((h1 & 0xfe00) == 0xea00)	/* shifted register */
			thm_writes_rd(p, h1, h2);
		else				/* extends, parallel, */
			arm_writes(p, rd);	/* multiplies */
		arm_reads(p, rn);
		arm_reads(p, h2 & 15);
		if ((h1 & 0xff80) == 0xfb00)
			arm_reads(p, rt);		/* mla's accumulator */
	} else if ((h1 & 0xfe40) == 0xe800 && ((h1 >> 7 & 3) == 1 ||
						(h1 >> 7 & 3) == 2)) {
		arm_block(p, rn, h2, h1 >> 4 & 1, h1 >> 5 & 1);	/* ldm, stm */
	} else if ((h1 & 0xfe40) == 0xe840 && (h1 & 0x0120)) {
		thm_ldrd_strd(p, h1, h2);
	} else if ((h1 & 0xfe00) == 0xf800) {
		thm_ldr_str(p, h1, h2);
	} else if (!thm_vfp(p, h1, h2)) {
		p->why = ARM_UNREAD;
	}
}

/* An ARM-state load or store of one register; false if not one. */
static bool arm_ldr_str(struct arm_prologue *p, uint32_t w)
{
	unsigned rn = w >> 16 & 15, rt = w >> 12 & 15;
	bool writeback = !(w >> 24 & 1) || (w >> 21 & 1);

	if ((w & 0x0e000000) != 0x04000000 && (w & 0x0e000010) != 0x06000000)
		return false;
	if (writeback && (rn == ARM_SP || rn == ARM_PC))
		p->why = ARM_UNREAD;
	else if (w >> 20 & 1)
		arm_writes(p, rt);			/* ldr, ldrb */
	else if (rt == ARM_LR || rt == ARM_PC)
		p->why = ARM_UNREAD;			/* str of lr, pc */
	return true;
}

/*
 * An ARM-state ldrh, strh, ldrsb, ldrsh, ldrd or strd (the "extra"
 * loads and stores); false if not one.
 */
static bool arm_ldr_str_extra(struct arm_prologue *p, uint32_t w)
{
	unsigned rn = w >> 16 & 15, rt = w >> 12 & 15, op2 = w >> 5 & 3;
	bool writeback = !(w >> 24 & 1) || (w >> 21 & 1);
	bool load = w >> 20 & 1, dual = !load && op2 >= 2;

	if ((w & 0x0e000090) != 0x00000090 || !op2)
		return false;		/* (op2 0: multiplies, swp, ldrex) */
	if (writeback && (rn == ARM_SP || rn == ARM_PC))
		p->why = ARM_UNREAD;
	if (!(w >> 22 & 1))
		arm_reads(p, w & 15);		/* a register offset */
	arm_reads(p, rn);
	if (load || op2 == 2) {			/* ldrd's second: rt + 1 */
		arm_writes(p, rt);
		if (dual)
			arm_writes(p, rt + 1);
	} else if (rt == ARM_LR || rt == ARM_PC || (dual && rt >= ARM_SP)) {
		p->why = ARM_UNREAD;	/* lr stored where it is not followed */
	}
	return true;
}

/*
 * An ARM-state media instruction: parallel arithmetic, packing,
 * saturation, reversal, the signed multiplies that write Rd in bits
 * 19-16 (smmul, smlad, sdiv...) and bitfields (bfc, ubfx...); false if
 * not one.  Rd = sp (`bfc sp`, a stack realignment) is not followed.
 */
static bool arm_media(struct arm_prologue *p, uint32_t w)
{
	unsigned op1 = w >> 20 & 31, hi = w >> 16 & 15, lo = w >> 12 & 15;

	if ((w & 0x0e000010) != 0x06000010)
		return false;
	if ((w & 0x0ff000f0) == 0x07f000f0) {
		p->why = ARM_UNREAD;			/* udf */
	} else if ((op1 & 0x18) == 0x10 || op1 == 0x18) {
		arm_writes(p, hi);	/* multiplies, usad8: Rd 19-16 */
		if (op1 == 0x14)
			arm_writes(p, lo);		/* smlald: RdLo */
		else if (lo != ARM_PC)
			arm_reads(p, lo);		/* the accumulator */
		arm_reads(p, w >> 8 & 15);
		arm_reads(p, w & 15);
	} else {
		arm_writes(p, lo);
		if (op1 < 0x1a)		/* bitfields: 19-16 is a width */
			arm_reads(p, hi);
		arm_reads(p, w & 15);
	}
	return true;
}

/* An ARM-state data-processing or multiply instruction; false if not. */
static bool arm_data(struct arm_prologue *p, uint32_t w)
{
	unsigned op = w >> 21 & 15;
	bool misc = (op & 0xc) == 0x8 && !(w >> 20 & 1);	/* msr, bx... */

	if ((w & 0x0f0000f0) == 0x00000090) {		/* mul, mla, umull... */
		unsigned op3 = w >> 21 & 7;

		arm_writes(p, w >> 16 & 15);
		if (op3 == 1 || op3 == 3)
			arm_reads(p, w >> 12 & 15);	/* mla, mls: ra */
		else
			arm_writes(p, w >> 12 & 15);	/* the low half; mul: 0 */
		arm_reads(p, w >> 8 & 15);
		arm_reads(p, w & 15);
		return true;
	}
	if (misc || !((w & 0x0e000000) == 0x02000000 ||
		      (w & 0x0e000010) == 0 || (w & 0x0e000090) == 0x10))
		return false;
	arm_writes(p, w >> 12 & 15);
	arm_reads(p, w >> 16 & 15);
	if (!(w >> 25 & 1)) {				/* a register operand */
		arm_reads(p, w & 15);
		if (w >> 4 & 1)
			arm_reads(p, w >> 8 & 15);	/* shifted by a register */
	}
	return true;
}

/* An ARM-state VFP data-processing, register-transfer, vldr or vstr. */
static bool arm_vfp(struct arm_prologue *p, uint32_t w)
{
	if ((w & 0x0f200e00) == 0x0d000a00)		/* vldr, vstr */
		return true;
	if ((w & 0x0f000e00) != 0x0e000a00)
		return false;
	if (w >> 4 & 1) {			/* vmov between core and VFP */
		if (w >> 20 & 1)
			arm_writes(p, w >> 12 & 15);
		else
			arm_reads(p, w >> 12 & 15);
	}
	return true;
}

/* An ARM-state instruction of a prologue. */
static void arm_prologue32(struct arm_prologue *p, uint32_t w)
{
	unsigned rd = w >> 12 & 15;

	if (w >> 28 != 0xe)
		p->why = ARM_UNREAD;		/* conditional: not followed */
	else if ((w & 0xffff0000) == 0xe92d0000 && !(w & 0xa000))
		arm_push(p, arm_bits_set(w & 0xffff), w & 0x4000);
	else if ((w & 0xffff0fff) == 0xe52d0004 && rd != ARM_SP &&
		 rd != ARM_PC)
		arm_push(p, 1, rd == ARM_LR);	/* str rt, [sp, #-4]! */
	else if ((w & 0xffff0e00) == 0xed2d0a00)	/* vpush */
		p->taken += 4u * (w & 0xff);
	else if ((w & 0xfffff000) == 0xe24dd000)	/* sub sp, sp, #c */
		p->taken += arm_ror32(w & 0xff, 2 * (w >> 8 & 15));
	else if ((w & 0x0fb00000) == 0x03000000)
		arm_writes(p, rd);			/* movw, movt */
	else if ((w & 0x0e400000) == 0x08000000)	/* ldm, stm */
		arm_block(p, w >> 16 & 15, w & 0xffff, w >> 20 & 1,
			  w >> 21 & 1);
	else if (!arm_data(p, w) && !arm_ldr_str(p, w) &&
		 !arm_ldr_str_extra(p, w) && !arm_media(p, w) && !arm_vfp(p, w))
		p->why = ARM_UNREAD;
}

/* The prologue in the `len` bytes at `code`, read into *p. */
static void arm_read_prologue(const uint8_t *code, size_t len, bool thumb,
			      struct arm_prologue *p)
{
	size_t i = 0;

	*p = (struct arm_prologue){ 0, 0, NULL, 0 };
	while (i + 2 <= len && !p->why) {
		uint16_t h1 = mc_get_le16(code + i);

		if (!thumb && i + 4 <= len) {
			arm_prologue32(p, mc_get_le32(code + i));
			i += 4;
		} else if (!thumb) {
			break;
		} else if (h1 >> 11 < 0x1d) {
			thm_prologue16(p, h1);
			i += 2;
		} else if (i + 4 <= len) {
			thm_prologue32(p, h1, mc_get_le16(code + i + 2));
			i += 4;
		} else {
			break;
		}
	}
	if (!p->why && i != len)
		p->why = "its prologue does not end where its hook starts";
}

const char *mc_arch_arm_prologue_writes(const uint8_t *code, size_t len,
					bool thumb, uint32_t *written)
{
	struct arm_prologue p;

	arm_read_prologue(code, len, thumb, &p);
	*written = p.written;
	return p.why;
}

const char *mc_arch_arm_prologue(const uint8_t *code, size_t len, bool thumb,
				 uint32_t *taken, uint32_t *lr_at)
{
	struct arm_prologue p;

	arm_read_prologue(code, len, thumb, &p);
	*taken = p.taken;
	*lr_at = p.lr_at;
	return p.why;
}
