/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_s390.c - unit tests of arch/s390.c: the s390x registry entry,
 * its object forms (-mfentry's brasl, the -pg blocks with and without
 * larl), the linked-code decoder and the encoders.
 *
 * Expected bytes are written out by hand from the z/Architecture
 * encodings and match what GCC emits (see the prose in arch/s390.c); the
 * encoders are also checked against s390x-linux-gnu-objdump.
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

#define EM_S390_N 22
#define R_390_32_N 4
#define R_390_PC32_N 5
#define R_390_RELATIVE_N 12
#define R_390_PC16DBL_N 16
#define R_390_PC32DBL_N 19
#define R_390_PLT32DBL_N 20
#define R_390_64_N 22
#define R_390_GOTENT_N 26

#define OBJDUMP "s390x-linux-gnu-objdump -m s390:64-bit"

static const struct mc_arch *s390x(void)
{
	return arch("s390x");
}

/* The instructions, as GCC emits them in an object (RI fields zero). */
#define BRASL_R0 0xc0, 0x05, 0, 0, 0, 0		/* brasl %r0,__fentry__ */
#define BRASL_R14 0xc0, 0xe5, 0, 0, 0, 0	/* brasl %r14,_mcount */
#define LARL_R1 0xc0, 0x10, 0, 0, 0, 0		/* larl %r1,.LP0 */
#define STG 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x24	/* stg %r14,8(%r15) */
#define LG 0xe3, 0xe0, 0xf0, 0x08, 0x00, 0x04	/* lg %r14,8(%r15) */
#define JGNOP 0xc0, 0x04, 0, 0, 0, 0		/* brcl 0,. */
#define LTGR 0xb9, 0x02, 0x00, 0x12		/* ltgr %r1,%r2 */
#define BR14 0x07, 0xfe				/* br %r14 */

/* ---- registry ---------------------------------------------------- */

