#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run each suite named on the command line as its own make goal, going on
# after a failure as make -k would, and note its wall time in
# $TEST_RESULTS/times (suite, seconds): CI has a time budget, and the
# totals say which suite to look at when a run nears it.
# Usage: suites.sh MAKE SUITE...  (MAKE with its flags, as one word)
make_cmd=$1
shift
: "${TEST_RESULTS:?suites.sh: TEST_RESULTS not set}"
status=0
for suite in "$@"; do
	start=$(date +%s)
	$make_cmd --no-print-directory "$suite" || status=1
	echo "$suite $(( $(date +%s) - start ))" >> "$TEST_RESULTS/times"
done
exit $status
