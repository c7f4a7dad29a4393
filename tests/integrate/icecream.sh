#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/integrate/icecream.sh STATE COMMAND... - icecream on 127.0.0.1
# for run.sh: a scheduler, a daemon that takes remote jobs (the "other
# machine", node "remote", port 10246) and the submitting machine's own
# daemon (node "local", --no-remote), then COMMAND with the client
# pointed at them, then the three stopped (also when interrupted).
# Logs, sockets and compiler environments go in STATE, which the icecc
# user must be able to write (the scheduler drops to it).
#
# Run it only inside a network namespace of its own (unshare -n), as
# root: there the loopback is the only interface, so the daemons, which
# listen on every interface (iceccd -i lo fails: it binds 127.0.0.1 twice,
# "Address already in use"), and the scheduler's and daemons' UDP
# broadcasts reach nothing but 127.0.0.1.  Root: a remote job runs in a
# chroot of the environment the client sends.
set -u
state=${1:?usage: icecream.sh STATE COMMAND...}
shift
[ "$(id -u)" -eq 0 ] || { echo "icecream.sh: not root" >&2; exit 2; }
# Refuse to start anything where another interface could be reached
# (/proc/net/dev lists this namespace's; /sys/class/net, the host's).
ifaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev | tr '\n' ' ')
if [ "$ifaces" != "lo " ]; then
	echo "icecream.sh: interfaces other than lo here ($ifaces): run it under unshare -n" >&2
	exit 2
fi
ip link set lo up || exit 2

pids=
stop() {
	# shellcheck disable=SC2086 # one pid a word
	[ -z "$pids" ] || { kill $pids 2>/dev/null; wait $pids 2>/dev/null; }
	pids=
}
trap stop EXIT
trap 'exit 1' INT TERM HUP

icecc-scheduler -i lo -p 8765 -l "$state/scheduler.log" -vvv &
pids="$pids $!"
# (ICECC_TEST_SOCKET: each daemon's socket for its local clients in
# STATE, not the system daemon's /var/run/icecc/iceccd.socket.)
ICECC_TEST_SOCKET=$state/local.socket iceccd --no-remote -m 2 -N local \
	-s 127.0.0.1:8765 -b "$state/envs-local" -l "$state/local.log" -vvv &
pids="$pids $!"
ICECC_TEST_SOCKET=$state/remote.socket iceccd -p 10246 -m 2 -N remote \
	-s 127.0.0.1:8765 -b "$state/envs-remote" -l "$state/remote.log" -vvv &
pids="$pids $!"

# Both daemons log in to the scheduler within a few seconds (they look
# for it every 3).
tries=0
until grep -q 'Connected to scheduler' "$state/local.log" 2>/dev/null &&
	grep -q 'Connected to scheduler' "$state/remote.log" 2>/dev/null; do
	tries=$((tries + 1))
	if [ "$tries" -gt 30 ]; then
		echo "icecream.sh: the daemons did not reach the scheduler in 30 s" >&2
		exit 1
	fi
	sleep 1
done
if grep -q 'Cannot use chroot' "$state/remote.log"; then
	echo "icecream.sh: the remote daemon takes no jobs: $(grep 'Cannot use chroot' "$state/remote.log")" >&2
	exit 1
fi

# The client: the local daemon's socket, the remote node for every job.
# A node on 127.0.0.1 counts as this machine, where icecc builds the job
# itself; ICECC_TEST_REMOTEBUILD (icecream's own test suite runs so)
# sends it over TCP to the node's port like to any other machine.
# (In the background, so that a signal stops the daemons at once: the
# shell runs its traps only once a foreground command has ended.)
ICECC_TEST_SOCKET=$state/local.socket ICECC_TEST_REMOTEBUILD=1 \
	ICECC_PREFERRED_HOST=remote ICECC_DEBUG=debug ICECC_LOGFILE=$state/client.log \
	"$@" &
cmd=$!
pids="$pids $cmd"
status=0
wait "$cmd" || status=$?
pids=${pids% "$cmd"}
stop
exit "$status"
