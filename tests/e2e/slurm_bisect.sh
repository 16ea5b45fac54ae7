#!/bin/bash
# campaign bisect (issue 49) on the SLURM test cluster with --parallel 2: the repository of
# bisect.sh (tests/lib.sh bisect_repo: c8 adds 100 ms to every step's 20 to 40), its widest
# scenario as jobs of 2 nodes, two commits tested at once (a 3-ary split of the range). It must
# name c8 from the runs of GOOD and BAD and three rounds of two (c4 and c7, c9 and c10, then c8
# alone), each an ordinary SLURM run of 2 nodes with its aggregation job.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch slurm_bisect
slurm_cluster slurm_bisect /tmp/campaign-slurm-bisect 17047 18400
bisect_repo repo slurm
c() { git -C repo rev-parse "HEAD~$((11 - $1))"; } # commit cN's hash
"$CAMPAIGN" bisect --wait --backend slurm --parallel 2 --threshold 50 --results "$SCRATCH/res" "$(c 0)" "$(c 11)" repo/campaign.yaml >b.out 2>&1; rc=$?
check slurm_bisect_exit0 [ "$rc" -eq 0 ] || { tail -n 30 b.out; exit 1; }
bdir=$(sed -n 2p b.out)
check slurm_bisect_first_bad_c8 [ "$(json "$bdir/bisect.json" 'j["first_bad"]["commit"], j["backend"], j["parallel"]')" = "('$(c 8)', 'slurm', 2)" ]
# GOOD and BAD together, then c4 and c7 (10 candidates split at 10/3 and 20/3), c9 and c10
# (c8..c10 split), c8 (an unclear commit's rerun comes back in the next round). On a loaded
# machine a commit's run may come out unclear; once a later commit is clear on the same side
# (c4 unclear, c7 good) it needs no rerun, so a commit whose only runs were unclear drops out,
# and a rerun comes back in a later round than the split's order (and may move the split).
# Each clear outcome is the right one: good up to c7, bad from c8; with no unclear run the
# commits are exactly the split's.
check slurm_bisect_rounds python3 -c '
import json, subprocess, sys
t = json.load(open(sys.argv[1] + "/bisect.json"))["tested"]
c = lambda i: subprocess.check_output(["git", "-C", "repo", "rev-parse", "HEAD~%d" % (11 - i)], text=True).strip()
index = {c(i): i for i in range(12)}
clear = [(index.get(e["commit"]), e["outcome"]) for e in t if e["outcome"] != "unclear"]
rerun = {index.get(e["commit"]) for e in t if e["outcome"] == "unclear"}
split = (0, 11, 4, 7, 9, 10, 8)
first = [k for k, _ in clear if k not in rerun and k in split]  # a rerun comes back later
ok = first == [i for i in split if i in first] and {0, 11, 8} <= {k for k, _ in clear}
ok = ok and all(o == ("good" if k <= 7 else "bad") for k, o in clear)
ok = ok and (rerun or [k for k, _ in clear] == list(split))  # all clear: exactly the split
sys.exit(0 if ok else 1)' "$bdir"
run=$(json "$bdir/bisect.json" 'j["first_bad"]["run"]')
check slurm_bisect_jobs_of_2_nodes grep -qx '#SBATCH --nodes=2' "res/bisectddp/$run/cpu-2n/job.sbatch"
check slurm_bisect_ran_on_slurm python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/state.db")
(backend,), = db.execute("select backend from runs").fetchall()
ids = [r[0] for r in db.execute("select job_id from jobs")]
sys.exit(0 if backend == "slurm" and ids and all(i and i.isdigit() for i in ids) else 1)' "res/bisectddp/$run"
check slurm_bisect_two_at_once python3 -c '
import json, sqlite3, sys
t = json.load(open(sys.argv[1] + "/bisect.json"))["tested"]
span = {}
for e in t[2:4]:  # c4 and c7: submitted together, both running at one moment
    db = sqlite3.connect(sys.argv[2] + "/" + e["run"] + "/state.db")
    span[e["run"]] = db.execute("select min(started_at), max(ended_at) from jobs").fetchone()
(a0, a1), (b0, b1) = span.values()
sys.exit(0 if max(a0, b0) < min(a1, b1) else 1)' "$bdir" res/bisectddp
check slurm_bisect_md grep -q "^\*\*The first bad commit is\*\* \`$(c 8 | cut -c1-12)\` c8: change 8" "$bdir/BISECT.md"
check slurm_bisect_no_worktree_left [ "$(git -C repo worktree list | wc -l)" = 1 ]
