/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf_model.c - unit tests of the object model (elf/).
 *
 * Every object is compiled or assembled at test time into a fresh
 * directory under $UNIT_TMPDIR (unit.mk points it into the build tree).
 * What the model reads is compared with what binutils (readelf, objcopy)
 * say about the same file, and what the model writes is checked by
 * reopening it with the model, by readelf and by `ld -r`.
 */
#define _GNU_SOURCE
#include "../../elf/object.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* ---- helpers: files and commands --------------------------------- */

static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	return s;
}

/* A new empty directory for one test. */
static char *make_tmpdir(void)
{
	const char *base = getenv("UNIT_TMPDIR");
	char *dir = xasprintf("%s/elf-XXXXXX", base && *base ? base : "/tmp");

	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir,
		      strerror(errno));
	return dir;
}

static void remove_tree(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	ck_assert_int_eq(ferror(f), 0);
	fclose(f);
	buf[len] = 0;
	*n = len;
	return buf;
}

/*
 * Run a shell command; return its stdout.  Its stderr goes to *err when
 * err is given (else to ours), and its exit status to *status when given
 * (else it must be 0).
 */
static char *run(const char *cmd, char **err, int *status)
{
	char errpath[] = "/tmp/mc-unit-err-XXXXXX";
	int efd = mkstemp(errpath);
	char *full;
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);

	ck_assert_int_ge(efd, 0);
	close(efd);
	full = err ? xasprintf("(%s) 2>'%s'", cmd, errpath) : xasprintf("%s", cmd);
	FILE *p = popen(full, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(out);
	for (;;) {
		if (cap - len < 2048) {
			cap *= 2;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		size_t got = fread(out + len, 1, cap - len - 1, p);
		if (got == 0)
			break;
		len += got;
	}
	out[len] = 0;
	int st = pclose(p);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	if (status)
		*status = code;
	else
		ck_assert_msg(code == 0, "'%s' exited %d", cmd, code);
	if (err) {
		size_t n;

		*err = (char *)read_all(errpath, &n);
	}
	unlink(errpath);
	free(full);
	return out;
}

/* Compile `src` (C, or C++ when ext is "cc") into dir/name.o. */
static char *compile(const char *dir, const char *name, const char *ext,
		     const char *flags, const char *src)
{
	char *c = xasprintf("%s/%s.%s", dir, name, ext);
	char *o = xasprintf("%s/%s.o", dir, name);
	char *cmd = xasprintf("%s %s -c -o '%s' '%s'", flags,
			      strcmp(ext, "cc") == 0 ? "-x c++" : "", o, c);

	write_file(c, src, strlen(src));
	free(run(cmd, NULL, NULL));
	free(cmd);
	free(c);
	return o;
}

static bool file_nonempty_text(const char *s)
{
	return s && s[strspn(s, " \t\r\n")] != 0;
}

/* ---- the objects under test -------------------------------------- */

static const char basic_src[] =
	"extern int ext_fn(int);\n"
	"extern int ext_data;\n"
	"int global_data[4] = { 0x11223344, 0x55667788, 0, -1 };\n"
	"static int local_counter;\n"
	"int *data_ptr = &ext_data;\n"
	"__attribute__((noinline)) static int helper(int x)\n"
	"{ return ext_fn(x) + local_counter++; }\n"
	"int global_fn(int x) { return helper(x) * 3 + global_data[x & 3]; }\n"
	"int (*fn_ptr)(int) = global_fn;\n"
	"static int (*local_ptr)(int) = helper;\n"
	"int (*get_local(void))(int) { return local_ptr; }\n";

static const char comdat_src[] =
	"inline int square(int x) { return x * x + 1; }\n"
	"struct S { int v; S(int x) : v(x) {} int get() const { return v; } };\n"
	"int use_square(int y) { S s(y); return square(s.get()) + 2; }\n";

/* _i == 0: x86_64 (RELA); _i == 1: i386 (REL). */
/*
 * The compiler goes with the flags: Debian's gcc-multilib conflicts with
 * its cross compilers, so i386 objects come from the i686 cross gcc.
 */
static const char *const basic_flags[] = { "cc -O1",
					   "i686-linux-gnu-gcc -O1" };

static bool is64(int i)
{
	return i == 0;
}

/* ---- helpers: what readelf says ---------------------------------- */

struct rd_section {
	char name[256];
	char type[32];
	char flags[16];
	unsigned long long size;
	unsigned link, info;
};

/* Parse `readelf -SW`: returns how many sections were listed. */
static size_t readelf_sections(const char *path, struct rd_section **out)
{
	char *cmd = xasprintf("readelf -SW '%s'", path);
	char *text = run(cmd, NULL, NULL);
	size_t n = 0, cap = 16;
	struct rd_section *v = calloc(cap, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *lb = strchr(line, '[');
		unsigned idx;

		if (!lb || sscanf(lb, "[%u]", &idx) != 1)
			continue;
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		ck_assert_uint_eq(idx, n);
		struct rd_section *s = &v[n++];
		memset(s, 0, sizeof(*s));
		/* The name is in a fixed column ending before the type. */
		char *p = strchr(lb, ']') + 1;
		char rest[512];
		unsigned long long addr, off;
		unsigned es, al;

		if (idx == 0)
			continue;
		if (sscanf(p, " %255s %n", s->name, &(int){ 0 }) != 1)
			continue;
		p = strstr(p, s->name) + strlen(s->name);
		snprintf(rest, sizeof(rest), "%s", p);
		/* "SYMTAB SECTION INDICES" is the one type with spaces. */
		char *q = rest;
		if (strstr(rest, "SYMTAB SECTION INDICES")) {
			strcpy(s->type, "SYMTAB_SHNDX");
			q = strstr(rest, "INDICES") + 7;
		} else {
			int used = 0;

			ck_assert(sscanf(rest, " %31s%n", s->type, &used) == 1);
			q = rest + used;
		}
		/* addr off size es [flags] lk inf al */
		char f1[16], f2[16], f3[16], f4[16];
		int k = sscanf(q, " %llx %llx %llx %x %15s %15s %15s %15s", &addr,
			       &off, &s->size, &es, f1, f2, f3, f4);
		if (k == 8) {
			snprintf(s->flags, sizeof(s->flags), "%s", f1);
			s->link = (unsigned)strtoul(f2, NULL, 10);
			s->info = (unsigned)strtoul(f3, NULL, 10);
		} else {
			ck_assert_int_eq(k, 7);
			s->link = (unsigned)strtoul(f1, NULL, 10);
			s->info = (unsigned)strtoul(f2, NULL, 10);
		}
		(void)al;
	}
	free(text);
	free(cmd);
	*out = v;
	return n;
}

/*
 * Every relocation of every section as text, one per line:
 * "section offset type symbol-name addend".  Section symbols are named
 * by their section, the way readelf prints them.  REL addends are 0.
 */
static char *model_relocs(struct mc_object *obj)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (!mc_is_reloc_section(sec))
			continue;
		for (size_t k = 0; k < mc_reloc_count(sec); k++) {
			struct mc_reloc r;

			ck_assert_msg(mc_reloc_get(obj, sec, k, &r), "%s",
				      obj->error);
			ck_assert_uint_lt(r.sym, obj->n_symbols);
			const struct mc_symbol sym_v = mc_symbol(obj, r.sym), *sym = &sym_v;
			const char *name = sym->name;
			if (GELF_ST_TYPE(sym->sym.st_info) == STT_SECTION) {
				ck_assert_uint_lt(sym->shndx, obj->n_sections);
				name = obj->sections[sym->shndx]->name;
			}
			fprintf(f, "%s %" PRIx64 " %u %s %" PRId64 "\n",
				sec->name, r.offset, r.type, name, r.addend);
		}
	}
	fclose(f);
	return s;
}

