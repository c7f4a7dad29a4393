# check-check: the CI gate (`recordmcount --check`) against seeded
# defects on x86_64, aarch64 and arm images and objects, and clean
# images (the demo, firmware); tests/check/test_check.py says what each
# case proves and which tool is its oracle.
CHECKGATE_SCRATCH := $(BUILD)/tests/check

.PHONY: check-check
check-check: $(RECORDMCOUNT) $(LIBMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/check.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/check/test_check.py \
		$(RECORDMCOUNT_RUN) $(CHECKGATE_SCRATCH)
