/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_edit.c - unit tests of the object model (elf/): changes to
 * relocations, bytes, bindings and sections, and the handles that
 * survive them.
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

START_TEST(reloc_set_roundtrip)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	struct mc_reloc r, back;

	open_ok(&obj, o);
	struct mc_section *rel =
		mc_section_by_name(&obj, is64(_i) ? ".rela.text" : ".rel.text");
	ck_assert_ptr_nonnull(rel);
	size_t n = mc_reloc_count(rel);
	ck_assert_uint_ge(n, 2);
	char *before = readelf_relocs(o, is64(_i));

	/* Neutralise the last relocation (what --nop does) and move the
	 * first one by 4 bytes with a new addend. */
	ck_assert(mc_reloc_get(&obj, rel, n - 1, &r));
	struct mc_reloc last = r;
	r.type = 0;
	ck_assert(mc_reloc_set(&obj, rel, n - 1, &r));
	ck_assert(mc_reloc_get(&obj, rel, n - 1, &back));
	ck_assert_uint_eq(back.type, 0);
	ck_assert_uint_eq(back.sym, last.sym);
	ck_assert_uint_eq(back.offset, last.offset);

	ck_assert(mc_reloc_get(&obj, rel, 0, &r));
	struct mc_reloc first = r;
	r.offset += 4;
	r.addend = -123456;
	ck_assert(mc_reloc_set(&obj, rel, 0, &r));
	ck_assert(mc_reloc_get(&obj, rel, 0, &back));
	ck_assert_uint_eq(back.offset, first.offset + 4);
	ck_assert_int_eq(back.addend, is64(_i) ? -123456 : 0);
	ck_assert_uint_eq(back.type, first.type);

	/* The file is untouched until written. */
	char *still = readelf_relocs(o, is64(_i));
	ck_assert_str_eq(before, still);
	free(still);

	char *mine = model_relocs(&obj);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	char *after = readelf_relocs(o, is64(_i));
	ck_assert_str_eq(mine, after);
	ck_assert_str_ne(before, after);
	char *cmd = xasprintf("readelf -rW '%s'", o);
	char *text = run(cmd, NULL, NULL);
	ck_assert_ptr_nonnull(strstr(text, is64(_i) ? "R_X86_64_NONE"
						    : "R_386_NONE"));
	assert_readelf_clean(o);

	free(text);
	free(cmd);
	free(mine);
	free(after);
	free(before);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- patching ---------------------------------------------------- */

START_TEST(section_patch)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	static const uint8_t nops[4] = { 0x90, 0x90, 0x90, 0x90 };
	size_t n, orig_n;

	open_ok(&obj, o);
	struct mc_section *text = mc_section_by_name(&obj, ".text");
	uint8_t *orig = objcopy_section(o, ".text", &orig_n);
	ck_assert_uint_gt(orig_n, 8);

	/* Out of range, in every way. */
	ck_assert(!mc_section_patch(&obj, text, orig_n, nops, 1));
	ck_assert(file_nonempty_text(obj.error));
	obj.error[0] = 0;
	ck_assert(!mc_section_patch(&obj, text, orig_n - 3, nops, 4));
	ck_assert(file_nonempty_text(obj.error));
	ck_assert(!mc_section_patch(&obj, text, orig_n + 100, nops, 1));
	ck_assert(!mc_section_patch(&obj, text, UINT64_MAX, nops, 2));
	ck_assert(!mc_section_patch(&obj, text, 2, nops, SIZE_MAX));
	/* Not PROGBITS. */
	obj.error[0] = 0;
	ck_assert(!mc_section_patch(&obj, mc_section_by_name(&obj, ".bss"), 0,
				    nops, 1));
	ck_assert(file_nonempty_text(obj.error));
	ck_assert(!mc_section_patch(&obj, obj.symtab, 0, nops, 1));
	const uint8_t *b = mc_section_bytes(&obj, text, &n);
	ck_assert_uint_eq(n, orig_n);
	ck_assert(memcmp(b, orig, n) == 0);

	/* In range: at the start, at the very end, and empty at the end. */
	ck_assert(mc_section_patch(&obj, text, 0, nops, 2));
	ck_assert(mc_section_patch(&obj, text, orig_n - 4, nops, 4));
	ck_assert(mc_section_patch(&obj, text, orig_n, nops, 0));
	b = mc_section_bytes(&obj, text, &n);
	ck_assert_uint_eq(n, orig_n);
	memcpy(orig, nops, 2);
	memcpy(orig + orig_n - 4, nops, 4);
	ck_assert(memcmp(b, orig, n) == 0);

	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	uint8_t *now = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(n, orig_n);
	ck_assert(memcmp(now, orig, n) == 0);
	assert_readelf_clean(o);

	free(now);
	free(orig);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * Symbols are read where they lie: a binding changed in the table shows
 * at once through mc_symbol(), before any write, and in the written file
 * (readelf); the held copy (mc_object_hold_symbols) agrees with the
 * table for every symbol.
 */
