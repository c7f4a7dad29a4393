#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel/build.sh TOOL - build the tinyconfig+ftrace kernel for
# $MC_KERNEL_ARCH (lib.sh: x86_64, arm, ..., KERNEL_ALL_ARCHS there) with
# $MC_KERNEL_CC (gcc, or clang: LLVM=1) in the cache with TOOL (our
# recordmcount) in place of scripts/recordmcount.
# With MC_KERNEL_VARIANT=debug: the same config with -g, kernel/ and mm/
# only, in a tree of its own (the benchmark's second corpus).  With
# MC_KERNEL_VARIANT=defconfig: defconfig + defconfig.config, vmlinux
# and modules, in a tree of its own (kernel/defconfig.sh).
#
# Kbuild runs "$(objtree)/scripts/recordmcount [-w] obj.o" after
# compiling each C file built with the ftrace flags.  That program is a
# host program (scripts/Makefile: hostprogs-always-y += recordmcount)
# rebuilt only when recordmcount.c/.h or its command line change.  So
# we let Kbuild build it once ("make scripts"), keep that binary as the
# kernel's own tool for the comparison, and overwrite it with a small
# wrapper script, newer than its sources, which Kbuild leaves alone:
# the wrapper copies each raw object into capture/ (the corpus of the
# agreement check and the benchmark), logs the call, and execs TOOL.
#
# A change of the config fragment rebuilds the kernel from scratch; a
# change of TOOL's code (by checksum, debug information aside)
# recompiles every object it processed, so the boot always tests the
# current tool.
set -eu
. "$(dirname "$0")/lib.sh"

tool=$(realpath "${1:?usage: build.sh PATH-TO-OUR-RECORDMCOUNT}")
[ -x "$tool" ] || die "$tool is not executable"
fragments=""
for f in $FRAGMENTS; do fragments="$fragments $MC_TOP/kernel/$f"; done
kmake() {
	# shellcheck disable=SC2086 # KMAKE_CC: "" or LLVM=1
	make -C "$KERNEL_SRC" O="$KBUILD" ARCH="$SRCARCH" CROSS_COMPILE="$CROSS_COMPILE" $KMAKE_CC "$@"
}

"$MC_TOP/kernel/prepare.sh"
mkdir -p "$KBUILD"
log=$(dirname "$KBUILD")/build.log

# --- configuration -------------------------------------------------
# shellcheck disable=SC2086
config_id=$(cat $fragments "$KERNEL_SRC/.mc-extracted" | sha256sum | cut -c1-16)
if [ "$(cat "$KBUILD/.mc-config-id" 2>/dev/null)" != "$config_id" ]; then
	start=$(now)
	note "kernel: configuring $BASE_CONFIG +$fragments"
	rm -rf "$KBUILD" "$CAPTURE"
	mkdir -p "$KBUILD"
	kmake -s "$BASE_CONFIG" >"$log" 2>&1
	# shellcheck disable=SC2086
	"$KERNEL_SRC/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" \
		"$KBUILD/.config" $fragments >>"$log" 2>&1
	kmake -s olddefconfig >>"$log" 2>&1
	echo "$config_id" >"$KBUILD/.mc-config-id"
	note "kernel: configured in $(elapsed "$start")"
fi
# Every line of the fragments must have survived olddefconfig; where two
# fragments set a symbol (the ftrace selftests' reference,
# ARCH-ftracetest-ref.config), the later line, as in the merge.
config_state() {
	"$KERNEL_SRC/scripts/config" --file "$KBUILD/.config" --keep-case --state "$1"
}
# shellcheck disable=SC2086
bad=$(cat $fragments | grep -E '^(CONFIG_[A-Za-z0-9_]+=y|# CONFIG_[A-Za-z0-9_]+ is not set)$' |
	awk '{ sym = $1 == "#" ? $2 : substr($1, 1, index($1, "=") - 1); last[sym] = $0; order[NR] = sym }
	END { for (i = 1; i <= NR; i++) if (!(order[i] in seen)) { seen[order[i]] = 1; print last[order[i]] } }' |
	while read -r line; do
	case "$line" in
	CONFIG_*=y)
		sym=${line%%=*}; sym=${sym#CONFIG_}
		state=$(config_state "$sym")
		[ "$state" = y ] || echo "$sym=$state" ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# CONFIG_}; sym=${sym%% *}
		state=$(config_state "$sym")
		case "$state" in y|m) echo "$sym=$state" ;; esac ;;
	esac
