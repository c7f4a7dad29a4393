#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# example.sh OUT.svg - the README's flame graph: recordmcount itself,
# built with hooks, linked with libmcount, recorded by mctrace while it
# records the hooks of one of its own objects.  Run from the top of
# the tree after `make`; work files in $EXAMPLE_OUT.  check-trace runs
# it and compares the boxes with those of the committed picture.
set -eu
svg=$1
out=${EXAMPLE_OUT:-build/example}
tool=${RECORDMCOUNT:-build/recordmcount}
mct=${MCTRACE:-build/mctrace}
lib=${LIBMCOUNT:-build/libmcount.a}
mkdir -p "$out"
objs=
for f in recordmcount/*.c elf/*.c arch/*.c; do
	o=$out/$(echo "$f" | tr / -).o
	gcc -std=c11 -O2 -g -pg -mfentry -DMC_VERSION='"example"' \
		$(pkg-config --cflags libelf 2>/dev/null) -c "$f" -o "$o"
	objs="$objs $o"
done
# shellcheck disable=SC2086 # one argument per object
"$tool" $objs
# shellcheck disable=SC2086
gcc -o "$out/recordmcount" $objs "$lib" -Wl,-T,lds/mcount.lds -lelf -lz
gcc -O2 -pg -mfentry -c tests/trace/prog.c -o "$out/input.o"
"$mct" record -o "$out/trace.data" -- "$out/recordmcount" "$out/input.o"
"$mct" dump --flame-svg -o "$svg" "$out/trace.data"
