#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/check.sh TOOL - the whole kernel test for one architecture,
# $MC_KERNEL_ARCH (lib.sh: x86_64, the default, or one of KERNEL_ALL_ARCHS):
# build a real kernel (lib.sh's KERNEL_SERIES: 6.12 or 6.1) with TOOL as
# scripts/recordmcount, check that
# Kbuild ran it on every traced object, reproduce the kernel tool's
# failure on a section left with weak symbols only (where it has one),
# boot the kernel with ftrace, and compare TOOL's tables with the kernel
# tool's over every object.  Exits 1 if any check failed.
set -eu
. "$(dirname "$0")/lib.sh"

# The source is prepared first (on an empty cache, or after a new
# linux-source package, that extracts it), then the binary under test
# is copied, so that a rebuild of the work tree meanwhile changes
# nothing here.  The copy lives in $WORK, which no later step deletes
# (prepare.sh removes only the source, build.sh only its build tree).
under_test=${1:?usage: check.sh PATH-TO-OUR-RECORDMCOUNT}
name=$NAME
t0=$(now)
if ! "$MC_TOP/kernel/prepare.sh"; then
	fail "$name-prepare" "could not extract linux-source-$KERNEL_SERIES"
	exit 1
fi
# Where this series offers no function tracer for the architecture and
# compiler (lib.sh's FTRACE_BLOCKER), there is nothing to build: a SKIP,
# while the source still says so.  A source that no longer says it is
# built as any other, and that build says whether ftrace works.
if [ -n "$FTRACE_BLOCKER" ]; then
	if tr -s ' \t' '  ' <"$KERNEL_SRC/$FTRACE_BLOCKER_FILE" | grep -q -x -F -e "$FTRACE_BLOCKER_LINE"; then
		pass "$name-ftrace-blocker-holds"
		result "SKIP: $name-build: $FTRACE_BLOCKER"
		exit "$MC_FAILED"
	fi
	echo "kernel: $FTRACE_BLOCKER_FILE no longer has the line \"$FTRACE_BLOCKER_LINE\": building; remove FTRACE_BLOCKER from lib.sh if ftrace works"
	# MC_KERNEL_STOP=prepared (the harness test): no further.
	if [ "${MC_KERNEL_STOP:-}" = prepared ]; then
		echo "kernel: stopped once prepared"
		exit "$MC_FAILED"
	fi
	need_packages
fi
mkdir -p "$WORK"
cp "$under_test" "$WORK/recordmcount-under-test"
tool=$WORK/recordmcount-under-test

# --- build ---------------------------------------------------------
if ! "$MC_TOP/kernel/build.sh" "$tool"; then
	fail "$name-build" "see $WORK/build.log"
	exit 1
fi
# MC_KERNEL_STOP=configured (the harness test in make check): the
# build stopped once configured; the tool must still be where it was.
if [ "${MC_KERNEL_STOP:-}" = configured ]; then
	if cmp -s "$under_test" "$tool"; then
		pass "$name-configured-tool-kept"
	else
		fail "$name-configured-tool-kept" "$tool is gone or changed after preparation"
	fi
	exit "$MC_FAILED"
fi
pass "$name-build"
t_build=$(elapsed "$t0")
# Built by the compiler, assembler and linker asked for (lib.sh).
not_cc=""
for sym in $CC_CONFIG; do
	grep -q "^CONFIG_$sym=y\$" "$KBUILD/.config" || not_cc="$not_cc $sym"
done
if [ -z "$not_cc" ]; then
	pass "$name-toolchain"
else
	fail "$name-toolchain" "not in $KBUILD/.config:$not_cc"
fi

