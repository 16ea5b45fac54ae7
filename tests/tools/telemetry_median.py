# SPDX-License-Identifier: MIT
"""telemetry_median.py METRICS_DIR: the median over active steps of the step time, recounted
from the trainer's rank_<r>.jsonl files (tests/e2e/demo_run.sh), as docs/analysis.md ("What a
step's time is") defines it: with two ranks or more, a step whose ranks recorded the end of
its last all-reduce (coll_end_us) and of the step before it (the step numbers following one
another) is the median over those ranks of the period between the two ends; any other step is
the slowest rank's step_ms. step_times() serves tests/tools/replay_measured.py too."""
import glob
import json
import statistics
import sys


def period(ranks, rank, i):
    """rank's period for its step i (ms), or None."""
    if i == 0 or len(ranks) < 2 or i >= len(rank):
        return None
    a, b = rank[i - 1], rank[i]
    ea, eb = a.get("coll_end_us") or 0, b.get("coll_end_us") or 0
    if b["step"] != a["step"] + 1 or not ea or not eb or eb <= ea:
        return None
    return (eb - ea) / 1000


def step_times(d, slowest=None):
    """The active steps' times of metrics directory d, in order; slowest(i): step i's time
    where it has no period (default: the slowest rank's step_ms)."""
    ranks = [[json.loads(l) for l in open(f)] for f in sorted(glob.glob(d + "/rank_*.jsonl"))]
    steps = [[r for r in rank if r.get("type") == "step"] for rank in ranks]
    times = []
    for i, s in enumerate(steps[0]):
        if s["phase"] != "active":
            continue
        p = [x for x in (period(steps, r, i) for r in steps) if x is not None]
        own = slowest(i) if slowest else max(r[i]["step_ms"] for r in steps if i < len(r))
        times.append(statistics.median(p) if p else own)
    return times


if __name__ == "__main__":
    print("%.3f" % statistics.median(step_times(sys.argv[1])))
