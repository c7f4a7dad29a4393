# SPDX-License-Identifier: GPL-2.0-only
# tests/solib/solib.mk - the runtime across shared objects (issue 27):
# libraries linked at start-up (C and C++), one dlopened and dlclosed
# 1,000 times under calling and toggling threads, every objdump hook a
# reported site, fork and exec, two runtimes refused, a program mapped
# out of its calls' reach (thunk pages), a library with no free page in
# its calls' reach (thunks at the end of its code); valgrind natively.
#
# On every backend where the runtime runs: the host natively, then each
# of RT_CROSS_ARCHES whose compiler is installed under qemu-user (SKIP
# otherwise), with the architecture's GCC and then RT_CLANGS (clang and
# clang++ for its target, against the same GCC-built libraries, as
# check-runtime does).  The dlopen loop runs 1,000 times natively with
# GCC, SOLIB_QUICK_LOOPS times under qemu-user and in the clang runs:
# each load starts two threads, which qemu makes slow, and the clang
# runs add other compilers' code, not more of the same loop.

SOLIB_QUICK_LOOPS := 100

# solib_run <arch> <libdir> <extra variables>: run.sh with GCC, then with
# each of RT_CLANGS (no valgrind repeat)
solib_run = RT_ARCH=$(1) LIBMCOUNT=$(2)/libmcount.a \
		LIBMCOUNT_SO=$(2)/$(RT_SONAME) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/solib/$(1) $(3) \
		sh tests/solib/run.sh || status=1; \
	$(foreach c,$(RT_CLANGS),\
	if ! command -v $(c) >/dev/null; then \
		echo "SKIP: [solib $(1) $(c)] no $(c)"; \
	else RT_ARCH=$(1) RT_CLANG=$(c) LIBMCOUNT=$(2)/libmcount.a \
		LIBMCOUNT_SO=$(2)/$(RT_SONAME) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/solib/$(c)/$(1) NO_VALGRIND=1 $(3) \
		LOOPS=$(SOLIB_QUICK_LOOPS) \
		sh tests/solib/run.sh || status=1; fi;)

# Case variants (tests/runtime/arches.sh's rt_variant) run once more,
# with GCC and quick loops: ppc64le's power10 code, whose hooks call
# _mcount through ld's PC-relative stubs.
SOLIB_VARIANTS_ppc64le := p10
# solib_variants <arch> <libdir> <extra variables>
solib_variants = $(foreach v,$(SOLIB_VARIANTS_$(1)),\
	RT_ARCH=$(1) RT_VARIANT=$(v) LIBMCOUNT=$(2)/libmcount.a \
		LIBMCOUNT_SO=$(2)/$(RT_SONAME) RECORDMCOUNT=$(RECORDMCOUNT) \
		OUT=$(BUILD)/tests/solib/$(1)+$(v) NO_VALGRIND=1 $(3) \
		LOOPS=$(SOLIB_QUICK_LOOPS) sh tests/solib/run.sh || status=1;)

SOLIB_RUN_CROSS = $(foreach a,$(RT_CROSS_ARCHES),\
	if ! command -v $(RT_CC_$(a)) >/dev/null; then \
		echo "SKIP: [solib $(a)] no $(RT_CC_$(a))"; \
	elif $(MAKE) --no-print-directory $(BUILD)/$(a)/libmcount.a \
		$(BUILD)/$(a)/$(RT_SONAME) >/dev/null; then \
		$(call solib_run,$(a),$(BUILD)/$(a),\
			CC="$(RT_CC_$(a))" NO_VALGRIND=1 LOOPS=$(SOLIB_QUICK_LOOPS)) \
		$(call solib_variants,$(a),$(BUILD)/$(a),CC="$(RT_CC_$(a))") \
	else echo "FAIL: [solib $(a)] libmcount.a and $(RT_SONAME) build"; \
		status=1; fi;)

check-solib: $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO)
	@mkdir -p $(TEST_RESULTS)
	@( status=0; \
	  $(call solib_run,$(RT_HOST),$(BUILD),CC="$(CC)") \
	  $(call solib_variants,$(RT_HOST),$(BUILD),CC="$(CC)") \
	  $(SOLIB_RUN_CROSS) \
	  exit $$status ) > $(BUILD)/solib.out 2>&1; status=$$?; \
	cat $(BUILD)/solib.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/solib.out >> $(TEST_RESULTS)/solib.log; \
	exit $$status

.PHONY: check-solib