# --- Kbuild ran scripts/recordmcount (ours) on every traced object --
# The rule runs it after compiling each C file whose flags hold
# CC_FLAGS_FTRACE ("-pg -mfentry" on x86, "-pg" on arm and arm64); no
# object may have been compiled with -mrecord-mcount, and objtool must
# not be given --mcount.  Some objects are compiled with those flags by
# rules of their own that never run recordmcount, and hold no code to
# trace: scripts/mod/empty.o, with modules on .vmlinux.export.o (the
# export tables modpost writes as C), and where the configuration has
# modules of its own (ppc64le's tinyconfig: powernv-op-panel.ko,
# cxl.ko) each module's NAME.mod.o (its modinfo and version tables,
# modpost's NAME.mod.c, compiled by scripts/Makefile.modfinal) and,
# from 6.11, the one .module-common.o they all link (the vermagic
# modinfo of scripts/module-common.c, by the same rule); each is
# checked to hold no hook call.
traced=$WORK/traced-objects.txt
find "$KBUILD" -name '.*.o.cmd' -exec grep -l -E "^(saved)?cmd_.* $FTRACE_CFLAGS " {} + |
	sed -e "s|^$KBUILD/||" -e 's|\(.*\)/\.\(.*\)\.cmd$|\1/\2|' -e 's|^\.\(.*\)\.cmd$|\1|' |
	sort >"$WORK/ftrace-flag-objects.txt"
untraced_rules=$(grep -x -e scripts/mod/empty.o -e .vmlinux.export.o -e '.*\.mod\.o' -e '\.module-common\.o' \
	"$WORK/ftrace-flag-objects.txt" || true)
echo "$untraced_rules" | grep -v -x -F -f - "$WORK/ftrace-flag-objects.txt" >"$traced" || true
for o in $untraced_rules; do
	[ -f "$KBUILD/$o" ] || continue
	if [ -n "$PADS" ]; then
		# riscv64: no calls, pads, which the compiler lists in its own table.
		if "${CROSS_COMPILE}readelf" -SW "$KBUILD/$o" | grep -q __patchable_function_entries; then
			fail "$name-no-hook-in-$o" "Kbuild does not record $o, and it has pads"
		fi
	elif "${CROSS_COMPILE}objdump" -dr "$KBUILD/$o" | grep -q "[[:space:]]$HOOK_SYMBOL"; then
		fail "$name-no-hook-in-$o" "Kbuild does not record $o, and it calls $HOOK_SYMBOL"
	fi
done
(cd "$CAPTURE" && find . -name '*.o' | sed 's|^\./||' | sort) >"$WORK/captured-objects.txt"
missing=$(comm -23 "$traced" "$WORK/captured-objects.txt" | head -n 5)
cc_table=$(find "$KBUILD" -name '.*.o.cmd' -exec grep -l -e '-mrecord-mcount' {} + | head -n 3 || true)
objtool_table=$(find "$KBUILD" -name '.*.o.cmd' -exec grep -l -e 'objtool.*--mcount' {} + | head -n 3 || true)
echo "objects compiled with $FTRACE_CFLAGS: $(wc -l <"$traced");" \
	"objects our wrapper saw: $(wc -l <"$WORK/captured-objects.txt");" \
	"calls: $(wc -l <"$CAPTURE/.invocations")"
if [ -s "$traced" ] && [ -z "$missing$cc_table$objtool_table" ]; then
	pass "$name-recordmcount-ran-per-object"
else
	fail "$name-recordmcount-ran-per-object" \
		"not seen: ${missing:-none}; -mrecord-mcount in: ${cc_table:-none}; objtool --mcount in: ${objtool_table:-none}"
fi

