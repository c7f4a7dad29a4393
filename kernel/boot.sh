#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/boot.sh TOOL - boot the kernel built by build.sh under QEMU
# (TCG, no KVM needed) with our init (init.c) and check that ftrace
# works on the table our recordmcount wrote.  Prints PASS/FAIL lines.
# The architecture is $MC_KERNEL_ARCH (lib.sh).
#
# The figures, and why they differ:
#   table       entries of __mcount_loc in vmlinux, from
#               "TOOL --dump --format=json vmlinux" and, independently,
#               (__stop_mcount_loc - __start_mcount_loc) / WORD from nm.
#   allocated   "ftrace: allocating N entries" at boot: ftrace sizes its
#               records from the same two symbols, so N == table; 6.12
#               counts only the entries it did not skip for being zero
#               (lib.sh's FTRACE_SKIPS_ZEROED): N == table - zeroed.
#   available   lines of available_filter_functions once init runs: the
#               table less its sites in .init.text, whose records ftrace
#               drops when the init memory is freed after boot.
#   unnamed     sites in no function the dump can name: the bodies of
#               __weak functions that another object overrode (the
#               linker keeps their code, hence the table entry, but not
#               their symbol).  kallsyms gives them the name of the
#               symbol before them, at an offset past its start.
#   invalid     lines that read "__ftrace_invalid_address___N": where
#               the architecture defines FTRACE_MCOUNT_MAX_OFFSET
#               (x86), ftrace 6.1 lists a site past that offset so and
#               never enables it: the unnamed sites, on x86_64.
#   repeated    lines equal to the one before: elsewhere (arm) ftrace
#               lists an unnamed site under the name of the function
#               before it, mostly right after that function's own line.
# figures.py predicts all of these from the table and System.map; they
# are checked.  Exits 1 if a check failed.
set -eu
. "$(dirname "$0")/lib.sh"

tool=$(realpath "${1:?usage: boot.sh PATH-TO-OUR-RECORDMCOUNT}")
image=$KBUILD/$IMAGE
vmlinux=$KBUILD/vmlinux
{ [ -f "$image" ] && [ -f "$vmlinux" ]; } || die "no kernel: run kernel/build.sh first"
mkdir -p "$BOOT"
serial=$BOOT/serial.log
# The boot's figures for check.sh's summary line, written at the end.
figures=$BOOT/figures.sh
rm -f "$figures"

module=$WORK/module/mctest.ko
[ -f "$module" ] || die "no $module: run kernel/build.sh first"
# Where lib.sh names a reason the module's sites cannot be traced
# (MODULE_BLOCKER: mips and mips64el with clang), init does not load
# it and the initramfs does not hold it; its two checks are SKIP lines.
boot_init_cflags=$INIT_CFLAGS
initramfs_module=$module
if [ -n "$MODULE_BLOCKER" ]; then
	boot_init_cflags="$boot_init_cflags -DMC_NO_MODULE"
	initramfs_module=
fi
# shellcheck disable=SC2086 # one argument per flag
"${CROSS_COMPILE}gcc" $boot_init_cflags -Wall -Wextra -o "$BOOT/init" "$MC_TOP/kernel/init.c"
python3 "$MC_TOP/kernel/mkcpio.py" "$BOOT/initramfs.cpio" "$BOOT/init" ${initramfs_module:+"$initramfs_module"}

start=$(now)
note "kernel: booting $image under $QEMU (TCG), log: $serial"
status=0
# shellcheck disable=SC2086 # $QEMU is the program and its machine options
timeout "$BOOT_TIMEOUT" $QEMU -nographic -no-reboot -m 256M \
	-kernel "$image" -initrd "$BOOT/initramfs.cpio" \
	-append "console=$CONSOLE panic=-1 loglevel=7" \
	</dev/null >"$serial.raw" 2>&1 || status=$?
tr -d '\r' <"$serial.raw" >"$serial"
note "kernel: QEMU exited after $(elapsed "$start") (status $status)"

