/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_riscv.c - unit tests of arch/riscv.c: the registry entry,
 * the auipc+jalr object form, the linked-code decoder (the pair and the
 * `jal` ld relaxes it into) and the encoders.
 *
 * The encoders are checked against riscv64-linux-gnu-objdump, which
 * knows nothing of our tables and computes the pair's target itself.
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

#define EM_RISCV_N 243
#define R_RISCV_64_N 2
#define R_RISCV_RELATIVE_N 3
#define R_RISCV_CALL_N 18
#define R_RISCV_CALL_PLT_N 19
#define R_RISCV_JAL_N 17
#define OBJDUMP "riscv64-linux-gnu-objdump -m riscv:rv64"

static const struct mc_arch *rv(void)
{
	return arch("riscv64");
}

START_TEST(registry)
{
	const struct mc_arch *a = mc_arch_find(EM_RISCV_N, 64,
					       MC_LITTLE_ENDIAN, 0x5);

	ck_assert_ptr_eq(a, rv());
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_RISCV_64_N);
	ck_assert_uint_eq(a->relative_reloc, R_RISCV_RELATIVE_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert(a->anchor_at_site);
	ck_assert(mc_is_hook_symbol(a, "_mcount"));
	ck_assert_ptr_null(mc_arch_find(EM_RISCV_N, 32, MC_LITTLE_ENDIAN, 0));
}
END_TEST

START_TEST(form_pair)
{
	static const uint8_t code[] = {
		0x06, 0x85,			/* mv a0, ra (compressed) */
		0x97, 0x00, 0x00, 0x00,		/* auipc ra, 0 */
		0xe7, 0x80, 0x00, 0x00,		/* jalr ra, 0(ra) */
		0x97, 0x02, 0x00, 0x00,		/* auipc t0, 0 */
		0xe7, 0x80, 0x02, 0x00,		/* jalr ra, 0(t0) */
	};
	const struct mc_object_form *f =
		mc_match_form(rv(), R_RISCV_CALL_PLT_N, code, sizeof(code), 2);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 8);
	ck_assert_mem_eq(f->nop, "\x13\0\0\0\x13\0\0\0", 8);
	ck_assert_ptr_eq(mc_match_form(rv(), R_RISCV_CALL_N, code,
				       sizeof(code), 2), f);
	ck_assert_ptr_null(mc_match_form(rv(), R_RISCV_JAL_N, code,
					 sizeof(code), 2));
	ck_assert_ptr_null(mc_match_form(rv(), R_RISCV_CALL_N, code,
					 sizeof(code), 10));	/* not ra */
	ck_assert_ptr_null(mc_match_form(rv(), R_RISCV_CALL_N, code, 8, 2));
}
END_TEST

START_TEST(nops)
{
	uint8_t b[16];
	char out[8][DISASM_LINE];

	ck_assert(mc_encode_nop(rv(), b, 8));
	ck_assert_int_eq(disasm(OBJDUMP, b, 8, 0, out, 8), 2);
	ck_assert_str_eq(disasm_text(out[0]), "nop\n");
	ck_assert_str_eq(disasm_text(out[1]), "nop\n");
	ck_assert_uint_eq(disasm_bytes(out[0]), 4);
	struct mc_site s = mc_decode_site(rv(), b, 8, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 8);

	ck_assert(mc_encode_nop(rv(), b, 2));			/* c.nop */
	ck_assert_int_eq(disasm(OBJDUMP, b, 2, 0, out, 8), 1);
	ck_assert_str_eq(disasm_text(out[0]), "nop\n");
	ck_assert_uint_eq(disasm_bytes(out[0]), 2);
	ck_assert_uint_eq(mc_decode_site(rv(), b, 2, 0).len, 2);

	ck_assert(mc_encode_nop(rv(), b, 6));		/* nop; c.nop */
	ck_assert_int_eq(disasm(OBJDUMP, b, 6, 0, out, 8), 2);
	ck_assert(mc_encode_nop(rv(), b, 4));
	s = mc_decode_site(rv(), b, 4, 0);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
	ck_assert(!mc_encode_nop(rv(), b, 3));
	ck_assert(!mc_encode_nop(rv(), b, 0));
}
END_TEST