done)
[ -z "$bad" ] || die "config options that did not take: $(echo "$bad" | tr '\n' ' ')(see $KBUILD/.config)"
if [ "${MC_KERNEL_STOP:-}" = configured ]; then
	note "kernel: stopping after configuration (MC_KERNEL_STOP=configured)"
	exit 0
fi
# The ftrace selftests' reference (ftracetest-ref): the compiler writes
# the table, Kbuild builds and runs no recordmcount, and nothing of ours
# takes part: no wrapper, no --finalize.
if [ "$MC_KERNEL_VARIANT" = ftracetest-ref ]; then
	start=$(now)
	note "kernel: building the reference $TARGETS with -j$JOBS (log: $log)"
	# shellcheck disable=SC2086
	kmake -j"$JOBS" $TARGETS >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "kernel build failed, see $log"; }
	note "kernel: built in $(elapsed "$start")"
	exit 0
fi

# --- the kernel's own recordmcount, then our wrapper in its place ---
if [ ! -f "$KBUILD/scripts/.recordmcount.cmd" ]; then
	note "kernel: building the kernel's scripts/ (host programs)"
	kmake -j"$JOBS" scripts >>"$log" 2>&1 || die "make scripts failed, see $log"
	head -c4 "$KBUILD/scripts/recordmcount" | grep -q ELF ||
		die "$KBUILD/scripts/recordmcount is not the kernel's binary"
	mkdir -p "$(dirname "$KERNEL_TOOL")"
	cp "$KBUILD/scripts/recordmcount" "$KERNEL_TOOL"
	# scripts/sorttable too, where the configuration builds it
	# (BUILDTIME_TABLE_SORT): install_sorttable_wrapper below.
	rm -f "$KERNEL_SORTTABLE"
	if head -c4 "$KBUILD/scripts/sorttable" 2>/dev/null | grep -q ELF; then
		cp "$KBUILD/scripts/sorttable" "$KERNEL_SORTTABLE"
	fi
fi
install_wrapper() {
	wrapper=$KBUILD/scripts/recordmcount
	rm -f "$wrapper"
	cat >"$wrapper" <<WRAP
#!/bin/sh
# Written by recordmcount's kernel/build.sh: keep the raw object, log
# the call, then run our recordmcount on it (with MC_MODULE_TOOL_FLAGS
# too, which build.sh sets for the out-of-tree module only).
for f; do
	case "\$f" in -*) continue ;; esac
	mkdir -p "$CAPTURE/\$(dirname "\$f")" && cp "\$f" "$CAPTURE/\$f"
	echo "\$*" >>"$CAPTURE/.invocations"
done
exec "$tool" ${TOOL_FLAGS:+$TOOL_FLAGS }\${MC_MODULE_TOOL_FLAGS:-} "\$@"
WRAP
	chmod +x "$wrapper"
}

# Our tool changed since the objects were made: remove every object it
# processed (the wrapper captured each one first) so Kbuild compiles and
# records them again.  Not "make clean": that also forgets how
# scripts/recordmcount was built, and Kbuild would rebuild it over us.
# The id is the tool's code, without its debug information and build-id
# note: those name the folder it was built in, so a clone elsewhere (CI's)
# of the same sources would otherwise redo every object for nothing.
tool_code=$(mktemp)
objcopy --strip-debug --remove-section=.note.gnu.build-id "$tool" "$tool_code" ||
	die "objcopy could not read $tool"
