/* SPDX-License-Identifier: MIT */
/*
 * arch.c - the registry of architectures and the matching logic every
 * architecture shares.  Freestanding: no libc calls.
 */
#include "arch.h"

#define MC_ARCH(entry, file) extern const struct mc_arch mc_arch_##entry;
#include "arches.def"
#undef MC_ARCH

const struct mc_arch *const mc_all_arches[] = {
#define MC_ARCH(entry, file) &mc_arch_##entry,
#include "arches.def"
#undef MC_ARCH
	NULL,
};

static bool mc_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct mc_arch *mc_arch_find(uint16_t e_machine, uint8_t elf_class,
				   enum mc_endian endian, uint32_t e_flags)
{
	for (const struct mc_arch *const *a = mc_all_arches; *a; a++)
		if ((*a)->e_machine == e_machine &&
		    (*a)->elf_class == elf_class && (*a)->endian == endian &&
		    (!(*a)->accepts_flags || (*a)->accepts_flags(*a, e_flags)))
			return *a;
	return NULL;
}

bool mc_is_companion_reloc(const struct mc_arch *arch, uint32_t type)
{
	for (unsigned i = 0; i < arch->n_companion_relocs; i++)
		if (arch->companion_relocs[i] == type)
			return true;
	return false;
}

const struct mc_arch *mc_arch_by_name(const char *name)
{
	for (const struct mc_arch *const *a = mc_all_arches; *a; a++)
		if (mc_streq((*a)->name, name))
			return *a;
	return NULL;
}

bool mc_is_hook_symbol(const struct mc_arch *arch, const char *name)
{
	for (const char *const *s = arch->hook_symbols; *s; s++)
		if (mc_streq(*s, name))
			return true;
	return false;
}

static bool form_has_type(const struct mc_object_form *f, uint32_t type)
{
	for (unsigned i = 0; i < f->n_reloc_types; i++)
		if (f->reloc_types[i] == type)
			return true;
	return false;
}

uint64_t mc_forms_of_type(const struct mc_arch *arch, uint32_t type)
{
	uint64_t set = 0;

	for (unsigned i = 0; i < arch->n_forms && i < MC_MAX_FORMS; i++)
		if (form_has_type(&arch->forms[i], type))
			set |= (uint64_t)1 << i;
	return set;
}

const struct mc_object_form *mc_match_form(const struct mc_arch *arch,
					   uint32_t type, const uint8_t *sec,
					   uint64_t sec_size, uint64_t r_offset)
{
	return mc_match_form_among(arch, mc_forms_of_type(arch, type), sec,
				   sec_size, r_offset);
}

const char *mc_pad_refusal(const struct mc_arch *arch, const uint8_t *first,
			   size_t first_avail, const uint8_t *entry,
			   size_t avail, struct mc_pad_fit *fit)
{
	const struct mc_arch *a = arch->pad_reader ?
		arch->pad_reader(first, first_avail) : arch;
	size_t at = 0;
	unsigned k;

	*fit = (struct mc_pad_fit){ a, 0 };
	if (!a)
		return "no instruction set reads the pad's first NOP";
	if (!a->pad_call_len)
		return NULL;
	at = mc_match_insn(a->entry_prefixes, a->n_entry_prefixes, entry,
			   avail);
	size_t slot = at;
	while (at < avail && (k = mc_match_insn(a->pad_nops, a->n_pad_nops,
						entry + at, avail - at)))
		at += k;
	fit->nops = at - slot;
	return mc_pad_unusable(a, entry + slot, fit->nops, &k);
}
