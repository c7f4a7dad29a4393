#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/zlib/fetch.sh PACKAGE DIR - Debian's source package PACKAGE
# (bookworm's zlib for check-zlib), downloaded once and unpacked into
# DIR/PACKAGE; prints that folder.
#
# The system's apt configuration is left alone: a private one under DIR
# holds deb-src entries made from the system's own Debian entries (the
# same mirrors, suite and keyring, so nothing here names a host), its
# own package lists and cache.  apt checks what it downloads against the
# signed Sources index; dpkg-source unpacks it and applies Debian's
# patches.  DIR lives outside the tree (check-zlib passes
# ${XDG_CACHE_HOME:-$HOME/.cache}/recordmcount/src, as kernel/lib.sh's
# MC_KERNEL_CACHE); DIR/PACKAGE/.complete marks a finished unpack, which
# later runs reuse with no network; DIR/.lock lets one run download at
# a time.  Needs no root.
#
# Exit 0 with the folder printed; 77 when the source cannot be had here
# (no network, no Debian entry to derive one from), with the reason on
# stderr, for the suite's SKIP line; 1 on any other error.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 PACKAGE DIR" >&2; exit 2; }
pkg=$1 dir=$2
tree=$dir/$pkg
if [ -e "$tree/.complete" ]; then
	echo "$tree"
	exit 0
fi
skip() { echo "$0: $*" >&2; exit 77; }
mkdir -p "$dir"
# one download at a time into DIR (two suites sharing the cache)
exec 9> "$dir/.lock"
flock 9
[ ! -e "$tree/.complete" ] || { echo "$tree"; exit 0; }
command -v apt-get >/dev/null || skip "no apt-get here"
command -v dpkg-source >/dev/null || skip "no dpkg-source (dpkg-dev)"

codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)
[ -n "$codename" ] || skip "no VERSION_CODENAME in /etc/os-release"
apt=$dir/apt
mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"

# deb-src twins of the system's entries for the release's own suite:
# deb822 stanzas (sources.list.d/*.sources) into src.sources, one-line
# entries into src.list.
deb822_entries() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk -v suite="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uris != "")
					printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n%s\n", uris, suite, signed
				types = suites = uris = signed = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
			/^Signed-By:/ { signed = $0 }
			END { flush() }' "$f"
	done
}
one_line_entries() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk -v suite="$codename" '
			$1 == "deb" {
				opts = ""
				if ($2 ~ /^\[/) { for (i = 2; $i !~ /\]$/; i++) opts = opts $i " "; opts = opts $i " "; i++ }
				else i = 2
				if ($(i + 1) == suite)
					printf "deb-src %s%s %s main\n", opts, $i, suite
			}' "$f"
	done
}
rm -f "$apt/parts"/*
deb822_entries > "$apt/parts/src.sources"
one_line_entries > "$apt/parts/src.list"
for f in "$apt/parts"/*; do [ -s "$f" ] || rm -f "$f"; done
ls "$apt/parts"/* >/dev/null 2>&1 ||
	skip "no Debian '$codename' entry in /etc/apt to derive a deb-src one from"

aptq() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 "$@"
}
# apt-get update exits 0 when every download failed: look for the index
aptq update > "$apt/update.log" 2>&1
ls "$apt"/lists/*Sources* >/dev/null 2>&1 ||
	skip "no deb-src index could be downloaded (offline?): $(grep -m1 '^[WE]:' "$apt/update.log")"
rm -rf "$dir/dl" "$tree"
mkdir -p "$dir/dl"
(cd "$dir/dl" && aptq source --download-only "$pkg") > "$apt/source.log" 2>&1 ||
	skip "cannot download $pkg's source: $(tail -1 "$apt/source.log")"
dsc=$(ls "$dir"/dl/*.dsc | head -1)
dpkg-source -x "$dsc" "$tree" > "$apt/unpack.log" 2>&1 ||
	{ echo "$0: dpkg-source -x $dsc failed:" >&2; tail -5 "$apt/unpack.log" >&2; exit 1; }
basename "$dsc" .dsc > "$tree/.complete"
echo "$tree"
