#!/bin/sh
# Add up the PASS/FAIL lines every suite left in DIR/*.log and print the
# closing line CI reads: "N passed, M failed".
dir=${1:?usage: summary.sh RESULTS-DIR}
passed=$(cat "$dir"/*.log 2>/dev/null | grep -c '^PASS')
failed=$(cat "$dir"/*.log 2>/dev/null | grep -c '^FAIL')
if [ "$failed" -ne 0 ]; then
	echo "Failed tests:"
	grep -h '^FAIL' "$dir"/*.log | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
