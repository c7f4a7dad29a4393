/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * write.c - the model written back over its input.
 *
 * mc_object_write() appends the new and changed sections and a new
 * section header table to the input file and then rewrites its ELF
 * header (append_object, below); where it cannot (a second hard link, a
 * layout it cannot keep) it writes a fresh image into a temporary file
 * in the same directory and renames it over the input.  Either way a
 * reader sees the old object or the complete new one, never a mix.
 */
#define _GNU_SOURCE
#include "object.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

/* Hand one model section to the output ELF. */
static bool emit_section(struct mc_object *obj, Elf *out,
			 struct mc_section *sec)
{
	Elf_Scn *scn = elf_newscn(out);
	Elf_Data *od;

	if (!scn || !(od = elf_newdata(scn)))
		return mc_fail_elf(obj, "cannot create output section");
	if (sec->buf) {
		od->d_buf = sec->buf->bytes;
		od->d_size = sec->buf->size;
		od->d_type = sec->buf->type;
		od->d_align = sec->shdr->sh_addralign ? sec->shdr->sh_addralign
						     : 1;
	} else if (sec->shdr->sh_type == SHT_NOBITS) {
		od->d_size = sec->shdr->sh_size;
		od->d_type = ELF_T_BYTE;
		od->d_align = sec->shdr->sh_addralign ? sec->shdr->sh_addralign
						     : 1;
	} else {
		Elf_Data *in = mc_section_data(obj, sec);

		if (!in)
			return mc_fail_elf(obj, "cannot read section");
		od->d_buf = in->d_buf;
		od->d_size = in->d_size;
		od->d_type = in->d_type;
		od->d_align = in->d_align;
	}
	od->d_version = EV_CURRENT;
	if (elf_ndxscn(scn) != sec->index)
		return mc_fail(obj, "section %s renumbered on output", sec->name);
	GElf_Shdr sh = *sec->shdr;	/* gelf_update_shdr's is not const */

	if (!gelf_update_shdr(scn, &sh))
		return mc_fail_elf(obj, "cannot write section header");
	return true;
}

/*
 * Writing the image libelf laid out.  libelf's own writer (ELF_C_WRITE)
 * makes one pwrite per section, and more for the padding between them:
 * 300,000 system calls for an object of 100,000 functions each in its
 * own section.  Once elf_update(ELF_C_NULL) has placed everything, the
 * same bytes go out here in file order through one buffer: the ELF
 * header, each section's data at its offset (in the file's byte order,
 * as libelf would convert it), the section header table, and zeros
 * (libelf's fill byte) everywhere else, up to the size libelf computed.
 * A layout that is not "header, sections in index order, header table"
 * (libelf's own, with no program headers) is left to libelf to write.
 */
/*
 * The output goes out through writev(2) in file order, and by
 * reference wherever the bytes already exist: an unchanged section
 * straight from the mapped input, a changed one from its buffer, the
 * padding from a block of static zeros.  Only what is converted (the
 * headers, data in the other byte order) is built in the stream's own
 * buffer.  Nothing referenced may change or go away before the next
 * flush, which every writer makes before it returns.
 */
enum { STREAM_IOV = 128, STREAM_BUF = 64 << 10 };

struct stream {
	struct mc_object *obj;
	int fd;
	uint8_t *buf;		/* STREAM_BUF bytes for converted data */
	size_t used;
	struct iovec iov[STREAM_IOV];
	int n_iov;
	uint64_t pos;		/* file offset after what is queued */
};

static const uint8_t zero_block[16 << 10];

/* False when out of memory (obj->error untouched). */
static bool stream_open(struct stream *w, struct mc_object *obj, int fd)
{
	*w = (struct stream){ .obj = obj, .fd = fd };
	w->buf = malloc(STREAM_BUF);
	return w->buf != NULL;
}

static bool write_fail(struct stream *w, ssize_t k)
{
	return mc_fail(w->obj, "cannot write object: %s",
		       strerror(k < 0 ? errno : EIO));
}

static bool stream_flush(struct stream *w)
{
	struct iovec *v = w->iov;
	int n = w->n_iov;

	w->n_iov = 0;
	w->used = 0;
	while (n > 0) {
		ssize_t k = writev(w->fd, v, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return write_fail(w, k);
		while (n > 0 && (size_t)k >= v->iov_len) {	/* written */
			k -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {					/* partly */
			v->iov_base = (uint8_t *)v->iov_base + k;
			v->iov_len -= (size_t)k;
		}
	}
	return true;
}

/* Queue n bytes at p, which stay put until the next flush. */
static bool stream_ref(struct stream *w, const void *p, size_t n)
{
	struct iovec *last = w->n_iov ? &w->iov[w->n_iov - 1] : NULL;

	w->pos += n;
	if (n == 0)
		return true;
	if (last && (const uint8_t *)last->iov_base + last->iov_len == p) {
		last->iov_len += n;
		return true;
	}
	if (w->n_iov == STREAM_IOV && !stream_flush(w))
		return false;
	w->iov[w->n_iov++] = (struct iovec){ (void *)p, n };
	return true;
}

/* Queue n zero bytes. */
static bool stream_zeros(struct stream *w, uint64_t n)
{
	while (n) {
		size_t k = n < sizeof(zero_block) ? (size_t)n
						  : sizeof(zero_block);

		if (!stream_ref(w, zero_block, k))
			return false;
		n -= k;
	}
	return true;
}

/*
 * Room for n <= STREAM_BUF bytes in the stream's buffer, queued at the
 * current position: the caller fills it before the next stream call.
 */
static uint8_t *stream_reserve(struct stream *w, size_t n)
{
	uint8_t *p;

	/* Flushed first, if at all: stream_ref must not flush p away. */
	if ((STREAM_BUF - w->used < n || w->n_iov == STREAM_IOV) &&
	    !stream_flush(w))
		return NULL;
	p = w->buf + w->used;
	w->used += n;
	return stream_ref(w, p, n) ? p : NULL;
}

/*
 * Memory-form `src` in the file's byte order, then out: what libelf
 * writes for it (file and memory sizes of its types are the same).
 */
static bool stream_xlate(struct stream *w, Elf *out, const void *src,
			 size_t size, Elf_Type type, unsigned enc)
{
	Elf_Data from = { .d_buf = (void *)src, .d_size = size, .d_type = type,
			  .d_version = EV_CURRENT };
	Elf_Data to = { .d_size = size, .d_version = EV_CURRENT };
	bool big = size > STREAM_BUF;
	bool ok;

	if (size == 0)
		return true;
	/* Small: converted into the stream's buffer; big: on its own. */
	to.d_buf = big ? malloc(size) : stream_reserve(w, size);
	if (!to.d_buf)
		return big ? mc_fail(w->obj, "out of memory") : false;
	ok = gelf_xlatetof(out, &to, &from, enc) && to.d_size == size;
	if (!ok)
		mc_fail_elf(w->obj, "cannot write object");
	else if (big)
		ok = stream_ref(w, to.d_buf, size) && stream_flush(w);
	if (big)
		free(to.d_buf);
	return ok;
}

/* The one data block of a section that has bytes in the file, or NULL. */
static Elf_Data *file_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
	    d->d_size == 0)
		return NULL;
	return d;
}

