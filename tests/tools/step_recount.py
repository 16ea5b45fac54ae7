#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts the host's shares of step time from raw PyTorch-profiler traces, without
campaign's code: an independent check of the one accounting (issue 45, point 7).

step_recount.py [--rules PHASE_RULES] DIR: every *.json / *.json.gz of DIR is one rank
(Kineto's object form or the legacy array form, CPU only); prints one JSON document:
  {"steps": N, "ranks": R, "shares_pct": {"compute", "communication", "peer_wait",
   "data_loading", "io", "other"}, "per_rank": {rank: {share: ms per step}}}
Names are classified by the phase rules (analyzers/phase_rules.txt: the first rule whose
regex matches wins; "compute" names operators; a name no rule matches is transparent).
Steps: the ProfilerStep#N ranges; a last step shorter than a third of the median of the
others with no gloo:/nccl: range starting in it is the profiler's tail, left out.
Every instant of a rank's step is looked at on its own (the elementary intervals between
any two range boundaries): on each thread the innermost classified range covering it
says what the thread does there (an operator: the phase of the nearest classified range
around it, compute when there is none; the thread is busy. A forward, backward or
optimizer range with no operator covering the instant, on a thread that runs operators
in the step, is bare). The rank's instant is then, first that applies: compute when a
thread is busy in a compute phase; data loading; communication when a thread is under a
collective (or its wait); compute when a thread is in a bare compute phase; I/O; other.
Per step the least exposed communication over ranks is the transfer, the rest of each
rank's is waiting for peers. Shares: sums over ranks and steps / summed step time.
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

COMPUTE = ("forward", "backward", "optimizer")


def rules_of(path):
    rules = []
    for line in open(path):
        if line.startswith("#") or "\t" not in line:
            continue
        phase, rx = line.rstrip("\n").split("\t", 1)
        if phase != "default":
            rules.append((phase, re.compile(rx)))
    return rules


def classify(rules, name):
    return next((phase for phase, rx in rules if rx.search(name)), None)


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    if isinstance(d, dict):
        return d.get("traceEvents", []), d.get("distributedInfo", {}).get("rank")
    return d, None


def host_ranges(events):
    for e in events:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("ph", "X") != "X" or "dur" not in e or "ts" not in e or "name" not in e:
            continue
        if a.get("stream", -1) != -1 or e.get("cat") in ("gpu_user_annotation", "Trace"):
            continue
        yield float(e["ts"]), float(e["ts"]) + float(e["dur"]), str(e.get("tid")), e["name"]


def thread_state(chain, has_ops):
    """chain: the classified ranges covering an instant on one thread, outermost first."""
    if not chain:
        return None
    inner = chain[-1][1]
    if inner == "compute":
        around = [p for _, p in chain if p != "compute"]
        return ("busy", around[-1] if around else "compute")
    if inner in COMPUTE:
        return ("bare" if has_ops else "busy", inner)
    return ("busy", inner)


def rank_instant(states):
    def any_of(kind, phases):
        return any(s and (kind is None or s[0] == kind) and s[1] in phases for s in states)
    if any_of("busy", COMPUTE + ("compute",)):
        return "compute"
    for share, phases in (("data_loading", ("data_loading",)), ("communication", ("communication",)),
                          ("compute", COMPUTE), ("io", ("io",))):
        if any_of(None, phases):
            return share
    return "other"


def recount_step(ranges, lo, hi):
    inside = [(max(s, lo), min(e, hi), tid, p) for s, e, tid, p in ranges if s < hi and e > lo]
    cuts = sorted({lo, hi} | {t for s, e, _, _ in inside for t in (s, e)})
    threads = {}
    for s, e, tid, p in inside:
        threads.setdefault(tid, []).append((s, e, p))
    has_ops = {tid: any(p == "compute" for _, _, p in rs) for tid, rs in threads.items()}
    out = {}
    for a, b in zip(cuts, cuts[1:]):
        m = (a + b) / 2
        states = []
        for tid, rs in threads.items():
            chain = sorted(((s, -e), p) for s, e, p in rs if s <= m < e)
            states.append(thread_state([(k, p) for k, p in chain], has_ops[tid]))
        share = rank_instant(states)
        out[share] = out.get(share, 0.0) + (b - a) / 1000
    return out


def recount_rank(events, rules):
    steps, ranges, colls = [], [], []
    for s, e, tid, name in host_ranges(events):
        if re.fullmatch(r"ProfilerStep#\d+", name):
            steps.append((s, e))
            continue
        p = classify(rules, name)
        if p is not None:
            ranges.append((s, e, tid, p))
        if name.startswith(("gloo:", "nccl:")):
            colls.append(s)
    steps.sort()
    if len(steps) >= 2:
        last = steps[-1]
        med = statistics.median(e - s for s, e in steps[:-1])
        if 3 * (last[1] - last[0]) < med and not any(last[0] <= c < last[1] for c in colls):
            steps = steps[:-1]
    return [(e - s, recount_step(ranges, s, e)) for s, e in steps]


def main():
    args = sys.argv[1:]
    rules_path = os.path.join(os.path.dirname(__file__), "..", "..", "analyzers", "phase_rules.txt")
    if args[:1] == ["--rules"]:
        rules_path, args = args[1], args[2:]
    rules = rules_of(rules_path)
    files = sorted(glob.glob(os.path.join(args[0], "*.json")) + glob.glob(os.path.join(args[0], "*.json.gz")))
    ranks = {}
    for i, f in enumerate(files):
        ev, r = load(f)
        ranks[r if r is not None else i] = recount_rank(ev, rules)
    n = min(len(v) for v in ranks.values())
    sums = dict.fromkeys(("compute", "communication", "peer_wait", "data_loading", "io", "other"), 0.0)
    total = 0.0
    for k in range(n):
        least = min(ranks[r][k][1].get("communication", 0.0) for r in ranks)
        for r in ranks:
            us, parts = ranks[r][k]
            total += us / 1000
            for share, v in parts.items():
                sums[share] += v
            sums["communication"] -= parts.get("communication", 0.0) - least
            sums["peer_wait"] += parts.get("communication", 0.0) - least
    per_rank = {str(r): {s: round(sum(p.get(s, 0.0) for _, p in ranks[r][:n]) / n, 4)
                         for s in ("compute", "communication", "data_loading", "io", "other")}
                for r in sorted(ranks)}
    print(json.dumps({"steps": n, "ranks": len(ranks),
                      "shares_pct": {s: round(100 * v / total, 3) for s, v in sums.items()},
                      "per_rank": per_rank}))


main()