START_TEST(symbol_binding_read_in_place)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;

	open_ok(&obj, o);
	ck_assert_ptr_null(obj.symbols);	/* read in place */
	size_t k = mc_symbol_by_name(&obj, "ext_fn");
	ck_assert_uint_ne(k, SIZE_MAX);
	ck_assert_uint_eq(GELF_ST_BIND(mc_symbol(&obj, k).sym.st_info),
			  STB_GLOBAL);
	ck_assert_msg(mc_symbol_set_binding(&obj, k, STB_WEAK), "%s",
		      obj.error);
	ck_assert_uint_eq(GELF_ST_BIND(mc_symbol(&obj, k).sym.st_info),
			  STB_WEAK);
	ck_assert_str_eq(mc_symbol_name(&obj, k), "ext_fn");
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	char *cmd = xasprintf("readelf -sW '%s' | grep -c ' WEAK .* ext_fn$'",
			      o);
	char *count = run(cmd, NULL, NULL);
	ck_assert_int_eq(atoi(count), 1);

	open_ok(&obj, o);
	size_t n = obj.n_symbols;
	struct mc_symbol *in_place = malloc(n * sizeof(*in_place));
	ck_assert_ptr_nonnull(in_place);
	for (size_t i = 0; i < n; i++)
		in_place[i] = mc_symbol(&obj, i);
	ck_assert_msg(mc_object_hold_symbols(&obj), "%s", obj.error);
	ck_assert_ptr_nonnull(obj.symbols);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(obj.symbols[i].name, in_place[i].name);
		ck_assert_uint_eq(obj.symbols[i].shndx, in_place[i].shndx);
		ck_assert_mem_eq(&obj.symbols[i].sym, &in_place[i].sym,
				 sizeof(GElf_Sym));
	}
	free(in_place);
	mc_object_close(&obj);
	free(count);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST
/* ---- adding sections --------------------------------------------- */

/* Parse `readelf -x SEC` into bytes. */
static uint8_t *readelf_hex(const char *path, const char *sec, size_t *n)
{
	char *cmd = xasprintf("readelf -x '%s' '%s'", sec, path);
	char *text = run(cmd, NULL, NULL);
	uint8_t *out = malloc(strlen(text) + 1);
	size_t len = 0;

	ck_assert_ptr_nonnull(out);
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned long long addr;
		int used;

		if (sscanf(l, " 0x%llx %n", &addr, &used) != 1)
			continue;
		ck_assert_uint_eq(addr, len);
		/* up to four groups of 8 hex digits, then the ASCII column */
		char *p = l + used;
		for (int g = 0; g < 4; g++) {
			unsigned v;
			int k = 0;

			while (*p == ' ')
				p++;
			while (k < 4 && sscanf(p, "%2x", &v) == 1 &&
			       strspn(p, "0123456789abcdef") >= 2) {
				out[len++] = (uint8_t)v;
				p += 2;
				k++;
			}
			if (k < 4)
				break;
		}
	}
	free(text);
	free(cmd);
	*n = len;
	return out;
}