static const uint64_t pairs[][2] = {
	{ 0x10000, 0x10000 },
	{ 0x10002, 0x10800 },		/* lo12 = -0x800 after rounding */
	{ 0x10000, 0x107fe },
	{ 0x80001000, 0x1000 },
	{ 0x1000, 0x1000 + 0x7ffff7feull },	/* farthest forward */
	{ 0x80000000, 0x80000000 - 0x80000800ull },	/* farthest back */
	{ 0xffffffff80001000ull, 0xffffffff80201234ull },
};

START_TEST(pair_roundtrip)
{
	uint64_t site = pairs[_i][0], target = pairs[_i][1];
	uint8_t b[8];
	char out[4][DISASM_LINE];

	ck_assert(mc_encode_call(rv(), b, 8, site, target));
	struct mc_site s = mc_decode_site(rv(), b, 8, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 8);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(disasm(OBJDUMP, b, 8, site, out, 4), 2);
	ck_assert(strncmp(disasm_text(out[0]), "auipc\tra,", 9) == 0);
	ck_assert(strncmp(disasm_text(out[1]), "jalr\t", 5) == 0);
	ck_assert_uint_eq(disasm_last_hex(disasm_text(out[1])), target);
}
END_TEST

static const uint64_t jals[][2] = {
	{ 0x10000, 0x10018 },
	{ 0x10018, 0x10002 },
	{ 0x100000, 0x100000 + (1 << 20) - 2 },
	{ 0x200000, 0x200000 - (1 << 20) },
};

