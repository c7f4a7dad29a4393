/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_symbols.c - unit tests of the object model (elf/): section
 * symbols and labels added as handles, numbered when the object is
 * written.
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree)
 * and held against binutils (elf_test.c).
 */
#define _GNU_SOURCE
#include "../../elf/object.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_test.h"

/*
 * Shared body: add section symbols for `want` (n of them; 0 entries
 * mean "a section without one") to `o` with mc_add_section_symbols,
 * and check that everything else
 * still means what it meant.
 */
static void check_add_section_symbols(const char *o, bool elf64,
				      const size_t *want, size_t n)
{
	struct mc_object obj;
	size_t shndx[8];

	ck_assert_uint_le(n, 8);
	open_ok(&obj, o);
	for (size_t j = 0; j < n; j++) {
		shndx[j] = want[j] ? want[j] : section_without_symbol(&obj);
		if (!shndx[j])
			shndx[j] = mc_section_by_name(&obj, ".text")->index;
	}
	size_t k = obj.first_global, nsym = obj.n_symbols;
	uint32_t info = obj.symtab->shdr->sh_info;
	char *model_before = model_relocs(&obj);
	char *readelf_before = readelf_relocs(o, elf64);
	char *groups_before = model_groups(&obj);
	char *rgroups_before = readelf_groups(o);
	ck_assert_str_eq(model_before, readelf_before);
	ck_assert_str_eq(groups_before, rgroups_before);
	/* readelf names a group exactly when there is one */
	ck_assert(mc_object_has_groups(&obj) == (rgroups_before[0] != 0));
	char **names = calloc(nsym, sizeof(*names));
	struct mc_symbol *old = calloc(nsym, sizeof(*old));
	ck_assert_ptr_nonnull(names);
	ck_assert_ptr_nonnull(old);
	for (size_t i = 0; i < nsym; i++) {
		names[i] = strdup(mc_symbol(&obj, i).name);
		old[i] = mc_symbol(&obj, i);
	}

	size_t got = mc_add_section_symbols(&obj, shndx, n);
	ck_assert_msg(got != SIZE_MAX, "%s", obj.error);
	/*
	 * Handles after every symbol; nothing renumbered until written:
	 * the symbol table, its sh_info and the relocations as read.
	 */
	ck_assert_uint_eq(got, nsym);
	ck_assert_uint_eq(obj.first_global, k);
	ck_assert_uint_eq(obj.n_symbols, nsym + n);
	ck_assert_uint_eq(obj.symtab->shdr->sh_info, info);
	ck_assert_ptr_null(obj.symtab->buf);
	for (size_t i = 1; i < obj.n_sections; i++)
		if (mc_is_reloc_section(obj.sections[i]))
			ck_assert_ptr_null(obj.sections[i]->buf);
	for (size_t j = 0; j < n; j++) {
		const struct mc_symbol s_v = mc_symbol(&obj, got + j), *s = &s_v;

		ck_assert_uint_eq(s->shndx, shndx[j]);
		ck_assert_uint_eq(GELF_ST_TYPE(s->sym.st_info), STT_SECTION);
		ck_assert_uint_eq(GELF_ST_BIND(s->sym.st_info), STB_LOCAL);
		ck_assert_uint_ne(section_symbol(&obj, shndx[j]), SIZE_MAX);
	}
	for (size_t i = 0; i < nsym; i++)
		ck_assert_str_eq(mc_symbol(&obj, i).name, names[i]);

	/* Same relocations and group signatures by name, in memory ... */
	char *model_mid = model_relocs(&obj);
	char *groups_mid = model_groups(&obj);
	ck_assert_str_eq(model_mid, model_before);
	ck_assert_str_eq(groups_mid, groups_before);

	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	/* ... in the written file by the model ... */
	open_ok(&obj, o);
	ck_assert_uint_eq(obj.first_global, k + n);
	ck_assert_uint_eq(obj.n_symbols, nsym + n);
	ck_assert_uint_eq(obj.symtab->shdr->sh_info, info + n);
	for (size_t j = 0; j < n; j++) {
		ck_assert_uint_eq(mc_symbol(&obj, k + j).shndx, shndx[j]);
		ck_assert_uint_eq(GELF_ST_TYPE(mc_symbol(&obj, k + j).sym.st_info),
				  STT_SECTION);
	}
	/* Every old symbol as it was, section (SHN_XINDEX too) included. */
	for (size_t i = 0; i < nsym; i++) {
		const struct mc_symbol now_v = mc_symbol(&obj, i < k ? i : i + n), *now = &now_v;

		ck_assert_str_eq(now->name, names[i]);
		ck_assert_uint_eq(now->shndx, old[i].shndx);
		ck_assert_uint_eq(now->sym.st_shndx, old[i].sym.st_shndx);
		ck_assert_uint_eq(now->sym.st_value, old[i].sym.st_value);
		ck_assert_uint_eq(now->sym.st_info, old[i].sym.st_info);
		ck_assert_uint_eq(now->sym.st_size, old[i].sym.st_size);
	}
	char *model_after = model_relocs(&obj);
	char *groups_after = model_groups(&obj);
	ck_assert_str_eq(model_after, model_before);
	ck_assert_str_eq(groups_after, groups_before);
	mc_object_close(&obj);

	/* ... and by readelf. */
	char *readelf_after = readelf_relocs(o, elf64);
	char *rgroups_after = readelf_groups(o);
	ck_assert_str_eq(readelf_after, readelf_before);
	ck_assert_str_eq(rgroups_after, rgroups_before);
	assert_readelf_clean(o);
	assert_ld_r(o, elf64);

	for (size_t i = 0; i < nsym; i++)
		free(names[i]);
	free(names);
	free(old);
	free(model_before);
	free(readelf_before);
	free(groups_before);
	free(rgroups_before);
	free(model_mid);
	free(groups_mid);
	free(model_after);
	free(groups_after);
	free(readelf_after);
	free(rgroups_after);
}