/* The same list as model_relocs(), from `readelf -rW`. */
static char *readelf_relocs(const char *path, bool elf64)
{
	char *cmd = xasprintf("readelf -rW '%s'", path);
	char *text = run(cmd, NULL, NULL);
	char *s = NULL, sec[256] = "";
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long off, info;
		char type[64], val[64], name[512], sign[4], add[64];

		if (sscanf(line, "Relocation section '%255[^']'", sec) == 1)
			continue;
		if (sscanf(line, "%llx %llx %63s", &off, &info, type) != 3)
			continue;
		unsigned t = elf64 ? (unsigned)(info & 0xffffffff)
				   : (unsigned)(info & 0xff);
		int k = sscanf(line, "%*s %*s %*s %63s %511s %3s %63s", val,
			       name, sign, add);
		long long addend = 0;

		if (k == 4)
			addend = (long long)strtoull(add, NULL, 16) *
				 (sign[0] == '-' ? -1 : 1);
		else
			ck_assert_msg(k == 2, "unparsed: %s", line);
		fprintf(f, "%s %llx %u %s %lld\n", sec, off, t, name, addend);
	}
	fclose(f);
	free(text);
	free(cmd);
	return s;
}

/* "group-section signature" for each SHT_GROUP, from the model. */
static char *model_groups(struct mc_object *obj)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->shdr.sh_type != SHT_GROUP)
			continue;
		ck_assert_uint_lt(sec->shdr.sh_info, obj->n_symbols);
		fprintf(f, "%zu %s\n", i, mc_symbol(obj, sec->shdr.sh_info).name);
	}
	fclose(f);
	return s;
}

/* The same from `readelf -gW`. */
static char *readelf_groups(const char *path)
{
	char *cmd = xasprintf("readelf -gW '%s'", path);
	char *text = run(cmd, NULL, NULL);
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned idx;
		char sig[512];

		if (sscanf(line, "COMDAT group section [ %u] `%*[^']' [%511[^]]]",
			   &idx, sig) == 2)
			fprintf(f, "%u %s\n", idx, sig);
	}
	fclose(f);
	free(text);
	free(cmd);
	return s;
}

static void assert_readelf_clean(const char *path)
{
	char *err;
	int status;
	char *cmd = xasprintf("readelf -aW '%s'", path);
	char *out = run(cmd, &err, &status);

	ck_assert_msg(status == 0, "readelf -a %s exited %d", path, status);
	ck_assert_msg(!file_nonempty_text(err), "readelf -a %s: %s", path,
		      err);
	free(out);
	free(err);
	free(cmd);
}

static void assert_ld_r(const char *path, bool elf64)
{
	char *err;
	int status;
	char *cmd = xasprintf("ld %s -r -o '%s.ld.o' '%s'",
			      elf64 ? "" : "-m elf_i386", path, path);
	char *out = run(cmd, &err, &status);

	ck_assert_msg(status == 0 && !file_nonempty_text(err),
		      "ld -r %s (%d): %s", path, status, err);
	free(out);
	free(err);
	free(cmd);
}

