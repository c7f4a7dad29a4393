/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arch_test.h - what the tests of arch/ share: a registry entry by name,
 * and decode_site run on an exact-size heap copy of the bytes.
 *
 * Header-only (static functions) so each test binary stays one file.
 */
#ifndef MC_TESTS_UNIT_ARCH_TEST_H
#define MC_TESTS_UNIT_ARCH_TEST_H

#include "../../arch/arch.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The registry's entry `name`; fails the test if there is none. */
static inline const struct mc_arch *arch(const char *name)
{
	const struct mc_arch *a = mc_arch_by_name(name);

	ck_assert_msg(a != NULL, "no arch %s", name);
	return a;
}

/* a->decode_site on a heap copy of `n` bytes, so ASan sees any overread. */
static inline struct mc_site decode(const struct mc_arch *a,
				    const uint8_t *p, size_t n, uint64_t addr)
{
	uint8_t *copy = malloc(n ? n : 1);
	struct mc_site s;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, p, n);
	s = mc_decode_site(a, copy, n, addr);
	free(copy);
	return s;
}

/*
 * A relocation type as <elf.h> numbers and names it: RELOC(R_ARM_CALL)
 * is { 28, "R_ARM_CALL" }.  glibc's table, not ours, is the oracle
 * assert_reloc_names() holds an architecture's name table against.
 */
struct reloc_oracle {
	uint32_t type;
	const char *name;
};
#define RELOC(x) { (x), #x }
/* <elf.h>'s number under an older name than the ABI's (and readelf's). */
#define RELOC_AS(x, abi_name) { (x), abi_name }

/* Whether mc_reloc_name() gives `a` a name for `type`; fails if not. */
static inline void assert_named(const struct mc_arch *a, uint32_t type,
				const char *what)
{
	ck_assert_msg(mc_reloc_name(a, type) != NULL,
		      "%s: %s relocation type %u would print as a number",
		      a->name, what, type);
}

/*
 * Every relocation type `a` handles (its hook calls', their companions',
 * the table's, R_*_NONE, R_*_RELATIVE) has a name, and its names are
 * exactly the `n` of `want` (<elf.h>'s numbers), no more, no fewer.
 */
static inline void assert_reloc_names(const struct mc_arch *a,
				      const struct reloc_oracle *want,
				      size_t n)
{
	for (unsigned i = 0; i < a->n_forms; i++)
		for (unsigned j = 0; j < a->forms[i].n_reloc_types; j++)
			assert_named(a, a->forms[i].reloc_types[j], "hook call");
	for (unsigned i = 0; i < a->n_companion_relocs; i++)
		assert_named(a, a->companion_relocs[i], "companion");
	assert_named(a, a->table_reloc, "table");
	assert_named(a, a->none_reloc, "none");
	assert_named(a, a->relative_reloc, "relative");
	for (size_t i = 0; i < n; i++) {
		const char *got = mc_reloc_name(a, want[i].type);

		ck_assert_msg(got && strcmp(got, want[i].name) == 0,
			      "%s: type %u is %s, <elf.h> says %s", a->name,
			      want[i].type, got ? got : "unnamed",
			      want[i].name);
	}
	ck_assert_msg(a->n_reloc_names == n,
		      "%s: %u relocation names, %zu checked against <elf.h>",
		      a->name, a->n_reloc_names, n);
}

#endif