START_TEST(find_by_header)
{
	const struct mc_arch *a = mc_arch_find(EM_S390_N, 64, MC_BIG_ENDIAN, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(a, s390x());
	ck_assert_str_eq(a->name, "s390x");
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_390_64_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert_uint_eq(a->relative_reloc, R_390_RELATIVE_N);
	ck_assert_int_eq(a->endian, MC_BIG_ENDIAN);
	ck_assert(!a->anchor_avoid_func);
	ck_assert_uint_eq(a->n_companion_relocs, 0);
	/* Every form starts the function. */
	ck_assert_uint_eq(a->max_entry_offset, 0);
	for (unsigned i = 0; i < a->n_forms; i++)
		ck_assert_uint_le(a->forms[i].len, MC_MAX_SITE_LEN);
	/* 31-bit and little-endian s390 are not supported. */
	ck_assert_ptr_null(mc_arch_find(EM_S390_N, 32, MC_BIG_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_find(EM_S390_N, 64, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_by_name("s390"));
}
END_TEST

START_TEST(hook_symbols)
{
	const struct mc_arch *a = s390x();

	ck_assert(mc_is_hook_symbol(a, "__fentry__"));
	ck_assert(mc_is_hook_symbol(a, "_mcount"));
	ck_assert(!mc_is_hook_symbol(a, "mcount"));
	ck_assert(!mc_is_hook_symbol(a, "._mcount"));
	ck_assert(!mc_is_hook_symbol(a, "__fentry"));
	ck_assert(!mc_is_hook_symbol(a, ""));
}
END_TEST

/* ---- object forms ------------------------------------------------ */

struct form_case {
	const char *what;
	uint8_t code[40];
	size_t size;
	uint64_t r_offset;	/* where the relocation sits */
	int field_offset;	/* expected r_offset - site */
	unsigned len;		/* expected bytes --nop rewrites */
};

static const struct form_case good_forms[] = {
	{ "-mfentry", { BRASL_R0, LTGR, BR14 }, 12, 2, 2, 6 },
	{ "-pg", { STG, BRASL_R14, LG, LTGR, BR14 }, 24, 8, 8, 18 },
	{ "-pg with counters", { STG, LARL_R1, BRASL_R14, LG, BR14 }, 26, 14,
	  14, 24 },
	/* Hand-written: a bare brasl %r14 to the hook is still a call. */
	{ "bare brasl %r14", { BRASL_R14, BR14 }, 8, 2, 2, 6 },
	/* A -mfentry call after a 2-byte instruction. */
	{ "brasl at 2", { 0x07, 0x07, BRASL_R0, BR14 }, 10, 4, 2, 6 },
};

#define N_GOOD (sizeof(good_forms) / sizeof(good_forms[0]))

START_TEST(form_matches)
{
	const struct form_case *c = &good_forms[_i / 2];
	uint32_t type = _i % 2 ? R_390_PC32DBL_N : R_390_PLT32DBL_N;
	const struct mc_object_form *f =
		mc_match_form(s390x(), type, c->code, c->size, c->r_offset);

	ck_assert_msg(f != NULL, "%s not matched", c->what);
	ck_assert_int_eq(f->field_offset, c->field_offset);
	ck_assert_uint_eq(f->len, c->len);
	ck_assert_ptr_nonnull(f->nop);
	/* The NOP is -mnop-mcount's: brcl 0,0 over every instruction. */
	for (unsigned i = 0; i < f->len; i += 6) {
		static const uint8_t jgnop[6] = { JGNOP };

		ck_assert(memcmp(f->nop + i, jgnop, 6) == 0);
	}
	/*
	 * Exactly long enough; one byte short, this form no longer fits
	 * (a -pg block's brasl may still match on its own, as a bare call).
	 */
	uint64_t site = c->r_offset - (uint64_t)c->field_offset;
	ck_assert_ptr_eq(mc_match_form(s390x(), type, c->code, site + c->len,
				       c->r_offset), f);
	const struct mc_object_form *g = mc_match_form(
		s390x(), type, c->code, site + c->len - 1, c->r_offset);
	ck_assert_ptr_ne(g, f);
	if (g)
		ck_assert_uint_eq(g->len, 6);
}
END_TEST

START_TEST(form_rejects)
{
	static const struct {
		const char *what;
		uint8_t code[32];
		size_t size;
		uint64_t r_offset;
	} bad[] = {
		/* jg __fentry__ (brcl 15): a tail call. */
		{ "jg", { 0xc0, 0xf4, 0, 0, 0, 0, BR14 }, 8, 2 },
		/* larl %r1,_mcount: taking the address. */
		{ "larl", { 0xc0, 0x10, 0, 0, 0, 0, BR14 }, 8, 2 },
		/* jgnop already. */
		{ "jgnop", { JGNOP, BR14 }, 8, 2 },
		/* brasl whose relocation is not on its RI field. */
		{ "brasl+1", { BRASL_R0, BR14 }, 8, 1 },
		{ "brasl+3", { BRASL_R0, BR14 }, 8, 3 },
		{ "brasl+0", { BRASL_R0, BR14 }, 8, 0 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct mc_object_form *f = mc_match_form(
			s390x(), R_390_PLT32DBL_N, bad[i].code, bad[i].size,
			bad[i].r_offset);

		ck_assert_msg(f == NULL, "%s matched as %s", bad[i].what,
			      f->name);
	}
}
END_TEST

/*
 * Blocks that are not GCC's exactly (stg; brasl; something else, or a
 * stg of another register): the 18-byte form must not claim them, so
 * nothing beyond the call is rewritten.  The brasl alone still matches
 * as a bare six-byte call.
 */
START_TEST(form_pg_needs_whole_block)
{
	static const uint8_t no_lg[] = { STG, BRASL_R14, LTGR, BR14 };
	static const uint8_t r13[] = { 0xe3, 0xd0, 0xf0, 0x08, 0x00, 0x24,
				       BRASL_R14, LG };
	static const uint8_t no_lg_larl[] = { STG, LARL_R1, BRASL_R14, LTGR,
					      BR14 };
	const struct mc_object_form *f;

	f = mc_match_form(s390x(), R_390_PLT32DBL_N, no_lg, sizeof(no_lg), 8);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 6);
	ck_assert_int_eq(f->field_offset, 2);
	f = mc_match_form(s390x(), R_390_PLT32DBL_N, r13, sizeof(r13), 8);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 6);
	f = mc_match_form(s390x(), R_390_PLT32DBL_N, no_lg_larl,
			  sizeof(no_lg_larl), 14);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 6);
}
END_TEST

START_TEST(form_rejects_wrong_type)
{
	static const uint8_t fentry[] = { BRASL_R0, BR14 };
	static const uint8_t pg[] = { STG, BRASL_R14, LG };
	static const uint32_t types[] = {
		0, R_390_32_N, R_390_PC32_N, R_390_PC16DBL_N, R_390_64_N,
		R_390_GOTENT_N,
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ck_assert_ptr_null(mc_match_form(s390x(), types[i], fentry,
						 sizeof(fentry), 2));
		ck_assert_ptr_null(mc_match_form(s390x(), types[i], pg,
						 sizeof(pg), 8));
	}
}
END_TEST

START_TEST(form_rejects_past_end)
{
	static const uint8_t fentry[] = { BRASL_R0 };

	for (uint64_t size = 0; size < 6; size++)
		ck_assert_ptr_null(mc_match_form(s390x(), R_390_PLT32DBL_N,
						 fentry, size, 2));
	ck_assert_ptr_null(mc_match_form(s390x(), R_390_PLT32DBL_N, fentry, 6,
					 8));
	ck_assert_ptr_null(mc_match_form(s390x(), R_390_PLT32DBL_N, fentry, 6,
					 UINT64_MAX));
	ck_assert_ptr_null(mc_match_form(s390x(), R_390_PLT32DBL_N, fentry, 6,
					 UINT64_MAX - 1));
	/* r_offset below the -pg forms' field offsets. */
	for (uint64_t off = 0; off < 2; off++)
		ck_assert_ptr_null(mc_match_form(s390x(), R_390_PLT32DBL_N,
						 fentry, 6, off));
}
END_TEST

/* ---- decode_site ------------------------------------------------- */

START_TEST(decode_brasl)
{
	/* brasl %r0,+0x100 (RI counts halfwords from the brasl). */
	static const uint8_t fwd[] = { 0xc0, 0x05, 0x00, 0x00, 0x00, 0x80 };
	/* brasl %r0,-0x1000 */
	static const uint8_t back[] = { 0xc0, 0x05, 0xff, 0xff, 0xf8, 0x00 };
	/* brasl %r14,. */
	static const uint8_t self[] = { 0xc0, 0xe5, 0, 0, 0, 0 };
	/* brasl %r0 with the largest positive and negative RI. */
	static const uint8_t far_fwd[] = { 0xc0, 0x05, 0x7f, 0xff, 0xff, 0xff };
	static const uint8_t far_back[] = { 0xc0, 0x05, 0x80, 0, 0, 0 };
	struct mc_site s;

	s = decode(s390x(), fwd, 6, 0x10000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, 0x10100);
	s = decode(s390x(), back, 6, 0x10000);
	ck_assert_uint_eq(s.target, 0xf000);
	s = decode(s390x(), self, 6, 0x10000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x10000);
	s = decode(s390x(), far_fwd, 6, 0x10000);
	ck_assert_uint_eq(s.target, 0x10000 + 0xfffffffeull);
	s = decode(s390x(), far_back, 6, 0x200000000ull);
	ck_assert_uint_eq(s.target, 0x100000000ull);
	/* Sign extension near the top of the address space. */
	s = decode(s390x(), back, 6, 0xffffffff00010000ull);
	ck_assert_uint_eq(s.target, 0xffffffff0000f000ull);
}
END_TEST

START_TEST(decode_pg_blocks)
{
	/* stg; brasl %r14,+0x100 from the brasl; lg */
	static const uint8_t pg[] = { STG, 0xc0, 0xe5, 0, 0, 0, 0x80, LG };
	static const uint8_t larl[] = { STG, LARL_R1, 0xc0, 0xe5, 0xff, 0xff,
					0xff, 0x80, LG };
	struct mc_site s;

	s = decode(s390x(), pg, sizeof(pg), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 18);
	ck_assert_uint_eq(s.target, 0x1006 + 0x100);
	s = decode(s390x(), larl, sizeof(larl), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 24);
	ck_assert_uint_eq(s.target, 0x100c - 0x100);
	/* Cut short: not a block, and no overread (ASan). */
	for (size_t n = 0; n < sizeof(pg); n++)
		ck_assert_int_eq(decode(s390x(), pg, n, 0x1000).kind,
				 MC_SITE_UNKNOWN);
	for (size_t n = 0; n < sizeof(larl); n++)
		ck_assert_int_eq(decode(s390x(), larl, n, 0x1000).kind,
				 MC_SITE_UNKNOWN);
}
END_TEST

START_TEST(decode_nops)
{
	static const uint8_t one[] = { JGNOP };
	static const uint8_t three[] = { JGNOP, JGNOP, JGNOP };
	struct mc_site s;

	s = decode(s390x(), one, sizeof(one), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 6);
	/* -mnop-mcount's -pg block reads as one 18-byte site... */
	s = decode(s390x(), three, sizeof(three), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 18);
	/* ... but only when all three are there. */
	s = decode(s390x(), three, 12, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 6);
}
END_TEST

/* The runtime's neutral form: brcl 0,0 over the whole site. */
START_TEST(site_neutral)
{
	static const uint8_t pg[] = { STG, 0xc0, 0xe5, 0, 0, 0, 0x80, LG };
	static const uint8_t fentry[] = { BRASL_R0 };
	static const uint8_t three[] = { JGNOP, JGNOP, JGNOP };
	static const uint8_t garbage[] = { 0xc0, 0xf4, 0, 0, 0, 0 };
	struct mc_site s;
	const uint8_t *n;

	ck_assert_ptr_nonnull(s390x()->site_neutral);
	s = decode(s390x(), pg, sizeof(pg), 0x1000);
	n = mc_site_neutral(s390x(), &s);
	ck_assert_ptr_nonnull(n);
	ck_assert(memcmp(n, three, 18) == 0);
	s = decode(s390x(), fentry, sizeof(fentry), 0x1000);
	n = mc_site_neutral(s390x(), &s);
	ck_assert_ptr_nonnull(n);
	ck_assert(memcmp(n, three, 6) == 0);
	s = decode(s390x(), three, sizeof(three), 0x1000);
	ck_assert_ptr_nonnull(mc_site_neutral(s390x(), &s));
	s = decode(s390x(), garbage, sizeof(garbage), 0x1000);
	ck_assert_ptr_null(mc_site_neutral(s390x(), &s));
	s = (struct mc_site){ MC_SITE_CALL, 12, 0 };
	ck_assert_ptr_null(mc_site_neutral(s390x(), &s));
}
END_TEST

START_TEST(decode_garbage)
{
	static const uint8_t cases[][8] = {
		{ 0xc0, 0xf4, 0, 0, 0, 0 },		/* jg */
		{ 0xc0, 0x14, 0, 0, 0, 0 },		/* jgo */
		{ 0xc0, 0x04, 0, 0, 0, 1 },		/* brcl 0,.+2 */
		{ 0xc0, 0x10, 0, 0, 0, 0 },		/* larl %r1 */
		{ 0xc0, 0x06, 0, 0, 0, 0 },		/* not brasl */
		{ 0x07, 0x07, 0x07, 0x07, 0x07, 0x07 },	/* nopr %r7 x 3 */
		{ 0x47, 0x00, 0x00, 0x00, 0x07, 0x07 },	/* nop 0 */
		{ STG, 0x07, 0x07 },			/* stg, then no call */
		{ LTGR, BR14 },
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mc_site s = decode(s390x(), cases[i], 8, 0x1000);

		ck_assert_msg(s.kind == MC_SITE_UNKNOWN,
			      "case %zu decoded as kind %d", i, s.kind);
	}
}
END_TEST

START_TEST(decode_short_buffers)
{
	static const uint8_t call[] = { BRASL_R0 };
	static const uint8_t nop[] = { JGNOP };

	for (size_t n = 0; n < 6; n++) {
		ck_assert_int_eq(decode(s390x(), call, n, 0).kind,
				 MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(s390x(), nop, n, 0).kind,
				 MC_SITE_UNKNOWN);
	}
}
END_TEST

/* ---- encoders ---------------------------------------------------- */

START_TEST(encode_nop_lengths)
{
	static const unsigned lens[] = { 6, 18, 24 };
	unsigned len = lens[_i];
	uint8_t buf[32];
	char lines[8][DISASM_LINE];

	memset(buf, 0xcc, sizeof(buf));
	ck_assert(mc_encode_nop(s390x(), buf, len));
	for (unsigned i = len; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
	int n = disasm(OBJDUMP, buf, len, 0x1000, lines, 8);
	ck_assert_int_eq(n, (int)len / 6);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(disasm_bytes(lines[i]), 6);
		ck_assert_msg(strncmp(disasm_text(lines[i]), "jgnop", 5) == 0,
			      "'%s'", disasm_text(lines[i]));
	}
	struct mc_site s = decode(s390x(), buf, len, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
}
END_TEST

START_TEST(encode_nop_rejects)
{
	uint8_t buf[32];

	memset(buf, 0xcc, sizeof(buf));
	for (unsigned len = 0; len < 32; len++)
		if (len != 6 && len != 18 && len != 24)
			ck_assert(!mc_encode_nop(s390x(), buf, len));
	ck_assert(!mc_encode_nop(s390x(), buf, UINT32_MAX));
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
}
END_TEST

struct call_case {
	uint64_t site, target;
	bool ok;
};

/* Distances from the brasl: the -pg block's brasl is 6 bytes in. */
static const struct call_case call_cases[] = {
	{ 0x10000, 0x20000, true },
	{ 0x20000, 0x10000, true },
	{ 0x10000, 0x10000, true },
	{ 0x10000, 0x10000 + 0xfffffffeull, true },	/* farthest forward */
	{ 0x10000, 0x10000 + 0x100000000ull, false },	/* one step beyond */
	{ 0x100010000ull, 0x10000, true },		/* farthest back */
	{ 0x100010002ull, 0x10000, false },		/* one step beyond */
	{ 0x10000, 0x10001, false },			/* odd */
	{ 0, UINT64_MAX / 2, false },
	{ UINT64_MAX / 2, 0, false },
};

#define N_CALL_CASES (sizeof(call_cases) / sizeof(call_cases[0]))

START_TEST(encode_call_brasl)
{
	const struct call_case *c = &call_cases[_i];
	uint8_t buf[16];

	memset(buf, 0xcc, sizeof(buf));
	bool ok = mc_encode_call(s390x(), buf, 6, c->site, c->target);
	ck_assert_msg(ok == c->ok, "%#llx -> %#llx: %d",
		      (unsigned long long)c->site,
		      (unsigned long long)c->target, ok);
	for (unsigned i = ok ? 6 : 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
	if (!ok)
		return;
	ck_assert_uint_eq(buf[0], 0xc0);
	ck_assert_uint_eq(buf[1], 0x05);	/* brasl %r0: -mfentry's */
	struct mc_site s = decode(s390x(), buf, 6, c->site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, c->target);
}
END_TEST

/* The 18-byte -pg block: the brasl sits at site + 6. */
START_TEST(encode_call_pg_block)
{
	const struct call_case *c = &call_cases[_i];
	uint8_t buf[32];
	static const uint8_t stg[] = { STG }, lg[] = { LG };

	memset(buf, 0xcc, sizeof(buf));
	bool ok = mc_encode_call(s390x(), buf, 18, c->site - 6, c->target);
	ck_assert_int_eq(ok, c->ok);
	for (unsigned i = ok ? 18 : 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
	if (!ok)
		return;
	ck_assert(memcmp(buf, stg, 6) == 0);
	ck_assert(memcmp(buf + 12, lg, 6) == 0);
	struct mc_site s = decode(s390x(), buf, 18, c->site - 6);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 18);
	ck_assert_uint_eq(s.target, c->target);
}
END_TEST

START_TEST(encode_call_objdump)
{
	uint64_t site = 0x100000, target = _i ? 0x80000 : 0x123456;
	uint8_t buf[18];
	char lines[4][DISASM_LINE], want[32];

	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)target);
	ck_assert(mc_encode_call(s390x(), buf, 6, site, target));
	ck_assert_int_eq(disasm(OBJDUMP, buf, 6, site, lines, 4), 1);
	ck_assert_int_eq(disasm_bytes(lines[0]), 6);
	ck_assert_msg(strncmp(disasm_text(lines[0]), "brasl\t%r0,", 10) == 0,
		      "'%s'", disasm_text(lines[0]));
	ck_assert_msg(strstr(disasm_text(lines[0]), want) != NULL, "'%s'",
		      disasm_text(lines[0]));

	ck_assert(mc_encode_call(s390x(), buf, 18, site, target));
	ck_assert_int_eq(disasm(OBJDUMP, buf, 18, site, lines, 4), 3);
	ck_assert_msg(strncmp(disasm_text(lines[0]), "stg\t%r14,8(%r15)",
			      16) == 0, "'%s'", disasm_text(lines[0]));
	ck_assert_msg(strncmp(disasm_text(lines[1]), "brasl\t%r14,", 11) == 0,
		      "'%s'", disasm_text(lines[1]));
	ck_assert_msg(strstr(disasm_text(lines[1]), want) != NULL, "'%s'",
		      disasm_text(lines[1]));
	ck_assert_msg(strncmp(disasm_text(lines[2]), "lg\t%r14,8(%r15)",
			      15) == 0, "'%s'", disasm_text(lines[2]));
}
END_TEST

START_TEST(encode_call_rejects_lengths)
{
	uint8_t buf[32];

	for (unsigned len = 0; len < 32; len++)
		if (len != 6 && len != 18)
			ck_assert(!mc_encode_call(s390x(), buf, len, 0x1000,
						  0x2000));
}
END_TEST

/* ---- live forms -------------------------------------------------- */

/*
 * The calls the runtime enables and their disabled forms, as
 * s390x-linux-gnu-as assembles them with the RI field 0x80 (a target
 * 0x100 bytes on): the call and its disabled form differ in one bit.
 */
#define BRASL_R0_80 0xc0, 0x05, 0, 0, 0, 0x80	/* brasl %r0,.+0x100 */
#define BRCL_0_80 0xc0, 0x04, 0, 0, 0, 0x80	/* brcl 0,.+0x100 (jgnop) */
#define BRASL_R14_80 0xc0, 0xe5, 0, 0, 0, 0x80	/* brasl %r14,.+0x100 */
#define LGFI_R14_80 0xc0, 0xe1, 0, 0, 0, 0x80	/* lgfi %r14,128 */
#define BRASL_R1_80 0xc0, 0x15, 0, 0, 0, 0x80	/* brasl %r1,.+0x100 */
#define LGFI_R1_80 0xc0, 0x11, 0, 0, 0, 0x80	/* lgfi %r1,128 */

static const struct live_case {
	const char *what;
	bool pad;
	unsigned len;
	uint8_t on[18], off[18];
	const char *insn[3];	/* objdump's mnemonics for `off` */
} live_cases[] = {
	{ "-mfentry", false, 6, { BRASL_R0_80 }, { BRCL_0_80 },
	  { "jgnop\t" } },
	{ "-pg block", false, 18, { STG, BRASL_R14_80, LG },
	  { STG, LGFI_R14_80, LG },
	  { "stg\t%r14,8(%r15)", "lgfi\t%r14,128", "lg\t%r14,8(%r15)" } },
	{ "pad", true, 6, { BRASL_R1_80 }, { LGFI_R1_80 },
	  { "lgfi\t%r1,128" } },
};

/* Bits set in `a` xor `b`, over `n` bytes. */
static unsigned bits_apart(const uint8_t *a, const uint8_t *b, unsigned n)
{
	unsigned bits = 0;

	for (unsigned i = 0; i < n; i++)
		bits += (unsigned)__builtin_popcount(a[i] ^ b[i]);
	return bits;
}

START_TEST(live_forms_disable)
{
	const struct mc_arch *a = s390x();
	const struct live_case *c = &live_cases[_i];
	uint8_t on[18], off[20];
	char lines[4][DISASM_LINE];
	unsigned n = c->len / 6;

	ck_assert_ptr_nonnull(a->live_forms);
	ck_assert_uint_eq(a->live_store_max, 1);
	memcpy(on, c->on, c->len);
	memset(off, 0xcc, sizeof(off));
	ck_assert_msg(a->live_forms(a, on, off, 0, c->len, c->pad, 0x1000),
		      "%s", c->what);
	ck_assert(memcmp(on, c->on, c->len) == 0);
	ck_assert_msg(memcmp(off, c->off, c->len) == 0, "%s", c->what);
	ck_assert_uint_eq(off[c->len], 0xcc);
	ck_assert_uint_eq(bits_apart(on, off, c->len), 1);
	ck_assert_int_eq(disasm(OBJDUMP, off, c->len, 0x1000, lines, 4),
			 (int)n);
	for (unsigned i = 0; i < n; i++)
		ck_assert_msg(strncmp(disasm_text(lines[i]), c->insn[i],
				      strlen(c->insn[i])) == 0, "%s: '%s'",
			      c->what, disasm_text(lines[i]));
}
END_TEST

/*
 * Only the runtime's own three calls: brasl %r0 alone, %r14 in the -pg
 * block, %r1 in a pad.  An `lgfi` into any other register could
 * clobber a live one.
 */
START_TEST(live_forms_reject)
{
	const struct mc_arch *a = s390x();
	uint8_t r14[] = { BRASL_R14_80 }, r0[] = { BRASL_R0_80 };
	uint8_t r1[] = { BRASL_R1_80 }, nop[] = { JGNOP }, off[24];
	uint8_t block_r0[] = { STG, BRASL_R0_80, LG };
	uint8_t larl[] = { STG, LARL_R1, BRASL_R14_80, LG };

	ck_assert(!a->live_forms(a, r14, off, 0, 6, false, 0x1000));
	ck_assert(!a->live_forms(a, r1, off, 0, 6, false, 0x1000));
	ck_assert(!a->live_forms(a, r0, off, 0, 6, true, 0x1000));
	ck_assert(!a->live_forms(a, nop, off, 0, 6, false, 0x1000));
	ck_assert(!a->live_forms(a, block_r0, off, 0, 18, false, 0x1000));
	ck_assert(!a->live_forms(a, larl, off, 0, 24, false, 0x1000));
	ck_assert(!a->live_forms(a, larl, off, 0, 18, true, 0x1000));
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle s390_relocs[] = {
	RELOC(R_390_NONE), RELOC(R_390_32), RELOC(R_390_GLOB_DAT),
	RELOC(R_390_JMP_SLOT), RELOC(R_390_RELATIVE), RELOC(R_390_PC32DBL),
	RELOC(R_390_PLT32DBL), RELOC(R_390_64), RELOC(R_390_GOTENT),
};

START_TEST(s390_reloc_names)
{
	assert_reloc_names(arch("s390x"), s390_relocs, MC_COUNT(s390_relocs));
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *a = arch("s390x");
	static const uint8_t entry[] = {
		0xc0, 0x10, 0x00, 0x00, 0x0e, 0x04,	/* larl %r1, 2020 */
		0xe3, 0x10, 0x10, 0x00, 0x00, 0x04,	/* lg %r1, 0(%r1) */
		0x07, 0xf1,				/* br %r1 */
	};

	ck_assert_uint_eq(mc_plt_slot(a, entry, 14, 0x418, 0), 0x2020);
	ck_assert_uint_eq(mc_plt_slot(a, entry, 13, 0x418, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, entry + 6, 8, 0x41e, 0), 0);
}
END_TEST

static Suite *arch_suite(void)
{
	Suite *s = suite_create("arch_s390");
	TCase *tc;

	tc = tcase_create("registry");
	tcase_add_test(tc, find_by_header);
	tcase_add_test(tc, s390_reloc_names);
	tcase_add_test(tc, hook_symbols);
	tcase_add_test(tc, plt_entry);
	suite_add_tcase(s, tc);

	tc = tcase_create("forms");
	/* Each good form with PLT32DBL (even) and PC32DBL (odd). */
	tcase_add_loop_test(tc, form_matches, 0, 2 * N_GOOD);
	tcase_add_test(tc, form_rejects);
	tcase_add_test(tc, form_pg_needs_whole_block);
	tcase_add_test(tc, form_rejects_wrong_type);
	tcase_add_test(tc, form_rejects_past_end);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_test(tc, decode_brasl);
	tcase_add_test(tc, decode_pg_blocks);
	tcase_add_test(tc, decode_nops);
	tcase_add_test(tc, site_neutral);
	tcase_add_test(tc, decode_garbage);
	tcase_add_test(tc, decode_short_buffers);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, encode_nop_lengths, 0, 3);
	tcase_add_test(tc, encode_nop_rejects);
	tcase_add_loop_test(tc, encode_call_brasl, 0, N_CALL_CASES);
	tcase_add_loop_test(tc, encode_call_pg_block, 0, N_CALL_CASES);
	tcase_add_loop_test(tc, encode_call_objdump, 0, 2);
	tcase_add_test(tc, encode_call_rejects_lengths);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, live_forms_disable, 0,
			    sizeof(live_cases) / sizeof(live_cases[0]));
	tcase_add_test(tc, live_forms_reject);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(arch_suite());
}
