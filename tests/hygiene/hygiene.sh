#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/hygiene/hygiene.sh - what every tracked file of the tree owes:
#
#   spdx/FILE     a source file names its license on an
#                 "SPDX-License-Identifier:" line in its first 5 lines
#   ignored/FILE  no tracked file is one .gitignore says to ignore
#                 (a log or a .pyc committed by mistake)
#   subjects      every commit after SUBJECTS_SINCE (34ff117, when the
#                 habit was written down) has a subject of at most 72
#                 characters (subjects.sh); SKIP where that commit is
#                 not in the history (a shallow clone)
#   subjects-fail subjects.sh, on a throwaway repository in a temporary
#                 folder, passes git's own long merge subject and fails
#                 a 73-character one
#   includes      no C files include each other in a loop, and every
#                 include between folders points down (includes.py)
#   includes-fail includes.py, on a copy of the tree with arch/arch.h
#                 made to include runtime/platform.h, finds that circle
#                 and that arrow up
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
since=${SUBJECTS_SINCE:-34ff117}
long=$(sh tests/hygiene/subjects.sh . "$since" tests/hygiene/long-subjects.txt)
case $? in
0)	echo "PASS: hygiene/subjects: every subject after $since is at most 72 characters" | tee -a "$log" ;;
2)	echo "SKIP: hygiene/subjects: no commit $since in this history (a shallow clone?)" | tee -a "$log" ;;
*)	echo "$long" | while read -r line; do
		echo "FAIL: hygiene/subjects: $line (at most 72 characters; details go in the body)" | tee -a "$log"
	done
	status=1 ;;
esac

# subjects.sh itself, on a repository of its own: a long subject fails.
subjects_selftest() {
	t=$(mktemp -d) || return 1
	g() { d=$1; shift; git -C "$t/$d" -c user.name=t \
		-c user.email=t@example.invalid -c commit.gpgsign=false "$@"; }
	commit() { d=$1; shift; echo "$*" >>"$t/$d/$d" && g "$d" add "$d" &&
		g "$d" commit -qm "$*"; }
	mkdir -p "$t/a" "$t/a-clone-at-a-path-long-enough-for-a-merge-subject-over-72" &&
	git init -q -b main "$t/a" && commit a "Start" &&
	base=$(git -C "$t/a" rev-parse HEAD) &&
	git clone -q "$t/a" "$t/a-clone-at-a-path-long-enough-for-a-merge-subject-over-72" &&
	commit a-clone-at-a-path-long-enough-for-a-merge-subject-over-72 "Add one line there" &&
	commit a "Add one line here" &&
	g a pull -q --no-rebase --no-edit \
		"$t/a-clone-at-a-path-long-enough-for-a-merge-subject-over-72" main 2>/dev/null
	merge=$(git -C "$t/a" log -1 --format=%s)
	ok=1
	if [ ${#merge} -le 72 ] || ! sh tests/hygiene/subjects.sh "$t/a" "$base" >/dev/null; then
		echo "git's own merge subject (${#merge} characters) is not passed: $merge"
		ok=0
	fi
	commit a "Add a line whose subject is seventy-three characters long, one too many!!" &&
	out=$(sh tests/hygiene/subjects.sh "$t/a" "$base"); rc=$?
	if [ $rc -ne 1 ] || ! echo "$out" | grep -q ' 73: Add a line'; then
		echo "a 73-character subject is not caught: '$out'"
		ok=0
	fi
	rm -rf "$t"
	[ "$ok" = 1 ]
}
if out=$(python3 tests/hygiene/includes.py .); then
	echo "PASS: hygiene/includes: $out" | tee -a "$log"
else
	echo "$out" | while read -r line; do
		echo "FAIL: hygiene/includes: $line" | tee -a "$log"
	done
	status=1
fi

# includes.py itself: a made-up circle in a copy of the tree must fail.
includes_selftest() {
	t=$(mktemp -d) || return 1
	cp -r arch elf recordmcount runtime recorder mctrace fuzz examples "$t" &&
	sed -i 's|^#include <stdint.h>|&\n#include "../runtime/platform.h"|' "$t/arch/arch.h"
	out=$(python3 tests/hygiene/includes.py "$t"); rc=$?
	rm -rf "$t"
	if [ $rc -ne 1 ] ||
	   ! echo "$out" | grep -q '^circle: .*arch/arch.h.*runtime/platform.h' ||
	   ! echo "$out" | grep -q '^up: arch/arch.h includes runtime/platform.h'; then
		echo "exit $rc, '$out'"
		return 1
	fi
}
if why=$(includes_selftest); then
	echo "PASS: hygiene/includes-fail: arch/arch.h made to include runtime/platform.h: a circle and an arrow up" | tee -a "$log"
else
	echo "FAIL: hygiene/includes-fail: $why" | tee -a "$log"
	status=1
fi

if why=$(subjects_selftest); then
	echo "PASS: hygiene/subjects-fail: the check fails a 73-character subject, passes git's merge subject" | tee -a "$log"
else
	echo "FAIL: hygiene/subjects-fail: $why" | tee -a "$log"
	status=1
fi
# debian/copyright against every tracked file's SPDX line: in make
# check too, not only in check-deb, which CI runs as a late stage.
if out=$(python3 tests/deb/copyright.py 2>&1); then
	echo "$out" | tee -a "$log"
else
	echo "$out" | grep -q '^FAIL:' ||
		out="FAIL: deb/copyright: tests/deb/copyright.py failed: $(echo "$out" | tail -n 1)"
	echo "$out" | tee -a "$log"
	status=1
fi
exit "$status"