START_TEST(jal_roundtrip)
{
	uint64_t site = jals[_i][0], target = jals[_i][1];
	uint8_t b[4];
	char out[2][DISASM_LINE];

	ck_assert(mc_encode_call(rv(), b, 4, site, target));
	struct mc_site s = mc_decode_site(rv(), b, 4, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(disasm(OBJDUMP, b, 4, site, out, 2), 1);
	ck_assert(strncmp(disasm_text(out[0]), "jal\t", 4) == 0);
	ck_assert_uint_eq(disasm_last_hex(disasm_text(out[0])), target);
}
END_TEST

START_TEST(call_range)
{
	uint8_t b[8];

	ck_assert(!mc_encode_call(rv(), b, 8, 0x1000, 0x1000 + 0x7ffff800ull));
	ck_assert(!mc_encode_call(rv(), b, 8, 0x80000000,
				  0x80000000 - 0x80000802ull));
	ck_assert(!mc_encode_call(rv(), b, 4, 0x100000, 0x100000 + (1 << 20)));
	ck_assert(!mc_encode_call(rv(), b, 4, 0x200000,
				  0x200000 - (1 << 20) - 2));
	ck_assert(!mc_encode_call(rv(), b, 8, 0x1001, 0x2000));
	ck_assert(!mc_encode_call(rv(), b, 8, 0x1000, 0x2001));
	ck_assert(!mc_encode_call(rv(), b, 6, 0x1000, 0x2000));
}
END_TEST

/*
 * The reach the runtime asks a thunk page within, per site (the page's
 * thunks start at least a page's length inside it): a relaxed `jal`
 * reaches 1 MiB either way and not call_reach's 2 GiB, the pairs that.
 */
START_TEST(site_reach)
{
	const struct mc_arch *a = rv();
	uint64_t jal = a->site_reach(a, 4, false), site = 0x80000000ull;
	uint8_t b[8];

	ck_assert_uint_eq(jal, 1 << 20);
	ck_assert(mc_encode_call(a, b, 4, site, site + jal - 2));
	ck_assert(mc_encode_call(a, b, 4, site, site - jal));
	ck_assert(!mc_encode_call(a, b, 4, site, site + jal));
	ck_assert(!mc_encode_call(a, b, 4, site, site + a->call_reach - 4096));
	for (int pad = 0; pad < 2; pad++) {
		uint64_t r = a->site_reach(a, 8, pad);

		ck_assert_uint_eq(r, a->call_reach);
		ck_assert(mc_encode_call(a, b, 8, site, site + r - 4096));
		ck_assert(mc_encode_call(a, b, 8, site, site - r));
	}
}
END_TEST

/* The runtime's neutral form: as many `nop`s as the site is long. */
START_TEST(site_neutral)
{
	static const uint8_t nop8[] = { 0x13, 0, 0, 0, 0x13, 0, 0, 0 };
	uint8_t pair[8], jal[4];
	struct mc_site s;

	ck_assert(mc_encode_call(rv(), pair, 8, 0x10000, 0x20000));
	ck_assert(mc_encode_call(rv(), jal, 4, 0x10000, 0x10800));
	s = mc_decode_site(rv(), pair, 8, 0x10000);
	ck_assert_uint_eq(s.len, 8);
	ck_assert_mem_eq(mc_site_neutral(rv(), &s), nop8, 8);
	s = mc_decode_site(rv(), jal, 4, 0x10000);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_mem_eq(mc_site_neutral(rv(), &s), nop8, 4);
	s = mc_decode_site(rv(), nop8, 8, 0x10000);
	ck_assert_mem_eq(mc_site_neutral(rv(), &s), nop8, 8);
	s = (struct mc_site){ MC_SITE_UNKNOWN, 8, 0 };
	ck_assert_ptr_null(mc_site_neutral(rv(), &s));
}
END_TEST

/*
 * The runtime's live forms, against bytes from riscv64-linux-gnu-as
 * (-march=rv64gc), not our encoders: each call reaches 0xffc bytes past
 * its site (a jal: 0x1000).
 */
static const uint8_t as_call_ra[8] = {
	0x97, 0x10, 0x00, 0x00,			/* auipc ra, 0x1 */
	0xe7, 0x80, 0xc0, 0xff,			/* jalr ra, -4(ra) */
};
static const uint8_t as_call_t0[8] = {
	0x97, 0x12, 0x00, 0x00,			/* auipc t0, 0x1 */
	0xe7, 0x82, 0xc2, 0xff,			/* jalr t0, -4(t0) */
};
static const uint8_t as_jal[4] = { 0xef, 0x10, 0x00, 0x00 };	/* jal .+0x1000 */
static const uint8_t as_nop[4] = { 0x13, 0x00, 0x00, 0x00 };	/* nop */
static const uint8_t as_cj8[2] = { 0x21, 0xa0 };		/* c.j .+8 */
static const uint8_t as_cj4[2] = { 0x11, 0xa0 };		/* c.j .+4 */

/* rv64's live forms of `call` (len bytes) at `at`. */
static bool forms(const uint8_t *call, unsigned len, bool pad, uint64_t at,
		  uint8_t *on, uint8_t *off)
{
	memcpy(on, call, len);
	memset(off, 0xaa, len);
	return rv()->live_forms(rv(), on, off, 0, len, pad, at);
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

/* The encoders' calls are the assembler's, at either alignment. */
START_TEST(live_calls_as_assembled)
{
	uint8_t b[8];

	for (uint64_t at = 0x10000; at <= 0x10002; at += 2) {
		ck_assert(mc_encode_call(rv(), b, 8, at, at + 0xffc));
		ck_assert_mem_eq(b, as_call_ra, 8);
		ck_assert(mc_encode_pad_call(rv(), b, 8, at, at + 0xffc));
		ck_assert_mem_eq(b, as_call_t0, 8);
		ck_assert(mc_encode_call(rv(), b, 4, at, at + 0x1000));
		ck_assert_mem_eq(b, as_jal, 4);
	}
}
END_TEST

/* At a multiple of 4: the call's last word is toggled against `nop`. */
START_TEST(live_forms_aligned)
{
	uint8_t on[8], off[8];
	char out[4][DISASM_LINE];

	ck_assert_uint_eq(rv()->live_store_max, 4);
	ck_assert_uint_eq(rv()->live_prelude, 0);
	/* a hook's pair: auipc ra stays, jalr <-> nop */
	ck_assert(forms(as_call_ra, 8, false, 0x10000, on, off));
	ck_assert_mem_eq(on, as_call_ra, 8);
	ck_assert_mem_eq(off, as_call_ra, 4);
	ck_assert_mem_eq(off + 4, as_nop, 4);
	differ_within(on, off, 8, 4, 4);
	ck_assert_int_eq(disasm(OBJDUMP, off, 8, 0x10000, out, 4), 2);
	ck_assert_str_eq(disasm_text(out[0]), "auipc\tra,0x1\n");
	ck_assert_str_eq(disasm_text(out[1]), "nop\n");
	/* a pad's pair: auipc t0 stays */
	ck_assert(forms(as_call_t0, 8, true, 0x10004, on, off));
	ck_assert_mem_eq(on, as_call_t0, 8);
	ck_assert_mem_eq(off, as_call_t0, 4);
	ck_assert_mem_eq(off + 4, as_nop, 4);
	differ_within(on, off, 8, 4, 4);
	/* a relaxed hook: jal <-> nop */
	ck_assert(forms(as_jal, 4, false, 0x10008, on, off));
	ck_assert_mem_eq(on, as_jal, 4);
	ck_assert_mem_eq(off, as_nop, 4);
}
END_TEST

/* At 2 mod 4: the call stays; its first halfword <-> c.j over it. */
START_TEST(live_forms_misaligned)
{
	uint8_t on[8], off[8];
	char out[4][DISASM_LINE];

	ck_assert(forms(as_call_ra, 8, false, 0x10002, on, off));
	ck_assert_mem_eq(on, as_call_ra, 8);
	ck_assert_mem_eq(off, as_cj8, 2);
	ck_assert_mem_eq(off + 2, as_call_ra + 2, 6);
	differ_within(on, off, 8, 0, 2);
	/* objdump: a jump to the site's end, whatever follows it */
	ck_assert_int_eq(disasm(OBJDUMP, off, 2, 0x10002, out, 4), 1);
	ck_assert(strncmp(disasm_text(out[0]), "j\t", 2) == 0);
	ck_assert_uint_eq(disasm_last_hex(disasm_text(out[0])), 0x1000a);
	ck_assert(forms(as_call_t0, 8, true, 0x10006, on, off));
	ck_assert_mem_eq(on, as_call_t0, 8);
	ck_assert_mem_eq(off, as_cj8, 2);
	ck_assert_mem_eq(off + 2, as_call_t0 + 2, 6);
	differ_within(on, off, 8, 0, 2);
	ck_assert(forms(as_jal, 4, false, 0x1000a, on, off));
	ck_assert_mem_eq(on, as_jal, 4);
	ck_assert_mem_eq(off, as_cj4, 2);
	ck_assert_mem_eq(off + 2, as_jal + 2, 2);
	ck_assert_int_eq(disasm(OBJDUMP, off, 2, 0x1000a, out, 4), 1);
	ck_assert_uint_eq(disasm_last_hex(disasm_text(out[0])), 0x1000e);
}
END_TEST

/* No live form: the other link register, no call, odd, a prelude. */
START_TEST(live_forms_refused)
{
	uint8_t on[8], off[8];

	ck_assert(!forms(as_call_t0, 8, false, 0x10000, on, off));
	ck_assert(!forms(as_call_ra, 8, true, 0x10000, on, off));
	ck_assert(!forms(as_jal, 4, true, 0x10000, on, off));
	ck_assert(!forms(as_nop, 4, false, 0x10000, on, off));
	ck_assert(!forms(as_call_ra, 8, false, 0x10001, on, off));
	ck_assert(!forms(as_call_ra, 2, false, 0x10000, on, off));
	memcpy(on, as_call_ra, 8);
	ck_assert(!rv()->live_forms(rv(), on, off, 4, 4, false, 0x10004));
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle rv_relocs[] = {
	RELOC(R_RISCV_NONE), RELOC(R_RISCV_32), RELOC(R_RISCV_64),
	RELOC(R_RISCV_RELATIVE), RELOC(R_RISCV_JUMP_SLOT), RELOC(R_RISCV_JAL),
	RELOC(R_RISCV_CALL), RELOC(R_RISCV_CALL_PLT), RELOC(R_RISCV_GOT_HI20),
	RELOC(R_RISCV_PCREL_HI20), RELOC(R_RISCV_PCREL_LO12_I),
	RELOC(R_RISCV_HI20), RELOC(R_RISCV_LO12_I), RELOC(R_RISCV_RELAX),
};

START_TEST(riscv_reloc_names)
{
	assert_reloc_names(arch("riscv64"), rv_relocs, MC_COUNT(rv_relocs));
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JUMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *a = arch("riscv64");
	static const uint8_t entry[] = {
		0x17, 0x2e, 0x00, 0x00,		/* auipc t3, 0x2 */
		0x03, 0x3e, 0x8e, 0xc4,		/* ld t3, -952(t3) */
		0x67, 0x03, 0x0e, 0x00,		/* jalr t1, t3 */
		0x13, 0x00, 0x00, 0x00,		/* nop */
	};

	ck_assert_uint_eq(mc_plt_slot(a, entry, 16, 0x3e0, 0), 0x2028);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 11, 0x3e0, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry + 4, 12, 0x3e4, 0), 0);
}
END_TEST

/*
 * clang 14's -pg prologue of tests/trace/args.c's add (riscv64-linux-
 * gnu-objdump -d): the arguments moved to saved registers, a0-a7 not
 * written, so a recorder may read them at the hook; the same with
 * `li a0, 1` or GCC's `mv a0, ra` after it may not.
 */
START_TEST(args_kept)
{
	static const uint8_t clang_add[] = {
		0x79, 0x71,		/* addi sp, sp, -48 */
		0x06, 0xf4,		/* sd ra, 40(sp) */
		0x22, 0xf0,		/* sd s0, 32(sp) */
		0x26, 0xec,		/* sd s1, 24(sp) */
		0x4a, 0xe8,		/* sd s2, 16(sp) */
		0x4e, 0xe4,		/* sd s3, 8(sp) */
		0x00, 0x18,		/* addi s0, sp, 48 */
		0x2e, 0x89,		/* mv s2, a1 */
		0xaa, 0x84,		/* mv s1, a0 */
		0x05, 0x45,		/* li a0, 1 */
		0x06, 0x85,		/* mv a0, ra */
	};
	size_t n = sizeof(clang_add) - 4;

	ck_assert(mc_arch_riscv64_args_kept(clang_add, n));
	ck_assert_int_eq(mc_arch_riscv64_caller(clang_add, n),
			 MC_RV_CALLER_FP);
	ck_assert(!mc_arch_riscv64_args_kept(clang_add, n + 2));
	ck_assert(!mc_arch_riscv64_args_kept(clang_add + 2, n));
	ck_assert(!mc_arch_riscv64_args_kept(clang_add, n + 1));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arch_riscv");
	TCase *tc = tcase_create("riscv");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registry);
	tcase_add_test(tc, riscv_reloc_names);
	tcase_add_test(tc, form_pair);
	tcase_add_test(tc, nops);
	tcase_add_loop_test(tc, pair_roundtrip, 0,
			    sizeof(pairs) / sizeof(pairs[0]));
	tcase_add_loop_test(tc, jal_roundtrip, 0,
			    sizeof(jals) / sizeof(jals[0]));
	tcase_add_test(tc, call_range);
	tcase_add_test(tc, site_reach);
	tcase_add_test(tc, site_neutral);
	tcase_add_test(tc, live_calls_as_assembled);
	tcase_add_test(tc, live_forms_aligned);
	tcase_add_test(tc, live_forms_misaligned);
	tcase_add_test(tc, live_forms_refused);
	tcase_add_test(tc, plt_entry);
	tcase_add_test(tc, args_kept);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
