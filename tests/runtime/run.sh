#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - end-to-end tests of the runtime (lds/, runtime/).
#
#   sh tests/runtime/run.sh          from the top of the tree
#   RT_ARCH=i386 CC=i686-linux-gnu-gcc LIBMCOUNT=build/i386/libmcount.a \
#   OUT=build/tests/runtime/i386 sh tests/runtime/run.sh
#
# For each case of the architecture (tests/runtime/arches.sh: hook style
# -pg -mfentry or plain -pg, link -pie or -no-pie, hooks relaxed by ld or
# left as calls through the GOT), compile the fixtures, record their
# sites, link with lds/mcount.lds and libmcount.a, and run rt_test twice
# (autoboot, and MCOUNT_NO_AUTOBOOT with a site corrupted before boot),
# through the architecture's runner (qemu-user) if it has one.  rt_test
# checks itself; this script checks its report against readelf and
# objdump of the same binary.  Then the same under ASan/UBSan and
# valgrind, when available.
#
# RT_ARCH defaults to what `$CC -dumpmachine` names (i686 -> i386).
#
# The record step, overridable:
#   RECORD_CMD="cmd"      run `cmd file.o` on each hooked object, which
#                         is compiled WITHOUT -mrecord-mcount
#   RECORDMCOUNT=path     same, when path is an executable file
#   otherwise             GCC's own -mrecord-mcount
# Also: CC, LIBMCOUNT (default build/libmcount.a), NO_VALGRIND=1,
# NO_SANITIZE=1, RT_ONLY_CASES="case...".
#
# RT_CLANG=clang (or clang-16): the programs are built by that clang
# for the architecture (arches.sh's RT_CLANG_TARGET, RT_CLANG_CFLAGS),
# linked through it with the target's GNU ld, against the same
# LIBMCOUNT (built by GCC, as a user would link it), and only
# RT_CLANG_CASES run; an empty list is a SKIP line with RT_CLANG_WHY.
set -u

T=tests/runtime
. $T/arches.sh
if [ -z "${RT_ARCH:-}" ]; then
	RT_ARCH=$(${CC:-gcc} -dumpmachine | sed 's/-.*//; s/^i[3-6]86$/i386/')
fi
if ! rt_arch_config "$RT_ARCH"; then
	echo "FAIL: [$RT_ARCH] no runtime test configuration in $T/arches.sh"
	exit 1
fi
TAG="$RT_ARCH${RT_CLANG:+ $RT_CLANG}"
if [ -n "${RT_CLANG:-}" ]; then
	if [ -z "$RT_CLANG_CASES" ]; then
		echo "SKIP: [$TAG] runtime tests: $RT_CLANG_WHY"
		exit 0
	fi
	RT_CASES=$RT_CLANG_CASES
	CC="$RT_CLANG${RT_CLANG_TARGET:+ --target=$RT_CLANG_TARGET}"
	CC="$CC${RT_CLANG_CFLAGS:+ $RT_CLANG_CFLAGS}"
fi
# RT_ONLY_CASES: a subset of the cases.
RT_CASES=${RT_ONLY_CASES:-$RT_CASES}
CC=${CC:-$RT_CC_DEFAULT}
LIB=${LIBMCOUNT:-build/libmcount.a}
OUT=${OUT:-$T/out}
CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -Iruntime/include"
failures=0
echo "architecture: $RT_ARCH, CC=$CC${RT_RUN:+, runner: $RT_RUN}"
[ -z "${RT_CLANG:-}" ] || [ -z "$RT_CLANG_WHY" ] ||
	echo "clang cases: $(echo $RT_CASES) ($RT_CLANG_WHY)"

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

# Every program run is bounded: a runner that hangs (qemu-user has, on
# hosts it was not built for) must end in a FAIL line, not stop the suite.
RT_LIMIT=${RT_LIMIT:-600}
BOUND="timeout -k 10 $RT_LIMIT"
# bounded_status <status>: the reason a bounded run failed, in words.
bounded_status() {
	case $1 in
	124|137) echo "did not finish within $RT_LIMIT s (stopped)" ;;
	*) echo "exit status $1" ;;
	esac
}

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

