# SPDX-License-Identifier: GPL-2.0-only
# check-integrate: the launcher, make, CMake (C and C++), meson, ccache,
# distcc, icecream, pkg-config and the CMake package on a three-file program
# (tests/integrate/run.sh).
.PHONY: check-integrate
check-integrate: $(RECORDMCOUNT) $(LIBMCOUNT) $(LAUNCHER)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/integrate.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/integrate/run.sh $(BUILD)
