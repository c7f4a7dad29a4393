/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_arch_loongarch.c - unit tests of arch/loongarch.c: the registry
 * entry, the two object forms (bl; pcalau12i + jirl), the linked-code
 * decoder and the encoders.
 *
 * Debian 12 has no LoongArch binutils, so the oracles are LLVM 16's:
 * llvm-mc-16 disassembles what the encoders write (it knows nothing of
 * our tables; the pair's destination is worked out here from the
 * operands it prints, by the ISA's definition of pcalau12i and jirl),
 * assembles the bytes the decoder reads, and names the relocation
 * types through llvm-readelf-16 (glibc 2.36's <elf.h> stops before
 * R_LARCH_B26).
 */
#define _GNU_SOURCE
#include "../../arch/arch.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_test.h"
#include "unit.h"

#define EM_LOONGARCH_N 258
#define R_LARCH_64_N 2
#define R_LARCH_RELATIVE_N 3
#define R_LARCH_B26_N 66
#define R_LARCH_PCALA_HI20_N 71
#define R_LARCH_PCALA_LO12_N 72
#define LLVM_MC "llvm-mc-16 -triple=loongarch64"
#define LINE 256

static const struct mc_arch *la(void)
{
	return arch("loongarch64");
}

/* A scratch file under $UNIT_TMPDIR (or /tmp) holding `text`. */
static void scratch(char *path, size_t size, const char *name,
		    const char *text)
{
	const char *dir = getenv("UNIT_TMPDIR");
	FILE *f;

	snprintf(path, size, "%s/la-%d-%s", dir ? dir : "/tmp", (int)getpid(),
		 name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * llvm-mc's disassembly of `n` bytes: one line per instruction into
 * `out` (mnemonic, a tab, operands), their count returned.
 */
static int mc_disasm(const uint8_t *p, size_t n, char out[][LINE], int max)
{
	char hex[512] = "", path[200], cmd[512], line[LINE];
	int count = 0;

	for (size_t i = 0; i < n; i++)
		snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex),
			 "0x%02x ", p[i]);
	strcat(hex, "\n");
	scratch(path, sizeof(path), "dis.txt", hex);
	snprintf(cmd, sizeof(cmd), LLVM_MC " --disassemble %s 2>&1", path);
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	while (fgets(line, sizeof(line), pp)) {
		char *t = line + strspn(line, " \t");

		if (*t == '.' || *t == '\n' || *t == '\0')
			continue;		/* .text */
		ck_assert_msg(strstr(t, "invalid") == NULL, "llvm-mc: %s", t);
		if (count < max)
			snprintf(out[count], LINE, "%s", t);
		count++;
	}
	ck_assert_int_eq(pclose(pp), 0);
	unlink(path);
	return count;
}

/* The integer operand after the last ", " or tab of `line`. */
static int64_t last_operand(const char *line)
{
	const char *c = strrchr(line, ',');
	const char *t = strrchr(line, '\t');

	ck_assert_ptr_nonnull(t);
	return strtoll(c && c > t ? c + 1 : t + 1, NULL, 0);
}

START_TEST(registry)
{
	const struct mc_arch *a = mc_arch_find(EM_LOONGARCH_N, 64,
					       MC_LITTLE_ENDIAN, 0x43);

	ck_assert_ptr_eq(a, la());
	ck_assert_uint_eq(a->addr_size, 8);
	ck_assert(a->table_uses_rela);
	ck_assert_uint_eq(a->table_reloc, R_LARCH_64_N);
	ck_assert_uint_eq(a->relative_reloc, R_LARCH_RELATIVE_N);
	ck_assert_uint_eq(a->none_reloc, 0);
	ck_assert(a->anchor_at_site);
	ck_assert(mc_is_hook_symbol(a, "mcount"));	/* clang */
	ck_assert(mc_is_hook_symbol(a, "_mcount"));	/* GCC, the kernel */
	ck_assert(mc_is_companion_reloc(a, R_LARCH_PCALA_LO12_N));
	ck_assert_uint_eq(a->pad_call_len, 0);		/* no runtime */
	ck_assert_ptr_null(mc_arch_find(EM_LOONGARCH_N, 32,
					MC_LITTLE_ENDIAN, 0x41));
	ck_assert_ptr_null(mc_arch_find(EM_LOONGARCH_N, 64,
					MC_BIG_ENDIAN, 0x43));
}
END_TEST

/* clang-16 -pg: `bl mcount` (R_LARCH_B26), from its own object. */
START_TEST(form_bl)
{
	static const uint8_t code[] = {
		0x97, 0x00, 0x15, 0x00,		/* move $s0, $a0 */
		0x00, 0x00, 0x00, 0x54,		/* bl 0 */
		0x00, 0x00, 0x00, 0x50,		/* b 0 (a tail call) */
		0x00, 0x00, 0x00, 0x58,		/* beq $zero, $zero, 0 */
	};
	const struct mc_object_form *f =
		mc_match_form(la(), R_LARCH_B26_N, code, sizeof(code), 4);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 4);
	ck_assert_int_eq(f->field_offset, 0);
	ck_assert_mem_eq(f->nop, "\x00\x00\x40\x03", 4);
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_B26_N, code,
					 sizeof(code), 8));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_B26_N, code,
					 sizeof(code), 12));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_B26_N, code, 7, 4));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_PCALA_HI20_N, code,
					 sizeof(code), 4));
}
END_TEST

