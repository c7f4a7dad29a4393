/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * section.c - a section's contents: libelf's data as read, or the
 * model's own copy that replaces them once they are changed (or the
 * section was added).  Below the reader, the codec and the editor,
 * which all ask for contents; it calls only fail.c.
 */
#include "object.h"
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

Elf_Data *mc_section_data(const struct mc_object *obj,
			  const struct mc_section *sec)
{
	Elf_Scn *scn = mc_section_scn(obj, sec);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

/*
 * libelf's first elf_getdata of a section reads its Elf_Scn, cold in an
 * object of many sections (bench/RESULTS.md has the cost); the answer,
 * for a section libelf holds as the file's own bytes, is the bytes at
 * sh_offset.  Read directly only where libelf
 * would give those very bytes in place: an input section with no copy
 * (so no change libelf was told of), uncompressed, inside the file,
 * whole entries, and relocations only in the host's byte order and at
 * an address aligned for the host's structure (libelf may copy
 * misaligned ones; here they go to libelf).  The model changes sh_size
 * of such a section only with a copy (sec->buf), and sh_offset and
 * sh_type never, so its header is the one libelf reads.
 */
/*
 * True if `size` bytes are a whole number of entries of `type` in this
 * object's class, and `at` is aligned for the host's structure.  Each
 * size a constant divisor, and each alignment a mask: a general
 * division is slow, and this is asked several times for each
 * relocation section of an object that may have very many.
 */
static bool whole_aligned(bool is64, Elf_Type type, uint64_t size,
			  const uint8_t *at)
{
	uintptr_t a = (uintptr_t)at;

	switch (type) {
	case ELF_T_RELA:
		return is64 ? size % sizeof(Elf64_Rela) == 0 &&
			      a % _Alignof(Elf64_Rela) == 0
			    : size % sizeof(Elf32_Rela) == 0 &&
			      a % _Alignof(Elf32_Rela) == 0;
	case ELF_T_REL:
		return is64 ? size % sizeof(Elf64_Rel) == 0 &&
			      a % _Alignof(Elf64_Rel) == 0
			    : size % sizeof(Elf32_Rel) == 0 &&
			      a % _Alignof(Elf32_Rel) == 0;
	default:
		return true;	/* bytes */
	}
}

bool mc_section_input_data(const struct mc_object *obj,
			   const struct mc_section *sec,
			   struct mc_input_data *in)
{
	const GElf_Shdr *sh = sec->shdr;
	Elf_Type type;

	switch (sh->sh_type) {
	case SHT_PROGBITS:
		type = ELF_T_BYTE;
		break;
	case SHT_RELA:
		type = ELF_T_RELA;
		break;
	case SHT_REL:
		type = ELF_T_REL;
		break;
	default:
		return false;
	}
	if (!obj->image || !mc_section_is_input(obj, sec) || sec->buf ||
	    (sh->sh_flags & SHF_COMPRESSED) ||
	    (type != ELF_T_BYTE && !mc_in_host_order(obj)) ||
	    sh->sh_offset > obj->image_size ||
	    sh->sh_size > obj->image_size - sh->sh_offset)
		return false;
	const uint8_t *p = obj->image + sh->sh_offset;

	if (!whole_aligned(obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64, type,
			   sh->sh_size, p))
		return false;
	*in = (struct mc_input_data){ sh->sh_size ? p : NULL,
				      (size_t)sh->sh_size, type };
	return true;
}

bool mc_section_view(const struct mc_object *obj,
		     const struct mc_section *sec, struct mc_input_data *in)
{
	Elf_Data *d;

	if (mc_section_input_data(obj, sec, in))
		return true;
	if (!(d = mc_section_data(obj, sec)))
		return false;
	*in = (struct mc_input_data){ d->d_buf, d->d_size, d->d_type };
	return true;
}

bool mc_section_own(struct mc_section *sec, void *bytes, size_t size,
		    size_t cap, Elf_Type type)
{
	struct mc_contents *c = sec->buf;

	if (!c) {
		if (!(c = malloc(sizeof(*c))))
			return false;
	} else if (c->bytes != bytes) {
		free(c->bytes);
	}
	*c = (struct mc_contents){ bytes, size, cap, type };
	sec->buf = c;
	return true;
}

bool mc_section_take_buffer(struct mc_section *sec, Elf_Data *d, void *buf)
{
	if (!mc_section_own(sec, buf, d->d_size, d->d_size ? d->d_size : 1,
			    d->d_type))
		return false;
	d->d_buf = buf;
	return true;
}

GElf_Shdr *mc_section_header_to_change(struct mc_object *obj,
				       struct mc_section *sec)
{
	GElf_Shdr *own;

	if (sec->own_header)
		return (GElf_Shdr *)sec->shdr;
	if (!(own = malloc(sizeof(*own)))) {
		mc_fail(obj, "out of memory");
		return NULL;
	}
	*own = *sec->shdr;
	sec->shdr = own;
	sec->own_header = true;
	return own;
}

/* Give the section a private, writable copy of its contents. */
bool mc_section_make_writable(struct mc_object *obj,
				  struct mc_section *sec)
{
	Elf_Data *d;
	void *buf;

	/* one made in memory (mc_add_section) has only its own copy */
	if (sec->buf)
		return true;
	if (!(d = mc_section_data(obj, sec)))
		return mc_fail(obj, "section %s has no data", sec->name);
	buf = malloc(d->d_size ? d->d_size : 1);
	if (!buf)
		return mc_fail(obj, "out of memory");
	if (d->d_size)
		memcpy(buf, d->d_buf, d->d_size);
	if (!mc_section_take_buffer(sec, d, buf)) {
		free(buf);
		return mc_fail(obj, "out of memory");
	}
	return true;
}

const uint8_t *mc_section_bytes(const struct mc_object *obj,
				struct mc_section *sec, size_t *size)
{
	struct mc_input_data in;

	*size = 0;
	if (sec->shdr->sh_type == SHT_NOBITS)
		return NULL;
	if (sec->buf) {		/* changed or added in memory */
		*size = sec->buf->size;
		return sec->buf->bytes;
	}
	if (!mc_section_view(obj, sec, &in) || !in.buf)
		return NULL;
	*size = in.size;
	return in.buf;
}
