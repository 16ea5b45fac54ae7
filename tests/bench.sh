#!/bin/bash
# make bench: figures, not pass/fail. Machines are shared and noisy: read the
# ratios, repeat when in doubt.
set -u
cd "$(dirname "$0")/.."
T=bin/campaign-trainer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median_step() { # file: median active step_ms
	python3 -c 'import json,sys,statistics; print("%.3f" % statistics.median(json.loads(l)["step_ms"] for l in open(sys.argv[1]) if "\"active\"" in l))' "$1"
}
echo "== trainer, 1 rank, hidden 1024 x 4 layers, batch 256 (OPENBLAS_NUM_THREADS=1)"
OPENBLAS_NUM_THREADS=1 $T --steps 40 --warmup-steps 10 --batch 256 --hidden 1024 --depth 4 --metrics-dir "$tmp/a" >/dev/null
python3 - "$tmp/a/rank_0.jsonl" <<'PY'
import json, sys, statistics
meta = json.loads(open(sys.argv[1]).readline())
steps = [json.loads(l) for l in open(sys.argv[1]) if '"active"' in l]
med = statistics.median(s["step_ms"] for s in steps)
comp = statistics.median(s["forward_ms"] + s["backward_ms"] for s in steps)
print("median step %.2f ms; forward+backward %.2f ms; %.1f GFLOP/s achieved in forward+backward"
      % (med, comp, meta["flops_per_step"] / comp / 1e6))
PY
echo "== demo campaign, wall time from submit to analysis (local executor)"
start=$(date +%s.%N)
bin/campaign submit --wait --backend local --results "$tmp/res" campaigns/local-demo.yaml >/dev/null
end=$(date +%s.%N)
python3 -c "print('demo: %.1f s for 3 scenarios (2, 4, 8 ranks)' % ($end - $start))"
start=$(date +%s.%N)
bin/campaign-analyze "$(ls -d "$tmp"/res/local-demo/*/)" >/dev/null
end=$(date +%s.%N)
python3 -c "print('analysis of the demo run: %.3f s' % ($end - $start))"

echo "== submitting 100 jobs to the SLURM test cluster: campaign (libslurm) vs a loop of sbatch"
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root to start the test cluster"
	exit 0
fi
export CAMPAIGN_SLURM_DIR=/tmp/campaign-slurm-bench SLURM_CTLD_PORT=16957 SLURM_NODE_PORT0=17200
if ! eval "$(tests/slurm/start-cluster.sh 2>/dev/null | tail -n 1)"; then
	echo "skipped: cannot start the test cluster"
	exit 0
fi
trap 'tests/slurm/stop-cluster.sh 2>/dev/null; rm -rf "$tmp"' EXIT
{
	echo "campaign: bench100"
	echo "workload: { command: [/bin/true] }"
	echo "matrix:"
	echo "  i: [$(seq -s, 1 100)]"
	echo "scenarios: [{ name: 'j{{i}}', nodes: 1 }]"
} >"$tmp/b.yaml"
start=$(date +%s.%N)
bin/campaign submit --backend slurm --no-aggregation-job --results "$tmp/bench" "$tmp/b.yaml" >"$tmp/sub.out"
end=$(date +%s.%N)
run=$(sed -n 2p "$tmp/sub.out")
scancel --user="$(id -un)" 2>/dev/null
sleep 1
start2=$(date +%s.%N)
for f in "$run"/j*/job.sbatch; do
	sbatch --parsable -o /dev/null -D "$tmp" "$f" >/dev/null
done
end2=$(date +%s.%N)
scancel --user="$(id -un)" 2>/dev/null
python3 - "$start" "$end" "$start2" "$end2" "$run/state.db" <<'PY'
import sqlite3, sys
a, b, c, d = map(float, sys.argv[1:5])
db = sqlite3.connect(sys.argv[5])
n = db.execute("select count(*) from jobs where job_id is not null").fetchone()[0]
t0, t1 = db.execute("select min(submitted_at), max(submitted_at) from jobs").fetchone()
print("campaign submit, whole command (validate, render, record, submit): %.3f s for %d jobs" % (b - a, n))
print("  of which the submit loop (intent -> libslurm -> job id recorded):  %.3f s" % (t1 - t0))
print("loop of 100 sbatch on the same scripts:                              %.3f s" % (d - c))
print("ratio sbatch loop / campaign submit: %.1fx" % ((d - c) / (b - a)))
PY
