#!/bin/sh
# Make sure the Debian packages the build and the tests use are present.
# As root, install what is missing (and say so); as anyone else, print
# the exact apt-get line and fail.  Extra package names may be passed.
set -eu

# i386 code comes from Debian's i686 cross compiler, not gcc-multilib,
# which conflicts with every other cross compiler; libc6-i386 lets the
# tests run what it links.
packages="make gcc g++ libc6-dev libelf-dev zlib1g-dev check pkg-config binutils
gcc-i686-linux-gnu g++-i686-linux-gnu libc6-dev-i386-cross libc6-i386
python3 valgrind $*"

missing=""
for p in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "recordmcount needs these Debian packages; please run:" >&2
	echo "  sudo apt-get install$missing" >&2
	exit 1
fi
echo "Installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
