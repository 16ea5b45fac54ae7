#!/bin/bash
# Stops or starts only the test cluster's slurmctld (outage tests):
#   tests/slurm/ctld.sh stop|start
# SPDX-License-Identifier: MIT
set -eu
D=${CAMPAIGN_SLURM_DIR:-/tmp/campaign-slurm}
CONF=$D/etc/slurm.conf
[ -f "$D/pids" ] || { echo "ctld: no cluster recorded in $D" >&2; exit 1; }
case "${1:-}" in
stop)
	pid=$(awk '$1 == "slurmctld" { print $2 }' "$D/pids")
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
	sed -i '/^slurmctld /d' "$D/pids"
	;;
start)
	SLURM_CONF=$CONF slurmctld -D -f "$CONF" >>"$D/log/slurmctld.out" 2>&1 &
	echo "slurmctld $!" >>"$D/pids"
	# a loaded host may take a while; then the slurmd register at once (reconfigure): a
	# restarted controller otherwise waits for its next ping of them (SlurmdTimeout / 3)
	for i in $(seq 1 300); do
		if SLURM_CONF=$CONF scontrol ping 2>/dev/null | grep -q UP; then
			SLURM_CONF=$CONF scontrol reconfigure
			exit 0
		fi
		sleep 0.1
	done
	echo "ctld: slurmctld did not answer in 30 s" >&2
	exit 1
	;;
*) echo "usage: ctld.sh stop|start" >&2; exit 2 ;;
esac
