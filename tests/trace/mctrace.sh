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
# ERE is empty); with status 2 (a usage error), then "Try 'mctrace CMD
# --help'."
row() {
	want=$1 re=$2 what=$3
	shift 3
	"$@" > "$OUT/row.out" 2> "$OUT/row.all"
	got=$?
	lines=1
	[ -n "$re" ] || lines=0 re=.
	cp "$OUT/row.all" "$OUT/row.err"
	if [ "$want" = 2 ]; then
		sed '$d' "$OUT/row.all" > "$OUT/row.err"
		tail -n 1 "$OUT/row.all" | grep -Eq "^Try 'mctrace( ${2:-})? --help'\.$" ||
			{ fail "$what: no Try line: $(cat "$OUT/row.all")"; return; }
	fi
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

# the command line
for cmd in record report graph replay dump; do
	for h in --help -h; do
		if "$MCT" $cmd $h > "$OUT/help.out" 2> "$OUT/help.err" &&
		   head -n 1 "$OUT/help.out" | grep -q "^Usage: mctrace $cmd " &&
		   [ ! -s "$OUT/help.err" ]; then
			pass "mctrace $cmd $h"
		else
			fail "mctrace $cmd $h: $(head -n 2 "$OUT/help.out" "$OUT/help.err")"
		fi
	done
done
for v in -V --version; do
	if [ "$("$MCT" $v)" = "mctrace $(sed -n 's/^VERSION *:\{0,1\}= *//p' Makefile)" ]; then
		pass "mctrace $v"
	else
		fail "mctrace $v: $("$MCT" $v 2>&1 | head -n 2)"
	fi
done
row 2 "^mctrace: no command given$" "no command" "$MCT"
row 2 "^mctrace: unknown command 'frob'$" "an unknown command" "$MCT" frob
row 2 "^mctrace report: unknown option '--bogus'$" "an unknown long option" \
	"$MCT" report --bogus "$OUT/prog.data"
row 2 "^mctrace record: unknown option '-x'$" "an unknown short option" \
	"$MCT" record -x -- "$OUT/prog"
row 2 "^mctrace record: option '-o' needs a value$" "an option with no value" \
	"$MCT" record -o
row 2 "^mctrace dump: option '--raw' takes no value$" "an option given a value" \
	"$MCT" dump --raw=1 "$OUT/prog.data"
row 2 "^mctrace record: option '--min-time 3parsecs': not a time" \
	"an option's value that is wrong" "$MCT" record --min-time 3parsecs -- "$OUT/prog"
row 2 "^mctrace replay: one FILE only: 'b' is one too many$" "two files" \
	"$MCT" replay a b
row 2 "^mctrace record: no program to run$" "record with no program" "$MCT" record

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

# C++ names, demangled in every output; the oracle is binutils' c++filt.
# The raw dump with --demangle=full is the one without --no-demangle,
# its names through c++filt; no other output names a mangled symbol;
# with --demangle=full each names the functions as c++filt does, and by
# default by the name alone (uftrace.sh compares those with uftrace's).
outputs() {	# outputs <trace> <suffix> [options]: each output of it
	t=$1 x=$2
	shift 2
	"$MCT" report "$@" "$t.data" > "$t.report$x" &&
	"$MCT" graph "$@" "$t.data" > "$t.graph$x" &&
	"$MCT" replay "$@" "$t.data" > "$t.replay$x" &&
	"$MCT" dump --chrome "$@" "$t.data" > "$t.json$x" &&
	"$MCT" dump --folded "$@" "$t.data" > "$t.folded$x" &&
	"$MCT" dump --flame-svg "$@" "$t.data" > "$t.svg$x" &&
	"$MCT" dump --perfetto "$@" "$t.data" |
		protoc --proto_path=$T --decode=Trace $T/perfetto.proto \
		> "$t.pftrace.txt$x"
}
names_in() {	# names_in <trace> <suffix> <name...>: in each output
	t=$1 x=$2
	shift 2
	for f in report graph replay json folded svg pftrace.txt; do
		if grep -q '_Z[0-9NSZ]' "$t.$f$x"; then
			echo "$f$x: $(grep -o '_Z[0-9NSZ][A-Za-z0-9_]*' "$t.$f$x" | head -n 1)"
			return 1
		fi
		for name in "$@"; do
			grep -qF "$name" "$t.$f$x" || { echo "$f$x: no $name"; return 1; }
		done
	done
}
demangled() {	# demangled <c++ compiler>
	t=$OUT/throw-$1
	build "throw-$1" $1 $T/throw.cc &&
	"$MCT" record -o "$t.data" -- "$t" >/dev/null || return 1
	"$MCT" dump --raw --no-demangle "$t.data" > "$t.mangled" &&
	"$MCT" dump --raw --demangle=full "$t.data" > "$t.raw" || return 1
	grep -q ' _Z7throweri$' "$t.mangled" ||
		{ echo "no _Z7throweri with --no-demangle"; return 1; }
	cut -d ' ' -f 5- "$t.mangled" | c++filt > "$t.names" &&
	cut -d ' ' -f 1-4 "$t.mangled" | paste -d ' ' - "$t.names" > "$t.want" &&
	cmp -s "$t.want" "$t.raw" ||
		{ echo "raw: $(diff "$t.want" "$t.raw" | head -n 3)"; return 1; }
	outputs "$t" .full --demangle=full && outputs "$t" "" || return 1
	names_in "$t" .full 'thrower(int)' 'catcher(int)' 'leaf(int)' \
		'Guard::~Guard()' &&
	names_in "$t" "" thrower catcher leaf 'Guard::~Guard' || return 1
	for f in report graph replay json folded svg pftrace.txt; do
		if grep -qF '(int)' "$t.$f"; then
			echo "$f: a parameter list by default: $(grep -F '(int)' "$t.$f" | head -n 1)"
			return 1
		fi
	done
	"$MCT" record -o "$t-rec.json" -- "$t" >/dev/null &&
	grep -qF '"thrower"' "$t-rec.json" && ! grep -q '_Z7' "$t-rec.json" ||
		{ echo "record -o .json: names not demangled"; return 1; }
}
# Record-time filters pick C++ functions by the names mctrace shows
# (names.cc): the rows of a recording with -F GLOB are those of a whole
# recording whose names match GLOB (Python's fnmatch, the oracle), with
# their counts; -N leaves its matches out; a glob that picks nothing is
# said on stderr, and the program's status is kept.
picked_rows() {	# picked_rows <whole report> <glob> [!]: rows matching, or not
	$PY - "$1" "$2" "${3:-}" <<'PYEOF'
import fnmatch, re, sys
rows = []
for line in open(sys.argv[1]).read().splitlines()[2:]:
    m = re.match(r"^\s*\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(.+)$", line)
    if m:
        hit = fnmatch.fnmatchcase(m.group(2), sys.argv[2])
        if hit != (sys.argv[3] == "!"):
            rows.append("%s %s" % (m.group(1), m.group(2)))
print("\n".join(sorted(rows)))
PYEOF
}
cxxfilters() {	# cxxfilters <c++ compiler>
	t=$OUT/names-$1
	build "names-$1" $1 $T/names.cc -std=gnu++17 &&
	"$MCT" record -o "$t.data" -- "$t" 10 >/dev/null &&
	"$MCT" report "$t.data" > "$t.whole" || return 1
	for g in 'geo::*' twice 'Money::operator*' 'std::vector::*'; do
		"$MCT" record -F "$g" -o "$t-f.data" -- "$t" 10 >/dev/null \
			2>"$t-f.err" &&
		"$MCT" report "$t-f.data" > "$t-f.report" || return 1
		picked_rows "$t.whole" "$g" > "$t-f.want" &&
		picked_rows "$t-f.report" '*' > "$t-f.got" || return 1
		[ -s "$t-f.want" ] && cmp -s "$t-f.want" "$t-f.got" ||
			{ echo "-F '$g': $(diff "$t-f.want" "$t-f.got" | head -n 4)"; return 1; }
		! [ -s "$t-f.err" ] || { echo "-F '$g': $(cat "$t-f.err")"; return 1; }
	done
	"$MCT" record -N 'std::*' -o "$t-n.data" -- "$t" 10 >/dev/null &&
	"$MCT" report "$t-n.data" > "$t-n.report" &&
	picked_rows "$t.whole" 'std::*' ! > "$t-n.want" &&
	picked_rows "$t-n.report" '*' > "$t-n.got" &&
	cmp -s "$t-n.want" "$t-n.got" ||
		{ echo "-N 'std::*': $(diff "$t-n.want" "$t-n.got" | head -n 4)"; return 1; }
	"$MCT" record -F twice -F 'geo::Trapezoid::*' -o "$t-t.data" -- \
		"$t" 10 >/dev/null 2>"$t-t.err" ||
		{ echo "a glob that picks nothing: exit $?"; return 1; }
	[ "$(wc -l < "$t-t.err")" = 1 ] &&
		grep -q "filter 'geo::Trapezoid::\*' .*picks no function" "$t-t.err" ||
		{ echo "a glob that picks nothing: $(cat "$t-t.err")"; return 1; }
}
for cxx in g++ clang++; do
	for check in "cxxfilters:record -F/-N pick C++ functions by the names report shows; a glob that picks none is said" \
		     "demangled:C++ names demangled as c++filt does (--demangle=full), and the name alone by default, in every output"; do
		if out=$(${check%%:*} $cxx 2>&1); then
			pass "$cxx: ${check#*:}"
		else
			fail "$cxx: ${check#*:}: $out"
		fi
	done
done

# recording
P=$OUT/prog
touch "$OUT/ro.data" && chmod 444 "$OUT/ro.data"
row 1 "no/dir/x.data: cannot create: No such file or directory$" \
	"record into a folder that does not exist" \
	"$MCT" record -o "$OUT/no/dir/x.data" -- "$P" basic
row 1 "ro.data: read-only file \(mode 0444\): left as it is" \
	"record over a read-only file" "$MCT" record -o "$OUT/ro.data" -- "$P" basic
for form in --chrome --perfetto --raw; do
	row 1 "ro.data: read-only file \\(mode 0444\\): left as it is" \
		"dump $form over a read-only file" \
		"$MCT" dump $form -o "$OUT/ro.data" "$OUT/prog.data"
done
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
# calls lost because a ring was full: the report and dump say which
# option keeps them.  prog.data with a thread's MCT_LOST (5) and
# MCT_LOST_WHY (5 buffers full) blocks appended, as a recorder that
# drops calls writes them (recorder/format.h)
$PY - "$OUT/prog.data" "$OUT/lost.data" <<'EOF2'
import struct, sys
data = open(sys.argv[1], "rb").read()
data += struct.pack("<IIQQ", 3, 1, 8, 5)
data += struct.pack("<IIQ4Q", 7, 1, 32, 5, 0, 0, 0)
open(sys.argv[2], "wb").write(data)
EOF2
if "$MCT" report "$OUT/lost.data" | grep -q '^# 5 calls not recorded: 5 buffers full.*--bufsize' &&
   "$MCT" dump --raw "$OUT/lost.data" 2>&1 >/dev/null |
	grep -q ': 5 calls not recorded: 5 buffers full.*--bufsize'; then
	pass "lost calls: report and dump name --bufsize"
else
	fail "lost calls: no --bufsize hint: $("$MCT" report "$OUT/lost.data" | grep '^#')"
fi
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