build() {	# build <dir> <hook flags> <-pie|-no-pie> <lib> [cflags]
	bd=$1
	cc_pie=-fPIE
	[ "$3" = -no-pie ] && cc_pie=-fno-pie
	mkdir -p "$bd"
	hooked_cc "$2" $cc_pie $T/fixture.c "$bd/fixture.o" "${5:-}" &&
	$CC $cc_pie ${RT_VARIANT_CFLAGS:-} $BAD_FLAGS -c $T/bad-$RT_ARCH.S \
		-o "$bd/bad.o" &&
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

# The table's link-time addresses, one per line, from the ELF file only:
# a RELA PIE's entries are the addends of its *_RELATIVE relocations;
# otherwise (no PIE, or REL, which keeps the addend in place) they are
# the section's contents, 4- or 8-byte words in the file's byte order.
table_addrs() {	# table_addrs <binary>
	sec=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
	      awk '$1 == "__mcount_loc" { print $3, $5 }')
	hdr=$(readelf -h "$1")
	set -- "$1" $sec
	if echo "$hdr" | grep -q 'DYN' &&
	   readelf -rW "$1" | grep -q "^Relocation section '\.rela"; then
		readelf -rW "$1" | awk -v a=$((0x$2)) -v s=$((0x$3)) "$AWK_HEX"'
			$3 ~ /_RELATIVE$/ && hex($1) >= a &&
			hex($1) < a + s { print canon($4) }'
	else
		words=2
		case $hdr in *ELF32*) words=1 ;; esac
		be=0
		case $hdr in *"big endian"*) be=1 ;; esac
		readelf -x __mcount_loc "$1" | awk -v words=$words -v be=$be \
			"$AWK_HEX"'
			/^  0x/ { for (i = 2; i <= 5 && $i ~ /^[0-9a-f]+$/ &&
				       length($i) == 8; i++) w[n++] = $i }
			END { for (i = 0; i + words <= n; i += words) {
				v = ""
				for (k = 0; k < words; k++)
					v = be ? v w[i+k] : le(w[i+k]) v
				print canon(v) } }
			function le(x,  r, k) { r = ""
				for (k = 7; k >= 1; k -= 2) r = r substr(x, k, 2)
				return r }'
	fi
}

# Every table address must hold, on disk, a call to a hook stub, or in
# a pad case a pad NOP (or be bad_site, the one planted on purpose).  In
# a gotcall case the hooks must be calls through the GOT, at least one,
# except dup_site's.
check_disk_sites() {	# check_disk_sites <binary> <addr file> [gotcall]
	$RT_OBJDUMP -d --no-show-raw-insn "$1" |
	HOOK_RE=$CASE_HOOK_RE GOT_RE=${3:+$RT_GOTCALL_RE} \
	LEAD_RE=$CASE_LEAD_RE awk -v list="$2" "$AWK_HEX"'
		BEGIN { while ((getline a < list) > 0) want[a] = 1
			hook = ENVIRON["HOOK_RE"]; got = ENVIRON["GOT_RE"]
			lead = ENVIRON["LEAD_RE"] }
		/^[0-9a-f]+ <bad_site>:/ { bad = canon($1) }
		/^ *[0-9a-f]+:/ && led != "" { if ($0 !~ hook) other[led] = $0
			led = "" }
		/^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); a = canon(a)
			if (a in want) { seen[a] = 1
				if (got != "" && $0 ~ got) gots++
				else if ($0 ~ hook) ok++
				else if (lead != "" && $0 ~ lead) led = a
				else other[a] = $0 } }
		END { for (a in want) if (!(a in seen)) { print "missing " a; e++ }
			for (a in other) if (a != bad) { print "not a hook: " other[a]; e++ }
			if (got != "" && !gots) { print "no call through the GOT"; e++ }
			exit e != 0 }'
}

# After --finalize --prepatch: every table address but bad_site holds
# `test $imm32,%eax` (after an addr32 prefix for a 6-byte site), imm32
# the distance from the instruction's end to one of the runtime's
# trampolines (nm), modulo 2^32: the call it stands for goes there.
check_prepatched() {	# check_prepatched <binary> <addr file>
	tf=$(nm "$1" | awk '$3 == "mc_rt_tramp_fentry" { print $1 }')
	tm=$(nm "$1" | awk '$3 == "mc_rt_tramp_mcount" { print $1 }')
	[ -n "$tf" ] || return 1
	$RT_OBJDUMP -d "$1" | awk -F'\t' -v list="$2" -v tf="$tf" \
		-v tm="${tm:-0}" "$AWK_HEX"'
		BEGIN { while ((getline a < list) > 0) want[a] = 1
			tf = hex(tf); tm = hex(tm) }
		/^[0-9a-f]+ <bad_site>:/ { split($0, f, " "); bad = canon(f[1]) }
		/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(":", "", a)
			a = canon(a)
			if (!(a in want)) next
			seen[a] = 1
			if (a == bad) next
			n = split($2, b, " ")
			if ($3 !~ /^(addr(16|32) )?test +\$0x[0-9a-f]+,%eax/) {
				print "not a disabled form: " $0; e++; next }
			imm = $3; sub(/.*\$0x/, "", imm); sub(/,.*/, "", imm)
			imm = hex(imm); end = hex(a) + n
			if (imm != (tf - end + 2^32) % 2^32 &&
			    (!tm || imm != (tm - end + 2^32) % 2^32)) {
				print "aimed at no trampoline: " $0; e++ } }
		END { for (a in want) if (!(a in seen)) { print "missing " a; e++ }
			exit e != 0 }'
}

