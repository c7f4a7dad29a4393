// SPDX-License-Identifier: GPL-2.0-only
/*
 * armscan.c - what the arm recorder will make of every -pg function of
 * some ARM relocatable objects: for each `push {lr}; bl __gnu_mcount_nc`
 * (found by its relocation, as objdump -dr shows it), the function's
 * prologue from its symbol to the push, given to the reader the recorder
 * uses at start (mc_arch_arm_prologue, arch/arm.c).  One line a hook:
 *
 *   read    <object> <function> <arm|thumb> <taken> <lr_at> <at> <push>
 *           <section>
 *   refused <object> <function> <arm|thumb> <hex of the instruction
 *           the reader stopped at, as stored> <why>
 *
 * taken and lr_at as mc_arch_arm_prologue says (arch.h), at and push:
 * the function's and its hook's push's offsets in its section, hex.
 *
 *   armscan FILE.o...
 *
 * A survey tool for the trace suite and for measuring the reader on a
 * real project (zlib, built by the cross compilers); it judges nothing.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../arch/arch.h"

enum { R_PC24 = 1, R_THM_CALL = 10, R_CALL = 28 };

struct object {
	const char *path;
	Elf *elf;
	Elf_Data *syms;
	size_t n_syms, strtab, shstrndx;
};

/* The STT_FUNC symbol of section `shndx` that holds offset `off`. */
static bool containing_func(const struct object *o, size_t shndx,
			    uint64_t off, GElf_Sym *best)
{
	bool found = false;

	for (size_t i = 0; i < o->n_syms; i++) {
		GElf_Sym s;

		if (!gelf_getsym(o->syms, (int)i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != shndx)
			continue;
		if ((s.st_value & ~1ull) > off)
			continue;
		if (!found || (s.st_value & ~1ull) > (best->st_value & ~1ull))
			*best = s;
		found = true;
	}
	return found;
}

/* The length of the instruction at p, as the reader steps. */
static size_t insn_len(const uint8_t *p, bool thumb)
{
	return thumb && mc_get_le16(p) >> 11 < 0x1d ? 2 : 4;
}

/* Where, in code[0..len), the reader first gives up: that instruction. */
static size_t culprit(const uint8_t *code, size_t len, bool thumb)
{
	uint32_t taken, lr_at;
	size_t i = 0;

	while (i < len) {
		size_t n = insn_len(code + i, thumb);

		if (i + n > len ||
		    mc_arch_arm_prologue(code, i + n, thumb, &taken, &lr_at))
			return i;
		i += n;
	}
	return len;
}

static void report(const struct object *o, const char *sec,
		   const char *func, bool thumb, const uint8_t *code,
		   size_t start, size_t len)
{
	uint32_t taken, lr_at;
	const char *why = mc_arch_arm_prologue(code, len, thumb, &taken,
					       &lr_at);
	const char *isa = thumb ? "thumb" : "arm";

	if (!why) {
		printf("read %s %s %s %u %u %zx %zx %s\n", o->path, func, isa,
		       taken, lr_at, start, start + len, sec);
		return;
	}
	size_t at = culprit(code, len, thumb), n = 0;
	char hex[16] = "-";

	if (at < len) {
		n = insn_len(code + at, thumb);
		if (n == 2 || !thumb)
			snprintf(hex, sizeof(hex), "%0*x", (int)(2 * n),
				 n == 2 ? mc_get_le16(code + at)
					: mc_get_le32(code + at));
		else
			snprintf(hex, sizeof(hex), "%04x%04x",
				 mc_get_le16(code + at),
				 mc_get_le16(code + at + 2));
	}
	printf("refused %s %s %s %s %s\n", o->path, func, isa, hex, why);
}

/* Every hook whose call relocation is in the REL section `rel`. */
static void scan_rel(const struct object *o, Elf_Scn *rel, size_t hook_sym)
{
	GElf_Shdr sh, tsh;
	Elf_Data *r = elf_getdata(rel, NULL);
	Elf_Scn *text;
	Elf_Data *t;
	const char *sec;

	if (!gelf_getshdr(rel, &sh) || !r)
		return;
	text = elf_getscn(o->elf, sh.sh_info);
	t = text ? elf_getdata(text, NULL) : NULL;
	if (!t || !t->d_buf || !gelf_getshdr(text, &tsh))
		return;
	sec = elf_strptr(o->elf, o->shstrndx, tsh.sh_name);
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Rel e;
		GElf_Sym f;
		size_t type, push, start;

		if (!gelf_getrel(r, (int)i, &e) ||
		    GELF_R_SYM(e.r_info) != hook_sym)
			continue;
		type = GELF_R_TYPE(e.r_info);
		if (type != R_PC24 && type != R_CALL && type != R_THM_CALL)
			continue;
		push = e.r_offset - (type == R_THM_CALL ? 2 : 4);
		if (!containing_func(o, sh.sh_info, e.r_offset, &f) ||
		    push > t->d_size || (f.st_value & ~1ull) > push)
			continue;
		start = f.st_value & ~1ull;
		report(o, sec ? sec : "?",
		       elf_strptr(o->elf, o->strtab, f.st_name),
		       type == R_THM_CALL, (const uint8_t *)t->d_buf + start,
		       start, push - start);
	}
}

static int scan(const char *path)
{
	struct object o = { .path = path };
	size_t hook = 0;
	Elf_Scn *scn = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !(o.elf = elf_begin(fd, ELF_C_READ, NULL))) {
		fprintf(stderr, "armscan: %s: cannot read\n", path);
		return 1;
	}
	elf_getshdrstrndx(o.elf, &o.shstrndx);
	while ((scn = elf_nextscn(o.elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			o.syms = elf_getdata(scn, NULL);
			o.n_syms = sh.sh_size / sh.sh_entsize;
			o.strtab = sh.sh_link;
		}
	}
	for (size_t i = 1; o.syms && i < o.n_syms && !hook; i++) {
		GElf_Sym s;

		if (gelf_getsym(o.syms, (int)i, &s) &&
		    !strcmp(elf_strptr(o.elf, o.strtab, s.st_name),
			    "__gnu_mcount_nc"))
			hook = i;
	}
	while (hook && (scn = elf_nextscn(o.elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_REL)
			scan_rel(&o, scn, hook);
	}
	elf_end(o.elf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: armscan FILE.o...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (int i = 1; i < argc; i++)
		status |= scan(argv[i]);
	return status;
}
