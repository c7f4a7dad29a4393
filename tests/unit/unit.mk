# SPDX-License-Identifier: GPL-2.0-only
# Unit tests of arch/ and elf/ with the Check framework, and agree.sh:
# what is written in several languages agrees with its one source.
#
#   make check-unit            build $(BUILD)/tests/unit/test_*, run them
#   make SANITIZE=1 check-unit the same under ASan+UBSan (build/asan)
#
# Each binary links the project's own arch/ and elf/ objects (the same
# $(BUILD)/obj files the CLI uses, so SANITIZE=1 covers them too).
# Check writes a TAP log (CK_TAP_LOG_FILE_NAME); tap2log.awk turns it
# into the "PASS: suite/test" / "FAIL: suite/test: why" lines of
# $(TEST_RESULTS)/unit.log.  Objects the tests compile at run time go
# to $(UNIT_DIR)/tmp.

UNIT_DIR := $(BUILD)/tests/unit
# A test_arch_<file>.c for every file of arch/arches.def.
# The object model's tests, by subject; they share elf_test.c.
ELF_UNIT_TESTS := read edit symbols renumber write errors
UNIT_TESTS := $(ELF_UNIT_TESTS:%=elf_%) $(ARCH_FILES:%=arch_%)
UNIT_BINS := $(UNIT_TESTS:%=$(UNIT_DIR)/test_%)
UNIT_OBJS := $(UNIT_BINS:=.o)
UNIT_LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(ARCH_SRCS) $(ELF_SRCS))
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(or $(shell $(PKG_CONFIG) --libs check 2>/dev/null),-lcheck)

.PHONY: check-unit

$(UNIT_OBJS): $(UNIT_DIR)/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

$(UNIT_BINS): $(UNIT_DIR)/%: $(UNIT_DIR)/%.o $(UNIT_LIB_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(CHECK_LIBS) $(ELF_LIBS)

UNIT_ELF_TEST_OBJ := $(UNIT_DIR)/elf_test.o
$(UNIT_ELF_TEST_OBJ): tests/unit/elf_test.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<
$(ELF_UNIT_TESTS:%=$(UNIT_DIR)/test_elf_%): $(UNIT_ELF_TEST_OBJ)

check-unit: $(UNIT_BINS)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/unit.log
	@rm -rf $(UNIT_DIR)/tmp && mkdir -p $(UNIT_DIR)/tmp
	@status=0; \
	for t in $(UNIT_TESTS); do \
		tap=$(UNIT_DIR)/test_$$t.tap; rm -f $$tap; \
		CK_TAP_LOG_FILE_NAME=$$tap UNIT_TMPDIR=$(UNIT_DIR)/tmp \
			$(UNIT_DIR)/test_$$t; rc=$$?; \
		touch $$tap; \
		awk -v suite=$$t -v rc=$$rc -f tests/unit/tap2log.awk $$tap \
			>>$(TEST_RESULTS)/unit.log || status=1; \
		[ $$rc -eq 0 ] || status=1; \
	done; \
	sh tests/unit/agree.sh >>$(TEST_RESULTS)/unit.log || status=1; \
	exit $$status

-include $(UNIT_OBJS:.o=.d) $(UNIT_ELF_TEST_OBJ:.o=.d)
