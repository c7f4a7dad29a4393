#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - build and run the demo.
#
#   sh examples/demo/run.sh [path/to/recordmcount]
#
# Run from the top of the tree after `make build/libmcount.a`.  The
# objects are compiled with -pg -mfentry (default PIE); the __mcount_loc
# table comes from recordmcount when it exists, else from GCC's
# -mrecord-mcount.  Output goes to examples/demo/out/.
set -eu

RECORDMCOUNT=${1:-./recordmcount}	# a directory or missing file: fall back
CC=${CC:-gcc}
LIB=${LIBMCOUNT:-build/libmcount.a}
DIR=examples/demo
OUT=${OUT:-$DIR/out}
HOOKS="-pg -mfentry"
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Iruntime/include"

if [ -f "$RECORDMCOUNT" ] && [ -x "$RECORDMCOUNT" ]; then
	echo "demo: recording sites with $RECORDMCOUNT"
	RECORD=cli
else
	echo "demo: $RECORDMCOUNT not found, using gcc -mrecord-mcount"
	HOOKS="$HOOKS -mrecord-mcount"
	RECORD=gcc
fi

mkdir -p "$OUT"
for f in main work; do
	$CC $CFLAGS $HOOKS -c "$DIR/$f.c" -o "$OUT/$f.o"
	if [ "$RECORD" = cli ]; then
		"$RECORDMCOUNT" "$OUT/$f.o"
	fi
done
$CC -o "$OUT/demo" "$OUT/main.o" "$OUT/work.o" "$LIB" \
	-Wl,-T,lds/mcount.lds -Wl,--fatal-warnings
"$OUT/demo"
if [ "$RECORD" = cli ]; then
	echo
	echo "demo: what recordmcount recorded in work.o:"
	"$RECORDMCOUNT" --dump "$OUT/work.o"
	echo
	echo "demo: the linked program's table:"
	"$RECORDMCOUNT" --dump "$OUT/demo"
fi
