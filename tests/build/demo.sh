#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/build/demo.sh BUILD-DIR - make demo is the first command on a
# fresh Debian machine: it asks scripts/deps.sh for the build group
# before anything else, and plain make asks for nothing.
#
#   build/demo-user-prints-line  not root, libelf-dev and pkg-config
#                                missing: make demo prints the one
#                                apt-get install line naming both, runs
#                                no apt-get and stops before building
#   build/make-installs-nothing  root, the same packages missing: plain
#                                make neither asks dpkg nor runs apt-get
#   build/demo-root-installs     root, the same packages missing: make
#                                demo runs apt-get install for both,
#                                then builds and runs the demo
#
# dpkg-query, apt-get and id -u are stand-ins on PATH ahead of the real
# tools: dpkg-query calls every package installed but those of
# $FAKE_MISSING, apt-get only writes down its arguments (nothing is
# installed; the real packages are here), id -u says $FAKE_UID.  Each
# make runs as a top-level one, into BUILD-DIR (already built by the
# suites before: make is then quick).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "${1:?usage: demo.sh BUILD-DIR}" && cd "$1" && pwd)
work=$build/tests/build-demo
log=${TEST_RESULTS:-.}/build.log
rm -rf "$work" && mkdir -p "$work/bin"

pass() { echo "PASS: $1" | tee -a "$log"; }
fail() { echo "FAIL: $1: $2" | tee -a "$log"; }
skip() { echo "SKIP: $1: $2" | tee -a "$log"; }

calls=$work/calls
cat >"$work/bin/dpkg-query" <<'EOF'
#!/bin/sh
echo "dpkg-query $*" >>"$FAKE_CALLS"
for p; do
	case $p in -*) continue ;; esac
	case " $FAKE_MISSING " in
	*" $p "*) ;;
	*) echo "$p install ok installed" ;;
	esac
done
EOF
cat >"$work/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_CALLS"
EOF
real_id=$(command -v id)
cat >"$work/bin/id" <<EOF
#!/bin/sh
[ "\$1" = -u ] && { echo "\$FAKE_UID"; exit 0; }
exec $real_id "\$@"
EOF
chmod 755 "$work/bin/dpkg-query" "$work/bin/apt-get" "$work/bin/id"

# fakemake UID TARGET...: a top-level make of this tree with the
# stand-ins, libelf-dev and pkg-config missing; output in $work/out.
fakemake() {
	uid=$1
	shift
	: >"$calls"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MC_DEPS_DONE -u MAKEOVERRIDES \
		PATH="$work/bin:$PATH" FAKE_CALLS="$calls" FAKE_UID="$uid" \
		FAKE_MISSING="libelf-dev pkg-config" \
		make -C "$top" --no-print-directory BUILD="$build" "$@" >"$work/out" 2>&1
}

# --- not root: the one line, and nothing else done --------------------
fakemake 1000 demo
rc=$?
lines=$(grep -c 'apt-get install' "$work/out")
if [ "$rc" -ne 0 ] && [ "$lines" -eq 1 ] &&
	grep -qx '  sudo apt-get install libelf-dev pkg-config' "$work/out" &&
	! grep -q '^apt-get' "$calls" && ! grep -q '^demo:' "$work/out"; then
	pass build/demo-user-prints-line
else
	fail build/demo-user-prints-line "exit $rc, $lines apt-get line(s), said: $(tail -n 3 "$work/out" | tr '\n' ' ')"
fi

if [ "$(id -u)" -ne 0 ]; then
	skip build/make-installs-nothing "not root (deps.sh as root may write /usr/sbin/policy-rc.d)"
	skip build/demo-root-installs "not root"
	exit 0
fi

# --- root: plain make asks for nothing --------------------------------
fakemake 0
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$calls" ]; then
	pass build/make-installs-nothing
else
	fail build/make-installs-nothing "exit $rc, called: $(tr '\n' ' ' <"$calls")"
fi

# --- root: make demo installs what is missing, then runs --------------
fakemake 0 demo
rc=$?
if [ "$rc" -eq 0 ] &&
	grep -qx 'apt-get install -y -qq --no-install-recommends libelf-dev pkg-config' "$calls" &&
	grep -q '^Installing missing Debian packages: libelf-dev pkg-config$' "$work/out" &&
	grep -q 'traced: step ' "$work/out"; then
	pass build/demo-root-installs
else
	fail build/demo-root-installs "exit $rc, called: $(tr '\n' ' ' <"$calls"), said: $(tail -n 3 "$work/out" | tr '\n' ' ')"
fi
exit 0
