# SPDX-License-Identifier: GPL-2.0-only
# tests/trace/trace.mk - check-trace: programs recorded by libmcount's
# recorder (recorder/) and read back by mctrace (mctrace/), checked
# against oracles of their own (tests/trace/run.sh, check.py).
# (and each other architecture's library, where its compiler is: run.sh
# runs those under qemu-user)
check-trace: $(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE) \
	$(foreach a,$(RT_CROSS_ARCHES),\
		$(if $(shell command -v $(RT_CC_$(a))),$(BUILD)/$(a)/libmcount.a))
	@RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace sh tests/trace/run.sh \
		> $(BUILD)/trace.out 2>&1; status=$$?; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out; \
	[ $$status -eq 0 ] || grep -vE '^(PASS|SKIP)' $(BUILD)/trace.out | head -40; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out >> $(TEST_RESULTS)/trace.log; \
	exit $$status

.PHONY: check-trace
