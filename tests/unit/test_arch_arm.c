/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_arm.c - unit tests of arch/arm.c: the "arm" and "thumb2"
 * entries, the ARM and Thumb-2 object forms, the linked-code decoders
 * and the encoders, in both instruction sets and across them (BLX).
 *
 * The encoders are checked against arm-linux-gnueabihf-objdump (-M
 * force-thumb for Thumb-2), which knows nothing of our tables.
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch_test.h"
#include "disasm.h"
#include "unit.h"

#define EM_ARM_N 40
#define R_ARM_PC24_N 1
#define R_ARM_ABS32_N 2
#define R_ARM_THM_CALL_N 10
#define R_ARM_RELATIVE_N 23
#define R_ARM_CALL_N 28
#define R_ARM_JUMP24_N 29
#define OBJDUMP_ARM "arm-linux-gnueabihf-objdump -m arm"
#define OBJDUMP_THUMB "arm-linux-gnueabihf-objdump -m arm -M force-thumb"

static const struct mc_arch *arm(void)
{
	return arch("arm");
}

static const struct mc_arch *thumb2(void)
{
	return arch("thumb2");
}

START_TEST(registry)
{
	const struct mc_arch *a = mc_arch_find(EM_ARM_N, 32, MC_LITTLE_ENDIAN,
					       0x05000400);

	ck_assert_ptr_eq(a, arm());		/* never "thumb2" by machine */
	ck_assert_uint_eq(a->addr_size, 4);
	ck_assert(!a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_ARM_ABS32_N);
	ck_assert_uint_eq(a->relative_reloc, R_ARM_RELATIVE_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert(a->anchor_avoid_func);
	ck_assert(mc_is_hook_symbol(a, "__gnu_mcount_nc"));
	ck_assert_ptr_null(mc_arch_find(EM_ARM_N, 32, MC_BIG_ENDIAN, 0));
	ck_assert_ptr_eq(thumb2()->forms, a->forms);
}
END_TEST

static const uint8_t arm_code[] = {
	0x04, 0xe0, 0x2d, 0xe5,		/* push {lr} */
	0xfe, 0xff, 0xff, 0xeb,		/* bl __gnu_mcount_nc */
	0xfe, 0xff, 0xff, 0xeb,		/* bl __gnu_mcount_nc (no push) */
};

START_TEST(form_arm)
{
	const struct mc_object_form *f =
		mc_match_form(arm(), R_ARM_CALL_N, arm_code, sizeof(arm_code), 4);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->field_offset, 0);
	ck_assert_uint_eq(f->len, 4);
	ck_assert_mem_eq(f->nop, "\x04\xd0\x8d\xe2", 4);	/* add sp, sp, #4 */
	ck_assert_ptr_eq(mc_match_form(arm(), R_ARM_PC24_N, arm_code,
				       sizeof(arm_code), 4), f);
	/* The push must be there, before the start of the section too. */
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_CALL_N, arm_code,
					 sizeof(arm_code), 8));
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_CALL_N, arm_code + 4,
					 sizeof(arm_code) - 4, 0));
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_JUMP24_N, arm_code,
					 sizeof(arm_code), 4));
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_THM_CALL_N, arm_code,
					 sizeof(arm_code), 4));
}
END_TEST

static const uint8_t thm_code[] = {
	0x08, 0xb5,			/* push {r3, lr} */
	0x00, 0xb5,			/* push {lr} */
	0xff, 0xf7, 0xfe, 0xff,		/* bl __gnu_mcount_nc */
	0x00, 0xbf,			/* nop */
	0xff, 0xf7, 0xfe, 0xff,		/* bl __gnu_mcount_nc (no push) */
};

START_TEST(form_thumb)
{
	const struct mc_object_form *f =
		mc_match_form(arm(), R_ARM_THM_CALL_N, thm_code,
			      sizeof(thm_code), 4);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 4);
	ck_assert_mem_eq(f->nop, "\x0d\xf1\x04\x0d", 4);	/* add.w sp, sp, #4 */
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_THM_CALL_N, thm_code,
					 sizeof(thm_code), 10));
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_CALL_N, thm_code,
					 sizeof(thm_code), 4));
	/* Runs past the end of the section. */
	ck_assert_ptr_null(mc_match_form(arm(), R_ARM_THM_CALL_N, thm_code,
					 6, 4));
}
END_TEST

static void check_nop(const struct mc_arch *a, const char *objdump,
		      const char *want, uint64_t addr)
{
	uint8_t b[4];
	char out[2][DISASM_LINE];

	ck_assert(mc_encode_nop(a, b, 4));
	ck_assert(!mc_encode_nop(a, b, 2));
	ck_assert(!mc_encode_nop(a, b, 8));
	ck_assert_int_eq(disasm(objdump, b, 4, 0, out, 2), 1);
	ck_assert_str_eq(disasm_text(out[0]), want);
	struct mc_site s = mc_decode_site(a, b, 4, addr);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
}

START_TEST(nops)
{
	static const uint8_t pop_arm[] = { 0x04, 0xe0, 0x9d, 0xe4 };
	static const uint8_t pop_thm[] = { 0x5d, 0xf8, 0x04, 0xeb };

	check_nop(arm(), OBJDUMP_ARM, "add\tsp, sp, #4\n", 0x1000);
	check_nop(thumb2(), OBJDUMP_THUMB, "add.w\tsp, sp, #4\n", 0x1002);
	/* Older kernels' `pop {lr}` reads as a NOP too, in its own state. */
	ck_assert_int_eq(mc_decode_site(arm(), pop_arm, 4, 0x1000).kind,
			 MC_SITE_NOP);
	ck_assert_int_eq(mc_decode_site(arm(), pop_thm, 4, 0x1001).kind,
			 MC_SITE_NOP);
	ck_assert_int_eq(mc_decode_site(thumb2(), pop_thm, 4, 0x1000).kind,
			 MC_SITE_NOP);
	ck_assert_int_eq(mc_decode_site(thumb2(), pop_arm, 4, 0x1000).kind,
			 MC_SITE_UNKNOWN);
}
END_TEST