/* clang-16 -pg -mcmodel=medium: pcalau12i $ra + jirl $ra, $ra. */
START_TEST(form_pair)
{
	static const uint8_t code[] = {
		0x01, 0x00, 0x00, 0x1a,		/* pcalau12i $ra, 0 */
		0x21, 0x00, 0x00, 0x4c,		/* jirl $ra, $ra, 0 */
		0x04, 0x00, 0x00, 0x1a,		/* pcalau12i $a0, 0 */
		0x84, 0x00, 0xc0, 0x02,		/* addi.d $a0, $a0, 0 */
		0x01, 0x00, 0x00, 0x1a,		/* pcalau12i $ra, 0 */
		0x20, 0x00, 0x00, 0x4c,		/* jirl $zero, $ra, 0 */
	};
	const struct mc_object_form *f =
		mc_match_form(la(), R_LARCH_PCALA_HI20_N, code, sizeof(code), 0);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 8);
	ck_assert_mem_eq(f->nop, "\x00\x00\x40\x03\x00\x00\x40\x03", 8);
	/* an address taken (la.pcrel), a tail call through $ra: no call */
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_PCALA_HI20_N, code,
					 sizeof(code), 8));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_PCALA_HI20_N, code,
					 sizeof(code), 16));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_PCALA_HI20_N, code,
					 4, 0));
	ck_assert_ptr_null(mc_match_form(la(), R_LARCH_PCALA_LO12_N, code,
					 sizeof(code), 4));
}
END_TEST

START_TEST(nops)
{
	uint8_t b[24];
	char out[8][LINE];

	ck_assert(mc_encode_nop(la(), b, 8));
	ck_assert_int_eq(mc_disasm(b, 8, out, 8), 2);
	ck_assert_str_eq(out[0], "nop\n");
	ck_assert_str_eq(out[1], "nop\n");
	struct mc_site s = decode(la(), b, 8, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 8);
	s = decode(la(), b, 4, 0x1000);
	ck_assert_int_eq(s.kind, MC_SITE_NOP);
	ck_assert_uint_eq(s.len, 4);
	ck_assert(mc_encode_nop(la(), b, 24));
	ck_assert_int_eq(mc_disasm(b, 24, out, 8), 6);
	ck_assert(!mc_encode_nop(la(), b, 2));
	ck_assert(!mc_encode_nop(la(), b, 6));
	ck_assert(!mc_encode_nop(la(), b, 0));
	ck_assert(!mc_encode_nop(la(), b, 28));
}
END_TEST

static const uint64_t bls[][2] = {
	{ 0x10000, 0x10000 },
	{ 0x10000, 0x11000 },
	{ 0x1234560, 0x10000 },
	{ 0x8000000, 0x8000000 + (1 << 27) - 4 },	/* farthest forward */
	{ 0x8000000, 0 },				/* farthest back */
};

