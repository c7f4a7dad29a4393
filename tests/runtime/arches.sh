# SPDX-License-Identifier: GPL-2.0-only
# arches.sh - what tests/runtime/run.sh needs to know per architecture.
# Sourced by run.sh; `rt_arch_config <arch>` sets:
#
#   RT_CC_DEFAULT   compiler when CC is not given (cross: <triplet>-gcc)
#   RT_RUN          runner prefix for the target's programs: empty when
#                   they run natively, else e.g. "qemu-aarch64 -L
#                   /usr/aarch64-linux-gnu"
#   RT_SAN_RUN      prefix for the ASan/UBSan build, before RT_RUN ("-": no
#                   sanitizers); qemu-user passes its own environment on
#   RT_VALGRIND     1 if valgrind can run the target's programs
#   RT_OBJDUMP      objdump that knows the target (<triplet>-objdump)
#   RT_BFD          its -m name for raw bytes (objdump -b binary -m ...)
#   RT_ARCH_SRC     the arch/ file the runtime library is built from
#   RT_CASES        what to build and run: <style>-<pie|no-pie>[-gotcall]
#                   [+variant]
#                   style: fentry (-pg -mfentry), mcount (-pg) or pad
#                   (-fpatchable-function-entry, from the variant);
#                   gotcall: assembled with RT_GOTCALL_CFLAGS, so the
#                   hooks stay calls through the GOT (not relaxed by ld);
#                   variant: see rt_variant below
#   RT_GOTCALL_CFLAGS
#   RT_HOOK_RE      ERE an `objdump -d` line of a hook call matches
#   RT_GOTCALL_RE   the same for an unrelaxed call through the GOT (the
#                   runtime, not this script, checks the pointer)
#   RT_NEUTRAL_RE   ERE every instruction rt_test reads back at a site
#                   after boot must match (objdump of the raw bytes)
#   RT_FENTRY_FLAGS hook flags of the fentry style (default -pg -mfentry)
#   RT_HOOK_LEAD_RE ERE of an instruction a site may start with when the
#                   hook call is the next one (s390x's -pg block)
#   RT_NEUTRAL_INSN_LEN   bytes per neutral instruction, where a site's
#                   neutral form (with the bytes before it that its live
#                   form covers) is several (default: one per site)
#   RT_STORM_EXTRA  cases the toggle storm runs besides one per style
#   RT_PAD_RE       ERE an `objdump -d` line of a pad NOP matches
#   RT_CLANG_TARGET clang's --target for the architecture (empty: the
#                   host's own), with Debian's cross libc in /usr/<it>
#   RT_CLANG_CFLAGS what clang needs besides (arm: -meabi gnu)
#   RT_CLANG_CASES  the cases run again with clang 14 and 16 (run.sh
#                   with RT_CLANG=<clang>): every case whose hook flags
#                   clang has; RT_CLANG_WHY says why the others are not
#                   there, or, when the list is empty, why clang is not
#                   run at all (a SKIP line)
#   RT_PREPATCH     1 where `recordmcount --finalize --prepatch` writes
#                   the hooks' disabled forms at link time (x86)
#   RT_PAD_REFUSED  pads the runtime must refuse in every pad case (bad.S's
#                   short_pad, say), one ERE a line, each matching one
#                   report on stderr from its `<symbol+offset>` on
#
# To add an architecture: a case below, tests/runtime/bad-<arch>.S (a
# non-hook site, a duplicated real hook, and rt_dummy; see the x86
# ones), and its backend in runtime/ and runtime/runtime.mk.