static void open_ok(struct mc_object *obj, const char *path)
{
	ck_assert_msg(mc_object_open(obj, path), "open %s: %s", path,
		      obj->error);
}

static uint8_t *objcopy_section(const char *path, const char *sec,
				size_t *n)
{
	char *bin = xasprintf("%s.%s.bin", path, sec);
	char *cmd = xasprintf("objcopy -O binary --only-section='%s' '%s' '%s'",
			      sec, path, bin);
	free(run(cmd, NULL, NULL));
	uint8_t *b = read_all(bin, n);
	unlink(bin);
	free(bin);
	free(cmd);
	return b;
}

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
		ck_assert_uint_eq(obj.sections[i]->shdr.sh_size, rs[i].size);
		ck_assert_uint_eq(obj.sections[i]->shdr.sh_link, rs[i].link);
		ck_assert_uint_eq(obj.sections[i]->shdr.sh_info, rs[i].info);
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
	ck_assert_uint_eq(text->shdr.sh_type, SHT_PROGBITS);
	const uint8_t *b = mc_section_bytes(text, &n);
	uint8_t *want = objcopy_section(o, ".text", &want_n);
	ck_assert_uint_gt(want_n, 0);
	ck_assert_uint_eq(n, want_n);
	ck_assert(memcmp(b, want, n) == 0);
	free(want);

	/* global_data's initialiser, little endian. */
	struct mc_section *data = mc_section_by_name(&obj, ".data");
	ck_assert_ptr_nonnull(data);
	b = mc_section_bytes(data, &n);
	static const uint8_t gd[16] = { 0x44, 0x33, 0x22, 0x11, 0x88, 0x77,
					0x66, 0x55, 0, 0, 0, 0,
					0xff, 0xff, 0xff, 0xff };
	ck_assert_uint_ge(n, 16);
	ck_assert_ptr_nonnull(memmem(b, n, gd, sizeof(gd)));

	/* .bss has no bytes. */
	struct mc_section *bss = mc_section_by_name(&obj, ".bss");
	ck_assert_ptr_nonnull(bss);
	n = 12345;
	ck_assert_ptr_null(mc_section_bytes(bss, &n));
	ck_assert_uint_eq(n, 0);

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
		ck_assert_uint_eq(sec->shdr.sh_type, is64(_i) ? SHT_RELA
							     : SHT_REL);
		ck_assert_uint_eq(sec->shdr.sh_entsize,
				  mc_reloc_entry_size(&obj, sec->shdr.sh_type));
		ck_assert_uint_eq(mc_reloc_count(sec),
				  sec->shdr.sh_size / sec->shdr.sh_entsize);

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
	const uint8_t *b = mc_section_bytes(text, &n);
	ck_assert_uint_eq(n, orig_n);
	ck_assert(memcmp(b, orig, n) == 0);

	/* In range: at the start, at the very end, and empty at the end. */
	ck_assert(mc_section_patch(&obj, text, 0, nops, 2));
	ck_assert(mc_section_patch(&obj, text, orig_n - 4, nops, 4));
	ck_assert(mc_section_patch(&obj, text, orig_n, nops, 0));
	b = mc_section_bytes(text, &n);
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

/* ---- adding sections --------------------------------------------- */

/* Parse `readelf -x SEC` into bytes. */
/* The STT_SECTION symbol of section `shndx` (any handle), or SIZE_MAX. */
static size_t section_symbol(const struct mc_object *obj, size_t shndx)
{
	for (size_t i = 1; i < obj->n_symbols; i++)
		if (GELF_ST_TYPE(mc_symbol(obj, i).sym.st_info) == STT_SECTION &&
		    mc_symbol(obj, i).shndx == shndx)
			return i;
	return SIZE_MAX;
}

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
	const uint8_t *b = mc_section_bytes(obj.sections[tndx], &n);
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
	ck_assert_uint_eq(t->shdr.sh_type, SHT_PROGBITS);
	ck_assert_uint_eq(t->shdr.sh_flags, SHF_ALLOC);
	ck_assert_uint_eq(t->shdr.sh_addralign, addr);
	ck_assert_uint_eq(t->shdr.sh_entsize, addr);
	ck_assert_uint_eq(t->shdr.sh_size, 2 * addr);
	ck_assert_uint_eq(t->shdr.sh_offset % addr, 0);
	b = mc_section_bytes(t, &n);
	ck_assert_uint_eq(n, 2 * addr);
	ck_assert(memcmp(b, pattern, n) == 0);
	r = mc_section_by_name(&obj, rname);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->shdr.sh_type, shtype);
	ck_assert_uint_eq(r->shdr.sh_info, tndx);
	ck_assert_uint_eq(r->shdr.sh_link, obj.symtab->index);
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

/* ---- adding section symbols -------------------------------------- */


