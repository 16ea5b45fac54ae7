#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recounts what the straggler test could tell in each scenario of a run (summary.json's
straggler_test: the least p any rank or node could reach over its trials, a rank or a node's
ranks alone last in every one, times the units tested) and checks that the report says it:
where no straggler is named and the test could not name one, the scenario's report says so
with its trials and ranks; where it could, it says none keeps the others waiting.

usage: straggler_test.py RUN_DIR [SCENARIO...]   (exit 1 on a mismatch, saying which)"""
import json
import math
import sys


def least_p(ranks, per_node, trials):
    """The recount: one rank last alone in every trial (chance 1/ranks), or one node's
    ranks (chance the larger of 1/C(ranks, m) and 1/nodes), times the units tested."""
    if trials <= 0 or ranks < 2:
        return 1.0
    least = ranks * (1.0 / ranks) ** trials
    nodes = ranks // per_node if per_node > 0 else 0
    if nodes >= 2 and per_node >= 2:
        p = max(1.0 / math.comb(ranks, per_node), 1.0 / nodes)
        least = min(least, nodes * p ** trials)
    return min(least, 1.0)


def main():
    run = sys.argv[1]
    want = set(sys.argv[2:])
    doc = json.load(open(f"{run}/summary.json"))
    report = open(f"{run}/BOTTLENECK_ANALYSIS.md").read()
    bad = []
    checked = 0
    for s in doc["scenarios"]:
        if want and s["name"] not in want:
            continue
        t = s.get("straggler_test")
        if t is None:
            bad.append(f"{s['name']}: no straggler_test")
            continue
        ranks, nodes = s.get("ranks") or 0, s.get("nodes") or 0
        p = least_p(ranks, ranks // nodes if nodes else 0, t["trials"])
        shown = float(f"{p:.2g}")  # summary.json keeps a p to two significant digits
        if abs(shown - t["least_p"]) > 1e-6 * shown or t["can_name"] != (p <= 0.01):
            bad.append(f"{s['name']}: straggler_test {t}, recounted least_p {p:.3g}")
        checked += 1
        inspector = (s.get("nccl_inspector") or {}).get("stragglers_from_inspector")
        if ranks < 2 or s.get("stragglers") or (s.get("shares_pct") is None and not inspector):
            continue  # named, or no paragraph on stragglers (step times only)
        if not t["can_name"] and t["trials"] > 0:
            said = (f"No rank can be named as keeping the others waiting, whatever the ranks "
                    f"did: over {t['trials']} steps of {ranks} ranks")
        elif t["can_name"]:
            said = "No rank keeps the others waiting"
        else:
            said = "No rank can be named as keeping the others waiting: the test judged no"
        if said not in report:
            bad.append(f"{s['name']}: the report does not say \"{said}\"")
    for b in bad:
        print("   " + b)
    print(f"   straggler tests recounted: {checked}")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