START_TEST(add_section_symbol)
{
	char *dir = make_tmpdir();
	/* -ffunction-sections: several relocation sections to renumber. */
	char *flags = xasprintf("%s -ffunction-sections -fdata-sections",
				basic_flags[_i]);
	char *o = compile(dir, "basic", "c", flags, basic_src);
	static const size_t any = 0;

	check_add_section_symbols(o, is64(_i), &any, 1);
	free(flags);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * The object model numbers symbols when it writes: a relocation added
 * before a symbol is (here against a global, whose index the new local
 * moves up) and one added after it (against the new symbol's handle)
 * both name their symbol in the file, and the input's relocations are
 * untouched in memory until the write.
 */
START_TEST(symbols_numbered_when_written)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t addr = is64(_i) ? 8 : 4;
	uint32_t rtype = 1;	/* R_X86_64_64 / R_386_32 */
	uint32_t shtype = is64(_i) ? SHT_RELA : SHT_REL;
	const char *rname = is64(_i) ? ".rela__test_tab" : ".rel__test_tab";

	open_ok(&obj, o);
	char *relocs_before = readelf_relocs(o, is64(_i));
	ck_assert_uint_lt(obj.first_global, obj.n_symbols);
	size_t g = obj.first_global;	/* a global: moves when written */
	char *gname = strdup(mc_symbol(&obj, g).name);
	size_t text = mc_section_by_name(&obj, ".text")->index;
	size_t nsym = obj.n_symbols, k = obj.first_global;

	uint8_t *tab = calloc(2, addr);
	size_t esz = mc_reloc_entry_size(&obj, shtype);
	void *rels = calloc(2, esz);
	ck_assert(tab && rels);
	GElf_Shdr th = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			 .sh_addralign = addr, .sh_entsize = addr };
	struct mc_section *t = mc_add_section(&obj, "__test_tab", &th, tab,
					      2 * addr, ELF_T_BYTE);
	ck_assert_msg(t != NULL, "%s", obj.error);
	size_t tndx = t->index;
	/* Slot 0 against the global, before any symbol is added ... */
	struct mc_reloc r0 = { .offset = 0, .type = rtype, .sym = g };
	mc_reloc_store(&obj, shtype, rels, 0, &r0);
	/* ... then a section symbol for .text, and slot 1 against it. */
	size_t h = mc_add_section_symbols(&obj, &text, 1);
	ck_assert_msg(h != SIZE_MAX, "%s", obj.error);
	ck_assert_uint_eq(h, nsym);
	ck_assert_str_eq(mc_symbol(&obj, g).name, gname);
	ck_assert_ptr_null(obj.symtab->buf);
	struct mc_reloc r1 = { .offset = addr, .type = rtype, .sym = h };
	mc_reloc_store(&obj, shtype, rels, 1, &r1);
	GElf_Shdr rh = { .sh_type = shtype, .sh_flags = SHF_INFO_LINK,
			 .sh_link = (GElf_Word)obj.symtab->index,
			 .sh_info = (GElf_Word)tndx, .sh_addralign = addr,
			 .sh_entsize = esz };
	ck_assert_ptr_nonnull(mc_add_section(&obj, rname, &rh, rels,
					     2 * esz, is64(_i) ? ELF_T_RELA
							       : ELF_T_REL));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	/* After the write the model only closes: the file is the answer. */
	mc_object_close(&obj);

	open_ok(&obj, o);
	ck_assert_uint_eq(obj.n_symbols, nsym + 1);
	ck_assert_uint_eq(obj.first_global, k + 1);
	ck_assert_uint_eq(mc_symbol(&obj, k).shndx, text);
	ck_assert_str_eq(mc_symbol(&obj, g + 1).name, gname);
	struct mc_section *r = mc_section_by_name(&obj, rname);
	ck_assert_ptr_nonnull(r);
	struct mc_reloc got;
	ck_assert(mc_reloc_get(&obj, r, 0, &got));
	ck_assert_uint_eq(got.sym, g + 1);
	ck_assert(mc_reloc_get(&obj, r, 1, &got));
	ck_assert_uint_eq(got.sym, k);
	mc_object_close(&obj);

	/* readelf: the input's relocations as they were, the new ones. */
	char *after = readelf_relocs(o, is64(_i));
	ck_assert(strncmp(after, relocs_before, strlen(relocs_before)) == 0);
	char *want = xasprintf("%s 0 1 %s 0\n%s %zx 1 .text 0\n", rname,
			       gname, rname, addr);
	ck_assert_str_eq(after + strlen(relocs_before), want);
	assert_readelf_clean(o);
	free(want);
	free(after);
	free(relocs_before);
	free(gname);
	free(o);
	remove_tree(dir);
}
END_TEST

