#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh - build one board's firmware image.
#
#   sh examples/firmware/build.sh <board> <out-dir>
#
# From the top of the tree, with RECORDMCOUNT naming the tool (default
# build/recordmcount).  Leaves <out-dir>/fw.elf; prints each command.
#
#  1. The firmware's own code (main.c, work.c) is compiled with hooks,
#     and recordmcount adds each object's __mcount_loc table.
#  2. The runtime (core/, arch/ table, the backend's trampoline), the
#     platform layer and the board are compiled without hooks.
#  3. The image is linked twice with the board's linker script: first
#     with an empty symbol table, then with the table mksyms.sh makes
#     from that first image.  The table is read-only data placed after
#     all code, so no function can move between the links; the script
#     checks that they did not.
#
# FW_GC=1 builds the same firmware for --gc-sections: every object
# -ffunction-sections, the tables recorded --per-section (one piece per
# function, linked to it), dead.c (nothing calls it) linked in, and the
# link --gc-sections with lds/mcount-section-gc.lds in
# place of lds/mcount-section.lds: the board's script INCLUDEs
# mcount-section.lds, and OUT-DIR/lds, searched first, has the gc
# fragment under that name.  The linker must drop dead.c's code and its
# entries with it.
set -eu

D=examples/firmware
. $D/boards.sh
fw_board "${1:-}" || { echo "usage: build.sh riscv64|aarch64 OUT-DIR" >&2; exit 2; }
B=$1
OUT=${2:?usage: build.sh BOARD OUT-DIR}
REC=${RECORDMCOUNT:-build/recordmcount}
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding -nostdlib
	-fno-pic -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables
	-fno-unwind-tables -fno-tree-loop-distribute-patterns
	-Iruntime/include -I$D $FW_FLAGS"
LDFLAGS="-static -nostdlib -Wl,-T,$D/$B/fw.lds -Llds -Wl,--build-id=none
	-Wl,--no-warn-rwx-segments -Wl,--fatal-warnings"
HOOKED="main work"
REC_FLAGS=
if [ "${FW_GC:-0}" = 1 ]; then
	CFLAGS="$CFLAGS -ffunction-sections -fdata-sections"
	REC_FLAGS=--per-section
	HOOKED="$HOOKED dead"
	LDFLAGS="-L$OUT/lds $LDFLAGS -Wl,--gc-sections"
fi

run() { echo "  $*"; "$@"; }
compile() {	# compile <source> <object name> [flags]
	run $FW_CC $CFLAGS ${3:-} -c "$1" -o "$OUT/$2.o"
}

rm -rf "$OUT"
mkdir -p "$OUT"
echo "firmware [$B]: building $OUT/fw.elf${FW_GC:+ (FW_GC=$FW_GC)}"
if [ "${FW_GC:-0}" = 1 ]; then
	mkdir -p "$OUT/lds"
	run cp lds/mcount-section-gc.lds "$OUT/lds/mcount-section.lds"
fi

for f in $HOOKED; do
	compile $D/$f.c $f "$FW_HOOKS"
	run "$REC" $REC_FLAGS "$OUT/$f.o"
done

CORE=
for f in runtime/core/*.c; do
	compile $f core-$(basename $f .c)
	CORE="$CORE core-$(basename $f .c)"
done
compile $FW_ARCH_SRC arch
compile runtime/$B/trampoline.S trampoline
compile $D/platform.c platform
compile $D/mem.c mem
compile $D/$B/board.c board
compile $D/$B/start.S start
OBJS="start $HOOKED $CORE arch trampoline platform mem board"
OBJS=$(for o in $OBJS; do printf '%s ' "$OUT/$o.o"; done)

sh $D/mksyms.sh - > "$OUT/syms0.c"
compile "$OUT/syms0.c" syms0
run $FW_CC $CFLAGS $LDFLAGS -o "$OUT/fw0.elf" $OBJS "$OUT/syms0.o" -lgcc

sh $D/mksyms.sh ${FW_TOOLS}nm "$OUT/fw0.elf" > "$OUT/syms.c"
compile "$OUT/syms.c" syms
run $FW_CC $CFLAGS $LDFLAGS -o "$OUT/fw.elf" $OBJS "$OUT/syms.o" -lgcc

for e in fw0 fw; do
	${FW_TOOLS}nm -n "$OUT/$e.elf" | grep ' [tTwW] ' > "$OUT/$e.funcs"
done
if ! cmp -s "$OUT/fw0.funcs" "$OUT/fw.funcs"; then
	echo "firmware [$B]: code moved between the two links" >&2
	exit 1
fi
echo "firmware [$B]: $(grep -c '^	{ 0x' "$OUT/syms.c") functions named"
