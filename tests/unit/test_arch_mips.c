/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_mips.c - unit tests of arch/mips.c: which ABI an ELF header
 * selects, the object forms (each GCC -pg sequence, both byte orders),
 * the linked-code decoder and the encoders.
 *
 * Instruction words are written out by hand from the MIPS manuals and
 * from what `mips*-objdump -dr` showed for GCC 12's -pg output; the call
 * encoder is also checked against mips-linux-gnu-objdump, which
 * disassembles our bytes without knowing our tables.
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_test.h"
#include "disasm.h"
#include "unit.h"

/* ELF numbers, spelled out here so the tests do not share the arch's. */
#define EM_MIPS_N 8
#define FLAGS_O32 0x70001007u		/* noreorder, pic, cpic, o32 */
#define FLAGS_N32 0x80000027u		/* ... abi2 */
#define FLAGS_N64 0x80000007u
#define R_26 4
#define R_HI16 5
#define R_LO16 6
#define R_CALL16 11
#define R_HIGHER 28
#define R_HIGHEST 29
#define R_JALR 37

/* Words into bytes in either order: code as the file holds it. */
static size_t put_words(uint8_t *p, const uint32_t *w, size_t n, bool big)
{
	for (size_t i = 0; i < n; i++) {
		for (int b = 0; b < 4; b++)
			p[4 * i + (size_t)b] = (uint8_t)(w[i] >>
				(big ? 24 - 8 * b : 8 * b));
	}
	return 4 * n;
}

/* ---- registry ---------------------------------------------------- */

