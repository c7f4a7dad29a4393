# recordmcount - GNU make only.
#
#   make              build build/recordmcount (static; STATIC=0 for a
#                     dynamic link) and build/libmcount.a
#   make check        every test (installs missing Debian packages as root)
#   make demo         the bundled example, end to end
#   make check-fresh  make demo and make check in a pristine Debian 12
#                     root (scripts/fresh.sh; root only)
#   make install      PREFIX=/usr/local DESTDIR= (integrate/integrate.mk)
#   make uninstall    the same variables
#
# Make deletes a target whose recipe failed (no half-made file is
# taken for up to date).  CI adds WERROR=-Werror; SANITIZE=1 builds with ASan+UBSan into
# build/asan so both builds can live side by side.

# Before anything else, the Debian packages the goals need
# (scripts/deps.sh: installed as root, else the apt-get line and a
# stop), so that every target works as the first command on a fresh
# machine; variables below ask the compiler and pkg-config questions.
# Once per top-level make: sub-makes inherit MC_DEPS_DONE.
# check-kernel needs only the build group here: kernel/ asks for the
# kernel's own list of the architecture it builds.
deps_group = $(strip \
	$(if $(filter-out check-kernel% check-fresh,$(filter check check-% bench bench-% deps fuzz fuzz-%,$(1))),check) \
	$(if $(filter firmware,$(1)),firmware) \
	$(if $(filter check-fresh,$(1)),fresh) \
	$(if $(filter-out check check-% bench bench-% firmware deps,$(1)),build) \
	$(if $(filter check-kernel%,$(1)),build))
ifndef MC_DEPS_DONE
ifneq ($(filter-out clean clean-%,$(or $(MAKECMDGOALS),all)),)
$(shell scripts/deps.sh $(call deps_group,$(or $(MAKECMDGOALS),all)) >&2)
ifneq ($(.SHELLSTATUS),0)
$(error missing Debian packages (scripts/deps.sh))
endif
endif
endif
export MC_DEPS_DONE := 1

VERSION := 0.1
.DELETE_ON_ERROR:
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
# The tool is linked statically (Debian's libc6-dev, libelf-dev and
# zlib1g-dev ship the archives): Kbuild starts it once per object, and
# on a kernel-sized object the dynamic loader's work (libelf, zlib,
# libc) was about half of all the instructions of a run.  STATIC=0
# links dynamically; the sanitizer build always does (ASan needs it),
# and check-fault links its own dynamic copy for its LD_PRELOAD shim.
ifeq ($(SANITIZE),1)
STATIC ?= 0
else
STATIC ?= 1
endif
ifeq ($(STATIC),1)
TOOL_LIBS := -static $(ELF_LIBS)
else
TOOL_LIBS := $(ELF_LIBS)
endif

WARN := -Wall -Wextra $(WERROR)
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -MMD -MP \
	-DMC_VERSION='"$(VERSION)"'

ARCH_SRCS := arch/arch.c arch/x86.c arch/aarch64.c arch/arm.c arch/riscv.c arch/powerpc.c \
	arch/s390.c arch/mips.c arch/sparc.c arch/sh.c
ELF_SRCS := elf/object.c elf/reloc.c elf/edit.c elf/write.c elf/validate.c
CLI_SRCS := recordmcount/main.c recordmcount/sites.c recordmcount/pads.c \
	recordmcount/table.c recordmcount/record.c recordmcount/dump.c \
	recordmcount/survey.c recordmcount/check.c recordmcount/finalize.c
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS) $(ELF_SRCS) $(ARCH_SRCS))

.PHONY: all check demo install clean deps bench check-asan check-valgrind
all: $(RECORDMCOUNT) $(LIBMCOUNT)

$(RECORDMCOUNT): $(CLI_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(TOOL_LIBS)

# The same objects linked dynamically, for the tests that reach the tool
# through the dynamic loader: check-fault's LD_PRELOAD shim, and
# valgrind, whose memcheck replaces malloc only in a dynamic program.
RECORDMCOUNT_DYNAMIC := $(BUILD)/dynamic/recordmcount
$(RECORDMCOUNT_DYNAMIC): $(CLI_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(ELF_LIBS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) -c -o $@ $<

# Missing Debian packages: installed when root, else the apt-get line
# (the top of this file already did it for the goals given).
deps:
	@scripts/deps.sh check

# The README's two commands where nothing was installed before them
# (FRESH_TARGETS="demo check check-kernel" for the long stage too).
FRESH_TARGETS ?= demo check
.PHONY: check-fresh
check-fresh:
	@FRESH_MAKEFLAGS="$(FRESH_MAKEFLAGS)" scripts/fresh.sh $(FRESH_TARGETS)

-include integrate/integrate.mk
-include runtime/runtime.mk
-include recorder/recorder.mk
-include mctrace/mctrace.mk
-include tests/tests.mk
-include kernel/kernel.mk
-include bench/bench.mk
-include examples/firmware/firmware.mk

clean:
	rm -rf build

-include $(CLI_OBJS:.o=.d)
-include fuzz/fuzz.mk