START_TEST(bl_roundtrip)
{
	uint64_t site = bls[_i][0], target = bls[_i][1];
	uint8_t b[4];
	char out[2][LINE];

	ck_assert(mc_encode_call(la(), b, 4, site, target));
	struct mc_site s = decode(la(), b, 4, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(mc_disasm(b, 4, out, 2), 1);
	ck_assert(strncmp(out[0], "bl\t", 3) == 0);
	ck_assert_int_eq(last_operand(out[0]), (int64_t)(target - site));
}
END_TEST

static const uint64_t pairs[][2] = {
	{ 0x10000, 0x10000 },
	{ 0x10ffc, 0x10800 },		/* page offset 0x800: lo12 negative */
	{ 0x10000, 0x127fc },
	{ 0x80001000, 0x1000 },
	{ 0x1000, 0x7ffff7fc },		/* near +2 GiB */
	{ 0x80000000, 0x800 },		/* near -2 GiB */
	{ 0xffffffff80001000ull, 0xffffffff80201234ull },
};

START_TEST(pair_roundtrip)
{
	uint64_t site = pairs[_i][0], target = pairs[_i][1] & ~3ull;
	uint8_t b[8];
	char out[4][LINE];

	ck_assert(mc_encode_call(la(), b, 8, site, target));
	struct mc_site s = decode(la(), b, 8, site);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 8);
	ck_assert_uint_eq(s.target, target);
	ck_assert_int_eq(mc_disasm(b, 8, out, 4), 2);
	ck_assert(strncmp(out[0], "pcalau12i\t$ra, ", 15) == 0);
	ck_assert(strncmp(out[1], "jirl\t$ra, $ra, ", 15) == 0);
	/* the ISA: $ra = page(pc + si20 << 12); pc = $ra + offs */
	uint64_t page = (site + (uint64_t)(last_operand(out[0]) * 4096)) &
			~0xfffull;
	ck_assert_uint_eq(page + (uint64_t)last_operand(out[1]), target);
}
END_TEST

START_TEST(call_range)
{
	uint8_t b[8];

	ck_assert(!mc_encode_call(la(), b, 4, 0x8000000,
				  0x8000000 + (1 << 27)));
	ck_assert(!mc_encode_call(la(), b, 4, 0x8000004, 0));
	ck_assert(!mc_encode_call(la(), b, 4, 0x1002, 0x2000));
	ck_assert(!mc_encode_call(la(), b, 4, 0x1000, 0x2002));
	ck_assert(!mc_encode_call(la(), b, 8, 0x1000, 0x80001000));
	ck_assert(!mc_encode_call(la(), b, 8, 0x80001000, 0x0));
	ck_assert(!mc_encode_call(la(), b, 6, 0x1000, 0x2000));
}
END_TEST

/*
 * The decoder on llvm-mc's own bytes: a `bl` and a pair to `target`,
 * written as the assembler writes them (not by our encoders).
 */
START_TEST(decode_assembled)
{
	char src[200], path[256], obj[256], cmd[1280];
	uint8_t code[12];

	scratch(src, sizeof(src), "dec.s",
		"bl 0x100\n"			/* at 0: to 0x100 */
		"pcalau12i $ra, 2\n"		/* at 4: page 0x2000 */
		"jirl $ra, $ra, -8\n");		/* to 0x1ff8 */
	snprintf(obj, sizeof(obj), "%s.o", src);
	snprintf(path, sizeof(path), "%s.bin", src);
	snprintf(cmd, sizeof(cmd),
		 LLVM_MC " -filetype=obj -o %s %s && "
		 "llvm-objcopy-16 -O binary -j .text %s %s", obj, src, obj,
		 path);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(code, 1, sizeof(code), f), sizeof(code));
	fclose(f);
	struct mc_site s = decode(la(), code, 4, 0);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.target, 0x100);
	s = decode(la(), code + 4, 8, 4);
	ck_assert_int_eq(s.kind, MC_SITE_CALL);
	ck_assert_uint_eq(s.len, 8);
	ck_assert_uint_eq(s.target, 0x1ff8);
	s = decode(la(), code + 4, 4, 4);	/* half a pair */
	ck_assert_int_eq(s.kind, MC_SITE_UNKNOWN);
	unlink(src);
	unlink(obj);
	unlink(path);
}
END_TEST

