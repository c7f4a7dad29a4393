# SPDX-License-Identifier: MIT
# examples/firmware/firmware.mk - bare-metal images that patch their
# own hooks at boot, under QEMU: riscv64 (M-mode) and aarch64 (EL1).
#
#   make firmware          build $(FW_OUT)/<board>/fw.elf for each board
#                          (examples/firmware/build.sh)
#   make check-firmware    build and boot each, check its serial output
#                          against the objects and the image
#                          (examples/firmware/check.py); PASS/FAIL lines
#                          go to $(TEST_RESULTS)/firmware.log
#
# Included by the top Makefile, which defines BUILD, RECORDMCOUNT and
# TEST_RESULTS.  Board facts (compiler, flags, QEMU command) live in
# examples/firmware/boards.sh.  Needs Debian's gcc-riscv64-linux-gnu,
# gcc-aarch64-linux-gnu, qemu-system-misc and qemu-system-arm.

FW_DIR := examples/firmware
FW_OUT := $(BUILD)/firmware
FW_BOARDS := riscv64 aarch64

firmware: $(RECORDMCOUNT)
	@for b in $(FW_BOARDS); do \
		RECORDMCOUNT=$(RECORDMCOUNT) sh $(FW_DIR)/build.sh $$b \
			$(FW_OUT)/$$b || exit 1; \
	done

# A board that does not build is one FAIL line; the others still run.
# Each board twice: as `make firmware` builds it, and with FW_GC=1
# (-ffunction-sections, --per-section tables, --gc-sections; build.sh)
# into $(FW_OUT)/<board>-gc, whose lines say "[<board> gc]".
check-firmware: $(RECORDMCOUNT)
	@mkdir -p $(FW_OUT) $(TEST_RESULTS)
	@( status=0; for b in $(FW_BOARDS); do for gc in 0 1; do \
		v=$$b; l=$$b; [ $$gc = 1 ] && v=$$b-gc && l="$$b gc"; \
		if FW_GC=$$gc RECORDMCOUNT=$(RECORDMCOUNT) sh $(FW_DIR)/build.sh $$b \
			$(FW_OUT)/$$v > $(FW_OUT)/build-$$v.log 2>&1; then \
			echo "PASS: [$$l] firmware builds"; \
			python3 $(FW_DIR)/check.py $$b $(FW_OUT)/$$v \
				$(RECORDMCOUNT) || status=1; \
			echo "serial output of the $$l boot:"; \
			sed 's/^/    /' $(FW_OUT)/$$v/serial.log; \
		else \
			echo "FAIL: [$$l] firmware builds: see $(FW_OUT)/build-$$v.log"; \
			tail -n 20 $(FW_OUT)/build-$$v.log; status=1; \
		fi; \
	  done; done; exit $$status ) > $(FW_OUT)/check.out 2>&1; status=$$?; \
	cat $(FW_OUT)/check.out; \
	grep -E '^(PASS|FAIL|SKIP)' $(FW_OUT)/check.out >> $(TEST_RESULTS)/firmware.log; \
	exit $$status

.PHONY: firmware check-firmware
