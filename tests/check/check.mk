# SPDX-License-Identifier: GPL-2.0-only
# check-check: the CI gate (`recordmcount --check`) against seeded
# defects on x86_64, aarch64, arm, ppc, riscv64, s390x and mips images
# and objects (programs, modules, PIEs, shared objects), and clean images
# (the demo, firmware), and hook calls through a PLT entry or call stub
# (gcc and clang, GNU ld and lld, ten architectures) or, MIPS PIC,
# through the GOT;
# tests/check/test_check.py says what each case
# proves and which tool is its oracle.
CHECKGATE_SCRATCH := $(BUILD)/tests/check
# The runtimes for the finalized PIEs and shared objects run under
# qemu-user, where the cross compiler is installed.
CHECKGATE_LIBS := $(foreach a,aarch64 arm riscv64 s390x,$(if $(shell command -v \
	$(RT_CC_$(a)) 2>/dev/null),$(BUILD)/$(a)/libmcount.a))

.PHONY: check-check
check-check: $(RECORDMCOUNT) $(LIBMCOUNT) $(CHECKGATE_LIBS)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/check.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) LIBMCOUNT_DIR=$(abspath $(BUILD)) \
		python3 tests/check/test_check.py \
		$(RECORDMCOUNT_RUN) $(CHECKGATE_SCRATCH)
