/* SPDX-License-Identifier: MIT */
/*
 * elffile.c - what the runtime reads from one loaded object's file:
 * its section headers (where a table is, where a PLT is) and its
 * dynamic relocations (which PLT entries lead to the hook stubs).
 * Read-only and simple: pread of what is needed, no mapping.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux.h"

void *mc_host_read_at(int fd, off_t off, size_t n)
{
	char *buf = malloc(n ? n : 1);

	if (buf && pread(fd, buf, n, off) != (ssize_t)n) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool header_ok(const ElfW(Ehdr) *eh)
{
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ?
					 ELFCLASS64 : ELFCLASS32) &&
	       eh->e_shentsize == sizeof(ElfW(Shdr)) && eh->e_shnum > 0;
}

bool mc_host_read_shdrs(int fd, struct shdrs *h)
{
	h->sh = NULL;
	h->names = NULL;
	if (pread(fd, &h->eh, sizeof(h->eh), 0) != sizeof(h->eh) ||
	    !header_ok(&h->eh) || h->eh.e_shstrndx == SHN_UNDEF ||
	    h->eh.e_shstrndx >= h->eh.e_shnum)
		return false;
	h->sh = mc_host_read_at(fd, (off_t)h->eh.e_shoff,
			h->eh.e_shnum * sizeof(*h->sh));
	if (!h->sh)
		return false;
	h->names_size = h->sh[h->eh.e_shstrndx].sh_size;
	h->names = mc_host_read_at(fd, (off_t)h->sh[h->eh.e_shstrndx].sh_offset,
			   h->names_size);
	if (!h->names) {
		free(h->sh);
		h->sh = NULL;
		return false;
	}
	return true;
}

void mc_host_free_shdrs(struct shdrs *h)
{
	free(h->names);
	free(h->sh);
}

static bool shdr_named(const struct shdrs *h, size_t i, const char *name)
{
	size_t at = h->sh[i].sh_name, len = strlen(name);

	return at < h->names_size && h->names_size - at > len &&
	       memcmp(h->names + at, name, len + 1) == 0;
}

/*
 * The non-empty allocated section called `name`: its address and size
 * as the file says (before the load bias).  1 if there is one, 0 if
 * none, 2 if there are several (mold makes one output section per name
 * and set of flags).
 */
static int section_in(const struct shdrs *h, const char *name,
		      uintptr_t *addr, size_t *size)
{
	int found = 0;

	for (size_t i = 0; i < h->eh.e_shnum; i++) {
		if (!(h->sh[i].sh_flags & SHF_ALLOC) || !h->sh[i].sh_size ||
		    !shdr_named(h, i, name))
			continue;
		*addr = (uintptr_t)h->sh[i].sh_addr;
		*size = (size_t)h->sh[i].sh_size;
		if (++found == 2)
			break;
	}
	return found;
}

int mc_host_section(const struct host_obj *obj, const char *name,
		    uintptr_t *addr, size_t *size)
{
	int fd = open(obj->file, O_RDONLY | O_CLOEXEC);
	struct shdrs h;
	int found = -1;

	if (fd < 0)
		return -1;
	if (mc_host_read_shdrs(fd, &h)) {
		found = section_in(&h, name, addr, size);
		mc_host_free_shdrs(&h);
	}
	close(fd);
	if (found == 1)
		*addr += obj->bias;
	return found;
}

/* ---- PLT entries of the hook stubs --------------------------------------- */

#define STUB_STR_(x) #x
#define STUB_STR(x) STUB_STR_(x)

/* The style a hook calling the symbol `name` has, or -1. */
static int stub_style(const char *name)
{
#ifdef MC_RT_FENTRY_STUB
	if (strcmp(name, STUB_STR(MC_RT_FENTRY_STUB)) == 0)
		return MCOUNT_STYLE_FENTRY;
#endif
#ifdef MC_RT_MCOUNT_STUB
	if (strcmp(name, STUB_STR(MC_RT_MCOUNT_STUB)) == 0)
		return MCOUNT_STYLE_MCOUNT;
#endif
	(void)name;
	return -1;
}