# --- the kernel's own tool stops on kernel/exit.o; ours does not ----
# (x86_64 with GCC only: WEAK_ONLY in lib.sh says why arm, and clang,
# have no such object.)
weak_only_check() {
	# binutils >= 2.36 drops unused section symbols, and exit.o's
	# .text.unlikely then holds only the weak symbol abort(): the kernel's
	# recordmcount will not anchor a table entry on a weak symbol and gives
	# up, which would stop this very build.
	echo "--- Kbuild with the kernel's own recordmcount, make kernel/exit.o (build.sh):"
	grep -e 'Cannot find symbol' -e 'exit.o' "$WORK/kernel-tool-build.log" | sed 's/^/    /'
	if grep -q 'Cannot find symbol for section [0-9]*: \.text\.unlikely' "$WORK/kernel-tool-build.log" &&
		grep -q 'kernel/exit.o\] Error' "$WORK/kernel-tool-build.log"; then
		pass "$name-kernel-tool-stops-build-at-exit.o"
	else
		fail "$name-kernel-tool-stops-build-at-exit.o" "see $WORK/kernel-tool-build.log"
	fi
	repro=$WORK/repro
	rm -rf "$repro" && mkdir -p "$repro"
	cp "$CAPTURE/kernel/exit.o" "$repro/kernel-tool.o"
	cp "$CAPTURE/kernel/exit.o" "$repro/ours.o"
	echo "--- the kernel's recordmcount on the raw kernel/exit.o:"
	k_status=0
	"$KERNEL_TOOL" "$repro/kernel-tool.o" >"$repro/kernel-tool.txt" 2>&1 || k_status=$?
	sed 's/^/    /' "$repro/kernel-tool.txt"
	echo "    (exit status $k_status)"
	echo "--- ours on the same object:"
	o_status=0
	"$tool" -v "$repro/ours.o" >"$repro/ours.txt" 2>&1 || o_status=$?
	sed 's/^/    /' "$repro/ours.txt"
	"$tool" --dump "$repro/ours.o" | grep -e 'table entr' -e '\.text\.unlikely' | sed 's/^/    /'
	echo "    (exit status $o_status)"
	if [ "$k_status" -ne 0 ] && grep -q 'Cannot find symbol for section' "$repro/kernel-tool.txt" &&
		[ "$o_status" -eq 0 ] && "$tool" --dump "$repro/ours.o" | grep -q '\.text\.unlikely+0x0 '; then
		pass "$name-weak-only-section-exit.o"
	else
		fail "$name-weak-only-section-exit.o" \
			"kernel tool status $k_status, ours $o_status (see $repro)"
	fi
}
[ -z "$WEAK_ONLY" ] || weak_only_check

# --- boot ----------------------------------------------------------
t1=$(now)
# boot.sh prints its own PASS/FAIL lines (or dies without a kernel).
# Where lib.sh names a known reason the kernel cannot boot here
# (BOOT_BLOCKER, sh4), the boot is still tried, but its checks are
# reported as one SKIP while it fails exactly that way: no line on the
# serial console, and the compiler still has the flaw (the reproducer
# BOOT_BLOCKER_SOURCE compiled at -Os: no tst or cmp).  A boot that
# works, or that fails otherwise, is a FAIL.
if [ -n "$BOOT_BLOCKER" ]; then
	blocker_tests=$("${CROSS_COMPILE}gcc" -Os -S -o - "$MC_TOP/kernel/$BOOT_BLOCKER_SOURCE" |
		grep -c -E '^[[:space:]]+(tst|cmp)' || true)
	boot_status=0
	TEST_RESULTS='' "$MC_TOP/kernel/boot.sh" "$tool" >"$WORK/boot.txt" 2>&1 || boot_status=$?
	sed 's/^/    /' "$WORK/boot.txt"
	# QEMU's own messages (its "terminating on signal 15" at the
	# timeout) share the log and are not the console's.
	serial_lines=$(grep -v '^qemu-system-' "$BOOT/serial.log" 2>/dev/null | grep -c . || true)
	echo "kernel: known boot blocker: boot.sh status $boot_status, ${serial_lines:-0} lines on the console, $blocker_tests tst/cmp in $BOOT_BLOCKER_SOURCE at -Os"
	if [ "$boot_status" -eq 0 ]; then
		fail "$name-boot-blocker" "the kernel booted: remove BOOT_BLOCKER from lib.sh ($BOOT_BLOCKER)"
	elif [ "$blocker_tests" = 0 ] && [ "${serial_lines:-0}" = 0 ]; then
		pass "$name-boot-blocker-holds"
		result "SKIP: $name-boot: $BOOT_BLOCKER"
	else
		fail "$name-boot-blocker" "the boot failed otherwise (${serial_lines:-0} console lines, $blocker_tests tst/cmp in $BOOT_BLOCKER_SOURCE), see $BOOT/serial.log"
	fi
