/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_powerpc.c - unit tests of arch/powerpc.c: the registry
 * entries for ppc64le, ppc64 (ELFv1 and ELFv2) and ppc, their object
 * forms, the linked-code decoder and the encoders.
 *
 * Expected values are written out by hand from the Power ISA encodings
 * (bl = opcode 18 with LK, nop = ori 0,0,0); the encoders are also
 * checked against the cross objdump in both byte orders.
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
#define EM_PPC_N 20
#define EM_PPC64_N 21
#define EF_PPC64_ABI_V2_N 2
#define EF_PPC_RELOCATABLE_LIB_N 0x8000
#define R_PPC_ADDR32_N 1
#define R_PPC_REL24_N 10
#define R_PPC_REL14_N 11
#define R_PPC_PLTREL24_N 18
#define R_PPC_RELATIVE_N 22
#define R_PPC64_PLT16_HA_N 31
#define R_PPC64_TOC16_HA_N 50
#define R_PPC64_ADDR64_N 38
#define R_PPC64_PLT16_LO_DS_N 60
#define R_PPC64_REL24_NOTOC_N 116
#define R_PPC64_PLTSEQ_N 119
#define R_PPC64_PLTCALL_N 120
#define R_PPC64_PLTSEQ_NOTOC_N 121
#define R_PPC64_PLTCALL_NOTOC_N 122
#define R_PPC64_PLT_PCREL34_NOTOC_N 135

/* Loop index -> one of the three entries. */
static const char *const arch_names[] = { "ppc64le", "ppc64", "ppc" };

static bool is_be(const struct mc_arch *a)
{
	return a->endian == MC_BIG_ENDIAN;
}

/* A 32-bit word in the arch's byte order. */
static void put_word(const struct mc_arch *a, uint8_t *p, uint32_t w)
{
	for (int i = 0; i < 4; i++)
		p[is_be(a) ? i : 3 - i] = (uint8_t)(w >> (24 - 8 * i));
}

static const char *objdump_for(const struct mc_arch *a)
{
	if (strcmp(a->name, "ppc64le") == 0)
		return "powerpc64le-linux-gnu-objdump -m powerpc:common64 -EL";
	if (strcmp(a->name, "ppc64") == 0)
		return "powerpc64-linux-gnu-objdump -m powerpc:common64 -EB";
	return "powerpc-linux-gnu-objdump -m powerpc:common -EB";
}

/* ---- registry ---------------------------------------------------- */

START_TEST(find_by_header)
{
	const struct mc_arch *le = mc_arch_find(EM_PPC64_N, 64, MC_LITTLE_ENDIAN,
						EF_PPC64_ABI_V2_N);
	const struct mc_arch *v1 = mc_arch_find(EM_PPC64_N, 64, MC_BIG_ENDIAN, 0);
	const struct mc_arch *v2 = mc_arch_find(EM_PPC64_N, 64, MC_BIG_ENDIAN,
						EF_PPC64_ABI_V2_N);
	const struct mc_arch *p32 = mc_arch_find(EM_PPC_N, 32, MC_BIG_ENDIAN, 0);

	ck_assert_ptr_nonnull(le);
	ck_assert_str_eq(le->name, "ppc64le");
	ck_assert_ptr_nonnull(v1);
	ck_assert_str_eq(v1->name, "ppc64");
	/* ELFv2 on big endian (-mabi=elfv2): the same hooks, same entry. */
	ck_assert_ptr_eq(v2, v1);
	/* ELFv1 on little endian (-mabi=elfv1) likewise. */
	ck_assert_ptr_eq(mc_arch_find(EM_PPC64_N, 64, MC_LITTLE_ENDIAN, 0), le);
	ck_assert_ptr_nonnull(p32);
	ck_assert_str_eq(p32->name, "ppc");
	/* Debian's PIE default marks objects "relocatable-lib". */
	ck_assert_ptr_eq(mc_arch_find(EM_PPC_N, 32, MC_BIG_ENDIAN,
				      EF_PPC_RELOCATABLE_LIB_N), p32);
}
END_TEST

