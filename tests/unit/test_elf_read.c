/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_read.c - unit tests of the object model (elf/): what is read
 * (sections, symbols, relocations) agrees with readelf.
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree)
 * and held against binutils (elf_test.c).
 */
#define _GNU_SOURCE
#include "../../elf/object.h"
#include "../../elf/reloc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_test.h"

/* ---- open, sections, symbols ------------------------------------- */

START_TEST(open_matches_readelf)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	struct rd_section *rs;

	open_ok(&obj, o);
	ck_assert_uint_eq(obj.ehdr.e_type, ET_REL);
	ck_assert_uint_eq(obj.ehdr.e_machine, is64(_i) ? EM_X86_64 : EM_386);
	ck_assert_uint_eq(obj.ehdr.e_ident[EI_CLASS],
			  is64(_i) ? ELFCLASS64 : ELFCLASS32);

	size_t n = readelf_sections(o, &rs);
	ck_assert_uint_eq(obj.n_sections, n);
	ck_assert_str_eq(obj.sections[0]->name, "");
	for (size_t i = 1; i < n; i++) {
		ck_assert_uint_eq(obj.sections[i]->index, i);
		ck_assert_str_eq(obj.sections[i]->name, rs[i].name);
		ck_assert_uint_eq(obj.sections[i]->shdr->sh_size, rs[i].size);
		ck_assert_uint_eq(obj.sections[i]->shdr->sh_link, rs[i].link);
		ck_assert_uint_eq(obj.sections[i]->shdr->sh_info, rs[i].info);
	}
	ck_assert_str_eq(obj.sections[obj.shstrndx]->name, ".shstrtab");
	ck_assert_ptr_nonnull(obj.symtab);
	ck_assert_str_eq(obj.symtab->name, ".symtab");
	ck_assert_ptr_null(obj.symtab_shndx);
	ck_assert_uint_eq(obj.first_global, rs[obj.symtab->index].info);

	/* Symbols: count and names against readelf -sW. */
	char *cmd = xasprintf("readelf -sW '%s'", o);
	char *text = run(cmd, NULL, NULL);
	size_t count = 0, locals = 0;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned num;
		char val[32], type[32], bind[32], vis[32], ndx[32];
		char name[256] = "";
		int k = sscanf(l, " %u: %31s %*s %31s %31s %31s %31s %255s",
			       &num, val, type, bind, vis, ndx, name);

		if (k < 6)
			continue;
		ck_assert_uint_eq(num, count);
		ck_assert_uint_lt(num, obj.n_symbols);
		const struct mc_symbol s_v = mc_symbol(&obj, num), *s = &s_v;
		if (strcmp(type, "SECTION") != 0)
			ck_assert_str_eq(s->name, name);
		else
			ck_assert_uint_eq(GELF_ST_TYPE(s->sym.st_info),
					  STT_SECTION);
		if (strcmp(bind, "LOCAL") == 0)
			locals++;
		ck_assert_int_eq(strcmp(bind, "LOCAL") == 0,
				 num < obj.first_global);
		if (strcmp(ndx, "UND") == 0)
			ck_assert_uint_eq(s->shndx, SHN_UNDEF);
		else if (strcmp(ndx, "ABS") != 0 && strcmp(ndx, "COM") != 0)
			ck_assert_uint_eq(s->shndx, strtoul(ndx, NULL, 10));
		count++;
	}
	ck_assert_uint_eq(count, obj.n_symbols);
	ck_assert_uint_eq(locals, obj.first_global);

	/* A few symbols by name. */
	bool seen_fn = false, seen_helper = false, seen_ext = false;
	struct mc_section *text_sec = mc_section_by_name(&obj, ".text");
	ck_assert_ptr_nonnull(text_sec);
	for (size_t i = 0; i < obj.n_symbols; i++) {
		const struct mc_symbol s_v = mc_symbol(&obj, i), *s = &s_v;

		if (strcmp(s->name, "global_fn") == 0) {
			seen_fn = true;
			ck_assert_uint_ge(i, obj.first_global);
			ck_assert_uint_eq(GELF_ST_TYPE(s->sym.st_info), STT_FUNC);
			ck_assert_uint_eq(s->shndx, text_sec->index);
		} else if (strcmp(s->name, "helper") == 0) {
			seen_helper = true;
			ck_assert_uint_lt(i, obj.first_global);
			ck_assert_uint_eq(s->shndx, text_sec->index);
		} else if (strcmp(s->name, "ext_fn") == 0) {
			seen_ext = true;
			ck_assert_uint_eq(s->shndx, SHN_UNDEF);
		}
	}
	ck_assert(seen_fn && seen_helper && seen_ext);

	free(text);
	free(cmd);
	free(rs);
	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

