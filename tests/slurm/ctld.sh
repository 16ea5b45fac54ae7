#!/bin/bash
# Stops or starts only the test cluster's slurmctld (outage tests):
#   tests/slurm/ctld.sh stop|start
set -eu
D=${CAMPAIGN_SLURM_DIR:-/tmp/campaign-slurm}
CONF=$D/etc/slurm.conf
[ -f "$D/pids" ] || { echo "ctld: no cluster recorded in $D" >&2; exit 1; }
case "${1:-}" in
stop)
	pid=$(awk '$1 == "slurmctld" { print $2 }' "$D/pids")
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
	sed -i '/^slurmctld /d' "$D/pids"
	;;
start)
	SLURM_CONF=$CONF slurmctld -D -f "$CONF" >>"$D/log/slurmctld.out" 2>&1 &
	echo "slurmctld $!" >>"$D/pids"
	for i in $(seq 1 100); do SLURM_CONF=$CONF scontrol ping 2>/dev/null | grep -q UP && exit 0; sleep 0.1; done
	echo "ctld: slurmctld did not answer" >&2
	exit 1
	;;
*) echo "usage: ctld.sh stop|start" >&2; exit 2 ;;
esac