/*
 * True if data of type `t` can go out of this writer in byte order
 * `enc`: as it is in memory when that is the host's order, else
 * converted element by element, as gelf_xlatetof does for these types.
 * Others (notes, whose records vary in length; version and hash tables)
 * it refuses or cannot know from the size alone: a section of such a
 * type that needs converting is left to libelf's own writer, which
 * walks it.  Both of this file's writers ask here.
 */
static bool streamable(unsigned enc, Elf_Type t)
{
	if (enc == mc_host_byte_order())
		return true;
	switch (t) {
	case ELF_T_BYTE: case ELF_T_ADDR: case ELF_T_HALF: case ELF_T_OFF:
	case ELF_T_SWORD: case ELF_T_WORD: case ELF_T_XWORD:
	case ELF_T_SXWORD: case ELF_T_SYM: case ELF_T_REL: case ELF_T_RELA:
		return true;
	default:
		return false;
	}
}

/* True if the layout is one stream_object writes (see above). */
static bool layout_is_plain(Elf *out, const GElf_Ehdr *eh, int64_t size,
			    size_t n_scn)
{
	size_t phnum, shsize = gelf_fsize(out, ELF_T_SHDR, 1, EV_CURRENT);
	uint64_t end = gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;

	if (elf_getphdrnum(out, &phnum) != 0 || phnum != 0 ||
	    eh->e_phoff != 0 || n_scn == 0 || shsize == 0)
		return false;
	while ((scn = elf_nextscn(out, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && elf_getdata(scn, d))
			return false;	/* more than one block */
		if (!(d = file_data(scn, &sh)))
			continue;
		if (!d->d_buf || d->d_off != 0 || d->d_size != sh.sh_size ||
		    sh.sh_offset < end ||
		    !streamable(eh->e_ident[EI_DATA], d->d_type))
			return false;
		end = sh.sh_offset + sh.sh_size;
	}
	return eh->e_shoff >= end && (uint64_t)size >= eh->e_shoff &&
	       ((uint64_t)size - eh->e_shoff) / shsize >= n_scn;
}

static bool stream_headers(struct stream *w, Elf *out, size_t n_scn,
			   unsigned enc)
{
	bool is64 = gelf_getclass(out) == ELFCLASS64;
	size_t one = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	enum { CHUNK = 512 };	/* converted within the stream's buffer */
	uint8_t *chunk = malloc(CHUNK * one);
	size_t k = 0;
	bool ok = chunk != NULL;
	Elf_Scn *scn = elf_getscn(out, 0);

	if (!chunk)
		return mc_fail(w->obj, "out of memory");
	for (size_t i = 0; ok && i < n_scn; i++) {
		void *sh = !scn ? NULL : is64 ? (void *)elf64_getshdr(scn)
					     : (void *)elf32_getshdr(scn);

		if (!sh) {
			ok = mc_fail_elf(w->obj, "cannot write section header");
			break;
		}
		memcpy(chunk + k++ * one, sh, one);
		if (k == CHUNK || i + 1 == n_scn) {
			ok = stream_xlate(w, out, chunk, k * one, ELF_T_SHDR,
					  enc);
			k = 0;
		}
		scn = elf_nextscn(out, scn);
	}
	free(chunk);
	return ok;
}

/* 1: written; 0: failed (obj->error); -1: for libelf to write. */
static int stream_object(struct mc_object *obj, Elf *out, int fd,
			 int64_t size)
{
	GElf_Ehdr eh;
	size_t n_scn;
	struct stream w;
	bool is64 = gelf_getclass(out) == ELFCLASS64;
	void *ehdr = is64 ? (void *)elf64_getehdr(out)
			  : (void *)elf32_getehdr(out);
	Elf_Scn *scn = NULL;

	if (!ehdr || !gelf_getehdr(out, &eh) ||
	    elf_getshdrnum(out, &n_scn) != 0 ||
	    !layout_is_plain(out, &eh, size, n_scn))
		return -1;
	unsigned enc = eh.e_ident[EI_DATA];
	if (!stream_open(&w, obj, fd))
		return -1;
	bool ok = stream_xlate(&w, out, ehdr, is64 ? sizeof(Elf64_Ehdr)
						   : sizeof(Elf32_Ehdr),
			       ELF_T_EHDR, enc);
	while (ok && (scn = elf_nextscn(out, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh)) {
			ok = mc_fail_elf(obj, "cannot write section header");
			break;
		}
		if (!(d = file_data(scn, &sh)))
			continue;
		ok = stream_zeros(&w, sh.sh_offset - w.pos) &&
		     (enc == mc_host_byte_order() || d->d_type == ELF_T_BYTE ?
		      stream_ref(&w, d->d_buf, d->d_size) :
		      stream_xlate(&w, out, d->d_buf, d->d_size, d->d_type,
				   enc));
	}
	ok = ok && stream_zeros(&w, eh.e_shoff - w.pos) &&
	     stream_headers(&w, out, n_scn, enc) &&
	     stream_zeros(&w, (uint64_t)size - w.pos) && stream_flush(&w);
	free(w.buf);
	return ok;
}

/*
 * The same image without building it in libelf first.  A new libelf
 * object costs about 400 bytes and an allocation per section, and it
 * only computes a layout here: for a relocatable object with no program
 * headers that layout is simple, and computed below exactly as libelf's
 * elf_update(ELF_C_WRITE) computes it (elf32_updatenull.c, without
 * ELF_F_LAYOUT): the ELF header, then each section in index order at the
 * next multiple of the larger of its sh_addralign and its data's
 * alignment (which becomes its sh_addralign), sh_size its data's size,
 * sh_entsize the entry size of the types libelf knows, and the section
 * header table at the next multiple of the word size.  Anything else
 * (types whose entry size libelf derives from the machine, compressed
 * sections, values libelf would refuse) goes through libelf as before.
 */
struct out_data {
	const void *buf;
	uint64_t size;
	Elf_Type type;
	uint64_t align;
	bool file_order;	/* the input's own bytes: out as they are */
	enum mc_renumber_how how;	/* buf: the input's, renumbered on
					   the way out (stream_renumbered) */
};

/* What one direct write needs to know of the object, found once. */
struct plan {
	bool is64;
	uint64_t limit;		/* largest offset or size the class holds */
	size_t sym_size, rela_size, rel_size, addr_size;
	unsigned enc;
	const uint8_t *image;	/* the input file's bytes, or NULL */
	size_t image_size;
	/*
	 * For the append writer: an input section it keeps in place need not
	 * be convertible, as it is not written (plan_append checks those it
	 * moves).
	 */
	bool in_place;
};

/*
 * The type of the data libelf's elf_getdata gives an unchanged section
 * (its table of section types, elf_getdata.c), for the types whose
 * entries have one size in the file: ELF_T_BYTE for the many it knows
 * nothing of.  ELF_T_NUM where it is something else (notes, hash and
 * version tables, dynamic sections, RELR) or this table does not know:
 * those are read through libelf as before.
 */
static Elf_Type input_type(uint32_t sh_type)
{
	switch (sh_type) {
	case SHT_NULL: case SHT_PROGBITS: case SHT_STRTAB: case SHT_NOBITS:
	case SHT_SHLIB: case 12: case 13:
		return ELF_T_BYTE;
	case SHT_SYMTAB:
		return ELF_T_SYM;
	case SHT_RELA:
		return ELF_T_RELA;
	case SHT_REL:
		return ELF_T_REL;
	case SHT_INIT_ARRAY: case SHT_FINI_ARRAY: case SHT_PREINIT_ARRAY:
		return ELF_T_ADDR;
	case SHT_GROUP: case SHT_SYMTAB_SHNDX:
		return ELF_T_WORD;
	default:
		/* SHT_RELR (19) and the GNU/Sun range libelf maps are its. */
		if (sh_type < 20 || (sh_type >= SHT_GNU_HASH &&
				     sh_type <= SHT_HISUNW))
			return ELF_T_NUM;
		return ELF_T_BYTE;
	}
}

/*
 * An unchanged section's data without asking libelf for it: elf_getdata
 * would map, check and (for the other byte order) convert every section
 * only for the writer to convert it back.  The same answer as libelf's
 * rawdata: the bytes at sh_offset, sh_size of them, a whole number of
 * entries (libelf refuses the section otherwise: so does this, and the
 * caller asks libelf, which fails as before), aligned to sh_addralign
 * except that an alignment beyond the section's offset in the file is
 * cut to the power of two at or above that offset.
 */
static bool input_out_data(const struct plan *p, const GElf_Shdr *sh,
			   struct out_data *od)
{
	Elf_Type type = input_type(sh->sh_type);
	size_t entry;
	uint64_t align = sh->sh_addralign ? sh->sh_addralign : 1;

	if (!p->image || type == ELF_T_NUM || (sh->sh_flags & SHF_COMPRESSED) ||
	    sh->sh_offset > p->image_size ||
	    sh->sh_size > p->image_size - sh->sh_offset)
		return false;
	switch (type) {
	case ELF_T_SYM:  entry = p->sym_size; break;
	case ELF_T_RELA: entry = p->rela_size; break;
	case ELF_T_REL:  entry = p->rel_size; break;
	case ELF_T_ADDR: entry = p->addr_size; break;
	case ELF_T_WORD: entry = sizeof(Elf32_Word); break;
	default:         entry = 1; break;
	}
	if (sh->sh_size % entry)
		return false;
	if (align > sh->sh_offset) {
		uint64_t v = sh->sh_offset - 1;	/* 0: all ones, then 0 */

		for (unsigned k = 1; k < 64; k *= 2)
			v |= v >> k;
		align = v + 1;
	}
	*od = (struct out_data){ sh->sh_size ? p->image + sh->sh_offset : NULL,
				 sh->sh_size, type, align, true,
				 MC_AS_IT_IS };
	return true;
}

/*
 * The bytes a section that is renumbered on the way out adds to the
 * input's: the added symbols, in the symbol table or its mirror.
 */
static size_t spliced_bytes(const struct mc_object *obj,
			    const struct mc_section *sec)
{
	size_t one = sec == obj->symtab ? sec->shdr->sh_entsize
					: sizeof(Elf32_Word);

	return mc_renumber_how_of(obj, sec) == MC_SPLICED
	       ? obj->renumbering->m.n * one : 0;
}

/* The data emit_section hands libelf for `sec`; false: not readable. */
static bool section_out_data(const struct mc_object *obj,
			     const struct plan *p, struct mc_section *sec,
			     struct out_data *od)
{
	uint64_t align = sec->shdr->sh_addralign ? sec->shdr->sh_addralign : 1;
	enum mc_renumber_how how = mc_renumber_how_of(obj, sec);

	if (sec->buf) {
		*od = (struct out_data){ sec->buf->bytes, sec->buf->size,
					 sec->buf->type, align, false,
					 MC_AS_IT_IS };
	} else if (obj->added_names && sec->index == obj->shstrndx) {
		/* Laid out as the copy mc_fold_added_names would make. */
		if (!input_out_data(p, sec->shdr, od) ||
		    od->size != obj->added_names->input_size)
			return false;
		od->size += obj->added_names->size;
		od->align = align;
		od->file_order = false;
		od->how = MC_NAMES_ADDED;
	} else if (how != MC_AS_IT_IS) {
		/* Laid out as the copy mc_apply_renumbering would make. */
		struct mc_input_data d;

		if (!mc_section_view(obj, sec, &d))
			return false;
		*od = (struct out_data){ d.buf,
					 d.size + spliced_bytes(obj, sec),
					 d.type, align, false, how };
	} else if (sec->shdr->sh_type == SHT_NOBITS) {
		*od = (struct out_data){ NULL, sec->shdr->sh_size, ELF_T_BYTE,
					 align, false, MC_AS_IT_IS };
	} else if (!input_out_data(p, sec->shdr, od)) {
		Elf_Data *in = mc_section_data(obj, sec);

		if (!in)
			return false;
		*od = (struct out_data){ in->d_buf, in->d_size, in->d_type,
					 in->d_align, false, MC_AS_IT_IS };
	}
	return true;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool convertible(const struct mc_object *obj, const struct plan *p,
			const struct out_data *od);

/*
 * True for an input section the append writer may keep where it is
 * unconverted (see struct plan): plan_section checks that every other
 * section is convertible, and plan_append need not ask again.
 */
static bool may_stay_unconverted(const struct mc_object *obj,
				 const struct plan *p,
				 const struct mc_section *sec)
{
	return p->in_place && !sec->buf && mc_section_is_input(obj, sec) &&
	       mc_renumber_how_of(obj, sec) == MC_AS_IT_IS;
}

/* The sh_entsize libelf writes for a section with header `sh`. */
static uint64_t written_entsize(const struct plan *p, const GElf_Shdr *sh)
{
	switch (sh->sh_type) {
	case SHT_SYMTAB:
		return p->sym_size;
	case SHT_RELA:
		return p->rela_size;
	case SHT_REL:
		return p->rel_size;
	case SHT_GROUP:
	case SHT_SYMTAB_SHNDX:
		return sizeof(Elf32_Word);
	default:
		return sh->sh_entsize;
	}
}

/*
 * Section `sec`'s header as libelf would lay it out at *cursor, which
 * moves past it; false where this layout is not libelf's for sure.
 */
static bool plan_section(struct mc_object *obj, const struct plan *p,
			 struct mc_section *sec, uint64_t *cursor,
			 GElf_Shdr *sh, struct out_data *od)
{
	uint64_t align, limit = p->limit;

	*sh = *sec->shdr;
	if (!section_out_data(obj, p, sec, od) || !is_pow2(od->align) ||
	    (sh->sh_flags & SHF_COMPRESSED) ||
	    (od->size && !od->buf && sh->sh_type != SHT_NOBITS))
		return false;
	align = sh->sh_addralign ? sh->sh_addralign : 1;
	if (!is_pow2(align))
		return false;
	switch (sh->sh_type) {
	case SHT_GROUP:
		if (obj->ehdr.e_type != ET_REL)
			return false;
		break;
	case SHT_HASH:
	case SHT_DYNAMIC:
	case SHT_DYNSYM:
	case SHT_SUNW_move:
	case SHT_SUNW_syminfo:
		return false;
	default:
		break;
	}
	sh->sh_entsize = written_entsize(p, sh);
	if (od->align > align)
		align = od->align;
	sh->sh_addralign = align;
	if (*cursor > limit - (align - 1))
		return false;
	*cursor = (*cursor + align - 1) & ~(align - 1);
	sh->sh_offset = *cursor;
	sh->sh_size = od->size;
	if (sh->sh_type != SHT_NOBITS) {
		if (od->size > limit - *cursor)
			return false;
		*cursor += od->size;
	}
	if (sh->sh_entsize > 1 && sh->sh_size % sh->sh_entsize)
		return false;
	if (!p->is64 && (sh->sh_flags > limit || sh->sh_addr > limit ||
			 sh->sh_entsize > limit))
		return false;
	/* Converted to the file's byte order in whole entries. */
	return may_stay_unconverted(obj, p, sec) || convertible(obj, p, od);
}

/* True if `od` can be written in the file's byte order by this writer. */
static bool convertible(const struct mc_object *obj, const struct plan *p,
			const struct out_data *od)
{
	if (od->size && od->type != ELF_T_BYTE && !od->file_order) {
		size_t entry = gelf_fsize(obj->elf, od->type, 1, EV_CURRENT);

		if (entry == 0 || od->size % entry ||
		    !streamable(p->enc, od->type))
			return false;
	}
	return true;
}

/* Section 0's header as emit_object gives it and libelf completes it. */
static GElf_Shdr plan_section0(const struct mc_object *obj)
{
	GElf_Shdr zero = *obj->sections[0]->shdr;

	zero.sh_size = obj->n_sections >= SHN_LORESERVE ? obj->n_sections : 0;
	if (obj->shstrndx >= SHN_LORESERVE)
		zero.sh_link = (GElf_Word)obj->shstrndx;
	return zero;
}

struct layout;
static GElf_Shdr planned_header(const struct mc_object *obj,
				const struct layout *l, size_t i);

/* The planned section headers in the file's form, out. */
static bool stream_shdrs(struct stream *w, struct mc_object *obj,
			 const struct plan *p, const struct layout *l)
{
	size_t n = obj->n_sections;
	size_t one = p->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	bool native = p->enc == mc_host_byte_order();
	enum { CHUNK = STREAM_BUF / sizeof(Elf64_Shdr) };

	for (size_t i = 0; i < n; i += CHUNK) {
		size_t k = n - i < CHUNK ? n - i : CHUNK;
		/* Built in place, or in a copy converted into place. */
		uint8_t *m = native ? stream_reserve(w, k * one)
				    : malloc(k * one);
		bool ok = true;

		if (!m)
			return native ? false : mc_fail(obj, "out of memory");
		for (size_t j = 0; j < k; j++) {
			GElf_Shdr g = planned_header(obj, l, i + j);

			if (p->is64)
				((Elf64_Shdr *)m)[j] = g;
			else
				((Elf32_Shdr *)m)[j] = (Elf32_Shdr){
					g.sh_name, g.sh_type,
					(Elf32_Word)g.sh_flags,
					(Elf32_Addr)g.sh_addr,
					(Elf32_Off)g.sh_offset,
					(Elf32_Word)g.sh_size,
					g.sh_link, g.sh_info,
					(Elf32_Word)g.sh_addralign,
					(Elf32_Word)g.sh_entsize };
		}
		if (!native) {
			ok = stream_xlate(w, obj->elf, m, k * one, ELF_T_SHDR,
					  p->enc);
			free(m);
		}
		if (!ok)
			return false;
	}
	return true;
}

/* The ELF header in the file's form, out. */
static bool stream_ehdr(struct stream *w, struct mc_object *obj,
			const struct plan *p, const GElf_Ehdr *eh)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } m;

	if (p->is64) {
		memcpy(&m.e64, eh, sizeof(m.e64));	/* GElf_Ehdr is Elf64_Ehdr */
	} else {
		memcpy(m.e32.e_ident, eh->e_ident, EI_NIDENT);
		m.e32.e_type = eh->e_type;
		m.e32.e_machine = eh->e_machine;
		m.e32.e_version = eh->e_version;
		m.e32.e_entry = (Elf32_Addr)eh->e_entry;
		m.e32.e_phoff = 0;
		m.e32.e_shoff = (Elf32_Off)eh->e_shoff;
		m.e32.e_flags = eh->e_flags;
		m.e32.e_ehsize = eh->e_ehsize;
		m.e32.e_phentsize = eh->e_phentsize;
		m.e32.e_phnum = eh->e_phnum;
		m.e32.e_shentsize = eh->e_shentsize;
		m.e32.e_shnum = eh->e_shnum;
		m.e32.e_shstrndx = eh->e_shstrndx;
	}
	return stream_xlate(w, obj->elf, &m, p->is64 ? sizeof(m.e64)
						     : sizeof(m.e32),
			    ELF_T_EHDR, p->enc);
}

