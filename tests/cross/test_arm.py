#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test_arm.py RECORDMCOUNT SCRATCH-DIR - aarch64, arm (ARM and Thumb-2)
and riscv64 through the cross harness (common.py).

Flag sets: "kernel" approximates what linux-6.1's Makefiles pass with
CONFIG_FUNCTION_TRACER and recordmcount (-fno-PIE from the top-level
Makefile plus the arch's own), "user" is Debian's default (PIE).  The
harness runs each at -O2 and -O2 -ffunction-sections.
"""

import common
from common import Arch

# arch/arm64/Makefile (without DYNAMIC_FTRACE_WITH_REGS, which would use
# -fpatchable-function-entry instead of -pg and recordmcount).
KERNEL_ARM64 = ["-fno-PIE", "-mgeneral-regs-only", "-mabi=lp64",
                "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
                "-mbranch-protection=none", "-fno-omit-frame-pointer"]

AARCH64 = Arch(
    name="aarch64",
    triplet="aarch64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_AARCH64_ABS64",
    none_reloc="R_AARCH64_NONE",
    nop_re=r"^nop$",
    flag_sets={"kernel": KERNEL_ARM64, "user": []},
    # clang spells the ABI by the target alone (no -mabi=lp64)
    clang_flag_sets={"kernel": [f for f in KERNEL_ARM64
                                if f != "-mabi=lp64"], "user": []},
)

# arch/arm/Makefile: AAPCS-Linux, and either ARM (-marm, with -mapcs
# -mno-sched-prolog for frame pointers) or Thumb-2 (THUMB2_KERNEL).  Not
# -msoft-float: ld refuses to link it with Debian's hard-float libgcc,
# and it does not change the hook.
KERNEL_ARM = ["-fno-PIE", "-mabi=aapcs-linux", "-mfpu=vfp"]

ARM = Arch(
    name="arm",
    triplet="arm-linux-gnueabihf",
    hooks=("__gnu_mcount_nc",),
    table_reloc="R_ARM_ABS32",
    none_reloc="R_ARM_NONE",
    # What undoes the `push {lr}`: add sp, sp, #4 (add.w in Thumb-2).
    nop_re=r"^add(\.w)? sp, sp, #4$",
    flag_sets={
        "kernel-arm": KERNEL_ARM + ["-marm", "-mapcs", "-mno-sched-prolog",
                                    "-fno-omit-frame-pointer"],
        "kernel-thumb": KERNEL_ARM + ["-mthumb", "-Wa,-mimplicit-it=always"],
        "user-arm": ["-marm"],
        "user-thumb": [],               # Debian armhf's default: Thumb-2
    },
    # clang calls __gnu_mcount_nc only with -meabi gnu (the kernel
    # passes it); in ARM state it pushes lr with `stmdb sp!, {lr}`.
    clang_flag_sets={
        "kernel-arm": KERNEL_ARM + ["-meabi", "gnu", "-marm",
                                    "-march=armv7-a"],
        "kernel-thumb": KERNEL_ARM + ["-meabi", "gnu", "-mthumb",
                                      "-march=armv7-a"],
    },
)

# linux-6.1's arch/riscv/Makefile builds with -mcmodel=medany (modules)
# and -mno-relax where the linker must not relax (DYNAMIC_FTRACE);
# -march=rv64g tests uncompressed code next to Debian's rv64gc default.
KERNEL_RISCV = ["-fno-PIE", "-mcmodel=medany", "-mabi=lp64"]


def rv_linked_site(arch, insns, i):
    """The hook call objdump shows in a linked program: a `jal` where ld
    relaxed the pair (the site itself), else the `jalr` after the site's
    auipc."""
    addr, text = insns[i]
    if text.startswith("jalr") and i > 0 and \
            insns[i - 1][1].startswith("auipc ra,"):
        return insns[i - 1][0]
    return addr


RISCV64 = Arch(
    name="riscv64",
    triplet="riscv64-linux-gnu",
    hooks=("_mcount",),
    table_reloc="R_RISCV_64",
    none_reloc="R_RISCV_NONE",
    nop_re=r"^nop$",
    nop_len=8,
    linked_site=rv_linked_site,
    flag_sets={
        "kernel": KERNEL_RISCV + ["-mno-relax"],
        "kernel-relax": KERNEL_RISCV,
        "kernel-rv64g": KERNEL_RISCV + ["-march=rv64g", "-mno-relax"],
        "user": [],
        "user-norelax": ["-mno-relax"],
    },
    # the default lp64d ABI: the links' support code is GCC's default
    clang_flag_sets={"kernel": ["-fno-PIE", "-mcmodel=medany",
                                "-mno-relax"], "user": []},
)

ARCHES = [AARCH64, ARM, RISCV64]

if __name__ == "__main__":
    raise SystemExit(common.main(ARCHES))