START_TEST(site_neutral)
{
	static const uint8_t nop8[] = { 0, 0, 0x40, 3, 0, 0, 0x40, 3 };
	uint8_t pair[8], bl[4];
	struct mc_site s;

	ck_assert(mc_encode_call(la(), pair, 8, 0x10000, 0x20000));
	ck_assert(mc_encode_call(la(), bl, 4, 0x10000, 0x10800));
	s = decode(la(), pair, 8, 0x10000);
	ck_assert_uint_eq(s.len, 8);
	ck_assert_mem_eq(mc_site_neutral(la(), &s), nop8, 8);
	s = decode(la(), bl, 4, 0x10000);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_mem_eq(mc_site_neutral(la(), &s), nop8, 4);
	s = (struct mc_site){ MC_SITE_UNKNOWN, 4, 0 };
	ck_assert_ptr_null(mc_site_neutral(la(), &s));
}
END_TEST

/*
 * Every relocation type named, as llvm-readelf-16 names it in an object
 * llvm-mc-16 assembled with one relocation of each: the calls, the
 * address taken every way, the table's; NONE, RELATIVE and JUMP_SLOT,
 * which no object holds, are <elf.h>'s.
 */
START_TEST(reloc_names)
{
	char src[200], obj[256], cmd[1024], line[LINE];
	unsigned seen = 0;

	scratch(src, sizeof(src), "rel.s",
		".text\n"
		"bl mcount\n"
		"pcalau12i $ra, %pc_hi20(mcount)\n"
		"jirl $ra, $ra, %pc_lo12(mcount)\n"
		"pcalau12i $a0, %got_pc_hi20(mcount)\n"
		"ld.d $a0, $a0, %got_pc_lo12(mcount)\n"
		"lu12i.w $a0, %abs_hi20(mcount)\n"
		"ori $a0, $a0, %abs_lo12(mcount)\n"
		".data\n"
		".8byte mcount\n.4byte mcount\n.4byte mcount - .\n");
	snprintf(obj, sizeof(obj), "%s.o", src);
	snprintf(cmd, sizeof(cmd), LLVM_MC " -filetype=obj -o %s %s && "
		 "llvm-readelf-16 -r %s", obj, src, obj);
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	while (fgets(line, sizeof(line), pp)) {
		char name[64];
		unsigned long long off, info;

		if (sscanf(line, "%llx %llx %63s", &off, &info, name) != 3 ||
		    strncmp(name, "R_LARCH_", 8) != 0)
			continue;
		const char *ours = mc_reloc_name(la(), (uint32_t)info);
		ck_assert_msg(ours && strcmp(ours, name) == 0,
			      "type %llu: ours %s, llvm-readelf %s",
			      info & 0xffffffffull, ours ? ours : "unnamed",
			      name);
		seen++;
	}
	ck_assert_int_eq(pclose(pp), 0);
	ck_assert_uint_eq(seen, 10);
	ck_assert_str_eq(mc_reloc_name(la(), 0), "R_LARCH_NONE");
	ck_assert_str_eq(mc_reloc_name(la(), 3), "R_LARCH_RELATIVE");
	ck_assert_str_eq(mc_reloc_name(la(), 5), "R_LARCH_JUMP_SLOT");
	/* ten from llvm-readelf, three from <elf.h>, nothing else */
	ck_assert_uint_eq(la()->n_reloc_names, 13);
	unlink(src);
	unlink(obj);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arch_loongarch");
	TCase *tc = tcase_create("loongarch");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, registry);
	tcase_add_test(tc, reloc_names);
	tcase_add_test(tc, form_bl);
	tcase_add_test(tc, form_pair);
	tcase_add_test(tc, nops);
	tcase_add_loop_test(tc, bl_roundtrip, 0, MC_COUNT(bls));
	tcase_add_loop_test(tc, pair_roundtrip, 0, MC_COUNT(pairs));
	tcase_add_test(tc, call_range);
	tcase_add_test(tc, decode_assembled);
	tcase_add_test(tc, site_neutral);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
