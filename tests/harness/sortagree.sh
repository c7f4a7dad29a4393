#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/harness/sortagree.sh - kernel/sortagree.py on made-up tables.
#
# A linked vmlinux of four sites: f1, f2 (a live function at the
# address of a size-0 marker, as __do_softirq shares its address with
# __lock_text_start and others in 6.12's x86_64 clang build), a dead
# __weak body in no function, and f4.  Our --finalize zeroes the dead
# one; the kernel's sorttable, given llvm-nm's list, zeroes f2's too.
# sortagree.py must take f2's extra zero for sorttable's known flaw
# (its own line) only with that nm list, and fail on every other
# difference: an extra zero elsewhere, one of ours, no list, or GNU
# nm's list, which has no size-0 symbols.  The second known flaw: GNU
# nm's list with a sizeless one-character symbol ("... a i", x86's)
# on the line before f2's, which sorttable's fscanf loses, so it zeroes
# f2's entry too: taken for that flaw (its own line); a two-character
# name there, which fscanf reads right, is not.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TEST_RESULTS:-.}/harness.log
pass() { echo "PASS: $1" | tee -a "$log"; }
failed=0
fail() { echo "FAIL: $1: $2" | tee -a "$log"; failed=1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/recordmcount-sortagree.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
# dump NAME ADDRESS... - a --dump --format=json of a table (0: zeroed).
dump() {
	out=$dir/$1.json
	shift
	printf '{"entries":[' >"$out"
	sep=
	for a; do printf '%s{"address":%d}' "$sep" "$a" >>"$out"; sep=,; done
	printf ']}\n' >>"$out"
}
dump raw 4096 8192 12288 16384
dump ours 0 4096 8192 16384
dump kernel 0 0 4096 16384
dump kernel-extra 0 0 0 4096
dump ours-extra 0 0 8192 16384
dump same 0 4096 8192 16384
# llvm-nm -S: every symbol with a size, the markers' 0 too; GNU nm -S
# prints none for them.
printf '%s\n' '0000000000001000 0000000000000010 T f1' \
	'0000000000002000 000000000000000c T f2' \
	'0000000000002000 0000000000000000 T __lock_text_start' \
	'0000000000004000 0000000000000020 T f4' >"$dir/llvm-nm.txt"
printf '%s\n' '0000000000001000 0000000000000010 T f1' \
	'0000000000002000 000000000000000c T f2' \
	'0000000000002000 T __lock_text_start' \
	'0000000000004000 0000000000000020 T f4' >"$dir/gnu-nm.txt"
printf '%s\n' '0000000000001000 0000000000000010 T f1' \
	'0000000000000020 a i' \
	'0000000000002000 000000000000000c T f2' \
	'0000000000004000 0000000000000020 T f4' >"$dir/gnu-nm-lost.txt"
sed 's/ a i$/ a ij/' "$dir/gnu-nm-lost.txt" >"$dir/gnu-nm-kept.txt"

# expect NAME STATUS KERNEL-DUMP OURS-DUMP [NM-LIST] - sortagree.py's
# exit status; its output is left in out.txt.
expect() {
	name=$1 want=$2 kernel=$3 ours=$4
	shift 4
	status=0
	python3 "$top/kernel/sortagree.py" "$dir/raw.json" "$dir/$ours.json" \
		"$dir/$kernel.json" "$@" >"$dir/out.txt" 2>&1 || status=$?
	if [ "$status" = "$want" ]; then
		pass "harness-sortagree-$name"
	else
		fail "harness-sortagree-$name" "exit $status, not $want: $(tr '\n' ' ' <"$dir/out.txt")"
	fi
}
expect flaw-accepted 0 kernel ours "$dir/llvm-nm.txt"
if grep -q '^known sorttable flaw: 0x2000 <f2+0x0> ' "$dir/out.txt"; then
	pass harness-sortagree-flaw-named
else
	fail harness-sortagree-flaw-named "no line names f2's entry as sorttable's flaw"
fi
expect same-zeroes 0 same ours "$dir/llvm-nm.txt"
expect flaw-without-nm-list-fails 1 kernel ours
expect flaw-with-gnu-nm-list-fails 1 kernel ours "$dir/gnu-nm.txt"
expect another-sorttable-zero-fails 1 kernel-extra ours "$dir/llvm-nm.txt"
expect another-zero-of-ours-fails 1 kernel ours-extra "$dir/llvm-nm.txt"
expect lost-line-accepted 0 kernel ours "$dir/gnu-nm-lost.txt"
if grep -q '^known sorttable flaw: 0x2000 <f2+0x0> .* line .* lost .*"0000000000000020 a i"' "$dir/out.txt"; then
	pass harness-sortagree-lost-line-named
else
	fail harness-sortagree-lost-line-named "no line names f2's entry as lost by sorttable's fscanf"
fi
expect lost-line-two-characters-fails 1 kernel ours "$dir/gnu-nm-kept.txt"
exit "$failed"