/*
 * What the plan changes in a section's header: the rest is the model's
 * (planned_header).  24 bytes a section where a whole planned GElf_Shdr
 * took 64, and an object of one section per function has millions.
 */
/*
 * Where the plan puts a section: 16 bytes, where an object of a section
 * per function has two million.  The alignment, a power of two, is
 * kept as its log2 in the top byte of the size.  A section with bytes
 * has fewer than 2^56 of them (they are in memory or in the file); a
 * SHT_NOBITS one's size, which can be anything, is not kept but taken
 * where section_out_data took it (planned_size).
 */
struct placed {
	uint64_t offset;
	uint64_t size_align;	/* size | log2(alignment) << PLACED_SIZE_BITS */
};

enum { PLACED_SIZE_BITS = 56 };

static bool placeable(uint64_t size)
{
	return size >> PLACED_SIZE_BITS == 0;
}

/* `align`: a power of two; `size`: placeable. */
static struct placed placed_at(uint64_t offset, uint64_t size, uint64_t align)
{
	uint64_t log2 = (uint64_t)__builtin_ctzll(align);

	return (struct placed){ offset, size | log2 << PLACED_SIZE_BITS };
}

static uint64_t placed_size(const struct placed *a)
{
	return a->size_align & ((UINT64_C(1) << PLACED_SIZE_BITS) - 1);
}

