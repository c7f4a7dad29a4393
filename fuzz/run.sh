#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh FUZZ-DIR SECONDS TARGET... - run each libFuzzer target for
# SECONDS on its corpus (FUZZ-DIR/corpus/TARGET, kept between runs) and
# seeds (FUZZ-DIR/seeds/TARGET); print one line per target: executions,
# coverage (edges), features, corpus size, crashes.  A crash, leak,
# timeout or out-of-memory input lands in FUZZ-DIR/crashes/TARGET/ and
# makes the run fail; copy it to fuzz/regressions/TARGET/ once fixed.
# Only this run's inputs count: an earlier run's stay for reading (and
# check-fuzz replays those kept in fuzz/regressions/), but a run that
# finds nothing passes.
set -u
DIR=$1
SECONDS_EACH=$2
shift 2
TOP=$(cd "$(dirname "$0")/.." && pwd)
status=0
for t in "$@"; do
	corpus=$DIR/corpus/$t
	crashes=$DIR/crashes/$t
	log=$DIR/logs/$t.log
	mkdir -p "$corpus" "$crashes" "$DIR/logs"
	dict=
	[ "$t" = arch ] || dict=-dict=$TOP/fuzz/elf.dict
	start=$(date +%s)
	stamp=$DIR/logs/$t.start
	: > "$stamp"
	# -close_fd_mask=3: the tool's own messages are not the fuzzer's.
	"$DIR/$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$crashes/" $dict \
		"$corpus" "$DIR/seeds/$t" > "$log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	found=$(find "$crashes" -type f -newer "$stamp" | wc -l)
	echo "fuzz $t: ${execs:-?} executions in ${took}s, cov ${cov:-?}" \
	     "edges, ft ${ft:-?}, corpus $(ls "$corpus" | wc -l) inputs," \
	     "$found crash/leak/timeout inputs"
	if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
		echo "fuzz $t: FAILED (exit $rc), see $log and $crashes" >&2
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:|.*runtime error)' \
			"$log" | head -5 >&2
		status=1
	fi
done
exit $status