# The disabled bytes rt_test read back (from the bytes before a site
# that its live form covers, ARM's) must disassemble, independently of
# arch/, into instructions that RT_NEUTRAL_RE allows (NOPs, or the live
# form's disabled instructions): at least one per site, at most one per
# RT_NEUTRAL_INSN_LEN bytes read (a live form may take several of a
# pad's NOPs in one instruction).  A disabled form may jump forward over
# the rest of itself (Thumb's `b.n` over the call it keeps, riscv64's
# `c.j` at 2 mod 4): what it skips is not judged, and it must land on
# its site's end.  Each site is disassembled on its own, so that skipped
# bytes objdump reads as an instruction running past the site cannot
# take the next site's.
check_nop_bytes() {	# check_nop_bytes <rt_test output> <dir>
	awk '/^SITE/ { for (i = 4; i <= NF; i++) printf "%s", $i }' "$1" |
		xxd -r -p > "$2/nops.bin"
	# (a clang pad's live form: the call's disabled form, then NOPs)
	w=${CASE_NEUTRAL_INSN_LEN:-0}
	[ "$w" = 0 ] && [ -n "${CASE_PAD:-}" ] && w=1
	nmax=$(awk -v w="$w" '/^SITE/ {
		n += w ? (NF - 3) / w : 1 } END { print n + 0 }' "$1")
	nmin=$(grep -c '^SITE' "$1")
	awk '/^SITE/ { print o + 0, o + NF - 3; o += NF - 3 }' "$1" |
	while read -r lo hi; do
		echo "SITE $lo $hi"
		$RT_OBJDUMP -D -b binary -m ${RT_VARIANT_BFD:-$RT_BFD} \
			--start-address=$lo --stop-address=$hi "$2/nops.bin"
	done |
		NEUTRAL_RE=$CASE_NEUTRAL_RE awk -F'\t' -v lo="$nmin" -v hi="$nmax" '
			function hex(h,   v, i) { v = 0; h = tolower(h)
				sub(/^ *(0x)?/, "", h); sub(/:$/, "", h)
				for (i = 1; i <= length(h); i++)
					v = v * 16 + index("0123456789abcdef",
							   substr(h, i, 1)) - 1
				return v }
			function site_end() { if (skip_to && skip_to != end) {
				print "jumps to " skip_to ", not to the end of its site (" end ")"
				bad++ } }
			/^SITE / { site_end(); split($0, f, " ")
				end = f[3]; skip_to = 0; next }
			/^ *[0-9a-f]+:\t/ && NF >= 3 { at = hex($1)
			if (skip_to && at < skip_to) next
			if (skip_to) { site_end(); skip_to = 0 }
			k++
			if ($3 (NF > 3 ? " " $4 : "") !~ ENVIRON["NEUTRAL_RE"]) {
				print "not a disabled form: " $0; bad++ }
			else if ($3 ~ /^(b(\.n|\.w)?|j)$/ && $4 ~ /^0x[0-9a-f]+$/) {
				skip_to = hex($4)
				if (skip_to <= at) {
					print "jumps back: " $0; bad++ } } }
			END { site_end()
				exit !(k >= lo && k <= hi && bad == 0) }'
}

# The bytes of file <binary>'s .text from link-time address <addr>
# (hex), <len> of them, as objdump -s shows them: hex, no spaces.
disk_bytes() {	# disk_bytes <binary> <addr> <len>
	$RT_OBJDUMP -s --start-address=0x$2 \
		--stop-address=$((0x$2 + $3)) "$1" | awk '
		/^Contents of section / { code = 0 }
		/^Contents of section \.text:/ { code = 1 }
		code && /^ [0-9a-f]+ / { sub(/^ /, "")
			h = substr($0, length($1) + 2, 35)
			gsub(/[^0-9a-f]/, "", h); printf "%s", h }'
}

