# SPDX-License-Identifier: GPL-2.0-only
# recordmcount - GNU make only.
#
#   make              build build/recordmcount (static where the static
#                     libraries are there; STATIC=0 for a dynamic link)
#                     and build/libmcount.a: a C compiler, libelf and
#                     zlib (found by pkg-config) are all it needs
#   make deps         install the Debian packages make check needs (root)
#   make check        every test (installs missing Debian packages as root)
#   make demo         the bundled example, end to end (installs the
#                     build group's Debian packages first as root)
#   make check-fresh  make demo and make check in a pristine Debian 12
#                     root (scripts/fresh.sh; root only)
#   make install      PREFIX=/usr/local DESTDIR= (integrate/integrate.mk)
#   make uninstall    the same variables
#
# Make deletes a target whose recipe failed (no half-made file is
# taken for up to date).  CI adds WERROR=-Werror; SANITIZE=1 builds with ASan+UBSan into
# build/asan so both builds can live side by side.

# Packages are installed only when asked: make deps, make demo (the
# first command on a fresh machine: the build group) and the test and
# benchmark targets (check, check-*, bench*, fuzz*), which ask
# scripts/deps.sh for their Debian packages before anything else (as
# root it installs what is missing and says so; else it prints the
# apt-get line and stops; with no dpkg it names the packages and goes
# on).  Building (make, make install, make firmware) never runs dpkg
# or apt-get.  Once per top-level make: sub-makes inherit
# MC_DEPS_DONE.  check-kernel needs only the build group here: kernel/
# asks for the kernel's own list of the architecture it builds;
# check-deb the deb group (dpkg-buildpackage, debhelper, lintian).
deps_group = $(strip \
	$(if $(filter-out check-kernel% check-fresh check-deb,$(filter check check-% bench bench-% fuzz fuzz-%,$(1))),check) \
	$(if $(filter check-fresh,$(1)),fresh) \
	$(if $(filter check-deb,$(1)),deb) \
	$(if $(filter demo,$(1)),demo) \
	$(if $(filter check-kernel%,$(1)),build))
ifndef MC_DEPS_DONE
ifneq ($(call deps_group,$(MAKECMDGOALS)),)
$(shell scripts/deps.sh $(call deps_group,$(MAKECMDGOALS)) >&2)
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
# `make` alone builds these, whatever rule comes first below.
.DEFAULT_GOAL := all

PKG_CONFIG ?= pkg-config
ELF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
ELF_LIBS := $(or $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null),-lelf) -lz
# What the tool's objects need, asked before the first is compiled: one
# line naming the package, per distribution, rather than a compiler's
# "gelf.h: No such file or directory".
HINT_PKG_CONFIG := pkg-config not found: install pkg-config (Debian), pkgconf (Fedora, Arch)
HINT_LIBELF := libelf not found: install libelf-dev (Debian), elfutils-libelf-devel (Fedora), libelf (Arch)
HINT_ZLIB := zlib not found: install zlib1g-dev (Debian), zlib-devel (Fedora), zlib (Arch)
.PHONY: need-libs
need-libs:
	@command -v $(PKG_CONFIG) >/dev/null 2>&1 || { echo '$(HINT_PKG_CONFIG)' >&2; exit 1; }
	@$(PKG_CONFIG) --exists libelf || { echo '$(HINT_LIBELF)' >&2; exit 1; }
	@$(PKG_CONFIG) --exists zlib || { echo '$(HINT_ZLIB)' >&2; exit 1; }
# The tool is linked statically (Debian's libc6-dev, libelf-dev and
# zlib1g-dev ship the archives): Kbuild starts it once per object, and
# on a kernel-sized object the dynamic loader's work (libelf, zlib,
# libc) was about half of all the instructions of a run.  STATIC=0
# links dynamically; the sanitizer build always does (ASan needs it),
# and check-fault links its own dynamic copy for its LD_PRELOAD shim.
# A static link needs libelf.a, libz.a and libc.a: Debian's -dev
# packages ship them; elsewhere (Fedora: elfutils-libelf-devel-static,
# zlib-static, glibc-static) they may be missing, and the default is
# then a dynamic link.
static_libs_found = $(if $(strip $(foreach l,libelf.a libz.a libc.a,\
	$(if $(findstring /,$(shell $(CC) -print-file-name=$(l) 2>/dev/null)),,$(l)))),0,1)
ifndef STATIC
ifeq ($(SANITIZE),1)
STATIC := 0
else
STATIC := $(static_libs_found)
endif
endif
ifeq ($(STATIC),1)
# A static libelf brings its own dependencies (zstd on Fedora).
TOOL_LIBS := -static $(or $(shell $(PKG_CONFIG) --static --libs libelf 2>/dev/null),-lelf) -lz
else
TOOL_LIBS := $(ELF_LIBS)
endif

WARN := -Wall -Wextra $(WERROR)
ALL_CFLAGS := -std=c11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -MMD -MP \
	-DMC_VERSION='"$(VERSION)"'

# The architectures' files, each once, in arch/arches.def's order.
ARCH_FILES := $(shell sed -n 's/^MC_ARCH([a-z0-9_]*, *\([a-z0-9_]*\))$$/\1/p' \
	arch/arches.def | awk '!seen[$$0]++')
ARCH_SRCS := arch/arch.c $(ARCH_FILES:%=arch/%.c)
ELF_SRCS := elf/fail.c elf/section.c elf/read.c elf/reloc.c elf/edit.c \
	elf/write.c elf/validate.c
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

$(BUILD)/obj/%.o: %.c | need-libs
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ELF_CFLAGS) -c -o $@ $<

# The Debian packages make check needs: installed when root, else the
# apt-get line.
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
