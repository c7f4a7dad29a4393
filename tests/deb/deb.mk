# SPDX-License-Identifier: GPL-2.0-only
# check-deb: the Debian packages built from a clean clone of HEAD,
# checked by lintian, installed in a throwaway root and used there to
# build and trace the README's userspace example (tests/deb/run.sh).
# Not in make check: a package build takes minutes.  Root only.
.PHONY: check-deb
check-deb:
	@mkdir -p $(TEST_RESULTS)
	@TEST_RESULTS=$(abspath $(TEST_RESULTS)) tests/deb/run.sh