START_TEST(find_by_abi)
{
	static const struct {
		uint8_t cls;
		enum mc_endian e;
		uint32_t flags;
		const char *name;
	} t[] = {
		{ 32, MC_BIG_ENDIAN, FLAGS_O32, "mips" },
		{ 32, MC_LITTLE_ENDIAN, FLAGS_O32, "mipsel" },
		{ 32, MC_BIG_ENDIAN, FLAGS_N32, "mipsn32" },
		{ 32, MC_LITTLE_ENDIAN, FLAGS_N32, "mipsn32el" },
		{ 64, MC_BIG_ENDIAN, FLAGS_N64, "mips64" },
		{ 64, MC_LITTLE_ENDIAN, FLAGS_N64, "mips64el" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct mc_arch *a = mc_arch_find(EM_MIPS_N, t[i].cls,
						       t[i].e, t[i].flags);
		ck_assert_ptr_nonnull(a);
		ck_assert_str_eq(a->name, t[i].name);
	}
}
END_TEST

START_TEST(table_facts)
{
	/* o32: R_MIPS_32 in .rel; n32: R_MIPS_32 in .rela; n64: R_MIPS_64. */
	ck_assert(!arch("mips")->table_uses_rela);
	ck_assert_uint_eq(arch("mips")->table_reloc, 2);
	ck_assert(arch("mipsn32el")->table_uses_rela);
	ck_assert_uint_eq(arch("mipsn32el")->addr_size, 4);
	ck_assert(arch("mips64el")->table_uses_rela);
	ck_assert_uint_eq(arch("mips64el")->table_reloc, 18);
	ck_assert_uint_eq(arch("mips64")->addr_size, 8);
	ck_assert(mc_is_hook_symbol(arch("mips"), "_mcount"));
	ck_assert(!mc_is_hook_symbol(arch("mips"), "mcount"));
}
END_TEST

START_TEST(companions)
{
	const struct mc_arch *a = arch("mips64el");

	ck_assert(mc_is_companion_reloc(a, R_LO16));
	ck_assert(mc_is_companion_reloc(a, R_HIGHER));
	ck_assert(mc_is_companion_reloc(a, R_HIGHEST));
	ck_assert(mc_is_companion_reloc(a, R_JALR));
	ck_assert(!mc_is_companion_reloc(a, R_HI16));
	ck_assert(!mc_is_companion_reloc(a, R_26));
	ck_assert(!mc_is_companion_reloc(a, R_CALL16));
}
END_TEST

/* ---- object forms ------------------------------------------------ */

/*
 * One sequence as GCC emits it, the relocation that marks it (at word
 * `reloc_word`), and what the match must say: the site's word, the
 * NOP's length (0: recorded but no NOP).
 */
struct seq {
	const char *arch;
	uint32_t words[10];
	size_t n;
	uint32_t type;
	size_t reloc_word;
	size_t site_word;
	unsigned nop_len;
};

static const struct seq seqs[] = {
	/* o32 kernel: move at,ra; jal; addiu sp,sp,-8 (delay slot) */
	{ "mips", { 0x03e00825, 0x0c000000, 0x27bdfff8, 0x3c020000 }, 4,
	  R_26, 1, 1, 8 },
	/* o32, a jal without the stack adjustment after it: record only */
	{ "mips", { 0x03e00825, 0x0c000000, 0x00000000, 0x3c020000 }, 4,
	  R_26, 1, 1, 0 },
	/* o32 -mlong-calls: lui; addiu; move at,ra; jalr v1; addiu sp */
	{ "mips", { 0x3c030000, 0x24630000, 0x03e00825, 0x0060f809,
		    0x27bdfff8, 0x3c020000 }, 6, R_HI16, 0, 0, 20 },
	/* ... with -mmcount-ra-address: move t4,zero before the jalr */
	{ "mips", { 0x3c030000, 0x24630000, 0x03e00825, 0x00006025,
		    0x0060f809, 0x27bdfff8 }, 6, R_HI16, 0, 0, 24 },
	/* o32 PIC: addiu sp,sp,-8; lw t9,%call16; jalr t9; nop */
	{ "mips", { 0x03e00825, 0x27bdfff8, 0x8f990000, 0x0320f809,
		    0x00000000 }, 5, R_CALL16, 2, 1, 12 },
	/* o32 PIC without the addiu before: record only, at the lw */
	{ "mips", { 0x03e00825, 0x00000000, 0x8f990000, 0x0320f809,
		    0x00000000 }, 5, R_CALL16, 2, 2, 0 },
	/* n64 kernel: jal; the delay slot stays */
	{ "mips64el", { 0x03e00825, 0x0c000000, 0x00006025 }, 3,
	  R_26, 1, 1, 4 },
	/* n64 -mlong-calls -msym32: lui; daddiu; move at,ra; jalr v1 */
	{ "mips64", { 0x3c030000, 0x64630000, 0x03e00825, 0x0060f809,
		      0x00000000 }, 5, R_HI16, 0, 0, 16 },
	/* n64 -mlong-calls: the HI16 is on the second lui */
	{ "mips64el", { 0x3c030000, 0x3c010000, 0x64630000, 0x64210000,
			0x0003183c, 0x0061182d, 0x03e00825, 0x0060f809,
			0x00000000 }, 9, R_HI16, 1, 0, 32 },
	/* n64 PIC: ld t9,%call16(_mcount)(gp); jalr t9 */
	{ "mips64", { 0x03e00825, 0xdf990000, 0x0320f809, 0x00000000 }, 4,
	  R_CALL16, 1, 1, 8 },
	/* n32 PIC: lw t9 instead of ld */
	{ "mipsn32el", { 0x03e00825, 0x8f990000, 0x0320f809, 0x00000000 },
	  4, R_CALL16, 1, 1, 8 },
	/* n32 -mlong-calls: addiu rather than daddiu */
	{ "mipsn32", { 0x3c030000, 0x24630000, 0x03e00825, 0x0060f809,
		       0x00000000 }, 5, R_HI16, 0, 0, 16 },
};

#define N_SEQS (int)(sizeof(seqs) / sizeof(seqs[0]))

/* Loop index: sequence * 2 + (0 = its arch's own order, 1 = other). */
START_TEST(form_matches)
{
	const struct seq *q = &seqs[_i / 2];
	const struct mc_arch *a = arch(q->arch);
	char other[32];
	uint8_t code[64];

	if (_i % 2) {	/* the same words in the other byte order */
		snprintf(other, sizeof(other), "%s", q->arch);
		size_t l = strlen(other);
		if (l > 2 && strcmp(other + l - 2, "el") == 0)
			other[l - 2] = 0;
		else
			snprintf(other + l, sizeof(other) - l, "el");
		a = arch(other);
	}
	size_t n = put_words(code, q->words, q->n,
			     a->endian == MC_BIG_ENDIAN);
	const struct mc_object_form *f =
		mc_match_form(a, q->type, code, n, 4 * q->reloc_word);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq((int)(4 * q->reloc_word) - f->field_offset,
			 (int)(4 * q->site_word));
	if (q->nop_len == 0) {
		ck_assert_ptr_null(f->nop);
		return;
	}
	ck_assert_ptr_nonnull(f->nop);
	ck_assert_uint_eq(f->len, q->nop_len);
	for (unsigned i = 0; i < f->len; i++)
		ck_assert_uint_eq(f->nop[i], 0);	/* nop = 0x00000000 */
}
END_TEST

/* The wrong byte order, or another register, is not a hook. */
START_TEST(form_rejects)
{
	static const uint32_t jal_le_as_be[] = { 0x0000000c };
	static const uint32_t lui_v0[] = { 0x3c020000, 0x24420000,
					   0x03e00825, 0x0040f809,
					   0x27bdfff8 };
	static const uint32_t lw_t8[] = { 0x27bdfff8, 0x8f980000,
					  0x0300f809 };
	uint8_t code[64];
	size_t n;

	n = put_words(code, jal_le_as_be, 1, true);
	ck_assert_ptr_null(mc_match_form(arch("mips"), R_26, code, n, 0));
	n = put_words(code, lui_v0, 5, true);
	ck_assert_ptr_null(mc_match_form(arch("mips"), R_HI16, code, n, 0));
	n = put_words(code, lw_t8, 3, false);
	ck_assert_ptr_null(mc_match_form(arch("mipsel"), R_CALL16, code, n,
					 4));
	/* A sequence cut short by the end of the section. */
	n = put_words(code, seqs[2].words, 4, true);
	ck_assert_ptr_null(mc_match_form(arch("mips"), R_HI16, code, n, 0));
	/* A lone %hi(_mcount): a reference, not a call. */
	n = put_words(code, (const uint32_t[]){ 0x3c020000, 0 }, 2, true);
	ck_assert_ptr_null(mc_match_form(arch("mips64"), R_HI16, code, n, 0));
}
END_TEST

/* ---- linked code ------------------------------------------------- */

START_TEST(decode_calls)
{
	uint8_t code[8];

	/* jal 0x400100 at 0x400000: index 0x100040 */
	put_words(code, (const uint32_t[]){ 0x0c100040 }, 1, true);
	struct mc_site s = mc_decode_site(arch("mips"), code, 4, 0x400000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, 0x400100);
	/* 64-bit: the region comes from the delay slot's address */
	put_words(code, (const uint32_t[]){ 0x0c100040 }, 1, false);
	s = mc_decode_site(arch("mips64el"), code, 4, 0x120000000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x120400100);
	/* bal -1 word: back to itself, from the delay slot */
	put_words(code, (const uint32_t[]){ 0x0411ffff }, 1, true);
	s = mc_decode_site(arch("mips"), code, 4, 0x400004);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x400004);
}
END_TEST

