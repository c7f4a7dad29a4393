# SPDX-License-Identifier: GPL-2.0-only
# check-cross: every architecture but x86, with Debian's cross compilers:
# our tables against the hook calls objdump -dr shows (and GCC's own
# -mrecord-mcount where it exists), --nop, cross links.  One script per
# family of architectures, tests/cross/test_*.py, each run as
#   python3 tests/cross/test_X.py RECORDMCOUNT SCRATCH-DIR
# and appending PASS/FAIL lines to $(TEST_RESULTS)/cross-X.log.
CROSS_SCRATCH := $(BUILD)/tests/cross
CROSS_TESTS := $(sort $(wildcard tests/cross/test_*.py))

# One lane (tests/lanes.mk) per script.
CROSS_LANES := $(patsubst tests/cross/test_%.py,%,$(CROSS_TESTS))

.PHONY: check-cross
check-cross: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS)
	@$(call run_lanes,cross,$(CROSS_LANES))

cross-lane.%:
	@rm -f $(TEST_RESULTS)/cross-$*.log
	@$(lane_begin) TEST_RESULTS=$(abspath $(TEST_RESULTS)) \
		python3 tests/cross/test_$*.py $(RECORDMCOUNT_RUN) \
		$(CROSS_SCRATCH)/$* $(lane_end)