START_TEST(find_rejects)
{
	ck_assert_ptr_null(mc_arch_find(EM_PPC64_N, 32, MC_BIG_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_find(EM_PPC_N, 64, MC_BIG_ENDIAN, 0));
	/* Little-endian 32-bit PowerPC is not supported. */
	ck_assert_ptr_null(mc_arch_find(EM_PPC_N, 32, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_by_name("powerpc"));
	ck_assert_ptr_null(mc_arch_by_name("ppc64el"));
	ck_assert_ptr_null(mc_arch_by_name("ppc32"));
}
END_TEST

START_TEST(table_facts)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	bool is64 = _i < 2;

	ck_assert_uint_eq(a->e_machine, is64 ? EM_PPC64_N : EM_PPC_N);
	ck_assert_uint_eq(a->elf_class, is64 ? 64 : 32);
	ck_assert_int_eq(a->endian, _i == 0 ? MC_LITTLE_ENDIAN : MC_BIG_ENDIAN);
	ck_assert_uint_eq(a->addr_size, is64 ? 8 : 4);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, is64 ? R_PPC64_ADDR64_N
					       : R_PPC_ADDR32_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert_uint_eq(a->relative_reloc, R_PPC_RELATIVE_N);
	/* Descriptors live in .opd, never in the code: no filter needed. */
	ck_assert(!a->anchor_avoid_func);
	ck_assert_ptr_null(a->accepts_flags);
	ck_assert_ptr_nonnull(a->decode_site);
	ck_assert_ptr_nonnull(a->encode_nop);
	ck_assert_ptr_nonnull(a->encode_call);
	for (unsigned i = 0; i < a->n_forms; i++) {
		ck_assert_uint_le(a->forms[i].len, MC_MAX_SITE_LEN);
		ck_assert_ptr_nonnull(a->forms[i].nop);
	}
	/* ppc64 -pg: the bl follows a full register save (168 bytes). */
	ck_assert_uint_ge(a->max_entry_offset, is64 ? 168 : 8);
}
END_TEST

START_TEST(hook_symbols)
{
	const struct mc_arch *a = arch(arch_names[_i]);

	ck_assert(mc_is_hook_symbol(a, "_mcount"));
	/* ELFv1 code symbols with -mcall-aixdesc: the kernel's build. */
	ck_assert(mc_is_hook_symbol(a, "._mcount") == (_i < 2));
	ck_assert(!mc_is_hook_symbol(a, "mcount"));
	ck_assert(!mc_is_hook_symbol(a, ".mcount"));
	ck_assert(!mc_is_hook_symbol(a, "__fentry__"));
	ck_assert(!mc_is_hook_symbol(a, "_mcount."));
	ck_assert(!mc_is_hook_symbol(a, ""));
}
END_TEST

START_TEST(companions)
{
	const struct mc_arch *le = arch("ppc64le"), *be = arch("ppc64");
	const uint32_t plt_seq[] = {
		R_PPC64_PLT16_HA_N, R_PPC64_PLT16_LO_DS_N, R_PPC64_PLTSEQ_N,
		R_PPC64_PLTSEQ_NOTOC_N, R_PPC64_PLT_PCREL34_NOTOC_N,
	};

	for (size_t i = 0; i < sizeof(plt_seq) / sizeof(plt_seq[0]); i++) {
		ck_assert(mc_is_companion_reloc(le, plt_seq[i]));
		ck_assert(mc_is_companion_reloc(be, plt_seq[i]));
	}
	/* The calls themselves are not companions. */
	ck_assert(!mc_is_companion_reloc(le, R_PPC_REL24_N));
	ck_assert(!mc_is_companion_reloc(le, R_PPC64_PLTCALL_N));
	ck_assert(!mc_is_companion_reloc(be, R_PPC64_REL24_NOTOC_N));
	ck_assert_uint_eq(arch("ppc")->n_companion_relocs, 0);
}
END_TEST

/* ---- object forms ------------------------------------------------ */

/* mflr r0; <word>; blr: the site is the middle word, offset 4. */
static size_t code_with(const struct mc_arch *a, uint8_t *buf, uint32_t w)
{
	put_word(a, buf, 0x7c0802a6);		/* mflr r0 */
	put_word(a, buf + 4, w);
	put_word(a, buf + 8, 0x4e800020);	/* blr */
	return 12;
}

struct form_case {
	const char *arch;
	uint32_t type;
	uint32_t word;
	const char *name;
};

static const struct form_case good_forms[] = {
	{ "ppc64le", R_PPC_REL24_N, 0x48000001, "bl" },
	{ "ppc64le", R_PPC64_REL24_NOTOC_N, 0x48000001, "bl" },
	{ "ppc64le", R_PPC64_PLTCALL_N, 0x4e800421, "bctrl" },
	{ "ppc64le", R_PPC64_PLTCALL_NOTOC_N, 0x4e800421, "bctrl" },
	{ "ppc64", R_PPC_REL24_N, 0x48000001, "bl" },
	{ "ppc64", R_PPC64_REL24_NOTOC_N, 0x48000001, "bl" },
	{ "ppc64", R_PPC64_PLTCALL_N, 0x4e800421, "bctrl" },
	{ "ppc", R_PPC_REL24_N, 0x48000001, "bl" },
	{ "ppc", R_PPC_PLTREL24_N, 0x48000001, "bl" },
	/* A displacement already in the word (REL-style input) is fine. */
	{ "ppc", R_PPC_REL24_N, 0x4bfffff1, "bl" },
	{ "ppc64", R_PPC_REL24_N, 0x49fffffd, "bl" },
};

START_TEST(form_matches)
{
	const struct form_case *c = &good_forms[_i];
	const struct mc_arch *a = arch(c->arch);
	uint8_t sec[12];
	size_t size = code_with(a, sec, c->word);
	const struct mc_object_form *f =
		mc_match_form(a, c->type, sec, size, 4);

	ck_assert_msg(f != NULL, "%s type %u not matched", c->arch, c->type);
	ck_assert_str_eq(f->name, c->name);
	/* The relocation covers the whole word: r_offset is the site. */
	ck_assert_int_eq(f->field_offset, 0);
	ck_assert_uint_eq(f->len, 4);
	ck_assert_ptr_nonnull(f->nop);

	/* The neutral bytes are `nop` in the arch's byte order. */
	uint8_t nop[4];
	put_word(a, nop, 0x60000000);
	ck_assert(memcmp(f->nop, nop, 4) == 0);

	/* The site ends exactly at the section's end, and one short. */
	ck_assert_ptr_eq(mc_match_form(a, c->type, sec, 8, 4), f);
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, 7, 4));
	/* Off by one, two, four bytes: other words or no word at all. */
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size, 3));
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size, 5));
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size, 0));
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size, 8));
}
END_TEST

