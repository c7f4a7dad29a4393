#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/defconfig.sh TOOL - the agreement test on a defconfig kernel:
# build $MC_KERNEL_ARCH's defconfig (x86_64 by default; i386 too) plus
# ftrace through scripts/recordmcount (defconfig.config), vmlinux and
# the in-tree modules, with $MC_KERNEL_CC (gcc or clang), TOOL in place
# of scripts/recordmcount (build.sh, MC_KERNEL_VARIANT=defconfig), and
# compare TOOL's table with the kernel's own recordmcount's over every
# captured object (agree.py); also that every hook call objdump finds
# in the linked vmlinux is a table entry and every entry a hook call
# (hooks.py).  Not booted.  The tree and the captured
# objects are ARCH/defconfig/ in the cache (lib.sh), apart from the
# tinyconfig tree check.sh builds.  Exits 1 if any check failed.
# MC_KERNEL_VARIANT=defconfig-ibt: the same with X86_KERNEL_IBT on
# (defconfig-ibt.config), in ARCH/defconfig-ibt/.
set -eu
MC_KERNEL_VARIANT=${MC_KERNEL_VARIANT:-defconfig}
case $MC_KERNEL_VARIANT in
defconfig|defconfig-ibt) ;;
*) echo "kernel/defconfig.sh: MC_KERNEL_VARIANT is defconfig or defconfig-ibt" >&2; exit 2 ;;
esac
export MC_KERNEL_VARIANT
. "$(dirname "$0")/lib.sh"

under_test=${1:?usage: defconfig.sh PATH-TO-OUR-RECORDMCOUNT}
name=$NAME-$MC_KERNEL_VARIANT
dir=$(dirname "$KBUILD")
t0=$(now)
if ! "$MC_TOP/kernel/prepare.sh"; then
	fail "$name-prepare" "could not extract linux-source-$KERNEL_SERIES"
	exit 1
fi
# A copy, as check.sh makes: a rebuild of the work tree meanwhile
# changes nothing here.
mkdir -p "$dir"
cp "$under_test" "$dir/recordmcount-under-test"
tool=$dir/recordmcount-under-test

# --- build ---------------------------------------------------------
if ! "$MC_TOP/kernel/build.sh" "$tool"; then
	fail "$name-build" "see $dir/build.log"
	exit 1
fi
pass "$name-build"
t_build=$(elapsed "$t0")
not_cc=""
for sym in $CC_CONFIG; do
	grep -q "^CONFIG_$sym=y\$" "$KBUILD/.config" || not_cc="$not_cc $sym"
done
if [ -z "$not_cc" ]; then
	pass "$name-toolchain"
else
	fail "$name-toolchain" "not in $KBUILD/.config:$not_cc"
fi

# --- our wrapper saw every object compiled with the ftrace flags ----
# (check.sh's check, without the objects of rules that never run
# recordmcount: they are listed, not checked for hook calls.)
find "$KBUILD" -name '.*.o.cmd' -exec grep -l -E "^(saved)?cmd_.* $FTRACE_CFLAGS " {} + |
	sed -e "s|^$KBUILD/||" -e 's|\(.*\)/\.\(.*\)\.cmd$|\1/\2|' -e 's|^\.\(.*\)\.cmd$|\1|' |
	grep -v -x -e scripts/mod/empty.o -e .vmlinux.export.o -e '.*\.mod\.o' |
	sort >"$dir/traced-objects.txt" || true
(cd "$CAPTURE" && find . -name '*.o' | sed 's|^\./||' | sort) >"$dir/captured-objects.txt"
missing=$(comm -23 "$dir/traced-objects.txt" "$dir/captured-objects.txt" | head -n 5)
echo "objects compiled with $FTRACE_CFLAGS: $(wc -l <"$dir/traced-objects.txt");" \
	"objects our wrapper saw: $(wc -l <"$dir/captured-objects.txt")"
if [ -s "$dir/traced-objects.txt" ] && [ -z "$missing" ]; then
	pass "$name-recordmcount-ran-per-object"
else
	fail "$name-recordmcount-ran-per-object" "not seen: ${missing:-none}"
fi

# --- every hook call in the linked vmlinux is a table entry ---------
# And every entry a hook call (hooks.py, as check.sh runs it on the
# linker's vmlinux; not finalized here: nothing boots it).
"$tool" --dump --format=json "$KBUILD/vmlinux" >"$dir/dump.json"
"${CROSS_COMPILE}objdump" -d "$KBUILD/vmlinux" |
	grep -E "<$LINKED_HOOK_SYMBOL>\$|>:\$" |
	python3 "$MC_TOP/kernel/hooks.py" --resync "${CROSS_COMPILE}objdump" "$KBUILD/vmlinux" \
		"$dir/dump.json" "$LINKED_HOOK_SYMBOL" >"$dir/hooks.txt" 2>&1 &&
	hooks_ok=1 || hooks_ok=0
sed 's/^/    /' "$dir/hooks.txt"
if [ "$hooks_ok" = 1 ]; then
	pass "$name-every-hook-call-is-a-table-entry"
else
	fail "$name-every-hook-call-is-a-table-entry" "$(head -n 3 "$dir/hooks.txt" | tr '\n' ' ')"
fi
hooks=$(sed -n 's/^hooks=\([0-9]*\) .*/\1/p' "$dir/hooks.txt")
hooks_missing=$(sed -n 's/^hooks=.* missing=\([0-9]*\) .*/\1/p' "$dir/hooks.txt")

# --- agreement with the kernel's own recordmcount ------------------
t1=$(now)
if python3 "$MC_TOP/kernel/agree.py" "$tool" "$KERNEL_TOOL" "$CAPTURE" "$dir/agree" "$KERNEL_TOOL_SHIFT" \
	>"$dir/agreement.txt" 2>&1; then
	cat "$dir/agreement.txt"
	pass "$name-agreement-with-kernel-tool"
else
	cat "$dir/agreement.txt"
	fail "$name-agreement-with-kernel-tool" "$(tail -n1 "$dir/agreement.txt")"
fi
agreed=$(sed -n 's/^agreement: \([0-9]*\) agree,.*/\1/p' "$dir/agreement.txt")
objects=$(sed -n 's/^agreement: \([0-9]*\) objects,.*/\1/p' "$dir/agreement.txt")
sites=$(sed -n 's/^agreement: [0-9]* objects, \([0-9]*\) sites.*/\1/p' "$dir/agreement.txt")
k_failed=$(sed -n 's/^kernel tool failures (listed apart, not disagreements): \([0-9]*\)$/\1/p' \
	"$dir/agreement.txt")
echo "kernel: $KARCH $KCC $MC_KERNEL_VARIANT times: build $t_build, agreement $(elapsed "$t1"), total $(elapsed "$t0")"
echo "kernel $KARCH $KCC $MC_KERNEL_VARIANT: vmlinux hook calls=${hooks:-none}," \
	"hooks missing from table=${hooks_missing:-none}, objects=${objects:-none}, sites=${sites:-none}," \
	"agree=${agreed:-none}/${objects:-none} objects, kernel-tool failures=${k_failed:-none}"
exit "$MC_FAILED"
