# recordmcount - GNU make only.
#
#   make              build build/recordmcount and build/libmcount.a
#   make check        every test (installs missing Debian packages as root)
#   make demo         the bundled example, end to end
#   make install      PREFIX=/usr/local DESTDIR=
#
# CI adds WERROR=-Werror; SANITIZE=1 builds with ASan+UBSan into
# build/asan so both builds can live side by side.

VERSION := 0.1
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
WERROR ?=
SANITIZE ?=

ifeq ($(SANITIZE),1)
BUILD ?= build/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
else
BUILD ?= build
SAN_FLAGS :=
endif
RECORDMCOUNT := $(BUILD)/recordmcount
LIBMCOUNT := $(BUILD)/libmcount.a

PKG_CONFIG ?= pkg-config
ELF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
ELF_LIBS := $(or $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null),-lelf) -lz

WARN := -Wall -Wextra $(WERROR)
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -MMD -MP \
	-DMC_VERSION='"$(VERSION)"'

ARCH_SRCS := arch/arch.c arch/x86.c arch/aarch64.c arch/arm.c arch/riscv.c arch/powerpc.c \
	arch/s390.c arch/mips.c arch/sparc.c arch/sh.c
ELF_SRCS := elf/object.c elf/validate.c
CLI_SRCS := recordmcount/main.c recordmcount/sites.c recordmcount/pads.c \
	recordmcount/table.c recordmcount/record.c recordmcount/dump.c
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS) $(ELF_SRCS) $(ARCH_SRCS))

.PHONY: all check demo install clean deps bench check-asan check-valgrind
all: $(RECORDMCOUNT) $(LIBMCOUNT)

$(RECORDMCOUNT): $(CLI_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(ELF_LIBS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) -c -o $@ $<

# Missing Debian packages: installed when root, else the apt-get line.
deps:
	@scripts/deps.sh

-include runtime/runtime.mk
-include tests/tests.mk
-include kernel/kernel.mk
-include bench/bench.mk
-include examples/firmware/firmware.mk

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/recordmcount $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include
	install -m 755 $(RECORDMCOUNT) $(DESTDIR)$(PREFIX)/bin/recordmcount
	install -m 644 man/recordmcount.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 lds/mcount.lds lds/mcount-section.lds \
		$(DESTDIR)$(PREFIX)/share/recordmcount/
	install -m 644 $(LIBMCOUNT) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 runtime/include/mcount.h $(DESTDIR)$(PREFIX)/include/

clean:
	rm -rf build

-include $(CLI_OBJS:.o=.d)
-include fuzz/fuzz.mk
