/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_aarch64.c - unit tests of arch/aarch64.c: the registry
 * entry, the object form, the linked-code decoder and the encoders.
 *
 * Expected values come from the Arm ARM's encodings, written out here;
 * the encoders are also checked against aarch64-linux-gnu-objdump, which
 * disassembles our bytes without knowing our tables.
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

#define EM_AARCH64_N 183
#define R_AARCH64_ABS64_N 257
#define R_AARCH64_JUMP26_N 282
#define R_AARCH64_CALL26_N 283
#define R_AARCH64_RELATIVE_N 1027
#define OBJDUMP "aarch64-linux-gnu-objdump -m aarch64"

static const struct mc_arch *a64(void)
{
	return arch("aarch64");
}

START_TEST(registry)
{
	const struct mc_arch *a = mc_arch_find(EM_AARCH64_N, 64,
					       MC_LITTLE_ENDIAN, 0);

	ck_assert_ptr_eq(a, a64());
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_AARCH64_ABS64_N);
	ck_assert_uint_eq(a->relative_reloc, R_AARCH64_RELATIVE_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert(mc_is_hook_symbol(a, "_mcount"));
	ck_assert(!mc_is_hook_symbol(a, "__fentry__"));
	/* No big-endian or ILP32 entry. */
	ck_assert_ptr_null(mc_arch_find(EM_AARCH64_N, 64, MC_BIG_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_find(EM_AARCH64_N, 32, MC_LITTLE_ENDIAN, 0));
}
END_TEST

START_TEST(form_bl)
{
	static const uint8_t code[] = {
		0xe0, 0x03, 0x1e, 0xaa,		/* mov x0, x30 */
		0x00, 0x00, 0x00, 0x94,		/* bl _mcount */
		0x00, 0x00, 0x00, 0x14,		/* b _mcount */
	};
	const struct mc_object_form *f =
		mc_match_form(a64(), R_AARCH64_CALL26_N, code, sizeof(code), 4);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->field_offset, 0);
	ck_assert_uint_eq(f->len, 4);
	ck_assert_mem_eq(f->nop, "\x1f\x20\x03\xd5", 4);
	/* A tail call is not a hook; a bl needs CALL26. */
	ck_assert_ptr_null(mc_match_form(a64(), R_AARCH64_JUMP26_N, code,
					 sizeof(code), 8));
	ck_assert_ptr_null(mc_match_form(a64(), R_AARCH64_CALL26_N, code,
					 sizeof(code), 8));
	ck_assert_ptr_null(mc_match_form(a64(), R_AARCH64_CALL26_N, code,
					 sizeof(code), 0));
}
END_TEST

