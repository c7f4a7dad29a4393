# SPDX-License-Identifier: GPL-2.0-only
# tests/solib/solib.mk - the runtime across shared objects (issue 27):
# libraries linked at start-up (C and C++), one dlopened and dlclosed
# 1,000 times under calling and toggling threads, every objdump hook a
# reported site, fork and exec, two runtimes refused; valgrind natively.
# The host only: the cross backends need a thunk page near each image
# (and riscv64, arm, ppc64le, s390x a PLT decoder) first.

check-solib: $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO)
	@mkdir -p $(TEST_RESULTS)
	@RT_ARCH=$(RT_HOST) CC="$(CC)" LIBMCOUNT=$(LIBMCOUNT) \
		LIBMCOUNT_SO=$(LIBMCOUNT_SO) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/solib sh tests/solib/run.sh \
		> $(BUILD)/solib.out 2>&1; status=$$?; cat $(BUILD)/solib.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/solib.out >> $(TEST_RESULTS)/solib.log; \
	exit $$status

.PHONY: check-solib
