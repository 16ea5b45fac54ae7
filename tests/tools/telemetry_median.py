# SPDX-License-Identifier: MIT
"""telemetry_median.py METRICS_DIR: the median over active steps of the slowest rank's step time,
from the trainer's rank_<r>.jsonl files (tests/e2e/demo_run.sh)."""
import json, sys, glob, statistics
ranks = [[json.loads(l) for l in open(f)] for f in sorted(glob.glob(sys.argv[1] + "/rank_*.jsonl"))]
steps = [[r for r in rank if r.get("type") == "step" and r["phase"] == "active"] for rank in ranks]
print("%.3f" % statistics.median(max(s[i]["step_ms"] for s in steps) for i in range(len(steps[0]))))