else
	"$MC_TOP/kernel/boot.sh" "$tool" || MC_FAILED=1
fi
t_boot=$(elapsed "$t1")

# --- the CI gate on the real image: --check, --finalize --------------
# build.sh finalized vmlinux before the boot image was made and kept the
# linker's own copy (vmlinux.raw).  On that copy the only problems are
# stale entries (overridden __weak bodies), and they must be exactly
# the entries nm puts in no function (gate.py).  The booted vmlinux must
# then pass --check --sorted with exactly those entries cleared, and a
# second --finalize must change nothing.
gate=$WORK/gate
rm -rf "$gate" && mkdir -p "$gate"
raw=$WORK/vmlinux.raw
t_check=$(date +%s.%N)
"$tool" --check --format=json "$raw" >"$gate/check.json" || true
t_check=$(echo "$(date +%s.%N) - $t_check" | bc)
echo "kernel: --check of the linked vmlinux ($(wc -c <"$raw") bytes) took $t_check s"
"$tool" --dump --format=json "$raw" >"$gate/dump.json"
"${CROSS_COMPILE}nm" -S "$raw" >"$gate/nm.txt"
if python3 "$MC_TOP/kernel/gate.py" "$gate/check.json" "$gate/dump.json" \
	"$gate/nm.txt" >"$gate/gate.txt" 2>&1; then
	pass "$name-check-stale-entries-equal-nm"
else
	fail "$name-check-stale-entries-equal-nm" "$(head -n 2 "$gate/gate.txt" | tr '\n' ' ')"
fi
cat "$gate/gate.txt"
stale=$(sed -n 's/^stale=//p' "$gate/gate.txt")
# Every hook call in the text is a table entry, and every entry a hook
# call (hooks.py): objdump's own reading of the linked code against the
# linker's table (vmlinux.raw, before --finalize zeroes the entries of
# overridden __weak bodies; the text is the same in both).
# With pads (riscv64) a hook is a function entry whose first
# instructions are the pad, and the table is that of the finalized
# vmlinux (hooks.py: the overridden __weak bodies' pads have no header).
if [ -n "$PADS" ]; then
	"$tool" --dump --format=json "$KBUILD/vmlinux" >"$gate/dump-finalized.json"
	# shellcheck disable=SC2086 # one word per pad instruction
	"${CROSS_COMPILE}objdump" -d "$KBUILD/vmlinux" | grep -E -A"$(echo $PADS | wc -w)" '>:$' |
		python3 "$MC_TOP/kernel/hooks.py" "$gate/dump-finalized.json" --pads "$PADS" \
		>"$gate/hooks.txt" 2>&1 &&
		hooks_ok=1 || hooks_ok=0
# SH (LINKED_HOOK_FORM=literal-pool): the hook is the pool word a
# "mov.l" loads the hook's address from, where a jmp through that
# register follows: the four lines after each load go too.
elif [ "$LINKED_HOOK_FORM" = literal-pool ]; then
	"${CROSS_COMPILE}objdump" -d "$raw" |
		grep -E -A4 "<$LINKED_HOOK_SYMBOL>\$|>:\$" |
		python3 "$MC_TOP/kernel/hooks.py" --literal-pool "$gate/dump.json" "$LINKED_HOOK_SYMBOL" \
		>"$gate/hooks.txt" 2>&1 &&
		hooks_ok=1 || hooks_ok=0
else
	"${CROSS_COMPILE}objdump" -d "$raw" |
		grep -E "<$LINKED_HOOK_SYMBOL>\$|>:\$${LINKED_HOOK:+|:[[:space:]]+${LINKED_HOOK}[[:space:]]}" |
		python3 "$MC_TOP/kernel/hooks.py" --resync "${CROSS_COMPILE}objdump" "$raw" "$gate/dump.json" "$LINKED_HOOK_SYMBOL" ${LINKED_HOOK:+"$LINKED_HOOK" "$raw"} \
		>"$gate/hooks.txt" 2>&1 &&
		hooks_ok=1 || hooks_ok=0
