#!/bin/sh
# run.sh - end-to-end tests of the runtime (lds/, runtime/).
#
#   sh tests/runtime/run.sh          from the top of the tree
#
# For each hook style (-pg -mfentry, plain -pg) and each link (-pie,
# -no-pie), compile the fixtures, record their sites, link with
# lds/mcount.lds and libmcount.a, and run rt_test twice (autoboot, and
# MCOUNT_NO_AUTOBOOT with a site corrupted before boot).  rt_test checks
# itself; this script checks its report against readelf and objdump of
# the same binary.  Then the same under ASan/UBSan and valgrind, when
# available.
#
# The record step, overridable:
#   RECORD_CMD="cmd"      run `cmd file.o` on each hooked object, which
#                         is compiled WITHOUT -mrecord-mcount
#   RECORDMCOUNT=path     same, when path is an executable file
#   otherwise             GCC's own -mrecord-mcount
# Also: CC, LIBMCOUNT (default build/libmcount.a), NO_VALGRIND=1,
# NO_SANITIZE=1.
set -u

CC=${CC:-gcc}
LIB=${LIBMCOUNT:-build/libmcount.a}
T=tests/runtime
OUT=${OUT:-$T/out}
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -Iruntime/include"
failures=0

if [ -z "${RECORD_CMD:-}" ] && [ -f "${RECORDMCOUNT:-}" ] &&
   [ -x "${RECORDMCOUNT:-}" ]; then
	RECORD_CMD=$RECORDMCOUNT
fi
if [ -n "${RECORD_CMD:-}" ]; then
	echo "record step: $RECORD_CMD"
	RECORD_FLAG=
else
	echo "record step: gcc -mrecord-mcount (no recordmcount binary)"
	RECORD_FLAG=-mrecord-mcount
fi

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() {	# expect <description> <command...>
	what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# Compile one hooked source and record its sites.
hooked_cc() {	# hooked_cc <hook flags> <pie flag> <src> <obj> [extra]
	$CC $CFLAGS $1 $2 $RECORD_FLAG -ffunction-sections ${5:-} \
		-c "$3" -o "$4" || return 1
	[ -z "${RECORD_CMD:-}" ] || $RECORD_CMD "$4"
}

build() {	# build <dir> <hook flags> <-pie|-no-pie> <lib> [sanitize]
	bd=$1
	cc_pie=-fPIE
	[ "$3" = -no-pie ] && cc_pie=-fno-pie
	mkdir -p "$bd"
	hooked_cc "$2" $cc_pie $T/fixture.c "$bd/fixture.o" "${5:-}" &&
	$CC $cc_pie -c $T/bad.S -o "$bd/bad.o" &&
	$CC $CFLAGS $cc_pie ${5:-} -c $T/rt_test.c -o "$bd/rt_test.o" &&
	$CC $3 ${5:-} -o "$bd/rt_test" "$bd/rt_test.o" "$bd/fixture.o" \
		"$bd/bad.o" "$4" -Wl,-T,lds/mcount.lds -Wl,--gc-sections \
		-Wl,--fatal-warnings
}

# awk without strtonum (mawk): hex text to a number, and back to the
# canonical lower-case form without leading zeros.
AWK_HEX='
function hex(x,  i, n) { x = tolower(x); sub(/^0x/, "", x); n = 0
	for (i = 1; i <= length(x); i++)
		n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return n }
function canon(x) { x = tolower(x); sub(/^0x/, "", x); sub(/^0+/, "", x)
	return x == "" ? "0" : x }'

# The table's link-time addresses, one per line, from the ELF file only.
table_addrs() {	# table_addrs <binary>
	sec=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
	      awk '$1 == "__mcount_loc" { print $3, $5 }')
	set -- "$1" $sec
	if readelf -h "$1" | grep -q 'DYN'; then
		# PIE: each entry is an R_X86_64_RELATIVE whose addend is it
		readelf -rW "$1" | awk -v a=$((0x$2)) -v s=$((0x$3)) "$AWK_HEX"'
			$3 == "R_X86_64_RELATIVE" && hex($1) >= a &&
			hex($1) < a + s { print canon($4) }'
	else
		readelf -x __mcount_loc "$1" | awk "$AWK_HEX"'
			/^  0x/ { for (i = 2; i <= 5 && $i ~ /^[0-9a-f]+$/; i++)
				w[n++] = $i }
			END { for (i = 0; i + 1 < n; i += 2)
				print canon(le(w[i+1]) le(w[i])) }
			function le(x,  r, k) { r = ""
				for (k = 7; k >= 1; k -= 2) r = r substr(x, k, 2)
				return r }'
	fi
}

