/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_x86.c - unit tests of arch/: the registry, the x86_64 and
 * i386 object forms, the linked-code decoder and the encoders.
 *
 * Expected values are written out by hand from the Intel SDM encodings;
 * the NOP and call encoders are additionally checked against objdump,
 * which disassembles the bytes we produce without knowing our tables.
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_test.h"
#include "../../arch/search.h"
#include "disasm.h"
#include "unit.h"

/* ELF numbers, spelled out here so the tests do not share the arch's. */
#define EM_386_N 3
#define EM_X86_64_N 62
#define R_X86_64_64_N 1
#define R_X86_64_PC32_N 2
#define R_X86_64_PLT32_N 4
#define R_X86_64_GOTPCREL_N 9
#define R_X86_64_GOTPCRELX_N 41
#define R_X86_64_REX_GOTPCRELX_N 42
#define R_386_32_N 1
#define R_386_PC32_N 2
#define R_386_GOT32_N 3
#define R_386_PLT32_N 4
#define R_386_GOT32X_N 43

static const struct mc_arch *x64(void)
{
	return arch("x86_64");
}

static const struct mc_arch *x32(void)
{
	return arch("i386");
}

/* ---- registry ---------------------------------------------------- */

START_TEST(arch_find_by_machine)
{
	const struct mc_arch *a = mc_arch_find(EM_X86_64_N, 64, MC_LITTLE_ENDIAN, 0);
	const struct mc_arch *b = mc_arch_find(EM_386_N, 32, MC_LITTLE_ENDIAN, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->name, "x86_64");
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_X86_64_64_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b->name, "i386");
	ck_assert_uint_eq(b->addr_size, 4);
	ck_assert(!b->table_uses_rela);
	ck_assert_uint_eq(b->table_reloc, R_386_32_N);
	ck_assert_uint_eq(b->none_reloc, 0);
	ck_assert_int_eq(a->endian, MC_LITTLE_ENDIAN);
	ck_assert_int_eq(b->endian, MC_LITTLE_ENDIAN);
}
END_TEST