# Where rt_test found each pad after boot (PAD <addr> <at> <len>
# <bytes>, link-time addresses), the file must hold pad NOPs, every
# instruction objdump finds in those bytes matching RT_PAD_RE: the
# engine's slot is inside the compiler's pad.  (Boot puts the slot in
# its live form: check_nop_bytes judges the bytes it left.)
check_pad_bytes() {	# check_pad_bytes <binary> <rt_test output>
	sed -n '/^-- after/q; /^PAD /p' "$2" > "$2.pads"
	[ -s "$2.pads" ] || return 1
	while read -r _ _ at len bytes; do
		disk_bytes "$1" "$at" "$len"
	done < "$2.pads" | xxd -r -p > "$2.padfile"
	[ -s "$2.padfile" ] || return 1
	$RT_OBJDUMP -D -b binary -m ${RT_VARIANT_BFD:-$RT_BFD} "$2.padfile" |
		PAD_RE=$RT_PAD_RE awk -F'\t' '/^ *[0-9a-f]+:\t/ && NF >= 3 { k++
			if ("\t" $3 (NF > 3 ? " " $4 : "") !~ ENVIRON["PAD_RE"]) {
				print "not a pad NOP in the file: " $0; bad++ } }
			END { exit !(k > 0 && bad == 0) }'
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
		MCOUNT_NO_AUTOBOOT=1 $BOUND "$@" "$rd/rt_test" $rmode $rstyle >"$out" 2>"$err"
	else
		$BOUND "$@" "$rd/rt_test" $rmode $rstyle >"$out" 2>"$err"
	fi
	rc=$?
	grep -E '^(PASS|FAIL)' "$out" | sed "s|^\([A-Z]*\): |\1: $rtag |"
	[ $rc -eq 0 ] || { fail "$rtag rt_test $(bounded_status $rc)"; cat "$err"; }
	grep -q '^FAIL' "$out" && failures=$((failures + 1))
	return 0
}

check_binary() {	# check_binary <dir> <mode> <style> [gotcall]
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
	if [ -n "${PREPATCHED:-}" ]; then
		expect "$tag objdump, nm: every table address but bad_site holds the disabled form aimed at a trampoline" \
			check_prepatched "$bin/rt_test" "$bin/table.uniq"
	else
		expect "$tag objdump: every table address is a ${CASE_HOOK_WHAT}" \
			check_disk_sites "$bin/rt_test" "$bin/table.uniq" ${4:-}
	fi
	expect "$tag objdump: bytes read back after boot are NOPs" \
		check_nop_bytes "$out" "$bin"
	# and bad.S's hooks whose caller the runtime cannot locate (riscv64)
	unknown=$(sed -n 's/^UNKNOWN_CALLER //p' "$out")
	want=$((3 + ${unknown:-0}))
	[ $2 = manual ] && want=$((want + 1))
	# pads refused for their shape (RT_PAD_REFUSED), each with its reason
	npads=0
	while read -r re; do
		[ -n "$re" ] || continue
		npads=$((npads + 1))
		expect "$tag refused with its reason: $re" \
			grep -qE "^mcount: refused site [^ ]* <$re" "$err"
	done <<EOF
$CASE_REFUSED
EOF
	want=$((want + npads))
	expect "$tag rt_test expects the same $npads refused pad(s)" \
		grep -qx "REFUSED_PADS $npads" "$out"
	expect "$tag $want refused sites reported on stderr" \
		test "$(grep -c '^mcount: refused site' "$err")" -eq $want
	if [ "${unknown:-0}" -gt 0 ]; then
		expect "$tag $unknown hooks refused: cannot tell where their caller is" \
			test "$(grep -c '^mcount: refused site.*: cannot tell where' \
				"$err")" -eq "$unknown"
	fi
	expect "$tag duplicate reported" grep -q 'duplicate table entry' "$err"
	expect "$tag site forged after boot reported by mcount_verify" \
		grep -q '<fx_other+0x[0-9a-f]*>: [0-9a-f ]*: changed since it was patched' "$err"
	if [ $2 = manual ]; then
		expect "$tag corrupted fx_victim reported with its bytes" \
			grep -qE "<fx_victim\+0x[0-9a-f]*>: [0-9a-f ]*: $CASE_VICTIM_WHY" "$err"
	fi
	if [ $3 = pad ]; then
		expect "$tag the file holds pad NOPs where every pad's slot is (objdump -s)" \
			check_pad_bytes "$bin/rt_test" "$out"
	fi
	expect "$tag no DT_TEXTREL" \
		sh -c "! readelf -d '$bin/rt_test' | grep -q TEXTREL"
	expect "$tag __mcount_loc lies inside PT_GNU_RELRO" \
		in_relro "$bin/rt_test"
}