START_TEST(section_lookup_and_bytes)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t n, want_n;

	open_ok(&obj, o);
	ck_assert_ptr_null(mc_section_by_name(&obj, ".nonexistent"));
	ck_assert_ptr_null(mc_section_by_name(&obj, ".tex"));
	ck_assert_ptr_null(mc_section_by_name(&obj, ""));

	struct mc_section *text = mc_section_by_name(&obj, ".text");
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text->name, ".text");
	ck_assert_uint_eq(text->shdr->sh_type, SHT_PROGBITS);
	const uint8_t *b = mc_section_bytes(&obj, text, &n);
	uint8_t *want = objcopy_section(o, ".text", &want_n);
	ck_assert_uint_gt(want_n, 0);
	ck_assert_uint_eq(n, want_n);
	ck_assert(memcmp(b, want, n) == 0);
	free(want);

	/* global_data's initialiser, little endian. */
	struct mc_section *data = mc_section_by_name(&obj, ".data");
	ck_assert_ptr_nonnull(data);
	b = mc_section_bytes(&obj, data, &n);
	static const uint8_t gd[16] = { 0x44, 0x33, 0x22, 0x11, 0x88, 0x77,
					0x66, 0x55, 0, 0, 0, 0,
					0xff, 0xff, 0xff, 0xff };
	ck_assert_uint_ge(n, 16);
	ck_assert_ptr_nonnull(memmem(b, n, gd, sizeof(gd)));

	/* .bss has no bytes. */
	struct mc_section *bss = mc_section_by_name(&obj, ".bss");
	ck_assert_ptr_nonnull(bss);
	n = 12345;
	ck_assert_ptr_null(mc_section_bytes(&obj, bss, &n));
	ck_assert_uint_eq(n, 0);

	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * Every section's bytes, as the model reads them (from the mapped file
 * directly for code and relocations, mc_section_input_data), are
 * libelf's own: asked of libelf only afterwards, so that the model's
 * reads are its first.
 */
START_TEST(section_bytes_match_libelf)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t direct = 0;

	open_ok(&obj, o);
	for (size_t i = 1; i < obj.n_sections; i++) {
		struct mc_section *sec = obj.sections[i];
		struct mc_reloc_table t;
		size_t n;
		const uint8_t *b = mc_section_bytes(&obj, sec, &n);

		mc_reloc_table_open(&obj, sec, &t);
		if (sec->shdr->sh_type == SHT_NOBITS)
			continue;
		Elf_Data *d = elf_getdata(elf_getscn(obj.elf, i), NULL);

		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(n, d->d_size);
		ck_assert_msg(n == 0 || memcmp(b, d->d_buf, n) == 0,
			      "%s: bytes differ from libelf's", sec->name);
		if (mc_is_reloc_section(sec)) {
			ck_assert_uint_eq(t.n, mc_reloc_count(sec));
			ck_assert(memcmp(t.p, d->d_buf, d->d_size) == 0);
		}
		direct += b && b == obj.image + sec->shdr->sh_offset;
	}
	/* .text, .data and their relocations at least, read in place */
	ck_assert_uint_ge(direct, 4);
	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * Section headers: libelf's own, where it holds them as GElf_Shdr (an
 * ELF64 object), not copies; equal to gelf_getshdr's in either class;
 * and a change (a rename, a size) goes to a copy of the section's own,
 * leaving libelf's header, which libelf reads the section's data by,
 * and the mapped file as they were read.
 */
