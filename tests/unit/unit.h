/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h - the main() every unit test binary shares.
 *
 * Check prints its own summary; the per-test PASS/FAIL lines for
 * $(TEST_RESULTS)/unit.log come from the TAP log that unit.mk asks for
 * through CK_TAP_LOG_FILE_NAME.
 */
#ifndef MC_TESTS_UNIT_H
#define MC_TESTS_UNIT_H

#include <check.h>
#include <stdlib.h>

static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
