# Kernel-scale tests of $(RECORDMCOUNT), included by the top Makefile.
#
#   check-kernel  build Debian's linux-source-6.1 (tinyconfig + ftrace,
#                 x86_64) with our tool as scripts/recordmcount, boot it
#                 in QEMU with ftrace on, and compare every object's table
#                 with the kernel's own recordmcount (kernel/README.md)
#   bench         time ours against the kernel's tool and cp over the
#                 objects that build captured (bench/RESULTS.md)
#
# Sources, build trees and captured objects live in $(MC_KERNEL_CACHE),
# by default $${XDG_CACHE_HOME:-$$HOME/.cache}/recordmcount, and are
# reused between runs.  Missing Debian packages are installed as root.

.PHONY: check-kernel bench

check-kernel: $(RECORDMCOUNT)
	@kernel/check.sh $(RECORDMCOUNT)

bench: $(RECORDMCOUNT)
	@bench/bench.sh $(RECORDMCOUNT)
