#!/bin/sh
# kernel/prepare.sh - extract Debian's linux-source-6.1 into the cache
# (once per package version) and make its Kconfig pick recordmcount.
#
# Why the edit: on x86 with GCC >= 5, kernel/trace/Kconfig turns on
# FTRACE_MCOUNT_USE_CC (the compiler's -mrecord-mcount writes the
# table) and, failing that, FTRACE_MCOUNT_USE_OBJTOOL (objtool --mcount
# writes it).  FTRACE_MCOUNT_USE_RECORDMCOUNT, the path that runs
# scripts/recordmcount on every object, is chosen only when both are
# off, and neither has a prompt.  So one line, "depends on
# MC_NEVER_DEFINED", is added to each of those two entries: an
# undefined symbol is n, the two options go away, recordmcount is
# chosen, and nothing else changes.  build.sh checks the .config.
set -eu
. "$(dirname "$0")/lib.sh"

need_packages

version=$(dpkg-query -W -f='${Version}' "linux-source-$KERNEL_SERIES")
stamp=$KERNEL_SRC/.mc-extracted
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
	note "kernel: source $version already in $KERNEL_SRC"
	exit 0
fi

start=$(now)
note "kernel: extracting $KERNEL_TARBALL ($version) into $MC_KERNEL_CACHE/src"
# Only the source goes.  The architectures' folders hold what other
# steps already put there (check.sh's copy of the tool under test, the
# kernel's own tool, boot logs); their build trees are stale now, and
# build.sh sees it: the stamp written below is part of its config id,
# so it starts those trees afresh itself.
rm -rf "$KERNEL_SRC"
mkdir -p "$MC_KERNEL_CACHE/src"
tar -C "$MC_KERNEL_CACHE/src" -xJf "$KERNEL_TARBALL"
[ -f "$KERNEL_SRC/Makefile" ] || die "no $KERNEL_SRC/Makefile after extraction"

kconfig=$KERNEL_SRC/kernel/trace/Kconfig
for opt in FTRACE_MCOUNT_USE_CC FTRACE_MCOUNT_USE_OBJTOOL; do
	grep -q "^config $opt\$" "$kconfig" || die "$kconfig has no $opt"
	sed -i "/^config $opt\$/a\\
	depends on MC_NEVER_DEFINED # recordmcount test: use scripts/recordmcount" \
		"$kconfig"
done
[ "$(grep -c MC_NEVER_DEFINED "$kconfig")" -eq 2 ] || die "Kconfig edit failed"

echo "$version" >"$stamp"
note "kernel: extracted and patched in $(elapsed "$start")"
