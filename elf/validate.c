/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * validate.c - every number the input supplies, checked before use.
 *
 * libelf trusts most of what an ELF file says about itself: where the
 * section headers are, how big a section is, how it is aligned.  A
 * build tool meets truncated and corrupted objects, so the model checks
 * those numbers first and says, in one line, which one is wrong (naming
 * sections by index, since a broken file's names may be broken too).
 *
 * The other reason is bounded work.  mc_object_write() has libelf lay
 * out a new file, placing each section at the next multiple of its
 * alignment: one section claiming an alignment of 2^34 in a 5 KB object
 * makes that layout write 16 GB of padding.  The input's own layout
 * already satisfied every alignment, so an alignment larger than the
 * file is suspect; a generous floor (MC_ALIGN_FLOOR) keeps the page and
 * huge-page alignments real kernels use, and a budget for the padding
 * of all sections together keeps the output within a small multiple of
 * the input (plus that floor) however many sections claim it.
 *
 * A host whose size_t is 32 bits (i386) reads ELF64 files too, whose
 * sizes are 64-bit: the model keeps section sizes and the file's size in
 * size_t (libelf's d_size, our buffers), so a value of 4 GiB or more is
 * refused here, with the number, rather than wrapped to a small one on
 * the way (a 4 GiB + 16 .bss would be written back as 16 bytes).  On a
 * 64-bit host these checks never fire.
 */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <ar.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

/* Largest alignment accepted whatever the file size (2 MiB huge pages). */
#define MC_ALIGN_FLOOR ((uint64_t)2 << 20)

static uint64_t file_size(const struct mc_object *obj)
{
	return (uint64_t)obj->st.st_size;
}

/* True if [offset, offset + size) lies inside the file. */
static bool in_file(const struct mc_object *obj, uint64_t offset,
		    uint64_t size)
{
	return offset <= file_size(obj) && size <= file_size(obj) - offset;
}

/* What a file that is not an ELF object is, when it is one we know. */
static bool fail_not_elf(struct mc_object *obj, const unsigned char *head,
			 size_t n)
{
	static const unsigned char bitcode[4] = { 'B', 'C', 0xc0, 0xde };

	if (n >= SARMAG && memcmp(head, ARMAG, SARMAG) == 0)
		return mc_fail(obj, "an ar archive: record its objects before "
			       "archiving them (or compile through "
			       "recordmcount-cc)");
	if (n >= sizeof(bitcode) && memcmp(head, bitcode, sizeof(bitcode)) == 0)
		return mc_fail(obj, "LLVM bitcode (clang -flto): no code to "
			       "record; record the output of the LTO link "
			       "(ld -r) instead");
	return mc_fail(obj, "not an ELF file");
}

bool mc_check_ident(struct mc_object *obj)
{
	unsigned char id[EI_NIDENT];
	uint64_t size = file_size(obj);
	ssize_t got = pread(obj->fd, id, sizeof(id), 0);

	if (got < 0)
		return mc_fail(obj, "%s", strerror(errno));
	if ((size_t)got < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return fail_not_elf(obj, id, (size_t)got);
	if ((size_t)got < sizeof(id))
		return mc_fail(obj, "truncated: %" PRIu64 " bytes, shorter "
			       "than the ELF identification (%zu bytes)",
			       size, sizeof(id));
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)
		return mc_fail(obj, "unknown ELF class %u", id[EI_CLASS]);
	if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB)
		return mc_fail(obj, "unknown ELF byte order %u", id[EI_DATA]);
	if (id[EI_VERSION] != EV_CURRENT)
		return mc_fail(obj, "unknown ELF version %u", id[EI_VERSION]);

	/* Only with a 64-bit off_t on a 32-bit host; the whole file is
	 * copied into memory when a linked image is rewritten. */
	if (!mc_size_fits(size))
		return mc_fail(obj, "%" PRIu64 " bytes: larger than this host "
			       "can address (%zu-bit size_t)", size,
			       sizeof(size_t) * 8);

	size_t ehsize = id[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr)
						   : sizeof(Elf32_Ehdr);
	if (size < ehsize)
		return mc_fail(obj, "truncated: %" PRIu64 " bytes, shorter "
			       "than the ELF header (%zu bytes)", size, ehsize);
	return true;
}

bool mc_check_header_tables(struct mc_object *obj, size_t *n_sections)
{
	const GElf_Ehdr *eh = &obj->ehdr;
	size_t shent = gelf_fsize(obj->elf, ELF_T_SHDR, 1, EV_CURRENT);
	size_t phent = gelf_fsize(obj->elf, ELF_T_PHDR, 1, EV_CURRENT);
	size_t n, phnum = eh->e_phnum;

	/* PN_XNUM: the count is in section 0, which must be there first. */
	if (phnum == PN_XNUM && (!in_file(obj, eh->e_shoff, shent) ||
				 elf_getphdrnum(obj->elf, &phnum) != 0))
		return mc_fail(obj, "cannot count program headers");
	if (phnum && (eh->e_phentsize != phent ||
		      !in_file(obj, eh->e_phoff, (uint64_t)phnum * phent)))
		return mc_fail(obj, "program headers at %" PRIu64 " (%zu of "
			       "%u bytes) extend past the end of the file "
			       "(%" PRIu64 " bytes) or have the wrong size",
			       (uint64_t)eh->e_phoff, phnum,
			       (unsigned)eh->e_phentsize, file_size(obj));
	if (eh->e_shoff == 0)
		return mc_fail(obj, "no section headers");
	if (eh->e_shentsize != shent)
		return mc_fail(obj, "section header size %u, expected %zu",
			       (unsigned)eh->e_shentsize, shent);
	/* The first header must be there: it may hold the real count. */
	if (!in_file(obj, eh->e_shoff, shent))
		return mc_fail(obj, "section headers at %" PRIu64 " extend "
			       "past the end of the file (%" PRIu64 " bytes)",
			       (uint64_t)eh->e_shoff, file_size(obj));
	/*
	 * libelf counts none when the table is cut short, so the count
	 * comes from the header unless it is in section 0 (e_shnum 0).
	 */
	n = eh->e_shnum;
	if (n == 0 && elf_getshdrnum(obj->elf, &n) != 0)
		return mc_fail(obj, "cannot count sections: %s",
			       elf_errmsg(-1));
	if (n == 0)
		return mc_fail(obj, "no sections");
	if (n > (file_size(obj) - eh->e_shoff) / shent)
		return mc_fail(obj, "%zu section headers at %" PRIu64 " extend "
			       "past the end of the file (%" PRIu64 " bytes)",
			       n, (uint64_t)eh->e_shoff, file_size(obj));
	*n_sections = n;
	return true;
}

/* Bytes of one entry of the tables whose entries libelf converts. */
static size_t table_entry_size(const struct mc_object *obj, uint32_t type)
{
	switch (type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
		return gelf_fsize(obj->elf, ELF_T_SYM, 1, EV_CURRENT);
	case SHT_RELA:
		return gelf_fsize(obj->elf, ELF_T_RELA, 1, EV_CURRENT);
	case SHT_REL:
		return gelf_fsize(obj->elf, ELF_T_REL, 1, EV_CURRENT);
	case SHT_SYMTAB_SHNDX:
		return sizeof(Elf32_Word);
	default:
		return 0;
	}
}

static bool is_power_of_two(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool plausible_alignment(const struct mc_object *obj, uint64_t align)
{
	return align <= 1 || (is_power_of_two(align) &&
			      (align <= MC_ALIGN_FLOOR ||
			       align <= file_size(obj)));
}

bool mc_check_section(struct mc_object *obj, size_t i, const GElf_Shdr *sh,
		      size_t n_sections)
{
	uint64_t align = sh->sh_addralign;
	size_t ent = table_entry_size(obj, sh->sh_type);

	if (i == 0)
		return true;
	/* In-file sections are bounded by the file size; SHT_NOBITS ones
	 * (.bss) are not, and their size reaches libelf's d_size. */
	if (!mc_size_fits(sh->sh_size))
		return mc_fail(obj, "section %zu size %" PRIu64 " is more than "
			       "this host can address (%zu-bit size_t)", i,
			       (uint64_t)sh->sh_size, sizeof(size_t) * 8);
	if (sh->sh_type != SHT_NOBITS && !in_file(obj, sh->sh_offset,
						  sh->sh_size))
		return mc_fail(obj, "section %zu (%" PRIu64 " bytes at %" PRIu64
			       ") extends past the end of the file (%" PRIu64
			       " bytes)", i, (uint64_t)sh->sh_size,
			       (uint64_t)sh->sh_offset, file_size(obj));
	if (!plausible_alignment(obj, align))
		return mc_fail(obj, "section %zu alignment %" PRIu64 " is not "
			       "plausible", i, align);
	if (sh->sh_link >= n_sections)
		return mc_fail(obj, "section %zu: sh_link %u out of range", i,
			       (unsigned)sh->sh_link);
	if (ent && sh->sh_entsize != ent)
		return mc_fail(obj, "section %zu entry size %" PRIu64
			       ", expected %zu", i, (uint64_t)sh->sh_entsize,
			       ent);
	if (ent && !(sh->sh_flags & SHF_COMPRESSED) && sh->sh_size % ent)
		return mc_fail(obj, "section %zu size %" PRIu64 " is not a "
			       "multiple of its entry size %zu", i,
			       (uint64_t)sh->sh_size, ent);
	if ((sh->sh_type == SHT_REL || sh->sh_type == SHT_RELA) &&
	    sh->sh_info >= n_sections)
		return mc_fail(obj, "section %zu: relocated section %u out of "
			       "range", i, (unsigned)sh->sh_info);
	if (sh->sh_type == SHT_GROUP &&
	    (sh->sh_size < sizeof(Elf32_Word) ||
	     sh->sh_size % sizeof(Elf32_Word)))
		return mc_fail(obj, "section %zu: group size %" PRIu64 " is "
			       "not a whole number of words", i,
			       (uint64_t)sh->sh_size);
	return true;
}

void mc_layout_check_start(const struct mc_object *obj,
			   struct mc_layout_check *lc)
{
	/*
	 * Padding the rewritten file may need: up to alignment - 1 bytes
	 * before each section.  Allowed: a few times the input plus the
	 * floor, which no object a compiler wrote comes near.
	 */
	*lc = (struct mc_layout_check){
		.budget = 4 * file_size(obj) + 2 * MC_ALIGN_FLOOR,
	};
}

bool mc_layout_check_end(struct mc_object *obj,
			 const struct mc_layout_check *lc)
{
	if (lc->over)
		return mc_fail(obj, "section alignments up to section %zu "
			       "would pad the output by more than %" PRIu64
			       " bytes", lc->over, lc->budget);
	return true;
}