START_TEST(form_rejects_wrong_opcode)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	static const uint32_t words[] = {
		0x48000000,	/* b: a tail call, not a hook */
		0x48000003,	/* bla: absolute */
		0x48000002,	/* ba */
		0x4c000001,	/* opcode 19 with LK */
		0x4e800420,	/* bctr: tail call through CTR */
		0x4e800021,	/* blrl */
		0x60000000,	/* nop */
		0x7c0802a6,	/* mflr r0 */
	};
	uint8_t sec[12];

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = code_with(a, sec, words[i]);

		ck_assert_msg(!mc_match_form(a, R_PPC_REL24_N, sec, n, 4) &&
			      !mc_match_form(a, R_PPC_PLTREL24_N, sec, n, 4) &&
			      !mc_match_form(a, R_PPC64_PLTCALL_N, sec, n, 4),
			      "%s: word %08x matched", a->name, words[i]);
	}
	/* The other byte order's bl is not a bl. */
	uint8_t swapped[4];
	put_word(a, swapped, 0x48000001);
	for (int i = 0; i < 2; i++) {
		uint8_t t = swapped[i];

		swapped[i] = swapped[3 - i];
		swapped[3 - i] = t;
	}
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, swapped, 4, 0));
}
END_TEST

START_TEST(form_rejects_wrong_type)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t sec[12];
	size_t n = code_with(a, sec, 0x48000001);

	ck_assert_ptr_null(mc_match_form(a, 0, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_ADDR32_N, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL14_N, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC64_ADDR64_N, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC64_TOC16_HA_N, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC64_PLTCALL_N, sec, n, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC64_PLTSEQ_N, sec, n, 4));
	/* ppc32's PLTREL24 is no ppc64 call, ppc64's REL24_NOTOC no ppc32 one. */
	if (_i < 2)
		ck_assert_ptr_null(mc_match_form(a, R_PPC_PLTREL24_N, sec, n,
						 4));
	else
		ck_assert_ptr_null(mc_match_form(a, R_PPC64_REL24_NOTOC_N, sec,
						 n, 4));
	/* REL24 on a bctrl. */
	n = code_with(a, sec, 0x4e800421);
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, sec, n, 4));
}
END_TEST

START_TEST(form_rejects_past_end)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t bl[4];

	put_word(a, bl, 0x48000001);
	for (uint64_t size = 0; size < 4; size++)
		ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, bl, size, 0));
	ck_assert_ptr_nonnull(mc_match_form(a, R_PPC_REL24_N, bl, 4, 0));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, bl, 4, 4));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, bl, 4, 1000));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, bl, 4,
					 UINT64_MAX));
	ck_assert_ptr_null(mc_match_form(a, R_PPC_REL24_N, bl, 4,
					 UINT64_MAX - 2));
}
END_TEST

/* ---- decode_site ------------------------------------------------- */

static struct mc_site decode_word(const struct mc_arch *a, uint32_t w,
				  uint64_t addr)
{
	uint8_t b[4];

	put_word(a, b, w);
	return decode(a, b, 4, addr);
}