fi
sed 's/^/    /' "$gate/hooks.txt"
hooks_missing=$(sed -n 's/^hooks=.* missing=\([0-9]*\) .*/\1/p' "$gate/hooks.txt")
if [ "$hooks_ok" = 1 ]; then
	pass "$name-every-hook-call-is-a-table-entry"
else
	fail "$name-every-hook-call-is-a-table-entry" "$(head -n 3 "$gate/hooks.txt" | tr '\n' ' ')"
fi

# --- the kernel's sorttable and our --finalize zero the same entries --
# Where the architecture sorts __mcount_loc at build time
# (BUILDTIME_MCOUNT_SORT: x86, arm, arm64), 6.12's scripts/sorttable
# also zeroes the entries that lie in no function, as --finalize does.
# build.sh's wrapper kept its output (vmlinux.sorttable); ours is
# --finalize on the linker's vmlinux; the two tables must be the same,
# word for word (sortagree.py), but for the entries of two known flaws
# of sorttable's, each named on a line of its own ("known sorttable
# flaw:", sortagree.py says which: with llvm-nm's list it may zero the
# entry of a live function at the address of a size-0 marker symbol;
# with any list, its fscanf loses the line after a sizeless symbol of a
# one-character name, and that function's entries are zeroed).  The nm
# list sorttable read is build.sh's vmlinux.nm-sort; without it no
# entry is taken for either flaw.
sorttable_check() {
	cp "$raw" "$gate/vmlinux.ours"
	"$tool" --finalize "$gate/vmlinux.ours" >/dev/null 2>&1 ||
		{ fail "$name-sorttable-zeroes-as-finalize" "--finalize failed on a copy of $raw"; return; }
	"$tool" --dump --format=json "$gate/vmlinux.ours" >"$gate/dump-ours.json"
	"$tool" --dump --format=json "$WORK/vmlinux.sorttable" >"$gate/dump-sorttable.json"
	rm -f "$gate/vmlinux.ours"
	nm_list=
	[ ! -f "$WORK/vmlinux.nm-sort" ] || nm_list=$WORK/vmlinux.nm-sort
	if python3 "$MC_TOP/kernel/sortagree.py" "$gate/dump.json" "$gate/dump-ours.json" \
		"$gate/dump-sorttable.json" ${nm_list:+"$nm_list"} >"$gate/sortagree.txt" 2>&1; then
		pass "$name-sorttable-zeroes-as-finalize"
	else
		fail "$name-sorttable-zeroes-as-finalize" "$(head -n 4 "$gate/sortagree.txt" | tr '\n' ' ')"
	fi
	sed 's/^/    /' "$gate/sortagree.txt"
}
if [ -z "$SORTTABLE_ZEROES" ]; then
	:
elif ! grep -q '^CONFIG_BUILDTIME_MCOUNT_SORT=y$' "$KBUILD/.config"; then
	result "SKIP: $name-sorttable-zeroes-as-finalize: $KARCH does not sort __mcount_loc at build time (no BUILDTIME_MCOUNT_SORT): the kernel's sorttable leaves it alone"
elif [ ! -f "$WORK/vmlinux.sorttable" ]; then
	fail "$name-sorttable-zeroes-as-finalize" "no $WORK/vmlinux.sorttable: build.sh's sorttable wrapper did not run"
else
	sorttable_check
fi

