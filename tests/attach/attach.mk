# SPDX-License-Identifier: GPL-2.0-only
# tests/attach/attach.mk - check-attach: mctrace record -p against
# running processes (tests/attach/attach.sh): attach, record, detach
# cycles on a target built with pads alone (libmcount.so loaded into it)
# and one linked with libmcount.a, each window's counts against the
# program's structure, the text byte for byte, the refusals.  x86_64
# only; SKIP where ptrace is forbidden.

ATTACH_CYCLES := 20

check-attach: $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO) $(MCTRACE)
	@RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) \
		MCTRACE=$(MCTRACE) OUT=$(BUILD)/tests/attach \
		CYCLES=$(ATTACH_CYCLES) \
		sh tests/attach/attach.sh > $(BUILD)/attach.out 2>&1; \
	status=$$?; cat $(BUILD)/attach.out; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/attach.out >> $(TEST_RESULTS)/attach.log; \
	exit $$status

.PHONY: check-attach