START_TEST(decode_bl)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	struct mc_site s;

	s = decode_word(a, 0x48000101, 0x10000);	/* bl +0x100 */
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, 0x10100);

	s = decode_word(a, 0x4bfff001, 0x10000);	/* bl -0x1000 */
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0xf000);

	s = decode_word(a, 0x48000001, 0x10000);	/* bl . */
	ck_assert_uint_eq(s.target, 0x10000);

	s = decode_word(a, 0x49fffffd, 0x10000);	/* farthest forward */
	ck_assert_uint_eq(s.target, 0x10000 + 0x1fffffc);

	s = decode_word(a, 0x4a000001, 0x4000000);	/* farthest back */
	ck_assert_uint_eq(s.target, 0x2000000);

	/* Sign extension in the kernel's half of the address space. */
	s = decode_word(a, 0x4bfff001, 0xc000000000010000ull);
	ck_assert_uint_eq(s.target, 0xc00000000000f000ull);
}
END_TEST

START_TEST(decode_nop)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	struct mc_site s = decode_word(a, 0x60000000, 0x1000);

	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
}
END_TEST

/* The runtime's neutral form of a bl or nop is `nop`; else none. */
START_TEST(site_neutral)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	struct mc_site s;
	uint8_t nop[4];
	const uint8_t *n;

	put_word(a, nop, 0x60000000);
	ck_assert_ptr_nonnull(a->site_neutral);
	s = decode_word(a, 0x48000101, 0x10000);	/* bl +0x100 */
	n = mc_site_neutral(a, &s);
	ck_assert_ptr_nonnull(n);
	ck_assert(memcmp(n, nop, 4) == 0);
	s = decode_word(a, 0x60000000, 0x10000);	/* nop */
	n = mc_site_neutral(a, &s);
	ck_assert_ptr_nonnull(n);
	ck_assert(memcmp(n, nop, 4) == 0);
	s = decode_word(a, 0x4e800020, 0x10000);	/* blr */
	ck_assert_ptr_null(mc_site_neutral(a, &s));
}
END_TEST

START_TEST(decode_garbage)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	static const uint32_t words[] = {
		0x48000000,	/* b */
		0x48000008,	/* b +8: the kernel's module NOP, not ours */
		0x48000003,	/* bla */
		0x4e800421,	/* bctrl: destination unknown statically */
		0x4e800020,	/* blr */
		0x60000001,	/* ori r0,r0,1 */
		0x60420000,	/* ori r2,r2,0 */
		0x7c0802a6,	/* mflr r0 */
		0x00000000,
		0xffffffff,
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct mc_site s = decode_word(a, words[i], 0x1000);

		ck_assert_msg(s.kind == MC_SITE_UNKNOWN,
			      "%s: %08x decoded as kind %d", a->name, words[i],
			      s.kind);
	}
	/* A byte-swapped bl is some other instruction. */
	uint8_t b[4];
	put_word(a, b, 0x01000048);
	ck_assert_int_eq(decode(a, b, 4, 0).kind, MC_SITE_UNKNOWN);
}
END_TEST

START_TEST(decode_short_buffers)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t bl[4], nop[4];

	put_word(a, bl, 0x48000101);
	put_word(a, nop, 0x60000000);
	for (size_t n = 0; n < 4; n++) {
		ck_assert_int_eq(decode(a, bl, n, 0).kind, MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(a, nop, n, 0).kind, MC_SITE_UNKNOWN);
	}
}
END_TEST

/* ---- encoders ---------------------------------------------------- */

START_TEST(encode_nop)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t buf[16], want[4];
	char lines[4][DISASM_LINE];

	memset(buf, 0xcc, sizeof(buf));
	ck_assert(mc_encode_nop(a, buf, 4));
	for (unsigned i = 4; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
	put_word(a, want, 0x60000000);
	ck_assert(memcmp(buf, want, 4) == 0);
	ck_assert_int_eq(disasm(objdump_for(a), buf, 4, 0, lines, 4), 1);
	ck_assert_int_eq(disasm_bytes(lines[0]), 4);
	ck_assert_msg(strncmp(disasm_text(lines[0]), "nop", 3) == 0, "'%s'",
		      disasm_text(lines[0]));
	struct mc_site s = decode(a, buf, 4, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
}
END_TEST

START_TEST(encode_nop_rejects)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t buf[32];

	memset(buf, 0xcc, sizeof(buf));
	for (unsigned len = 0; len < 32; len++)
		if (len != 4)
			ck_assert(!mc_encode_nop(a, buf, len));
	ck_assert(!mc_encode_nop(a, buf, UINT32_MAX));
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
}
END_TEST

struct call_case {
	uint64_t site, target;
	bool ok;
};

