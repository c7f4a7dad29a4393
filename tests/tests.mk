# SPDX-License-Identifier: GPL-2.0-only
# Test targets.  Each suite lives in its own folder with its own
# fragment; `make check` runs them all against $(RECORDMCOUNT).
#
#   check-unit     Check unit tests of elf/ and arch/
#   check-oracle   our tables vs GCC's -mrecord-mcount, objdump, readelf
#   check-cli      bad input, idempotency, untouched-on-error, --nop, -j
#   check-runtime  compile -> record -> link -> run (runtime/)
#   check-cross    every other architecture, with cross compilers
#   check-pads     -fpatchable-function-entry pads, -mnop-mcount NOPs
#   check-firmware bare-metal images that patch themselves under QEMU
#   check-harness  the kernel harness on an empty cache, up to configuration
#   check-integrate recordmcount-cc with make, CMake, meson, ccache, distcc
#   check-check    --check, the CI gate, against seeded defects
#   check-fault    record runs whose writes fail (shim, full tmpfs, ulimit)
#   check-fuzz     fuzz/regressions/ and the seeds replayed through the fuzz targets
#   check-hosts    the tool built for s390x and i386, under qemu-user,
#                  against the native build (not in check: see hosts.mk)
#   check-link     the per-section table linked by bfd, gold, lld, mold
#   check-deps     every program the scripts call comes from a package
#                  the project installs (scripts/deps.sh)
#   check-solib    the runtime across shared objects, dlopen, fork, exec
#   check-solib-storm  the toggle storm with its functions in a dlopened
#                  library
#   check-hygiene  an SPDX line in every tracked source file, its license
#                  in debian/copyright's stanza for it; no tracked
#                  file that .gitignore ignores; subjects of <= 72 chars;
#                  no include circle, no include pointing up
#   check-build    make and make install with no dpkg-query or apt-get;
#                  the hints for a missing libelf or pkg-config; make
#                  demo installs the build group, plain make nothing
#   check-trace    programs recorded by the recorder, read by mctrace
#   check-mctrace  mctrace's messages and exit statuses on bad input
#   check-attach   mctrace record -p: attach, record, detach cycles on
#                  running processes, their text restored; refusals
#   check-zlib     Debian's zlib built through recordmcount-cc, its own
#                  tests run traced whole and recorded
#   check-deb      the Debian packages (debian/) built, checked by
#                  lintian, installed, used (not in check: minutes)

CHECK_SUITES := check-unit check-oracle check-cli check-runtime check-cross \
	check-pads check-firmware check-harness check-integrate check-check \
	check-fault check-fuzz check-link check-deps check-solib check-solib-storm \
	check-hygiene check-build check-trace check-mctrace check-attach \
	check-zlib

# The suites that run our tool itself, for the sanitizer build
# (check-runtime already builds and runs its own ASan+UBSan variants);
# check-attach runs mctrace's attach and detach (a few cycles there).
TOOL_SUITES := check-unit check-oracle check-cli check-cross check-pads \
	check-check check-attach

# Under valgrind: every tool run costs valgrind's start-up, so the suites
# with the most distinct cases and the fewest repeats.
VALGRIND_SUITES := check-cli check-oracle check-pads

# How the suites run the tool; check-valgrind puts valgrind in front.
RECORDMCOUNT_RUN ?= $(RECORDMCOUNT)
VALGRIND_WRAPPER := $(BUILD)/valgrind/recordmcount

-include tests/lanes.mk
-include tests/unit/unit.mk
-include tests/oracle/oracle.mk
-include tests/cli/cli.mk
-include tests/cross/cross.mk
-include tests/pads/pads.mk
-include tests/harness/harness.mk
-include tests/integrate/integrate.mk
-include tests/check/check.mk
-include tests/hosts/hosts.mk
-include tests/link/link.mk
-include tests/deps/deps.mk
-include tests/solib/solib.mk
-include tests/solib/storm.mk
-include tests/hygiene/hygiene.mk
-include tests/build/build.mk
-include tests/trace/trace.mk
-include tests/attach/attach.mk
-include tests/zlib/zlib.mk
-include tests/deb/deb.mk

# Every suite appends "PASS: name" / "FAIL: name: why" lines to
# $(TEST_RESULTS)/<suite>.log; summary.sh prints the totals.
TEST_RESULTS := $(BUILD)/test-results
export TEST_RESULTS

check: deps
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS)
	@$(MAKE) --no-print-directory all
	@sh tests/suites.sh "$(MAKE)" $(CHECK_SUITES); \
	status=$$?; tests/summary.sh $(TEST_RESULTS) || status=1; exit $$status

# `make SANITIZE=1 check-tool`: the tool's suites in the ASan+UBSan build.
check-tool: deps
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS)
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -k $(TOOL_SUITES); \
	status=$$?; tests/summary.sh $(TEST_RESULTS) || status=1; exit $$status

# The tool-level suites again, every run of the tool under valgrind
# (memory errors or definite leaks make it exit 99, which fails the test).
# Its dynamic link: memcheck cannot replace malloc in a static program,
# and would see no leak there.
check-valgrind: deps $(RECORDMCOUNT) $(RECORDMCOUNT_DYNAMIC)
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS) $(dir $(VALGRIND_WRAPPER))
	@printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite %s "$$@"\n' \
		"$(abspath $(RECORDMCOUNT_DYNAMIC))" > $(VALGRIND_WRAPPER)
	@chmod +x $(VALGRIND_WRAPPER)
	@$(MAKE) --no-print-directory -k $(VALGRIND_SUITES) \
		RECORDMCOUNT_RUN=$(VALGRIND_WRAPPER); \
	status=$$?; tests/summary.sh $(TEST_RESULTS) || status=1; exit $$status

.PHONY: check check-tool check-valgrind

-include tests/fault/fault.mk