# The booted vmlinux holds sorttable's table, then our --finalize's: the
# entries of sorttable's known flaws (above) are zeroed there too, and
# --check --sorted finds the hook call of each one unrecorded.  Passes
# with exactly those: as many more entries cleared, and one problem
# each, "unrecorded", at exactly their addresses.
booted_check() {
	"$tool" --check --sorted "$KBUILD/vmlinux" >"$gate/final.txt" 2>&1 || true
	flaws=$(sed -n 's/^known sorttable flaw: \(0x[0-9a-f]*\) .*/\1/p' "$gate/sortagree.txt" 2>/dev/null | sort)
	n_flaws=$(printf '%s' "$flaws" | grep -c . || true)
	problems=$(sed -n 's/^.*: \(0x[0-9a-f]*\) <[^>]*>: \([a-z-]*\): .*/\1 \2/p' "$gate/final.txt" | sort)
	expected=$(for a in $flaws; do echo "$a unrecorded"; done)
	for a in $flaws; do
		echo "kernel: booted vmlinux: the hook call at $a is unrecorded by a known flaw of sorttable's, not by ours"
	done
	if [ "$problems" = "$expected" ] &&
		grep -q "($(( ${stale:-0} + n_flaws )) cleared).* $n_flaws problem" "$gate/final.txt"; then
		pass "$name-booted-vmlinux-finalized-check-sorted-clean"
	else
		fail "$name-booted-vmlinux-finalized-check-sorted-clean" "$(tail -n 2 "$gate/final.txt" | tr '\n' ' ')"
	fi
	sed 's/^/    /' "$gate/final.txt"
}
booted_check
cp "$KBUILD/vmlinux" "$gate/vmlinux"
if "$tool" --finalize "$gate/vmlinux" && cmp -s "$gate/vmlinux" "$KBUILD/vmlinux"; then
	pass "$name-finalize-idempotent"
else
	fail "$name-finalize-idempotent" "a second --finalize changed vmlinux"
fi

# --- the out-of-tree module, finalized by build.sh, loaded by boot.sh --
mod=$WORK/module/mctest.ko
if "$tool" --check "$mod" >"$gate/module-check.txt" 2>&1 &&
	grep -q ' 0 problems' "$gate/module-check.txt"; then
	# Under MODULE_BLOCKER the module has no table to check (our tool
	# recorded none of its calls): clean, but it proves nothing.
	if [ -n "$MODULE_BLOCKER" ]; then
		result "SKIP: $name-module-check-clean: $MODULE_BLOCKER"
	else
		pass "$name-module-check-clean"
	fi
else
	fail "$name-module-check-clean" "$(tail -n 2 "$gate/module-check.txt" | tr '\n' ' ')"
fi
sed 's/^/    /' "$gate/module-check.txt"

