# SPDX-License-Identifier: GPL-2.0-only
# check-harness: the kernel test harness (kernel/) on an empty cache,
# stopped once the kernel is configured (tests/harness/run.sh).  About
# a minute: most of it is extracting linux-source-6.12
# (KERNEL_SERIES=6.1: 6.1's).  Also kernel/sortagree.py on made-up
# tables (tests/harness/sortagree.sh): how it takes the two known flaws of
# 6.12's sorttable, and that it fails on any other difference.
.PHONY: check-harness
check-harness: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/harness.log
	@status=0; TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/harness/sortagree.sh || status=1; \
		TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/harness/run.sh $(RECORDMCOUNT) || status=1; \
		exit $$status