START_TEST(nop_objdump)
{
	uint8_t b[4];
	char out[2][DISASM_LINE];

	ck_assert(mc_encode_nop(a64(), b, 4));
	ck_assert(!mc_encode_nop(a64(), b, 8));
	ck_assert(!mc_encode_nop(a64(), b, 2));
	ck_assert_int_eq(disasm(OBJDUMP, b, 4, 0, out, 2), 1);
	ck_assert_str_eq(disasm_text(out[0]), "nop\n");
	struct mc_site s = mc_decode_site(a64(), b, 4, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
}
END_TEST

static const uint64_t calls[][2] = {
	{ 0x400000, 0x400400 },
	{ 0x400400, 0x400000 },
	{ 0x8000000, 0x8000000 + (128 << 20) - 4 },	/* farthest forward */
	{ 0x8000000, 0x8000000 - (128 << 20) },		/* farthest back */
	{ 0xffff800010000000ull, 0xffff800010123454ull },
};

START_TEST(call_roundtrip)
{
	uint64_t site = calls[_i][0], target = calls[_i][1];
	uint8_t b[4];
	char out[2][DISASM_LINE];

	ck_assert(mc_encode_call(a64(), b, 4, site, target));
	struct mc_site s = mc_decode_site(a64(), b, 4, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(disasm(OBJDUMP, b, 4, site, out, 2), 1);
	ck_assert(strncmp(disasm_text(out[0]), "bl\t", 3) == 0);
	ck_assert_uint_eq(disasm_last_hex(disasm_text(out[0])), target);
}
END_TEST

START_TEST(call_range)
{
	uint8_t b[4];

	ck_assert(!mc_encode_call(a64(), b, 4, 0x8000000,
				  0x8000000 + (128 << 20)));
	ck_assert(!mc_encode_call(a64(), b, 4, 0x8000000,
				  0x8000000 - (128 << 20) - 4));
	ck_assert(!mc_encode_call(a64(), b, 4, 0x8000000, 0x8000002));
	ck_assert(!mc_encode_call(a64(), b, 4, 0x8000002, 0x8000000));
	ck_assert(!mc_encode_call(a64(), b, 8, 0x8000000, 0x8000000));
}
END_TEST

START_TEST(decode_other)
{
	static const uint8_t b[] = { 0x00, 0x00, 0x00, 0x14 };	/* b . */
	static const uint8_t back[] = { 0xff, 0xff, 0xff, 0x97 };/* bl .-4 */

	ck_assert_int_eq(mc_decode_site(a64(), b, 4, 0).kind, MC_SITE_UNKNOWN);
	ck_assert_int_eq(mc_decode_site(a64(), back, 3, 0).kind,
			 MC_SITE_UNKNOWN);
	struct mc_site s = mc_decode_site(a64(), back, 4, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0xffc);
}
END_TEST

/* The runtime's neutral form of a `bl` or a `nop` site is `nop`. */
START_TEST(site_neutral)
{
	static const uint8_t bl[] = { 0x00, 0x00, 0x00, 0x94 };
	static const uint8_t nop[] = { 0x1f, 0x20, 0x03, 0xd5 };
	struct mc_site s = mc_decode_site(a64(), bl, 4, 0x1000);

	ck_assert_mem_eq(mc_site_neutral(a64(), &s), nop, 4);
	s = mc_decode_site(a64(), nop, 4, 0x1000);
	ck_assert_mem_eq(mc_site_neutral(a64(), &s), nop, 4);
	s = (struct mc_site){ MC_SITE_UNKNOWN, 4, 0 };
	ck_assert_ptr_null(mc_site_neutral(a64(), &s));
}
END_TEST

/*
 * The runtime's live forms, against bytes from aarch64-linux-gnu-as, not
 * our encoders: a `bl .+0x1000` stands for the call to the trampoline.
 */
static const uint8_t as_mov_x9[4] = { 0xe9, 0x03, 0x1e, 0xaa };	/* mov x9,x30 */
static const uint8_t as_mov_x0[4] = { 0xe0, 0x03, 0x1e, 0xaa };	/* mov x0,x30 */
static const uint8_t as_bl[4] = { 0x00, 0x04, 0x00, 0x94 };	/* bl .+0x1000 */
static const uint8_t as_nop[4] = { 0x1f, 0x20, 0x03, 0xd5 };	/* nop */

/* `a`'s live forms of `call` (len bytes) at `at`. */
static bool forms(const uint8_t *call, unsigned len, bool pad, uint64_t at,
		  uint8_t *on, uint8_t *off)
{
	memcpy(on, call, len);
	memset(off, 0xaa, len);
	return a64()->live_forms(a64(), on, off, 0, len, pad, at);
}

START_TEST(live_forms_pad)
{
	uint8_t call[8], on[8], off[8];

	ck_assert_uint_eq(a64()->live_store_max, 4);
	ck_assert_uint_eq(a64()->live_prelude, 0);
	/* the pad call is `mov x9, x30; bl`, as the assembler has it */
	ck_assert(mc_encode_pad_call(a64(), call, 8, 0x10000, 0x11004));
	ck_assert_mem_eq(call, as_mov_x9, 4);
	ck_assert_mem_eq(call + 4, as_bl, 4);
	/* the mov stays, the second word is bl <-> nop */
	ck_assert(forms(call, 8, true, 0x10000, on, off));
	ck_assert_mem_eq(on, as_mov_x9, 4);
	ck_assert_mem_eq(on + 4, as_bl, 4);
	ck_assert_mem_eq(off, as_mov_x9, 4);
	ck_assert_mem_eq(off + 4, as_nop, 4);
	/* refused: another first word, no bl, a short pad, misaligned */
	memcpy(call, as_mov_x0, 4);
	ck_assert(!forms(call, 8, true, 0x10000, on, off));
	memcpy(call, as_mov_x9, 4);
	memcpy(call + 4, as_nop, 4);
	ck_assert(!forms(call, 8, true, 0x10000, on, off));
	memcpy(call + 4, as_bl, 4);
	ck_assert(!forms(call, 4, true, 0x10000, on, off));
	ck_assert(!forms(call, 8, true, 0x10002, on, off));
}
END_TEST

START_TEST(live_forms_hook)
{
	uint8_t on[4], off[4];
	char out[2][DISASM_LINE];

	/* a hook is one bl, swapped for nop */
	ck_assert(forms(as_bl, 4, false, 0x10004, on, off));
	ck_assert_mem_eq(on, as_bl, 4);
	ck_assert_mem_eq(off, as_nop, 4);
	ck_assert_int_eq(disasm(OBJDUMP, off, 4, 0x10004, out, 2), 1);
	ck_assert_str_eq(disasm_text(out[0]), "nop\n");
	ck_assert(!forms(as_nop, 4, false, 0x10004, on, off));
	ck_assert(!forms(as_bl, 4, false, 0x10006, on, off));
	memcpy(on, as_bl, 4);
	ck_assert(!a64()->live_forms(a64(), on, off, 4, 4, false, 0x10004));
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle a64_relocs[] = {
	RELOC(R_AARCH64_NONE), RELOC(R_AARCH64_ABS64), RELOC(R_AARCH64_ABS32),
	RELOC(R_AARCH64_PREL32), RELOC(R_AARCH64_ADR_PREL_PG_HI21),
	RELOC(R_AARCH64_ADD_ABS_LO12_NC), RELOC(R_AARCH64_JUMP26),
	RELOC(R_AARCH64_CALL26), RELOC(R_AARCH64_ADR_GOT_PAGE),
	RELOC(R_AARCH64_LD64_GOT_LO12_NC), RELOC(R_AARCH64_GLOB_DAT),
	RELOC(R_AARCH64_JUMP_SLOT), RELOC(R_AARCH64_RELATIVE),
};

START_TEST(aarch64_reloc_names)
{
	assert_reloc_names(arch("aarch64"), a64_relocs, MC_COUNT(a64_relocs));
}
END_TEST

/*
 * Prologues of -pg functions, from the entry to the hook's `bl`, as
 * aarch64-linux-gnu-gcc 12 (also with -mbranch-protection=pac-ret) and
 * clang 14 wrote them for tests/trace/frames.c at -O2, and a few that
 * must stop the reader; what mc_arch_aarch64_frame_record must make of
 * them was worked out by hand from objdump's text, which reads each
 * back (`ops`: its mnemonics).
 */
struct frame_case {
	const char *name;
	uint32_t code[12];
	size_t n;
	const char *ops;
	enum mc_a64_frame got;
	int64_t x29;
	bool signs;
};

static const struct frame_case frames[] = {
	{ "gcc small", { 0xa9be7bfd,	/* stp x29, x30, [sp, #-32]! */
			 0x910003fd,	/* mov x29, sp */
			 0xf9000bf3,	/* str x19, [sp, #16] */
			 0xd50320ff,	/* xpaclri */
			 0x2a0003f3,	/* mov w19, w0 */
			 0xaa1e03e0 },	/* mov x0, x30 */
	  6, "stp mov str xpaclri mov mov", MC_A64_FRAME_RECORD, -32, false },
	{ "gcc big", { 0xd282760c,	/* mov x12, #0x13b0 */
		       0xcb2c63ff,	/* sub sp, sp, x12 */
		       0xa9007bfd,	/* stp x29, x30, [sp] */
		       0x910003fd,	/* mov x29, sp */
		       0xf9000bf3,	/* str x19, [sp, #16] */
		       0xd50320ff,	/* xpaclri */
		       0x2a0003f3,	/* mov w19, w0 */
		       0xaa1e03e0 },	/* mov x0, x30 */
	  8, "mov sub stp mov str xpaclri mov mov", MC_A64_FRAME_RECORD,
	  -5040, false },
	{ "gcc huge", { 0xd10643ff,	/* sub sp, sp, #0x190 */
			0xd14047ff,	/* sub sp, sp, #0x11, lsl #12 */
			0xa9007bfd,	/* stp x29, x30, [sp] */
			0x910003fd,	/* mov x29, sp */
			0xa90153f3,	/* stp x19, x20, [sp, #16] */
			0xd50320ff,	/* xpaclri */
			0x2a0003f3,	/* mov w19, w0 */
			0x910083f4,	/* add x20, sp, #0x20 */
			0xaa1e03e0 },	/* mov x0, x30 */
	  9, "sub sub stp mov stp xpaclri mov add mov", MC_A64_FRAME_RECORD,
	  -(0x190 + 0x11000), false },
	{ "clang big", { 0xa9be7bfd,	/* stp x29, x30, [sp, #-32]! */
			 0xa9014ffc,	/* stp x28, x19, [sp, #16] */
			 0x910003fd,	/* mov x29, sp */
			 0xd14007ff,	/* sub sp, sp, #0x1, lsl #12 */
			 0xd10e43ff,	/* sub sp, sp, #0x390 */
			 0x2a0003f3 },	/* mov w19, w0 */
	  6, "stp stp mov sub sub mov", MC_A64_FRAME_RECORD, -32, false },
	{ "clang huge", { 0xa9bd7bfd,	/* stp x29, x30, [sp, #-48]! */
			  0xa90157fc,	/* stp x28, x21, [sp, #16] */
			  0x910003fd,	/* mov x29, sp */
			  0xa9024ff4,	/* stp x20, x19, [sp, #32] */
			  0xd14047ff,	/* sub sp, sp, #0x11, lsl #12 */
			  0xd105c3ff,	/* sub sp, sp, #0x170 */
			  0x2a0003f3 },	/* mov w19, w0 */
	  7, "stp stp mov stp sub sub mov", MC_A64_FRAME_RECORD, -48, false },
	{ "gcc pac-ret", { 0xd503233f,	/* paciasp */
			   0xa9be7bfd,	/* stp x29, x30, [sp, #-32]! */
			   0x910003fd,	/* mov x29, sp */
			   0xf9000bf3,	/* str x19, [sp, #16] */
			   0xd50320ff,	/* xpaclri */
			   0x2a0003f3,	/* mov w19, w0 */
			   0xaa1e03e0 },	/* mov x0, x30 */
	  7, "paciasp stp mov str xpaclri mov mov", MC_A64_FRAME_RECORD, -32,
	  true },
	{ "sub sp by an unknown register", { 0xcb2c63ff },	/* sub sp, sp, x12 */
	  1, "sub", MC_A64_FRAME_UNFOLLOWED, 0, false },
	{ "its constant overwritten", { 0xd282760c,	/* mov x12, #0x13b0 */
					0x9100058c,	/* add x12, x12, #0x1 */
					0xcb2c63ff },	/* sub sp, sp, x12 */
	  3, "mov add sub", MC_A64_FRAME_UNFOLLOWED, 0, false },
	{ "a branch", { 0xa9be7bfd,	/* stp x29, x30, [sp, #-32]! */
			0x14000002 },	/* b .+8 */
	  2, "stp b", MC_A64_FRAME_UNFOLLOWED, 0, false },
	{ "no record", { 0xd10043ff },	/* sub sp, sp, #0x10 */
	  1, "sub", MC_A64_FRAME_NO_RECORD, 0, false },
	{ "x29 not at the record", { 0xa9be7bfd,	/* stp x29, x30, [sp, #-32]! */
				     0x910043fd },	/* add x29, sp, #0x10 */
	  2, "stp add", MC_A64_FRAME_NO_RECORD, 0, false },
};

START_TEST(frame_record_reader)
{
	const struct frame_case *c = &frames[_i];
	char out[12][DISASM_LINE], ops[256] = "";
	uint8_t code[48];
	int64_t x29 = 7;
	bool signs = !c->signs;
	int k;

	for (size_t i = 0; i < c->n; i++)
		mc_put_le32(code + 4 * i, c->code[i]);
	k = disasm(OBJDUMP, code, 4 * c->n, 0, out, 12);
	for (int i = 0; i < k; i++) {
		char op[32];

		ck_assert_int_eq(sscanf(disasm_text(out[i]), "%31s", op), 1);
		snprintf(ops + strlen(ops), sizeof(ops) - strlen(ops), "%s%s",
			 i ? " " : "", op);
	}
	ck_assert_msg(!strcmp(ops, c->ops), "%s: objdump: %s", c->name, ops);
	ck_assert_int_eq(mc_arch_aarch64_frame_record(code, 4 * c->n, &x29,
						      &signs), c->got);
	if (c->got != MC_A64_FRAME_UNFOLLOWED)
		ck_assert_msg(signs == c->signs, "%s: signs", c->name);
	if (c->got == MC_A64_FRAME_RECORD)
		ck_assert_msg(x29 == c->x29, "%s: x29 %lld", c->name,
			      (long long)x29);
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JUMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *a = arch("aarch64");
	static const uint8_t entry[] = {
		0x10, 0x01, 0x00, 0x90,		/* adrp x16, 20000 */
		0x11, 0x12, 0x40, 0xf9,		/* ldr x17, [x16, #32] */
		0x10, 0x82, 0x00, 0x91,		/* add x16, x16, #0x20 */
		0x20, 0x02, 0x1f, 0xd6,		/* br x17 */
	};
	static const uint8_t bti[4] = { 0x5f, 0x24, 0x03, 0xd5 };
	uint8_t with_bti[20];

	ck_assert_uint_eq(mc_plt_slot(a, entry, 16, 0x3e0, 0), 0x20020);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 7, 0x3e0, 0), 0);
	memcpy(with_bti, bti, 4);
	memcpy(with_bti + 4, entry, 16);
	ck_assert_uint_eq(mc_plt_slot(a, with_bti, 20, 0x3dc, 0), 0x20020);
	ck_assert_uint_eq(mc_plt_slot(a, entry + 4, 12, 0x3e4, 0), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arch_aarch64");
	TCase *tc = tcase_create("aarch64");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registry);
	tcase_add_test(tc, aarch64_reloc_names);
	tcase_add_test(tc, form_bl);
	tcase_add_test(tc, nop_objdump);
	tcase_add_loop_test(tc, call_roundtrip, 0,
			    sizeof(calls) / sizeof(calls[0]));
	tcase_add_test(tc, call_range);
	tcase_add_test(tc, decode_other);
	tcase_add_test(tc, site_neutral);
	tcase_add_test(tc, live_forms_pad);
	tcase_add_test(tc, live_forms_hook);
	tcase_add_loop_test(tc, frame_record_reader, 0, MC_COUNT(frames));
	tcase_add_test(tc, plt_entry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
