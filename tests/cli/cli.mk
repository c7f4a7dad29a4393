# SPDX-License-Identifier: GPL-2.0-only
# check-cli: bad input, untouched files, --nop, -j, options
# (tests/cli/cli.py).
CLI_SCRATCH := $(BUILD)/tests/cli

.PHONY: check-cli
check-cli: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/cli.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/cli/cli.py \
		$(RECORDMCOUNT_RUN) $(CLI_SCRATCH)