static uint64_t placed_align(const struct placed *a)
{
	return UINT64_C(1) << (a->size_align >> PLACED_SIZE_BITS);
}

/* The size planned for `sec`, placed at `a`. */
static uint64_t planned_size(const struct mc_section *sec,
			     const struct placed *a)
{
	if (sec->shdr->sh_type == SHT_NOBITS)
		return sec->buf ? sec->buf->size : sec->shdr->sh_size;
	return placed_size(a);
}

/* Every header of a direct write, planned once before anything is written. */
struct layout {
	struct plan p;
	GElf_Ehdr eh;
	struct placed *at;	/* n_sections of them (0 unused), malloc'd */
	uint64_t size;		/* the file's size: the end of the header table */
};

/* Section i's header as planned (and placed since). */
static GElf_Shdr planned_header(const struct mc_object *obj,
				const struct layout *l, size_t i)
{
	GElf_Shdr sh = *obj->sections[i]->shdr;
	const struct placed *a = &l->at[i];

	if (i == 0)
		return plan_section0(obj);
	sh.sh_entsize = written_entsize(&l->p, &sh);
	sh.sh_addralign = placed_align(a);
	sh.sh_offset = a->offset;
	sh.sh_size = planned_size(obj->sections[i], a);
	return sh;
}

void mc_object_give_scratch(struct mc_object *obj, void *mem, size_t size)
{
	free(obj->scratch);
	obj->scratch = mem;
	obj->scratch_size = mem ? size : 0;
}