START_TEST(add_section_symbol_comdat)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "comdat", "cc",
			  is64(_i) ? "cc -O0" : "i686-linux-gnu-gcc -O0",
			  comdat_src);
	struct mc_object obj;

	/*
	 * The object really has groups: GCC signs square()'s with a global
	 * (shifted by the insertion) and the constructor's C5 group with a
	 * local (not shifted): both must still name the same symbol.
	 */
	open_ok(&obj, o);
	size_t global_sig = 0, local_sig = 0;
	for (size_t i = 1; i < obj.n_sections; i++) {
		struct mc_section *s = obj.sections[i];

		if (s->shdr->sh_type != SHT_GROUP)
			continue;
		if (s->shdr->sh_info >= obj.first_global)
			global_sig++;
		else
			local_sig++;
	}
	ck_assert_uint_ge(global_sig, 1);
	ck_assert_uint_ge(local_sig, 1);
	mc_object_close(&obj);

	static const size_t any = 0;
	check_add_section_symbols(o, is64(_i), &any, 1);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * dir/big.o, assembled (as --64) from `nsec` one-byte sections .s0,
 * .s1, ... (each byte its index's low 8 bits, or 1), `nglobals` globals
 * hi0, hi1, ... in the highest sections but `skip` (their SHN_XINDEX
 * entries must move), and `tail`, which may name .s<nsec - 2> (%d).
 */
static char *many_sections(const char *dir, int nsec, bool numbered,
			   int nglobals, int skip, const char *tail)
{
	char *s = xasprintf("%s/big.s", dir);
	char *o = xasprintf("%s/big.o", dir);
	FILE *f = fopen(s, "w");

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < nsec; i++)
		fprintf(f, ".section .s%d,\"a\"\n.byte %d\n", i,
			numbered ? i & 0xff : 1);
	for (int i = 0; i < nglobals; i++)
		fprintf(f, ".section .s%d,\"a\"\n.globl hi%d\nhi%d: .byte 2\n",
			nsec - 1 - skip - i, i, i);
	fprintf(f, tail, nsec - 2);
	ck_assert_int_eq(fclose(f), 0);
	char *cmd = xasprintf("as --64 -o '%s' '%s'", o, s);
	free(run(cmd, NULL, NULL));
	free(cmd);
	free(s);
	return o;
}

