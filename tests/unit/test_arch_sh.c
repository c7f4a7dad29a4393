/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_sh.c - unit tests of arch/sh.c (SH-4, both byte orders):
 * registry, object forms, the linked-code decoder and the encoders.
 *
 * Bytes come from what sh4-linux-gnu-objdump -dr showed for GCC 12's
 * -pg output.
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_test.h"
#include "unit.h"

#define EM_SH_N 42
#define R_SH_DIR32_N 1
#define R_SH_GOT32_N 160
#define R_SH_GOTPC_N 167

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

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle sh_relocs[] = {
	RELOC(R_SH_NONE), RELOC(R_SH_DIR32), RELOC(R_SH_REL32),
	RELOC(R_SH_GOT32), RELOC(R_SH_PLT32), RELOC(R_SH_GLOB_DAT),
	RELOC(R_SH_JMP_SLOT), RELOC(R_SH_RELATIVE), RELOC(R_SH_GOTOFF),
	RELOC(R_SH_GOTPC),
};

/*
 * PIC's hook call linked into a shared object (objdump -d of the check
 * suite's prog.c and main.c, GNU ld -shared): at main+0x14 the slot's
 * offset 0x1c, then the GOT's, 0x1fd18, from the second word (0x2fc):
 * a call through 0x2fc + 0x1fd18 + 0x1c = 0x20030, where readelf -r
 * shows mcount's R_SH_GLOB_DAT.  Without the lds.l after the pair, or
 * cut short, no site.
 */
START_TEST(sh_pic_got_call)
{
	const struct mc_arch *a = arch("sh");
	static const uint8_t pic[] = {
		0x1c, 0x00, 0x00, 0x00,		/* .long slot - GOT */
		0x18, 0xfd, 0x01, 0x00,		/* .long GOT - 0x2fc */
		0x26, 0x4f,			/* lds.l @r15+,pr */
	};
	uint8_t bad[sizeof(pic)];
	struct mc_site s = mc_decode_site(a, pic, 10, 0x2f8);

	ck_assert_int_eq(s.kind, MC_SITE_CALL_INDIRECT);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, 0x20030);
	ck_assert_int_eq(mc_decode_site(a, pic, 9, 0x2f8).kind,
			 MC_SITE_UNKNOWN);
	memcpy(bad, pic, sizeof(pic));
	bad[8] = 0x09;				/* nop */
	bad[9] = 0x00;
	ck_assert_int_eq(mc_decode_site(a, bad, 10, 0x2f8).kind,
			 MC_SITE_UNKNOWN);
}
END_TEST

/*
 * PLT entries as GNU ld linked them (objdump -d): the slot mc_plt_slot
 * finds is the one readelf -r shows the callee's R_SH_JMP_SLOT at.
 * PIC (a -shared link, .got at 0x20014): strong_or_weak@plt at 0x274,
 * slot 0x20020.  Non-PIC (a -no-pie program against libhooks.so):
 * mcount@plt at 0x40021c, slot 0x420020.
 */
START_TEST(sh_plt_entry)
{
	const struct mc_arch *a = arch("sh");
	static const uint8_t pic[] = {
		0x04, 0xd0,			/* mov.l 0x288,r0 */
		0xce, 0x00,			/* mov.l @(r0,r12),r0 */
		0x2b, 0x40,			/* jmp @r0 */
		0x09, 0x00,			/* nop */
		0xc2, 0x50, 0x03, 0xd1, 0x2b, 0x40, 0xc1, 0x50,
		0x09, 0x00, 0x09, 0x00,
		0x0c, 0x00, 0x00, 0x00,		/* .long 0xc */
		0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t nonpic[] = {
		0x04, 0xd0,			/* mov.l 0x400230,r0 */
		0x02, 0x60,			/* mov.l @r0,r0 */
		0x02, 0xd1,			/* mov.l 0x40022c,r1 */
		0x2b, 0x40,			/* jmp @r0 */
		0x13, 0x60, 0x03, 0xd1, 0x2b, 0x40, 0x09, 0x00,
		0x00, 0x02, 0x40, 0x00,		/* .long 0x400200 */
		0x20, 0x00, 0x42, 0x00,		/* .long 0x420020 */
		0x00, 0x00, 0x00, 0x00,
	};

	ck_assert_uint_eq(mc_plt_slot(a, pic, 28, 0x274, 0x20014), 0x20020);
	ck_assert_uint_eq(mc_plt_slot(a, pic, 28, 0x274, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, pic, 23, 0x274, 0x20014), 0);
	ck_assert_uint_eq(mc_plt_slot(a, pic + 2, 26, 0x276, 0x20014), 0);
	ck_assert_uint_eq(mc_plt_slot(a, nonpic, 28, 0x40021c, 0), 0x420020);
	ck_assert_uint_eq(mc_plt_slot(a, nonpic, 23, 0x40021c, 0), 0);
}
END_TEST

START_TEST(sh_reloc_names)
{
	assert_reloc_names(arch("sh"), sh_relocs, MC_COUNT(sh_relocs));
	assert_reloc_names(arch("sheb"), sh_relocs, MC_COUNT(sh_relocs));
}
END_TEST

static Suite *sh_suite(void)
{
	Suite *s = suite_create("arch_sh");
	TCase *tc;

	tc = tcase_create("sh");
	tcase_add_test(tc, sh_registry);
	tcase_add_test(tc, sh_reloc_names);
	tcase_add_test(tc, sh_forms);
	tcase_add_test(tc, sh_decode_encode);
	tcase_add_test(tc, sh_pic_got_call);
	tcase_add_test(tc, sh_plt_entry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sh_suite());
}