/*
 * Sites with bit 0 set are Thumb (for the "arm" entry); targets with
 * bit 0 set are Thumb functions.  `insn` is what objdump must print.
 */
static const struct {
	uint64_t site, target;
	const char *insn;
} calls[] = {
	{ 0x10000, 0x20000, "bl" },			/* ARM -> ARM */
	{ 0x20000, 0x10000, "bl" },
	{ 0x10000, 0x10000 + (32 << 20) - 8 + 8, "bl" }, /* farthest */
	{ 0x4000000, 0x4000000 + 8 - (32 << 20), "bl" },
	{ 0x10000, 0x20003, "blx" },			/* ARM -> Thumb */
	{ 0x10000, 0x0fffe | 1, "blx" },
	{ 0x10003, 0x20001, "bl" },			/* Thumb -> Thumb */
	{ 0x20001, 0x10003, "bl" },
	{ 0x10001, 0x10004 + (16 << 20) - 2 + 1, "bl" },/* farthest */
	{ 0x2000001, 0x2000004 - (16 << 20) + 1, "bl" },
	{ 0x10003, 0x20000, "blx" },			/* Thumb -> ARM */
	{ 0x10001, 0x20000, "blx" },
	{ 0x20001, 0x10004, "blx" },
};

static void roundtrip(const struct mc_arch *a, unsigned i, uint64_t site)
{
	uint64_t target = calls[i].target;
	bool thumb = calls[i].site & 1;
	uint8_t b[4];
	char out[2][DISASM_LINE];

	ck_assert_msg(mc_encode_call(a, b, 4, site, target), "call %u", i);
	struct mc_site s = mc_decode_site(a, b, 4, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(disasm(thumb ? OBJDUMP_THUMB : OBJDUMP_ARM, b, 4,
				site & ~1ull, out, 2), 1);
	const char *t = disasm_text(out[0]);
	ck_assert_msg(strncmp(t, calls[i].insn, strlen(calls[i].insn)) == 0 &&
		      t[strlen(calls[i].insn)] == '\t', "%u: %s", i, t);
	ck_assert_uint_eq(disasm_last_hex(t), target & ~1ull);
}

START_TEST(call_roundtrip)
{
	roundtrip(arm(), (unsigned)_i, calls[_i].site);
	if (calls[_i].site & 1)		/* thumb2 needs no bit 0 */
		roundtrip(thumb2(), (unsigned)_i, calls[_i].site & ~1ull);
}
END_TEST

START_TEST(call_range)
{
	uint8_t b[4];

	ck_assert(!mc_encode_call(arm(), b, 4, 0x10000, 0x10008 + (32 << 20)));
	ck_assert(!mc_encode_call(arm(), b, 4, 0x4000000,
				  0x4000000 + 8 - (32 << 20) - 4));
	/* ARM site */
	ck_assert(!mc_encode_call(arm(), b, 4, 0x10002, 0x20000));
	/* ARM target */
	ck_assert(!mc_encode_call(arm(), b, 4, 0x10000, 0x20002));
	ck_assert(!mc_encode_call(arm(), b, 4, 0x10001,
				  0x10004 + (16 << 20) + 1));
	/* blx to ARM */
	ck_assert(!mc_encode_call(arm(), b, 4, 0x10001, 0x20002));
	ck_assert(!mc_encode_call(thumb2(), b, 4, 0x2000000,
				  0x2000004 - (16 << 20) - 2 + 1));
	ck_assert(!mc_encode_call(arm(), b, 8, 0x10000, 0x20000));
	ck_assert(!mc_encode_call(thumb2(), b, 2, 0x10000, 0x20001));
}
END_TEST

/* What GCC leaves in the object: `bl .` in both states. */
START_TEST(decode_object_bytes)
{
	struct mc_site s = mc_decode_site(arm(), arm_code + 4, 4, 0x104);

	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x104);
	s = mc_decode_site(thumb2(), thm_code + 4, 4, 0x104);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x104 | 1);
	ck_assert_int_eq(mc_decode_site(arm(), thm_code, 4, 0).kind,
			 MC_SITE_UNKNOWN);
	ck_assert_int_eq(mc_decode_site(arm(), arm_code, 3, 0).kind,
			 MC_SITE_UNKNOWN);
}
END_TEST

const struct mc_arch *mc_arch_arm_site_isa(const uint8_t *before, size_t n);

/*
 * The runtime tells ARM from Thumb-2 sites by the push before them, and
 * each entry neutralises its own state's site, keeping a neutral one.
 */
