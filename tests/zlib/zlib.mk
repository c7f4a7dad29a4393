# SPDX-License-Identifier: GPL-2.0-only
# tests/zlib/zlib.mk - check-zlib: a real library traced whole (issues
# 27 and 28).  Debian's zlib source, fetched once into a cache outside
# the tree (tests/zlib/fetch.sh; ZLIB_CACHE), built by its own configure
# and Makefile through recordmcount-cc, its own `make test` run with
# every function enabled and counted against -finstrument-functions,
# then recorded whole by mctrace (tests/zlib/run.sh).  The host only.
ZLIB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/recordmcount/src

check-zlib: $(LAUNCHER) $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO) $(MCTRACE)
	@mkdir -p $(TEST_RESULTS)
	@LAUNCHER=$(LAUNCHER) LIBMCOUNT=$(LIBMCOUNT) LIBMCOUNT_SO=$(LIBMCOUNT_SO) \
		MCTRACE=$(MCTRACE) CC="$(CC)" ZLIB_CACHE="$(ZLIB_CACHE)" \
		OUT=$(BUILD)/tests/zlib sh tests/zlib/run.sh \
		> $(BUILD)/zlib.out 2>&1; status=$$?; cat $(BUILD)/zlib.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/zlib.out >> $(TEST_RESULTS)/zlib.log; \
	exit $$status

.PHONY: check-zlib