START_TEST(arch_find_rejects_mismatch)
{
	/* x32 ABI (EM_X86_64, ELFCLASS32) and a 64-bit EM_386 don't exist. */
	ck_assert_ptr_null(mc_arch_find(EM_X86_64_N, 32, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_find(EM_386_N, 64, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_find(0, 64, MC_LITTLE_ENDIAN, 0));
	/* Byte order is part of the match. */
	ck_assert_ptr_null(mc_arch_find(EM_X86_64_N, 64, MC_BIG_ENDIAN, 0));
}
END_TEST

START_TEST(arch_by_name)
{
	ck_assert_ptr_eq(mc_arch_by_name("x86_64"),
			 mc_arch_find(EM_X86_64_N, 64, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_eq(mc_arch_by_name("i386"),
			 mc_arch_find(EM_386_N, 32, MC_LITTLE_ENDIAN, 0));
	ck_assert_ptr_null(mc_arch_by_name(""));
	ck_assert_ptr_null(mc_arch_by_name("x86"));
	ck_assert_ptr_null(mc_arch_by_name("x86_64 "));
	ck_assert_ptr_null(mc_arch_by_name("x86_6"));
	ck_assert_ptr_null(mc_arch_by_name("X86_64"));
	ck_assert_ptr_null(mc_arch_by_name("i3860"));
}
END_TEST

START_TEST(arch_list_terminated)
{
	size_t n = 0;
	bool seen64 = false, seen32 = false;

	for (const struct mc_arch *const *a = mc_all_arches; *a; a++, n++) {
		seen64 |= strcmp((*a)->name, "x86_64") == 0;
		seen32 |= strcmp((*a)->name, "i386") == 0;
		ck_assert_ptr_nonnull((*a)->decode_site);
		ck_assert_ptr_nonnull((*a)->encode_nop);
		ck_assert_ptr_nonnull((*a)->encode_call);
		ck_assert_uint_gt((*a)->n_forms, 0);
		/* mc_forms_of_type's set has a bit per form */
		ck_assert_uint_le((*a)->n_forms, MC_MAX_FORMS);
	}
	ck_assert_uint_ge(n, 2);	/* and the other architectures */
	ck_assert(seen64 && seen32);
}
END_TEST

/* arch.h's bit helpers, which every arch file's encoders rest on. */
START_TEST(bit_helpers)
{
	const uint8_t w[4] = { 0x12, 0x34, 0x56, 0x78 };
	uint8_t out[4];

	ck_assert_uint_eq(mc_get_le16(w), 0x3412);
	ck_assert_uint_eq(mc_get_le32(w), 0x78563412);
	ck_assert_uint_eq(mc_get_be32(w), 0x12345678);
	ck_assert_uint_eq(mc_get32(MC_LITTLE_ENDIAN, w), 0x78563412);
	ck_assert_uint_eq(mc_get32(MC_BIG_ENDIAN, w), 0x12345678);
	mc_put32(MC_BIG_ENDIAN, out, 0x12345678);
	ck_assert_mem_eq(out, w, 4);
	mc_put32(MC_LITTLE_ENDIAN, out, 0x78563412);
	ck_assert_mem_eq(out, w, 4);
	mc_put_le16(out, 0xbeef);
	ck_assert_uint_eq(out[0], 0xef);
	ck_assert_uint_eq(out[1], 0xbe);

	ck_assert_int_eq(mc_sign_extend(0x800, 12), -2048);
	ck_assert_int_eq(mc_sign_extend(0x7ff, 12), 2047);
	ck_assert_int_eq(mc_sign_extend(0xfff, 12), -1);
	ck_assert_int_eq(mc_sign_extend(0x1fff, 12), -1);	/* bit 12 ignored */
	ck_assert_int_eq(mc_sign_extend(0x80000000u, 32), INT32_MIN);
	ck_assert_int_eq(mc_sign_extend(UINT64_MAX, 64), -1);

	/* hi20 rounds so that lo12, sign-extended, lands on d exactly. */
	static const int64_t d[] = { 0, 1, 0x7ff, 0x800, 0xfff, 0x1000,
				     -1, -0x800, -0x801, 0x12345678,
				     INT32_MIN - 0x800ll, INT32_MAX - 0x800ll };
	for (unsigned i = 0; i < MC_COUNT(d); i++) {
		ck_assert_msg(mc_hi20_lo12_fits(d[i]), "%lld", (long long)d[i]);
		ck_assert_int_ge(mc_lo12(d[i]), -2048);
		ck_assert_int_le(mc_lo12(d[i]), 2047);
		ck_assert_int_eq(mc_hi20(d[i]) * 4096 + mc_lo12(d[i]), d[i]);
		/* what auipc + jalr compute from the two fields */
		int64_t hi = mc_sign_extend((uint64_t)mc_hi20(d[i]) << 12, 32);
		int64_t lo = mc_sign_extend((uint64_t)mc_lo12(d[i]), 12);
		ck_assert_int_eq(hi + lo, d[i]);
	}
	ck_assert_int_eq(mc_hi20(0x800), 1);
	ck_assert_int_eq(mc_lo12(0x800), -2048);
	ck_assert(!mc_hi20_lo12_fits(INT32_MIN - 0x801ll));
	ck_assert(!mc_hi20_lo12_fits(INT32_MAX - 0x7ffll));
}
END_TEST

/* search.h: the partition point as lower and as upper bound. */
static bool below_key(const void *entry, const void *key)
{
	int v = *(const int *)entry;
	const int *k = key;

	return v < k[0] || (k[1] && v == k[0]);
}

START_TEST(partition_point)
{
	/* key, upper (equal entries count as before it), expected */
	static const int q[][3] = {
		{ 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 1 }, { 2, 0, 1 },
		{ 3, 0, 1 }, { 3, 1, 4 }, { 7, 0, 4 }, { 7, 1, 5 },
		{ 9, 0, 5 },
	};

	static const int v[] = { 1, 3, 3, 3, 7 };

	for (unsigned i = 0; i < MC_COUNT(q); i++)
		ck_assert_uint_eq(mc_partition_point(v, 5, sizeof(*v), q[i],
						     below_key),
				  (size_t)q[i][2]);
	ck_assert_uint_eq(mc_partition_point(v, 0, sizeof(*v), q[8],
					     below_key), 0);
	ck_assert_uint_eq(mc_partition_point(v, 3, sizeof(*v), q[8],
					     below_key), 3);
	ck_assert_uint_eq(mc_partition_point(v + 1, 3, sizeof(*v), q[4],
					     below_key), 0);
}
END_TEST

START_TEST(hook_symbols)
{
	const struct mc_arch *archs[] = { x64(), x32() };

	for (size_t i = 0; i < 2; i++) {
		const struct mc_arch *a = archs[i];

		ck_assert(mc_is_hook_symbol(a, "__fentry__"));
		ck_assert(mc_is_hook_symbol(a, "mcount"));
		ck_assert(mc_is_hook_symbol(a, "_mcount"));
		ck_assert(!mc_is_hook_symbol(a, ""));
		ck_assert(!mc_is_hook_symbol(a, "fentry"));
		ck_assert(!mc_is_hook_symbol(a, "__fentry"));
		ck_assert(!mc_is_hook_symbol(a, "__fentry__x"));
		ck_assert(!mc_is_hook_symbol(a, "mcoun"));
		ck_assert(!mc_is_hook_symbol(a, "mcount2"));
		ck_assert(!mc_is_hook_symbol(a, "__mcount"));
		ck_assert(!mc_is_hook_symbol(a, "MCOUNT"));
		ck_assert(!mc_is_hook_symbol(a, "printf"));
	}
}
END_TEST

/* ---- object forms ------------------------------------------------ */

/*
 * A section of code: push %rbp (55) at 0, then the site bytes at 1,
 * then ret (c3).  Returns the section size.
 */
static size_t code_with(uint8_t *buf, const uint8_t *site, size_t n)
{
	buf[0] = 0x55;
	memcpy(buf + 1, site, n);
	buf[1 + n] = 0xc3;
	return n + 2;
}

struct form_case {
	const char *arch;
	uint32_t type;
	uint8_t bytes[6];
	uint8_t n_bytes;
	uint8_t field_offset;	/* expected: site -> relocated field */
	uint8_t len;		/* expected instruction length */
};

static const struct form_case good_forms[] = {
	{ "x86_64", R_X86_64_PC32_N, { 0xe8, 1, 2, 3, 4 }, 5, 1, 5 },
	{ "x86_64", R_X86_64_PLT32_N, { 0xe8, 1, 2, 3, 4 }, 5, 1, 5 },
	{ "x86_64", R_X86_64_GOTPCRELX_N, { 0xff, 0x15, 1, 2, 3, 4 }, 6, 2, 6 },
	{ "x86_64", R_X86_64_GOTPCREL_N, { 0xff, 0x15, 1, 2, 3, 4 }, 6, 2, 6 },
	{ "i386", R_386_PC32_N, { 0xe8, 0xfc, 0xff, 0xff, 0xff }, 5, 1, 5 },
	{ "i386", R_386_PLT32_N, { 0xe8, 0xfc, 0xff, 0xff, 0xff }, 5, 1, 5 },
	{ "i386", R_386_GOT32X_N, { 0xff, 0x93, 0, 0, 0, 0 }, 6, 2, 6 },
	{ "i386", R_386_GOT32_N, { 0xff, 0x93, 0, 0, 0, 0 }, 6, 2, 6 },
};

START_TEST(form_matches)
{
	const struct form_case *c = &good_forms[_i];
	const struct mc_arch *a = mc_arch_by_name(c->arch);
	uint8_t sec[16];
	size_t size = code_with(sec, c->bytes, c->n_bytes);

	ck_assert_ptr_nonnull(a);
	const struct mc_object_form *f =
		mc_match_form(a, c->type, sec, size, 1 + c->field_offset);
	ck_assert_msg(f != NULL, "%s type %u not matched", c->arch, c->type);
	ck_assert_uint_eq(f->field_offset, c->field_offset);
	ck_assert_uint_eq(f->len, c->len);
	ck_assert_uint_eq(f->opcode_len, c->field_offset);
	ck_assert(memcmp(f->opcode, c->bytes, f->opcode_len) == 0);
	ck_assert_ptr_nonnull(f->name);

	/* Exactly long enough: the site ends at the section's end. */
	ck_assert_ptr_eq(mc_match_form(a, c->type, sec, 1 + c->n_bytes,
				       1 + c->field_offset), f);
	/* One byte short. */
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, c->n_bytes,
					 1 + c->field_offset));
	/* Relocation one byte off: opcode no longer lines up. */
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size,
					 c->field_offset));
	ck_assert_ptr_null(mc_match_form(a, c->type, sec, size,
					 2 + c->field_offset));
}
END_TEST

