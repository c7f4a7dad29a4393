#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/hygiene/hygiene.sh - what every tracked file of the tree owes:
#
#   spdx/FILE     a source file names its license on an
#                 "SPDX-License-Identifier:" line in its first 5 lines
#   ignored/FILE  no tracked file is one .gitignore says to ignore
#                 (a log or a .pyc committed by mistake)
#
# Source files: .c .h .S .s .cc .py .sh .mk .lds .in .awk, man pages
# (.1 .3), files named Makefile, Kbuild, CMakeLists.txt, meson.build,
# and any file that starts with "#!".  Data (kernel .config fragments,
# fuzz inputs, the fuzz dictionary) and Markdown are not judged.
# One PASS line per check, one FAIL line per file at fault, in
# TEST_RESULTS/hygiene.log.  Outside a git checkout: SKIP lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${TEST_RESULTS:-.}/hygiene.log
cd "$top" || exit 1

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "SKIP: hygiene: not a git checkout (no list of tracked files)" | tee -a "$log"
	exit 0
fi

is_source() {
	case $1 in
	*.c|*.h|*.S|*.s|*.cc|*.py|*.sh|*.mk|*.lds|*.in|*.awk|*.1|*.3) return 0 ;;
	Makefile|*/Makefile|Kbuild|*/Kbuild|CMakeLists.txt|*/CMakeLists.txt|\
	meson.build|*/meson.build) return 0 ;;
	esac
	[ "$(head -c 2 "$1" 2>/dev/null)" = "#!" ]
}

status=0
bad=0
files=0
for f in $(git ls-files); do
	[ -f "$f" ] || continue
	is_source "$f" || continue
	files=$((files + 1))
	if ! head -n 5 "$f" | grep -q 'SPDX-License-Identifier: [A-Za-z0-9]'; then
		echo "FAIL: hygiene/spdx/$f: no SPDX-License-Identifier line in its first 5 lines" | tee -a "$log"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -eq 0 ]; then
	echo "PASS: hygiene/spdx: $files source files, each with an SPDX line" | tee -a "$log"
else
	status=1
fi

ignored=$(git ls-files -ci --exclude-standard)
if [ -z "$ignored" ]; then
	echo "PASS: hygiene/ignored: no tracked file is matched by .gitignore" | tee -a "$log"
else
	for f in $ignored; do
		echo "FAIL: hygiene/ignored/$f: tracked, yet .gitignore ignores it (git rm --cached)" | tee -a "$log"
	done
	status=1
fi
exit "$status"
