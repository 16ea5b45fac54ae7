#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""steplines_recount.py JOB WARMUP: the step lines of a per-node torchrun job
recounted from its raw node logs, independently of campaign's attribution,
as one JSON document (tests/e2e/torchrun.sh):

  {"ranks": {R: {"node": N, "local": L, "steps": S, "active": A, "median_ms": M,
                 "mean_ms": X, "times": [...], "lines": [...]}},
   "active_steps": A, "step_times_ms": [...], "median_ms": M, "slowest": [R, X]}

JOB/logs/rank_<N>.out is node N's torchrun's output; a line torchrun prefixed
"[<role><L>]:" is the worker of local rank L on node N, and that worker's
global rank is the one it printed itself ("rank R of W: pid P", from
tests/tools/ddp_steplines.py or campaigns/tb_train.py), not campaign's
records. "step N time T ms" lines are its steps, the first WARMUP of each
rank warm-up; "lines" is the worker's every line, the prefix taken off.
As campaign defines a step's time: per step (its position among a rank's
lines, rank 0's active ones) the slowest rank; the median interpolated.
"""
import glob
import json
import os
import re
import sys

job, warmup = sys.argv[1], int(sys.argv[2])
prefix = re.compile(r"^\[([A-Za-z_.-][A-Za-z0-9_.-]*?)(\d+)\]:(.*\n?)$", re.S)
workers = {}  # (node, local) -> [lines]
for path in glob.glob(os.path.join(job, "logs", "rank_*.out")):
    node = int(re.search(r"rank_(\d+)\.out$", path).group(1))
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        for line in f:
            m = prefix.match(line)
            if m:
                workers.setdefault((node, int(m.group(2))), []).append(m.group(3))


def median(v):
    v = sorted(v)
    if not v:
        return None
    pos = 0.5 * (len(v) - 1)
    lo = int(pos)
    return v[-1] if lo + 1 >= len(v) else v[lo] + (v[lo + 1] - v[lo]) * (pos - lo)


ranks = {}
for (node, local), lines in sorted(workers.items()):
    said = [int(m.group(1)) for l in lines for m in [re.match(r"rank (\d+) of \d+: pid \d+", l)] if m]
    assert len(said) == 1, (node, local, said)
    times = [float(m.group(1)) for l in lines
             for m in [re.match(r"step \d+ time ([0-9.]+) ms", l)] if m]
    act = times[warmup:]
    ranks[said[0]] = {"node": node, "local": local, "steps": len(times), "active": len(act),
                      "median_ms": median(act),
                      "mean_ms": sum(act) / len(act) if act else None,
                      "times": times, "lines": lines}
with_steps = sorted(r for r in ranks if ranks[r]["steps"])
per_step = []
r0 = ranks[with_steps[0]]["times"] if with_steps else []
for i in range(warmup, len(r0)):
    per_step.append(max(ranks[r]["times"][i] for r in with_steps if i < len(ranks[r]["times"])))
slowest = max(((ranks[r]["mean_ms"], r) for r in with_steps), default=(None, None))
json.dump({"ranks": ranks, "active_steps": len(per_step), "step_times_ms": sorted(per_step),
           "median_ms": median(per_step), "slowest": [slowest[1], slowest[0]]}, sys.stdout)