START_TEST(headers_are_libelfs_until_changed)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t text = 0;

	open_ok(&obj, o);
	for (size_t i = 0; i < obj.n_sections; i++) {
		struct mc_section *sec = obj.sections[i];
		Elf_Scn *scn = mc_section_scn(&obj, sec);
		GElf_Shdr g;

		ck_assert_ptr_eq(scn, elf_getscn(obj.elf, i));
		ck_assert_ptr_nonnull(gelf_getshdr(scn, &g));
		ck_assert(memcmp(&g, sec->shdr, sizeof(g)) == 0);
		if (is64(_i))
			ck_assert_ptr_eq(sec->shdr, elf64_getshdr(scn));
		ck_assert(!sec->own_header);
		if (strcmp(sec->name, ".text") == 0)
			text = i;
	}
	ck_assert_uint_ne(text, 0);
	struct mc_section *sec = obj.sections[text];
	Elf_Scn *scn = mc_section_scn(&obj, sec);
	GElf_Shdr before;
	size_t image_size = obj.image_size;
	uint8_t *image = malloc(image_size);

	ck_assert_ptr_nonnull(image);
	memcpy(image, obj.image, image_size);
	gelf_getshdr(scn, &before);
	ck_assert(mc_section_rename(&obj, sec, ".text.renamed"));
	ck_assert(mc_section_set_contents(&obj, sec, calloc(1, 3), 3,
					  ELF_T_BYTE));
	ck_assert(sec->own_header);
	ck_assert_str_eq(sec->name, ".text.renamed");
	ck_assert_uint_eq(sec->shdr->sh_size, 3);
	ck_assert_uint_ne(sec->shdr->sh_name, before.sh_name);

	GElf_Shdr after;

	gelf_getshdr(scn, &after);
	ck_assert(memcmp(&before, &after, sizeof(before)) == 0);
	ck_assert(memcmp(image, obj.image, image_size) == 0);
	free(image);
	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- relocations ------------------------------------------------- */

static bool same_reloc(const struct mc_reloc *a, const struct mc_reloc *b)
{
	return a->offset == b->offset && a->type == b->type &&
	       a->sym == b->sym && a->addend == b->addend &&
	       a->mips_extra == b->mips_extra;
}

START_TEST(relocs_match_readelf)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t nrel = 0;

	open_ok(&obj, o);
	for (size_t i = 1; i < obj.n_sections; i++) {
		struct mc_section *sec = obj.sections[i];

		if (!mc_is_reloc_section(sec))
			continue;
		nrel++;
		ck_assert_uint_eq(sec->shdr->sh_type, is64(_i) ? SHT_RELA
							     : SHT_REL);
		ck_assert_uint_eq(sec->shdr->sh_entsize,
				  mc_reloc_entry_size(&obj, sec->shdr->sh_type));
		ck_assert_uint_eq(mc_reloc_count(sec),
				  sec->shdr->sh_size / sec->shdr->sh_entsize);

		/* mc_reloc_read: in place, or through mc_reloc_get, alike. */
		struct mc_reloc_table t, none;
		size_t n = mc_reloc_count(sec);

		mc_reloc_table_open(&obj, sec, &t);
		ck_assert_uint_eq(t.n, n);
		none = t;
		none.n = 0;
		for (size_t k = 0; k < n; k++) {
			struct mc_reloc a, b, c;

			ck_assert(mc_reloc_get(&obj, sec, k, &a));
			ck_assert(mc_reloc_read(&obj, sec, &t, k, &b));
			ck_assert(mc_reloc_read(&obj, sec, &none, k, &c));
			ck_assert(same_reloc(&a, &b) && same_reloc(&a, &c));
		}
	}
	ck_assert_uint_ge(nrel, 2);	/* .text and .data at least */
	ck_assert_uint_eq(mc_reloc_entry_size(&obj, SHT_RELA),
			  is64(_i) ? 24 : 12);
	ck_assert_uint_eq(mc_reloc_entry_size(&obj, SHT_REL),
			  is64(_i) ? 16 : 8);

	char *mine = model_relocs(&obj);
	char *theirs = readelf_relocs(o, is64(_i));
	ck_assert(strlen(theirs) > 0);
	ck_assert_str_eq(mine, theirs);
	/* The call to ext_fn is among them. */
	ck_assert_ptr_nonnull(strstr(mine, " ext_fn "));

	free(mine);
	free(theirs);
	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- dynamic tags ------------------------------------------------- */

