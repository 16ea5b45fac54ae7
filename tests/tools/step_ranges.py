#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""step_ranges.py TRACE...: each Kineto trace's ProfilerStep#N host ranges, recounted
from the raw file for tests/e2e/gpu_replay.sh (host ranges: not a GPU-side annotation of the
same name, ROCm traces have both): a JSON list, one object per file in the order
given, {"file", "steps", "median_ms"} (the median of the ranges' durations, ms; the trace's
times are µs), a last range that is the profiler's tail left out (partial(), as
docs/analysis.md says a run's analysis and campaign-analyze's replay do). An Nsight Systems SQLite export gives one object per process (by process id):
its NVTX ranges of that name (ns). Independent of campaign-analyze: json.load, sqlite3 and
the statistics module."""
import json
import sqlite3
import statistics
import sys


def nsys_steps(path):
    rows = sqlite3.connect(path).execute(
        "SELECT globalTid >> 24, end - start FROM NVTX_EVENTS WHERE text LIKE 'ProfilerStep#%'"
        " AND end IS NOT NULL AND eventType IN (59, 60)").fetchall()
    out = []
    for pid in sorted({r[0] for r in rows}):
        durs = [d / 1e6 for p, d in rows if p == pid]
        out.append({"file": path, "steps": len(durs), "median_ms": statistics.median(durs)})
    return out


COLLECTIVE = ("nccl", "rccl", "gloo", "allreduce", "all_reduce", "allgather", "all_gather",
              "reduce_scatter", "broadcast", "alltoall", "all_to_all")


def partial(steps, events):
    """Whether the last of steps ((start, dur) in µs, by start) is the profiler's tail, by
    docs/analysis.md's rule: shorter than a third of the median of the others, and no
    collective (an event whose name says one) starting inside it."""
    if len(steps) < 2:
        return False
    s, d = steps[-1]
    if not 3 * d < statistics.median(x[1] for x in steps[:-1]):
        return False
    return not any(s <= e.get("ts", -1) < s + d and any(c in str(e.get("name", "")).lower() for c in COLLECTIVE)
                   for e in events if e.get("ph") == "X" and isinstance(e.get("ts"), (int, float)))


def steps_of(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = sorted((e["ts"], e["dur"]) for e in events
                   if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
                   and "stream" not in (e.get("args") or {}) and e.get("cat") != "gpu_user_annotation")
    if partial(steps, events):
        steps = steps[:-1]
    durs = [d / 1000 for _, d in steps]
    return {"file": path, "steps": len(durs), "median_ms": statistics.median(durs) if durs else 0}


out = []
for p in sys.argv[1:]:
    out += nsys_steps(p) if open(p, "rb").read(16) == b"SQLite format 3\0" else [steps_of(p)]
print(json.dumps(out))
