/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_sparc.c - unit tests of arch/sparc.c (sparc64): registry,
 * object forms, the linked-code decoder and the encoders.
 *
 * Bytes come from the SPARC V9 manual and from what
 * sparc64-linux-gnu-objdump -dr showed for GCC 12's -pg output; the
 * call encoder is also checked against sparc64-linux-gnu-objdump.
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

#define EM_SPARCV9_N 43
#define R_SPARC_WDISP30_N 7
#define R_SPARC_WPLT30_N 18
#define R_SPARC_32_N 3

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

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle sparc_relocs[] = {
	RELOC(R_SPARC_NONE), RELOC(R_SPARC_32), RELOC(R_SPARC_WDISP30),
	RELOC(R_SPARC_HI22), RELOC(R_SPARC_LO10), RELOC(R_SPARC_WPLT30),
	RELOC(R_SPARC_GLOB_DAT), RELOC(R_SPARC_JMP_SLOT),
	RELOC(R_SPARC_RELATIVE), RELOC(R_SPARC_64), RELOC(R_SPARC_HH22),
	RELOC(R_SPARC_HM10), RELOC(R_SPARC_UA64),
	RELOC(R_SPARC_GOTDATA_HIX22), RELOC(R_SPARC_GOTDATA_LOX10),
	RELOC(R_SPARC_GOTDATA_OP_HIX22), RELOC(R_SPARC_GOTDATA_OP_LOX10),
	RELOC(R_SPARC_GOTDATA_OP),
};

START_TEST(sparc_reloc_names)
{
	assert_reloc_names(arch("sparc64"), sparc_relocs, MC_COUNT(sparc_relocs));
}
END_TEST

/*
 * A PLT entry as GNU ld linked it (objdump -d of a -shared link, .plt at
 * 0x200100 per readelf -S): the slot mc_plt_slot finds is the one
 * readelf -r shows the hook's R_SPARC_JMP_SLOT relocation at, the
 * entry itself; from another base, cut short, or mid-entry, none.
 */
START_TEST(sparc_plt_entry)
{
	const struct mc_arch *a = arch("sparc64");
	static const uint8_t entry[] = {
		0x03, 0x00, 0x01, 0x00,		/* sethi %hi(0x40000),%g1 */
		0x30, 0x6f, 0xff, 0xc7,		/* b,a %xcc, 0x200120 */
		0x01, 0x00, 0x00, 0x00,		/* nop */
	};
	/* the entry before it, sum@plt at 0x2001a0 (JMP_SLOT 0x2001a0) */
	static const uint8_t sum[] = {
		0x03, 0x00, 0x00, 0xa0,		/* sethi %hi(0x28000),%g1 */
		0x30, 0x6f, 0xff, 0xdf,		/* b,a %xcc, 0x200120 */
	};

	ck_assert_uint_eq(mc_plt_slot(a, entry, 12, 0x200200, 0x200100),
			  0x200200);
	ck_assert_uint_eq(mc_plt_slot(a, sum, 8, 0x2001a0, 0x200100),
			  0x2001a0);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 7, 0x200200, 0x200100), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 12, 0x200200, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 12, 0x200200, 0x200120), 0);
	ck_assert_uint_eq(mc_plt_slot(a, sum, 8, 0x200200, 0x200100), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry + 4, 8, 0x200204, 0x200100),
			  0);
}
END_TEST

static Suite *sparc_suite(void)
{
	Suite *s = suite_create("arch_sparc");
	TCase *tc;

	tc = tcase_create("sparc64");
	tcase_add_test(tc, sparc_registry);
	tcase_add_test(tc, sparc_reloc_names);
	tcase_add_test(tc, sparc_forms);
	tcase_add_test(tc, sparc_decode_encode);
	tcase_add_test(tc, sparc_call_objdump);
	tcase_add_test(tc, sparc_plt_entry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sparc_suite());
}
