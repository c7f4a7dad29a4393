#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lanes.sh DIR LANE...: a suite's lanes (tests/lanes.mk) reported as if
# they had run one after another: each lane's output in the order named,
# whatever order they finished in.  Exit status 1 if a lane failed or
# left no status (it never finished: make was stopped, or it was never
# started), with a FAIL line naming it in the second case.
dir=${1:?usage: lanes.sh DIR LANE...}
shift
status=0
for lane in "$@"; do
	[ -f "$dir/$lane.out" ] && cat "$dir/$lane.out"
	st=$(cat "$dir/$lane.status" 2>/dev/null)
	if [ -z "$st" ]; then
		echo "FAIL: lane $lane: it did not finish (no exit status in $dir)"
		status=1
	elif [ "$st" != 0 ]; then
		status=1
	fi
done
exit $status