/* The run-time addresses of `obj`'s GOT slots bound to a hook stub. */
struct stub_slots {
	uintptr_t slot[MC_RT_IMAGE_STUBS];
	uint8_t style[MC_RT_IMAGE_STUBS];
	unsigned n;
};

/*
 * Where the relative relocations the loader applies without a look at
 * their symbol are: the first `count` entries of the REL or RELA table
 * at `addr` (its DT_RELCOUNT or DT_RELACOUNT).  A linker that sorts
 * relocations (ld's -z combreloc, the default; lld, mold) puts them
 * there and says how many, and the loader trusts that count as we do.
 * In a PIE the table's own entries are such relocations, one a site,
 * so they are skipped rather than read.
 */
struct relatives {
	uintptr_t addr;
	size_t count;
};

/* From the file's SHT_DYNAMIC section: its d_ptr values as linked. */
static struct relatives relatives_of(int fd, const struct shdrs *h)
{
	struct relatives r = { 0, 0 };

	for (size_t i = 0; i < h->eh.e_shnum; i++) {
		const ElfW(Shdr) *ds = &h->sh[i];
		size_t n = ds->sh_size / sizeof(ElfW(Dyn));
		ElfW(Dyn) *dyn;

		if (ds->sh_type != SHT_DYNAMIC ||
		    ds->sh_entsize != sizeof(ElfW(Dyn)))
			continue;
		dyn = mc_host_read_at(fd, (off_t)ds->sh_offset,
				      n * sizeof(*dyn));
		for (size_t k = 0; dyn && k < n && dyn[k].d_tag != DT_NULL; k++) {
			if (dyn[k].d_tag == DT_RELA || dyn[k].d_tag == DT_REL)
				r.addr = (uintptr_t)dyn[k].d_un.d_ptr;
			else if (dyn[k].d_tag == DT_RELACOUNT ||
				 dyn[k].d_tag == DT_RELCOUNT)
				r.count = (size_t)dyn[k].d_un.d_val;
		}
		free(dyn);
		break;
	}
	return r;
}

/* Relocations read a buffer at a time, so that a big table costs no copy. */
#define RELOC_CHUNK (64 * 1024)

/*
 * One relocation, which names dynamic symbol `si`: if that is a hook
 * stub, its slot goes to `out`.
 */
static void note_slot(const ElfW(Rel) *r, const ElfW(Sym) *syms, size_t nsyms,
		      const char *names, size_t names_size,
		      const struct host_obj *obj, struct stub_slots *out)
{
#if UINTPTR_MAX > 0xffffffffu
	size_t si = ELF64_R_SYM(r->r_info);
#else
	size_t si = ELF32_R_SYM(r->r_info);
#endif
	int style;

	if (!si || si >= nsyms || syms[si].st_name >= names_size)
		return;
	style = stub_style(names + syms[si].st_name);
	if (style < 0 || out->n == MC_RT_IMAGE_STUBS)
		return;
	out->slot[out->n] = obj->bias + (uintptr_t)r->r_offset;
	out->style[out->n++] = (uint8_t)style;
}

/*
 * Relocations of section `i` (REL or RELA, against the dynamic
 * symbols), past the relative ones `rel` says lead it.
 */
static void slots_in(int fd, const struct shdrs *h, size_t i,
		     const struct relatives *rel, const struct host_obj *obj,
		     struct stub_slots *out)
{
	const ElfW(Shdr) *rs = &h->sh[i], *sym, *str;
	size_t ent = rs->sh_type == SHT_RELA ? sizeof(ElfW(Rela)) :
		     sizeof(ElfW(Rel));
	size_t n = rs->sh_size / ent, k = 0, nsyms;
	char *buf = NULL, *names = NULL;
	ElfW(Sym) *syms = NULL;

