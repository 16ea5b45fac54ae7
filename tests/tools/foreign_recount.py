# SPDX-License-Identifier: MIT
"""Recounts each scenario's foreign load from the raw files and asserts the run's summary.json
says the same: the mean foreign_cpu_pct of campaign-monitor's cpu_monitor.csv samples whose
interval overlaps the active steps (the trainer telemetry's start_us and step_ms over every
rank; every sample when none overlaps), on the node where it is highest; contaminated_by set
exactly when that mean is above 10 % of a core (or another scenario shared its nodes), with
cpu_pct that mean and what the (up to) three foreign_top commands with the highest summed %.

    python3 foreign_recount.py RUN_DIR [SCENARIO...]

Prints one line per scenario: its mean, its commands and whether it is contaminated."""
import csv
import glob
import json
import math
import os
import sys

THRESHOLD = 10.0
NAMES = 16  # the first distinct commands of a node that are counted


def window(job):
    lo = hi = None
    for f in glob.glob(os.path.join(job, "metrics", "rank_*.jsonl")):
        for line in open(f):
            r = json.loads(line)
            if r.get("type") != "step" or r.get("phase") != "active" or not r.get("start_us"):
                continue
            a = r["start_us"] / 1e6
            b = a + r["step_ms"] / 1e3
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
    return (lo, hi) if lo is not None else (0.0, 0.0)


def num(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def add(acc, pct, top):
    acc["n"] += 1
    acc["sum"] += pct
    for item in top.split(";") if top else []:
        name, colon, p = item.partition(":")
        p = num(p) if colon else 0.0
        if not name or len(name) >= 24 or not math.isfinite(p) or p <= 0:
            continue
        if name not in acc["names"] and len(acc["names"]) < NAMES:
            acc["names"][name] = 0.0
        if name in acc["names"]:
            acc["names"][name] += p


def node(path, lo, hi):
    inside = {"n": 0, "sum": 0.0, "names": {}}
    every = {"n": 0, "sum": 0.0, "names": {}}
    for row in csv.DictReader(open(path)):
        text = row.get("foreign_cpu_pct")
        if not text:
            continue
        pct = num(text)
        if not math.isfinite(pct) or pct < 0 or pct > 1e6:
            continue
        end, iv = float(row["timestamp"]), float(row["interval_s"])
        add(every, pct, row.get("foreign_top") or "")
        if end >= lo and end - iv <= hi:
            add(inside, pct, row.get("foreign_top") or "")
    return inside if inside["n"] else every


def recount(job):
    lo, hi = window(job)
    worst = None
    for path in sorted(glob.glob(os.path.join(job, "monitor", "*", "cpu_monitor.csv"))):
        acc = node(path, lo, hi)
        if acc["n"] and (worst is None or acc["sum"] / acc["n"] > worst["sum"] / worst["n"]):
            worst = acc
    if worst is None:
        return None, []
    names = sorted(worst["names"].items(), key=lambda kv: -kv[1])  # stable: first seen wins ties
    return worst["sum"] / worst["n"], [k for k, v in names if v > 0][:3]


def main():
    run = sys.argv[1]
    summary = json.load(open(os.path.join(run, "summary.json")))
    picked = set(sys.argv[2:])
    seen = 0
    for s in summary["scenarios"]:
        if picked and s["name"] not in picked:
            continue
        mean, what = recount(os.path.join(run, s["name"]))
        mon, by = s.get("monitor"), s.get("contaminated_by")
        if mean is None:
            assert mon is None or mon.get("foreign_cpu_pct") is None, s
            assert by is None or (by["cpu_pct"] is None and by["scenarios"]), s
            print("%s: no foreign load recorded" % s["name"])
            continue
        seen += 1
        assert abs(mon["foreign_cpu_pct"] - mean) <= 0.0015, (s["name"], mon, mean)
        dirty = mean > THRESHOLD
        assert (by is not None) == (dirty or bool(by and by["scenarios"])), (s["name"], by, mean)
        if dirty:
            assert abs(by["cpu_pct"] - mean) <= 0.0015, (s["name"], by, mean)
            assert by["what"] == what, (s["name"], by["what"], what)
        print("%s: foreign load %.1f %% of a core over its active steps (%s): %s"
              % (s["name"], mean, ", ".join(what) or "no command named",
                 "contaminated" if dirty else "not contaminated"))
    assert seen or not picked, "no scenario with foreign load recorded among %s" % sorted(picked)


main()
