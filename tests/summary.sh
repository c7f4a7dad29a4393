#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Add up the PASS/FAIL/SKIP lines every suite left in DIR/*.log and print
# the closing line CI reads: "N passed, M failed, K skipped".  Skips are
# counted and listed so that coverage cannot shrink unnoticed (a missing
# cross compiler, sanitizer or valgrind); they do not fail the run.  The
# suites' wall times (DIR/times, from suites.sh) come before that line.
dir=${1:?usage: summary.sh RESULTS-DIR}
passed=$(cat "$dir"/*.log 2>/dev/null | grep -c '^PASS')
failed=$(cat "$dir"/*.log 2>/dev/null | grep -c '^FAIL')
skipped=$(cat "$dir"/*.log 2>/dev/null | grep -c '^SKIP')
if [ "$skipped" -ne 0 ]; then
	echo "Skipped:"
	grep -h '^SKIP' "$dir"/*.log | sed 's/^/  /'
fi
if [ "$failed" -ne 0 ]; then
	echo "Failed tests:"
	grep -h '^FAIL' "$dir"/*.log | sed 's/^/  /'
fi
if [ -s "$dir/times" ]; then
	echo "Wall time per suite, slowest first (s):"
	sort -k2,2nr "$dir/times" | awk '{ printf "  %-20s %6d\n", $1, $2; t += $2 }
		END { printf "  %-20s %6d\n", "total", t }'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