START_TEST(add_section)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	size_t addr = is64(_i) ? 8 : 4;
	uint32_t rtype = is64(_i) ? 1 : 1;	/* R_X86_64_64 / R_386_32 */
	uint32_t shtype = is64(_i) ? SHT_RELA : SHT_REL;
	static const uint8_t pattern[16] = { 0x00, 0x11, 0x22, 0x33, 0x44,
					     0x55, 0x66, 0x77, 0x88, 0x99,
					     0xaa, 0xbb, 0xcc, 0xdd, 0xee,
					     0xff };

	open_ok(&obj, o);
	size_t n0 = obj.n_sections;
	size_t textndx = mc_section_by_name(&obj, ".text")->index;
	size_t textsym = section_symbol(&obj, textndx);
	ck_assert_uint_ne(textsym, SIZE_MAX);
	char *relocs_before = readelf_relocs(o, is64(_i));

	/* The table: two address-sized slots. */
	uint8_t *tab = malloc(2 * addr);
	ck_assert_ptr_nonnull(tab);
	memcpy(tab, pattern, 2 * addr);
	GElf_Shdr th = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			 .sh_addralign = addr, .sh_entsize = addr };
	struct mc_section *t = mc_add_section(&obj, "__test_tab", &th, tab,
					      2 * addr, ELF_T_BYTE);
	ck_assert_msg(t != NULL, "%s", obj.error);
	size_t tndx = t->index;
	ck_assert_uint_eq(tndx, n0);
	ck_assert_uint_eq(obj.n_sections, n0 + 1);
	ck_assert_str_eq(t->name, "__test_tab");

	/* Its relocations: slot k -> .text + 16 * k. */
	size_t esz = mc_reloc_entry_size(&obj, shtype);
	void *rels = calloc(2, esz);
	ck_assert_ptr_nonnull(rels);
	for (size_t k = 0; k < 2; k++) {
		struct mc_reloc r = { .offset = k * addr, .type = rtype,
				      .sym = textsym,
				      .addend = is64(_i) ? (int64_t)(16 * k) : 0 };
		mc_reloc_store(&obj, shtype, rels, k, &r);
	}
	GElf_Shdr rh = { .sh_type = shtype, .sh_flags = SHF_INFO_LINK,
			 .sh_link = (GElf_Word)obj.symtab->index,
			 .sh_info = (GElf_Word)tndx, .sh_addralign = addr,
			 .sh_entsize = esz };
	const char *rname = is64(_i) ? ".rela__test_tab" : ".rel__test_tab";
	struct mc_section *r = mc_add_section(&obj, rname, &rh, rels, 2 * esz,
					      is64(_i) ? ELF_T_RELA : ELF_T_REL);
	ck_assert_msg(r != NULL, "%s", obj.error);
	ck_assert_uint_eq(r->index, n0 + 1);

	/* Both findable by name in memory, contents visible. */
	ck_assert_ptr_eq(mc_section_by_name(&obj, "__test_tab"),
			 obj.sections[tndx]);
	ck_assert_ptr_eq(mc_section_by_name(&obj, rname), obj.sections[n0 + 1]);
	size_t n;
	const uint8_t *b = mc_section_bytes(&obj, obj.sections[tndx], &n);
	ck_assert_uint_eq(n, 2 * addr);
	ck_assert_ptr_nonnull(b);
	ck_assert(memcmp(b, pattern, n) == 0);
	ck_assert_uint_eq(mc_reloc_count(obj.sections[n0 + 1]), 2);

	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	/* Reopened with the model. */
	open_ok(&obj, o);
	ck_assert_uint_eq(obj.n_sections, n0 + 2);
	t = mc_section_by_name(&obj, "__test_tab");
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->index, tndx);
	ck_assert_uint_eq(t->shdr->sh_type, SHT_PROGBITS);
	ck_assert_uint_eq(t->shdr->sh_flags, SHF_ALLOC);
	ck_assert_uint_eq(t->shdr->sh_addralign, addr);
	ck_assert_uint_eq(t->shdr->sh_entsize, addr);
	ck_assert_uint_eq(t->shdr->sh_size, 2 * addr);
	ck_assert_uint_eq(t->shdr->sh_offset % addr, 0);
	b = mc_section_bytes(&obj, t, &n);
	ck_assert_uint_eq(n, 2 * addr);
	ck_assert(memcmp(b, pattern, n) == 0);
	r = mc_section_by_name(&obj, rname);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->shdr->sh_type, shtype);
	ck_assert_uint_eq(r->shdr->sh_info, tndx);
	ck_assert_uint_eq(r->shdr->sh_link, obj.symtab->index);
	ck_assert_uint_eq(mc_reloc_count(r), 2);
	for (size_t k = 0; k < 2; k++) {
		struct mc_reloc got;

		ck_assert(mc_reloc_get(&obj, r, k, &got));
		ck_assert_uint_eq(got.offset, k * addr);
		ck_assert_uint_eq(got.type, rtype);
		ck_assert_uint_eq(got.sym, textsym);
		ck_assert_int_eq(got.addend, is64(_i) ? (int64_t)(16 * k) : 0);
	}
	mc_object_close(&obj);

	/* And with readelf. */
	struct rd_section *rs;
	size_t rn = readelf_sections(o, &rs);
	ck_assert_uint_eq(rn, n0 + 2);
	ck_assert_str_eq(rs[tndx].name, "__test_tab");
	ck_assert_str_eq(rs[tndx].type, "PROGBITS");
	ck_assert_str_eq(rs[tndx].flags, "A");
	ck_assert_uint_eq(rs[tndx].size, 2 * addr);
	ck_assert_str_eq(rs[n0 + 1].name, rname);
	ck_assert_str_eq(rs[n0 + 1].type, is64(_i) ? "RELA" : "REL");
	ck_assert_str_eq(rs[n0 + 1].flags, "I");
	ck_assert_uint_eq(rs[n0 + 1].info, tndx);
	free(rs);
	uint8_t *hex = readelf_hex(o, "__test_tab", &n);
	ck_assert_uint_eq(n, 2 * addr);
	ck_assert(memcmp(hex, pattern, n) == 0);
	free(hex);

	/* The old relocations are intact; the new ones follow them. */
	char *after = readelf_relocs(o, is64(_i));
	ck_assert(strncmp(after, relocs_before, strlen(relocs_before)) == 0);
	char *want = xasprintf("%s 0 1 .text 0\n%s %zx 1 .text %d\n", rname,
			       rname, addr, is64(_i) ? 16 : 0);
	ck_assert_str_eq(after + strlen(relocs_before), want);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));

	free(want);
	free(after);
	free(relocs_before);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * A table and its relocation section added in one call
 * (mc_add_table_section): named, linked and grouped as an assembler
 * would; and an empty relocation section for a section that had none
 * (mc_add_reloc_section).  The file is then taken by readelf and ld -r.
 */
