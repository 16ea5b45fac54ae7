#!/bin/bash
# Stops the test cluster started by start-cluster.sh: only the PIDs it
# recorded, slurmd first, then slurmctld, then munged.
set -u
D=${CAMPAIGN_SLURM_DIR:-/tmp/campaign-slurm}
[ -f "$D/pids" ] || { echo "stop-cluster: no cluster recorded in $D" >&2; exit 0; }
stop() { # pattern
	grep "^$1" "$D/pids" | while read -r name pid; do
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
stop slurmd
stop slurmctld
stop munged
rm -f "$D/pids"
echo "stop-cluster: stopped" >&2
