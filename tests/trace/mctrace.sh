#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mctrace.sh - check-mctrace: what mctrace says when things go wrong,
# on the host, in seconds.
#
#   RECORDMCOUNT=build/recordmcount LIBMCOUNT=build/libmcount.a \
#   MCTRACE=build/mctrace OUT=build/tests/mctrace sh tests/trace/mctrace.sh
#
# A table of bad inputs and failures, each with its exit status and the
# one line it must say on stderr.  A trace cut at 8 bytes, at half, 8
# bytes short and at every block's end, and with one block damaged
# three ways: read with exit 0, the loss said in one line, and every
# whole block's calls as check.py decodes them itself (check.py cuts).
set -u
T=tests/trace
OUT=${OUT:-build/tests/mctrace}
LIB=${LIBMCOUNT:-build/libmcount.a}
TOOL=${RECORDMCOUNT:-build/recordmcount}
MCT=${MCTRACE:-build/mctrace}
PY=${PYTHON:-python3}
failures=0
rm -rf "$OUT" && mkdir -p "$OUT"

pass() { echo "PASS: mctrace: $*"; }
fail() { echo "FAIL: mctrace: $*"; failures=$((failures + 1)); }

# row <status> <ERE> <description> <command...>: the command exits with
# <status> and its stderr is one line that matches <ERE> (none if the
# ERE is empty)
row() {
	want=$1 re=$2 what=$3
	shift 3
	"$@" > "$OUT/row.out" 2> "$OUT/row.err"
	got=$?
	lines=1
	[ -n "$re" ] || lines=0 re=.
	if [ "$got" != "$want" ]; then
		fail "$what: exit $got, not $want: $(head -3 "$OUT/row.err")"
	elif [ "$(wc -l < "$OUT/row.err")" != $lines ] ||
	     { [ $lines = 1 ] && ! grep -Eq -- "$re" "$OUT/row.err"; }; then
		fail "$what: stderr is not one line matching /$re/: $(head -3 "$OUT/row.err")"
	else
		pass "$what (exit $want)"
	fi
}

# build <name> <cc> <src> [flags]: $OUT/<name>, recorded, with libmcount
build() {
	$2 -O2 -g -fno-inline -pg -mfentry ${4:-} -c "$3" -o "$OUT/$1.o" &&
	$TOOL "$OUT/$1.o" &&
	$2 -o "$OUT/$1" "$OUT/$1.o" "$LIB" -Wl,-T,lds/mcount.lds -lpthread
}

if ! build prog gcc $T/prog.c -std=gnu11 ||
   ! "$MCT" record -o "$OUT/prog.data" -- "$OUT/prog" threads >/dev/null; then
	fail "prog.c built and recorded"
	exit 1
fi

# reading
mkdir -p "$OUT/dir.data"
printf 'hello, world\n' > "$OUT/text.data"
: > "$OUT/empty.data"
head -c 8 "$OUT/prog.data" > "$OUT/head8.data"
row 1 "dir.data: a directory, not a trace$" "report of a directory" \
	"$MCT" report "$OUT/dir.data"
row 1 "text.data: not a trace of mctrace's own format$" \
	"report of a file that is not a trace" "$MCT" report "$OUT/text.data"
row 1 "empty.data: empty: not a trace" "report of an empty file" \
	"$MCT" report "$OUT/empty.data"
row 1 "nothing.data: No such file or directory$" "report of no file" \
	"$MCT" report "$OUT/nothing.data"
row 0 "head8.data: cut short in its header \(8 bytes\)" \
	"report of a trace cut to 8 bytes" "$MCT" report "$OUT/head8.data"
if $PY $T/check.py cuts "$OUT/prog.data" "$MCT" "$OUT" > "$OUT/cuts.out"; then
	pass "traces cut at 8 bytes, half, 8 short, every block's end, or damaged: every whole block read, exit 0"
else
	fail "traces cut or damaged: $(cat "$OUT/cuts.out")"
fi

# recording
P=$OUT/prog
touch "$OUT/ro.data" && chmod 444 "$OUT/ro.data"
row 1 "no/dir/x.data: cannot create: No such file or directory$" \
	"record into a folder that does not exist" \
	"$MCT" record -o "$OUT/no/dir/x.data" -- "$P" basic
row 1 "ro.data: read-only file \(mode 0444\): left as it is" \
	"record over a read-only file" "$MCT" record -o "$OUT/ro.data" -- "$P" basic
row 1 "dir.data: a directory, not a file to write the trace in$" \
	"record into a directory" "$MCT" record -o "$OUT/dir.data" -- "$P" basic
row 1 "/bin/true: nothing recorded: it ran without libmcount's recorder" \
	"record a program with no runtime" \
	"$MCT" record -o "$OUT/true.data" -- /bin/true
row 127 "nothing-here: cannot run: No such file or directory$" \
	"record a program that does not exist" \
	"$MCT" record -o "$OUT/x.data" -- "$OUT/nothing-here"
row 126 "text.data: cannot run: Permission denied$" \
	"record a file that cannot run" \
	"$MCT" record -o "$OUT/x.data" -- "$OUT/text.data"
row 3 "" "record: the program's own status" \
	"$MCT" record -o "$OUT/x.data" -- sh -c "'$P' basic >/dev/null; exit 3"
row 143 "sh: killed by signal 15$" "record: a program killed, 128 + its signal" \
	"$MCT" record -o "$OUT/x.data" -- sh -c "'$P' basic >/dev/null; kill \$\$"
# a program whose objects have no recorded site (MCT_INFO's sites=0):
# the runtime and recorder linked whole, as nothing calls them
has_info() {
	$PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import check
sys.exit(not any(k == 8 for _, k, _, _ in check.blocks(open(sys.argv[2], "rb").read())))' $T "$1"
}
if ! has_info "$OUT/prog.data"; then
	echo "SKIP: mctrace: a program with no recorded site: this recorder writes no MCT_INFO"
elif gcc -O2 -o "$OUT/nosites" -x c - -x none -Wl,--whole-archive "$LIB" \
		-Wl,--no-whole-archive -Wl,-T,lds/mcount.lds -lpthread -ldl <<-EOF2
	int main(void) { return 0; }
	EOF2
then
	row 1 "nosites: nothing recorded: none of its objects has recorded sites" \
		"record a program with no recorded site" \
		"$MCT" record -o "$OUT/nosites.data" -- "$OUT/nosites"
else
	fail "a program with no recorded site: not built"
fi

[ $failures -eq 0 ]
