/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_sparc_sh.c - unit tests of arch/sparc.c (sparc64) and
 * arch/sh.c (SH-4, both byte orders): registry, object forms, the
 * linked-code decoders and the encoders.
 *
 * Bytes come from the SPARC V9 manual and from what sparc64- and
 * sh4-linux-gnu-objdump -dr showed for GCC 12's -pg output; the sparc
 * call encoder is also checked against sparc64-linux-gnu-objdump.
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_test.h"
#include "disasm.h"
#include "unit.h"

#define EM_SPARCV9_N 43
#define EM_SH_N 42
#define R_SPARC_WDISP30_N 7
#define R_SPARC_WPLT30_N 18
#define R_SPARC_32_N 3
#define R_SH_DIR32_N 1
#define R_SH_GOT32_N 160
#define R_SH_GOTPC_N 167

/* ---- sparc64 ----------------------------------------------------- */

START_TEST(sparc_registry)
{
	const struct mc_arch *a = mc_arch_find(EM_SPARCV9_N, 64,
					       MC_BIG_ENDIAN, 2);

	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->name, "sparc64");
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, 32);		/* R_SPARC_64 */
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(mc_is_hook_symbol(a, "_mcount"));
}
END_TEST

START_TEST(sparc_forms)
{
	/* save %sp,-176,%sp; call _mcount; add %i0,%i0,%i0 (delay slot) */
	static const uint8_t code[] = {
		0x9d, 0xe3, 0xbf, 0x50, 0x40, 0x00, 0x00, 0x00,
		0xb0, 0x06, 0x00, 0x18,
	};
	static const uint8_t nop[] = { 0x01, 0x00, 0x00, 0x00 };
	const struct mc_arch *a = arch("sparc64");

	for (int i = 0; i < 2; i++) {
		const struct mc_object_form *f = mc_match_form(
			a, i ? R_SPARC_WPLT30_N : R_SPARC_WDISP30_N, code,
			sizeof(code), 4);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(f->field_offset, 0);
		ck_assert_uint_eq(f->len, 4);		/* not the delay slot */
		ck_assert(memcmp(f->nop, nop, 4) == 0);
	}
	/* the save is no call, nor is a 32-bit data reference */
	ck_assert_ptr_null(mc_match_form(a, R_SPARC_WDISP30_N, code,
					 sizeof(code), 0));
	ck_assert_ptr_null(mc_match_form(a, R_SPARC_32_N, code,
					 sizeof(code), 4));
}
END_TEST

START_TEST(sparc_decode_encode)
{
	const struct mc_arch *a = arch("sparc64");
	uint8_t buf[8];

	ck_assert(mc_encode_call(a, buf, 4, 0x100100, 0x100000)); /* back */
	struct mc_site s = mc_decode_site(a, buf, 4, 0x100100);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x100000);
	ck_assert(mc_encode_call(a, buf, 4, 0x100000, 0x7f000000));
	s = mc_decode_site(a, buf, 4, 0x100000);
	ck_assert_uint_eq(s.target, 0x7f000000);
	ck_assert(!mc_encode_call(a, buf, 4, 0x100000, 0x100002));
	ck_assert(!mc_encode_call(a, buf, 4, 0, 0x100000000ull));
	ck_assert(!mc_encode_call(a, buf, 8, 0, 0x1000));

	ck_assert(mc_encode_nop(a, buf, 8));
	s = mc_decode_site(a, buf, 8, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert(memcmp(mc_site_neutral(a, &s), buf, 4) == 0);
	ck_assert(!mc_encode_nop(a, buf, 2));
	buf[0] = 0x9d;		/* save: unknown */
	ck_assert_int_eq(mc_decode_site(a, buf, 4, 0).kind, MC_SITE_UNKNOWN);
}
END_TEST

START_TEST(sparc_call_objdump)
{
	char out[4][DISASM_LINE];
	uint8_t buf[4];
	bool seen = false;
	int n;

	if (system("command -v sparc64-linux-gnu-objdump >/dev/null 2>&1")) {
		fprintf(stderr, "sparc64-linux-gnu-objdump missing: skipped\n");
		return;
	}
	ck_assert(mc_encode_call(arch("sparc64"), buf, 4, 0x102000, 0x100010));
	n = disasm("sparc64-linux-gnu-objdump -m sparc:v9 -EB", buf, 4,
		   0x102000, out, 4);
	for (int i = 0; i < n && i < 4; i++)
		if (strstr(out[i], "102000:") && strstr(out[i], "call") &&
		    strstr(out[i], "0x100010"))
			seen = true;
	ck_assert(seen);
}
END_TEST

/* ---- SH ---------------------------------------------------------- */

