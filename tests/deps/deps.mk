# SPDX-License-Identifier: GPL-2.0-only
# check-deps: every program the project's scripts, Makefiles and Python
# suites call comes from a package the project installs, or from one
# every Debian system has (tests/deps/commands.py prints the table).
.PHONY: check-deps
check-deps:
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/deps.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/deps/commands.py
