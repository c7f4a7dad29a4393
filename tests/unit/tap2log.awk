# SPDX-License-Identifier: GPL-2.0-only
# tap2log.awk - Check's TAP log to the suites' common log format.
#
#   awk -v suite=NAME -v rc=STATUS -f tap2log.awk FILE.tap
#
# Check writes "ok N - file:tcase:test: message" (or "not ok ...").
# A loop test appears once per iteration under the same name, so names
# seen more than once get "[i]" appended.  A binary that died before
# reporting a failure (rc != 0, no "not ok") gets a FAIL line of its own.
# Exits 1 when anything failed.

/^(not )?ok [0-9]+ - / {
	pass = ($1 == "ok")
	line = $0
	sub(/^(not )?ok [0-9]+ - /, "", line)
	# file:tcase:test: message
	n = split(line, f, ":")
	test = f[3]
	msg = line
	sub(/^[^:]*:[^:]*:[^:]*: ?/, "", msg)
	count[test]++
	key[++total] = test
	iter[total] = count[test] - 1
	ok[total] = pass
	why[total] = msg
}

END {
	failed = 0
	for (i = 1; i <= total; i++) {
		name = suite "/" key[i]
		if (count[key[i]] > 1)
			name = name "[" iter[i] "]"
		if (ok[i]) {
			print "PASS: " name
		} else {
			print "FAIL: " name ": " why[i]
			failed = 1
		}
	}
	if (rc != 0 && !failed) {
		print "FAIL: " suite "/main: exited with status " rc
		failed = 1
	}
	if (total == 0 && !failed) {
		print "FAIL: " suite "/main: no test results"
		failed = 1
	}
	exit failed
}