# <style>-<pie|no-pie>[-gotcall][+variant] -> the variables for one case.
parse_case() {	# parse_case <case>
	style=${1%%-*}
	hooks=${RT_FENTRY_FLAGS:--pg -mfentry}
	[ $style = mcount ] && hooks=-pg
	pie=-pie
	case $1 in *-no-pie*) pie=-no-pie ;; esac
	gotcall=
	extra=
	case $1 in *-gotcall) gotcall=1 extra=$RT_GOTCALL_CFLAGS ;; esac
	RT_VARIANT_CFLAGS= RT_VARIANT_BFD= RT_VARIANT_HOOKS= RT_VARIANT_NOP_LEN=
	RT_VARIANT_RUN= RT_VARIANT_INSN_RE= RT_VARIANT_PAD_REFUSED=
	case $1 in *+*)
		rt_variant "$RT_ARCH" "${1#*+}" ||
			fail "[$1] no variant ${1#*+} in $T/arches.sh"
		extra="$extra $RT_VARIANT_CFLAGS" ;;
	esac
	CASE_RUN=${RT_VARIANT_RUN:-$RT_RUN}
	CASE_HOOK_RE=$RT_HOOK_RE CASE_LEAD_RE=${RT_HOOK_LEAD_RE:-}
	CASE_HOOK_WHAT="call to the hook"
	CASE_NEUTRAL_INSN_LEN=${RT_NEUTRAL_INSN_LEN:-}
	CASE_NEUTRAL_RE=$RT_NEUTRAL_RE
	CASE_VICTIM_WHY="call to something other"
	CASE_REFUSED=
	CASE_PAD=
	BAD_FLAGS=
	if [ $style = pad ]; then
		# bad-<arch>.S lists a pad twice, not a call
		hooks=$RT_VARIANT_HOOKS BAD_FLAGS=-DRT_PAD CASE_PAD=1
		CASE_HOOK_RE=$RT_PAD_RE CASE_LEAD_RE= CASE_HOOK_WHAT="pad NOP"
		CASE_NEUTRAL_INSN_LEN=$RT_VARIANT_NOP_LEN
		CASE_NEUTRAL_RE=${RT_PAD_NEUTRAL_RE:-$RT_NEUTRAL_RE}
		CASE_REFUSED=${RT_VARIANT_PAD_REFUSED:-${RT_PAD_REFUSED:-}}
		CASE_VICTIM_WHY="(not a hook call, NOP or NOP pad|NOP pad too short|NOP pad of mixed NOP sizes)"
	fi
}

# For the slower runs, one case per style: its PIE if there is one
# (for pads, the first pad case).
main_cases() {
	all=" $(echo $RT_CASES) "
	for s in fentry mcount; do
		case $all in
		*" $s-pie "*) echo $s-pie ;;
		*" $s-no-pie "*) echo $s-no-pie ;;
		esac
	done
	for c in $RT_CASES; do
		case $c in pad-*) echo $c; break ;; esac
	done
}

# The storm's cases: main_cases, and those of RT_STORM_EXTRA this
# compiler runs.
storm_cases() {
	main_cases
	all=" $(echo $RT_CASES) "
	for c in ${RT_STORM_EXTRA:-}; do
		case $all in *" $c "*) echo $c ;; esac
	done
}

# $CASE_RUN unquoted on purpose: a runner is a command and its options.
for c in $RT_CASES; do
	parse_case $c
	d=$OUT/$c
	if ! build $d "$hooks" $pie "$LIB" "$extra"; then
		fail "[$d] build"
		continue
	fi
	if [ -n "$RT_VARIANT_INSN_RE" ]; then
		expect "[$d] objdump: fixture.o holds the variant's code" \
			sh -c "$RT_OBJDUMP -d '$d/fixture.o' | grep -Eq '$RT_VARIANT_INSN_RE'"
	fi
	for mode in auto manual; do
		run_case $d $mode $style $CASE_RUN
		check_binary $d $mode $style $gotcall
	done
done

