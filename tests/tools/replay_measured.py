#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts from raw PyTorch-profiler traces the measured median step that the replay's
error is relative to (issue 47), without campaign's code: an independent check.

replay_measured.py DIR [DIR...]: every *.json / *.json.gz of a DIR is one rank (Kineto's
object form or the legacy array form; the rank from distributedInfo, else the file name's
rankN, else the file order). Steps: each rank's ProfilerStep#N host ranges by start; the
last is left out when shorter than a third of the median of the others and no gloo:/nccl:
collective range starts in it (the tail the profiler cut as it stopped). The reference
trainer's traces (a metrics directory's rank_<r>.trace.json) mark each step range with its
telemetry phase (args.phase): their active ones are the steps, none of them cut. A step's
time is as the analysis times it: with one rank its own; in the trainer's traces (whose step
data is its telemetry) the period between consecutive steps' last all-reduces that the
telemetry beside them records (tests/tools/telemetry_median.py), else the slowest rank's
trace step; else the period between consecutive steps' last collectives where there is one,
as tests/tools/step_estimators.py recounts it (its "collective_period", the slowest rank's
step where a step has none). Prints
{"measured_ms": the median over steps, "measured_mean_ms": their mean, "steps": n, "ranks": {rank: that rank's median}} for
each DIR, one line each.
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import step_estimators  # noqa: E402  (beside this file)
import telemetry_median  # noqa: E402


def events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    if isinstance(d, dict):
        rank = (d.get("distributedInfo") or {}).get("rank")
        return d.get("traceEvents", []), rank
    return d, None


def step_ranges(evs):
    return [e for e in evs
            if e.get("ph") == "X" and re.fullmatch(r"ProfilerStep#\d+", str(e.get("name")))]


def is_trainer(evs):
    ranges = step_ranges(evs)
    return bool(ranges) and all("phase" in (e.get("args") or {}) for e in ranges)


def steps_of(evs):
    ranges = step_ranges(evs)
    if is_trainer(evs):  # the trainer's
        return [e["dur"] / 1000 for e in sorted(ranges, key=lambda e: e["ts"])
                if e["args"]["phase"] == "active"]
    st = sorted((e["ts"], e["ts"] + e.get("dur", 0)) for e in ranges)
    colls = [e["ts"] for e in evs if e.get("ph") == "X" and
             str(e.get("name", "")).startswith(("gloo:", "nccl:"))]
    if len(st) >= 2:
        others = statistics.median([b - a for a, b in st[:-1]])
        a, b = st[-1]
        if b - a < others / 3 and not any(a <= t < b for t in colls):
            st = st[:-1]
    return [(b - a) / 1000 for a, b in st]


def recount(d):
    files = sorted(glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "*.json.gz")))
    per, paths, trainer = {}, {}, False
    for i, p in enumerate(files):
        evs, rank = events(p)
        if rank is None:
            m = re.search(r"rank_?(\d+)", os.path.basename(p))
            rank = int(m.group(1)) if m else i
        per[rank], paths[rank] = steps_of(evs), p
        trainer = trainer or is_trainer(evs)
    n = min(len(v) for v in per.values())
    times = [max(v[i] for v in per.values()) for i in range(n)]
    if trainer and glob.glob(os.path.join(d, "rank_*.jsonl")):
        # the telemetry's steps are the traces' (active ones in order): the i-th active
        # telemetry step is the i-th active trace step
        active = iter(range(n))
        times = telemetry_median.step_times(d, lambda i: times[next(active)])
    elif len(per) > 1 and not trainer:
        ranks = {r: step_estimators.one_rank(events(p)[0]) for r, p in paths.items()}
        _, chosen, periods = step_estimators.estimators(ranks)
        times = chosen if periods else times
    return {"measured_ms": statistics.median(times), "measured_mean_ms": statistics.mean(times),
            "steps": len(times),
            "ranks": {r: statistics.median(v) for r, v in sorted(per.items())}}


for d in sys.argv[1:]:
    print(json.dumps(recount(d)))