START_TEST(decode_others)
{
	uint8_t code[8] = { 0 };

	struct mc_site s = mc_decode_site(arch("mipsel"), code, 4, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_ptr_nonnull(mc_site_neutral(arch("mipsel"), &s));
	put_words(code, (const uint32_t[]){ 0x3c030040 }, 1, true);
	s = mc_decode_site(arch("mips"), code, 4, 0x1000);	/* lui: no */
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
	ck_assert_ptr_null(mc_site_neutral(arch("mips"), &s));
	s = mc_decode_site(arch("mips"), code, 3, 0x1000); /* too short */
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
}
END_TEST

/* ---- calls through the GOT (got_call) ----------------------------- */

/* Linked code for got_call: words at `base`, in one byte order. */
struct code_image {
	uint8_t bytes[64 * 4];
	size_t n;
	uint64_t base;
};

static const uint8_t *code_at(void *ctx, uint64_t addr, size_t n)
{
	const struct code_image *c = ctx;

	return addr >= c->base && addr - c->base + n <= c->n ?
		c->bytes + (addr - c->base) : NULL;
}

static struct mc_image load_code(struct code_image *c, uint64_t base,
				 const uint32_t *w, size_t n, bool big)
{
	c->base = base;
	c->n = put_words(c->bytes, w, n, big);
	return (struct mc_image){ code_at, c };
}

/*
 * GCC 12's o32 PIC -pg prologue of twice() in a shared object, at 0x350
 * (mips-linux-gnu-objdump -d): readelf -A gives that image's canonical
 * gp as 0x18500 and _mcount's global GOT entry as 0x10518, -32744(gp).
 */
static const uint32_t gcc_o32[] = {
	0x3c1c0002,	/* lui gp,0x2 */
	0x279c81b0,	/* addiu gp,gp,-32336 */
	0x0399e021,	/* addu gp,gp,t9 */
	0x27bdfff8,	/* addiu sp,sp,-8 */
	0xafbc0000,	/* sw gp,0(sp) */
	0x03e00825,	/* move at,ra */
	0x27bdfff8,	/* addiu sp,sp,-8 */
	0x8f998018,	/* lw t9,-32744(gp) */
	0x0320f809,	/* jalr t9 */
	0x00000000,	/* nop */
};

START_TEST(got_call_gp)
{
	const struct mc_arch *a = arch("mips");
	struct code_image c;
	struct mc_image img = load_code(&c, 0x350, gcc_o32, 10, true);
	uint64_t slot = 0, call = 0;

	/* $gp of the one GOT, as given */
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x36c, 0x18500, &slot,
				     &call), MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x10518);
	ck_assert_uint_eq(call, 0x370);
	/* none given (more GOTs): the prologue's own, from t9 = 0x350 */
	slot = call = 0;
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x36c, 0, &slot, &call),
			 MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x10518);
	ck_assert_uint_eq(call, 0x370);
	/* not at the load: the lui, the jalr, a halfword off */
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x350, 0x18500, &slot,
				     &call), MC_GOT_NONE);
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x370, 0x18500, &slot,
				     &call), MC_GOT_NONE);
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x36e, 0x18500, &slot,
				     &call), MC_GOT_NONE);
	/* little endian: the same words, the same answer */
	img = load_code(&c, 0x350, gcc_o32, 10, false);
	a = arch("mipsel");
	ck_assert_int_eq(a->got_call(a, &img, 0x350, 0x36c, 0, &slot, &call),
			 MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x10518);
}
END_TEST

