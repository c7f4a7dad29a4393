# arches.sh - what tests/runtime/run.sh needs to know per architecture.
# Sourced by run.sh; `rt_arch_config <arch>` sets:
#
#   RT_CC_DEFAULT   compiler when CC is not given (cross: <triplet>-gcc)
#   RT_RUN          runner prefix for the target's programs: empty when
#                   they run natively, else e.g. "qemu-aarch64 -L
#                   /usr/aarch64-linux-gnu"
#   RT_SAN_RUN      runner for the ASan/UBSan build ("-": no sanitizers)
#   RT_VALGRIND     1 if valgrind can run the target's programs
#   RT_OBJDUMP      objdump that knows the target (<triplet>-objdump)
#   RT_BFD          its -m name for raw bytes (objdump -b binary -m ...)
#   RT_ARCH_SRC     the arch/ file the runtime library is built from
#   RT_CASES        what to build and run: <style>-<pie|no-pie>[-gotcall]
#                   style: fentry (-pg -mfentry) or mcount (-pg);
#                   gotcall: assembled with RT_GOTCALL_CFLAGS, so the
#                   hooks stay calls through the GOT (not relaxed by ld)
#   RT_GOTCALL_CFLAGS
#   RT_HOOK_RE      ERE an `objdump -d` line of a hook call matches
#   RT_GOTCALL_RE   the same for an unrelaxed call through the GOT (the
#                   runtime, not this script, checks the pointer)
#   RT_NEUTRAL_RE   ERE every instruction rt_test reads back at a site
#                   after boot must match (objdump of the raw bytes)
#
# To add an architecture: a case below, tests/runtime/bad-<arch>.S (a
# non-hook site, a duplicated real hook, and rt_dummy; see the x86
# ones), and its backend in runtime/ and runtime/runtime.mk.

rt_arch_config() {
	RT_RUN= RT_SAN_RUN= RT_VALGRIND=1 RT_GOTCALL_CFLAGS= RT_GOTCALL_RE=
	case $1 in
	x86_64)
		RT_CC_DEFAULT=gcc
		RT_OBJDUMP=objdump
		RT_BFD=i386:x86-64
		RT_ARCH_SRC=arch/x86.c
		RT_CASES="fentry-pie fentry-no-pie mcount-pie mcount-no-pie
			  fentry-pie-gotcall mcount-pie-gotcall"
		RT_GOTCALL_CFLAGS=-Wa,-mrelax-relocations=no
		RT_HOOK_RE='call.*<(__fentry__|mcount)>'
		RT_GOTCALL_RE='call +\*0x[0-9a-f]+\(%rip\)'
		RT_NEUTRAL_RE='^(nop[wl]?|xchg +%ax,%ax|data16 cs nopw)'
		;;
	i386)
		# GCC refuses -mfentry with -fpic on i386: no fentry PIE.
		# Runs natively (libc6-i386); ASan's runtime comes with the
		# cross compiler, under /usr/i686-linux-gnu/lib.
		RT_CC_DEFAULT=i686-linux-gnu-gcc
		RT_SAN_RUN="env LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib"
		RT_OBJDUMP=i686-linux-gnu-objdump
		RT_BFD=i386
		RT_ARCH_SRC=arch/x86.c
		RT_CASES="fentry-no-pie mcount-pie mcount-no-pie
			  mcount-pie-gotcall"
		RT_GOTCALL_CFLAGS=-Wa,-mrelax-relocations=no
		RT_HOOK_RE='call.*<(__fentry__|mcount)>'
		RT_GOTCALL_RE='call +\*-?0x[0-9a-f]+\(%ebx\)'
		RT_NEUTRAL_RE='^(nop[wl]?|xchg +%ax,%ax)'
		;;
	*)
		return 1
		;;
	esac
}
