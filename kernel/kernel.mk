# Kernel-scale tests of $(RECORDMCOUNT), included by the top Makefile.
#
#   check-kernel  for each of $(KERNEL_ARCHS), with each of
#                 $(KERNEL_COMPILERS) (gcc; clang is LLVM=1): build
#                 Debian's linux-source-6.1 (tinyconfig + ftrace) with
#                 our tool as scripts/recordmcount, boot it in QEMU with
#                 ftrace on, and compare every object's table with the
#                 kernel's own recordmcount (kernel/README.md); fails if
#                 any check of any build failed
#   bench         time ours against the kernel's tool and cp over the
#                 objects those builds captured, the GCC ones
#                 ($MC_KERNEL_CC=clang: the clang ones) (bench/RESULTS.md)
#
# Sources, build trees and captured objects live in $(MC_KERNEL_CACHE),
# by default $${XDG_CACHE_HOME:-$$HOME/.cache}/recordmcount, and are
# reused between runs.  Missing Debian packages are installed as root.

.PHONY: check-kernel bench
KERNEL_ARCHS ?= x86_64 arm
KERNEL_COMPILERS ?= gcc clang

check-kernel: $(RECORDMCOUNT)
	@status=0; for arch in $(KERNEL_ARCHS); do \
		for cc in $(KERNEL_COMPILERS); do \
			MC_KERNEL_ARCH=$$arch MC_KERNEL_CC=$$cc \
				kernel/check.sh $(RECORDMCOUNT) || status=1; \
		done; \
	done; exit $$status

bench: $(RECORDMCOUNT)
	@status=0; for arch in $(KERNEL_ARCHS); do \
		MC_KERNEL_ARCH=$$arch bench/bench.sh $(RECORDMCOUNT) || status=1; \
	done; exit $$status