/*
 * The placements of n sections: in the scratch memory the caller gave
 * when it is large enough (an object of a section per function frees a
 * list of sites as large just before it writes), else allocated.
 */
static struct placed *placements_alloc(struct mc_object *obj, size_t n)
{
	if (obj->scratch && n <= obj->scratch_size / sizeof(struct placed))
		return obj->scratch;
	return malloc(n * sizeof(struct placed));
}

static void placements_free(struct mc_object *obj, struct placed *at)
{
	if (at != obj->scratch)
		free(at);
}

/*
 * True: planned (placements_free l->at); false: for libelf to lay
 * out.  `in_place`: for the append writer (see struct plan).
 */
static bool plan_layout(struct mc_object *obj, struct layout *l,
			bool in_place)
{
	bool is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	struct plan p = {
		.is64 = is64,
		.limit = is64 ? UINT64_MAX : 0xffffffffull,
		.sym_size = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym),
		.rela_size = is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela),
		.rel_size = is64 ? sizeof(Elf64_Rel) : sizeof(Elf32_Rel),
		.addr_size = is64 ? 8 : 4,
		.enc = obj->ehdr.e_ident[EI_DATA],
		.in_place = in_place,
	};
	size_t n = obj->n_sections;
	uint64_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	uint64_t shsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t word = is64 ? 8 : 4;
	uint64_t cursor = ehsize;
	GElf_Ehdr eh = obj->ehdr;
	GElf_Shdr sh;
	struct out_data od;

	if (n < 2 || eh.e_phnum != 0 || (p.enc != ELFDATA2LSB &&
					 p.enc != ELFDATA2MSB) ||
	    eh.e_version != EV_CURRENT || eh.e_entry > p.limit)
		return false;
	p.image = (const uint8_t *)elf_rawfile(obj->elf, &p.image_size);

	struct placed *at = placements_alloc(obj, n);
	if (!at)
		return false;
	at[0] = placed_at(0, 0, 1);
	for (size_t i = 1; i < n; i++) {
		if (!plan_section(obj, &p, obj->sections[i], &cursor, &sh,
				  &od)) {
			placements_free(obj, at);
			return false;
		}
		bool nobits = sh.sh_type == SHT_NOBITS;

		if (!nobits && !placeable(sh.sh_size)) {
			placements_free(obj, at);
			return false;
		}
		at[i] = placed_at(sh.sh_offset, nobits ? 0 : sh.sh_size,
				  sh.sh_addralign);
	}
	if (cursor > p.limit - (word - 1) ||
	    (cursor = (cursor + word - 1) & ~(word - 1),
	     n > (p.limit - cursor) / shsize)) {
		placements_free(obj, at);
		return false;
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_shnum = n >= SHN_LORESERVE ? 0 : (GElf_Half)n;
	eh.e_ehsize = (GElf_Half)ehsize;
	eh.e_phoff = 0;
	eh.e_shentsize = (GElf_Half)shsize;
	eh.e_shoff = cursor;
	*l = (struct layout){ p, eh, at, cursor + n * shsize };
	return true;
}

/*
 * Relocations of `sec` out in the written numbering, renumbered a
 * chunk at a time into the stream's buffer: never the whole section
 * at once (a relocatable object's .rela.text can be as large as its
 * code).
 */
static bool stream_renumbered_relocs(struct stream *w,
				     const struct mc_object *obj,
				     const struct mc_section *sec,
				     const uint8_t *in, size_t size)
{
	struct mc_reloc_table t;
	size_t one = mc_reloc_entry_size(obj, sec->shdr->sh_type);
	size_t chunk = STREAM_BUF / one;

	mc_reloc_table_over(obj, sec->shdr->sh_type, NULL, 0, &t);
	for (size_t i = 0; i < size / one; i += chunk) {
		size_t k = size / one - i < chunk ? size / one - i : chunk;
		uint8_t *to = stream_reserve(w, k * one);

		if (!to)
			return false;
		mc_renumber_relocs(t.kind, in + i * one, to, k,
				   &obj->renumbering->m);
	}
	return true;
}

/*
 * The symbols added, entries of `one` bytes (or with `shndx` their
 * SHT_SYMTAB_SHNDX words), made a chunk at a time in the stream's
 * buffer.
 */
static bool stream_added_symbols(struct stream *w, const struct mc_object *obj,
				 size_t one, bool shndx)
{
	size_t n = obj->renumbering->m.n, chunk = STREAM_BUF / one;

	for (size_t j = 0; j < n; j += chunk) {
		size_t k = n - j < chunk ? n - j : chunk;
		uint8_t *to = stream_reserve(w, k * one);

		if (!to)
			return false;
		mc_added_symbols_out(obj, j, k, shndx, to);
	}
	return true;
}

/* The section name table: its input bytes `in`, then the names added. */
static bool stream_added_names(struct stream *w, const struct mc_object *obj,
			       const uint8_t *in)
{
	const struct mc_added_names *a = obj->added_names;
	bool ok = stream_ref(w, in, a->input_size);

	for (size_t i = 0; ok && i < a->n; i++)
		ok = stream_ref(w, a->names[i], strlen(a->names[i]) + 1);
	return ok;
}

/*
 * A section mc_number_symbols left to the writer, out in the written
 * numbering, in the host's byte order, which is the file's (else the
 * copies were made): the symbol table (or its mirror) in three pieces,
 * the input's entries before its first global, the added symbols, the
 * input's from its first global on; relocations renumbered; those that
 * do not change, as they are.
 */