START_TEST(site_isa_and_neutral)
{
	static const uint8_t arm_push[] = { 0x04, 0xe0, 0x2d, 0xe5 };
	static const uint8_t thm_push[] = { 0x00, 0x00, 0x00, 0xb5 };
	static const uint8_t other[] = { 0x00, 0xb5, 0x00, 0xbf };
	static const uint8_t add_arm[] = { 0x04, 0xd0, 0x8d, 0xe2 };
	static const uint8_t add_thm[] = { 0x0d, 0xf1, 0x04, 0x0d };
	static const uint8_t pop_thm[] = { 0x5d, 0xf8, 0x04, 0xeb };
	uint8_t b[4];
	struct mc_site s;

	ck_assert_ptr_eq(mc_arch_arm_site_isa(arm_push, 4), arm());
	ck_assert_ptr_eq(mc_arch_arm_site_isa(thm_push, 4), thumb2());
	ck_assert_ptr_eq(mc_arch_arm_site_isa(thm_push + 2, 2), thumb2());
	ck_assert_ptr_null(mc_arch_arm_site_isa(other, 4));
	ck_assert_ptr_null(mc_arch_arm_site_isa(arm_push, 0));

	ck_assert(mc_encode_call(arm(), b, 4, 0x10000, 0x20001)); /* blx */
	s = mc_decode_site(arm(), b, 4, 0x10000);
	ck_assert_mem_eq(mc_site_neutral(arm(), &s), add_arm, 4);
	ck_assert(mc_encode_call(thumb2(), b, 4, 0x10002, 0x20001));
	s = mc_decode_site(thumb2(), b, 4, 0x10002);
	ck_assert_mem_eq(mc_site_neutral(thumb2(), &s), add_thm, 4);
	s = mc_decode_site(thumb2(), pop_thm, 4, 0x10002);
	ck_assert_mem_eq(mc_site_neutral(thumb2(), &s), pop_thm, 4);
	s = (struct mc_site){ MC_SITE_UNKNOWN, 4, 0 };
	ck_assert_ptr_null(mc_site_neutral(arm(), &s));
}
END_TEST

/*
 * The runtime's live forms, against bytes from arm-linux-gnueabihf-as
 * (.arch armv7-a), not our encoders: a `bl .+0xfffc` (ARM) or `bl
 * .+0xfffe` (Thumb-2) stands for the call to the trampoline.
 */
static const uint8_t as_arm_push[4] = { 0x04, 0xe0, 0x2d, 0xe5 };  /* push {lr} */
static const uint8_t as_arm_stmdb[4] = { 0x00, 0x40, 0x2d, 0xe9 }; /* stmdb sp!, {lr} */
static const uint8_t as_arm_bl[4] = { 0xfd, 0x3f, 0x00, 0xeb };    /* bl .+0xfffc */
static const uint8_t as_arm_mov_ip[4] = { 0x0e, 0xc0, 0xa0, 0xe1 };/* mov ip, lr */
static const uint8_t as_arm_nop[4] = { 0x00, 0xf0, 0x20, 0xe3 };   /* nop */
static const uint8_t as_thm_push[2] = { 0x00, 0xb5 };		  /* push {lr} */
static const uint8_t as_thm_bl[4] = { 0x0f, 0xf0, 0xfd, 0xff };    /* bl .+0xfffe */
static const uint8_t as_thm_mov_ip[2] = { 0xf4, 0x46 };		  /* mov ip, lr */
static const uint8_t as_thm_skip[2] = { 0x01, 0xe0 };		  /* b.n .+6 */
static const uint8_t as_thm_nop[2] = { 0x00, 0xbf };		  /* nop */

/* `a`'s live forms of the span head + call (lengths hl, 4). */
static bool forms(const struct mc_arch *a, const uint8_t *head, unsigned hl,
		  const uint8_t *call, bool pad, uint8_t *on, uint8_t *off)
{
	memcpy(on, head, hl);
	memcpy(on + hl, call, 4);
	memset(off, 0xaa, hl + 4);
	return a->live_forms(a, on, off, pad ? 0 : hl, pad ? hl + 4 : 4, pad,
			     0x10000);
}

/* The bytes where `on` and `off` differ lie in [lo, lo + n). */
static void differ_within(const uint8_t *on, const uint8_t *off,
			  unsigned len, unsigned lo, unsigned n)
{
	for (unsigned i = 0; i < len; i++)
		if (i < lo || i >= lo + n)
			ck_assert_uint_eq(on[i], off[i]);
	ck_assert(memcmp(on + lo, off + lo, n) != 0);
}

START_TEST(live_forms_arm)
{
	uint8_t on[8], off[8];

	ck_assert_uint_eq(arm()->live_prelude, 4);
	ck_assert_uint_eq(arm()->live_store_max, 4);
	/* GCC's hook and clang's: `mov ip, lr`, then bl <-> nop */
	for (int clang = 0; clang < 2; clang++) {
		ck_assert(forms(arm(), clang ? as_arm_stmdb : as_arm_push, 4,
				as_arm_bl, false, on, off));
		ck_assert_mem_eq(on, as_arm_mov_ip, 4);
		ck_assert_mem_eq(on + 4, as_arm_bl, 4);
		ck_assert_mem_eq(off, as_arm_mov_ip, 4);
		ck_assert_mem_eq(off + 4, as_arm_nop, 4);
		differ_within(on, off, 8, 4, 4);	/* the site's word */
	}
	/* once live: the same forms from the head boot wrote */
	ck_assert(forms(arm(), as_arm_mov_ip, 4, as_arm_bl, false, on, off));
	ck_assert_mem_eq(off + 4, as_arm_nop, 4);
	/* a pad: the pad call's 8 bytes, the second word toggled */
	ck_assert(forms(arm(), as_arm_mov_ip, 4, as_arm_bl, true, on, off));
	ck_assert_mem_eq(on, as_arm_mov_ip, 4);
	ck_assert_mem_eq(off, as_arm_mov_ip, 4);
	ck_assert_mem_eq(off + 4, as_arm_nop, 4);
	/* refused: no push before the hook, no call, a pad's push */
	ck_assert(!forms(arm(), as_arm_nop, 4, as_arm_bl, false, on, off));
	ck_assert(!forms(arm(), as_arm_push, 4, as_arm_nop, false, on, off));
	ck_assert(!forms(arm(), as_arm_push, 4, as_arm_bl, true, on, off));
	memcpy(on, as_arm_push, 4);
	memcpy(on + 4, as_arm_bl, 4);
	ck_assert(!arm()->live_forms(arm(), on, off, 0, 4, false, 0x10000));
}
END_TEST