/*
 * mc_forms_of_type is every form a type marks, and nothing else, for
 * every architecture; mc_match_form_among over it answers as
 * mc_match_form, and over fewer forms finds none of the others.
 */
START_TEST(forms_of_type)
{
	for (const struct mc_arch *const *a = mc_all_arches; *a; a++)
		for (unsigned i = 0; i < (*a)->n_forms; i++) {
			const struct mc_object_form *f = &(*a)->forms[i];

			for (unsigned t = 0; t < f->n_reloc_types; t++) {
				uint32_t type = f->reloc_types[t];
				uint64_t set = mc_forms_of_type(*a, type);

				ck_assert(set & (uint64_t)1 << i);
				for (unsigned j = 0; j < (*a)->n_forms; j++) {
					bool has = false;

					for (unsigned u = 0; u < (*a)->forms[j]
							 .n_reloc_types; u++)
						has |= (*a)->forms[j]
							.reloc_types[u] == type;
					ck_assert_int_eq(!!(set & (uint64_t)1
							    << j), has);
				}
			}
		}
	const struct form_case *c = &good_forms[0];
	const struct mc_arch *a = mc_arch_by_name(c->arch);
	uint8_t sec[16];
	size_t size = code_with(sec, c->bytes, c->n_bytes);
	uint64_t set = mc_forms_of_type(a, c->type);
	const struct mc_object_form *f =
		mc_match_form(a, c->type, sec, size, 1 + c->field_offset);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_eq(mc_match_form_among(a, set, sec, size,
					     1 + c->field_offset), f);
	ck_assert_ptr_null(mc_match_form_among(a, set & ~((uint64_t)1 <<
							  (f - a->forms)),
					       sec, size,
					       1 + c->field_offset));
	ck_assert_ptr_null(mc_match_form_among(a, 0, sec, size,
					       1 + c->field_offset));
}
END_TEST

/* The same bytes at the very start of a section (site offset 0). */
START_TEST(form_at_section_start)
{
	const struct form_case *c = &good_forms[_i];
	const struct mc_arch *a = mc_arch_by_name(c->arch);

	ck_assert_ptr_nonnull(mc_match_form(a, c->type, c->bytes, c->n_bytes,
					    c->field_offset));
	/* r_offset smaller than the field offset: site before the start. */
	for (uint64_t off = 0; off < c->field_offset; off++)
		ck_assert_ptr_null(mc_match_form(a, c->type, c->bytes,
						 c->n_bytes, off));
}
END_TEST

START_TEST(form_rejects_wrong_opcode)
{
	uint8_t sec[16];
	size_t n;
	/* jmp rel32 with a PLT32 relocation is a tail call, not a hook. */
	static const uint8_t jmp[] = { 0xe9, 0, 0, 0, 0 };
	/* jmp *disp32(%rip) */
	static const uint8_t jmpind[] = { 0xff, 0x25, 0, 0, 0, 0 };
	/* mov disp32(%rip),%rax: 48 8b 05, a REX_GOTPCRELX load */
	static const uint8_t movq[] = { 0x48, 0x8b, 0x05, 0, 0, 0, 0 };
	/* call *disp32(%ebx) is the i386 form, not x86_64's */
	static const uint8_t ebx[] = { 0xff, 0x93, 0, 0, 0, 0 };
	/* call *disp32(%rip) is x86_64's, not i386 */
	static const uint8_t rip[] = { 0xff, 0x15, 0, 0, 0, 0 };

	n = code_with(sec, jmp, sizeof(jmp));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, sec, n, 2));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PC32_N, sec, n, 2));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_PC32_N, sec, n, 2));
	n = code_with(sec, jmpind, sizeof(jmpind));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_GOTPCRELX_N, sec, n,
					 3));
	n = code_with(sec, movq, sizeof(movq));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_REX_GOTPCRELX_N, sec,
					 n, 4));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_GOTPCRELX_N, sec, n,
					 4));
	n = code_with(sec, ebx, sizeof(ebx));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_GOTPCRELX_N, sec, n,
					 3));
	n = code_with(sec, rip, sizeof(rip));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_GOT32X_N, sec, n, 3));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_GOT32_N, sec, n, 3));
}
END_TEST

START_TEST(form_rejects_wrong_type)
{
	uint8_t sec[16];
	static const uint8_t call[] = { 0xe8, 0, 0, 0, 0 };
	static const uint8_t rip[] = { 0xff, 0x15, 0, 0, 0, 0 };
	static const uint8_t ebx[] = { 0xff, 0x93, 0, 0, 0, 0 };
	size_t n = code_with(sec, call, sizeof(call));

	/* Absolute and GOT types on an e8. */
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_64_N, sec, n, 2));
	ck_assert_ptr_null(mc_match_form(x64(), 0, sec, n, 2));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_GOTPCRELX_N, sec, n,
					 2));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_32_N, sec, n, 2));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_GOT32X_N, sec, n, 2));
	/* PC32 on the ff 15 / ff 93 forms. */
	n = code_with(sec, rip, sizeof(rip));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PC32_N, sec, n, 3));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, sec, n, 3));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_REX_GOTPCRELX_N, sec,
					 n, 3));
	n = code_with(sec, ebx, sizeof(ebx));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_PC32_N, sec, n, 3));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_PLT32_N, sec, n, 3));
	/* i386's GOT32X number means nothing on x86_64 and vice versa. */
	ck_assert_ptr_null(mc_match_form(x64(), R_386_GOT32X_N, sec, n, 3));
}
END_TEST