static const struct call_case call_cases[] = {
	{ 0x10000, 0x20000, true },
	{ 0x20000, 0x10000, true },
	{ 0x10000, 0x10000, true },			/* to itself */
	{ 0x10000, 0x10000 + 0x1fffffc, true },		/* farthest forward */
	{ 0x10000, 0x10000 + 0x2000000, false },	/* one word beyond */
	{ 0x4000000, 0x2000000, true },			/* farthest back */
	{ 0x4000000, 0x1fffffc, false },		/* one word beyond */
	{ 0x10000, 0x10002, false },			/* not word aligned */
	{ 0x10000, 0x10001, false },
	{ 0xc000000000010000ull, 0xc000000000008000ull, true },
	{ 0, UINT64_MAX / 2, false },
	{ UINT64_MAX / 2, 0, false },
};

#define N_CALL_CASES (sizeof(call_cases) / sizeof(call_cases[0]))

START_TEST(encode_call_roundtrip)
{
	const struct mc_arch *a = arch(arch_names[_i / N_CALL_CASES]);
	const struct call_case *c = &call_cases[_i % N_CALL_CASES];
	uint8_t buf[16];

	memset(buf, 0xcc, sizeof(buf));
	bool ok = mc_encode_call(a, buf, 4, c->site, c->target);
	ck_assert_msg(ok == c->ok, "%s: %#llx -> %#llx: %d", a->name,
		      (unsigned long long)c->site,
		      (unsigned long long)c->target, ok);
	for (unsigned i = ok ? 4 : 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
	if (!ok)
		return;
	struct mc_site s = decode(a, buf, 4, c->site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, c->target);
}
END_TEST

START_TEST(encode_call_objdump)
{
	const struct mc_arch *a = arch(arch_names[_i / 2]);
	uint64_t site = 0x100000, target = _i % 2 ? 0x80000 : 0x123454;
	uint8_t buf[4];
	char lines[4][DISASM_LINE], want[32];

	ck_assert(mc_encode_call(a, buf, 4, site, target));
	ck_assert_int_eq(disasm(objdump_for(a), buf, 4, site, lines, 4), 1);
	ck_assert_int_eq(disasm_bytes(lines[0]), 4);
	const char *text = disasm_text(lines[0]);
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)target);
	ck_assert_msg(strncmp(text, "bl ", 3) == 0, "'%s'", text);
	ck_assert_msg(strstr(text, want) != NULL, "'%s' lacks %s", text, want);
}
END_TEST

START_TEST(encode_call_rejects_lengths)
{
	const struct mc_arch *a = arch(arch_names[_i]);
	uint8_t buf[32];

	for (unsigned len = 0; len < 32; len++)
		if (len != 4)
			ck_assert(!mc_encode_call(a, buf, len, 0x1000, 0x2000));
}
END_TEST

/* ---- live forms (ppc64le) ------------------------------------------ */

/*
 * The words as powerpc64le-linux-gnu-as assembles `mflr 0; bl .+0x100;
 * nop` at 0 (the bl at 4).
 */
#define LE_MFLR_R0 0xa6, 0x02, 0x08, 0x7c	/* mflr r0 */
#define LE_BL_100 0x01, 0x01, 0x00, 0x48	/* bl .+0x100 */
#define LE_NOP 0x00, 0x00, 0x00, 0x60		/* nop */

/* A hook's `bl` is disabled by `nop`, the only word that changes. */
START_TEST(live_forms_hook)
{
	const struct mc_arch *a = arch("ppc64le");
	uint8_t on[] = { LE_BL_100 }, off[8];
	static const uint8_t want_on[] = { LE_BL_100 };
	static const uint8_t want_off[] = { LE_NOP };

	ck_assert_ptr_nonnull(a->live_forms);
	ck_assert_uint_eq(a->live_store_max, 4);
	memset(off, 0xcc, sizeof(off));
	ck_assert(a->live_forms(a, on, off, 0, 4, false, 0x1000));
	ck_assert(memcmp(on, want_on, 4) == 0);
	ck_assert(memcmp(off, want_off, 4) == 0);
	ck_assert_uint_eq(off[4], 0xcc);
}
END_TEST

/*
 * A pad keeps its `mflr r0` when disabled: the bl word alone changes,
 * to a nop, and objdump reads the disabled pad as `mflr r0; nop`.
 */
START_TEST(live_forms_pad)
{
	const struct mc_arch *a = arch("ppc64le");
	uint8_t on[] = { LE_MFLR_R0, LE_BL_100 }, off[8];
	static const uint8_t want_off[] = { LE_MFLR_R0, LE_NOP };
	char lines[4][DISASM_LINE];

	ck_assert(a->live_forms(a, on, off, 0, 8, true, 0x1000));
	ck_assert(memcmp(off, want_off, 8) == 0);
	ck_assert_int_eq(disasm(objdump_for(a), off, 8, 0x1000, lines, 4), 2);
	ck_assert_msg(strncmp(disasm_text(lines[0]), "mflr", 4) == 0, "'%s'",
		      disasm_text(lines[0]));
	ck_assert_msg(strncmp(disasm_text(lines[1]), "nop", 3) == 0, "'%s'",
		      disasm_text(lines[1]));
}
END_TEST

