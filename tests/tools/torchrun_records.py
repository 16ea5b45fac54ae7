#!/usr/bin/env python3
# torchrun_records.py JOB: each worker's record (JOB/ranks/rank_<r>.json) against what the
# worker itself printed ("rank R of 4: pid P" in its node's log, JOB/logs/rank_<node>.out), the
# node its launcher ran on (launcher_<n>.json) and the process its trace files are named after;
# an AssertionError naming what differs otherwise (tests/e2e/torchrun.sh, 2 nodes x 2 workers).
# SPDX-License-Identifier: MIT
import glob, json, os, re, sys
job = sys.argv[1]
rec = lambda n: json.load(open(f"{job}/ranks/{n}.json"))
said = {}
for node in (0, 1):
    for line in open(f"{job}/logs/rank_{node}.out"):
        m = re.search(r"rank (\d) of 4: pid (\d+)", line)
        if m:
            said[int(m.group(1))] = (node, int(m.group(2)))
assert sorted(said) == [0, 1, 2, 3], said
launchers = [rec(f"launcher_{n}") for n in (0, 1)]
assert [(l["node"], l["node_rank"]) for l in launchers] == [("local1", 0), ("local2", 1)], launchers
assert all("rank" not in l for l in launchers), launchers
traced = {int(re.match(r".*_(\d+)\.\d+\.pt\.trace\.json$", f).group(1)) for f in os.listdir(f"{job}/traces")}
for r in range(4):
    w, (node, pid) = rec(f"rank_{r}"), said[r]
    want = {"rank": r, "local_rank": r % 2, "node_rank": r // 2, "node": f"local{r // 2 + 1}",
            "pid": pid, "launcher_pid": launchers[r // 2]["pid"]}
    assert node == r // 2 and {k: w[k] for k in want} == want, (r, w, want, node)
assert traced == {p for _, p in said.values()}, (traced, said)