START_TEST(got_call_other_base)
{
	/* clang -O0 o32: $gp built in at, at 0x300 */
	static const uint32_t w[] = {
		0x3c020002,	/* lui v0,0x2 */
		0x24428290,	/* addiu v0,v0,-32112 */
		0x00590821,	/* addu at,v0,t9 */
		0x8c398018,	/* lw t9,-32744(at) */
		0x03e00825,	/* move at,ra */
		0x27bdfff8,	/* addiu sp,sp,-8 */
		0x0320f809,	/* jalr t9 */
	};
	const struct mc_arch *a = arch("mips");
	struct code_image c;
	struct mc_image img = load_code(&c, 0x300, w, MC_COUNT(w), true);
	uint64_t slot = 0, call = 0;

	ck_assert_int_eq(a->got_call(a, &img, 0x300, 0x30c, 0x18000, &slot,
				     &call), MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x300 + 0x20000 - 32112 - 32744);
	ck_assert_uint_eq(call, 0x318);
}
END_TEST

START_TEST(got_call_unknown)
{
	/* a pointer the caller passed: no GOT; after a branch: unknown */
	static const uint32_t w[] = {
		0x8c990008,	/* lw t9,8(a0) */
		0x0320f809,	/* jalr t9 */
		0x00000000,	/* nop */
		0x3c020002,	/* lui v0,0x2 */
		0x10800002,	/* beqz a0,. + 12 */
		0x00590821,	/* addu at,v0,t9 (delay slot) */
		0x8c398018,	/* lw t9,-32744(at) */
		0x0320f809,	/* jalr t9 */
		0x00000000,	/* nop */
		0x8f998018,	/* lw t9,-32744(gp) */
		0x3c190001,	/* lui t9,0x1: t9 is not the load's */
		0x0320f809,	/* jalr t9 */
		0x8f998018,	/* lw t9,-32744(gp) */
		0x00000000,	/* nop */
		0x00000000,	/* nop */
		0x00000000,	/* nop */
		0x0320f809,	/* jalr t9: too far */
		0x8f998018,	/* lw t9,-32744(gp) */
		0x0320f809,	/* jalr t9 */
	};
	const struct mc_arch *a = arch("mips");
	struct code_image c;
	struct mc_image img = load_code(&c, 0x1000, w, MC_COUNT(w), true);
	uint64_t slot, call;

	ck_assert_int_eq(a->got_call(a, &img, 0x1000, 0x1000, 0x9000, &slot,
				     &call), MC_GOT_NONE);
	ck_assert_int_eq(a->got_call(a, &img, 0x1000, 0x1018, 0x9000, &slot,
				     &call), MC_GOT_UNKNOWN);
	ck_assert_uint_eq(call, 0x101c);
	/* $gp in a function that sets none, and no primary $gp given */
	ck_assert_int_eq(a->got_call(a, &img, 0x1044, 0x1044, 0, &slot,
				     &call), MC_GOT_UNKNOWN);
	ck_assert_uint_eq(call, 0x1048);
	ck_assert_int_eq(a->got_call(a, &img, 0x1044, 0x1044, 0x9000, &slot,
				     &call), MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x9000 - 32744);
	/* a jalr the load does not feed, or none near */
	ck_assert_int_eq(a->got_call(a, &img, 0x1000, 0x1024, 0x9000, &slot,
				     &call), MC_GOT_NONE);
	ck_assert_int_eq(a->got_call(a, &img, 0x1000, 0x1030, 0x9000, &slot,
				     &call), MC_GOT_NONE);
}
END_TEST