# Every table address must hold, on disk, a call to a hook stub (or be
# bad_site, the one planted on purpose).
check_disk_sites() {	# check_disk_sites <binary> <addr file>
	objdump -d --no-show-raw-insn "$1" | awk -v list="$2" "$AWK_HEX"'
		BEGIN { while ((getline a < list) > 0) want[a] = 1 }
		/^[0-9a-f]+ <bad_site>:/ { bad = canon($1) }
		/^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); a = canon(a)
			if (a in want) { seen[a] = 1
				if ($0 ~ /call.*<(__fentry__|mcount)>/) ok++
				else other[a] = $0 } }
		END { for (a in want) if (!(a in seen)) { print "missing " a; e++ }
			for (a in other) if (a != bad) { print "not a hook: " other[a]; e++ }
			exit e != 0 }'
}

# The NOP bytes rt_test read back must disassemble, independently of
# arch/, into exactly one NOP instruction per site.
check_nop_bytes() {	# check_nop_bytes <rt_test output> <dir>
	awk '/^SITE/ { for (i = 4; i <= NF; i++) printf "%s", $i }' "$1" |
		xxd -r -p > "$2/nops.bin"
	nsites=$(grep -c '^SITE' "$1")
	objdump -D -b binary -m i386:x86-64 "$2/nops.bin" |
		awk -v n="$nsites" '/^ *[0-9a-f]+:\t/ { k++
			if ($0 !~ /\t(nop[wl]?|xchg +%ax,%ax|data16 cs nopw)/) bad++ }
			END { exit !(k == n && bad == 0) }'
}