START_TEST(form_rejects_past_end)
{
	static const uint8_t call[] = { 0xe8, 0, 0, 0, 0 };
	static const uint8_t rip[] = { 0xff, 0x15, 0, 0, 0, 0 };

	/* The site starts inside the section, the instruction runs out. */
	for (uint64_t size = 0; size < 5; size++)
		ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, call,
						 size, 1));
	for (uint64_t size = 0; size < 6; size++)
		ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_GOTPCRELX_N,
						 rip, size, 2));
	/* r_offset far beyond the section: must not read outside it. */
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, call, 5, 6));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, call, 5,
					 1000));
	/* ... including offsets where site + len wraps around 2^64. */
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, call, 5,
					 UINT64_MAX));
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, call, 5,
					 UINT64_MAX - 2));
	ck_assert_ptr_null(mc_match_form(x32(), R_386_GOT32X_N, rip, 6,
					 UINT64_MAX - 1));
}
END_TEST

/* endbr64; call __fentry__: the site is the call, four bytes in. */
START_TEST(form_after_endbr)
{
	static const uint8_t sec[] = { 0xf3, 0x0f, 0x1e, 0xfa,	/* endbr64 */
				       0xe8, 0, 0, 0, 0,	/* call */
				       0xc3 };
	const struct mc_object_form *f =
		mc_match_form(x64(), R_X86_64_PLT32_N, sec, sizeof(sec), 5);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 5);
	/* A relocation on the endbr itself does not match. */
	ck_assert_ptr_null(mc_match_form(x64(), R_X86_64_PLT32_N, sec,
					 sizeof(sec), 1));
}
END_TEST

/* ---- decode_site ------------------------------------------------- */

START_TEST(decode_call_rel32)
{
	const struct mc_arch *a = _i ? x32() : x64();
	/* +0x100 from the end of the call */
	static const uint8_t fwd[] = { 0xe8, 0x00, 0x01, 0x00, 0x00 };
	/* -0x1005 from the end: a call to 0x1000 below the site */
	static const uint8_t back[] = { 0xe8, 0xfb, 0xef, 0xff, 0xff };
	/* rel32 = 0: to the next instruction */
	static const uint8_t zero[] = { 0xe8, 0, 0, 0, 0 };
	struct mc_site s;

	s = decode(a, fwd, sizeof(fwd), 0x401000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 5);
	ck_assert_uint_eq(s.target, 0x401105);

	s = decode(a, back, sizeof(back), 0x402000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 5);
	ck_assert_uint_eq(s.target, 0x401000);

	s = decode(a, zero, sizeof(zero), 0xffffffff81000000ull);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0xffffffff81000005ull);

	/* Sign extension: a kernel-half site calling further down. */
	s = decode(a, back, sizeof(back), 0xffffffff81002000ull);
	ck_assert_uint_eq(s.target, 0xffffffff81001000ull);
}
END_TEST

START_TEST(decode_relaxed_calls)
{
	const struct mc_arch *a = _i ? x32() : x64();
	/* addr32 call (ld's default relaxation of call *foo@GOTPCREL) */
	static const uint8_t addr32[] = { 0x67, 0xe8, 0x10, 0, 0, 0 };
	/* nop; call (-z call-nop=prefix-nop) */
	static const uint8_t nopcall[] = { 0x90, 0xe8, 0xf0, 0xff, 0xff, 0xff };
	struct mc_site s;

	s = decode(a, addr32, sizeof(addr32), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, 0x1016);

	s = decode(a, nopcall, sizeof(nopcall), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, 0x1006 - 0x10);
}
END_TEST