rt_arch_config() {
	RT_RUN= RT_SAN_RUN= RT_VALGRIND=1 RT_GOTCALL_CFLAGS= RT_GOTCALL_RE=
	RT_FENTRY_FLAGS= RT_HOOK_LEAD_RE= RT_NEUTRAL_INSN_LEN= RT_PAD_RE=
	RT_CLANG_TARGET= RT_CLANG_CFLAGS= RT_CLANG_CASES= RT_CLANG_WHY=
	RT_PAD_REFUSED= RT_STORM_EXTRA= RT_PREPATCH=
	case $1 in
	x86_64)
		RT_PREPATCH=1
		RT_CC_DEFAULT=gcc
		RT_OBJDUMP=objdump
		RT_BFD=i386:x86-64
		RT_ARCH_SRC=arch/x86.c
		RT_CASES="fentry-pie fentry-no-pie mcount-pie mcount-no-pie
			  fentry-pie-gotcall mcount-pie-gotcall
			  pad-pie+pad5 pad-no-pie+pad6m1 pad-pie+pad5cet
			  pad-pie+pad6m1cet"
		RT_GOTCALL_CFLAGS=-Wa,-mrelax-relocations=no
		RT_HOOK_RE='call.*<(__fentry__|mcount)>'
		RT_GOTCALL_RE='call +\*0x[0-9a-f]+\(%rip\)'
		# GCC's pads are one-byte NOPs, clang's multi-byte ones
		RT_PAD_RE='[[:space:]](nop[wl]?|xchg +%ax,%ax|(data16 )*cs nopw)( .*)?$'
		# live form (runtime/core/forms.c): `test $rel32,%eax` <-> `call`
		RT_NEUTRAL_RE='^(nop[wl]?|xchg +%ax,%ax|(data16 )*cs nopw|(addr(16|32) )?test +\$0x[0-9a-f]+,%eax)'
		# clang: one -pg -mfentry and one -pg case, and its
		# multi-byte NOP pads (one NOP the call fills, one it takes
		# whole with M > 0, the longest behind endbr64)
		RT_CLANG_CASES="fentry-pie mcount-no-pie pad-pie+clangpad5
			  pad-no-pie+clangpad10m3 pad-pie+clangpad16cet"
		RT_CLANG_WHY="a subset: the GCC cases cover the link forms"
		;;
	i386)
		RT_PREPATCH=1
		# GCC refuses -mfentry with -fpic on i386: no fentry PIE.
		# Runs natively (libc6-i386); ASan's runtime comes with the
		# cross compiler, under /usr/i686-linux-gnu/lib.  A host that
		# cannot run 32-bit programs (IA32 emulation off: the i386
		# loader itself fails to start) runs them under qemu-user.
		RT_CC_DEFAULT=i686-linux-gnu-gcc
		RT_SAN_RUN="env LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib"
		# (ASan's runtime hangs at start under qemu-i386: no sanitizer
		# run there.)
		# Its loader and its libraries both from the cross toolchain:
		# -L gives the loader, which also reads this host's
		# ld.so.cache, and that names libc6-i386's /lib32 libc, a
		# build whose private layout the loader does not share
		# (pthread_create then walks a list forever); LD_LIBRARY_PATH
		# comes before the cache.
		if ! /usr/i686-linux-gnu/lib/ld-linux.so.2 --help >/dev/null 2>&1; then
			RT_RUN="qemu-i386 -L /usr/i686-linux-gnu -E LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib"
			RT_SAN_RUN=-
		fi
		RT_OBJDUMP=i686-linux-gnu-objdump
		RT_BFD=i386
		RT_ARCH_SRC=arch/x86.c
		RT_CASES="fentry-no-pie mcount-pie mcount-no-pie
			  mcount-pie-gotcall pad-no-pie+pad6m1 pad-pie+pad5"
		RT_GOTCALL_CFLAGS=-Wa,-mrelax-relocations=no
		RT_HOOK_RE='call.*<(__fentry__|mcount)>'
		RT_GOTCALL_RE='call +\*-?0x[0-9a-f]+\(%ebx\)'
		RT_PAD_RE='[[:space:]]nop$'
		RT_NEUTRAL_RE='^(nop[wl]?|xchg +%ax,%ax|(addr(16|32) )?test +\$0x[0-9a-f]+,%eax)'
		# clang: the -pg cases.  Not its gotcall (clang calls
		# mcount@PLT whatever -Wa,-mrelax-relocations says) nor its
		# pads (xchg %ax,%ax pairs: check_disk_sites and
		# check_nop_bytes here take one-byte NOPs only)
		RT_CLANG_TARGET=i686-linux-gnu
		RT_CLANG_CASES="fentry-no-pie mcount-pie mcount-no-pie"
		RT_CLANG_WHY="no gotcall or pad case for clang"
		;;
	ppc64le)
		# "fentry" is -mprofile-kernel (`mflr r0; bl _mcount` before
		# the frame), "mcount" plain -pg (`bl _mcount; nop` inside
		# it); both call _mcount.  No sanitizers: ASan cannot
		# reserve its shadow memory under qemu-user.
		RT_CC_DEFAULT=powerpc64le-linux-gnu-gcc
		RT_SAN_RUN=-
		RT_RUN="qemu-ppc64le -L /usr/powerpc64le-linux-gnu"
		RT_VALGRIND=0
		RT_OBJDUMP=powerpc64le-linux-gnu-objdump
		RT_BFD="powerpc:common64 -EL"
		RT_ARCH_SRC=arch/powerpc.c
		# +p10: -mcpu=power10, under qemu's power10 CPU
		RT_CASES="fentry-pie fentry-no-pie mcount-pie mcount-no-pie
			  pad-pie+pad2 pad-no-pie+pad3m1 mcount-pie+p10
			  fentry-no-pie+p10 pad-pie+pad2p10"
		# clang has no -mprofile-kernel, and no pads on ppc; its
		# -mcpu=power10 is PC-relative too
		RT_CLANG_TARGET=powerpc64le-linux-gnu
		RT_CLANG_CASES="mcount-pie mcount-no-pie mcount-no-pie+p10"
		RT_CLANG_WHY="clang has no -mprofile-kernel"
		RT_FENTRY_FLAGS="-pg -mprofile-kernel"
		RT_HOOK_RE='bl +[0-9a-f]+ <_mcount>'
		RT_NEUTRAL_RE='^nop'
		RT_PAD_RE='[[:space:]]nop$'
		# a disabled pad's live form: `mflr r0; nop` (arch/powerpc.c)
		RT_PAD_NEUTRAL_RE='^(nop|mflr +r0)$'
		# one nop: too short for `mflr r0; bl`.  GCC 12 pads before
		# a TOC set-up (fx_static_ptr's), which local calls skip.
		RT_PAD_REFUSED='short_pad\+0x0>: 00 00 00 60 [0-9a-f ]*: NOP pad too short'
		case $(${CC:-$RT_CC_DEFAULT} -dumpversion) in
		[0-9] | 1[0-2] | [0-9].* | 1[0-2].*)
			RT_PAD_REFUSED="$RT_PAD_REFUSED
