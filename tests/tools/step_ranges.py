#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""step_ranges.py TRACE.json...: each Kineto trace's ProfilerStep#N host ranges, recounted
from the raw file for tests/e2e/gpu_replay.sh (host ranges: not a GPU-side annotation of the
same name, ROCm traces have both): a JSON list, one object per file in the order
given, {"file", "steps", "median_ms"} (the median of the ranges' durations, ms; the trace's
times are µs). Independent of campaign-analyze: json.load and the statistics module."""
import json
import statistics
import sys


def steps_of(path):
    doc = json.load(open(path))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    durs = [e["dur"] / 1000 for e in events
            if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
            and "stream" not in (e.get("args") or {}) and e.get("cat") != "gpu_user_annotation"]
    return {"file": path, "steps": len(durs), "median_ms": statistics.median(durs) if durs else 0}


print(json.dumps([steps_of(p) for p in sys.argv[1:]]))