/* More than 65280 sections: SHN_XINDEX and SHT_SYMTAB_SHNDX. */
START_TEST(add_section_symbol_xindex)
{
	char *dir = make_tmpdir();
	enum { NSEC = 65400 };
	/*
	 * Relocations against high-numbered sections (lab, in the last),
	 * and a global.
	 */
	char *o = many_sections(dir, NSEC, true, 4, 4,
				".section .s65399,\"a\"\nlab: .byte 1\n"
				".data\n.quad lab\n.globl g\ng: .quad .s%d + 8\n"
				".quad .s3\n.text\n.globl fn\nfn: call ext\nret\n");

	struct mc_object obj;
	open_ok(&obj, o);
	ck_assert_uint_gt(obj.n_sections, SHN_LORESERVE);
	ck_assert_ptr_nonnull(obj.symtab_shndx);
	ck_assert_uint_ge(obj.shstrndx, SHN_LORESERVE);
	struct mc_section *hi = mc_section_by_name(&obj, ".s65390");
	ck_assert_ptr_nonnull(hi);
	ck_assert_uint_gt(hi->index, SHN_LORESERVE);
	ck_assert_uint_eq(section_symbol(&obj, hi->index), SIZE_MAX);
	size_t hindex = hi->index;
	mc_object_close(&obj);

	/* Add the symbol for a section beyond SHN_LORESERVE. */
	check_add_section_symbols(o, true, &hindex, 1);

	open_ok(&obj, o);
	size_t k = section_symbol(&obj, hindex);
	ck_assert_uint_ne(k, SIZE_MAX);
	ck_assert_uint_eq(mc_symbol(&obj, k).sym.st_shndx, SHN_XINDEX);
	mc_object_close(&obj);
	char *sym = xasprintf("readelf -sW '%s' | grep -c ' SECTION .*"
			      " %zu .s65390$'", o, hindex);
	char *count = run(sym, NULL, NULL);
	ck_assert_int_eq(atoi(count), 1);

	free(count);
	free(sym);
	free(o);
	remove_tree(dir);
}
END_TEST

START_TEST(add_section_symbol_without_symtab)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *cmd = xasprintf("strip --strip-all '%s'", o);
	struct mc_object obj;

	free(run(cmd, NULL, NULL));
	open_ok(&obj, o);
	ck_assert_ptr_null(obj.symtab);
	ck_assert_uint_eq(obj.n_symbols, 0);
	size_t one = 1;
	ck_assert_uint_eq(mc_add_section_symbols(&obj, &one, 1), SIZE_MAX);
	ck_assert(file_nonempty_text(obj.error));
	mc_object_close(&obj);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST

/* Several at once, in the order given, sections with and without. */
START_TEST(add_section_symbols_batch)
{
	char *dir = make_tmpdir();
	char *flags = xasprintf("%s -ffunction-sections -fdata-sections",
				basic_flags[_i]);
	char *o = compile(dir, "basic", "c", flags, basic_src);
	struct mc_object obj;
	size_t want[4], n = 0;

	/* The last sections first, to see the order is the caller's. */
	open_ok(&obj, o);
	for (size_t i = obj.n_sections - 1; i > 0 && n < 3; i--)
		if (obj.sections[i]->shdr->sh_type == SHT_PROGBITS &&
		    (obj.sections[i]->shdr->sh_flags & SHF_ALLOC))
			want[n++] = i;
	want[n++] = mc_section_by_name(&obj, ".text")->index;
	mc_object_close(&obj);
	ck_assert_uint_eq(n, 4);
	check_add_section_symbols(o, is64(_i), want, n);

	free(flags);
	free(o);
	remove_tree(dir);
}
END_TEST

START_TEST(add_section_symbols_batch_xindex)
{
	char *dir = make_tmpdir();
	enum { NSEC = 65300 };
	char *o = many_sections(dir, NSEC, false, 3, 0,
				".data\n.globl g\ng: .quad .s%d + 8\n"
				".quad hi1\n");

	struct mc_object obj;
	open_ok(&obj, o);
	size_t want[3] = {
		mc_section_by_name(&obj, ".s65290")->index,	/* > 0xff00 */
		mc_section_by_name(&obj, ".s10")->index,	/* < 0xff00 */
		mc_section_by_name(&obj, ".s65299")->index,
	};
	mc_object_close(&obj);
	check_add_section_symbols(o, true, want, 3);

	free(o);
	remove_tree(dir);
}
END_TEST

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("elf_symbols");
	TCase *tc;

	tc = tcase_create("modify");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, add_section_symbol, 0, 2);
	tcase_add_loop_test(tc, add_section_symbol_comdat, 0, 2);
	tcase_add_loop_test(tc, symbols_numbered_when_written, 0, 2);
	tcase_add_test(tc, add_section_symbol_xindex);
	tcase_add_loop_test(tc, add_section_symbols_batch, 0, 2);
	tcase_add_test(tc, add_section_symbols_batch_xindex);
	tcase_add_loop_test(tc, add_section_symbol_without_symtab, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(symbols_suite());
}