fx_static_ptr\+0x0>: 00 00 00 60 00 00 00 60: NOP pad before the TOC set-up"
		esac
		;;
	s390x)
		# A -pg site is the block's stg (brasl %r14 follows).  No
		# sanitizers: ASan cannot reserve its shadow under qemu-user.
		RT_CC_DEFAULT=s390x-linux-gnu-gcc
		RT_SAN_RUN=-
		RT_RUN="qemu-s390x -L /usr/s390x-linux-gnu"
		RT_VALGRIND=0
		RT_OBJDUMP=s390x-linux-gnu-objdump
		RT_BFD=s390:64-bit
		RT_ARCH_SRC=arch/s390.c
		RT_CASES="fentry-pie fentry-no-pie mcount-pie mcount-no-pie
			  pad-pie+pad3 pad-no-pie+pad5m2"
		# clang's -pg without -mfentry is a bare `brasl %r14,mcount`
		# after the prologue (glibc's gprof entry, no stg block, not
		# _mcount): reported per site, not recorded (cli.py checks
		# it).  -pg -mfentry as GCC.
		RT_CLANG_TARGET=s390x-linux-gnu
		RT_CLANG_CASES="fentry-pie fentry-no-pie"
		RT_CLANG_WHY="clang's -pg alone calls mcount, no _mcount block"
		RT_HOOK_RE='brasl.*<(__fentry__|_mcount)>'
		RT_PAD_RE='[[:space:]]nopr$'
		# live forms (arch/s390.c): the call's brasl disabled by one
		# bit, `brcl 0` (jgnop) for %r0, `lgfi` for %r14 and %r1;
		# the -pg block keeps its stg and lg
		RT_PAD_NEUTRAL_RE='^(nopr|lgfi %r1,-?[0-9]+)$'
		# two nopr: too short for `brasl %r1` (6 bytes)
		RT_PAD_REFUSED='short_pad\+0x0>: 07 00 07 00 [0-9a-f ]*: NOP pad too short'
		RT_HOOK_LEAD_RE='stg.*%r14,8\(%r15\)'
		RT_NEUTRAL_RE='^(jgnop 0x[0-9a-f]+|lgfi %r14,-?[0-9]+|stg %r14,8\(%r15\)|lg %r14,8\(%r15\))$'
		RT_NEUTRAL_INSN_LEN=6
		;;
	aarch64)
		# -pg only (no -mfentry): `mov x0, x30; bl _mcount`.  ASan
		# runs under qemu-user once LeakSanitizer (which takes qemu
		# for a ptracer) is off; it reads its options from
		# /proc/self/environ, qemu's, so `env`, not `qemu -E`.
		RT_CC_DEFAULT=aarch64-linux-gnu-gcc
		RT_RUN="qemu-aarch64 -L /usr/aarch64-linux-gnu"
		RT_SAN_RUN="env ASAN_OPTIONS=detect_leaks=0"
		RT_VALGRIND=0
		RT_OBJDUMP=aarch64-linux-gnu-objdump
		RT_BFD=aarch64
		RT_ARCH_SRC=arch/aarch64.c
		RT_CASES="mcount-pie mcount-no-pie pad-pie+pad2
			  pad-no-pie+pad2 pad-pie+pad3m1bti"
		# clang's -pg: a bare `bl _mcount`, no `mov x0, x30` (the
		# trampoline takes the caller from the frame record); its pads
		# as GCC's.  +pac: pac-ret, the saved x30 is signed.
		RT_CLANG_TARGET=aarch64-linux-gnu
		RT_CASES="$RT_CASES mcount-pie+pac"
		RT_CLANG_CASES=$RT_CASES
		RT_HOOK_RE='bl[[:space:]]+[0-9a-f]+ <_mcount>'
		RT_PAD_RE='[[:space:]]nop$'
		RT_NEUTRAL_RE='^nop$'
		# a pad's live form (arch/aarch64.c): `mov x9, x30; nop`
		RT_PAD_NEUTRAL_RE='^(nop|mov x9, x30)$'
		;;
	riscv64)
		# -pg only.  By default ld relaxes each `auipc ra; jalr ra`
		# to `jal ra, _mcount` (4 bytes); the +norelax cases keep the
		# 8-byte pair (-mno-relax), as the kernel does.  Debian ships
		# no libubsan for riscv64: no sanitizer run.
		RT_CC_DEFAULT=riscv64-linux-gnu-gcc
		RT_RUN="qemu-riscv64 -L /usr/riscv64-linux-gnu"
		RT_SAN_RUN=-
		RT_VALGRIND=0
		RT_OBJDUMP=riscv64-linux-gnu-objdump
		RT_BFD=riscv:rv64
		RT_ARCH_SRC=arch/riscv.c
		RT_CASES="mcount-pie mcount-no-pie mcount-pie+norelax
			  mcount-no-pie+norelax pad-pie+pad8c pad-no-pie+pad4g"
		# clang: every case.  Its -pg is a bare `call _mcount`, no
		# `mv a0, ra` (a0 is still the first argument), after a
		# prologue that keeps ra at -8(s0); the runtime tells the
		# two forms apart at boot from the code before each hook
		# and gives each its trampoline.  Its pads are GCC's.
		# bad-riscv64.S's rt_unknown_site and rt_nosym_site (neither
		# form, no symbol) must be refused, with either compiler.
		RT_CLANG_TARGET=riscv64-linux-gnu
		RT_CLANG_CASES=$RT_CASES
		# the 8-byte pair's live forms too (GCC relaxes mcount-pie's
		# to jal; clang 14 does not)
		RT_STORM_EXTRA="mcount-pie+norelax"
		RT_HOOK_RE='jalr?[[:space:]].*<_mcount>'
		RT_PAD_RE='[[:space:]]nop$'
		RT_HOOK_LEAD_RE='auipc[[:space:]]+ra,'
		# live forms (arch/riscv.c): at a multiple of 4 the call's
		# `auipc` (ra; a pad's t0) then `nop`, or one `nop` for a
		# relaxed `jal`; at 2 mod 4 a `c.j` over the call it keeps
		RT_NEUTRAL_RE='^(nop|auipc (ra|t0),0x[0-9a-f]+|j 0x[0-9a-f]+)$'
		RT_NEUTRAL_INSN_LEN=4
		;;
	arm)
		# -pg only: `push {lr}; bl __gnu_mcount_nc`.  Debian's armhf
		# GCC emits Thumb-2; the +arm cases build the fixtures with
		# -marm (the library stays Thumb-2: sites call it with blx).
		# ASan as on aarch64.
		RT_CC_DEFAULT=arm-linux-gnueabihf-gcc
		RT_RUN="qemu-arm -L /usr/arm-linux-gnueabihf"
		RT_SAN_RUN="env ASAN_OPTIONS=detect_leaks=0"
		RT_VALGRIND=0
		RT_OBJDUMP=arm-linux-gnueabihf-objdump
		RT_BFD="arm -M force-thumb"
		RT_ARCH_SRC=arch/arm.c
		RT_CASES="mcount-pie mcount-no-pie mcount-pie+arm
			  mcount-no-pie+arm pad-pie+pad3 pad-no-pie+pad2arm
			  pad-pie+pad4m1arm"
		# clang: -meabi gnu for __gnu_mcount_nc (else a bare `bl
		# mcount`, unsupported); it defaults to ARM state for this
		# triple, so -mthumb, and the +arm cases' -marm comes after.
		# No -fpatchable-function-entry on arm in clang 14 or 16.
		RT_CLANG_TARGET=arm-linux-gnueabihf
		RT_CLANG_CFLAGS="-meabi gnu -mthumb"
		RT_CLANG_CASES="mcount-pie mcount-no-pie mcount-pie+arm
			  mcount-no-pie+arm"
		RT_CLANG_WHY="clang has no -fpatchable-function-entry on arm"
		# ARM state's live forms differ from Thumb-2's: storm both
		RT_STORM_EXTRA="mcount-pie+arm pad-no-pie+pad2arm"
		RT_HOOK_RE='blx?[[:space:]]+[0-9a-f]+ <__gnu_mcount_nc>'
		# Thumb `nop`; ARM `nop {0}` or `nop ; (mov r0, r0)`
		RT_PAD_RE='[[:space:]]nop([[:space:]].*)?$'
		# live forms (arch/arm.c): ARM `mov ip, lr; nop`, Thumb-2
		# `b.n` over the `bl`; hooks and pads alike (and the neutral
		# `add sp, sp, #4` of a hook without one); 2: Thumb's halfword
		RT_PAD_NEUTRAL_RE='^(nop( .*)?|mov ip, lr|b\.n 0x[0-9a-f]+)$'
		RT_NEUTRAL_RE='^(add(\.w)? sp, sp, #4|nop( \{0\})?|mov ip, lr|b\.n 0x[0-9a-f]+)$'
		RT_NEUTRAL_INSN_LEN=2
		;;
	*)
		return 1
		;;
	esac
}