# --- the figures ---------------------------------------------------
"$tool" --dump --format=json "$vmlinux" >"$BOOT/vmlinux-table.json"
"${CROSS_COMPILE}nm" "$vmlinux" >"$BOOT/vmlinux.nm"
table_dump=0 table_syms=0 table_init=0 table_cleared=0 table_unnamed=0 pred_invalid=0 pred_repeated=0
eval "$(python3 "$MC_TOP/kernel/figures.py" "$BOOT/vmlinux-table.json" \
	"$BOOT/vmlinux.nm" "$KBUILD/System.map" "$WORD" "$FTRACE_MAX_OFFSET")"
allocated=$(sed -n 's/.*ftrace: allocating \([0-9]*\) entries in \([0-9]*\) pages.*/\1/p' "$serial")
mctest() { sed -n "s/^mctest: $1=//p" "$serial" | head -n1; }
available=$(mctest available_filter_functions)
hits=$(mctest trace_hits)
filter=$(mctest filter)
invalid=$(mctest invalid_addresses)
repeated=$(mctest repeated_names)
expected=$((table_dump - table_init - table_cleared))
pred_allocated=$table_dump
[ -z "$FTRACE_SKIPS_ZEROED" ] || pred_allocated=$((table_dump - table_cleared))
# The module's functions ftrace lists once it is loaded: its hook calls,
# by objdump, outside .init.text (freed after the module's init, but on
# ppc64, which keeps it with the core text: MODULE_INIT_KEPT) and
# .exit.text (neither tool records it: not loaded without MODULE_UNLOAD).
# Where the build NOPed every hook (LINKED_HOOK, s390x), their
# relocations are gone: the NOPs of those bytes are counted instead.
# With pads (riscv64) those are counted, function entries whose first
# instructions are the pad (hooks.py --module-pads).
if [ -n "$PADS" ]; then
	module_hooks=$("${CROSS_COMPILE}objdump" -d "$module" |
		python3 "$MC_TOP/kernel/hooks.py" --module-pads "$PADS" "$MODULE_INIT_KEPT")
