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

# Its lanes (tests/lanes.mk), <script>.<arch>: run.sh and args.sh on
# every backend, uftrace.sh on the host; each has the output folder it
# had when they ran one after another.
TRACE_LANES := $(foreach a,$(TRACE_CROSS),args.$(a) run.$(a)) \
	run.$(RT_HOST) args.$(RT_HOST) uftrace.$(RT_HOST)
trace_script = $(basename $*)
trace_arch = $(patsubst .%,%,$(suffix $*))
trace_cross = $(filter-out $(RT_HOST),$(trace_arch))

check-trace: $(RECORDMCOUNT) $(LIBMCOUNT) $(MCTRACE) $(BUILD)/armscan \
	$(TRACE_CROSS:%=$(BUILD)/%/libmcount.a)
	@( $(call run_lanes,trace,$(TRACE_LANES)) ) > $(BUILD)/trace.out 2>&1; \
	status=$$?; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out; \
	[ $$status -eq 0 ] || grep -vE '^(PASS|SKIP)' $(BUILD)/trace.out | head -40; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/trace.out >> $(TEST_RESULTS)/trace.log; \
	exit $$status

trace-lane.%:
	@$(lane_begin) \
	  $(if $(trace_cross),TRACE_ARCH=$(trace_arch)) \
	  ARMSCAN=$(BUILD)/armscan RECORDMCOUNT=$(RECORDMCOUNT) MCTRACE=$(MCTRACE) \
	  LIBMCOUNT=$(if $(trace_cross),$(BUILD)/$(trace_arch)/libmcount.a,$(LIBMCOUNT)) \
	  OUT=$(BUILD)/tests/trace$(patsubst %,-%,$(filter-out run,$(trace_script)))$(patsubst %,-%,$(trace_cross)) \
	  sh tests/trace/$(trace_script).sh \
	$(lane_end)

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
