/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * section.c - a section's contents: libelf's data as read, or the
 * model's own copy that replaces them once they are changed (or the
 * section was added).  Below the reader, the codec and the editor,
 * which all ask for contents; it calls only fail.c.
 */
#include "object.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

Elf_Data *mc_section_data(const struct mc_section *sec)
{
	return sec->scn ? elf_getdata(sec->scn, NULL) : NULL;
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

/* Give the section a private, writable copy of its contents. */
bool mc_section_make_writable(struct mc_object *obj,
				  struct mc_section *sec)
{
	Elf_Data *d;
	void *buf;

	/* one made in memory (mc_add_section) has only its own copy */
	if (sec->buf)
		return true;
	if (!(d = mc_section_data(sec)))
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

const uint8_t *mc_section_bytes(struct mc_section *sec, size_t *size)
{
	Elf_Data *d;

	*size = 0;
	if (sec->shdr.sh_type == SHT_NOBITS)
		return NULL;
	if (sec->buf) {		/* changed or added in memory */
		*size = sec->buf->size;
		return sec->buf->bytes;
	}
	d = mc_section_data(sec);
	if (!d || !d->d_buf)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}
