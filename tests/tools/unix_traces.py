#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""unix_traces.py DIR: rewrites each legacy PyTorch-profiler trace of DIR (*.json, the array
form Debian's torch writes, its times from the profiler's own start) as newer Kineto's
object form: the same ts, counted from a baseTimeNanoseconds at the file's modification
time less the end of its last ProfilerStep range (the trace is written as its last step
ends), so that the steps lie where the node monitors' samples of them do, to within the
writing's time. A fixture for the analysis' use of the monitors over the steps (the
DataLoader's CPU share, issue 47). Prints each file's base in seconds.
"""
import glob
import json
import os
import sys

for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    with open(path) as f:
        ev = json.load(f)
    if not isinstance(ev, list):
        sys.exit(f"{path}: not the legacy array form")
    ends = [e["ts"] + e.get("dur", 0) for e in ev
            if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    off = round(os.stat(path).st_mtime * 1e6 - max(ends))  # whole µs
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "baseTimeNanoseconds": off * 1000, "traceEvents": ev}, f)
    print(f"{os.path.basename(path)}: {off / 1e6:.3f} s")