/* A section that has no STT_SECTION symbol yet, or 0. */
static size_t section_without_symbol(struct mc_object *obj)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->shdr.sh_type == SHT_PROGBITS &&
		    (obj->sections[i]->shdr.sh_flags & SHF_ALLOC) &&
		    section_symbol(obj, i) == SIZE_MAX)
			return i;
	return 0;
}

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
	uint32_t info = obj.symtab->shdr.sh_info;
	char *model_before = model_relocs(&obj);
	char *readelf_before = readelf_relocs(o, elf64);
	char *groups_before = model_groups(&obj);
	char *rgroups_before = readelf_groups(o);
	ck_assert_str_eq(model_before, readelf_before);
	ck_assert_str_eq(groups_before, rgroups_before);
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
	ck_assert_uint_eq(obj.symtab->shdr.sh_info, info);
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
	ck_assert_uint_eq(obj.symtab->shdr.sh_info, info + n);
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
	ck_assert_ptr_nonnull(text->reloc);
	ck_assert_ptr_eq(text->reloc->target, text);
	ck_assert_ptr_eq(mc_reloc_section_of(&obj, text->index), text->reloc);
	ck_assert_ptr_null(text->target);
	struct mc_section *rel = text->reloc, *first = NULL;

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
	ck_assert_ptr_eq(r->target, first);
	ck_assert_ptr_eq(first->reloc, r);
	ck_assert_uint_eq(obj.n_sections, n0 + 201);
	ck_assert_ptr_eq(mc_section_by_name(&obj, ".text"), text);
	ck_assert_ptr_eq(obj.symtab, symtab);
	ck_assert_ptr_eq(text->reloc, rel);
	ck_assert_ptr_eq(obj.sections[first->index], first);
	ck_assert_str_eq(first->name, ".t0");
	mc_object_close(&obj);
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

		if (s->shdr.sh_type != SHT_GROUP)
			continue;
		if (s->shdr.sh_info >= obj.first_global)
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

/* More than 65280 sections: SHN_XINDEX and SHT_SYMTAB_SHNDX. */
START_TEST(add_section_symbol_xindex)
{
	char *dir = make_tmpdir();
	char *s = xasprintf("%s/big.s", dir);
	char *o = xasprintf("%s/big.o", dir);
	FILE *f = fopen(s, "w");
	enum { NSEC = 65400 };

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < NSEC; i++)
		fprintf(f, ".section .s%d,\"a\"\n.byte %d\n", i, i & 0xff);
	/* Relocations against high-numbered sections, and a global. */
	fprintf(f, ".section .s%d,\"a\"\nlab: .byte 1\n", NSEC - 1);
	/* Globals in high sections: their SHN_XINDEX entries must move. */
	for (int i = 0; i < 4; i++)
		fprintf(f, ".section .s%d,\"a\"\n.globl hi%d\nhi%d: .byte 2\n",
			NSEC - 5 - i, i, i);
	fprintf(f, ".data\n.quad lab\n.globl g\ng: .quad .s%d + 8\n"
		   ".quad .s3\n.text\n.globl fn\nfn: call ext\nret\n",
		NSEC - 2);
	ck_assert_int_eq(fclose(f), 0);
	char *cmd = xasprintf("as --64 -o '%s' '%s'", o, s);
	free(run(cmd, NULL, NULL));

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
	free(cmd);
	free(s);
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
		if (obj.sections[i]->shdr.sh_type == SHT_PROGBITS &&
		    (obj.sections[i]->shdr.sh_flags & SHF_ALLOC))
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
	char *s = xasprintf("%s/big.s", dir);
	char *o = xasprintf("%s/big.o", dir);
	FILE *f = fopen(s, "w");
	enum { NSEC = 65300 };

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < NSEC; i++)
		fprintf(f, ".section .s%d,\"a\"\n.byte 1\n", i);
	for (int i = 0; i < 3; i++)
		fprintf(f, ".section .s%d,\"a\"\n.globl hi%d\nhi%d: .byte 2\n",
			NSEC - 1 - i, i, i);
	fprintf(f, ".data\n.globl g\ng: .quad .s%d + 8\n.quad hi1\n",
		NSEC - 2);
	ck_assert_int_eq(fclose(f), 0);
	char *cmd = xasprintf("as --64 -o '%s' '%s'", o, s);
	free(run(cmd, NULL, NULL));

	struct mc_object obj;
	open_ok(&obj, o);
	size_t want[3] = {
		mc_section_by_name(&obj, ".s65290")->index,	/* > 0xff00 */
		mc_section_by_name(&obj, ".s10")->index,	/* < 0xff00 */
		mc_section_by_name(&obj, ".s65299")->index,
	};
	mc_object_close(&obj);
	check_add_section_symbols(o, true, want, 3);

	free(cmd);
	free(s);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- renumbering while the writer streams ------------------------ */

/*
 * Enough relocations against a global that the relocation section
 * takes more than one chunk of the writer's 64 KiB buffer (9000 REL
 * entries of i386 are 72 KB), a call that names a global from .text,
 * and a section whose relocations name only locals.
 */
static char *many_relocs_src(void)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	fputs("extern int ext_data;\n"
	      "extern int ext_fn(int);\n"
	      "int global_data[4];\n"
	      "static int local_data[4];\n"
	      "__attribute__((section(\".data.locals\")))\n"
	      "int *local_ptrs[] = { &local_data[1], &local_data[3] };\n"
	      "int call(int x) { return ext_fn(x) + local_data[x & 3]; }\n"
	      "__attribute__((section(\".data.globals\")))\n"
	      "int *ptrs[] = {\n", f);
	for (int i = 0; i < 9000; i++)
		fputs(i % 3 ? "&ext_data,\n" : "&global_data[1],\n", f);
	fputs("};\n", f);
	fclose(f);
	return s;
}