# A table in order (inorder-<arch>.S, where there is one): the boot
# pass's short way for runs of like hook calls stops at a call to
# something else, which is refused and left as it is, and takes the
# hooks after it up again.
if [ -f $T/inorder-$RT_ARCH.S ]; then
	d=$OUT/inorder
	mkdir -p $d
	if $CC -fPIE -c $T/inorder-$RT_ARCH.S -o $d/inorder-s.o &&
	   $CC $CFLAGS -fPIE -c $T/inorder.c -o $d/inorder.o &&
	   $CC -pie -o $d/inorder $d/inorder.o $d/inorder-s.o "$LIB" \
		-Wl,-T,lds/mcount.lds; then
		$BOUND $RT_RUN $d/inorder > $d/out 2> $d/err
		st=$?
		grep -E '^(PASS|FAIL): ' $d/out | sed "s#^[A-Z]*: #&[$d] #"
		failures=$((failures + $(grep -c '^FAIL' $d/out)))
		expect "[$d] exits 0, its other call reported on stderr" \
			test $st = 0 -a -n "$(grep 'refused site' $d/err)"
	else
		fail "[$d] build"
	fi
fi

# --finalize --prepatch (RT_PREPATCH): a copy of each hook-call case,
# its hooks put in their disabled form by the tool; the runtime takes
# them all and writes none (rt_test, RT_PREPATCHED), and the same checks
# hold with objdump's view of the prepatched file.  Cases with GOT calls
# are left out: the tool leaves those calls for the runtime.
if [ -n "${RT_PREPATCH:-}" ] && [ -f "${RECORDMCOUNT:-}" ] &&
   [ -x "${RECORDMCOUNT:-}" ]; then
	for c in $RT_CASES; do
		case $c in pad-*|*-gotcall*) continue ;; esac
		parse_case $c
		d=$OUT/$c-prepatch
		mkdir -p $d
		if ! cp $OUT/$c/rt_test $d/rt_test ||
		   ! $RECORDMCOUNT --finalize --prepatch $d/rt_test; then
			fail "[$d] recordmcount --finalize --prepatch"
			continue
		fi
		# the victim: its disabled form aimed at rt_dummy
		CASE_VICTIM_WHY="not a hook call, NOP or NOP pad"
		for mode in auto manual; do
			RT_PREPATCHED=1 run_case $d $mode $style $CASE_RUN
			PREPATCHED=1 check_binary $d $mode $style
		done
	done
else
	echo "SKIP: [$TAG] --finalize --prepatch: ${RT_PREPATCH:+no recordmcount binary}${RT_PREPATCH:-no link-time disabled form on $RT_ARCH}"
fi

# The toggle storm (storm.c): one case per style and RT_STORM_EXTRA's
# (storm_cases), STORM_RUNS runs of STORM_SECONDS each, threads calling
# and toggling at once.  A run passes when it exits 0 having printed
# its own "N passed, 0 failed".
STORM_RUNS=${STORM_RUNS:-3}
STORM_SECONDS=${STORM_SECONDS:-2}
# a run that has not ended long after its time is a hang: a failure
STORM_LIMIT=$((STORM_SECONDS * 10 + 60))
storm_build() {	# storm_build <dir> <hook flags> <-pie|-no-pie> <lib> [cflags]
	sd=$1
	cc_pie=-fPIE
	[ "$3" = -no-pie ] && cc_pie=-fno-pie
	mkdir -p "$sd"
	hooked_cc "$2" $cc_pie $T/storm_funcs.c "$sd/storm_funcs.o" "${5:-}" &&
	$CC $CFLAGS $cc_pie ${5:-} -c $T/storm.c -o "$sd/storm.o" &&
	$CC $3 ${5:-} -o "$sd/storm" "$sd/storm.o" "$sd/storm_funcs.o" \
		"$4" -Wl,-T,lds/mcount.lds -lpthread
}
# The first use of sites after boot (lazy.c, with the storm's functions,
# in the storm's first case): boot may keep the sites as runs and make
# their records only then.
if [ -z "${NO_STORM:-}" ]; then
	for c in $(storm_cases); do
		parse_case $c
		d=$OUT/lazy/$c
		if storm_build $d "$hooks" $pie "$LIB" "$extra" &&
		   $CC $CFLAGS $cc_pie $extra -c $T/lazy.c -o $d/lazy.o &&
		   $CC $pie $extra -o $d/lazy $d/lazy.o $d/storm_funcs.o "$LIB" \
			-Wl,-T,lds/mcount.lds -lpthread; then
			for v in lazy lazy-prepatch; do
				if [ $v = lazy-prepatch ]; then
					[ -n "${RT_PREPATCH:-}" ] &&
					[ -x "${RECORDMCOUNT:-}" ] || break
					cp $d/lazy $d/$v &&
					$RECORDMCOUNT --finalize --prepatch $d/$v ||
					{ fail "[$TAG $c] $v: --prepatch"; break; }
				fi
				$BOUND $CASE_RUN $d/$v > $d/$v.out 2> $d/$v.err
				st=$?
				grep -E '^(PASS|FAIL): ' $d/$v.out | sed "s#^[A-Z]*: #&[$TAG $c $v] #"
				failures=$((failures + $(grep -c '^FAIL' $d/$v.out)))
				expect "[$TAG $c] $v: first use after boot: exits 0$([ $st = 0 ] || echo " ($(bounded_status $st))")" test $st = 0
			done
		else
			fail "[$TAG $c] first use after boot: build"
		fi
		# no storage at first use: native only (lazy_enomem.c says why)
		if [ -n "${RT_RUN:-}" ]; then
			echo "SKIP: [$TAG $c] first use with no storage: under $RT_RUN, RLIMIT_AS would bound the emulator"
		elif hooked_cc "$hooks" $cc_pie $T/lazy_many.c $d/lazy_many.o "$extra" &&
		   $CC $CFLAGS $cc_pie $extra -c $T/lazy_enomem.c -o $d/lazy_enomem.o &&
		   $CC $pie $extra -o $d/lazy_enomem $d/lazy_enomem.o \
			$d/lazy_many.o "$LIB" -Wl,-T,lds/mcount.lds; then
			$BOUND $d/lazy_enomem > $d/enomem.out 2> $d/enomem.err
			st=$?
			grep -E '^(PASS|FAIL): ' $d/enomem.out | sed "s#^[A-Z]*: #&[$TAG $c lazy_enomem] #"
			failures=$((failures + $(grep -c '^FAIL' $d/enomem.out)))
			expect "[$TAG $c] first use with no storage: exits 0" test $st = 0
		else
			fail "[$TAG $c] first use with no storage: build"
		fi
		break
	done