START_TEST(got_call_n64)
{
	/* GCC 12's n64 prologue: ld, not lw; daddu/daddiu */
	static const uint32_t w[] = {
		0x67bdfff0,	/* daddiu sp,sp,-16 */
		0xffbc0008,	/* sd gp,8(sp) */
		0x3c1c0002,	/* lui gp,0x2 */
		0x0399e02d,	/* daddu gp,gp,t9 */
		0x679c81a0,	/* daddiu gp,gp,-32352 */
		0x03e00825,	/* move at,ra */
		0xdf998020,	/* ld t9,-32736(gp) */
		0x0320f809,	/* jalr t9 */
		0x8f998020,	/* lw t9,-32736(gp): not n64's load */
		0x0320f809,	/* jalr t9 */
	};
	const struct mc_arch *a = arch("mips64el");
	struct code_image c;
	struct mc_image img = load_code(&c, 0x1200004e0, w, MC_COUNT(w),
					false);
	uint64_t slot = 0, call = 0;

	ck_assert_int_eq(a->got_call(a, &img, 0x1200004e0, 0x1200004f8, 0,
				     &slot, &call), MC_GOT_SLOT);
	ck_assert_uint_eq(slot, 0x1200004e0 + 0x20000 - 32352 - 32736);
	ck_assert_uint_eq(call, 0x1200004fc);
	ck_assert_int_eq(a->got_call(a, &img, 0x1200004e0, 0x120000500,
				     0x120018000, &slot, &call), MC_GOT_NONE);
}
END_TEST

START_TEST(la25_stub)
{
	/* ld's .pic._mcount at 0x400150, as mips-linux-gnu-objdump -d
	   showed it in a -mno-abicalls -static link: on to 0x4002b0 */
	static const uint32_t jump[] = {
		0x3c190040,	/* lui t9,0x40 */
		0x081000ac,	/* j 0x4002b0 */
		0x273902b0,	/* addiu t9,t9,688 */
	};
	static const uint32_t fall[] = {
		0x3c190040,	/* lui t9,0x40 */
		0x27390158,	/* addiu t9,t9,0x158: the next word's */
		0x00000000,	/* (the function's first word) */
	};
	static const uint32_t wrong_t9[] = {
		0x3c190040,	/* lui t9,0x40 */
		0x081000ac,	/* j 0x4002b0 */
		0x273902b4,	/* addiu t9,t9,692: not the target */
	};
	const struct mc_arch *a = arch("mips");
	uint8_t code[12];

	put_words(code, jump, 3, true);
	ck_assert_uint_eq(a->call_stub(a, code, 12, 0x400150), 0x4002b0);
	ck_assert_uint_eq(a->call_stub(a, code, 11, 0x400150), 0);
	put_words(code, jump, 3, false);
	ck_assert_uint_eq(arch("mipsel")->call_stub(arch("mipsel"), code, 12,
						    0x400150), 0x4002b0);
	put_words(code, fall, 3, true);
	ck_assert_uint_eq(a->call_stub(a, code, 12, 0x400150), 0x400158);
	ck_assert_uint_eq(a->call_stub(a, code, 12, 0x400154), 0);
	put_words(code, wrong_t9, 3, true);
	ck_assert_uint_eq(a->call_stub(a, code, 12, 0x400150), 0);
	put_words(code, gcc_o32, 3, true);		/* a prologue */
	ck_assert_uint_eq(a->call_stub(a, code, 12, 0x350), 0);
}
END_TEST