/*
 * `readelf -rW` with what renumbering may change taken out: each
 * section's file offset and each entry's r_info (the types and symbols
 * stay, by name).
 */
static char *readelf_relocs_by_name(const char *path)
{
	char *cmd = xasprintf("readelf -rW '%s' | sed -e "
			      "'s/^\\(Relocation section [^ ]*\\) at offset .*/\\1/' "
			      "-e 's/^\\([0-9a-f]\\{8,\\}\\)  *[0-9a-f]\\{8,\\} /\\1 /'",
			      path);
	char *text = run(cmd, NULL, NULL);

	free(cmd);
	return text;
}

/* `readelf -sW`'s symbol lines without their index; *n of them. */
static char **readelf_symbol_lines(const char *path, size_t *n)
{
	char *cmd = xasprintf("readelf -sW '%s'", path);
	char *text = run(cmd, NULL, NULL);
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned idx;
		int at = 0;

		if (sscanf(line, " %u: %n", &idx, &at) != 1 || at == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		ck_assert_uint_eq(idx, *n);
		v[(*n)++] = strdup(line + at);
	}
	free(text);
	free(cmd);
	return v;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The input offset of section `name`, as its header says. */
static uint64_t section_offset(const char *path, const char *name)
{
	struct mc_object obj;

	open_ok(&obj, path);
	struct mc_section *sec = mc_section_by_name(&obj, name);
	ck_assert_msg(sec != NULL, "%s: no %s", path, name);
	uint64_t off = sec->shdr.sh_offset;
	mc_object_close(&obj);
	return off;
}

struct stream_case {
	const char *cc;
	bool elf64;
	bool linked;		/* a second name: the rewrite, not the append */
	bool big_endian;	/* streamed only on a host of its byte order */
	bool mips64;		/* MIPS64's r_info: relocations copied */
};

static const struct stream_case stream_cases[] = {
	{ "cc -O1", true, false, false, false },
	{ "i686-linux-gnu-gcc -O1", false, false, false, false },
	{ "cc -O1", true, true, false, false },
	{ "i686-linux-gnu-gcc -O1", false, true, false, false },
	{ "s390x-linux-gnu-gcc -O1", true, false, true, false },
	{ "mips64el-linux-gnuabi64-gcc -O1", true, false, false, true },
};

/* The symbol table is spliced as it goes: in the host's byte order. */
static bool syms_streamed(const struct stream_case *c)
{
	return c->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* The relocations renumbered as they go. */
static bool relocs_streamed(const struct stream_case *c)
{
	return syms_streamed(c) && !c->mips64;
}

/*
 * The same edits as `add_symbols` for obj, with a private copy of the
 * symbol table and of every relocation section made first (through the
 * API, writing back what is there): the way every table was written
 * before the writer renumbered as it went.
 */
static void copy_every_table(struct mc_object *obj)
{
	unsigned char bind = GELF_ST_BIND(mc_symbol(obj, 1).sym.st_info);

	ck_assert_msg(mc_symbol_set_binding(obj, 1, bind), "%s", obj->error);
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];
		struct mc_reloc r;

		if (!mc_is_reloc_section(sec) || mc_reloc_count(sec) == 0)
			continue;
		ck_assert_msg(mc_reloc_get(obj, sec, 0, &r), "%s", obj->error);
		ck_assert_msg(mc_reloc_set(obj, sec, 0, &r), "%s", obj->error);
		ck_assert_ptr_nonnull(sec->buf);
	}
	ck_assert_ptr_nonnull(obj->symtab->buf);
}

/* A section symbol and a label: two symbols added among the locals. */
static void add_symbols(struct mc_object *obj)
{
	struct mc_section *text = mc_section_by_name(obj, ".text");
	size_t shndx = section_without_symbol(obj);
	uint64_t at = 4;

	ck_assert_ptr_nonnull(text);
	if (!shndx)
		shndx = text->index;
	ck_assert_uint_ne(mc_add_section_symbols(obj, &shndx, 1), SIZE_MAX);
	ck_assert_uint_ne(mc_add_label_symbols(obj, &text->index, &at, 1),
			  SIZE_MAX);
}

static bool is_rel_name(const char *name, const char *of)
{
	return (strncmp(name, ".rela", 5) == 0 && strcmp(name + 5, of) == 0) ||
	       (strncmp(name, ".rel", 4) == 0 && strcmp(name + 4, of) == 0);
}

/*
 * The symbol table spliced and the relocations renumbered while they
 * are written give the file that copies of them give, byte for byte,
 * in the append writer and the rewrite alike; the file says the same
 * as the input (readelf: relocations by name, symbols with the added
 * after the locals); a relocation section that names only locals stays
 * where it was, one that names a global moves.  Where the writer cannot
 * stream (the other byte order: s390x here, x86 on s390x; MIPS64's
 * r_info) the copies are made.
 */
