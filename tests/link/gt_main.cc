/* SPDX-License-Identifier: GPL-2.0-only */
// gt_main.cc - compiled without hooks: prints what the runtime's boot
// did with the table, then runs the tests.
#include <gtest/gtest.h>
#include <mcount.h>

#include <cstdio>

int main(int argc, char **argv)
{
	struct mcount_counts c;
	int changed = mcount_verify();

	mcount_get_counts(&c);
	std::printf("sites %zu patched %zu nops %zu refused %zu verify %d\n",
		    c.sites, c.patched, c.nops, c.refused, changed);
	testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}
