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


def lines(f):
    """f's JSON lines; those that are not JSON left out, as the analysis leaves them"""
    out = []
    for l in open(f):
        try:
            out.append(json.loads(l))
        except ValueError:
            pass
    return out


def end_of(s):
    """step s's coll_end_us where it lies inside the step (1 ms either side), else 0"""
    e, a = s.get("coll_end_us") or 0, s.get("start_us") or 0
    return e if a > 0 and a - 1e3 <= e <= a + s["step_ms"] * 1e3 + 1e3 else 0


def period(ranks, rank, k):
    """rank's period for its step numbered k (ms), or None."""
    if len(ranks) < 2 or k not in rank or k - 1 not in rank:
        return None
    ea, eb = end_of(rank[k - 1]), end_of(rank[k])
    if not ea or not eb or eb <= ea:
        return None
    return (eb - ea) / 1000


def step_times(d, slowest=None):
    """The active steps' times of metrics directory d, in order, the ranks' steps matched by
    their numbers; slowest(i): the i-th active step's time where it has no period (default:
    the slowest rank's step_ms)."""
    ranks = [lines(f) for f in sorted(glob.glob(d + "/rank_*.jsonl"))]
    steps = [{r["step"]: r for r in rank if r.get("type") == "step"} for rank in ranks]
    times, i = [], 0
    for k, s in sorted(steps[0].items()):
        if s["phase"] != "active":
            continue
        p = [x for x in (period(steps, r, k) for r in steps) if x is not None]
        own = slowest(i) if slowest else max(r[k]["step_ms"] for r in steps if k in r)
        times.append(statistics.median(p) if p else own)
        i += 1
    return times


if __name__ == "__main__":
    print("%.3f" % statistics.median(step_times(sys.argv[1])))
