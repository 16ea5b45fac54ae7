#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts a scenario's step time two ways from its raw profiler traces, beside the
training script's own step timer (issue 45, point 10), without campaign's code.

step_estimators.py TRACE_DIR [LOG_DIR WARMUP]: every *.json / *.json.gz of TRACE_DIR is
one rank (Kineto's object form or the legacy array form Debian's torch 1.13 writes; the
rank from "rank<r>" in the file's name, else the file's order). LOG_DIR's rank_<r>.out
hold the script's own timer: lines "step N ... time T ms" (campaigns/ddp_train.py's,
tests/tools/ddp_gloo_traces.py's), of which steps N >= WARMUP count. Prints one JSON
document:
  {"ranks": R, "steps": N,
   "rank_step": {"times": [...], "median_ms": M},          per step the slowest rank
   "collective_period": {"times": [...], "median_ms": M, "periods": K},
   "chosen": "collective_period" | "rank_step",
   "own": {rank: {"mean_ms", "median_ms", "steps"}},        the script's own timer
   "own_mean_ms": mean of the ranks' means, "own_median_ms": median of their medians,
   "own_mean_after_first_ms": the same over the steps after the first (whose collective
   period campaign measures: the first has no collective before it)}
Steps: a rank's ProfilerStep#N ranges by start; the last is left out when shorter than a
third of the median of the others with no gloo range starting in it (the tail the
profiler cut). Collectives: gloo:<op> ranges (on gloo's worker threads), each in the step
it starts in; those every rank leaves at once (all_reduce, allgather, reduce_scatter,
alltoall, barrier) mark a step's completion, its last one's end.
Period of step i on a rank: completion(i) - completion(i - 1), when both steps have one
and step i's number follows step i - 1's; per step the median over the ranks with one.
collective_period: with two ranks or more, each step's period where it has one, else its
slowest rank's duration (the first step always); "periods" counts the former; chosen when
K > 0. Times are in step order, ms, rounded as summary.json rounds (3 decimals).
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

BLOCKING = ("allreduce", "allgather", "reducescatter", "alltoall", "barrier")


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        doc = json.load(f)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def rank_of(path, order):
    m = re.search(r"rank(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else order


def one_rank(events):
    """[(number, start, end, completion or None)] of the rank's steps."""
    steps, gloo = [], []
    for e in events:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        name, ts, end = e.get("name", ""), float(e["ts"]), float(e["ts"]) + float(e["dur"])
        m = re.fullmatch(r"ProfilerStep#(\d+)", name)
        if m:
            steps.append((int(m.group(1)), ts, end))
        elif name.startswith("gloo:"):
            gloo.append((name[5:].replace("_", "").lower(), ts, end))
    steps.sort(key=lambda s: s[1])
    which = []  # the step each gloo range starts in
    for op, ts, end in gloo:
        k = max((i for i, s in enumerate(steps) if s[1] <= ts), default=None)
        if k is not None and ts < steps[k][2]:
            which.append((k, op, end))
    if len(steps) > 1:
        last = len(steps) - 1
        med = statistics.median(s[2] - s[1] for s in steps[:last])
        if 3 * (steps[last][2] - steps[last][1]) < med and not any(k == last for k, _, _ in which):
            steps.pop()
    done = [None] * len(steps)
    for k, op, end in which:
        if k < len(steps) and op.startswith(BLOCKING) and (done[k] is None or end > done[k]):
            done[k] = end
    return [(s[0], s[1], s[2], done[i]) for i, s in enumerate(steps)]


def period(steps, i):
    if i == 0 or i >= len(steps):
        return None
    (n0, _, _, c0), (n1, _, _, c1) = steps[i - 1], steps[i]
    if c0 is None or c1 is None or n1 != n0 + 1 or c1 <= c0:
        return None
    return (c1 - c0) / 1000


def estimators(ranks):
    order = sorted(ranks)
    r0 = ranks[order[0]]
    slowest, chosen, periods = [], [], 0
    for i, s in enumerate(r0):
        dur = max((ranks[r][i][2] - ranks[r][i][1]) / 1000 for r in order if i < len(ranks[r]))
        slowest.append(dur)
        got = [p for p in (period(ranks[r], i) for r in order) if p is not None and p > 0]
        if len(order) > 1 and got:
            chosen.append(statistics.median(got))
            periods += 1
        else:
            chosen.append(dur)
    return slowest, chosen, periods


def own_timer(log_dir, warmup):
    own = {}
    for path in glob.glob(os.path.join(log_dir, "rank_*.out")):
        r = int(re.search(r"rank_(\d+)\.out$", path).group(1))
        v = []
        for line in open(path, errors="replace"):
            m = re.match(r"step (\d+) .*time ([0-9.]+) ms", line)
            if m and int(m.group(1)) >= warmup:
                v.append(float(m.group(2)))
        if v:
            own[r] = {"mean_ms": round(statistics.mean(v), 3),
                      "median_ms": round(statistics.median(v), 3), "steps": len(v),
                      "mean_after_first_ms": round(statistics.mean(v[1:] or v), 3)}
    return own


def main():
    paths = sorted(p for p in glob.glob(os.path.join(sys.argv[1], "*"))
                   if p.endswith((".json", ".json.gz")))
    ranks = {rank_of(p, i): one_rank(load(p)) for i, p in enumerate(paths)}
    slowest, chosen, periods = estimators(ranks)
    out = {"ranks": len(ranks), "steps": len(slowest),
           "rank_step": {"times": [round(t, 3) for t in slowest],
                         "median_ms": round(statistics.median(slowest), 3)},
           "collective_period": {"times": [round(t, 3) for t in chosen],
                                 "median_ms": round(statistics.median(chosen), 3),
                                 "periods": periods},
           "chosen": "collective_period" if periods else "rank_step"}
    if len(sys.argv) > 3:
        own = own_timer(sys.argv[2], int(sys.argv[3]))
        out["own"] = {str(r): v for r, v in sorted(own.items())}
        out["own_mean_ms"] = round(statistics.mean(v["mean_ms"] for v in own.values()), 3)
        out["own_median_ms"] = round(statistics.median(v["median_ms"] for v in own.values()), 3)
        out["own_mean_after_first_ms"] = round(
            statistics.mean(v["mean_after_first_ms"] for v in own.values()), 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