static bool stream_renumbered(struct stream *w, const struct mc_object *obj,
			      const struct mc_section *sec,
			      const struct out_data *od)
{
	const struct mc_renumbering *r = obj->renumbering;
	const uint8_t *in = od->buf;
	size_t size = (size_t)od->size - spliced_bytes(obj, sec);

	switch (od->how) {
	case MC_NAMES_ADDED:
		return stream_added_names(w, obj, in);
	case MC_SPLICED: {
		bool symtab = sec == obj->symtab;
		size_t one = symtab ? sec->shdr->sh_entsize : sizeof(Elf32_Word);
		size_t at = r->m.k * one;

		return stream_ref(w, in, at) &&
		       stream_added_symbols(w, obj, one, !symtab) &&
		       stream_ref(w, in + at, size - at);
	}
	case MC_RENUMBERED:
		return stream_renumbered_relocs(w, obj, sec, in, size);
	default:
		return stream_ref(w, in, size);
	}
}

/*
 * The contents of the sections whose `moved` is set (all of them when
 * `moved` is NULL), at their planned offsets in index order (which is
 * file order), and then the section header table.
 */
static bool stream_layout(struct stream *w, struct mc_object *obj,
			  const struct layout *l, const bool *moved)
{
	const struct plan *p = &l->p;
	const struct placed *at = l->at;
	struct out_data od;
	bool ok = true;

	for (size_t i = 1; ok && i < obj->n_sections; i++) {
		if ((moved && !moved[i]) ||
		    obj->sections[i]->shdr->sh_type == SHT_NOBITS ||
		    placed_size(&at[i]) == 0)
			continue;
		section_out_data(obj, p, obj->sections[i], &od);
		ok = stream_zeros(w, at[i].offset - w->pos) &&
		     (od.how != MC_AS_IT_IS ?
		      stream_renumbered(w, obj, obj->sections[i], &od) :
		      od.file_order || p->enc == mc_host_byte_order() ||
		      od.type == ELF_T_BYTE ?
		      stream_ref(w, od.buf, (size_t)od.size) :
		      stream_xlate(w, obj->elf, od.buf, (size_t)od.size,
				   od.type, p->enc));
	}
	return ok && stream_zeros(w, l->eh.e_shoff - w->pos) &&
	       stream_shdrs(w, obj, p, l) &&
	       stream_flush(w);
}

/* 1: written; 0: failed (obj->error); -1: for libelf to lay out. */
static int direct_object(struct mc_object *obj, int fd)
{
	struct layout l;
	struct stream w;
	bool ok;

	if (!plan_layout(obj, &l, false))
		return -1;
	if (!stream_open(&w, obj, fd)) {
		placements_free(obj, l.at);
		return mc_fail(obj, "out of memory");
	}
	ok = stream_ehdr(&w, obj, &l.p, &l.eh) &&
	     stream_layout(&w, obj, &l, NULL);
	placements_free(obj, l.at);
	free(w.buf);
	return ok;
}

/*
 * Appending instead of rewriting.  An object built with -g is mostly
 * DWARF that recording leaves alone, yet a rewrite copies all of it.
 * Here every section whose bytes are unchanged stays where it is in the
 * input file; each new or changed section, then a new section header
 * table, go after the input's end, and the ELF header, the only bytes
 * of the input that are written over, goes last.  Until that one small
 * write the file is the input object with unreferenced bytes after its
 * end; after it, the complete output.  A failure before it truncates
 * the file back to its size; a failure in it (or in the close after it)
 * writes the input's header back first: either way the file is byte for
 * byte as it was, and its times are set back.
 *
 * The section headers and contents are exactly those of the rewrite;
 * only offsets differ.  The rewrite through a temporary file stays for
 * whatever this cannot do for sure: a file with more than one name (a
 * hard link in ccache's cache would see the change), one that is not
 * the regular file that was read, or not writable, an input whose
 * layout the plan does not reproduce.
 */

/*
 * True if section `sec`, read with header `in`, is written with type
 * `type`, `size` bytes and the same bytes as the input has at
 * in->sh_offset: where it stays.  A copy the model made (to change it,
 * or in passing) counts as unchanged
 * when its bytes in the file's byte order are the input's, compared as
 * such on every host, so that all hosts choose alike.
 */
static bool kept_in_place(struct mc_object *obj, const struct plan *p,
			  const struct mc_section *sec, const GElf_Shdr *in,
			  uint32_t type, uint64_t size)
{
	const uint8_t *at;
	bool same;

	/* the offset is the input's claim: checked before it is used */
	if (in->sh_type != type || in->sh_offset > p->image_size)
		return false;
	at = p->image + in->sh_offset;
	if (type == SHT_NOBITS || size == 0)
		return true;
	if (in->sh_size != size ||
	    size > p->image_size - in->sh_offset)
		return false;
	switch (mc_renumber_how_of(obj, sec)) {
	case MC_AS_IT_IS:
		break;
	case MC_RENUMBERED_SAME:
		return true;	/* the copy would be the input's bytes */
	default:
		return false;
	}
	const struct mc_contents *c = sec->buf;

	if (!c)
		return true;	/* the input's own bytes, as read */
	if (c->size != size)
		return false;
	if (p->enc == mc_host_byte_order() || c->type == ELF_T_BYTE)
		return memcmp(c->bytes, at, c->size) == 0;
	/* In the file's byte order first. */
	Elf_Data from = { .d_buf = c->bytes, .d_size = c->size,
			  .d_type = c->type, .d_version = EV_CURRENT };
	Elf_Data to = { .d_size = c->size, .d_version = EV_CURRENT };

	if (!(to.d_buf = malloc(c->size)))
		return false;
	same = gelf_xlatetof(obj->elf, &to, &from, p->enc) &&
	       to.d_size == c->size && memcmp(to.d_buf, at, c->size) == 0;
	free(to.d_buf);
	return same;
}

/*
 * The header input section `sec` was read with.  The model's own is
 * that one where it has no copy and is not the symbol table (or its
 * SHT_SYMTAB_SHNDX) the writer splices: sh_size changes only with a
 * copy or a splice, sh_type and sh_offset never.  Asked of libelf
 * otherwise, not for every section: its header is in a cold 208-byte
 * Elf_Scn, and an object of a section per function has millions.
 */
static bool input_header(const struct mc_object *obj,
			 const struct mc_section *sec, GElf_Shdr *in)
{
	if (!sec->buf && mc_renumber_how_of(obj, sec) != MC_SPLICED &&
	    sec != obj->symtab && sec != obj->symtab_shndx) {
		*in = *sec->shdr;
		return true;
	}
	return gelf_getshdr(mc_section_scn(obj, sec), in) != NULL;
}