tool_id=$(sha256sum "$tool_code" | cut -c1-16)
rm -f "$tool_code"
if [ -f "$KBUILD/.mc-tool-id" ] && [ "$(cat "$KBUILD/.mc-tool-id")" != "$tool_id" ] &&
	[ -d "$CAPTURE" ]; then
	note "kernel: $tool changed since the last build: redoing its objects"
	(cd "$CAPTURE" && find . -name '*.o') | (cd "$KBUILD" && xargs rm -f)
	rm -rf "$CAPTURE"
fi
[ -f "$KBUILD/scripts/.recordmcount.cmd" ] ||
	die "$KBUILD/scripts/.recordmcount.cmd is missing: Kbuild would rebuild scripts/recordmcount"

# For the record: with the kernel's own recordmcount in place, this
# build stops at $WEAK_ONLY (x86_64: kernel/exit.o; check.sh checks this
# log).  The object goes again in any case, so that our tool makes it.
if [ "$MC_KERNEL_VARIANT" = boot ] && [ -n "$WEAK_ONLY" ]; then
	cp "$KERNEL_TOOL" "$KBUILD/scripts/recordmcount"
	rm -f "$KBUILD/$WEAK_ONLY"
	note "kernel: building $WEAK_ONLY with the kernel's own recordmcount (expected to fail)"
	if kmake -j"$JOBS" "$WEAK_ONLY" >"$WORK/kernel-tool-build.log" 2>&1; then
		note "kernel: the kernel's recordmcount did not fail on $WEAK_ONLY"
	fi
	rm -f "$KBUILD/$WEAK_ONLY"
fi

# link-vmlinux.sh runs scripts/sorttable on the linked vmlinux in
# place, before our --finalize (finalize_vmlinux): it sorts the exception
# tables and, where the architecture sorts __mcount_loc at build time
# (BUILDTIME_MCOUNT_SORT), that table too, and 6.12's also zeroes the
# entries of overridden __weak bodies.  Its wrapper keeps the linker's
# vmlinux (vmlinux.linked: the gate's input) and the kernel's sorted one
# (vmlinux.sorttable: what check.sh compares our --finalize with), and
# the `nm -S` list sorttable read (-s FILE, removed by link-vmlinux.sh
# afterwards: vmlinux.nm-sort, sortagree.py's NM-LIST), then leaves
# vmlinux as Kbuild would.  Written only when it changes: a newer
# scripts/sorttable would relink vmlinux.
install_sorttable_wrapper() {
	[ -f "$KERNEL_SORTTABLE" ] || return 0
	new=$KBUILD/scripts/.mc-sorttable-wrapper
	cat >"$new" <<WRAP
#!/bin/sh
# Written by recordmcount's kernel/build.sh: keep the linker's vmlinux,
# the nm list sorttable reads and the kernel's sorted vmlinux for the
# comparison with our --finalize.
list= prev=
for f; do image=\$f; [ "\$prev" != -s ] || list=\$f; prev=\$f; done
rm -f "$KEPT/vmlinux.nm-sort"
[ -z "\$list" ] || cp "\$list" "$KEPT/vmlinux.nm-sort" || exit 1
cp -p "\$image" "$KEPT/vmlinux.linked" &&
	"$KERNEL_SORTTABLE" "\$@" &&
	cp -p "\$image" "$KEPT/vmlinux.sorttable"
WRAP
	chmod +x "$new"
	if cmp -s "$new" "$KBUILD/scripts/sorttable"; then
		rm -f "$new"
	else
		mv "$new" "$KBUILD/scripts/sorttable"
	fi
}

install_wrapper
install_sorttable_wrapper
echo "$tool_id" >"$KBUILD/.mc-tool-id"

