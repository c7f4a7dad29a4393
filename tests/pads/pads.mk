# SPDX-License-Identifier: GPL-2.0-only
# check-pads: -fpatchable-function-entry pads and -mnop-mcount NOPs on
# every architecture with a cross compiler (tests/pads/test_pads.py):
# the compiler's own tables, GCC's -mrecord-mcount, nm, objdump and ld
# against ours; and the runtime library of each architecture
# (runtime/runtime.mk's, those whose compiler is installed) run on the
# same pads.
PADS_SCRATCH := $(BUILD)/tests/pads
PADS_RT_LIBS := $(LIBMCOUNT) $(foreach a,$(RT_CROSS_ARCHES),$(if \
	$(shell command -v $(RT_CC_$(a))),$(BUILD)/$(a)/libmcount.a))

.PHONY: check-pads
check-pads: $(RECORDMCOUNT) $(PADS_RT_LIBS)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/pads.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) \
		PADS_LIBDIR=$(abspath $(BUILD)) python3 tests/pads/test_pads.py \
		$(RECORDMCOUNT_RUN) $(PADS_SCRATCH)