/* No live form for anything else than those two. */
START_TEST(live_forms_reject)
{
	const struct mc_arch *a = arch("ppc64le");
	uint8_t hook[] = { LE_BL_100 }, nop[] = { LE_NOP };
	uint8_t pad_nop[] = { LE_NOP, LE_BL_100 };
	uint8_t pad[] = { LE_MFLR_R0, LE_BL_100 }, off[16];

	ck_assert(!a->live_forms(a, nop, off, 0, 4, false, 0));	/* no call */
	ck_assert(!a->live_forms(a, hook, off, 0, 4, true, 0));	/* pad: 8 */
	ck_assert(!a->live_forms(a, pad, off, 0, 8, false, 0));	/* hook: 4 */
	ck_assert(!a->live_forms(a, pad_nop, off, 0, 8, true, 0)); /* no mflr */
	/* The big-endian entries have no pads and keep the default. */
	ck_assert_ptr_null(arch("ppc64")->live_forms);
	ck_assert_ptr_null(arch("ppc")->live_forms);
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
/*
 * glibc 2.36's <elf.h> stops short of the ppc64 ELFv2 ABI's newer types
 * (power10's NOTOC calls and PC-relative PLT loads, inline PLT
 * sequences); these numbers are the ABI's, which binutils' readelf
 * names the same way.
 */
#ifndef R_PPC64_REL24_NOTOC
#define R_PPC64_REL24_NOTOC 116
#define R_PPC64_PLTSEQ 119
#define R_PPC64_PLTCALL 120
#define R_PPC64_PLTSEQ_NOTOC 121
#define R_PPC64_PLTCALL_NOTOC 122
#define R_PPC64_PLT_PCREL34 134
#define R_PPC64_PLT_PCREL34_NOTOC 135
#endif

static const struct reloc_oracle ppc64_relocs[] = {
	RELOC(R_PPC64_NONE), RELOC(R_PPC64_ADDR32), RELOC(R_PPC64_ADDR16_LO),
	RELOC(R_PPC64_ADDR16_HA), RELOC(R_PPC64_REL24),
	RELOC(R_PPC64_GLOB_DAT), RELOC(R_PPC64_JMP_SLOT),
	RELOC(R_PPC64_RELATIVE), RELOC(R_PPC64_PLT16_HA),
	RELOC(R_PPC64_ADDR64), RELOC(R_PPC64_TOC16), RELOC(R_PPC64_TOC16_LO),
	RELOC(R_PPC64_TOC16_HA), RELOC(R_PPC64_PLT16_LO_DS),
	RELOC(R_PPC64_REL24_NOTOC), RELOC(R_PPC64_PLTSEQ),
	RELOC(R_PPC64_PLTCALL), RELOC(R_PPC64_PLTSEQ_NOTOC),
	RELOC(R_PPC64_PLTCALL_NOTOC), RELOC(R_PPC64_PLT_PCREL34),
	RELOC(R_PPC64_PLT_PCREL34_NOTOC),
};

static const struct reloc_oracle ppc_relocs[] = {
	RELOC(R_PPC_NONE), RELOC(R_PPC_ADDR32), RELOC(R_PPC_ADDR16_LO),
	RELOC(R_PPC_ADDR16_HA), RELOC(R_PPC_REL24), RELOC(R_PPC_PLTREL24),
	RELOC(R_PPC_GLOB_DAT), RELOC(R_PPC_JMP_SLOT), RELOC(R_PPC_RELATIVE),
};

START_TEST(powerpc_reloc_names)
{
	assert_reloc_names(arch("ppc64le"), ppc64_relocs, MC_COUNT(ppc64_relocs));
	assert_reloc_names(arch("ppc64"), ppc64_relocs, MC_COUNT(ppc64_relocs));
	assert_reloc_names(arch("ppc"), ppc_relocs, MC_COUNT(ppc_relocs));
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *a = arch("ppc64le");
	/* GNU ld's plt_call stub; .got at 0x1ff00 (readelf -S): r2 = 0x27f00 */
	static const uint8_t stub[] = {
		0x18, 0x00, 0x41, 0xf8,		/* std r2,24(r1) */
		0x30, 0x81, 0x82, 0xe9,		/* ld r12,-32464(r2) */
		0xa6, 0x03, 0x89, 0x7d,		/* mtctr r12 */
		0x20, 0x04, 0x80, 0x4e,		/* bctr */
	};

	ck_assert_uint_eq(mc_plt_slot(a, stub, 16, 0x3a0, 0x27f00), 0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, stub + 4, 12, 0x3a4, 0x27f00),
			  0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, stub, 16, 0x3a0, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, stub, 15, 0x3a0, 0x27f00), 0);
}
END_TEST

