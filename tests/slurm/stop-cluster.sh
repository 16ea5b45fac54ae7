#!/bin/bash
# Stops the test cluster started by start-cluster.sh: only the PIDs it
# recorded, slurmd first, then slurmctld, then munged; then any slurmstepd of
# this cluster (SLURM_CONF in its environment) that outlived its slurmd, e.g. a
# step on a node whose slurmd a test had stopped: left, it holds the next run's job.
# SPDX-License-Identifier: MIT
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
for pid in $(pgrep -x slurmstepd); do
	tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$D/etc/slurm.conf" &&
		kill -KILL "$pid" 2>/dev/null
done
rm -f "$D/pids"
echo "stop-cluster: stopped" >&2
