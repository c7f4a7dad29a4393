# SPDX-License-Identifier: GPL-2.0-only
# check-pads: -fpatchable-function-entry pads and -mnop-mcount NOPs on
# every architecture with a cross compiler (tests/pads/test_pads.py):
# the compiler's own tables, GCC's -mrecord-mcount, nm, objdump and ld
# against ours.
PADS_SCRATCH := $(BUILD)/tests/pads

.PHONY: check-pads
check-pads: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/pads.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/pads/test_pads.py \
		$(RECORDMCOUNT_RUN) $(PADS_SCRATCH)
