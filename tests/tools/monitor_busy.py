#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""monitor_busy.py JOB: what a job's node monitors and launch records say,
recounted from the raw files, independently of campaign's analysis, as one
JSON document (tests/e2e/torchrun.sh):

  {"cpu_busy_pct": B, "samples": S, "nodes": N, "workers": W, "launchers": L}

B is the mean of the cpu_util_pct column over every sample of every node's
JOB/monitor/<node>/cpu_monitor.csv (all nodes' samples pooled, as the
report's "CPUs busy" is defined); S the samples, N the nodes with any. W
counts the worker records JOB/ranks/rank_<R>.json (one per process that
runs the training: under a per-node launcher each worker torchrun started),
L the launcher records JOB/ranks/launcher_<N>.json.
"""
import csv
import glob
import json
import os
import sys

job = sys.argv[1]
busy, nodes = [], 0
for path in sorted(glob.glob(os.path.join(job, "monitor", "*", "cpu_monitor.csv"))):
    with open(path, newline="") as f:
        rows = [float(r["cpu_util_pct"]) for r in csv.DictReader(f)]
    busy += rows
    nodes += bool(rows)
ranks = os.path.join(job, "ranks")
print(json.dumps({
    "cpu_busy_pct": sum(busy) / len(busy) if busy else None,
    "samples": len(busy),
    "nodes": nodes,
    "workers": len(glob.glob(os.path.join(ranks, "rank_*.json"))),
    "launchers": len(glob.glob(os.path.join(ranks, "launcher_*.json"))),
}))