fi
# x86 under qemu-user: its translator reads an instruction byte by byte
# and is not serialized by membarrier, so it can read one across the
# writes of a cross-modification that hardware never sees torn; the
# storm then fails the same way with the runtime of 9a98a61.  Natively
# only, as the storm of every x86 build elsewhere runs.
case $RT_ARCH in
i386) [ -z "${RT_RUN:-}" ] || NO_STORM_WHY="under $RT_RUN, qemu's translator can read an x86 instruction torn by another thread's patch (natively only)" ;;
esac
if [ -n "${NO_STORM_WHY:-}" ]; then
	echo "SKIP: [$TAG] toggle storm: $NO_STORM_WHY"
elif [ -n "${NO_STORM:-}" ]; then
	echo "SKIP: [$TAG] toggle storm (NO_STORM)"
else
	for c in $(storm_cases); do
		parse_case $c
		d=$OUT/storm/$c
		if ! storm_build $d "$hooks" $pie "$LIB" "$extra"; then
			fail "[$TAG $c] toggle storm build"
			continue
		fi
		ok=0 why=
		for r in $(seq $STORM_RUNS); do
			STORM_SECONDS=$STORM_SECONDS timeout -k 10 $STORM_LIMIT \
				$CASE_RUN $d/storm >$d/run$r.out 2>$d/run$r.err
			rc=$?
			if [ $rc -eq 0 ] && grep -q '^[0-9]* passed, 0 failed$' $d/run$r.out; then
				ok=$((ok + 1))
			else
				why="$why run $r: exit $rc $(grep -h '^FAIL\|^storm:' $d/run$r.out $d/run$r.err | head -3 | tr '\n' ' ');"
			fi
		done
		stats=$(grep -h '^storm: [0-9]' $d/run*.out | awk '{ c += $2; b += $4; t += $6 }
			END { printf "%d calls, %d callbacks, %d toggles", c, b, t }')
		if [ $ok -eq $STORM_RUNS ]; then
			pass "[$TAG $c] toggle storm: $STORM_RUNS runs of ${STORM_SECONDS}s, 4 callers, 2 togglers ($stats)"
		else
			fail "[$TAG $c] toggle storm: $ok of $STORM_RUNS runs passed:$why"
		fi
	done
fi

# Can the sanitizer build start a thread?  (i386's ASan on recent
# kernels spins forever in pthread_create.)  Asked once.
san_threads_work() {
	if [ -z "${SAN_THREADS:-}" ]; then
		SAN_THREADS=no
		printf '%s\n' '#include <pthread.h>' \
			'static void *w(void *a) { return a; }' \
			'int main(void) { pthread_t t; return pthread_create(&t, 0, w, 0) || pthread_join(t, 0); }' |
			$CC $SAN -x c - -o $OUT/san-thread-probe -lpthread 2>/dev/null &&
		timeout -k 5 20 $RT_SAN_RUN $RT_RUN $OUT/san-thread-probe &&
			SAN_THREADS=yes
	fi
	[ $SAN_THREADS = yes ]
}

# Sanitizers: the runtime's C code rebuilt instrumented (still no -pg).
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
if [ -z "${NO_SANITIZE:-}" ] && [ "$RT_SAN_RUN" != - ] &&
   echo 'int main(void){return 0;}' |
	$CC $SAN -x c - -o $OUT/san-probe 2>/dev/null &&
   timeout -k 5 60 $RT_SAN_RUN $RT_RUN $OUT/san-probe; then
	d=$OUT/asan
	rm -rf $d/lib $d/linux
	mkdir -p $d/lib $d/linux
	ok=1
	for f in runtime/core/*.c runtime/linux/*.c \
		 $RT_ARCH_SRC runtime/$RT_ARCH/trampoline.S; do
		o=$d/lib/$(basename $f).o
		case $f in runtime/linux/*) o=$d/linux/$(basename $f).o;; esac
		$CC $CFLAGS $SAN -fPIC -fno-tree-loop-distribute-patterns \
			-c $f -o $o || ok=0
	done
	# the platform layer one member, as runtime.mk makes it: a program
	# that boots pulls all of it, the constructor included
	$CC -r -nostdlib -o $d/lib/linux.o $d/linux/*.o || ok=0
	rm -f $d/libmcount-san.a
	ar rcs $d/libmcount-san.a $d/lib/*.o || ok=0
	for c in $(main_cases); do
		parse_case $c
		if [ $ok = 1 ] &&
		   build $d/$style "$hooks" $pie $d/libmcount-san.a "$SAN $extra"; then
			run_case $d/$style auto $style $RT_SAN_RUN $RT_RUN
			run_case $d/$style manual $style $RT_SAN_RUN $RT_RUN
		else
			fail "[$d/$style] sanitizer build"
		fi
		# the storm too: the engine's own memory under ASan+UBSan while
		# threads toggle (ThreadSanitizer cannot run it: it has no
		# shadow for the text the engine writes)
		if [ $ok = 1 ] && [ -z "${NO_STORM:-}" ] && ! san_threads_work; then
			echo "SKIP: [$TAG $c] toggle storm under ASan+UBSan: this target's ASan cannot start a thread here (pthread_create never returns in a probe)"
		elif [ $ok = 1 ] && [ -z "${NO_STORM:-}" ] &&
		   storm_build $d/storm-$style "$hooks" $pie $d/libmcount-san.a "$SAN $extra"; then
			if STORM_SECONDS=$STORM_SECONDS timeout -k 10 $STORM_LIMIT $RT_SAN_RUN $RT_RUN \
				$d/storm-$style/storm >$d/storm-$style/out 2>&1 &&
			   grep -q '^[0-9]* passed, 0 failed$' $d/storm-$style/out; then
				pass "[$TAG $c] toggle storm under ASan+UBSan"
			else
				fail "[$TAG $c] toggle storm under ASan+UBSan"
				tail -20 $d/storm-$style/out
			fi
		fi
	done
else
	echo "SKIP: [$TAG] sanitizers"
fi

# Valgrind needs the target's ld.so with symbols (i386: libc6-dbg:i386).
valgrind_works() {
	echo 'int main(void){return 0;}' | $CC -x c - -o $OUT/vg-probe &&
		valgrind -q --error-exitcode=99 $OUT/vg-probe >/dev/null 2>&1
}

if [ -z "${NO_VALGRIND:-}" ] && [ $RT_VALGRIND = 1 ] && [ -z "$RT_RUN" ] &&
   command -v valgrind >/dev/null && valgrind_works; then
	# --smc-check=all: valgrind must see the code we rewrite
	for c in $(main_cases); do
		parse_case $c
		run_case $OUT/$c auto $style valgrind -q \
			--smc-check=all --error-exitcode=99 \
			--leak-check=full --errors-for-leak-kinds=definite
	done
else
	echo "SKIP: [$TAG] valgrind"
fi

if [ $failures -ne 0 ]; then
	echo "FAIL: tests/runtime [$TAG]: $failures failure(s)"
	exit 1
fi
echo "PASS: tests/runtime [$TAG]"
