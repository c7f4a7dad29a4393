# SPDX-License-Identifier: GPL-2.0-only
# tests/attach/attach.mk - check-attach: mctrace record -p against
# running processes (tests/attach/attach.sh): attach, record, detach
# cycles on a target built with pads alone (libmcount.so loaded into it)
# and one linked with libmcount.a, each window's counts against the
# program's structure, the text byte for byte, the busy targets (one
# forking, one opening and closing a library all along, one holding
# values in its FP and vector registers across the stops), the refusals.
# x86_64 only; SKIP where ptrace is forbidden.
#
# ATTACH_CYCLES: the cycles on each of the two main targets, 20 to stay
# quick (the issue asks for 100: make check-attach-long); 3 in the
# sanitizer build (SANITIZE=1, CI's sanitizer stage), where the point
# is mctrace's own memory errors and leaks, which the first cycles show.

ifeq ($(SANITIZE),1)
ATTACH_CYCLES ?= 3
else
ATTACH_CYCLES ?= 20
endif

check-attach: $(RECORDMCOUNT) $(LIBMCOUNT) $(LIBMCOUNT_SO) $(MCTRACE)
	@RECORDMCOUNT=$(RECORDMCOUNT) LIBMCOUNT=$(LIBMCOUNT) \
		MCTRACE=$(MCTRACE) OUT=$(BUILD)/tests/attach \
		CYCLES=$(ATTACH_CYCLES) \
		sh tests/attach/attach.sh > $(BUILD)/attach.out 2>&1; \
	status=$$?; cat $(BUILD)/attach.out; \
	mkdir -p $(TEST_RESULTS); \
	grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/attach.out >> $(TEST_RESULTS)/attach.log; \
	exit $$status

# The issue's 100 cycles a target (not in make check: a few minutes).
check-attach-long:
	@$(MAKE) --no-print-directory check-attach ATTACH_CYCLES=100

.PHONY: check-attach check-attach-long

# check-attach-vm: the core of check-attach (cycles on the pads and the
# hooks targets, counts, text byte for byte, refusals) as the userland
# of a booted kernel (kernel/lib.sh's MC_KERNEL_VARIANT=attach: the
# boot test's tinyconfig plus kernel/attach.config and, for i386,
# i386-attach.config), for each of ATTACH_VM_ARCHES: ptrace does not
# work under qemu-user, where the other suites run aarch64, riscv64 and
# i386 (this machine's kernel runs no i386 process); x86_64 proves the
# VM against the path check-attach proves natively.  tests/attach/vm.sh
# builds and boots; the VM's /init is tests/attach/vminit.c.  Not in
# `make check`: a cold run builds a kernel per machine (about 25 min
# each on 2 cores).  ATTACH_VM_CYCLES: cycles a target.
ATTACH_VM_ARCHES ?= aarch64 riscv64 x86_64 i386
ATTACH_VM_CYCLES ?= 20

# mctrace for the VM: static, with the C library alone (no libelf:
# Debian 12 has none for riscv64).
ATTACH_VM_MCTRACE = $(BUILD)/attach-vm/$(1)/mctrace
define attach_vm_rules
$(call ATTACH_VM_MCTRACE,$(1)): $(MCTRACE_SRCS) $(BUILD)/gen/mctrace/flame-js.c \
		$(wildcard mctrace/*.h) recorder/attach.h recorder/format.h
	@mkdir -p $$(@D)
	$(RT_CC_$(1)) -std=c11 $(WARN) -Werror -O2 -DMC_VERSION='"$(VERSION)"' \
		-static -o $$@ $(MCTRACE_SRCS) $(BUILD)/gen/mctrace/flame-js.c \
		-lstdc++
endef
$(foreach a,$(ATTACH_VM_ARCHES),$(eval $(call attach_vm_rules,$(a))))

# The host's libmcount under the name the others have.
attach_vm_lib = $(if $(filter $(1),$(RT_HOST)),$(LIBMCOUNT_SO) $(LIBMCOUNT),$(BUILD)/$(1)/$(RT_SONAME) $(BUILD)/$(1)/libmcount.a)

check-attach-vm: $(RECORDMCOUNT) $(foreach a,$(ATTACH_VM_ARCHES),\
		$(call ATTACH_VM_MCTRACE,$(a)) $(call attach_vm_lib,$(a)))
	@mkdir -p $(TEST_RESULTS); status=0; \
	for a in $(ATTACH_VM_ARCHES); do \
		RECORDMCOUNT=$(RECORDMCOUNT) OUT=$(BUILD)/tests/attach-vm/$$a \
		CYCLES=$(ATTACH_VM_CYCLES) \
		VM_MCTRACE=$(BUILD)/attach-vm/$$a/mctrace \
		VM_LIBDIR=$$(if [ $$a = $(RT_HOST) ]; then echo $(BUILD); \
			else echo $(BUILD)/$$a; fi) \
		sh tests/attach/vm.sh $$a > $(BUILD)/attach-vm-$$a.out 2>&1 || \
			status=1; \
		cat $(BUILD)/attach-vm-$$a.out; \
		grep -E '^(PASS|FAIL|SKIP)' $(BUILD)/attach-vm-$$a.out \
			>> $(TEST_RESULTS)/attach.log; \
	done; exit $$status

.PHONY: check-attach-vm
