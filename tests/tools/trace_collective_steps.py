# SPDX-License-Identifier: MIT
"""trace_collective_steps.py TRACE.json...: the number of steps (ProfilerStep#N ranges) in which
every rank's trace holds exactly one gloo:all_reduce (tests/e2e/stragglers.sh)."""
import json, sys
held = []
for f in sys.argv[1:]:
    d = json.load(open(f))
    e = d["traceEvents"] if isinstance(d, dict) else d
    steps = sorted((x["ts"], x["ts"] + x["dur"]) for x in e if x.get("name", "").startswith("ProfilerStep#"))
    ar = [x["ts"] for x in e if x.get("name", "").startswith("gloo:all_reduce")]
    held.append([sum(a <= t < b for t in ar) == 1 for a, b in steps])
print(sum(all(h[i] for h in held) for i in range(min(map(len, held)))) if held else 0)