START_TEST(live_forms_thumb)
{
	uint8_t on[6], off[6];

	ck_assert_uint_eq(thumb2()->live_prelude, 2);
	ck_assert_uint_eq(thumb2()->live_store_max, 2);
	/* the bl stays; the halfword before it is mov ip, lr <-> b.n .+6 */
	ck_assert(forms(thumb2(), as_thm_push, 2, as_thm_bl, false, on, off));
	ck_assert_mem_eq(on, as_thm_mov_ip, 2);
	ck_assert_mem_eq(on + 2, as_thm_bl, 4);
	ck_assert_mem_eq(off, as_thm_skip, 2);
	ck_assert_mem_eq(off + 2, as_thm_bl, 4);
	differ_within(on, off, 6, 0, 2);
	ck_assert(forms(thumb2(), as_thm_skip, 2, as_thm_bl, false, on, off));
	ck_assert_mem_eq(on, as_thm_mov_ip, 2);
	ck_assert(forms(thumb2(), as_thm_mov_ip, 2, as_thm_bl, true, on, off));
	ck_assert_mem_eq(off, as_thm_skip, 2);
	ck_assert_mem_eq(off + 2, as_thm_bl, 4);
	ck_assert(!forms(thumb2(), as_thm_nop, 2, as_thm_bl, false, on, off));
	ck_assert(!forms(thumb2(), as_thm_push, 2, as_thm_bl, true, on, off));
}
END_TEST

