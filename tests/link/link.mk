# SPDX-License-Identifier: GPL-2.0-only
# check-link: the per-section table (recordmcount --per-section) linked
# with no linker script by GNU ld, gold, lld and mold, PIE, no-PIE and
# static, with and without --gc-sections, a C program and googletest,
# by gcc and clang; tests/link/test_link.py says what each case proves.
LINK_SCRATCH := $(BUILD)/tests/link

.PHONY: check-link
check-link: $(RECORDMCOUNT) $(LIBMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/link.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) LIBMCOUNT=$(abspath $(LIBMCOUNT)) \
		python3 tests/link/test_link.py $(RECORDMCOUNT_RUN) $(LINK_SCRATCH)
