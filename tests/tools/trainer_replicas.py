# SPDX-License-Identifier: MIT
"""trainer_replicas.py ONE_DIR FOUR_DIR: the reference trainer's telemetry of a 1-rank and a 4-rank
run: rank files, steps of each, whether the replicas' parameters agree at every step, whether
the losses agree with 1 rank's, whether the loss halved (tests/e2e/launch_trainer.sh)."""
import json, sys, glob
def steps(path):
    return [json.loads(l) for l in open(path) if '"step"' in l and '"type": "step"' in l]
one = steps(sys.argv[1] + "/rank_0.jsonl")
ranks = [steps(f) for f in sorted(glob.glob(sys.argv[2] + "/rank_*.jsonl"))]
same_params = all(len({r[i]["param_checksum"] for r in ranks}) == 1 for i in range(len(ranks[0])))
max_dloss = max(abs(a["loss"] - b["loss"]) for a, b in zip(one, ranks[0]))
print(len(ranks), len(one), len(ranks[0]), same_params, max_dloss < 1e-5, one[-1]["loss"] < one[0]["loss"] / 2)