START_TEST(plt_entry)
{
	/* GNU ld's _mcount@plt at 0x4009e0 of a -mno-abicalls -no-pie
	   link (mips-linux-gnu-objdump -d); readelf -r: R_MIPS_JUMP_SLOT
	   _mcount at 0x410a00 */
	static const uint32_t entry[] = {
		0x3c0f0041,	/* lui t7,0x41 */
		0x8df90a00,	/* lw t9,2560(t7) */
		0x03200008,	/* jr t9 */
		0x25f80a00,	/* addiu t8,t7,2560 */
	};
	static const uint32_t header[] = {	/* the PLT's first words */
		0x3c1c0041,	/* lui gp,0x41 */
		0x8f9909f8,	/* lw t9,2552(gp) */
		0x279c09f8,	/* addiu gp,gp,2552 */
		0x031cc023,	/* subu t8,t8,gp */
	};
	static const uint32_t mixed[] = {
		0x3c0f0041,	/* lui t7,0x41 */
		0x8df90a00,	/* lw t9,2560(t7) */
		0x03200008,	/* jr t9 */
		0x25f80a04,	/* addiu t8,t7,2564: another slot */
	};
	uint8_t code[16];

	for (int big = 0; big < 2; big++) {
		const struct mc_arch *a = arch(big ? "mips" : "mipsel");

		put_words(code, entry, 4, big);
		ck_assert_uint_eq(mc_plt_slot(a, code, 16, 0x4009e0, 0),
				  0x410a00);
		ck_assert_uint_eq(mc_plt_slot(a, code, 15, 0x4009e0, 0), 0);
		put_words(code, header, 4, big);
		ck_assert_uint_eq(mc_plt_slot(a, code, 16, 0x4009c0, 0), 0);
		put_words(code, mixed, 4, big);
		ck_assert_uint_eq(mc_plt_slot(a, code, 16, 0x4009e0, 0), 0);
	}
}
END_TEST

START_TEST(got_layout_facts)
{
	/* the MIPS psABI's dynamic tags, as <elf.h> spells them */
	for (const char *const *n = (const char *const[]){
		"mips", "mipsel", "mipsn32", "mipsn32el", "mips64",
		"mips64el", NULL }; *n; n++) {
		const struct mc_got_layout *l = arch(*n)->got_layout;

		ck_assert_ptr_nonnull(l);
		ck_assert_ptr_nonnull(arch(*n)->got_call);
		ck_assert_int_eq(l->local_gotno_tag, DT_MIPS_LOCAL_GOTNO);
		ck_assert_int_eq(l->gotsym_tag, DT_MIPS_GOTSYM);
		ck_assert_int_eq(l->symtabno_tag, DT_MIPS_SYMTABNO);
		ck_assert_uint_eq(l->gp_bias, 0x7ff0);
	}
	ck_assert_ptr_null(arch("x86_64")->got_layout);
}
END_TEST

START_TEST(encode_nop)
{
	uint8_t buf[40];
	const struct mc_arch *a = arch("mips64");

	for (unsigned len = 4; len <= 32; len += 4) {
		memset(buf, 0xaa, sizeof(buf));
		ck_assert(mc_encode_nop(a, buf, len));
		for (unsigned i = 0; i < len; i++)
			ck_assert_uint_eq(buf[i], 0);
		ck_assert_uint_eq(buf[len], 0xaa);
	}
	ck_assert(!mc_encode_nop(a, buf, 0));
	ck_assert(!mc_encode_nop(a, buf, 6));
	ck_assert(!mc_encode_nop(a, buf, 36));
}
END_TEST