	if (rs->sh_entsize != ent || rs->sh_link >= h->eh.e_shnum)
		return;
	sym = &h->sh[rs->sh_link];
	if (sym->sh_type != SHT_DYNSYM || sym->sh_link >= h->eh.e_shnum)
		return;
	str = &h->sh[sym->sh_link];
	if (rel->count && (uintptr_t)rs->sh_addr == rel->addr)
		k = rel->count < n ? rel->count : n;
	if (k == n)
		return;
	buf = malloc(RELOC_CHUNK);
	syms = mc_host_read_at(fd, (off_t)sym->sh_offset, sym->sh_size);
	names = mc_host_read_at(fd, (off_t)str->sh_offset, str->sh_size + 1);
	nsyms = sym->sh_size / sizeof(ElfW(Sym));
	if (names)
		names[str->sh_size] = '\0';
	while (buf && syms && names && k < n) {
		size_t m = n - k < RELOC_CHUNK / ent ? n - k : RELOC_CHUNK / ent;

		if (pread(fd, buf, m * ent, (off_t)(rs->sh_offset + k * ent)) !=
		    (ssize_t)(m * ent))
			break;
		/* r_offset and r_info lead both Rel and Rela */
		for (size_t j = 0; j < m; j++)
			note_slot((const ElfW(Rel) *)(buf + j * ent), syms,
				  nsyms, names, str->sh_size, obj, out);
		k += m;
	}
	free(names);
	free(syms);
	free(buf);
}

#ifdef MC_RT_PLT_ARCH
static void add_stub(struct mc_rt_image_desc *d, uintptr_t a, uint8_t style)
{
	if (d->nstubs == MC_RT_IMAGE_STUBS)
		return;
	d->stub[d->nstubs] = a;
	d->stub_style[d->nstubs++] = style;
}

/* Entries of the PLT section `i` that jump through one of `slots`. */
static void plt_entries(const struct shdrs *h, size_t i,
			const struct host_obj *obj,
			const struct stub_slots *slots,
			struct mc_rt_image_desc *d)
{
	const struct mc_arch *arch = MC_RT_ARCH;
	uintptr_t lo = obj->bias + h->sh[i].sh_addr;
	uintptr_t hi = lo + h->sh[i].sh_size;

	/* the decoder reads no further than the section's end */
	for (uintptr_t a = lo; a < hi; a += arch->plt_step) {
		uintptr_t slot = (uintptr_t)mc_plt_slot(
			arch, (const uint8_t *)a, hi - a, a, d->got);

		for (unsigned k = 0; slot && k < slots->n; k++) {
			if (slot != slots->slot[k])
				continue;
			add_stub(d, a, slots->style[k]);
#ifdef MC_RT_PLT_ALIAS
			/* another way into the same entry (ARM's Thumb stub) */
			if (a >= lo + 4 &&
			    mc_plt_slot(arch, (const uint8_t *)a - 4, hi - a + 4,
					(a - 4) | 1, d->got) == slot)
				add_stub(d, (a - 4) | 1, slots->style[k]);
#endif
		}
	}
}

#endif

/*
 * The GOT slots of `obj` bound by name to a hook stub, and (backends
 * with MC_RT_PLT_ARCH) its PLT entries that jump through them.
 */
void mc_host_plt_stubs(const struct host_obj *obj, struct mc_rt_image_desc *d)
{
	int fd = open(obj->file, O_RDONLY | O_CLOEXEC);
	struct stub_slots slots = { .n = 0 };
	struct relatives rel;
	struct shdrs h;

	if (fd < 0)
		return;
	if (!mc_host_read_shdrs(fd, &h)) {
		close(fd);
		return;
	}
	rel = relatives_of(fd, &h);
	for (size_t i = 0; i < h.eh.e_shnum; i++)
		if (h.sh[i].sh_type == SHT_RELA || h.sh[i].sh_type == SHT_REL)
			slots_in(fd, &h, i, &rel, obj, &slots);
	for (unsigned k = 0; k < slots.n && d->nstubs < MC_RT_IMAGE_STUBS; k++) {
		d->stub[d->nstubs] = slots.slot[k];
		d->stub_style[d->nstubs++] = slots.style[k];
	}
#ifdef MC_RT_PLT_ARCH
	for (size_t i = 0; slots.n && i < h.eh.e_shnum; i++)
		if ((h.sh[i].sh_flags & SHF_EXECINSTR) &&
		    (shdr_named(&h, i, ".plt") || shdr_named(&h, i, ".plt.sec")))
			plt_entries(&h, i, obj, &slots, d);
#endif
	mc_host_free_shdrs(&h);
	close(fd);
}