START_TEST(renumbered_as_copied)
{
	const struct stream_case *c = &stream_cases[_i];
	char *dir = make_tmpdir();
	char *src = many_relocs_src();
	char *o = compile(dir, "many", "c", c->cc, src);
	char *copied = xasprintf("%s/copied.o", dir);
	char *cmd = xasprintf("cp '%s' '%s'", o, copied);
	struct mc_object obj;
	size_t n_in, n_out, n_copied, nsym, nsym2;

	free(run(cmd, NULL, NULL));
	if (c->linked) {
		char *l1 = xasprintf("%s/l1.o", dir), *l2 = xasprintf("%s/l2.o", dir);

		ck_assert_int_eq(link(o, l1), 0);
		ck_assert_int_eq(link(copied, l2), 0);
		free(l1);
		free(l2);
	}
	uint8_t *in = read_all(o, &n_in);
	char *relocs = readelf_relocs_by_name(o);
	char **syms = readelf_symbol_lines(o, &nsym);
	uint64_t locals_at = 0, data_at = 0;

	/* Streamed. */
	open_ok(&obj, o);
	size_t k = obj.first_global;
	ck_assert_uint_lt(k, obj.n_symbols);
	add_symbols(&obj);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	ck_assert(syms_streamed(c) == (obj.symtab->buf == NULL));
	for (size_t i = 1; i < obj.n_sections; i++) {
		struct mc_section *sec = obj.sections[i];

		if (!mc_is_reloc_section(sec) || !sec->scn)
			continue;
		if (relocs_streamed(c))
			ck_assert_msg(sec->buf == NULL, "%s: %s copied", c->cc,
				      sec->name);
		if (is_rel_name(sec->name, ".data.locals"))
			locals_at = sec->shdr.sh_offset;
		if (is_rel_name(sec->name, ".data.globals")) {
			data_at = sec->shdr.sh_offset;
			ck_assert(relocs_streamed(c) == (sec->buf == NULL));
		}
	}
	ck_assert_uint_ne(locals_at, 0);
	ck_assert_uint_ne(data_at, 0);
	mc_object_close(&obj);

	/* Copied, as every table was before. */
	open_ok(&obj, copied);
	copy_every_table(&obj);
	add_symbols(&obj);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);

	uint8_t *out = read_all(o, &n_out);
	uint8_t *want = read_all(copied, &n_copied);
	ck_assert_uint_eq(n_out, n_copied);
	ck_assert_msg(memcmp(out, want, n_out) == 0, "%s: streamed and copied "
		      "differ", c->cc);

	/* The oracle: the same relocations, the symbols with two more. */
	char *relocs2 = readelf_relocs_by_name(o);
	char **syms2 = readelf_symbol_lines(o, &nsym2);
	ck_assert_str_eq(relocs2, relocs);
	ck_assert_uint_eq(nsym2, nsym + 2);
	for (size_t i = 0; i < nsym; i++)
		ck_assert_str_eq(syms2[i < k ? i : i + 2], syms[i]);
	ck_assert(strstr(syms2[k], " SECTION LOCAL "));
	ck_assert(strstr(syms2[k + 1], " NOTYPE  LOCAL "));
	ck_assert_ptr_nonnull(strstr(syms2[k + 1], "0000004 "));
	assert_readelf_clean(o);
	if (strncmp(c->cc, "cc", 2) == 0 || strncmp(c->cc, "i686", 4) == 0)
		assert_ld_r(o, c->elf64);
	/* The append: names only locals, kept; names globals, moved. */
	if (!c->linked) {
		ck_assert_uint_eq(section_offset(o, c->elf64 ? ".rela.data.locals"
						      : ".rel.data.locals"),
				  locals_at);
		ck_assert_uint_ge(section_offset(o, c->elf64
						      ? ".rela.data.globals"
						      : ".rel.data.globals"),
				  n_in);
		ck_assert_uint_lt(data_at, n_in);
	}

	free_lines(syms, nsym);
	free_lines(syms2, nsym2);
	free(relocs);
	free(relocs2);
	free(in);
	free(out);
	free(want);
	free(cmd);
	free(copied);
	free(src);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- writing ----------------------------------------------------- */

/*
 * One name: the new sections and header table are appended and the ELF
 * header rewritten, in place; every other byte of the input stays.
 */
START_TEST(write_appends_in_place)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	struct mc_object obj;
	struct stat before, after;
	static const uint8_t nop = 0x90;
	size_t ehsize = is64(_i) ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t n_in, n_out;

	ck_assert_int_eq(chmod(o, 0604), 0);
	ck_assert_int_eq(stat(o, &before), 0);
	uint8_t *in = read_all(o, &n_in);
	char *relocs = readelf_relocs(o, is64(_i));
	char *cmd = xasprintf("readelf -sW '%s'", o);
	char *syms = run(cmd, NULL, NULL);

	open_ok(&obj, o);
	struct mc_section *text = mc_section_by_name(&obj, ".text");
	ck_assert(mc_section_patch(&obj, text, 0, &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	/* The model still reads the old contents after the rename. */
	size_t n;
	const uint8_t *b = mc_section_bytes(text, &n);
	ck_assert_uint_eq(b[0], 0x90);
	mc_object_close(&obj);

	ck_assert_int_eq(stat(o, &after), 0);
	ck_assert_uint_eq(after.st_mode & 07777, 0604);
	ck_assert(S_ISREG(after.st_mode));
	/* Written in place: the same inode, the input's bytes kept. */
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	uint8_t *out = read_all(o, &n_out);
	ck_assert_uint_gt(n_out, n_in);
	ck_assert(memcmp(out, in, ehsize) != 0);
	ck_assert(memcmp(out + ehsize, in + ehsize, n_in - ehsize) == 0);
	free(in);
	free(out);
	/* No temporary left beside it. */
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strstr(e->d_name, "rmc") == NULL,
			      "left over: %s", e->d_name);
	closedir(d);

	char *relocs2 = readelf_relocs(o, is64(_i));
	char *syms2 = run(cmd, NULL, NULL);
	ck_assert_str_eq(relocs2, relocs);
	ck_assert_str_eq(syms2, syms);
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));

	free(t);
	free(relocs);
	free(relocs2);
	free(syms);
	free(syms2);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST

/*
 * A second name (ccache's hard-link mode): the file is replaced by
 * rename, and the other name keeps the input, byte for byte.
 */
START_TEST(write_hard_linked_renames)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *other = xasprintf("%s/cached.o", dir);
	struct mc_object obj;
	struct stat before, after, kept;
	static const uint8_t nop = 0x90;
	size_t n_in, n_other, n;

	ck_assert_int_eq(link(o, other), 0);
	ck_assert_int_eq(stat(o, &before), 0);
	uint8_t *in = read_all(o, &n_in);
	open_ok(&obj, o);
	ck_assert(mc_section_patch(&obj, mc_section_by_name(&obj, ".text"), 0,
				   &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	ck_assert_int_eq(stat(o, &after), 0);
	ck_assert_int_eq(stat(other, &kept), 0);
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_nlink, 1);
	ck_assert_uint_eq(kept.st_ino, before.st_ino);
	ck_assert_uint_eq(kept.st_nlink, 1);
	uint8_t *c = read_all(other, &n_other);
	ck_assert_uint_eq(n_other, n_in);
	ck_assert(memcmp(c, in, n_in) == 0);
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	assert_readelf_clean(o);

	free(t);
	free(c);
	free(in);
	free(other);
	free(o);
	remove_tree(dir);
}
END_TEST

/* An unchanged model writes an equivalent object. */
START_TEST(write_unchanged)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "comdat", "cc",
			  is64(_i) ? "cc -O2 -g" : "i686-linux-gnu-gcc -O2 -g",
			  comdat_src);
	char *cmd = xasprintf("readelf -sgW '%s'", o);
	char *before = run(cmd, NULL, NULL);
	char *rel_before = readelf_relocs(o, is64(_i));
	struct mc_object obj;
	size_t n0, n1;
	uint8_t *t0 = objcopy_section(o, ".text", &n0);

	open_ok(&obj, o);
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	char *after = run(cmd, NULL, NULL);
	char *rel_after = readelf_relocs(o, is64(_i));
	uint8_t *t1 = objcopy_section(o, ".text", &n1);
	ck_assert_str_eq(after, before);
	ck_assert_str_eq(rel_after, rel_before);
	ck_assert_uint_eq(n0, n1);
	ck_assert(memcmp(t0, t1, n0) == 0);
	assert_readelf_clean(o);
	assert_ld_r(o, is64(_i));
	open_ok(&obj, o);
	char *m = model_relocs(&obj);
	mc_object_close(&obj);
	char *r = readelf_relocs(o, is64(_i));
	ck_assert_str_eq(m, r);

	free(t0);
	free(t1);
	free(rel_before);
	free(rel_after);
	free(m);
	free(r);
	free(before);
	free(after);
	free(cmd);
	free(o);
	remove_tree(dir);
}
END_TEST

/* A symbolic link is written through: the link stays, its file changes. */
START_TEST(write_through_symlink)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *link = xasprintf("%s/link.o", dir);
	struct mc_object obj;
	struct stat st;
	static const uint8_t nop = 0x90;
	size_t n;

	ck_assert_int_eq(symlink("basic.o", link), 0);
	open_ok(&obj, link);
	ck_assert(mc_section_patch(&obj, mc_section_by_name(&obj, ".text"), 0,
				   &nop, 1));
	ck_assert_msg(mc_object_write(&obj), "%s", obj.error);
	mc_object_close(&obj);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	uint8_t *t = objcopy_section(o, ".text", &n);
	ck_assert_uint_eq(t[0], 0x90);
	DIR *d = opendir(dir);
	struct dirent *e;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strstr(e->d_name, "rmc") == NULL,
			      "left over: %s", e->d_name);
	closedir(d);

	free(t);
	free(link);
	free(o);
	remove_tree(dir);
}
END_TEST

/* ---- errors ------------------------------------------------------ */

/* Open must fail with a reason and leave the file exactly as it was. */
static void expect_open_fails(const char *path)
{
	struct stat before, after;
	size_t n0 = 0, n1 = 0;
	uint8_t *c0 = NULL, *c1 = NULL;
	bool exists = stat(path, &before) == 0;
	bool regular = exists && S_ISREG(before.st_mode);
	struct mc_object obj;

	if (regular)
		c0 = read_all(path, &n0);
	ck_assert_msg(!mc_object_open(&obj, path), "%s opened", path);
	ck_assert_msg(file_nonempty_text(obj.error), "%s: no reason", path);
	mc_object_close(&obj);
	if (!exists) {
		ck_assert_int_ne(stat(path, &after), 0);
		return;
	}
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	ck_assert_uint_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	if (regular) {
		c1 = read_all(path, &n1);
		ck_assert_uint_eq(n0, n1);
		ck_assert(memcmp(c0, c1, n0) == 0);
	}
	free(c0);
	free(c1);
}