/*
 * PC-relative (-mcpu=power10) call stubs as GNU ld 2.40 linked them
 * (objdump -d of a -shared link, prog.c and main.c of the check suite):
 * the slot is the one readelf -r shows _mcount's R_PPC64_JMP_SLOT at,
 * 0x20030, whatever r2 holds; cut short or changed, none.
 */
START_TEST(plt_pcrel_stub)
{
	const struct mc_arch *a = arch("ppc64le");
	/* ld --power10-stubs: 00000031.plt_call._mcount at 0x3a0 */
	static const uint8_t pld[] = {
		0x01, 0x00, 0x10, 0x04,		/* pld r12,130192 */
		0x90, 0xfc, 0x80, 0xe5,
		0xa6, 0x03, 0x89, 0x7d,		/* mtctr r12 */
		0x20, 0x04, 0x80, 0x4e,		/* bctr */
	};
	/* ld's default: the same stub for an older machine, at 0x3a0 */
	static const uint8_t bcl[] = {
		0xa6, 0x02, 0x88, 0x7d,		/* mflr r12 */
		0x05, 0x00, 0x9f, 0x42,		/* bcl 20,31,.+4 */
		0xa6, 0x02, 0x68, 0x7d,		/* mflr r11 */
		0xa6, 0x03, 0x88, 0x7d,		/* mtlr r12 */
		0x02, 0x00, 0x8b, 0x3d,		/* addis r12,r11,2 */
		0x88, 0xfc, 0x8c, 0xe9,		/* ld r12,-888(r12) */
		0xa6, 0x03, 0x89, 0x7d,		/* mtctr r12 */
		0x20, 0x04, 0x80, 0x4e,		/* bctr */
	};
	/* a stub shared with a TOC caller: std r2,24(r1) first */
	uint8_t both[4 + sizeof(pld)] = { 0x18, 0x00, 0x41, 0xf8 };
	static const uint8_t mflr_r0[] = { 0xa6, 0x02, 0x08, 0x7c };
	uint8_t bad[sizeof(bcl)];

	memcpy(both + 4, pld, sizeof(pld));
	ck_assert_uint_eq(mc_plt_slot(a, pld, 16, 0x3a0, 0), 0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, pld, 16, 0x3a0, 0x27f00), 0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, both, 20, 0x39c, 0), 0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, bcl, 32, 0x3a0, 0), 0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, pld, 15, 0x3a0, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(a, bcl, 31, 0x3a0, 0), 0);
	/* pld r12,d(r12) (R = 0): not relative to the stub */
	memcpy(bad, pld, sizeof(pld));
	bad[2] = 0x00;
	ck_assert_uint_eq(mc_plt_slot(a, bad, 16, 0x3a0, 0), 0);
	/* mflr r0 for mflr r12: lr is not kept, no stub of ours */
	memcpy(bad, bcl, sizeof(bcl));
	memcpy(bad, mflr_r0, sizeof(mflr_r0));
	ck_assert_uint_eq(mc_plt_slot(a, bad, 32, 0x3a0, 0), 0);
	/* addi r12,r12,lo for the ld: an address, not a slot's contents */
	memcpy(bad, bcl, sizeof(bcl));
	bad[23] = 0x39;
	ck_assert_uint_eq(mc_plt_slot(a, bad, 32, 0x3a0, 0), 0);
}
END_TEST

/*
 * The longest stub, the bcl form shared with a TOC caller, fits in the
 * plt_read bytes the runtime hands the decoder (9 words, 36 bytes).
 */
START_TEST(plt_read_covers_stubs)
{
	const struct mc_arch *a = arch("ppc64le");
	static const uint8_t stub[] = {
		0x18, 0x00, 0x41, 0xf8,		/* std r2,24(r1) */
		0xa6, 0x02, 0x88, 0x7d,		/* mflr r12 */
		0x05, 0x00, 0x9f, 0x42,		/* bcl 20,31,.+4 */
		0xa6, 0x02, 0x68, 0x7d,		/* mflr r11 */
		0xa6, 0x03, 0x88, 0x7d,		/* mtlr r12 */
		0x02, 0x00, 0x8b, 0x3d,		/* addis r12,r11,2 */
		0x88, 0xfc, 0x8c, 0xe9,		/* ld r12,-888(r12) */
		0xa6, 0x03, 0x89, 0x7d,		/* mtctr r12 */
		0x20, 0x04, 0x80, 0x4e,		/* bctr */
	};

	ck_assert_uint_eq(a->plt_read, sizeof(stub));
	ck_assert_uint_eq(mc_plt_slot(a, stub, a->plt_read, 0x39c, 0),
			  0x20030);
	ck_assert_uint_eq(mc_plt_slot(a, stub, a->plt_read - 1, 0x39c, 0), 0);
}
END_TEST

