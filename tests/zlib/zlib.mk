# SPDX-License-Identifier: GPL-2.0-only
# tests/zlib/zlib.mk - check-zlib: a real library traced whole (issues
# 27 and 28).  Debian's zlib source, fetched once into a cache outside
# the tree (tests/zlib/fetch.sh; ZLIB_CACHE), built by its own configure
# and Makefile through recordmcount-cc, its own `make test` run with
# every function enabled and counted against -finstrument-functions,
# then recorded whole by mctrace (tests/zlib/run.sh); the static test
# again on other backends under qemu-user.
# ZLIB_CROSS: the other backends whose static test runs under
# qemu-user too (each with its cross compiler's libmcount.a).
ZLIB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/recordmcount/src
ZLIB_CROSS ?= aarch64 arm riscv64 i386

check-zlib: $(LAUNCHER) $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO) $(MCTRACE) \
	$(foreach a,$(ZLIB_CROSS),$(if $(shell command -v $(RT_CC_$(a))),$(BUILD)/$(a)/libmcount.a))
	@mkdir -p $(TEST_RESULTS)
	@LAUNCHER=$(LAUNCHER) LIBMCOUNT=$(LIBMCOUNT) LIBMCOUNT_SO=$(LIBMCOUNT_SO) \
		MCTRACE=$(MCTRACE) CC="$(CC)" ZLIB_CACHE="$(ZLIB_CACHE)" \
		ZLIB_CROSS="$(ZLIB_CROSS)" \
		OUT=$(BUILD)/tests/zlib sh tests/zlib/run.sh \
		> $(BUILD)/zlib.out 2>&1; status=$$?; cat $(BUILD)/zlib.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/zlib.out >> $(TEST_RESULTS)/zlib.log; \
	exit $$status

.PHONY: check-zlib
