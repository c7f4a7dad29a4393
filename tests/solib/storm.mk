# SPDX-License-Identifier: GPL-2.0-only
# tests/solib/storm.mk - check-solib-storm: the runtime suite's toggle
# storm (tests/runtime/storm.c) with its functions in a library opened
# by dlopen, under libmcount.so, natively and under ASan+UBSan
# (tests/solib/storm.sh; issue 27's "Done when"); and names asked on
# other threads while a library is opened and closed (names.c).  The
# host only.
check-solib-storm: $(RECORDMCOUNT) $(LIBMCOUNT_SO)
	@mkdir -p $(TEST_RESULTS)
	@CC="$(CC)" LIBMCOUNT_SO=$(LIBMCOUNT_SO) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/solib-storm sh tests/solib/storm.sh \
		> $(BUILD)/solib-storm.out 2>&1; status=$$?; \
	cat $(BUILD)/solib-storm.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/solib-storm.out >> $(TEST_RESULTS)/solib-storm.log; \
	exit $$status

.PHONY: check-solib-storm
