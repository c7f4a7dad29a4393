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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(mips_suite());
}