/*
 * GCC 12's -pg prologue of tests/trace/args.c's add (powerpc64le-linux-
 * gnu-objdump -d), from the global entry to the hook: the arguments
 * moved to saved registers and summed, r3-r10 not written, so a
 * recorder may read them at the hook.  `mflr r0` (mfspr, whose SPR
 * field lies where RA would) and `mr` (or: RA is written, RS read) are
 * told right; then `li r3, 0`, `mr r4, r31` or a branch before the hook
 * make it refuse, as does a length that is not whole instructions.
 */
START_TEST(args_kept)
{
	static const uint8_t gcc_add[] = {
		0x00, 0x00, 0x4c, 0x3c,		/* addis r2,r12,0 */
		0x00, 0x00, 0x42, 0x38,		/* addi r2,r2,0 */
		0xa6, 0x02, 0x08, 0x7c,		/* mflr r0 */
		0xe8, 0xff, 0xa1, 0xfb,		/* std r29,-24(r1) */
		0xf0, 0xff, 0xc1, 0xfb,		/* std r30,-16(r1) */
		0x78, 0x23, 0x9d, 0x7c,		/* mr r29,r4 */
		0xf8, 0xff, 0xe1, 0xfb,		/* std r31,-8(r1) */
		0x78, 0x1b, 0x7e, 0x7c,		/* mr r30,r3 */
		0x14, 0xea, 0xfe, 0x7f,		/* add r31,r30,r29 */
		0xb4, 0x07, 0xff, 0x7f,		/* extsw r31,r31 */
		0x10, 0x00, 0x01, 0xf8,		/* std r0,16(r1) */
		0x81, 0xff, 0x21, 0xf8,		/* stdu r1,-128(r1) */
	};
	static const uint32_t spoilers[] = {
		0x38600000u,			/* li r3,0 */
		0x7fe4fb78u,			/* mr r4,r31 */
		0x48000008u,			/* b .+8 */
	};
	uint8_t code[sizeof(gcc_add) + 4];

	ck_assert(mc_arch_ppc64le_args_kept(gcc_add, sizeof(gcc_add)));
	ck_assert(!mc_arch_ppc64le_args_kept(gcc_add, sizeof(gcc_add) - 2));
	memcpy(code, gcc_add, sizeof(gcc_add));
	for (size_t i = 0; i < MC_COUNT(spoilers); i++) {
		mc_put_le32(code + sizeof(gcc_add), spoilers[i]);
		ck_assert_msg(!mc_arch_ppc64le_args_kept(code, sizeof(code)),
			      "0x%08x", spoilers[i]);
	}
}
END_TEST

static Suite *arch_suite(void)
{
	Suite *s = suite_create("arch_powerpc");
	TCase *tc;

	/* Loop index over arch_names: 0 ppc64le, 1 ppc64, 2 ppc. */
	tc = tcase_create("registry");
	tcase_add_test(tc, find_by_header);
	tcase_add_test(tc, powerpc_reloc_names);
	tcase_add_test(tc, find_rejects);
	tcase_add_loop_test(tc, table_facts, 0, 3);
	tcase_add_loop_test(tc, hook_symbols, 0, 3);
	tcase_add_test(tc, companions);
	tcase_add_test(tc, plt_entry);
	tcase_add_test(tc, plt_pcrel_stub);
	tcase_add_test(tc, plt_read_covers_stubs);
	suite_add_tcase(s, tc);

	tc = tcase_create("forms");
	tcase_add_loop_test(tc, form_matches, 0,
			    sizeof(good_forms) / sizeof(good_forms[0]));
	tcase_add_loop_test(tc, form_rejects_wrong_opcode, 0, 3);
	tcase_add_loop_test(tc, form_rejects_wrong_type, 0, 3);
	tcase_add_loop_test(tc, form_rejects_past_end, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_loop_test(tc, decode_bl, 0, 3);
	tcase_add_loop_test(tc, decode_nop, 0, 3);
	tcase_add_loop_test(tc, site_neutral, 0, 3);
	tcase_add_loop_test(tc, decode_garbage, 0, 3);
	tcase_add_loop_test(tc, decode_short_buffers, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, encode_nop, 0, 3);
	tcase_add_loop_test(tc, encode_nop_rejects, 0, 3);
	tcase_add_loop_test(tc, encode_call_roundtrip, 0, 3 * N_CALL_CASES);
	tcase_add_loop_test(tc, encode_call_objdump, 0, 6);
	tcase_add_loop_test(tc, encode_call_rejects_lengths, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, live_forms_hook);
	tcase_add_test(tc, live_forms_pad);
	tcase_add_test(tc, live_forms_reject);
	tcase_add_test(tc, args_kept);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(arch_suite());
}