START_TEST(sh_registry)
{
	const struct mc_arch *le = mc_arch_find(EM_SH_N, 32,
						MC_LITTLE_ENDIAN, 2);
	const struct mc_arch *be = mc_arch_find(EM_SH_N, 32, MC_BIG_ENDIAN,
						2);

	ck_assert_ptr_nonnull(le);
	ck_assert_ptr_nonnull(be);
	ck_assert_str_eq(le->name, "sh");
	ck_assert_str_eq(be->name, "sheb");
	ck_assert(le->table_uses_rela && le->table_addend_in_place);
	ck_assert_uint_eq(le->table_reloc, R_SH_DIR32_N);
	ck_assert(mc_is_hook_symbol(le, "mcount"));
	ck_assert(!mc_is_hook_symbol(le, "_mcount"));
}
END_TEST

/*
 * mov.l 1f,r1; sts.l pr,@-r15; mova 2f,r0; jmp @r1; lds r0,pr; nop;
 * 1: .long mcount; 2: lds.l @r15+,pr, little-endian.
 */
static const uint8_t sh_seq_le[] = {
	0x02, 0xd1, 0x22, 0x4f, 0x02, 0xc7, 0x2b, 0x41, 0x2a, 0x40,
	0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26, 0x4f,
};

static void swap16(const uint8_t *in, uint8_t *out, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2) {
		out[i] = in[i + 1];
		out[i + 1] = in[i];
	}
}

START_TEST(sh_forms)
{
	uint8_t be[sizeof(sh_seq_le)];
	const struct mc_object_form *f;

	/* The site is the pool word the relocation is on; no NOP. */
	f = mc_match_form(arch("sh"), R_SH_DIR32_N, sh_seq_le,
			  sizeof(sh_seq_le), 12);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->field_offset, 0);
	ck_assert_ptr_null(f->nop);
	/* Big-endian: the same halfwords swapped (the zero word too). */
	swap16(sh_seq_le, be, sizeof(be));
	ck_assert_ptr_nonnull(mc_match_form(arch("sheb"), R_SH_DIR32_N, be,
					    sizeof(be), 12));
	ck_assert_ptr_null(mc_match_form(arch("sh"), R_SH_DIR32_N, be,
					 sizeof(be), 12));
	/* A pool word with no lds.l after it is data, not the hook. */
	ck_assert_ptr_null(mc_match_form(arch("sh"), R_SH_DIR32_N, sh_seq_le,
					 sizeof(sh_seq_le), 8));
	/* PIC: GOT32 word, GOTPC word, lds.l. */
	static const uint8_t pic[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x26, 0x4f };
	f = mc_match_form(arch("sh"), R_SH_GOT32_N, pic, sizeof(pic), 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(mc_match_form(arch("sh"), R_SH_GOTPC_N, pic,
					 sizeof(pic), 4));
}
END_TEST

START_TEST(sh_decode_encode)
{
	const struct mc_arch *a = arch("sh");
	uint8_t word[6] = { 0, 0, 0, 0, 0x26, 0x4f };

	/* The word holds mcount's address: a call there. */
	ck_assert(mc_encode_call(a, word, 4, 0x40010c, 0x400104));
	struct mc_site s = mc_decode_site(a, word, 6, 0x40010c);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x400104);
	/* Its own address + 4: the kernel's disabled state. */
	ck_assert(mc_encode_call(a, word, 4, 0x40010c, 0x400110));
	ck_assert_int_eq(mc_decode_site(a, word, 6, 0x40010c).kind,
			 MC_SITE_NOP);
	/* Not followed by lds.l, unaligned, or too short: unknown. */
	ck_assert_int_eq(mc_decode_site(a, word, 6, 0x40010e).kind,
			 MC_SITE_UNKNOWN);
	ck_assert_int_eq(mc_decode_site(a, word, 4, 0x40010c).kind,
			 MC_SITE_UNKNOWN);
	word[4] = 0x09;
	ck_assert_int_eq(mc_decode_site(a, word, 6, 0x40010c).kind,
			 MC_SITE_UNKNOWN);
	/* No address-free NOP exists. */
	ck_assert(!mc_encode_nop(a, word, 4));
	ck_assert(!mc_encode_call(a, word, 4, 0x40010e, 0x400104));
	/* Big-endian words. */
	uint8_t be[6] = { 0, 0, 0, 0, 0x4f, 0x26 };
	ck_assert(mc_encode_call(arch("sheb"), be, 4, 0x1000, 0x12345678));
	ck_assert_uint_eq(be[0], 0x12);
	ck_assert_uint_eq(mc_decode_site(arch("sheb"), be, 6, 0x1000).target,
			  0x12345678);
}
END_TEST

static Suite *sparc_sh_suite(void)
{
	Suite *s = suite_create("arch_sparc_sh");
	TCase *tc;

	tc = tcase_create("sparc64");
	tcase_add_test(tc, sparc_registry);
	tcase_add_test(tc, sparc_forms);
	tcase_add_test(tc, sparc_decode_encode);
	tcase_add_test(tc, sparc_call_objdump);
	suite_add_tcase(s, tc);

	tc = tcase_create("sh");
	tcase_add_test(tc, sh_registry);
	tcase_add_test(tc, sh_forms);
	tcase_add_test(tc, sh_decode_encode);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sparc_sh_suite());
}