START_TEST(add_table_section)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "comdat", "cc",
			  is64(_i) ? "cc -O0" : "i686-linux-gnu-gcc -O0",
			  comdat_src);
	struct mc_object obj;
	size_t addr = is64(_i) ? 8 : 4, group = 0;
	uint32_t rel_type = is64(_i) ? SHT_RELA : SHT_REL;
	const char *prefix = is64(_i) ? ".rela" : ".rel";

	open_ok(&obj, o);
	for (size_t i = 1; i < obj.n_sections && !group; i++)
		if (obj.sections[i]->shdr->sh_type == SHT_GROUP)
			group = i;
	ck_assert_uint_ne(group, 0);
	size_t text = mc_section_by_name(&obj, ".text")->index;
	size_t sym = section_symbol(&obj, text);
	if (sym == SIZE_MAX)
		sym = mc_add_section_symbols(&obj, &text, 1);
	ck_assert_uint_ne(sym, SIZE_MAX);

	uint8_t *slots = calloc(2, addr);
	void *rels = calloc(2, mc_reloc_entry_size(&obj, rel_type));
	ck_assert(slots && rels);
	for (size_t k = 0; k < 2; k++) {
		/* R_X86_64_64 / R_386_32 */
		struct mc_reloc r = { .offset = k * addr, .type = 1,
				      .sym = sym, .addend = is64(_i) ? 4 : 0 };

		mc_reloc_store(&obj, rel_type, rels, k, &r);
	}
	struct mc_table_spec spec = {
		.name = "__test_table", .flags = SHF_ALLOC, .entsize = addr,
		.rel_type = rel_type, .group = group,
	};
	struct mc_section *t = mc_add_table_section(&obj, &spec, slots, rels,
						    2);
	ck_assert_msg(t != NULL, "%s", obj.error);
	ck_assert_str_eq(t->name, "__test_table");
	ck_assert_uint_eq(t->shdr->sh_type, SHT_PROGBITS);
	ck_assert_uint_eq(t->shdr->sh_flags, SHF_ALLOC | SHF_GROUP);
	ck_assert_uint_eq(t->shdr->sh_entsize, addr);
	ck_assert_uint_eq(t->shdr->sh_addralign, addr);
	ck_assert_uint_eq(t->shdr->sh_size, 2 * addr);
	struct mc_section *rel = mc_reloc_section_of(&obj, t->index);
	ck_assert_ptr_nonnull(rel);
	ck_assert_ptr_eq(mc_section_target(&obj, rel), t);
	char *want = xasprintf("%s__test_table", prefix);
	ck_assert_str_eq(rel->name, want);
	free(want);
	ck_assert_uint_eq(rel->shdr->sh_type, rel_type);
	ck_assert_uint_eq(rel->shdr->sh_flags, SHF_INFO_LINK | SHF_GROUP);
	ck_assert_uint_eq(rel->shdr->sh_link, obj.symtab->index);
	ck_assert_uint_eq(rel->shdr->sh_info, t->index);
	ck_assert_uint_eq(mc_reloc_count(rel), 2);
	size_t *group_of = calloc(obj.n_sections, sizeof(*group_of));
	ck_assert_ptr_nonnull(group_of);
	ck_assert(mc_section_groups(&obj, group_of));
	ck_assert_uint_eq(group_of[t->index], group);
	ck_assert_uint_eq(group_of[rel->index], group);
	free(group_of);

	struct mc_section *bare = NULL;
	for (size_t i = 1; i < obj.n_sections && !bare; i++)
		if (obj.sections[i]->shdr->sh_type == SHT_PROGBITS &&
		    (obj.sections[i]->shdr->sh_flags & SHF_ALLOC) &&
		    !(obj.sections[i]->shdr->sh_flags & SHF_GROUP) &&
		    !mc_reloc_section_of(&obj, i))
			bare = obj.sections[i];
	ck_assert_ptr_nonnull(bare);
	struct mc_section *empty = mc_add_reloc_section(&obj, bare, rel_type,
							addr, 0, NULL, 0);
	ck_assert_msg(empty != NULL, "%s", obj.error);
	want = xasprintf("%s%s", prefix, bare->name);
	ck_assert_str_eq(empty->name, want);
	free(want);
	ck_assert_ptr_eq(mc_reloc_section_of(&obj, bare->index), empty);
	ck_assert_uint_eq(empty->shdr->sh_flags, SHF_INFO_LINK);
	ck_assert_uint_eq(mc_reloc_count(empty), 0);

	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * Section handles stay valid: adding sections (here enough to grow the
 * array of sections several times) moves none, and each relocation
 * section and its target know each other from the read on.
 */
