# SPDX-License-Identifier: GPL-2.0-only
# Fuzzing with libFuzzer (clang -fsanitize=fuzzer) under ASan + UBSan.
#
#   make fuzz FUZZ_SECONDS=N   each target for N seconds on seeds made by
#                              fuzz/seeds.sh; prints executions, coverage
#                              and crashes per target, fails on a crash
#   make fuzz-smoke            the same, 15 seconds per target (CI)
#   make check-fuzz            replay fuzz/regressions/<target>/* and every
#                              seed through the targets, once each (part
#                              of `make check`)
#
# Targets: record (the record path on one object), dump (--dump of an
# object or linked image, text and JSON), check (--check, then
# --finalize, of the same), arch (the arch/ decoders and encoders on
# any bytes), trace (mctrace reading a trace file: its loader and every
# form of dump).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := record dump check arch trace
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra $(WERROR) $(FUZZ_SAN) \
	-fsanitize=fuzzer-no-link -DMC_VERSION='"$(VERSION)"'
FUZZ_LIB_SRCS := $(filter-out recordmcount/main.c,$(CLI_SRCS)) $(ELF_SRCS) \
	$(ARCH_SRCS) fuzz/common.c
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))
FUZZ_CORPUS := $(FUZZ_DIR)/corpus

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(ELF_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/%: $(FUZZ_DIR)/obj/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(ELF_LIBS)

# mctrace's reader, but its main; the flame graph's script is data, taken
# from the plain build.
FUZZ_MCT_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,\
	$(filter-out mctrace/main.c,$(MCTRACE_SRCS))) \
	$(BUILD)/obj/mctrace/flame-js.o
$(FUZZ_DIR)/trace: $(FUZZ_DIR)/obj/fuzz/trace.o $(FUZZ_MCT_OBJS) \
		$(FUZZ_LIB_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(ELF_LIBS) -lstdc++

.PRECIOUS: $(FUZZ_DIR)/obj/fuzz/%.o

$(FUZZ_DIR)/seeds.stamp: fuzz/seeds.sh $(RECORDMCOUNT) $(MCTRACE) $(LIBMCOUNT)
	@rm -rf $(FUZZ_DIR)/seeds
	@fuzz/seeds.sh $(RECORDMCOUNT) $(FUZZ_DIR)/seeds $(MCTRACE) $(LIBMCOUNT)
	@touch $@

.PHONY: fuzz fuzz-smoke fuzz-build check-fuzz
fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/seeds.stamp
	@fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15

check-fuzz: $(FUZZ_BINS) $(FUZZ_DIR)/seeds.stamp
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/fuzz.log
	@fuzz/replay.sh $(FUZZ_DIR) $(TEST_RESULTS)/fuzz.log $(FUZZ_TARGETS)

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_MCT_OBJS:.o=.d) $(patsubst %,$(FUZZ_DIR)/obj/fuzz/%.d,$(FUZZ_TARGETS))