# --- MODULE_BLOCKER (mips, mips64el with clang) still holds ----------
# The module is not loaded because clang's -mlong-calls -pg call has no
# "move at, ra" (lib.sh).  This passes only while every _mcount call
# in the module's objects is still that sequence: from the first
# instruction an _mcount relocation names ("lui at, ...") through the
# "jalr t9" and its delay slot, with no "move at, ra" there or just
# before.  The day clang writes GCC's form (or no _mcount call at all),
# it fails: remove MODULE_BLOCKER from lib.sh.
module_blocker_check() {
	for o in "$WORK"/module/*.o; do
		case $o in *.mod.o) continue ;; esac
		"${CROSS_COMPILE}objdump" -dr "$o"
	done >"$gate/module-objects.dis"
	blocker_sites=$(awk -F'\t' '
	# An instruction: "  14:<TAB>3c010000 <TAB>lui<TAB>at,0x0".
	$1 ~ /^ *[0-9a-f]+:$/ && $3 != "" {
		insn = $3 " " $4
		if (slot) {
			if (insn == "move at,ra") bad = 1
			n++; if (!bad) clang++
			open = slot = bad = 0
		} else if (open) {
			if (insn == "move at,ra") bad = 1
			if ($3 ~ /^jalr/) { slot = 1; if (insn != "jalr t9") bad = 1 }
			if (++len > 8) { n++; open = 0 }
		}
		before = cur; cur = insn
		next
	}
	# A relocation: "<TAB><TAB><TAB>14: R_MIPS_HI16<TAB>_mcount".
	$4 ~ /^[0-9a-f]+: R_MIPS_/ && $5 == "_mcount" && !open {
		open = 1; len = 0; bad = 0
		if (cur !~ /^lui at,/ || before == "move at,ra") bad = 1
	}
	END { print n + 0, clang + 0 }' "$gate/module-objects.dis")
	blocker_calls=${blocker_sites% *}
	blocker_clang=${blocker_sites#* }
	echo "kernel: module blocker: $blocker_calls _mcount calls in the module's objects, $blocker_clang of them clang's long call without \"move at, ra\""
	if [ "$blocker_calls" -gt 0 ] && [ "$blocker_calls" = "$blocker_clang" ]; then
		pass "$name-module-blocker-holds"
	else
		fail "$name-module-blocker-holds" "$blocker_clang of $blocker_calls _mcount calls in $WORK/module/*.o are clang's long call without \"move at, ra\": remove MODULE_BLOCKER from lib.sh ($MODULE_BLOCKER) if clang's -pg calls changed"
	fi
}
[ -z "$MODULE_BLOCKER" ] || module_blocker_check

# --- agreement with the kernel's own recordmcount ------------------
t2=$(now)
# With pads (riscv64, where the kernel's C tool has no support) the
# reference is the compiler's own __patchable_function_entries of each raw
# object (GCC's or clang's).
reference=$KERNEL_TOOL
[ -z "$PADS" ] || reference=--compiler-pads
if python3 "$MC_TOP/kernel/agree.py" "$tool" "$reference" "$CAPTURE" "$WORK/agree" "$KERNEL_TOOL_SHIFT" \
	>"$WORK/agreement.txt" 2>&1; then
	cat "$WORK/agreement.txt"
	pass "$name-agreement-with-kernel-tool"
else
	cat "$WORK/agreement.txt"
	fail "$name-agreement-with-kernel-tool" "$(tail -n1 "$WORK/agreement.txt")"
fi
# The kernel's tool fails on exactly the object lib.sh names (WEAK_ONLY:
# x86_64 with GCC, kernel/exit.o), and on nothing else.
k_failed=$(sed -n '/^kernel tool failures/,/^agreement:/s/^  \([^ :]*\): kernel tool:.*/\1/p' \
	"$WORK/agreement.txt" | sort | tr '\n' ' ')
if [ "$k_failed" = "${WEAK_ONLY:+$WEAK_ONLY }" ]; then
	pass "$name-kernel-tool-failures-as-expected"
else
	fail "$name-kernel-tool-failures-as-expected" \
		"the kernel's tool failed on: ${k_failed:-nothing}; expected: ${WEAK_ONLY:-nothing}"
fi
t_agree=$(elapsed "$t2")
echo "kernel: $KARCH $KCC times: build $t_build, boot $t_boot, agreement $t_agree, total $(elapsed "$t0")"

# --- one line for the whole build (issue 14), the log's last ---------
# ftrace entries: allocated at boot; table: entries of vmlinux's
# __mcount_loc; hooks missing: hook calls in the text (objdump) that are
# no table entry; traceable: lines of available_filter_functions;
# traced: the function traced and its lines in trace; bugs: lines of
# the serial log boot.sh rejects; agree: objects on which both tools
# wrote the same sites and bytes, of those captured.
boot_allocated=none boot_table=none boot_available=none boot_traced=none boot_bugs=none
# shellcheck disable=SC1091
[ -f "$BOOT/figures.sh" ] && . "$BOOT/figures.sh"
if grep -q '^CONFIG_CC_IS_CLANG=y' "$KBUILD/.config"; then compiler=clang; else compiler=gcc; fi
agreed=$(sed -n 's/^agreement: \([0-9]*\) agree,.*/\1/p' "$WORK/agreement.txt")
objects=$(sed -n 's/^agreement: \([0-9]*\) objects,.*/\1/p' "$WORK/agreement.txt")
summary="kernel $KARCH $compiler: ftrace entries=$boot_allocated, table entries=$boot_table,"
summary="$summary hooks missing from table=${hooks_missing:-none}, traceable=$boot_available,"
summary="$summary traced=$boot_traced, bugs=$boot_bugs, agree=${agreed:-none}/${objects:-none} objects"
result "$summary"
exit "$MC_FAILED"