# --- the kernel ----------------------------------------------------
kbuild() {
	# shellcheck disable=SC2086
	if ! kmake -j"$JOBS" "$@" >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "kernel build failed, see $log"
	fi
}

# --finalize on vmlinux between the link and the boot image, where
# 6.12's scripts/sorttable does its part (on x86, arm and arm64): sorted,
# and the entries of overridden __weak bodies zeroed, so that ftrace
# skips them instead of listing __ftrace_invalid_address___N.  The
# linker's own vmlinux (before sorttable, which the wrapper above kept)
# is vmlinux.raw for check.sh's gate; a vmlinux already finalized (no
# relink since) is left alone.
finalize_vmlinux() {
	vmlinux=$KBUILD/vmlinux
	done_id=$(cat "$KBUILD/.mc-finalized" 2>/dev/null || true)
	now_id=$(sha256sum "$vmlinux" | cut -c1-16)
	[ "$done_id" = "$now_id" ] && return 0
	if [ -f "$KERNEL_SORTTABLE" ]; then
		[ -f "$KEPT/vmlinux.linked" ] ||
			die "scripts/sorttable's wrapper kept no vmlinux.linked"
		mv "$KEPT/vmlinux.linked" "$KEPT/vmlinux.raw"
	else
		rm -f "$KEPT/vmlinux.sorttable"
		cp -p "$vmlinux" "$KEPT/vmlinux.raw"
	fi
	"$tool" --finalize "$vmlinux" >>"$log" 2>&1 ||
		die "recordmcount --finalize failed on $vmlinux, see $log"
	sha256sum "$vmlinux" | cut -c1-16 >"$KBUILD/.mc-finalized"
	note "kernel: vmlinux finalized (the linker's copy: $KEPT/vmlinux.raw)"
}

# The out-of-tree module (kernel/module/), built the way a user builds
# one (make M=DIR modules) against this tree, with our tool as its
# recordmcount, and finalized as doc/tool.md tells module builders to.
# Built anew every time: it is one file.
build_module() {
	mod=$WORK/module
	rm -rf "$mod" && mkdir -p "$mod"
	cp "$MC_TOP/kernel/module/Kbuild" "$MC_TOP/kernel/module/mctest.c" "$mod/"
	# lib.sh's MODULE_TOOL_FLAGS (riscv64: --keep-patchable) reach our
	# tool through the wrapper, for this build only.
	MC_MODULE_TOOL_FLAGS=$MODULE_TOOL_FLAGS
	export MC_MODULE_TOOL_FLAGS
	kbuild M="$mod" modules
	unset MC_MODULE_TOOL_FLAGS
	[ -f "$mod/mctest.ko" ] || die "no $mod/mctest.ko, see $log"
	"$tool" --finalize "$mod/mctest.ko" >>"$log" 2>&1 ||
		die "recordmcount --finalize failed on $mod/mctest.ko, see $log"
}

start=$(now)
note "kernel: building $TARGETS with -j$JOBS (log: $log)"
case $MC_KERNEL_VARIANT in
boot|attach)
	# "modules" too (the tree has none of its own): it writes what an
	# out-of-tree module builds against, Module.symvers and
	# scripts/module.lds.
	kbuild vmlinux modules
	finalize_vmlinux
	# shellcheck disable=SC2086
	kbuild $TARGETS
	[ "$(sha256sum "$KBUILD/vmlinux" | cut -c1-16)" = "$(cat "$KBUILD/.mc-finalized")" ] ||
		die "Kbuild linked vmlinux again after --finalize"
	# The attach test loads no module, and $WORK/module is the boot's.
	[ "$MC_KERNEL_VARIANT" = attach ] || build_module ;;
*)
	# shellcheck disable=SC2086
	kbuild $TARGETS ;;
esac
note "kernel: built in $(elapsed "$start")"
head -c2 "$KBUILD/scripts/recordmcount" | grep -q '#!' ||
	die "Kbuild rebuilt scripts/recordmcount over our wrapper"