/* The changed sections of the layout go to the end; false: cannot. */
static bool plan_append(struct mc_object *obj, struct layout *l, bool *moved)
{
	const struct plan *p = &l->p;
	uint64_t in_size = (uint64_t)obj->st.st_size;
	uint64_t shsize = p->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t word = p->is64 ? 8 : 4, cursor = in_size, moved_bytes = 0;
	uint64_t pad = 0;
	size_t n = obj->n_sections;

	if (!p->image || p->image_size != in_size || obj->ehdr.e_type != ET_REL)
		return false;
	moved[0] = false;
	for (size_t i = 1; i < n; i++) {
		struct mc_section *sec = obj->sections[i];
		uint32_t type = sec->shdr->sh_type;
		uint64_t size = placed_size(&l->at[i]);
		uint64_t align = placed_align(&l->at[i]);
		GElf_Shdr in;

		moved[i] = !(mc_section_is_input(obj, sec) &&
			     input_header(obj, sec, &in) &&
			     kept_in_place(obj, p, sec, &in, type, size));
		if (!moved[i]) {
			l->at[i].offset = in.sh_offset;
			continue;
		}
		struct out_data od;

		/*
		 * Moved, so written: convertible, which plan_section made
		 * sure of unless it let the section stay as it is.  Not
		 * asked again otherwise: a million relocation sections move
		 * in an object of a section per function.
		 */
		if (may_stay_unconverted(obj, p, sec) &&
		    (!section_out_data(obj, p, sec, &od) ||
		     !convertible(obj, p, &od)))
			return false;
		if (cursor > p->limit - (align - 1))
			return false;
		uint64_t at = (cursor + align - 1) & ~(align - 1);
		pad += at - cursor;
		l->at[i].offset = cursor = at;
		if (type == SHT_NOBITS)
			continue;
		if (size > p->limit - cursor)
			return false;
		cursor += size;
		moved_bytes += size;
	}
	if (cursor > p->limit - (word - 1))
		return false;
	cursor = (cursor + word - 1) & ~(word - 1);
	if (n > (p->limit - cursor) / shsize)
		return false;
	l->eh.e_shoff = cursor;
	l->size = cursor + n * shsize;
	/*
	 * The bound mc_check_layout promised: what is added is the moved
	 * sections, their padding (within its budget) and the new header
	 * table.  More would mean this plan is wrong: leave it.
	 */
	return pad <= 4 * in_size + (4u << 20) &&
	       l->size - in_size <= moved_bytes + pad + (word - 1) +
					n * shsize;
}

/* The times the input had, set back after a failure (best effort). */
static void restore_times(struct mc_object *obj, int fd)
{
	struct timespec t[2] = { obj->st.st_atim, obj->st.st_mtim };

	(void)futimens(fd, t);
}

/*
 * Put the input back after a failed append: its own ELF header if that
 * may have been written (in part), then its size.  False if that too
 * failed; obj->error keeps the first reason.
 */
static bool undo_append(struct mc_object *obj, int fd, const uint8_t *ehdr,
			size_t ehsize, bool header)
{
	bool ok = true;

	for (size_t done = 0; header && done < ehsize;) {
		ssize_t k = pwrite(fd, ehdr + done, ehsize - done,
				   (off_t)done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ok = false;
			break;
		}
		done += (size_t)k;
	}
	while (ok && ftruncate(fd, obj->st.st_size) != 0)
		if (errno != EINTR)
			ok = false;
	restore_times(obj, fd);
	return ok;
}

/*
 * Where the append is under way, for mc_remove_pending_output: the
 * descriptor and the input's size, to cut off what was appended when a
 * signal comes before the ELF header is written.
 */
static volatile sig_atomic_t append_fd = -1;
static off_t append_size;

/* True unless the file at `target` is not the one read, or has links. */
static bool same_single_file(const struct mc_object *obj, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_nlink == 1 && st.st_dev == obj->st.st_dev &&
	       st.st_ino == obj->st.st_ino && st.st_size == obj->st.st_size;
}

/* 1: written; 0: failed, the file as it was (obj->error); -1: rewrite. */
static int append_object(struct mc_object *obj, const char *target)
{
	struct layout l;
	struct stream w;
	bool *moved;
	int fd, done = -1;
	/*
	 * The input's ELF header, copied: the mapping may show the file's
	 * new bytes once they are written.
	 */
	uint8_t old[sizeof(Elf64_Ehdr)];
	size_t ehsize;

	if (obj->st.st_nlink != 1 || !S_ISREG(obj->st.st_mode) ||
	    !plan_layout(obj, &l, true))
		return -1;
	moved = malloc(obj->n_sections * sizeof(*moved));
	if (!moved || !plan_append(obj, &l, moved))
		goto out;
	ehsize = l.p.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	memcpy(old, l.p.image, ehsize);
	fd = open(target, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		goto out;
	if (!same_single_file(obj, fd) ||
	    lseek(fd, obj->st.st_size, SEEK_SET) != obj->st.st_size ||
	    !stream_open(&w, obj, fd)) {
		close(fd);
		goto out;
	}
	append_size = obj->st.st_size;
	append_fd = fd;
	w.pos = (uint64_t)obj->st.st_size;
	done = stream_layout(&w, obj, &l, moved);
	/* The switch: from here a signal leaves the file as it is. */
	append_fd = -1;
	if (!done) {
		undo_append(obj, fd, old, ehsize, false);
	} else {
		w.pos = 0;
		done = lseek(fd, 0, SEEK_SET) == 0 ?
		       stream_ehdr(&w, obj, &l.p, &l.eh) && stream_flush(&w) :
		       mc_fail(obj, "cannot write object: %s", strerror(errno));
		if (!done)
			undo_append(obj, fd, old, ehsize, true);
	}
	free(w.buf);
	if (close(fd) != 0 && done) {
		int err = errno;

		/* Written, perhaps not all: put the input back. */
		done = mc_fail(obj, "cannot write: %s", strerror(err));
		fd = open(target, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0) {
			undo_append(obj, fd, old, ehsize, true);
			close(fd);
		}
	}
out:
	free(moved);
	placements_free(obj, l.at);
	return done;
}

static bool update_failed(struct mc_object *obj)
{
	/* libelf's message drops the system's reason: keep it. */
	int err = errno;

	if (err)
		return mc_fail(obj, "cannot write object: %s: %s",
			       elf_errmsg(-1), strerror(err));
	return mc_fail_elf(obj, "cannot write object");
}

static bool emit_object(struct mc_object *obj, int fd)
{
	int done = direct_object(obj, fd);

	if (done >= 0)
		return done == 1;
	/* libelf writes what it holds: the copies, renumbered, named. */
	if (!mc_apply_renumbering(obj) || !mc_fold_added_names(obj))
		return false;

	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	bool ok = false;
	int64_t size;

	if (!out)
		return mc_fail_elf(obj, "cannot create output");
	if (!gelf_newehdr(out, gelf_getclass(obj->elf)) ||
	    !gelf_update_ehdr(out, &obj->ehdr)) {
		mc_fail_elf(obj, "cannot write ELF header");
		goto done;
	}
	for (size_t i = 1; i < obj->n_sections; i++)
		if (!emit_section(obj, out, obj->sections[i]))
			goto done;
	/* Section 0 carries the extended section count/name-table index. */
	if (obj->n_sections > 1) {
		GElf_Shdr zero = *obj->sections[0]->shdr;

		zero.sh_size = 0;
		if (obj->shstrndx >= SHN_LORESERVE)
			zero.sh_link = (GElf_Word)obj->shstrndx;
		if (!gelf_update_shdr(elf_getscn(out, 0), &zero)) {
			mc_fail_elf(obj, "cannot write section 0");
			goto done;
		}
	}
	errno = 0;
	if ((size = elf_update(out, ELF_C_NULL)) < 0) {
		update_failed(obj);
		goto done;
	}
	if ((done = stream_object(obj, out, fd, size)) >= 0) {
		ok = done == 1;
		goto done;
	}
	errno = 0;
	if (elf_update(out, ELF_C_WRITE) < 0) {
		update_failed(obj);
		goto done;
	}
	ok = true;
done:
	elf_end(out);
	return ok;
}

static char *temp_path_beside(const char *path)
{
	char *copy = strdup(path);
	char *tmp = NULL;

	if (!copy)
		return NULL;
	const char *dir = dirname(copy);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (asprintf(&tmp, "%s/.%s.rmc-XXXXXX", dir, base) < 0)
		tmp = NULL;
	free(copy);
	return tmp;
}

/*
 * The temporary file being written, for mc_remove_pending_output() to
 * delete from a signal handler: only a flag and a fixed buffer, which a
 * handler may read safely.
 */
static char pending_path[4096];
static volatile sig_atomic_t pending;

static void set_pending(const char *tmp)
{
	pending = 0;
	if (tmp && strlen(tmp) < sizeof(pending_path)) {
		strcpy(pending_path, tmp);
		pending = 1;
	}
}

/*
 * Called from a signal handler: write(2) alone, no stdio.  The input kept
 * bytes we appended, so the user must hear it was not left as it was.
 */
static void say_input_not_restored(void)
{
	static const char msg[] = "recordmcount: interrupted while appending"
				  " to the input; it could not be cut back to"
				  " its size\n";
	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)n;
}