/* The pad call is the live form's enabled state; pads are told after. */
START_TEST(pad_call_and_isa)
{
	const struct mc_arch *mc_arch_arm_pad_isa(const uint8_t *, size_t);
	uint8_t b[8];

	/* pads at 0x10000: the bl at +4 (ARM) or +2 (Thumb), to 0x20000 */
	ck_assert(mc_encode_pad_call(arm(), b, 8, 0x10000, 0x20000));
	ck_assert_mem_eq(b, as_arm_mov_ip, 4);
	ck_assert_mem_eq(b + 4, as_arm_bl, 4);
	ck_assert(mc_encode_pad_call(thumb2(), b, 6, 0x10000, 0x20001));
	ck_assert_mem_eq(b, as_thm_mov_ip, 2);
	ck_assert_mem_eq(b + 2, as_thm_bl, 4);
	ck_assert_ptr_eq(mc_arch_arm_pad_isa(as_arm_mov_ip, 4), arm());
	ck_assert_ptr_eq(mc_arch_arm_pad_isa(as_arm_nop, 4), arm());
	ck_assert_ptr_eq(mc_arch_arm_pad_isa(as_thm_skip, 2), thumb2());
	ck_assert_ptr_eq(mc_arch_arm_pad_isa(as_thm_mov_ip, 2), thumb2());
	ck_assert_ptr_null(mc_arch_arm_pad_isa(as_arm_push, 4));
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle arm_relocs[] = {
	RELOC(R_ARM_NONE), RELOC(R_ARM_PC24), RELOC(R_ARM_ABS32),
	RELOC(R_ARM_REL32), RELOC_AS(R_ARM_THM_PC22, "R_ARM_THM_CALL"), RELOC(R_ARM_GLOB_DAT),
	RELOC(R_ARM_JUMP_SLOT), RELOC(R_ARM_RELATIVE), RELOC_AS(R_ARM_GOT32, "R_ARM_GOT_BREL"),
	RELOC(R_ARM_CALL), RELOC(R_ARM_JUMP24), RELOC(R_ARM_THM_JUMP24),
	RELOC(R_ARM_MOVW_ABS_NC), RELOC(R_ARM_MOVT_ABS),
	RELOC(R_ARM_THM_MOVW_ABS_NC), RELOC(R_ARM_THM_MOVT_ABS),
	RELOC(R_ARM_GOT_PREL),
};

START_TEST(arm_reloc_names)
{
	assert_reloc_names(arch("arm"), arm_relocs, MC_COUNT(arm_relocs));
	assert_reloc_names(arch("thumb2"), arm_relocs, MC_COUNT(arm_relocs));
}
END_TEST

/*
 * Prologues of -pg functions, from the entry to the hook's `push {lr}`,
 * as arm-linux-gnueabihf-gcc 12 and clang 14 (-meabi gnu) wrote them
 * for tests/trace/frames.c and vectors.c (-O2, Thumb-2 and -marm), with
 * what mc_arch_arm_prologue must make of them: the bytes taken off sp
 * and where lr went, worked out by hand from objdump's text, or the
 * refusal.  objdump reads each back: `ops` are its mnemonics.
 */
struct prologue_case {
	const char *name;
	bool thumb;
	uint8_t code[96];
	size_t len;
	const char *ops;
	const char *why;	/* refused, saying this; else: */
	uint32_t taken, lr_at;
	size_t cut;		/* bytes at the end that are half of one */
};

static const struct prologue_case prologues[] = {
	{ "gcc thumb big", true, {
		0x10, 0xb5,			/* push {r4, lr} */
		0xad, 0xf5, 0x9c, 0x5d,		/* sub.w sp, sp, #4992 */
		0x82, 0xb0,			/* sub sp, #8 */
	  }, 8, "push sub.w sub", NULL, 8 + 4992 + 8, 4, 0 },
	{ "gcc thumb huge", true, {
		0x30, 0xb5,			/* push {r4, r5, lr} */
		0xad, 0xf5, 0x88, 0x3d,		/* sub.w sp, sp, #69632 */
		0xdd, 0xb0,			/* sub sp, #372 */
	  }, 8, "push sub.w sub", NULL, 12 + 69632 + 372, 4, 0 },
	{ "gcc thumb alloca", true, {
		0x98, 0xb5,			/* push {r3, r4, r7, lr} */
		0x00, 0xaf,			/* add r7, sp, #0 */
	  }, 4, "push add", NULL, 16, 4, 0 },
	{ "clang thumb huge", true, {
		0xf0, 0xb5,			/* push {r4, r5, r6, r7, lr} */
		0x03, 0xaf,			/* add r7, sp, #12 */
		0x4d, 0xf8, 0x04, 0x8d,		/* str.w r8, [sp, #-4]! */
		0xad, 0xf5, 0x88, 0x3d,		/* sub.w sp, sp, #69632 */
		0xdc, 0xb0,			/* sub sp, #368 */
		0x04, 0x46,			/* mov r4, r0 */
	  }, 16, "push add str.w sub.w sub mov", NULL, 20 + 4 + 69632 + 368,
	  4, 0 },
	{ "clang thumb small", true, {
		0xb0, 0xb5,			/* push {r4, r5, r7, lr} */
		0x02, 0xaf,			/* add r7, sp, #8 */
		0x05, 0x4d,			/* ldr r5, [pc, #20] */
		0x04, 0x46,			/* mov r4, r0 */
		0x7d, 0x44,			/* add r5, pc */
	  }, 10, "push add ldr mov add", NULL, 16, 4, 0 },
	{ "gcc arm big", false, {
		0x10, 0x40, 0x2d, 0xe9,		/* push {r4, lr} */
		0x4e, 0xdd, 0x4d, 0xe2,		/* sub sp, sp, #4992 */
		0x08, 0xd0, 0x4d, 0xe2,		/* sub sp, sp, #8 */
	  }, 12, "push sub sub", NULL, 8 + 4992 + 8, 4, 0 },
	{ "gcc arm huge", false, {
		0x10, 0x40, 0x2d, 0xe9,		/* push {r4, lr} */
		0x11, 0xda, 0x4d, 0xe2,		/* sub sp, sp, #69632 */
		0x17, 0xde, 0x4d, 0xe2,		/* sub sp, sp, #368 */
	  }, 12, "push sub sub", NULL, 8 + 69632 + 368, 4, 0 },
	{ "gcc arm alloca", false, {
		0x30, 0x48, 0x2d, 0xe9,		/* push {r4, r5, fp, lr} */
		0x0c, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #12 */
	  }, 8, "push add", NULL, 16, 4, 0 },
	{ "clang arm huge", false, {
		0xf0, 0x48, 0x2d, 0xe9,		/* push {r4-r7, fp, lr} */
		0x10, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #16 */
		0x17, 0xde, 0x4d, 0xe2,		/* sub sp, sp, #368 */
		0x11, 0xda, 0x4d, 0xe2,		/* sub sp, sp, #69632 */
		0x00, 0x40, 0xa0, 0xe1,		/* mov r4, r0 */
	  }, 20, "push add sub sub mov", NULL, 24 + 368 + 69632, 4, 0 },
	{ "a leaf's hook first", true, { 0 }, 0, "", NULL, 0, 0, 0 },
	/* GCC's variadic leaf: a frame for the register arguments, lr kept
	   in its register */
	{ "gcc thumb variadic leaf", true, {
		0x0f, 0xb4,			/* push {r0, r1, r2, r3} */
		0x82, 0xb0,			/* sub sp, #8 */
	  }, 4, "push sub", NULL, 16 + 8, 0, 0 },
	{ "gcc arm variadic leaf", false, {
		0x0f, 0x00, 0x2d, 0xe9,		/* push {r0, r1, r2, r3} */
		0x08, 0xd0, 0x4d, 0xe2,		/* sub sp, sp, #8 */
	  }, 8, "push sub", NULL, 16 + 8, 0, 0 },
	/* clang's variadic function: lr pushed below the register arguments */
	{ "clang thumb variadic", true, {
		0x83, 0xb0,			/* sub sp, #12 */
		0xd0, 0xb5,			/* push {r4, r6, r7, lr} */
		0x02, 0xaf,			/* add r7, sp, #8 */
		0x81, 0xb0,			/* sub sp, #4 */
		0x04, 0x46,			/* mov r4, r0 */
		0x07, 0xf1, 0x08, 0x00,		/* add.w r0, r7, #8 */
		0x0e, 0xc0,			/* stmia r0!, {r1, r2, r3} */
	  }, 16, "sub push add sub mov add.w stmia", NULL, 12 + 16 + 4,
	  12 + 4, 0 },
	/* clang computes a double result before the hook (in d8) */
	{ "clang thumb floating point", true, {
		0x80, 0xb5,			/* push {r7, lr} */
		0x6f, 0x46,			/* mov r7, sp */
		0x2d, 0xed, 0x02, 0x8b,		/* vpush {d8} */
		0x31, 0xee, 0x01, 0x1b,		/* vadd.f64 d1, d1, d1 */
		0x31, 0xee, 0x00, 0x0b,		/* vadd.f64 d0, d1, d0 */
		0xb0, 0xee, 0x08, 0x1b,		/* vmov.f64 d1, #8 */
		0x02, 0xee, 0x01, 0x0b,		/* vmla.f64 d0, d2, d1 */
		0x01, 0xee, 0x10, 0x0a,		/* vmov s2, r0 */
		0xb8, 0xee, 0xc1, 0x1b,		/* vcvt.f64.s32 d1, s2 */
		0x30, 0xee, 0x01, 0x8b,		/* vadd.f64 d8, d0, d1 */
	  }, 36, "push mov vpush vadd.f64 vadd.f64 vmov.f64 vmla.f64 vmov "
		 "vcvt.f64.s32 vadd.f64", NULL, 8 + 8, 4, 0 },
	{ "clang arm small", false, {
		0x30, 0x48, 0x2d, 0xe9,		/* push {r4, r5, fp, lr} */
		0x08, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #8 */
		0x24, 0x50, 0x9f, 0xe5,		/* ldr r5, [pc, #36] */
		0x00, 0x40, 0xa0, 0xe1,		/* mov r4, r0 */
		0x05, 0x50, 0x8f, 0xe0,		/* add r5, pc, r5 */
	  }, 20, "push add ldr mov add", NULL, 16, 4, 0 },
	{ "clang arm variadic", false, {
		0x0c, 0xd0, 0x4d, 0xe2,		/* sub sp, sp, #12 */
		0x10, 0x4c, 0x2d, 0xe9,		/* push {r4, sl, fp, lr} */
		0x08, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #8 */
		0x04, 0xd0, 0x4d, 0xe2,		/* sub sp, sp, #4 */
		0x00, 0x40, 0xa0, 0xe1,		/* mov r4, r0 */
		0x08, 0x00, 0x8b, 0xe2,		/* add r0, fp, #8 */
		0x0e, 0x00, 0x80, 0xe8,		/* stm r0, {r1, r2, r3} */
	  }, 28, "sub push add sub mov add stm", NULL, 12 + 16 + 4, 12 + 4,
	  0 },
	/* clang computes before the hook what GCC computes after it:
	   frames.c's big at -marm divides by a constant (smmul, mls) */
	{ "clang arm smmul", false, {
		0xf0, 0x48, 0x2d, 0xe9,		/* push {r4-r7, fp, lr} */
		0x10, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #16 */
		0xe2, 0xdf, 0x4d, 0xe2,		/* sub sp, sp, #904 */
		0x01, 0xda, 0x4d, 0xe2,		/* sub sp, sp, #4096 */
		0x00, 0x40, 0xa0, 0xe1,		/* mov r4, r0 */
		0xad, 0x0b, 0x08, 0xe3,		/* movw r0, #35757 */
		0xdb, 0x08, 0x46, 0xe3,		/* movt r0, #26843 */
		0x14, 0xf0, 0x50, 0xe7,		/* smmul r0, r4, r0 */
		0xc0, 0x15, 0xa0, 0xe1,		/* asr r1, r0, #11 */
		0xa0, 0x0f, 0x81, 0xe0,		/* add r0, r1, r0, lsr #31 */
		0x88, 0x13, 0x01, 0xe3,		/* movw r1, #5000 */
		0x90, 0x41, 0x65, 0xe0,		/* mls r5, r0, r1, r4 */
	  }, 48, "push add sub sub mov movw movt smmul asr add movw mls",
	  NULL, 24 + 904 + 4096, 4, 0 },
	/* clang's Thumb-2: frames.c's stacked loads its stack arguments,
	   zlib's inflateBack and gzprintf store register arguments, zError
	   indexes a table, frames.c's dyn at -O0 spills its argument */
	{ "clang thumb ldrd", true, {
		0xf0, 0xb5,			/* push {r4, r5, r6, r7, lr} */
		0x03, 0xaf,			/* add r7, sp, #12 */
		0x2d, 0xe9, 0x00, 0x0f,		/* stmdb sp!, {r8-fp} */
		0x81, 0xb0,			/* sub sp, #4 */
		0x0d, 0x4d,			/* ldr r5, [pc, #52] */
		0x98, 0x46,			/* mov r8, r3 */
		0x91, 0x46,			/* mov r9, r2 */
		0x0e, 0x46,			/* mov r6, r1 */
		0x04, 0x46,			/* mov r4, r0 */
		0x7d, 0x44,			/* add r5, pc */
		0xd7, 0xe9, 0x02, 0xab,		/* ldrd sl, fp, [r7, #8] */
	  }, 26, "push add stmdb sub ldr mov mov mov mov add ldrd", NULL,
	  20 + 16 + 4, 4, 0 },
	{ "clang thumb strd", true, {
		0xf0, 0xb5,			/* push {r4, r5, r6, r7, lr} */
		0x03, 0xaf,			/* add r7, sp, #12 */
		0x2d, 0xe9, 0x00, 0x0f,		/* stmdb sp!, {r8-fp} */
		0x91, 0xb0,			/* sub sp, #68 */
		0x1d, 0x46,			/* mov r5, r3 */
		0x04, 0x46,			/* mov r4, r0 */
		0xcd, 0xe9, 0x0e, 0x12,		/* strd r1, r2, [sp, #56] */
	  }, 18, "push add stmdb sub mov mov strd", NULL, 20 + 16 + 68, 4,
	  0 },
	{ "clang thumb variadic strd", true, {
		0x82, 0xb0,			/* sub sp, #8 */
		0xb0, 0xb5,			/* push {r4, r5, r7, lr} */
		0x02, 0xaf,			/* add r7, sp, #8 */
		0x82, 0xb0,			/* sub sp, #8 */
		0x0c, 0x46,			/* mov r4, r1 */
		0x05, 0x46,			/* mov r5, r0 */
		0xc7, 0xe9, 0x02, 0x23,		/* strd r2, r3, [r7, #8] */
	  }, 16, "sub push add sub mov mov strd", NULL, 8 + 16 + 8, 8 + 4,
	  0 },
	{ "clang thumb ldr.w register offset", true, {
		0xd0, 0xb5,			/* push {r4, r6, r7, lr} */
		0x02, 0xaf,			/* add r7, sp, #8 */
		0x05, 0x49,			/* ldr r1, [pc, #20] */
		0xc0, 0xf1, 0x02, 0x00,		/* rsb r0, r0, #2 */
		0x79, 0x44,			/* add r1, pc */
		0x51, 0xf8, 0x20, 0x40,		/* ldr.w r4, [r1, r0, lsl #2] */
	  }, 16, "push add ldr rsb add ldr.w", NULL, 16, 4, 0 },
	{ "clang thumb -O0 str.w negative offset", true, {
		0xd0, 0xb5,			/* push {r4, r6, r7, lr} */
		0x02, 0xaf,			/* add r7, sp, #8 */
		0x84, 0xb0,			/* sub sp, #16 */
		0x47, 0xf8, 0x14, 0x0c,		/* str.w r0, [r7, #-20] */
	  }, 10, "push add sub str.w", NULL, 16 + 16, 4, 0 },
	/* compares name no destination (Rd 1111, not pc), and the other
	   sizes of load; no compiler output surveyed had them before the
	   hook (armscan.c), so these are assembled: arm-linux-gnueabihf-as */
	{ "thumb compares and halfword loads", true, {
		0x80, 0xb5,			/* push {r7, lr} */
		0xb4, 0xf5, 0x80, 0x5f,		/* cmp.w r4, #4096 */
		0x11, 0xea, 0xc2, 0x0f,		/* tst.w r1, r2, lsl #3 */
		0x10, 0xf1, 0x01, 0x0f,		/* cmn.w r0, #1 */
		0x93, 0xea, 0x05, 0x0f,		/* teq r3, r5 */
		0x73, 0xeb, 0x04, 0x02,		/* sbcs.w r2, r3, r4 */
		0xb0, 0xf8, 0x02, 0x10,		/* ldrh.w r1, [r0, #2] */
		0x17, 0xf9, 0x03, 0x2c,		/* ldrsb.w r2, [r7, #-3] */
	  }, 30, "push cmp.w tst.w cmn.w teq sbcs.w ldrh.w ldrsb.w", NULL, 8,
	  4, 0 },
	/* clang realigning the stack (the kernel's blake2s_selftest) */
	{ "clang arm bfc sp", false, {
		0xf0, 0x4f, 0x2d, 0xe9,		/* push {r4-fp, lr} */
		0x1c, 0xb0, 0x8d, 0xe2,		/* add fp, sp, #28 */
		0xeb, 0xdf, 0x4d, 0xe2,		/* sub sp, sp, #940 */
		0x1f, 0xd0, 0xc3, 0xe7,		/* bfc sp, #0, #4 */
	  }, 16, "push add sub bfc", "does not read", 0, 0, 0 },
	/* what the new forms must not let through */
	{ "thumb strd of lr", true, {
		0xcd, 0xe9, 0x00, 0x4e,		/* strd r4, lr, [sp] */
	  }, 4, "strd", "does not read", 0, 0, 0 },
	{ "thumb ldrd with sp writeback", true, {
		0xfd, 0xe8, 0x02, 0x45,		/* ldrd r4, r5, [sp], #8 */
	  }, 4, "ldrd", "does not read", 0, 0, 0 },
	{ "thumb ldr.w into lr", true, {
		0x51, 0xf8, 0x20, 0xe0,		/* ldr.w lr, [r1, r0, lsl #2] */
	  }, 4, "ldr.w", "does not read", 0, 0, 0 },
	{ "thumb str.w sp writeback", true, {
		0x4d, 0xf8, 0x08, 0x4d,		/* str.w r4, [sp, #-8]! */
	  }, 4, "str.w", "does not read", 0, 0, 0 },
	{ "arm strd with sp writeback", false, {
		0xf8, 0x40, 0x6d, 0xe1,		/* strd r4, r5, [sp, #-8]! */
	  }, 4, "strd", "does not read", 0, 0, 0 },
	{ "arm strd of lr", false, {
		0xf0, 0xe0, 0xcd, 0xe1,		/* strd lr, [sp] (unpredictable) */
	  }, 4, "strd", "does not read", 0, 0, 0 },
	{ "arm smmul into sp", false, {
		0x14, 0xf0, 0x5d, 0xe7,		/* smmul sp, r4, r0 */
	  }, 4, "smmul", "does not read", 0, 0, 0 },
	{ "arm stm of lr", false, {
		0x00, 0x40, 0x80, 0xe8,		/* stm r0, {lr} */
	  }, 4, "stm", "does not read", 0, 0, 0 },
	/* lr copied, or saved where the reader does not follow it */
	{ "thumb lr copied", true, {
		0x82, 0xb0,			/* sub sp, #8 */
		0x74, 0x46,			/* mov r4, lr */
	  }, 4, "sub mov", "copies lr", 0, 0, 0 },
	{ "thumb lr copied once saved", true, {
		0x00, 0xb5,			/* push {lr} */
		0x74, 0x46,			/* mov r4, lr */
	  }, 4, "push mov", NULL, 4, 4, 0 },
	{ "thumb lr saved twice", true, {
		0x00, 0xb5,			/* push {lr} */
		0x00, 0xb5,			/* push {lr} */
	  }, 4, "push push", "saves lr twice", 0, 0, 0 },
	{ "thumb str.w lr", true, {
		0xcd, 0xf8, 0x04, 0xe0,		/* str.w lr, [sp, #4] */
	  }, 4, "str.w", "does not read", 0, 0, 0 },
	{ "arm str lr", false, {
		0x04, 0xe0, 0x8d, 0xe5,		/* str lr, [sp, #4] */
	  }, 4, "str", "does not read", 0, 0, 0 },
	{ "arm conditional sub sp", false, {
		0x08, 0xd0, 0x4d, 0x12,		/* subne sp, sp, #8 */
	  }, 4, "subne", "does not read", 0, 0, 0 },
	{ "arm ldr with sp writeback", false, {
		0x04, 0x40, 0x9d, 0xe4,		/* ldr r4, [sp], #4 (pop {r4}) */
	  }, 4, "pop", "does not read", 0, 0, 0 },
	/* what no reader may take: sp or pc written otherwise */
	{ "thumb mov sp", true, {
		0x80, 0xb5,			/* push {r7, lr} */
		0xbd, 0x46,			/* mov sp, r7 */
	  }, 4, "push mov", "does not read", 0, 0, 0 },
	{ "arm bx lr", false, {
		0x1e, 0xff, 0x2f, 0xe1,		/* bx lr */
	  }, 4, "bx", "does not read", 0, 0, 0 },
	{ "thumb cut", true, {
		0x80, 0xb5,			/* push {r7, lr} */
		0x2d, 0xed,			/* half a vpush */
	  }, 4, "push", "does not end where its hook starts", 0, 0, 2 },
};

/* The mnemonics objdump prints for `n` bytes, space-separated. */
static void objdump_ops(bool thumb, const uint8_t *code, size_t n,
			char *ops, size_t size)
{
	char out[32][DISASM_LINE];
	int k = n ? disasm(thumb ? OBJDUMP_THUMB : OBJDUMP_ARM, code, n, 0,
			   out, 32) : 0;

	ops[0] = 0;
	for (int i = 0; i < k && i < 32; i++) {
		char op[32];

		if (sscanf(disasm_text(out[i]), "%31s", op) != 1)
			continue;
		snprintf(ops + strlen(ops), size - strlen(ops), "%s%s",
			 i ? " " : "", op);
	}
}

START_TEST(prologue_reader)
{
	const struct prologue_case *c = &prologues[_i];
	uint32_t taken = 99, lr_at = 99;
	const char *why;
	char ops[256];

	objdump_ops(c->thumb, c->code, c->len - c->cut, ops, sizeof(ops));
	ck_assert_msg(!strcmp(ops, c->ops), "%s: objdump: %s", c->name, ops);
	why = mc_arch_arm_prologue(c->code, c->len, c->thumb, &taken, &lr_at);
	if (c->why) {
		ck_assert_msg(why && strstr(why, c->why), "%s: %s", c->name,
			      why ? why : "read");
		return;
	}
	ck_assert_msg(!why, "%s: %s", c->name, why ? why : "");
	ck_assert_msg(taken == c->taken && lr_at == c->lr_at,
		      "%s: taken %u lr_at %u", c->name, taken, lr_at);
}
END_TEST

/*
 * Which registers a -pg prologue writes before the hook, for a recorder
 * of arguments: clang 14's Thumb-2 add of tests/trace/args.c
 * (arm-linux-gnueabihf-objdump -d) moves its arguments to r4 and r5 and
 * then loads r0, so r0-r3 no longer hold them; GCC's "thumb big" and
 * clang's "thumb small" above leave r0-r3 alone.
 */
START_TEST(prologue_writes)
{
	static const uint8_t clang_add[] = {
		0xf0, 0xb5,			/* push {r4, r5, r6, r7, lr} */
		0x03, 0xaf,			/* add r7, sp, #12 */
		0x4d, 0xf8, 0x04, 0x8d,		/* str.w r8, [sp, #-4]! */
		0x05, 0x46,			/* mov r5, r0 */
		0x09, 0x48,			/* ldr r0, [pc, #36] */
		0x0c, 0x46,			/* mov r4, r1 */
		0x78, 0x44,			/* add r0, pc */
		0x80, 0x46,			/* mov r8, r0 */
	};
	uint32_t written = 0;

	ck_assert_ptr_null(mc_arch_arm_prologue_writes(clang_add,
			   sizeof(clang_add), true, &written));
	ck_assert_uint_eq(written & 0xf, 1);			/* r0 */
	ck_assert_ptr_null(mc_arch_arm_prologue_writes(clang_add, 8, true,
						       &written));
	ck_assert_uint_eq(written & 0xf, 0);
	for (size_t i = 0; i < MC_COUNT(prologues); i++) {
		const struct prologue_case *c = &prologues[i];

		if (strcmp(c->name, "gcc thumb big") &&
		    strcmp(c->name, "clang thumb small"))
			continue;
		ck_assert_ptr_null(mc_arch_arm_prologue_writes(c->code,
				   c->len, c->thumb, &written));
		ck_assert_msg(!(written & 0xf), "%s: 0x%x", c->name, written);
	}
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JUMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *a = arch("arm");
	static const uint8_t entry[] = {
		0x78, 0x47, 0xfd, 0xe7,		/* bx pc; b.n .-4 (Thumb) */
		0x00, 0xc6, 0x8f, 0xe2,		/* add ip, pc, #0, 12 */
		0x01, 0xca, 0x8c, 0xe2,		/* add ip, ip, #4096 */
		0xb4, 0xfd, 0xbc, 0xe5,		/* ldr pc, [ip, #3508]! */
	};

	ck_assert_uint_eq(mc_plt_slot(a, entry + 4, 12, 0x260, 0), 0x201c);
	/* the Thumb stub before it, called with bit 0 set */
	ck_assert_uint_eq(mc_plt_slot(a, entry, 16, 0x25d, 0), 0x201c);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 16, 0x25c, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry + 4, 11, 0x260, 0), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arch_arm");
	TCase *tc = tcase_create("arm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registry);
	tcase_add_test(tc, arm_reloc_names);
	tcase_add_test(tc, form_arm);
	tcase_add_test(tc, form_thumb);
	tcase_add_test(tc, nops);
	tcase_add_loop_test(tc, call_roundtrip, 0,
			    sizeof(calls) / sizeof(calls[0]));
	tcase_add_test(tc, call_range);
	tcase_add_test(tc, decode_object_bytes);
	tcase_add_test(tc, site_isa_and_neutral);
	tcase_add_test(tc, live_forms_arm);
	tcase_add_test(tc, live_forms_thumb);
	tcase_add_test(tc, pad_call_and_isa);
	tcase_add_loop_test(tc, prologue_reader, 0, MC_COUNT(prologues));
	tcase_add_test(tc, prologue_writes);
	tcase_add_test(tc, plt_entry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
