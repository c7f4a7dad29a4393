# SPDX-License-Identifier: GPL-2.0-only
# check-hygiene: an SPDX line in every tracked source file, and the
# same license in debian/copyright (tests/deb/copyright.py); no tracked
# file that .gitignore ignores, commit subjects of at most 72
# characters, and include arrows with no circle and none pointing up
# between folders (tests/hygiene/hygiene.sh, includes.py).
.PHONY: check-hygiene
check-hygiene:
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/hygiene.log
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/hygiene/hygiene.sh
