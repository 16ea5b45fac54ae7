#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""clock_timeline.py TIMELINE.json TOLERANCE_MS: every step's all-reduce (NCCL kernels, or
gloo:all_reduce host ranges named in args.range) ends at one
instant across the ranks of timeline.json (within TOLERANCE_MS), i.e. the timeline put every
rank on one clock. Exit 1 (printing the worst step) otherwise, or when there is no
all-reduce in two ranks or more."""
import collections
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    tol_us = float(sys.argv[2]) * 1000
    ends = collections.defaultdict(list)  # pid (rank) -> all-reduce ends in order
    for e in doc["traceEvents"]:
        name = e.get("name", "") + " " + str(e.get("args", {}).get("range", ""))
        if e.get("ph") == "X" and ("AllReduce" in name or "all_reduce" in name):
            ends[e["pid"]].append(e["ts"] + e["dur"])
    ranks = sorted(ends)
    if len(ranks) < 2:
        print("fewer than two ranks with all-reduces", file=sys.stderr)
        return 1
    worst = max(max(col) - min(col) for col in zip(*(sorted(ends[p]) for p in ranks)))
    if worst > tol_us:
        print(f"all-reduce ends differ by up to {worst:.1f} us across ranks", file=sys.stderr)
        return 1
    return 0


sys.exit(main())
