# SPDX-License-Identifier: GPL-2.0-only
# Lanes: a suite's independent runs (one per backend, compiler or
# script, each with its own output folder) side by side, CHECK_JOBS at a
# time.  Most runs keep one core busy (a compiler, then qemu-user, one
# after another), so on CI's two cores two lanes come near halving the
# suite's wall time.  Each lane's output goes to a file of its own and
# the suite prints them in a fixed order (tests/lanes.sh): a log reads
# as it did when the runs went one after another.
#
# A suite <s> with lanes names them in <S>_LANES and has a pattern rule
# <s>-lane.%, whose recipe is
#	@$(lane_begin) COMMAND $(lane_end)
# and runs them with $(call run_lanes,<s>,<lanes>).  Lanes list their
# longest first: make starts goals in the order given.  Every lane's
# wall time lands in $(TEST_RESULTS)/lane-times.
LANES := $(BUILD)/lanes
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

lane_suite = $(firstword $(subst -lane., ,$@))
lane_name = $(patsubst $(lane_suite)-lane.%,%,$@)
lane_begin = mkdir -p $(LANES)/$(lane_suite) && s=$$(date +%s); (
lane_end = ) > $(LANES)/$(lane_suite)/$(lane_name).out 2>&1; \
	echo $$? > $(LANES)/$(lane_suite)/$(lane_name).status; \
	mkdir -p $(TEST_RESULTS); \
	echo "$(lane_suite) $(lane_name) $$(( $$(date +%s) - s ))" >> $(TEST_RESULTS)/lane-times

# run_lanes <suite> <lanes>: a shell command list; its exit status is
# the lanes' (tests/lanes.sh), its output their outputs in order.
run_lanes = rm -rf $(LANES)/$(1) && mkdir -p $(LANES)/$(1) && \
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(2:%=$(1)-lane.%); \
	sh tests/lanes.sh $(LANES)/$(1) $(2)
