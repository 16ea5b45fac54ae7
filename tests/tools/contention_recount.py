#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The report's contention sentence recounted from the trainer's telemetry.

Usage: contention_recount.py RUN_DIR BASE WIDE

"Per-rank compute grew 3.6x (95 % CI 3.5-3.8x), from 9.73 ms at 1 node to 35.42 ms at 4
nodes": a rank's compute in a step is its forward, backward and optimizer time (the
telemetry's forward_ms + backward_ms + optimizer_ms); each figure is the mean over every
active step of every rank of the scenario, the growth their ratio. The interval is recounted
by a bootstrap of our own (2000 resamples of each scenario's rank-steps, not the analysis's
resamples): the report's bounds must lie within 0.1x of ours. Where the report says no
contention, the recount says whether compute grew at all. Exit 0 when they agree, 1 if not.
"""
import glob
import json
import random
import re
import statistics
import sys


def compute(run, sc):
    out = []
    for f in sorted(glob.glob("%s/%s/metrics/rank_*.jsonl" % (run, sc))):
        for line in open(f):
            d = json.loads(line)
            if d.get("type") == "step" and d.get("phase") == "active":
                out.append(d["forward_ms"] + d["backward_ms"] + d["optimizer_ms"])
    return out


def main():
    run, base, wide = sys.argv[1:4]
    b, w = compute(run, base), compute(run, wide)
    mb, mw = statistics.mean(b), statistics.mean(w)
    rng = random.Random(11)
    rs = sorted(statistics.mean(rng.choices(w, k=len(w))) / statistics.mean(rng.choices(b, k=len(b)))
                for _ in range(2000))
    lo, hi = rs[50], rs[1949]
    text = open(run + "/BOTTLENECK_ANALYSIS.md").read()
    m = re.search(r"\*\*Contention\.\*\* Per-rank compute grew ([0-9.]+)x \(95 % CI ([0-9.]+)-([0-9.]+)x\), "
                  r"from ([0-9.]+) ms at \d+ nodes? to ([0-9.]+) ms at \d+ nodes", text)
    print("   recount: %.2f -> %.2f ms per rank-step, %.2fx (our 95 %% CI %.2f-%.2fx); report: %s"
          % (mb, mw, mw / mb, lo, hi, m.group(0) if m else "no contention sentence"))
    if not m:
        return 0
    grew, rlo, rhi, rb, rw = map(float, m.groups())
    ok = (abs(rb - mb) < 0.006 and abs(rw - mw) < 0.006 and abs(grew - mw / mb) < 0.051
          and abs(rlo - lo) <= 0.1 and abs(rhi - hi) <= 0.1)
    return 0 if ok else 1


sys.exit(main())