# rt_variant <arch> <name>: what a case <style>-<pie|no-pie>+<name>
# changes from the architecture's defaults.  Sets RT_VARIANT_CFLAGS
# (for compiling and linking the test program, not the library),
# RT_VARIANT_BFD (objdump's -m for its raw bytes, if not RT_BFD), and
# for the pad style RT_VARIANT_HOOKS (the fixture's hook flags) and
# RT_VARIANT_NOP_LEN (bytes per pad NOP), RT_VARIANT_RUN (the runner,
# if not RT_RUN: a CPU qemu-user does not emulate by default) and
# RT_VARIANT_INSN_RE (ERE of an `objdump -d` line the hooked object must
# have: code only the variant's flags give) and RT_VARIANT_PAD_REFUSED
# (RT_PAD_REFUSED for the variant, if it differs).  False for a variant
# the architecture does not have.
rt_variant() {
	RT_VARIANT_CFLAGS= RT_VARIANT_BFD= RT_VARIANT_HOOKS= RT_VARIANT_NOP_LEN=
	RT_VARIANT_RUN= RT_VARIANT_INSN_RE= RT_VARIANT_PAD_REFUSED=
	case $1+$2 in
	x86_64+pad5 | i386+pad5)
		RT_VARIANT_HOOKS=-fpatchable-function-entry=5 RT_VARIANT_NOP_LEN=1
		;;
	x86_64+pad6m1 | i386+pad6m1)
		RT_VARIANT_HOOKS=-fpatchable-function-entry=6,1
		RT_VARIANT_NOP_LEN=1
		;;
	x86_64+pad5cet)
		# endbr64 first, then the pad: the table's entry is after it
		RT_VARIANT_HOOKS=-fpatchable-function-entry=5 RT_VARIANT_NOP_LEN=1
		RT_VARIANT_CFLAGS=-fcf-protection
		;;
	x86_64+clangpad5 | i386+clangpad5)
		# clang: one `nopl 0x8(%rax,%rax,1)` (x86_64); i686: xchg
		# %ax,%ax x 2; nop
		RT_VARIANT_HOOKS=-fpatchable-function-entry=5
		;;
	x86_64+clangpad10m3)
		# clang: nop x 3; <symbol>: nopl 0x200(%rax), seven bytes the
		# five-byte call takes whole
		RT_VARIANT_HOOKS=-fpatchable-function-entry=10,3
		;;
	x86_64+clangpad16cet)
		# clang 16: endbr64; one fifteen-byte NOP (data16 x 5; cs
		# nopw); nop.  Clang 14: a ten-byte NOP and a six-byte one
		RT_VARIANT_HOOKS=-fpatchable-function-entry=16
		RT_VARIANT_CFLAGS=-fcf-protection
		;;
	x86_64+pad6m1cet)
		# nop; <symbol>: endbr64; nop x 5
		RT_VARIANT_HOOKS=-fpatchable-function-entry=6,1
		RT_VARIANT_NOP_LEN=1 RT_VARIANT_CFLAGS=-fcf-protection
		;;
	aarch64+pad2)
		RT_VARIANT_HOOKS=-fpatchable-function-entry=2 RT_VARIANT_NOP_LEN=4
		;;
	aarch64+pad3m1bti)
		# nop; <symbol>: bti c; nop; nop
		RT_VARIANT_HOOKS=-fpatchable-function-entry=3,1
		RT_VARIANT_NOP_LEN=4 RT_VARIANT_CFLAGS=-mbranch-protection=bti
		;;
	aarch64+pac)
		# paciasp before x30 is saved: the frame record holds it signed
		RT_VARIANT_CFLAGS=-mbranch-protection=pac-ret
		;;
	riscv64+pad8c)
		# rv64gc: eight 2-byte c.nop
		RT_VARIANT_HOOKS=-fpatchable-function-entry=8 RT_VARIANT_NOP_LEN=2
		;;
	riscv64+pad4g)
		# rv64g, no C extension: four 4-byte nop
		RT_VARIANT_HOOKS=-fpatchable-function-entry=4 RT_VARIANT_NOP_LEN=4
		RT_VARIANT_CFLAGS=-march=rv64g
		;;
	riscv64+norelax)
		RT_VARIANT_CFLAGS=-mno-relax
		;;
	arm+arm)
		RT_VARIANT_CFLAGS=-marm RT_VARIANT_BFD=arm
		;;
	ppc64le+pad2)
		# two nops, the 8 bytes of `mflr r0; bl`
		RT_VARIANT_HOOKS=-fpatchable-function-entry=2 RT_VARIANT_NOP_LEN=4
		;;
	ppc64le+p10 | ppc64le+pad2p10)
		# ELFv2 PC-relative code: `bl _mcount` (R_PPC64_REL24_NOTOC)
		# with no TOC-restore slot, no TOC set-up, pld for globals,
		# which qemu's default CPU (power9) takes for illegal
		RT_VARIANT_CFLAGS=-mcpu=power10
		RT_VARIANT_RUN="${RT_RUN:+$RT_RUN -cpu power10}"
		# a prefixed instruction (fixture.c's pla of a static)
		RT_VARIANT_INSN_RE='[[:space:]]p(la|ld|lwz|std|stw)[[:space:]]'
		if [ $2 = pad2p10 ]; then
			RT_VARIANT_HOOKS=-fpatchable-function-entry=2
			RT_VARIANT_NOP_LEN=4
			# no TOC set-up for GCC 12 to pad before: short_pad
			# alone is refused
			RT_VARIANT_PAD_REFUSED=$(echo "$RT_PAD_REFUSED" | head -1)
		fi
		;;
	ppc64le+pad3m1)
		# nop; <symbol>: nop x 2: the call goes at the entry
		RT_VARIANT_HOOKS=-fpatchable-function-entry=3,1
		RT_VARIANT_NOP_LEN=4
		;;
	s390x+pad3)
		# three 2-byte nopr, the 6 bytes of `brasl %r1`
		RT_VARIANT_HOOKS=-fpatchable-function-entry=3 RT_VARIANT_NOP_LEN=2
		;;
	s390x+pad5m2)
		# nopr x 2; <symbol>: nopr x 3: the call goes at the entry
		RT_VARIANT_HOOKS=-fpatchable-function-entry=5,2
		RT_VARIANT_NOP_LEN=2
		;;
	arm+pad3)
		# Thumb-2: three 2-byte nops, the 6 bytes of `push {lr}; bl`
		RT_VARIANT_HOOKS=-fpatchable-function-entry=3 RT_VARIANT_NOP_LEN=2
		;;
	arm+pad2arm)
		# ARM state: two 4-byte nops, the 8 bytes of `push {lr}; bl`
		RT_VARIANT_HOOKS=-fpatchable-function-entry=2 RT_VARIANT_NOP_LEN=4
		RT_VARIANT_CFLAGS=-marm RT_VARIANT_BFD=arm
		;;
	arm+pad4m1arm)
		# nop; <symbol>: nop x 3 (ARM): the call goes at the entry
		RT_VARIANT_HOOKS=-fpatchable-function-entry=4,1
		RT_VARIANT_NOP_LEN=4
		RT_VARIANT_CFLAGS=-marm RT_VARIANT_BFD=arm
		;;
	*)
		return 1
		;;
	esac
}