START_TEST(decode_indirect)
{
	/* call *0x20(%rip) at 0x1000: the pointer is at 0x1006 + 0x20. */
	static const uint8_t rip[] = { 0xff, 0x15, 0x20, 0, 0, 0 };
	static const uint8_t ripneg[] = { 0xff, 0x15, 0xfa, 0xff, 0xff, 0xff };
	static const uint8_t ebx[] = { 0xff, 0x93, 0x20, 0, 0, 0 };
	struct mc_site s;

	s = decode(x64(), rip, sizeof(rip), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL_INDIRECT);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, 0x1026);
	s = decode(x64(), ripneg, sizeof(ripneg), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL_INDIRECT);
	ck_assert_uint_eq(s.target, 0x1000);

	/*
	 * On i386 ff 15 is call *abs32, not a hook; ff 93 is PIC's call
	 * through the GOT, whose offset (signed) is all the bytes say.
	 */
	s = decode(x32(), rip, sizeof(rip), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
	s = decode(x32(), ebx, sizeof(ebx), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_CALL_GOT);
	ck_assert_uint_eq(s.len, 6);
	ck_assert_uint_eq(s.target, 0x20);
	s = decode(x32(), ripneg, sizeof(ripneg), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
	{
		static const uint8_t ebxneg[] = { 0xff, 0x93, 0xf0, 0xff,
						  0xff, 0xff };

		s = decode(x32(), ebxneg, sizeof(ebxneg), 0x1000);
		ck_assert_int_eq(s.kind, MC_SITE_CALL_GOT);
		ck_assert_uint_eq(s.target, (uint64_t)-0x10);
		/* one byte short */
		s = decode(x32(), ebxneg, 5, 0x1000);
		ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
	}
	s = decode(x64(), ebx, sizeof(ebx), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
}
END_TEST

/* The neutral form of every decodable hook is the NOP of its length. */
START_TEST(site_neutral_forms)
{
	const struct mc_arch *a = _i ? x32() : x64();
	static const uint8_t call[] = { 0xe8, 1, 2, 3, 4 };
	static const uint8_t addr32[] = { 0x67, 0xe8, 1, 2, 3, 4 };
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t ind[] = { 0xff, 0x00, 0x20, 0, 0, 0 };
	static const uint8_t *const cases[] = { call, addr32, nop5, ind };
	static const size_t lens[] = { 5, 6, 5, 6 };

	ck_assert_ptr_nonnull(a->site_neutral);
	for (size_t i = 0; i < 4; i++) {
		uint8_t buf[8], nop[8];
		struct mc_site s;
		const uint8_t *n;

		memcpy(buf, cases[i], lens[i]);
		if (cases[i] == ind)	/* ff 15 on x86_64, ff 93 on i386 */
			buf[1] = _i ? 0x93 : 0x15;
		s = decode(a, buf, lens[i], 0x1000);
		ck_assert_int_ne(s.kind, MC_SITE_UNKNOWN);
		n = mc_site_neutral(a, &s);
		ck_assert_ptr_nonnull(n);
		ck_assert(mc_encode_nop(a, nop, s.len));
		ck_assert_mem_eq(n, nop, s.len);
	}
	/* Nothing neutralises an unknown site or a length with no NOP. */
	ck_assert_ptr_null(mc_site_neutral(a, &(struct mc_site){
					   MC_SITE_UNKNOWN, 5, 0 }));
	ck_assert_ptr_null(mc_site_neutral(a, &(struct mc_site){
					   MC_SITE_CALL, 0, 0 }));
	ck_assert_ptr_null(mc_site_neutral(a, &(struct mc_site){
					   MC_SITE_CALL, 9, 0 }));
}
END_TEST

START_TEST(decode_nops)
{
	const struct mc_arch *a = _i ? x32() : x64();
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t nop6[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	/* nop5 followed by more code: still a 5-byte NOP. */
	static const uint8_t nop5more[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3,
					    0xcc, 0xcc };
	struct mc_site s;

	s = decode(a, nop5, sizeof(nop5), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 5);
	s = decode(a, nop6, sizeof(nop6), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 6);
	s = decode(a, nop5more, sizeof(nop5more), 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 5);
}
END_TEST

START_TEST(decode_garbage)
{
	const struct mc_arch *a = _i ? x32() : x64();
	static const uint8_t cases[][8] = {
		{ 0x55, 0x48, 0x89, 0xe5, 0, 0, 0, 0 },	/* push; mov */
		{ 0xe9, 0, 0, 0, 0, 0, 0, 0 },		/* jmp rel32 */
		{ 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc },	/* int3 */
		{ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 },	/* 6 x nop */
		{ 0x0f, 0x1f, 0x40, 0x00, 0x90 },	/* nop4 + nop */
		{ 0x0f, 0x1f, 0x44, 0x00, 0x01 },	/* nopl 1(...) */
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x01 },
		{ 0x67, 0xe9, 0, 0, 0, 0 },		/* addr32 jmp */
		{ 0x66, 0xe8, 0, 0, 0, 0 },		/* data16 call */
		{ 0xff, 0x25, 0, 0, 0, 0 },		/* jmp *d32(%rip) */
		{ 0xff, 0x14, 0x25, 0, 0, 0, 0 },	/* call *abs32 */
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mc_site s = decode(a, cases[i], 8, 0x1000);

		ck_assert_msg(s.kind == MC_SITE_UNKNOWN,
			      "%s case %zu decoded as kind %d", a->name, i,
			      s.kind);
	}
}
END_TEST

START_TEST(decode_short_buffers)
{
	const struct mc_arch *a = _i ? x32() : x64();
	static const uint8_t call[] = { 0xe8, 1, 2, 3, 4 };
	static const uint8_t addr32[] = { 0x67, 0xe8, 1, 2, 3, 4 };
	static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t nop6[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t rip[] = { 0xff, 0x15, 1, 2, 3, 4 };

	for (size_t n = 0; n < 5; n++) {
		ck_assert_int_eq(decode(a, call, n, 0).kind, MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(a, nop5, n, 0).kind, MC_SITE_UNKNOWN);
	}
	for (size_t n = 0; n < 6; n++) {
		ck_assert_int_eq(decode(a, addr32, n, 0).kind,
				 MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(a, rip, n, 0).kind, MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(a, nop6, n, 0).kind, MC_SITE_UNKNOWN);
	}
	ck_assert_int_eq(decode(a, call, 5, 0).kind, MC_SITE_CALL);
	ck_assert_int_eq(decode(a, addr32, 6, 0).kind, MC_SITE_CALL);
}
END_TEST

/* ---- encoders ---------------------------------------------------- */

/*
 * Disassemble `n` bytes with objdump as raw x86_64 or i386 code at
 * address `vma` (disasm.h); a wide --insn-width keeps every instruction
 * on one line, so a split shows up as a second instruction.
 */
static int disassemble(const uint8_t *p, size_t n, bool is64, uint64_t vma,
		       char out[][DISASM_LINE], int max)
{
	return disasm(is64 ? "objdump --insn-width=16 -m i386:x86-64"
			   : "objdump --insn-width=16 -m i386",
		      p, n, vma, out, max);
}

static const char *insn_text(const char *line)
{
	const char *t = strchr(line, '\t');

	ck_assert_ptr_nonnull(t);
	t = strchr(t + 1, '\t');
	ck_assert_ptr_nonnull(t);
	return t + 1;
}

START_TEST(encode_nop_lengths)
{
	const struct mc_arch *a = _i ? x32() : x64();

	for (unsigned len = 1; len <= 8; len++) {
		uint8_t buf[16];
		char lines[4][DISASM_LINE];

		memset(buf, 0xcc, sizeof(buf));
		ck_assert_msg(mc_encode_nop(a, buf, len), "no %u-byte NOP",
			      len);
		/* Nothing written past len. */
		for (unsigned i = len; i < sizeof(buf); i++)
			ck_assert_uint_eq(buf[i], 0xcc);
		int n = disassemble(buf, len, _i == 0, 0, lines, 4);
		ck_assert_msg(n == 1, "%u-byte NOP disassembles as %d insns",
			      len, n);
		ck_assert_int_eq(disasm_bytes(lines[0]), (int)len);
		const char *text = insn_text(lines[0]);
		ck_assert_msg(strncmp(text, "nop", 3) == 0 ||
				      strncmp(text, "xchg   %ax,%ax", 14) == 0,
			      "%u-byte NOP is '%s'", len, text);
		/* decode_site knows the 5- and 6-byte ones as NOPs. */
		if (len == 5 || len == 6) {
			struct mc_site s = decode(a, buf, len, 0x1000);

			ck_assert_int_eq(s.kind, MC_SITE_NOP);
			ck_assert_uint_eq(s.len, len);
		}
	}
}
END_TEST

/*
 * Every pad NOP (GCC's `nop`, clang's multi-byte ones) is one NOP
 * instruction of its length to objdump.
 */
START_TEST(pad_nops_objdump)
{
	const struct mc_arch *a = _i ? x32() : x64();

	ck_assert_uint_gt(a->n_pad_nops, 1);
	for (unsigned i = 0; i < a->n_pad_nops; i++) {
		const struct mc_insn *in = &a->pad_nops[i];
		char lines[4][DISASM_LINE];
		int n = disassemble(in->bytes, in->len, _i == 0, 0, lines, 4);

		ck_assert_msg(n == 1, "pad NOP %u (%u bytes) is %d insns", i,
			      in->len, n);
		ck_assert_int_eq(disasm_bytes(lines[0]), in->len);
		const char *t = insn_text(lines[0]);
		ck_assert_msg(strncmp(t, "nop", 3) == 0 ||
				      strncmp(t, "xchg   %ax,%ax", 14) == 0 ||
				      strncmp(t, "cs nopw", 7) == 0 ||
				      strncmp(t, "data16", 6) == 0,
			      "pad NOP %u is '%s'", i, t);
	}
}
END_TEST

/*
 * The runtime's pad call takes the whole NOPs over its five bytes: for
 * each of clang's NOPs of five bytes or more, pad_neutral gives back
 * exactly those bytes and their length, and encode_pad_call of that
 * length is, to objdump, a call to the target and then only NOPs.
 */
START_TEST(pad_window_whole_nops)
{
	const struct mc_arch *a = _i ? x32() : x64();
	const uint64_t site = 0x401000, target = 0x402340;
	unsigned tried = 0;

	for (unsigned i = 0; i < a->n_pad_nops; i++) {
		const struct mc_insn *in = &a->pad_nops[i];
		uint8_t call[MC_MAX_SITE_LEN + 1];
		char lines[8][DISASM_LINE], want[64];
		unsigned len = 0;

		if (in->len < 5)
			continue;
		tried++;
		const uint8_t *w = mc_pad_neutral(a, in->bytes, in->len, &len);
		ck_assert_msg(w && len == in->len &&
				      memcmp(w, in->bytes, len) == 0,
			      "%u-byte NOP: window %u bytes", in->len, len);
		memset(call, 0xcc, sizeof(call));
		ck_assert(mc_encode_pad_call(a, call, len, site, target));
		ck_assert_uint_eq(call[len], 0xcc);
		int n = disassemble(call, len, _i == 0, site, lines, 8);
		ck_assert_int_ge(n, 1);
		snprintf(want, sizeof(want), "call   0x%llx",
			 (unsigned long long)target);
		ck_assert_msg(strncmp(insn_text(lines[0]), want,
				      strlen(want)) == 0, "'%s', want '%s'",
			      insn_text(lines[0]), want);
		ck_assert_int_eq(disasm_bytes(lines[0]), 5);
		for (int k = 1; k < n; k++)
			ck_assert_msg(strncmp(insn_text(lines[k]), "nop", 3) == 0 ||
					      strncmp(insn_text(lines[k]),
						      "xchg   %ax,%ax", 14) == 0,
				      "filler '%s'", insn_text(lines[k]));
	}
	ck_assert_uint_eq(tried, 11);	/* 5 to 15 bytes */
}
END_TEST

/* GCC's nop x 5, i686 clang's xchg pairs; a cut or mixed run is none. */
START_TEST(pad_window_runs)
{
	const struct mc_arch *a = _i ? x32() : x64();
	static const uint8_t gcc[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t i686[] = { 0x66, 0x90, 0x66, 0x90, 0x66, 0x90,
					0x90 };
	static const uint8_t i686_5[] = { 0x66, 0x90, 0x66, 0x90, 0x90 };
	static const uint8_t mixed[] = { 0x66, 0x90, 0x0f, 0x1f, 0x00 };
	static const uint8_t cut[] = { 0x0f, 0x1f, 0x44, 0x00 };
	unsigned len;

	ck_assert(mc_pad_neutral(a, gcc, sizeof(gcc), &len) && len == 5);
	ck_assert(mc_pad_neutral(a, i686, sizeof(i686), &len) && len == 6);
	ck_assert(mc_pad_neutral(a, i686_5, sizeof(i686_5), &len) && len == 5);
	ck_assert(!mc_pad_neutral(a, mixed, sizeof(mixed), &len));
	ck_assert(!mc_pad_neutral(a, cut, sizeof(cut), &len));
	ck_assert(!mc_encode_pad_call(a, (uint8_t[16]){ 0 }, 4, 0, 0));
	ck_assert(!mc_encode_pad_call(a, (uint8_t[16]){ 0 }, 16, 0, 0));
}
END_TEST

START_TEST(encode_nop_rejects)
{
	const struct mc_arch *a = _i ? x32() : x64();
	uint8_t buf[32];

	memset(buf, 0xcc, sizeof(buf));
	ck_assert(!mc_encode_nop(a, buf, 0));
	ck_assert(!mc_encode_nop(a, buf, 9));
	ck_assert(!mc_encode_nop(a, buf, 16));
	ck_assert(!mc_encode_nop(a, buf, UINT32_MAX));
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xcc);
}
END_TEST

struct call_case {
	uint64_t site, target;
};

static const struct call_case call_cases[] = {
	{ 0x1000, 0x2000 },
	{ 0x2000, 0x1000 },
	{ 0x1000, 0x1000 },			/* call to itself */
	{ 0x401000, 0x401000ull + 0x7fffffff },	/* farthest forward */
	{ 0x80001000, 0x1005 },			/* far back, len-dependent */
	{ 0xffffffff81000000ull, 0xffffffff81ff0000ull },
	{ 0xffffffff81000000ull, 0xffffffff80000000ull },
};

START_TEST(encode_call_roundtrip)
{
	const struct mc_arch *a = _i >= 7 ? x32() : x64();
	const struct call_case *c = &call_cases[_i % 7];

	/* i386's instruction pointer wraps at 4 GiB: every call reaches */
	uint64_t mask = a->addr_size == 4 && c->site <= 0xffffffffu ?
			0xffffffffull : UINT64_MAX;

	for (unsigned len = 5; len <= 6; len++) {
		uint8_t buf[16];
		int64_t d = (int64_t)(c->target - (c->site + len));

		if (a->addr_size == 4)
			d = (int32_t)(uint32_t)d;
		memset(buf, 0xcc, sizeof(buf));
		bool ok = mc_encode_call(a, buf, len, c->site, c->target);
		if (d < INT32_MIN || d > INT32_MAX) {
			ck_assert_msg(!ok, "out-of-range call encoded");
			continue;
		}
		ck_assert_msg(ok, "call %#llx -> %#llx len %u not encoded",
			      (unsigned long long)c->site,
			      (unsigned long long)c->target, len);
		for (unsigned i = len; i < sizeof(buf); i++)
			ck_assert_uint_eq(buf[i], 0xcc);
		ck_assert_uint_eq(buf[len - 5], 0xe8);
		if (len == 6)
			ck_assert_uint_eq(buf[0], 0x67);
		struct mc_site s = decode(a, buf, len, c->site);
		ck_assert_int_eq(s.kind, MC_SITE_CALL);
		ck_assert_uint_eq(s.len, len);
		ck_assert_uint_eq(s.target, c->target & mask);
	}
}
END_TEST

/* objdump agrees on the call's length and destination. */
START_TEST(encode_call_objdump)
{
	const struct mc_arch *a = _i ? x32() : x64();
	uint64_t site = 0x10000, target = _i ? 0x8000 : 0x12345;

	for (unsigned len = 5; len <= 6; len++) {
		uint8_t buf[8];
		char lines[4][DISASM_LINE], want[32];

		ck_assert(mc_encode_call(a, buf, len, site, target));
		ck_assert_int_eq(disassemble(buf, len, _i == 0, site, lines, 4),
				 1);
		ck_assert_int_eq(disasm_bytes(lines[0]), (int)len);
		const char *text = insn_text(lines[0]);
		ck_assert_msg(strstr(text, "call") != NULL, "'%s'", text);
		snprintf(want, sizeof(want), "0x%llx",
			 (unsigned long long)target);
		ck_assert_msg(strstr(text, want) != NULL, "'%s' lacks %s", text,
			      want);
	}
}
END_TEST

/*
 * i386: rel32 reaches every 32-bit address, the instruction pointer
 * wrapping at 4 GiB (a PIE near the bottom calling libmcount.so near
 * the top, as tests/solib runs it), and decodes back to it.
 */
START_TEST(encode_call_wraps_i386)
{
	static const uint64_t pairs[][2] = {
		{ 0x1000, 0x1005 + 0x80000000ull },
		{ 0x80001006ull, 0x0 },
		{ 0x5664a28f, 0xf7f98000 },
		{ 0xf7f98000, 0x5664a28f },
	};
	const struct mc_arch *a = x32();

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		for (unsigned len = 5; len <= 6; len++) {
			uint8_t buf[8];
			struct mc_site s;

			ck_assert(mc_encode_call(a, buf, len, pairs[i][0],
						 pairs[i][1]));
			s = decode(a, buf, len, pairs[i][0]);
			ck_assert_int_eq(s.kind, MC_SITE_CALL);
			ck_assert_uint_eq(s.target, pairs[i][1]);
		}
	}
}
END_TEST

/*
 * decode_disabled reads back exactly the disabled form that live_opcode
 * makes of encode_call's calls (what the runtime writes at boot, and
 * --finalize --prepatch at link time), and objdump reads that form as
 * `test $rel32,%eax` of the same length; a call, or a form cut short,
 * is not one.
 */
START_TEST(decode_disabled_roundtrip)
{
	const struct mc_arch *a = _i >= 7 ? x32() : x64();
	const struct call_case *c = &call_cases[_i % 7];
	uint64_t mask = a->addr_size == 4 && c->site <= 0xffffffffu ?
			0xffffffffull : UINT64_MAX;

	for (unsigned len = 5; len <= 6; len++) {
		uint8_t buf[8], test;
		char lines[4][DISASM_LINE], want[32];
		struct mc_site s;
		unsigned op;

		if (!mc_encode_call(a, buf, len, c->site, c->target))
			continue;	/* out of reach: encode_call_roundtrip */
		ck_assert_int_eq(a->decode_disabled(a, buf, len, c->site).kind,
				 MC_SITE_UNKNOWN);
		op = a->live_opcode(a, len, false, &test);
		buf[op] = test;
		s = a->decode_disabled(a, buf, len, c->site);
		ck_assert_int_eq(s.kind, MC_SITE_CALL);
		ck_assert_uint_eq(s.len, len);
		ck_assert_uint_eq(s.target, c->target & mask);
		ck_assert_int_eq(a->decode_disabled(a, buf, len - 1,
						    c->site).kind,
				 MC_SITE_UNKNOWN);
		ck_assert_int_eq(decode(a, buf, len, c->site).kind,
				 MC_SITE_UNKNOWN);
		ck_assert_int_eq(disassemble(buf, len, a->addr_size == 8,
					     c->site, lines, 4), 1);
		ck_assert_int_eq(disasm_bytes(lines[0]), (int)len);
		snprintf(want, sizeof(want), "$0x%x,%%eax",
			 mc_get_le32(buf + len - 4));
		ck_assert_msg(strstr(insn_text(lines[0]), "test ") &&
			      strstr(insn_text(lines[0]), want),
			      "'%s' is not test %s", insn_text(lines[0]), want);
	}
}
END_TEST

START_TEST(encode_call_rejects)
{
	const struct mc_arch *a = _i ? x32() : x64();
	uint8_t buf[16];

	/* Wrong lengths. */
	for (unsigned len = 0; len < 16; len++)
		if (len != 5 && len != 6)
			ck_assert(!mc_encode_call(a, buf, len, 0x1000, 0x2000));
	if (_i)		/* i386 reaches everywhere: encode_call_wraps_i386 */
		return;
	/* One byte beyond +/- 2 GiB from the end of the call. */
	ck_assert(!mc_encode_call(a, buf, 5, 0x1000, 0x1005 + 0x80000000ull));
	ck_assert(mc_encode_call(a, buf, 5, 0x1000, 0x1005 + 0x7fffffffull));
	ck_assert(!mc_encode_call(a, buf, 5, 0x80001006ull, 0x0));
	ck_assert(mc_encode_call(a, buf, 5, 0x80001000ull, 0x1005));
	ck_assert(!mc_encode_call(a, buf, 5, 0x80001000ull, 0x1004));
	ck_assert(!mc_encode_call(a, buf, 6, 0x1000, 0x1006 + 0x80000000ull));
	ck_assert(mc_encode_call(a, buf, 6, 0x1000, 0x1006 + 0x7fffffffull));
	ck_assert(!mc_encode_call(a, buf, 5, 0, UINT64_MAX / 2));
	ck_assert(!mc_encode_call(a, buf, 5, UINT64_MAX / 2, 0));
}
END_TEST

/* Every relocation type handled is named, as <elf.h> names it. */
static const struct reloc_oracle x86_64_relocs[] = {
	RELOC(R_X86_64_NONE), RELOC(R_X86_64_64), RELOC(R_X86_64_PC32),
	RELOC(R_X86_64_PLT32), RELOC(R_X86_64_GLOB_DAT),
	RELOC(R_X86_64_JUMP_SLOT), RELOC(R_X86_64_RELATIVE),
	RELOC(R_X86_64_GOTPCREL), RELOC(R_X86_64_32), RELOC(R_X86_64_32S),
	RELOC(R_X86_64_GOTPCRELX), RELOC(R_X86_64_REX_GOTPCRELX),
};

static const struct reloc_oracle i386_relocs[] = {
	RELOC(R_386_NONE), RELOC(R_386_32), RELOC(R_386_PC32),
	RELOC(R_386_GOT32), RELOC(R_386_PLT32), RELOC(R_386_GLOB_DAT),
	RELOC(R_386_JMP_SLOT), RELOC(R_386_RELATIVE), RELOC(R_386_GOTOFF),
	RELOC(R_386_GOTPC), RELOC(R_386_GOT32X),
};

START_TEST(x86_reloc_names)
{
	assert_reloc_names(arch("x86_64"), x86_64_relocs, MC_COUNT(x86_64_relocs));
	assert_reloc_names(arch("i386"), i386_relocs, MC_COUNT(i386_relocs));
}
END_TEST

/*
 * A PLT entry as GNU ld (or lld) linked it (objdump -d of a -shared
 * link): the slot mc_plt_slot finds is the one readelf -r shows the
 * hook's JUMP_SLOT relocation at; cut short or changed, none.
 */
START_TEST(plt_entry)
{
	const struct mc_arch *x64 = arch("x86_64"), *x32 = arch("i386");
	static const uint8_t entry[] = {
		0xff, 0x25, 0xda, 0x2f, 0x00, 0x00,	/* jmp *0x2fda(%rip) */
		0x68, 0x02, 0x00, 0x00, 0x00,		/* push $0x2 */
	};
	/* endbr64; bnd jmp *rel32(%rip), as in .plt.sec */
	static const uint8_t cet[] = {
		0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xda, 0x2f, 0x00, 0x00,
	};
	/* i386 PIC: jmp *0x1c(%ebx), the GOT (.got.plt) at 0x3ff4 */
	static const uint8_t pic[] = { 0xff, 0xa3, 0x1c, 0x00, 0x00, 0x00 };

	ck_assert_uint_eq(mc_plt_slot(x64, entry, 11, 0x1030, 0), 0x4010);
	ck_assert_uint_eq(mc_plt_slot(x64, entry, 5, 0x1030, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(x64, cet, 11, 0x102b, 0), 0x4010);
	ck_assert_uint_eq(mc_plt_slot(x64, entry + 6, 5, 0x1036, 0), 0);
	ck_assert_uint_eq(mc_plt_slot(x32, pic, 6, 0x1050, 0x3ff4), 0x4010);
	ck_assert_uint_eq(mc_plt_slot(x32, pic, 6, 0x1050, 0), 0);
}
END_TEST

static Suite *arch_suite(void)
{
	Suite *s = suite_create("arch_x86");
	TCase *tc;

	tc = tcase_create("registry");
	tcase_add_test(tc, arch_find_by_machine);
	tcase_add_test(tc, x86_reloc_names);
	tcase_add_test(tc, arch_find_rejects_mismatch);
	tcase_add_test(tc, arch_by_name);
	tcase_add_test(tc, forms_of_type);
	tcase_add_test(tc, arch_list_terminated);
	tcase_add_test(tc, bit_helpers);
	tcase_add_test(tc, partition_point);
	tcase_add_test(tc, hook_symbols);
	tcase_add_test(tc, plt_entry);
	suite_add_tcase(s, tc);

	tc = tcase_create("forms");
	tcase_add_loop_test(tc, form_matches, 0,
			    sizeof(good_forms) / sizeof(good_forms[0]));
	tcase_add_loop_test(tc, form_at_section_start, 0,
			    sizeof(good_forms) / sizeof(good_forms[0]));
	tcase_add_test(tc, form_rejects_wrong_opcode);
	tcase_add_test(tc, form_rejects_wrong_type);
	tcase_add_test(tc, form_rejects_past_end);
	tcase_add_test(tc, form_after_endbr);
	suite_add_tcase(s, tc);

	/* Loop index 0 = x86_64, 1 = i386. */
	tc = tcase_create("decode");
	tcase_add_loop_test(tc, decode_call_rel32, 0, 2);
	tcase_add_loop_test(tc, decode_relaxed_calls, 0, 2);
	tcase_add_test(tc, decode_indirect);
	tcase_add_loop_test(tc, site_neutral_forms, 0, 2);
	tcase_add_loop_test(tc, decode_nops, 0, 2);
	tcase_add_loop_test(tc, decode_garbage, 0, 2);
	tcase_add_loop_test(tc, decode_short_buffers, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("encode");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, encode_nop_lengths, 0, 2);
	tcase_add_loop_test(tc, encode_nop_rejects, 0, 2);
	tcase_add_loop_test(tc, encode_call_roundtrip, 0, 14);
	tcase_add_loop_test(tc, encode_call_objdump, 0, 2);
	tcase_add_loop_test(tc, encode_call_rejects, 0, 2);
	tcase_add_test(tc, encode_call_wraps_i386);
	tcase_add_loop_test(tc, decode_disabled_roundtrip, 0, 14);
	tcase_add_loop_test(tc, pad_nops_objdump, 0, 2);
	tcase_add_loop_test(tc, pad_window_whole_nops, 0, 2);
	tcase_add_loop_test(tc, pad_window_runs, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(arch_suite());
}