else
module_hooks=$("${CROSS_COMPILE}objdump" -dr "$module" |
	awk -v hook="$HOOK_SYMBOL" -v nop="$LINKED_HOOK" -v initkept="$MODULE_INIT_KEPT" \
		-v rel="$MODULE_HOOK_RELOC" '
	/^Disassembly of section / { sec = $4; sub(/:$/, "", sec) }
	(sec == ".init.text" && initkept == "") || sec == ".exit.text" { next }
	nop == "" && $0 ~ (rel "[ \t]+" hook "([-+]|$)") { n++ }
	nop != "" && index($0, ":\t" nop " ") > 0 { n++ }
	END { print n + 0 }')
fi

echo "--- boot log excerpt ($serial)"
sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$serial" |
	grep -E 'Linux version|ftrace|mctest|Freeing unused kernel|Run /init|reboot' | head -n 30
echo "--- figures"
echo "table entries (dump of vmlinux):            $table_dump"
echo "table entries (__stop - __start_mcount_loc): $table_syms"
echo "ftrace allocated entries (boot log):        ${allocated:-none} (predicted $pred_allocated)"
echo "  of which in .init.text (freed after boot): $table_init"
echo "  of which zeroed (overridden __weak bodies; with clang, sorttable's known flaw too, check.sh): $table_cleared"
echo "  of which in no named function: $table_unnamed"
echo "predicted available_filter_functions (table - .init.text - zeroed): $expected"
echo "available_filter_functions (from init):     ${available:-none}"
echo "  of which __ftrace_invalid_address___*:    ${invalid:-none} (predicted $pred_invalid)"
echo "  of which the same name as the line before: ${repeated:-none} (predicted $pred_repeated)"
echo "traced function: ${filter:-none}, hits in trace: ${hits:-none}"
mod_loaded=$(mctest module_loaded)
mod_functions=$(mctest module_functions)
mod_hits=$(mctest module_trace_hits)
echo "module mctest.ko: loaded ${mod_loaded:-no}, functions listed ${mod_functions:-none} (hook calls by objdump: $module_hooks), mctest_work hits ${mod_hits:-none} (3 pokes)"

# --- verdicts ------------------------------------------------------
name=$NAME
if grep -q '^mctest: done' "$serial"; then
	pass "$name-boot"
else
	fail "$name-boot" "init did not finish (QEMU status $status), see $serial"
fi
if [ -n "$allocated" ] && [ "$allocated" -eq "$pred_allocated" ] &&
	[ "$table_syms" -eq "$table_dump" ]; then
	pass "$name-ftrace-allocated-equals-table"
else
	fail "$name-ftrace-allocated-equals-table" \
		"allocated ${allocated:-none}, predicted $pred_allocated, table $table_dump (symbols: $table_syms, zeroed: $table_cleared)"
fi
# Case-insensitive, so Oops only as a word: sparc64's "... for
# loops_per_jiffy" is not one.
# Not x86's "..MP-BIOS bug: 8254 timer not connected to IO-APIC": the
# kernel's complaint about the board when QEMU's timer check runs late
# on a busy host (it then routes the timer another way and boots on).
bad_lines='ftrace bug|ftrace faulted|ftrace failed|WARNING|\<Oops\>|BUG:|Kernel panic|mctest: error'
board_lines='MP-BIOS bug: 8254 timer not connected to IO-APIC'
bad=$(grep -n -i -E "$bad_lines" "$serial" | grep -v -F "$board_lines" |
	head -n 5 || true)
bugs=$(grep -i -E "$bad_lines" "$serial" | grep -c -v -F "$board_lines" || true)
if [ -z "$bad" ]; then
	pass "$name-no-ftrace-errors"
else
	fail "$name-no-ftrace-errors" "$(echo "$bad" | tr '\n' ' ')"
fi
if [ -n "$available" ] && [ "$available" -eq "$expected" ] &&
	[ -n "$invalid" ] && [ "$invalid" -eq "$pred_invalid" ] &&
	[ -n "$repeated" ] && [ "$repeated" -eq "$pred_repeated" ]; then
	pass "$name-available-filter-functions"
else
	fail "$name-available-filter-functions" \
		"${available:-none} listed (${invalid:-?} invalid, ${repeated:-?} repeated), $expected ($pred_invalid, $pred_repeated) predicted from the table"
fi
# --finalize zeroed every entry kallsyms cannot name: none is listed.
if [ -n "$invalid" ] && [ "$invalid" -eq 0 ] && [ "$pred_invalid" -eq 0 ]; then
	pass "$name-no-invalid-address-listed"
else
	fail "$name-no-invalid-address-listed" \
		"${invalid:-?} __ftrace_invalid_address___ lines ($pred_invalid predicted from the table)"
fi
if [ -n "$MODULE_BLOCKER" ]; then
	# init said it skipped the module, and it did not load it.
	if grep -q '^mctest: module_skipped' "$serial" && [ -z "$mod_loaded" ]; then
		result "SKIP: $name-module-loaded-functions-listed: $MODULE_BLOCKER"
		result "SKIP: $name-module-function-traced: $MODULE_BLOCKER"
	else
		fail "$name-module-skipped" "MODULE_BLOCKER is set, but init did not skip the module (loaded: ${mod_loaded:-no}), see $serial"
	fi
elif [ "$mod_loaded" = mctest ] && [ -n "$mod_functions" ] &&
	[ "$mod_functions" -eq "$module_hooks" ] && [ "$module_hooks" -gt 0 ]; then
	pass "$name-module-loaded-functions-listed"
else
	fail "$name-module-loaded-functions-listed" \
		"loaded ${mod_loaded:-no}, ${mod_functions:-no} functions listed, $module_hooks hook calls"
fi
if [ -n "$MODULE_BLOCKER" ]; then
	:
elif [ "$mod_hits" = 3 ]; then
	pass "$name-module-function-traced"
else
	fail "$name-module-function-traced" "mctest_work: ${mod_hits:-no} hits in trace for 3 pokes"
fi
if [ -n "$hits" ] && [ "$hits" -gt 0 ]; then
	pass "$name-function-traced"
else
	fail "$name-function-traced" "${filter:-no function} not seen in trace"
fi
cat >"$figures" <<FIGURES
boot_allocated=${allocated:-none}
boot_table=$table_dump
boot_available=${available:-none}
boot_traced="${filter:-none}:${hits:-0}"
boot_bugs=$bugs
FIGURES
exit "$MC_FAILED"
