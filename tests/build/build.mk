# SPDX-License-Identifier: GPL-2.0-only
# check-build: make and make install with no dpkg-query or apt-get on
# PATH, the one-line hints for a missing libelf or pkg-config, and the
# test targets' package step on a system without dpkg
# (tests/build/nodpkg.sh); make demo asking for the build group, plain
# make for nothing (tests/build/demo.sh).
.PHONY: check-build
check-build:
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/build.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/build/nodpkg.sh $(BUILD)
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/build/demo.sh $(BUILD)
