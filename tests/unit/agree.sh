#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# agree.sh - what is written in more than one language agrees with its
# one source: prints "PASS: agree/<what>" or "FAIL: agree/<what>: why"
# lines (for unit.log) and exits 1 on any failure.  Run from the top of
# the tree (check-unit does).
#
#   arches      arch/arches.def lists every mc_arch_* that arch/*.c
#               defines, and no other
#   sections    the linker scripts (lds/) and kernel/elfsites.py name
#               the table sections as arch/sections.h defines them
status=0
pass() { echo "PASS: agree/$1"; }
fail() { echo "FAIL: agree/$1: $2"; status=1; }

defined=$(sed -n 's/^const struct mc_arch mc_arch_\([a-z0-9_]*\) = .*/\1/p' \
	arch/*.c | sort | tr '\n' ' ')
listed=$(sed -n 's/^MC_ARCH(\([a-z0-9_]*\),.*/\1/p' arch/arches.def |
	sort | tr '\n' ' ')
if [ "$defined" = "$listed" ]; then
	pass arches
else
	fail arches "arch/*.c define [$defined], arch/arches.def lists [$listed]"
fi

name() {
	sed -n "s/^#define $1 \"\\(.*\\)\"\$/\\1/p" arch/sections.h
}
table=$(name MC_TABLE_SECTION)
linked=$(name MC_TABLE_SECTION_LINKED)
pads=$(name MC_PADS_SECTION)
if [ -z "$table" ] || [ -z "$linked" ] || [ -z "$pads" ]; then
	fail sections "arch/sections.h: a name is missing"
	exit 1
fi
for lds in lds/*.lds; do
	for n in "$table" "$linked"; do
		grep -qF "*($n)" "$lds" ||
			fail "sections/$lds" "gathers no *($n)"
	done
done
grep -qxF "TABLE = \"$table\"" kernel/elfsites.py ||
	fail sections/kernel/elfsites.py "TABLE is not \"$table\""
grep -qxF "PADS_TABLE = \"$pads\"" kernel/elfsites.py ||
	fail sections/kernel/elfsites.py "PADS_TABLE is not \"$pads\""
[ $status -eq 0 ] && pass sections
exit $status