void mc_remove_pending_output(void)
{
	int fd = append_fd;

	if (pending)
		unlink(pending_path);
	if (fd >= 0 && ftruncate(fd, append_size) != 0)
		say_input_not_restored();
}

/* Write through a symbolic link to the file it names, as ld does. */
static char *output_path(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : strdup(path);
}

/*
 * A linked image keeps its layout: program headers give file offsets
 * that must not move, so the input's bytes are copied and each changed
 * section (same size as before) is written over its old bytes, in the
 * file's byte order.
 */
static bool patch_section_bytes(struct mc_object *obj, uint8_t *file,
				size_t file_size, struct mc_section *sec)
{
	const GElf_Shdr *sh = sec->shdr;
	Elf_Data src = { .d_buf = sec->buf->bytes, .d_size = sec->buf->size,
			 .d_type = sec->buf->type, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_size = sh->sh_size, .d_version = EV_CURRENT };

	if (!mc_section_is_input(obj, sec) || sh->sh_type == SHT_NOBITS ||
	    sh->sh_offset > file_size || sh->sh_size > file_size - sh->sh_offset)
		return mc_fail(obj, "%s: cannot be rewritten in place",
			       sec->name);
	dst.d_buf = file + sh->sh_offset;
	if (!gelf_xlatetof(obj->elf, &dst, &src,
			   obj->ehdr.e_ident[EI_DATA]) ||
	    dst.d_size != sh->sh_size)
		return mc_fail(obj, "%s: changed size; cannot be rewritten in "
			       "place", sec->name);
	return true;
}

static bool emit_image(struct mc_object *obj, int fd)
{
	size_t size = (size_t)obj->st.st_size;
	uint8_t *file = malloc(size ? size : 1);
	bool ok = file != NULL;

	if (!ok)
		return mc_fail(obj, "out of memory");
	for (size_t done = 0; ok && done < size;) {
		ssize_t n = pread(obj->fd, file + done, size - done,
				  (off_t)done);
		if (n <= 0)
			ok = mc_fail(obj, "cannot read: %s",
				     n ? strerror(errno) : "file shrank");
		else
			done += (size_t)n;
	}
	for (size_t i = 1; ok && i < obj->n_sections; i++)
		if (obj->sections[i]->buf)
			ok = patch_section_bytes(obj, file, size,
						 obj->sections[i]);
	for (size_t done = 0; ok && done < size;) {
		ssize_t n = write(fd, file + done, size - done);
		if (n <= 0)
			ok = mc_fail(obj, "cannot write: %s", strerror(errno));
		else
			done += (size_t)n;
	}
	free(file);
	return ok;
}

static bool write_replacement(struct mc_object *obj, const char *target,
			      bool (*emit)(struct mc_object *, int))
{
	char *tmp = temp_path_beside(target);
	int fd;
	bool ok = false;

	if (!tmp)
		return mc_fail(obj, "out of memory");
	fd = mkstemp(tmp);
	if (fd < 0) {
		mc_fail(obj, "cannot create temporary file: %s", strerror(errno));
		free(tmp);
		return false;
	}
	set_pending(tmp);
	if (fchmod(fd, obj->st.st_mode & 07777) != 0) {
		mc_fail(obj, "cannot set mode: %s", strerror(errno));
	} else if (emit(obj, fd)) {
		/* Keep the owner where we are allowed to (root in a build). */
		if (fchown(fd, obj->st.st_uid, obj->st.st_gid) != 0 &&
		    errno != EPERM)
			mc_fail(obj, "cannot set owner: %s", strerror(errno));
		else
			ok = true;
	}
	if (close(fd) != 0 && ok)
		ok = mc_fail(obj, "cannot write: %s", strerror(errno));
	if (ok && rename(tmp, target) != 0)
		ok = mc_fail(obj, "cannot replace: %s", strerror(errno));
	if (!ok)
		unlink(tmp);
	set_pending(NULL);
	free(tmp);
	return ok;
}

bool mc_object_write(struct mc_object *obj)
{
	char *target;
	bool ok;

	if (!mc_number_symbols(obj))
		return false;
	if (!(target = output_path(obj->path)))
		return mc_fail(obj, "out of memory");
	int appended = append_object(obj, target);
	ok = appended >= 0 ? appended == 1
			   : write_replacement(obj, target, emit_object);
	free(target);
	return ok;
}

bool mc_object_write_in_place(struct mc_object *obj)
{
	char *target;
	bool ok;

	/* Sections are patched over their old bytes: copies, every one. */
	if (!mc_number_symbols(obj) || !mc_apply_renumbering(obj) ||
	    !mc_fold_added_names(obj))
		return false;
	if (!(target = output_path(obj->path)))
		return mc_fail(obj, "out of memory");
	ok = write_replacement(obj, target, emit_image);
	free(target);
	return ok;
}