# The table must be written only by the dynamic linker, then read-only.
in_relro() {	# in_relro <binary>
	{ readelf -lW "$1"; readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//'; } |
		awk "$AWK_HEX"'
		$1 == "GNU_RELRO" { lo = hex($3); hi = lo + hex($6) }
		$1 == "__mcount_loc" { a = hex($3); e = a + hex($5) }
		END { exit !(hi && a >= lo && e <= hi) }'
}

run_case() {	# run_case <dir> <auto|manual> <style> [runner...]
	rd=$1 rmode=$2 rstyle=$3
	shift 3
	rtag="[$rd $rmode${1:+ under $1}]"
	out="$rd/$rmode.out" err="$rd/$rmode.err"
	if [ $rmode = manual ]; then
		MCOUNT_NO_AUTOBOOT=1 "$@" "$rd/rt_test" $rmode $rstyle >"$out" 2>"$err"
	else
		"$@" "$rd/rt_test" $rmode $rstyle >"$out" 2>"$err"
	fi
	rc=$?
	grep -E '^(PASS|FAIL)' "$out" | sed "s|^\([A-Z]*\): |\1: $rtag |"
	[ $rc -eq 0 ] || { fail "$rtag rt_test exit status $rc"; cat "$err"; }
	grep -q '^FAIL' "$out" && failures=$((failures + 1))
	return 0
}

check_binary() {	# check_binary <dir> <mode>
	bin=$1 out="$1/$2.out" err="$1/$2.err" tag="[$1 $2]"
	table_addrs "$bin/rt_test" > "$bin/table.txt"
	n=$(wc -l < "$bin/table.txt")
	expect "$tag readelf counts $n entries, rt_test reports the same" \
		grep -qx "TABLE $n" "$out"
	expect "$tag COUNTS sites equals readelf's count" \
		grep -q "^COUNTS sites=$n " "$out"
	sed -n '/^-- after/q; s/^\(SITE\|REFUSED\) \([0-9a-f]*\).*/\2/p' "$out" |
		sort -u > "$bin/seen.txt"
	sort -u "$bin/table.txt" > "$bin/table.uniq"
	expect "$tag run-time sites are exactly the table's addresses" \
		cmp -s "$bin/seen.txt" "$bin/table.uniq"
	expect "$tag objdump: every table address is a call to the hook" \
		check_disk_sites "$bin/rt_test" "$bin/table.uniq"
	expect "$tag objdump: bytes read back after boot are NOPs" \
		check_nop_bytes "$out" "$d"
	want=2
	[ $2 = manual ] && want=3
	expect "$tag $want refused sites reported on stderr" \
		test "$(grep -c '^mcount: refused site' "$err")" -eq $want
	expect "$tag duplicate reported" grep -q 'duplicate table entry' "$err"
	if [ $2 = manual ]; then
		expect "$tag corrupted fx_victim reported with its bytes" \
			grep -q '<fx_victim+0x[0-9a-f]*>: [0-9a-f ]*: call to something other' "$err"
	fi
	expect "$tag no DT_TEXTREL" \
		sh -c "! readelf -d '$bin/rt_test' | grep -q TEXTREL"
	expect "$tag __mcount_loc lies inside PT_GNU_RELRO" \
		in_relro "$bin/rt_test"
}

styles="fentry mcount"
for style in $styles; do
	hooks="-pg -mfentry"
	[ $style = mcount ] && hooks=-pg
	for pie in -pie -no-pie; do
		d=$OUT/$style$pie
		if ! build $d "$hooks" $pie "$LIB"; then
			fail "[$d] build"
			continue
		fi
		for mode in auto manual; do
			run_case $d $mode $style
			check_binary $d $mode
		done
	done
done

# Sanitizers: the runtime's C code rebuilt instrumented (still no -pg).
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
if [ -z "${NO_SANITIZE:-}" ] && echo 'int main(void){return 0;}' |
	$CC $SAN -x c - -o $OUT/san-probe 2>/dev/null; then
	d=$OUT/asan
	mkdir -p $d/lib
	ok=1
	for f in runtime/engine.c runtime/hosted.c runtime/hostsym.c \
		 arch/arch.c arch/x86.c runtime/x86_64/trampoline.S; do
		$CC $CFLAGS $SAN -fPIC -fno-tree-loop-distribute-patterns \
			-c $f -o $d/lib/$(basename $f).o || ok=0
	done
	rm -f $d/libmcount-san.a
	ar rcs $d/libmcount-san.a $d/lib/*.o || ok=0
	for style in $styles; do
		hooks="-pg -mfentry"
		[ $style = mcount ] && hooks=-pg
		if [ $ok = 1 ] &&
		   build $d/$style "$hooks" -pie $d/libmcount-san.a "$SAN"; then
			run_case $d/$style auto $style
			run_case $d/$style manual $style
		else
			fail "[$d/$style] sanitizer build"
		fi
	done
else
	echo "SKIP: sanitizers"
fi

if [ -z "${NO_VALGRIND:-}" ] && command -v valgrind >/dev/null; then
	# --smc-check=all: valgrind must see the code we rewrite
	for style in $styles; do
		run_case $OUT/$style-pie auto $style valgrind -q \
			--smc-check=all --error-exitcode=99 \
			--leak-check=full --errors-for-leak-kinds=definite
	done
else
	echo "SKIP: valgrind"
fi

if [ $failures -ne 0 ]; then
	echo "FAIL: tests/runtime: $failures failure(s)"
	exit 1
fi
echo "PASS: tests/runtime"
