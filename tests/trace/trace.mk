# SPDX-License-Identifier: GPL-2.0-only
# tests/trace/trace.mk - check-trace: programs recorded by libmcount's
# recorder (recorder/) and read back by mctrace (mctrace/), checked
# against oracles of their own (tests/trace/run.sh, check.py), and
# mctrace's analyses against uftrace's (uftrace.sh, ufcheck.py).
#
# The host, then every other backend whose compiler is installed, with
# its library (under qemu-user where it does not run natively).
TRACE_CROSS := $(foreach a,$(RT_CROSS_ARCHES),\
	$(if $(shell command -v $(RT_CC_$(a))),$(a)))

check-trace: $(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE) $(BUILD)/armscan \
	$(TRACE_CROSS:%=$(BUILD)/%/libmcount.a)
	@( status=0; export ARMSCAN=$(BUILD)/armscan; \
	  RECORDMCOUNT=$(RECORDMCOUNT) \
		LIBMCOUNT=$(LIBMCOUNT) MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace sh tests/trace/run.sh || status=1; \
	  RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace-uftrace sh tests/trace/uftrace.sh || \
		status=1; \
	  RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace-args sh tests/trace/args.sh || \
		status=1; \
	  $(foreach a,$(TRACE_CROSS),\
		TRACE_ARCH=$(a) RECORDMCOUNT=$(RECORDMCOUNT) \
		LIBMCOUNT=$(BUILD)/$(a)/libmcount.a MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace-$(a) sh tests/trace/run.sh || status=1; \
		TRACE_ARCH=$(a) RECORDMCOUNT=$(RECORDMCOUNT) \
		LIBMCOUNT=$(BUILD)/$(a)/libmcount.a MCTRACE=$(MCTRACE) \
		OUT=$(BUILD)/tests/trace-args-$(a) sh tests/trace/args.sh || \
		status=1;) \
	  exit $$status ) > $(BUILD)/trace.out 2>&1; status=$$?; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out; \
	[ $$status -eq 0 ] || grep -vE '^(PASS|SKIP)' $(BUILD)/trace.out | head -40; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out >> $(TEST_RESULTS)/trace.log; \
	exit $$status

.PHONY: check-trace

# armscan: the arm prologue reader's verdict on every -pg function of
# some ARM objects (a survey tool: armscan.c says how to read it)
$(BUILD)/armscan: tests/trace/armscan.c $(BUILD)/obj/arch/arm.o
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) -o $@ $^ $(ELF_LIBS)

# check-mctrace: mctrace's messages and exit statuses, on the host only
check-mctrace: $(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE)
	@RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) \
		MCTRACE=$(MCTRACE) OUT=$(BUILD)/tests/mctrace \
		sh tests/trace/mctrace.sh > $(BUILD)/mctrace.out 2>&1; \
	status=$$?; cat $(BUILD)/mctrace.out; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/mctrace.out >> $(TEST_RESULTS)/mctrace.log; \
	exit $$status

.PHONY: check-mctrace
