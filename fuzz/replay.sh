#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# replay.sh FUZZ-DIR LOG TARGET... - run every input of
# fuzz/regressions/TARGET/ through that target once (the inputs fuzzing
# found crashes or hangs with, kept after the fix), then every seed of
# FUZZ-DIR/seeds/TARGET once (the corpus fuzz-smoke starts from: an
# input that fails there fails here first).  PASS/FAIL lines go to LOG;
# a target with no saved inputs gets a SKIP line.  A failing input's
# copy goes to FUZZ-DIR/replay-crash-*, never into the working tree.
set -u
DIR=$1
LOG=$2
shift 2
TOP=$(cd "$(dirname "$0")/.." && pwd)
status=0
# replay TARGET NAME INPUT [FLAG...]: one PASS or FAIL line for NAME
replay() {
	target=$1 name=$2 input=$3
	shift 3
	if out=$("$DIR/$target" "$@" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$DIR/replay-crash-" \
		-close_fd_mask=3 "$input" 2>&1); then
		echo "PASS: $name" | tee -a "$LOG"
	else
		why=$(echo "$out" | grep -E 'ERROR|SUMMARY|fuzz:|runtime error' |
			head -1)
		echo "FAIL: $name: ${why:-target failed}" | tee -a "$LOG"
		status=1
	fi
}
for t in "$@"; do
	found=0
	for f in "$TOP/fuzz/regressions/$t"/*; do
		[ -f "$f" ] || continue
		found=1
		replay "$t" "fuzz/$t/$(basename "$f")" "$f"
	done
	[ $found = 1 ] || echo "SKIP: fuzz/$t: no saved inputs" | tee -a "$LOG"
	seeds=$DIR/seeds/$t
	if [ -d "$seeds" ]; then
		# -runs=0: load (and so run) every input once, no mutation
		replay "$t" "fuzz/$t/seeds ($(ls "$seeds" | wc -l) inputs)" \
			"$seeds" -runs=0
	else
		echo "SKIP: fuzz/$t/seeds: none generated" | tee -a "$LOG"
	fi
done
exit $status