/* Loop index: 0 mips (BE), 1 mipsel, 2 mips64, 3 mips64el. */
START_TEST(encode_call_roundtrip)
{
	static const char *const names[] = { "mips", "mipsel", "mips64",
					     "mips64el" };
	const struct mc_arch *a = arch(names[_i]);
	uint64_t site = _i < 2 ? 0x400010 : 0x120000010;
	uint64_t target = site - 0x10 + 0x2345670;
	uint8_t buf[8];

	ck_assert(mc_encode_call(a, buf, 4, site, target));
	struct mc_site s = mc_decode_site(a, buf, 4, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, target);
	ck_assert(mc_encode_call(a, buf, 8, site, target));
	ck_assert_int_eq(mc_decode_site(a, buf + 4, 4, site + 4).kind,
			 MC_SITE_NOP);
	ck_assert(!mc_encode_call(a, buf, 4, site, target + 2)); /* align */
	ck_assert(!mc_encode_call(a, buf, 4, site, site + 0x10000000));
	ck_assert(!mc_encode_call(a, buf, 12, site, target));
}
END_TEST

/* mips-linux-gnu-objdump reads our jal as a jal to the target. */
START_TEST(encode_call_objdump)
{
	char out[4][DISASM_LINE];
	uint8_t buf[4];
	bool seen = false;
	int n;

	if (system("command -v mips-linux-gnu-objdump >/dev/null 2>&1")) {
		fprintf(stderr, "mips-linux-gnu-objdump missing: skipped\n");
		return;
	}
	ck_assert(mc_encode_call(arch("mips"), buf, 4, 0x400000, 0x4a0b0c));
	n = disasm("mips-linux-gnu-objdump -m mips:isa64 -EB", buf, 4,
		   0x400000, out, 4);
	for (int i = 0; i < n && i < 4; i++)
		if (strstr(out[i], "400000:") &&
		    strstr(out[i], "jal\t0x4a0b0c"))
			seen = true;
	ck_assert(seen);
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle mips_relocs[] = {
	RELOC(R_MIPS_NONE), RELOC(R_MIPS_32), RELOC(R_MIPS_REL32),
	RELOC(R_MIPS_26), RELOC(R_MIPS_HI16), RELOC(R_MIPS_LO16),
	RELOC(R_MIPS_GOT16), RELOC(R_MIPS_CALL16), RELOC(R_MIPS_64),
	RELOC(R_MIPS_GOT_DISP), RELOC(R_MIPS_HIGHER), RELOC(R_MIPS_HIGHEST),
	RELOC(R_MIPS_CALL_HI16), RELOC(R_MIPS_CALL_LO16), RELOC(R_MIPS_JALR),
	RELOC(R_MIPS_JUMP_SLOT),
};

START_TEST(mips_reloc_names)
{
	assert_reloc_names(arch("mips"), mips_relocs, MC_COUNT(mips_relocs));
	assert_reloc_names(arch("mipsel"), mips_relocs, MC_COUNT(mips_relocs));
	assert_reloc_names(arch("mipsn32"), mips_relocs, MC_COUNT(mips_relocs));
	assert_reloc_names(arch("mipsn32el"), mips_relocs, MC_COUNT(mips_relocs));
	assert_reloc_names(arch("mips64"), mips_relocs, MC_COUNT(mips_relocs));
	assert_reloc_names(arch("mips64el"), mips_relocs, MC_COUNT(mips_relocs));
}
END_TEST

static Suite *mips_suite(void)
{
	Suite *s = suite_create("arch_mips");
	TCase *tc;

	tc = tcase_create("registry");
	tcase_add_test(tc, find_by_abi);
	tcase_add_test(tc, mips_reloc_names);
	tcase_add_test(tc, table_facts);
	tcase_add_test(tc, companions);
	suite_add_tcase(s, tc);

	tc = tcase_create("forms");
	tcase_add_loop_test(tc, form_matches, 0, 2 * N_SEQS);
	tcase_add_test(tc, form_rejects);
	suite_add_tcase(s, tc);

	tc = tcase_create("linked");
	tcase_add_test(tc, decode_calls);
	tcase_add_test(tc, decode_others);
	tcase_add_test(tc, encode_nop);
	tcase_add_loop_test(tc, encode_call_roundtrip, 0, 4);
	tcase_add_test(tc, encode_call_objdump);
	tcase_add_test(tc, got_call_gp);
	tcase_add_test(tc, got_call_other_base);
	tcase_add_test(tc, got_call_unknown);
	tcase_add_test(tc, got_call_n64);
	tcase_add_test(tc, got_layout_facts);
	tcase_add_test(tc, la25_stub);
	tcase_add_test(tc, plt_entry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(mips_suite());
}
