#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/hygiene/subjects.sh REPO BASE [ALLOW] - every commit of REPO
# after BASE (BASE..HEAD) has a subject of at most 72 characters, the
# habit CONTRIBUTING.md states, so that `git log --oneline` stays
# readable.
#
# ALLOW names a file of commits that broke the rule before this check
# existed and were already merged when it came (rewriting published
# history would cost more than the lapse): one full hash a line, then
# why.  A commit listed there passes; nothing else does.
#
# A merge whose subject is git's own ("Merge branch 'main' of ...",
# "Merge remote-tracking branch ...", "Merge commit ...") passes
# whatever its length: git wrote it, and the path in it is the
# merger's.  Prints one line per commit at fault ("<hash> <length>:
# <subject>") and exits 1 if there is any; exits 2 when REPO has no
# commit BASE (no history, a shallow clone): the caller says SKIP.
set -u
repo=$1
base=$2
allow=${3:-/dev/null}
max=72

git -C "$repo" rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1 ||
	exit 2
status=0
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
# %p: the parents, so that a merge (two or more) is told from a commit.
git -C "$repo" log --format='%H%x09%p%x09%s' "$base..HEAD" >"$list" ||
	exit 1
while IFS='	' read -r full parents subject; do
	hash=$(printf '%.7s' "$full")
	grep -q "^$full " "$allow" && continue
	case $parents in
	*' '*)
		case $subject in
		"Merge branch "*|"Merge remote-tracking branch "*|\
		"Merge commit "*|"Merge tag "*) continue ;;
		esac ;;
	esac
	len=$(printf '%s' "$subject" | wc -m)
	if [ "$len" -gt "$max" ]; then
		echo "$hash $len: $subject"
		status=1
	fi
done <"$list"
exit "$status"
