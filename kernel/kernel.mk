# SPDX-License-Identifier: GPL-2.0-only
# Kernel-scale tests of $(RECORDMCOUNT), included by the top Makefile.
#
#   check-kernel  for each of $(KERNEL_ARCHS), with each of
#                 $(KERNEL_COMPILERS) (gcc; clang is LLVM=1, on the
#                 architectures of KERNEL_CLANG_ARCHS): build Debian's
#                 linux-source-$(KERNEL_SERIES) (6.12 by default, 6.1
#                 too; tinyconfig + ftrace) with our tool as
#                 scripts/recordmcount, boot it in QEMU with ftrace on,
#                 and compare every object's table with the kernel's own
#                 recordmcount (kernel/README.md); fails if any check of
#                 any build failed.  CI runs it for x86_64, arm,
#                 arm64 and riscv64 with GCC (.ci/run).
#   check-kernel-all  the same for every architecture kernel/lib.sh
#                 knows (KERNEL_ALL_ARCHS there: i386, ppc64le, ... too),
#                 and clang for those of KERNEL_ALL_CLANG_ARCHS (arm64,
#                 i386, ppc64le, s390x, mips, mips64el, ppc32 and
#                 riscv64 too; mips and mips64el with clang under
#                 lib.sh's MODULE_BLOCKER: clang's long -pg calls in
#                 modules cannot be traced by 6.1, so the module's
#                 checks are SKIP lines and one check passes only while
#                 that holds, kernel/README.md)
#
# KERNEL_ARCHS="..." (or KERNEL_ARCHES, the issue's spelling) picks the
# architectures of either target, KERNEL_COMPILERS the compilers,
# KERNEL_SERIES the kernel (6.12 or 6.1: kernel/lib.sh; each series
# builds in a folder of its own in the cache).
#   bench         time ours against the kernel's tool and cp over the
#                 objects those builds captured, the GCC ones
#                 ($MC_KERNEL_CC=clang: the clang ones) (bench/RESULTS.md)
#
# Sources, build trees and captured objects live in $(MC_KERNEL_CACHE),
# by default $${XDG_CACHE_HOME:-$$HOME/.cache}/recordmcount, and are
# reused between runs.  Missing Debian packages are installed as root.

.PHONY: check-kernel check-kernel-all bench
KERNEL_ARCHS ?= x86_64 arm arm64
KERNEL_ALL_ARCHS := $(shell sed -n 's/^KERNEL_ALL_ARCHS="\(.*\)"$$/\1/p' kernel/lib.sh)
ifdef KERNEL_ARCHES
KERNEL_ARCHS := $(KERNEL_ARCHES)
KERNEL_ALL_ARCHS := $(KERNEL_ARCHES)
endif
KERNEL_COMPILERS ?= gcc clang
# The architectures the clang (LLVM=1) builds are set up and tested
# for: in CI's check-kernel, and in check-kernel-all.
KERNEL_CLANG_ARCHS ?= x86_64 arm
KERNEL_ALL_CLANG_ARCHS ?= $(KERNEL_CLANG_ARCHS) arm64 i386 ppc64le s390x mips mips64el ppc32 riscv64

# $(call check_kernel_archs,ARCHES,CLANG_ARCHES): kernel/check.sh for
# each, with each compiler it is set up for (clang: those of
# CLANG_ARCHES); fails if any failed, after running them all.
check_kernel_archs = @status=0; for arch in $(1); do \
		for cc in $(KERNEL_COMPILERS); do \
			case "$$cc: $(2) " in \
			clang:*" $$arch "*|gcc:*) ;; *) continue ;; esac; \
			MC_KERNEL_ARCH=$$arch MC_KERNEL_CC=$$cc \
				kernel/check.sh $(RECORDMCOUNT) || status=1; \
		done; \
	done; exit $$status

check-kernel: $(RECORDMCOUNT)
	$(call check_kernel_archs,$(KERNEL_ARCHS),$(KERNEL_CLANG_ARCHS))

check-kernel-all: $(RECORDMCOUNT)
	$(call check_kernel_archs,$(KERNEL_ALL_ARCHS),$(KERNEL_ALL_CLANG_ARCHS))

# check-kernel-builds: kernel/check.sh for each ARCH:COMPILER of
# $(KERNEL_BUILDS), exactly those builds (for a CI stage of the builds
# its first, budget-sized kernel stage leaves out: .ci/run).
.PHONY: check-kernel-builds
KERNEL_BUILDS ?= arm:gcc x86_64:clang arm:clang
check-kernel-builds: $(RECORDMCOUNT)
	@status=0; for build in $(KERNEL_BUILDS); do \
		MC_KERNEL_ARCH=$${build%%:*} MC_KERNEL_CC=$${build#*:} \
			kernel/check.sh $(RECORDMCOUNT) || status=1; \
	done; exit $$status

bench: $(RECORDMCOUNT)
	@status=0; for arch in $(KERNEL_ARCHS); do \
		MC_KERNEL_ARCH=$$arch bench/bench.sh $(RECORDMCOUNT) || status=1; \
	done; exit $$status

# check-kernel-defconfig: kernel/defconfig.sh for each of
# $(KERNEL_DEFCONFIG_ARCHS) (x86_64; i386 has a defconfig too) with each
# of $(KERNEL_DEFCONFIG_COMPILERS) (gcc; clang too if asked), for each
# of $(KERNEL_DEFCONFIG_VARIANTS) (defconfig; defconfig-ibt adds
# X86_KERNEL_IBT): defconfig + ftrace, vmlinux and the in-tree
# modules, built with our tool, and compared with the kernel's own
# recordmcount object by object.  Not booted, and not in CI (.ci/run):
# half an hour or more per build on 2 CPUs.
.PHONY: check-kernel-defconfig
KERNEL_DEFCONFIG_ARCHS ?= x86_64
KERNEL_DEFCONFIG_COMPILERS ?= gcc
KERNEL_DEFCONFIG_VARIANTS ?= defconfig
check-kernel-defconfig: $(RECORDMCOUNT)
	@status=0; for arch in $(KERNEL_DEFCONFIG_ARCHS); do \
		for cc in $(KERNEL_DEFCONFIG_COMPILERS); do \
			for v in $(KERNEL_DEFCONFIG_VARIANTS); do \
				MC_KERNEL_ARCH=$$arch MC_KERNEL_CC=$$cc MC_KERNEL_VARIANT=$$v \
					kernel/defconfig.sh $(RECORDMCOUNT) || status=1; \
			done; \
		done; \
	done; exit $$status

# check-kernel-ftracetest: kernel/ftracetest.sh for each of
# $(KERNEL_FTRACETEST_ARCHS) (x86_64; arm64 too): the kernel's own ftrace
# selftests (00basic and ftrace) in our kernel and in a reference whose
# table the compiler writes (-mrecord-mcount; arm64: its pads), both
# booted under QEMU with Debian's busybox-static (arm64's downloaded, not
# installed) as the userland; every test that passes on the
# reference must pass on ours.  Two kernel builds per architecture, not
# in CI's kernel stage (kernel/README.md, "ftrace selftests").
.PHONY: check-kernel-ftracetest
KERNEL_FTRACETEST_ARCHS ?= x86_64
check-kernel-ftracetest: $(RECORDMCOUNT)
	@status=0; for arch in $(KERNEL_FTRACETEST_ARCHS); do \
		MC_KERNEL_ARCH=$$arch kernel/ftracetest.sh $(RECORDMCOUNT) || status=1; \
	done; exit $$status
