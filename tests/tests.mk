# Test targets.  Each suite lives in its own folder with its own
# fragment; `make check` runs them all against $(RECORDMCOUNT).
#
#   check-unit     Check unit tests of elf/ and arch/
#   check-oracle   our tables vs GCC's -mrecord-mcount, objdump, readelf
#   check-cli      bad input, idempotency, untouched-on-error, --nop, -j
#   check-runtime  compile -> record -> link -> run (runtime/)

CHECK_SUITES := check-unit check-oracle check-cli check-runtime

-include tests/unit/unit.mk
-include tests/oracle/oracle.mk
-include tests/cli/cli.mk

# Every suite appends "PASS: name" / "FAIL: name: why" lines to
# $(TEST_RESULTS)/<suite>.log; summary.sh prints the totals.
TEST_RESULTS := $(BUILD)/test-results
export TEST_RESULTS

check: deps
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS)
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -k $(CHECK_SUITES); \
	status=$$?; tests/summary.sh $(TEST_RESULTS) || status=1; exit $$status
