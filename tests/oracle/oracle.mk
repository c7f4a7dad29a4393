# SPDX-License-Identifier: GPL-2.0-only
# check-oracle: our __mcount_loc against GCC's -mrecord-mcount table,
# readelf, objdump, ld -r and linked programs (tests/oracle/oracle.py).
ORACLE_SCRATCH := $(BUILD)/tests/oracle

.PHONY: check-oracle
check-oracle: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/oracle.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/oracle/oracle.py \
		$(RECORDMCOUNT_RUN) $(ORACLE_SCRATCH)
