#!/bin/sh
# kernel/boot.sh TOOL - boot the kernel built by build.sh under QEMU
# (TCG, no KVM needed) with our init (init.c) and check that ftrace
# works on the table our recordmcount wrote.  Prints PASS/FAIL lines.
#
# The figures, and why they differ:
#   table       entries of __mcount_loc in vmlinux, from
#               "TOOL --dump --format=json vmlinux" and, independently,
#               (__stop_mcount_loc - __start_mcount_loc) / 8 from nm.
#   allocated   "ftrace: allocating N entries" at boot: ftrace sizes its
#               records from the same two symbols, so N == table.
#   available   lines of available_filter_functions once init runs: the
#               table less its sites in .init.text, whose records ftrace
#               drops when the init memory is freed after boot.
#   invalid     those lines that read "__ftrace_invalid_address___N":
#               sites that kallsyms cannot name, i.e. the bodies of
#               __weak functions that another object overrode (the
#               linker keeps their code, hence the table entry, but not
#               their symbol).  ftrace 6.1 lists them under that name
#               and never enables them.  They are the table's entries
#               that the dump puts in no function.
# All of these are predicted from the table and checked.
set -eu
. "$(dirname "$0")/lib.sh"

tool=$(realpath "${1:?usage: boot.sh PATH-TO-OUR-RECORDMCOUNT}")
bzimage=$KBUILD/arch/x86/boot/bzImage
vmlinux=$KBUILD/vmlinux
{ [ -f "$bzimage" ] && [ -f "$vmlinux" ]; } || die "no kernel: run kernel/build.sh first"
mkdir -p "$BOOT"
serial=$BOOT/serial.log

gcc -static -O2 -Wall -Wextra -o "$BOOT/init" "$MC_TOP/kernel/init.c"
python3 "$MC_TOP/kernel/mkcpio.py" "$BOOT/initramfs.cpio" "$BOOT/init"

start=$(now)
note "kernel: booting $bzimage under qemu-system-x86_64 (TCG), log: $serial"
status=0
timeout 180 qemu-system-x86_64 -accel tcg -nographic -no-reboot -m 256M \
	-kernel "$bzimage" -initrd "$BOOT/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 loglevel=7" \
	</dev/null >"$serial.raw" 2>&1 || status=$?
tr -d '\r' <"$serial.raw" >"$serial"
note "kernel: QEMU exited after $(elapsed "$start") (status $status)"

# --- the figures ---------------------------------------------------
"$tool" --dump --format=json "$vmlinux" >"$BOOT/vmlinux-table.json"
nm "$vmlinux" >"$BOOT/vmlinux.nm"
table_dump=0 table_syms=0 table_init=0 table_unnamed=0
eval "$(python3 - "$BOOT/vmlinux-table.json" "$BOOT/vmlinux.nm" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["entries"]
init = sum(1 for e in entries if e.get("section") == ".init.text")
unnamed = sum(1 for e in entries if e.get("section") != ".init.text"
              and e.get("function") is None)
syms = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)
span = syms.get("__stop_mcount_loc", 0) - syms.get("__start_mcount_loc", 0)
print("table_dump=%d table_syms=%d table_init=%d table_unnamed=%d"
      % (len(entries), span // 8, init, unnamed))
PY
)"
allocated=$(sed -n 's/.*ftrace: allocating \([0-9]*\) entries in \([0-9]*\) pages.*/\1/p' "$serial")
mctest() { sed -n "s/^mctest: $1=//p" "$serial" | head -n1; }
available=$(mctest available_filter_functions)
hits=$(mctest trace_hits)
filter=$(mctest filter)
invalid=$(mctest invalid_addresses)
expected=$((table_dump - table_init))

echo "--- boot log excerpt ($serial)"
sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$serial" |
	grep -E 'Linux version|ftrace|mctest|Freeing unused kernel|Run /init|reboot' | head -n 30
echo "--- figures"
echo "table entries (dump of vmlinux):            $table_dump"
echo "table entries (__stop - __start_mcount_loc): $table_syms"
echo "ftrace allocated entries (boot log):        ${allocated:-none}"
echo "  of which in .init.text (freed after boot): $table_init"
echo "  of which in no named function (overridden __weak bodies): $table_unnamed"
echo "predicted available_filter_functions (table - .init.text): $expected"
echo "available_filter_functions (from init):     ${available:-none}"
echo "  of which __ftrace_invalid_address___*:    ${invalid:-none} (predicted $table_unnamed)"
echo "traced function: ${filter:-none}, hits in trace: ${hits:-none}"

# --- verdicts ------------------------------------------------------
name=kernel-$KARCH
if grep -q '^mctest: done' "$serial"; then
	pass "$name-boot"
else
	fail "$name-boot" "init did not finish (QEMU status $status), see $serial"
fi
if [ -n "$allocated" ] && [ "$allocated" -eq "$table_dump" ] &&
	[ "$table_syms" -eq "$table_dump" ]; then
	pass "$name-ftrace-allocated-equals-table"
else
	fail "$name-ftrace-allocated-equals-table" \
		"allocated ${allocated:-none}, table $table_dump (symbols: $table_syms)"
fi
bad=$(grep -n -i -E 'ftrace bug|ftrace faulted|ftrace failed|WARNING|Oops|BUG:|Kernel panic|mctest: error' "$serial" | head -n 5 || true)
if [ -z "$bad" ]; then
	pass "$name-no-ftrace-errors"
else
	fail "$name-no-ftrace-errors" "$(echo "$bad" | tr '\n' ' ')"
fi
if [ -n "$available" ] && [ "$available" -eq "$expected" ] &&
	[ -n "$invalid" ] && [ "$invalid" -eq "$table_unnamed" ]; then
	pass "$name-available-filter-functions"
else
	fail "$name-available-filter-functions" \
		"${available:-none} listed (${invalid:-?} invalid), $expected ($table_unnamed) predicted from the table"
fi
if [ -n "$hits" ] && [ "$hits" -gt 0 ]; then
	pass "$name-function-traced"
else
	fail "$name-function-traced" "${filter:-no function} not seen in trace"
fi
