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

#endif
