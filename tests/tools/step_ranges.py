#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""step_ranges.py TRACE...: each Kineto trace's ProfilerStep#N host ranges, recounted
from the raw file for tests/e2e/gpu_replay.sh (host ranges: not a GPU-side annotation of the
same name, ROCm traces have both): a JSON list, one object per file in the order
given, {"file", "steps", "median_ms"} (the median of the ranges' durations, ms; the trace's
times are µs). An Nsight Systems SQLite export gives one object per process (by process id):
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


def steps_of(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    durs = [e["dur"] / 1000 for e in events
            if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
            and "stream" not in (e.get("args") or {}) and e.get("cat") != "gpu_user_annotation"]
    return {"file": path, "steps": len(durs), "median_ms": statistics.median(durs) if durs else 0}


out = []
for p in sys.argv[1:]:
    out += nsys_steps(p) if open(p, "rb").read(16) == b"SQLite format 3\0" else [steps_of(p)]
print(json.dumps(out))
