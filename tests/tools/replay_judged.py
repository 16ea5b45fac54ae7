#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts a scenario's replay fidelity in summary.json from the steps it lists, without
campaign's code (issue 47): the replayed and the measured median and mean steps, their errors,
and what the error is judged by.

replay_judged.py SUMMARY SCENARIO [MEASURED_MS]: the scenario's replay object lists its
steps compared (`step_times_ms` replayed, `measured_step_times_ms` measured, 0.001 ms each).
Their medians and means must be the object's `step_ms`, `measured_ms`, `mean_step_ms` and
`measured_mean_ms` (to 0.0011 ms), the errors 100 (replayed - measured) / measured
(`error_pct`, `mean_error_pct`); with MEASURED_MS (the median recounted from the raw traces,
tests/tools/replay_measured.py), the measured steps' median must be it. The error is judged by
the means (`by_means`) where the measured steps, else the replayed ones (`by_means_of`:
"measured", "replayed"), are not alike (mean over 25 % from median) or their median is fragile
(the steps ranked one either side of it over 20 % of it apart); within 0.1 point of either
threshold that is not checked (the steps' rounding decides it). Exits 0 when all agree, else
prints what does not and exits 1.
"""
import json
import statistics
import sys


def unalike(v):
    """How far (%) the mean is from the median."""
    return 100 * abs(statistics.mean(v) / statistics.median(v) - 1)


def fragile(v):
    """How far apart (% of the median) the steps ranked one either side of the median are."""
    x, n = sorted(v), len(v)
    return 100 * (x[n // 2 + 1] - x[(n - 1) // 2 - 1]) / statistics.median(x) if n >= 4 else 0


def judged(v):
    """True, False, or None where a criterion is too near its threshold to tell."""
    a, f = unalike(v), fragile(v)
    if abs(a - 25) < 0.1 or abs(f - 20) < 0.1:
        return None
    return a > 25 or f > 20


def main():
    summary, name = sys.argv[1], sys.argv[2]
    r = [x for x in json.load(open(summary))["scenarios"] if x["name"] == name][0]["replay"]
    rep, mea = r["step_times_ms"], r["measured_step_times_ms"]
    bad = []
    if not rep or len(rep) != len(mea) or len(rep) != r["steps"]:
        print(f"{len(rep)} replayed and {len(mea)} measured steps listed, {r['steps']} said")
        return 1
    for key, v in (("step_ms", statistics.median(rep)), ("measured_ms", statistics.median(mea)),
                   ("mean_step_ms", statistics.mean(rep)),
                   ("measured_mean_ms", statistics.mean(mea))):
        if abs(v - r[key]) > 0.0011:
            bad.append(f"{key} {r[key]} recounted {v:.4f}")
    for key, a, b in (("error_pct", r["step_ms"], r["measured_ms"]),
                      ("mean_error_pct", r["mean_step_ms"], r["measured_mean_ms"])):
        e = 100 * (a - b) / b
        if abs(e - r[key]) > 100 * 0.0011 / b + 0.0011:
            bad.append(f"{key} {r[key]} recounted {e:.4f}")
    if len(sys.argv) > 3 and abs(statistics.median(mea) - float(sys.argv[3])) > 0.0011:
        bad.append(f"measured steps' median {statistics.median(mea)} against the traces' {sys.argv[3]}")
    m, p = judged(mea), judged(rep)
    want = "measured" if m else None if m is None else "replayed" if p else None if p is None else ""
    if want is not None and (r["by_means_of"] or "") != want or r["by_means"] != bool(r["by_means_of"]):
        bad.append(f"by_means {r['by_means']} of {r['by_means_of']}, recounted {want or 'the medians'}"
                   f" (measured: mean {unalike(mea):.1f} % from median, middle {fragile(mea):.1f} %;"
                   f" replayed: {unalike(rep):.1f} %, {fragile(rep):.1f} %)")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
