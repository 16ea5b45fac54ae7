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