/*
 * A shared object's .dynamic against readelf -d: every tag readelf
 * prints with a number, and one absent.  Native (host order), then
 * big-endian o32 MIPS, whose GOT tags --check reads (where the cross
 * compiler is installed).
 */
START_TEST(dynamic_matches_readelf)
{
	static const char *const cc[] = { "cc", "mips-linux-gnu-gcc" };
	char *dir = make_tmpdir();
	char *which = xasprintf("command -v %s || true", cc[_i]);
	char *found = run(which, NULL, NULL);

	free(which);
	if (!file_nonempty_text(found)) {
		free(found);
		remove_tree(dir);
		return;
	}
	free(found);
	char *flags = xasprintf("%s -fPIC -O2", cc[_i]);
	char *o = compile(dir, "basic", "c", flags, basic_src);
	char *so = xasprintf("%s/basic.so", dir);
	char *cmd = xasprintf("%s -shared -nostdlib -o '%s' '%s'", cc[_i], so,
			      o);
	free(run(cmd, NULL, NULL));
	free(cmd);
	cmd = xasprintf("readelf -dW '%s'", so);
	char *out = run(cmd, NULL, NULL);
	struct mc_object obj;
	size_t seen = 0;

	open_ok(&obj, so);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long tag, value;
		char name[64], val[64];
		uint64_t mine;

		if (sscanf(line, " 0x%llx (%63[^)]) %63s", &tag, name,
			   val) != 3 || tag == DT_NULL ||
		    (sscanf(val, "0x%llx", &value) != 1 &&
		     sscanf(val, "%llu", &value) != 1))
			continue;
		ck_assert_msg(mc_dynamic_value(&obj, (int64_t)tag, &mine),
			      "%s: no %s", so, name);
		ck_assert_msg(mine == value, "%s: %s 0x%llx, readelf 0x%llx",
			      so, name, (unsigned long long)mine, value);
		seen++;
	}
	ck_assert_uint_ge(seen, 5);
	uint64_t v = 0;
	ck_assert(!mc_dynamic_value(&obj, 0x6fffff00, &v));
	mc_object_close(&obj);
	free(out);
	free(cmd);
	free(so);
	free(o);
	free(flags);
	remove_tree(dir);
}
END_TEST

static Suite *read_suite(void)
{
	Suite *s = suite_create("elf_read");
	TCase *tc;

	tc = tcase_create("read");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, open_matches_readelf, 0, 2);
	tcase_add_loop_test(tc, section_lookup_and_bytes, 0, 2);
	tcase_add_loop_test(tc, section_bytes_match_libelf, 0, 2);
	tcase_add_loop_test(tc, headers_are_libelfs_until_changed, 0, 2);
	tcase_add_loop_test(tc, relocs_match_readelf, 0, 2);
	tcase_add_loop_test(tc, dynamic_matches_readelf, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(read_suite());
}
