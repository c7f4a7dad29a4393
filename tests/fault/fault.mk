# SPDX-License-Identifier: GPL-2.0-only
# check-fault: every write, truncate, close and rename of a record run
# failing in turn (an LD_PRELOAD shim), a full tmpfs, ulimit -f
# (tests/fault/fault.py).
FAULT_SCRATCH := $(BUILD)/tests/fault
FAULT_SHIM := $(FAULT_SCRATCH)/libfault.so
# The shim reaches write and rename through the dynamic loader, which a
# static build/recordmcount does not have: the same objects, linked
# dynamically (the Makefile's RECORDMCOUNT_DYNAMIC).
FAULT_TOOL := $(RECORDMCOUNT_DYNAMIC)

$(FAULT_SHIM): tests/fault/fault.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -Wall -Wextra $(WERROR) -o $@ $< -ldl

.PHONY: check-fault
check-fault: $(FAULT_TOOL) $(FAULT_SHIM)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/fault.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/fault/fault.py \
		$(FAULT_TOOL) $(FAULT_SCRATCH)/run $(FAULT_SHIM)
