# SPDX-License-Identifier: GPL-2.0-only
# check-hosts: the tool and its unit tests built for other hosts, a
# big-endian 64-bit one (s390x) and a 32-bit one (i386), run under
# qemu-user, and their results held to the native build's byte for byte
# (tests/hosts/hosts.py has the corpus and the modes).
#
#   make check-hosts      fetch the libraries (once), build, compare
#
# The hosts' libelf, zlib and Check are Debian's own for that
# architecture, unpacked by tests/hosts/sysroot.sh into
# $(HOSTS_CACHE)/ARCH/sysroot (outside the tree, kept between runs), and
# linked statically, so qemu needs no target root to run them.  A host
# whose libraries cannot be fetched (no network, not root) is a SKIP
# line; a host build that does not compile or link is a FAIL.

HOSTS := s390x i386
HOSTS_DIR := $(BUILD)/hosts
HOSTS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/recordmcount/hosts
HOSTS_SCRATCH := $(BUILD)/tests/hosts

# Per host: its compiler, Debian's library directory, its qemu-user.
HOST_CC_s390x := s390x-linux-gnu-gcc
HOST_LIBDIR_s390x := s390x-linux-gnu
HOST_QEMU_s390x := qemu-s390x
HOST_CC_i386 := i686-linux-gnu-gcc
HOST_LIBDIR_i386 := i386-linux-gnu
HOST_QEMU_i386 := qemu-i386

host_sysroot = $(HOSTS_CACHE)/$(1)/sysroot
# No sanitizer flags: the hosts' builds are plain whatever SANITIZE says.
host_cflags = -std=c11 $(WARN) $(CFLAGS) -MMD -MP -DMC_VERSION='"$(VERSION)"' \
	-isystem $(call host_sysroot,$(1))/usr/include
host_libdir = $(call host_sysroot,$(1))/usr/lib/$(HOST_LIBDIR_$(1))
host_tool_objs = $(patsubst %.c,$(HOSTS_DIR)/$(1)/obj/%.o,$(CLI_SRCS) $(ELF_SRCS) $(ARCH_SRCS))
host_lib_objs = $(patsubst %.c,$(HOSTS_DIR)/$(1)/obj/%.o,$(ELF_SRCS) $(ARCH_SRCS))

define host_rules
$(call host_sysroot,$(1))/.complete:
	tests/hosts/sysroot.sh $(1) $(HOSTS_CACHE)/$(1)

$(HOSTS_DIR)/$(1)/obj/%.o: %.c | $(call host_sysroot,$(1))/.complete
	@mkdir -p $$(dir $$@)
	$(HOST_CC_$(1)) $(call host_cflags,$(1)) -c -o $$@ $$<

$(HOSTS_DIR)/$(1)/recordmcount: $(call host_tool_objs,$(1))
	$(HOST_CC_$(1)) $(CFLAGS) -static -o $$@ $$^ \
		-L$(call host_libdir,$(1)) -lelf -lz

$(HOSTS_DIR)/$(1)/unit/test_%.o: tests/unit/test_%.c | $(call host_sysroot,$(1))/.complete
	@mkdir -p $$(dir $$@)
	$(HOST_CC_$(1)) $(call host_cflags,$(1)) -pthread -c -o $$@ $$<

$(HOSTS_DIR)/$(1)/unit/test_%: $(HOSTS_DIR)/$(1)/unit/test_%.o $(call host_lib_objs,$(1))
	$(HOST_CC_$(1)) $(CFLAGS) -static -pthread -o $$@ $$^ \
		-L$(call host_libdir,$(1)) -lcheck -lsubunit -lelf -lz -lm -lrt

# The object model's tests share elf_test.c (tests/unit/unit.mk).
$(HOSTS_DIR)/$(1)/unit/elf_test.o: tests/unit/elf_test.c | $(call host_sysroot,$(1))/.complete
	@mkdir -p $$(dir $$@)
	$(HOST_CC_$(1)) $(call host_cflags,$(1)) -pthread -c -o $$@ $$<
$(ELF_UNIT_TESTS:%=$(HOSTS_DIR)/$(1)/unit/test_elf_%): $(HOSTS_DIR)/$(1)/unit/elf_test.o

-include $(patsubst %.o,%.d,$(call host_tool_objs,$(1)) $(UNIT_TESTS:%=$(HOSTS_DIR)/$(1)/unit/test_%.o))
endef
$(foreach h,$(HOSTS),$(eval $(call host_rules,$(h))))
.SECONDARY: $(foreach h,$(HOSTS),$(UNIT_TESTS:%=$(HOSTS_DIR)/$(h)/unit/test_%.o))

# For each host: its libraries (else a SKIP line), its builds (else a
# FAIL line), its unit tests under qemu (tap2log.awk, as check-unit);
# then hosts.py compares every host that built against the native tool.
.PHONY: check-hosts
check-hosts: $(RECORDMCOUNT)
	@mkdir -p $(TEST_RESULTS) && rm -f $(TEST_RESULTS)/hosts.log
	@log=$(TEST_RESULTS)/hosts.log; status=0; hosts=""; \
	for hq in $(foreach h,$(HOSTS),$(h):$(HOST_QEMU_$(h))); do \
		h=$${hq%%:*}; qemu=$${hq#*:}; \
		if ! tests/hosts/sysroot.sh $$h $(HOSTS_CACHE)/$$h; then \
			echo "SKIP: hosts/$$h: Debian's $$h libelf, zlib and check could not be fetched (tests/hosts/sysroot.sh)" | tee -a $$log; \
			continue; \
		fi; \
		if ! $(MAKE) --no-print-directory $(HOSTS_DIR)/$$h/recordmcount \
			$(UNIT_TESTS:%=$(HOSTS_DIR)/$$h/unit/test_%); then \
			echo "FAIL: hosts/$$h/build: the $$h build of the tool or its unit tests failed" | tee -a $$log; \
			status=1; continue; \
		fi; \
		rm -rf $(HOSTS_SCRATCH)/unit-$$h && mkdir -p $(HOSTS_SCRATCH)/unit-$$h; \
		for t in $(UNIT_TESTS); do \
			tap=$(HOSTS_SCRATCH)/unit-$$h/test_$$t.tap; \
			CK_TAP_LOG_FILE_NAME=$$tap CK_TIMEOUT_MULTIPLIER=10 \
				UNIT_TMPDIR=$(abspath $(HOSTS_SCRATCH))/unit-$$h \
				$$qemu $(HOSTS_DIR)/$$h/unit/test_$$t >/dev/null; rc=$$?; \
			touch $$tap; \
			awk -v suite=hosts/$$h/unit/$$t -v rc=$$rc -f tests/unit/tap2log.awk $$tap \
				>>$$log || status=1; \
		done; \
		hosts="$$hosts $$h=$$qemu:$(HOSTS_DIR)/$$h/recordmcount"; \
	done; \
	TEST_RESULTS=$(abspath $(TEST_RESULTS)) python3 tests/hosts/hosts.py \
		$(RECORDMCOUNT) $(HOSTS_SCRATCH) $$hosts || status=1; \
	grep -h '^FAIL' $$log; \
	echo "$$(grep -c '^PASS' $$log) passed, $$(grep -c '^FAIL' $$log) failed, $$(grep -c '^SKIP' $$log) skipped"; \
	exit $$status