START_TEST(section_handles_stable)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	uint32_t shtype = is64(_i) ? SHT_RELA : SHT_REL;

	open_ok(&obj, o);
	struct mc_section *text = mc_section_by_name(&obj, ".text");
	struct mc_section *symtab = obj.symtab;
	size_t n0 = obj.n_sections;
	ck_assert_ptr_nonnull(text);
	struct mc_section *rel = mc_reloc_section_of(&obj, text->index);
	struct mc_section *first = NULL;
	ck_assert_ptr_nonnull(rel);
	ck_assert_ptr_eq(mc_section_target(&obj, rel), text);
	ck_assert_ptr_null(mc_section_target(&obj, text));

	for (int i = 0; i < 200; i++) {
		GElf_Shdr h = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
				.sh_addralign = 1 };
		char name[32];
		uint8_t *b = malloc(1);

		ck_assert_ptr_nonnull(b);
		*b = (uint8_t)i;
		snprintf(name, sizeof(name), ".t%d", i);
		struct mc_section *s = mc_add_section(&obj, name, &h, b, 1,
						      ELF_T_BYTE);
		ck_assert_msg(s != NULL, "%s", obj.error);
		if (!first)
			first = s;
		ck_assert_ptr_eq(obj.sections[s->index], s);
	}
	/* A relocation section for the first: they know each other. */
	size_t esz = mc_reloc_entry_size(&obj, shtype);
	GElf_Shdr rh = { .sh_type = shtype, .sh_flags = SHF_INFO_LINK,
			 .sh_link = (GElf_Word)obj.symtab->index,
			 .sh_info = (GElf_Word)first->index,
			 .sh_entsize = esz };
	struct mc_section *r = mc_add_section(&obj, ".rela.t0", &rh, NULL, 0,
					      is64(_i) ? ELF_T_RELA
						       : ELF_T_REL);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_eq(mc_section_target(&obj, r), first);
	ck_assert_ptr_eq(mc_reloc_section_of(&obj, first->index), r);
	ck_assert_uint_eq(obj.n_sections, n0 + 201);
	ck_assert_ptr_eq(mc_section_by_name(&obj, ".text"), text);
	ck_assert_ptr_eq(obj.symtab, symtab);
	ck_assert_ptr_eq(mc_reloc_section_of(&obj, text->index), rel);
	ck_assert_ptr_eq(obj.sections[first->index], first);
	ck_assert_str_eq(first->name, ".t0");
	mc_object_close(&obj);
	free(o);
	remove_tree(dir);
}
END_TEST

static Suite *edit_suite(void)
{
	Suite *s = suite_create("elf_edit");
	TCase *tc;

	tc = tcase_create("modify");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, reloc_set_roundtrip, 0, 2);
	tcase_add_loop_test(tc, section_patch, 0, 2);
	tcase_add_loop_test(tc, add_section, 0, 2);
	tcase_add_loop_test(tc, symbol_binding_read_in_place, 0, 2);
	tcase_add_loop_test(tc, section_handles_stable, 0, 2);
	tcase_add_loop_test(tc, add_table_section, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return elf_test_main(edit_suite());
}
