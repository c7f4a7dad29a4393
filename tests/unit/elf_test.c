/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_test.c - what the unit tests of the object model (test_elf_*.c)
 * share: temporary files and commands, the objects under test, and
 * what readelf and objcopy say about a file, to hold the model against.
 */
#define _GNU_SOURCE
#include "elf_test.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

int elf_test_main(Suite *s)
{
	if (!mc_elf_init()) {
		fprintf(stderr, "libelf version mismatch\n");
		return EXIT_FAILURE;
	}
	return unit_run(s);
}

/* ---- helpers: files and commands --------------------------------- */

char *xasprintf(const char *fmt, ...)
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
char *make_tmpdir(void)
{
	const char *base = getenv("UNIT_TMPDIR");
	char *dir = xasprintf("%s/elf-XXXXXX", base && *base ? base : "/tmp");

	ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir,
		      strerror(errno));
	return dir;
}

void remove_tree(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

uint8_t *read_all(const char *path, size_t *n)
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
char *run(const char *cmd, char **err, int *status)
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
char *compile(const char *dir, const char *name, const char *ext,
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

bool file_nonempty_text(const char *s)
{
	return s && s[strspn(s, " \t\r\n")] != 0;
}

/* ---- the objects under test -------------------------------------- */

const char basic_src[] =
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

const char comdat_src[] =
	"inline int square(int x) { return x * x + 1; }\n"
	"struct S { int v; S(int x) : v(x) {} int get() const { return v; } };\n"
	"int use_square(int y) { S s(y); return square(s.get()) + 2; }\n";

/*
 * _i == 0: x86_64 (RELA); _i == 1: i386 (REL).  The compiler goes with
 * the flags: Debian's gcc-multilib conflicts with
 * its cross compilers, so i386 objects come from the i686 cross gcc.
 */
const char *const basic_flags[] = { "cc -O1",
					   "i686-linux-gnu-gcc -O1" };

/* ---- helpers: what readelf says ---------------------------------- */

/* Parse `readelf -SW`: returns how many sections were listed. */
size_t readelf_sections(const char *path, struct rd_section **out)
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
char *model_relocs(struct mc_object *obj)
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
char *readelf_relocs(const char *path, bool elf64)
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
char *model_groups(struct mc_object *obj)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *sec = obj->sections[i];

		if (sec->shdr->sh_type != SHT_GROUP)
			continue;
		ck_assert_uint_lt(sec->shdr->sh_info, obj->n_symbols);
		fprintf(f, "%zu %s\n", i, mc_symbol(obj, sec->shdr->sh_info).name);
	}
	fclose(f);
	return s;
}

/* The same from `readelf -gW`. */
char *readelf_groups(const char *path)
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

void assert_readelf_clean(const char *path)
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

void assert_ld_r(const char *path, bool elf64)
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

void open_ok(struct mc_object *obj, const char *path)
{
	ck_assert_msg(mc_object_open(obj, path), "open %s: %s", path,
		      obj->error);
}

uint8_t *objcopy_section(const char *path, const char *sec,
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

/* ---- helpers: symbols --------------------------------------------- */

/* The STT_SECTION symbol of section `shndx` (any handle), or SIZE_MAX. */
size_t section_symbol(const struct mc_object *obj, size_t shndx)
{
	for (size_t i = 1; i < obj->n_symbols; i++)
		if (GELF_ST_TYPE(mc_symbol(obj, i).sym.st_info) == STT_SECTION &&
		    mc_symbol(obj, i).shndx == shndx)
			return i;
	return SIZE_MAX;
}

/* A section that has no STT_SECTION symbol yet, or 0. */
size_t section_without_symbol(struct mc_object *obj)
{
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i]->shdr->sh_type == SHT_PROGBITS &&
		    (obj->sections[i]->shdr->sh_flags & SHF_ALLOC) &&
		    section_symbol(obj, i) == SIZE_MAX)
			return i;
	return 0;
}