START_TEST(error_not_elf)
{
	char *dir = make_tmpdir();
	char *p = xasprintf("%s/text.o", dir);
	static const char text[] = "this is not an object file\n";
	static const uint8_t ar[] = "!<arch>\n";

	write_file(p, text, sizeof(text) - 1);
	expect_open_fails(p);
	write_file(p, "", 0);
	expect_open_fails(p);
	write_file(p, ar, sizeof(ar) - 1);
	expect_open_fails(p);
	free(p);
	remove_tree(dir);
}
END_TEST

START_TEST(error_truncated)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[_i], basic_src);
	char *p = xasprintf("%s/cut.o", dir);
	size_t n;
	uint8_t *full = read_all(o, &n);
	const size_t cuts[] = { 1, 4, 16, 20, 51, 52, 63, 64, 65, 200, n / 3,
				n / 2, n - 64, n - 41, n - 40, n - 39, n - 1 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_file(p, full, cuts[i]);
		expect_open_fails(p);
	}
	/* The whole file opens (the test's own sanity check). */
	struct mc_object obj;
	write_file(p, full, n);
	open_ok(&obj, p);
	mc_object_close(&obj);

	free(full);
	free(p);
	free(o);
	remove_tree(dir);
}
END_TEST

/* Sections whose data lie beyond the end of a file whose headers are
 * intact: the header table is moved to the front by rewriting. */
/*
 * Fields of the little-endian object the host compiler wrote, read and
 * written in the file's byte order: a memcpy into an Elf64_Shdr would
 * swap them on a big-endian host (check-hosts runs this on s390x).
 */
static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

static void put_le(uint8_t *p, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

START_TEST(error_section_past_end)
{
	char *dir = make_tmpdir();
	char *o = compile(dir, "basic", "c", basic_flags[0], basic_src);
	size_t n;
	uint8_t *full = read_all(o, &n);

	ck_assert_uint_eq(full[EI_CLASS], ELFCLASS64);
	ck_assert_uint_eq(full[EI_DATA], ELFDATA2LSB);
	uint64_t shoff = get_le(full + offsetof(Elf64_Ehdr, e_shoff), 8);
	uint64_t shnum = get_le(full + offsetof(Elf64_Ehdr, e_shnum), 2);
	/* Make .text (found by size) claim to run past the end. */
	bool done = false;
	for (size_t i = 1; i < shnum && !done; i++) {
		uint8_t *sh = full + shoff + i * sizeof(Elf64_Shdr);
		uint8_t *size = sh + offsetof(Elf64_Shdr, sh_size);

		if (get_le(sh + offsetof(Elf64_Shdr, sh_type), 4) ==
		    SHT_PROGBITS && get_le(size, 8) > 0) {
			put_le(size, 8, n);
			done = true;
		}
	}
	ck_assert(done);
	char *p = xasprintf("%s/bad.o", dir);
	write_file(p, full, n);
	expect_open_fails(p);

	free(p);
	free(full);
	free(o);
	remove_tree(dir);
}
END_TEST

START_TEST(error_not_regular)
{
	char *dir = make_tmpdir();

	expect_open_fails(dir);
	expect_open_fails("/dev/null");
	char *fifo = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	expect_open_fails(fifo);
	free(fifo);
	remove_tree(dir);
}
END_TEST

START_TEST(error_nonexistent)
{
	char *dir = make_tmpdir();
	char *p = xasprintf("%s/missing.o", dir);

	expect_open_fails(p);
	expect_open_fails("");
	free(p);
	remove_tree(dir);
}
END_TEST

static Suite *elf_suite(void)
{
	Suite *s = suite_create("elf_model");
	TCase *tc;

	/* Loop index 0 = x86_64 (RELA), 1 = i386 (REL). */
	tc = tcase_create("read");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, open_matches_readelf, 0, 2);
	tcase_add_loop_test(tc, section_lookup_and_bytes, 0, 2);
	tcase_add_loop_test(tc, relocs_match_readelf, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("modify");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, reloc_set_roundtrip, 0, 2);
	tcase_add_loop_test(tc, section_patch, 0, 2);
	tcase_add_loop_test(tc, add_section, 0, 2);
	tcase_add_loop_test(tc, add_section_symbol, 0, 2);
	tcase_add_loop_test(tc, add_section_symbol_comdat, 0, 2);
	tcase_add_loop_test(tc, symbols_numbered_when_written, 0, 2);
	tcase_add_loop_test(tc, symbol_binding_read_in_place, 0, 2);
	tcase_add_loop_test(tc, section_handles_stable, 0, 2);
	tcase_add_test(tc, add_section_symbol_xindex);
	tcase_add_loop_test(tc, add_section_symbols_batch, 0, 2);
	tcase_add_test(tc, add_section_symbols_batch_xindex);
	tcase_add_loop_test(tc, add_section_symbol_without_symtab, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("renumber");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, renumbered_as_copied, 0,
			    sizeof(stream_cases) / sizeof(stream_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("write");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, write_appends_in_place, 0, 2);
	tcase_add_loop_test(tc, write_hard_linked_renames, 0, 2);
	tcase_add_loop_test(tc, write_unchanged, 0, 2);
	tcase_add_loop_test(tc, write_through_symlink, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, error_not_elf);
	tcase_add_loop_test(tc, error_truncated, 0, 2);
	tcase_add_test(tc, error_section_past_end);
	tcase_add_test(tc, error_not_regular);
	tcase_add_test(tc, error_nonexistent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!mc_elf_init()) {
		fprintf(stderr, "libelf version mismatch\n");
		return EXIT_FAILURE;
	}
	return unit_run(elf_suite());
}
