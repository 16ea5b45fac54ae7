#!/bin/bash
# make bench: figures, not pass/fail. Machines are shared and noisy: read the
# ratios, repeat when in doubt.
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/.."
T=bin/campaign-trainer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median_step() { # file: median active step_ms
	python3 -c 'import json,sys,statistics; print("%.3f" % statistics.median(json.loads(l)["step_ms"] for l in open(sys.argv[1]) if "\"active\"" in l))' "$1"
}
echo "== campaign-analyze per core, simdjson and streaming yajl readers, vs python3 json.load of the same files (goals at the default -j: <= 0.10 of python's time, <= 0.25 of its memory), beside the floor: simdjson's bare On-Demand walk"
tests/bench/analyzer_bench.sh "$tmp" 27
rm -rf "$tmp"/big.pt.trace.json "$tmp"/gen1
echo "== replay simulator: a random execution graph of 10^6 nodes (tests/bench/replay_bench.c: 8 hosts of 1 to 4 cores, 32 ranks, kernels, waits, collectives)"
build/bench/replay_bench 1000000
SHAPE="--batch-per-rank 256 --input 256 --hidden 1024 --depth 4 --output 16"
echo "== GEMM inside the trainer vs bare cblas_sgemm of the same shapes (1 rank, OPENBLAS_NUM_THREADS=1; target >= 80 %)"
OPENBLAS_NUM_THREADS=1 $T $SHAPE --steps 30 --warmup-steps 10 --metrics-dir "$tmp/g" >/dev/null
in_trainer=$(python3 -c 'import json,sys,statistics
L=[json.loads(l) for l in open(sys.argv[1])]
meta=L[0]; S=[x for x in L[1:] if x["phase"]=="active"]
print("%.1f" % (meta["flops_per_step"] / statistics.median(x["gemm_ms"] for x in S) / 1e6))' "$tmp/g/rank_0.jsonl")
bare=$(OPENBLAS_NUM_THREADS=1 build/bench/gemm_bare 256 256 1024 4 16 20)
python3 -c "import sys; t,b=map(float,sys.argv[1:]); print('trainer %.1f GFLOP/s, bare %.1f GFLOP/s: %.0f %% of bare' % (t, b, 100*t/b))" "$in_trainer" "$bare"

echo "== all-reduce inside the trainer (--ddp sync) vs a bare gloo all-reduce of the same size (2 ranks; target within 10 %)"
mkdir -p "$tmp/rdz"
OPENBLAS_NUM_THREADS=1 bin/campaign launch --nodes 1 --tasks-per-node 2 -- $T $SHAPE --steps 30 --warmup-steps 10 --metrics-dir "$tmp/c" --rendezvous "$tmp/rdz" >/dev/null
# Per step the rank that arrives last waits least: its time is the transfer
# itself (the others also wait for it), the figure to set against a bare loop.
read -r n_floats t_trainer <<<"$(python3 -c 'import json,sys,statistics
R=[[json.loads(l) for l in open(f)] for f in sys.argv[1:]]
S=[[x for x in L[1:] if x["phase"]=="active"] for L in R]
print(R[0][0]["params"] + 1, "%.3f" % statistics.median(min(s[i]["comm_ms"] for s in S) for i in range(len(S[0]))))' "$tmp"/c/rank_*.jsonl)"
read -r t_bare gbps_bare <<<"$(bin/campaign launch --nodes 1 --tasks-per-node 2 -- build/bench/allreduce_bare "$n_floats" 30 "$tmp/rdz")"
python3 -c "import sys; n,t,b=map(float,sys.argv[1:]); g=n*4/(t/1000)/1e9; gb=n*4/(b/1000)/1e9
print('%d floats: trainer %.2f ms (%.2f GB/s, last-arriving rank per step), bare %.2f ms (%.2f GB/s): trainer/bare time %.2f' % (n, t, g, b, gb, t/b))" "$n_floats" "$t_trainer" "$t_bare"

echo "== step time with telemetry on vs off (--no-telemetry), 2 ranks, median of 3 runs each (target overhead < 1 %)"
on=(); off=()
for i in 1 2 3; do
	on+=("$(OPENBLAS_NUM_THREADS=1 bin/campaign launch --nodes 1 --tasks-per-node 2 -- $T $SHAPE --steps 40 --warmup-steps 10 --metrics-dir "$tmp/on" --rendezvous "$tmp/rdz" | sed -n 's/.*median step \([0-9.]*\) ms/\1/p')")
	off+=("$(OPENBLAS_NUM_THREADS=1 bin/campaign launch --nodes 1 --tasks-per-node 2 -- $T $SHAPE --steps 40 --warmup-steps 10 --no-telemetry --rendezvous "$tmp/rdz" | sed -n 's/.*median step \([0-9.]*\) ms/\1/p')")
done
python3 -c "import sys,statistics; a=[float(x) for x in sys.argv[1:4]]; b=[float(x) for x in sys.argv[4:7]]
print('on %.2f ms, off %.2f ms: overhead %+.2f %%' % (statistics.median(a), statistics.median(b), 100*(statistics.median(a)/statistics.median(b)-1)))" "${on[@]}" "${off[@]}"

echo "== campaign-monitor overhead at a 500 ms interval, 20 s (target < 1 % of one core)"
bin/campaign-monitor --dir "$tmp/mon" --interval-ms 500 --gpu off --duration 20 2>/dev/null &
mpid=$!
sleep 19
read -r ut st <<<"$(awk '{ print $14, $15 }' /proc/$mpid/stat)"
wait $mpid
python3 -c "import os,sys; hz=os.sysconf('SC_CLK_TCK'); t=(int(sys.argv[1])+int(sys.argv[2]))/hz; print('%.3f s of CPU in 19 s: %.3f %% of one core' % (t, 100*t/19))" "$ut" "$st"

echo "== campaign-analyze on a pool of threads: -j 1 against -j 2 (peak RSS of the whole process)"
jbench() { # label files...
	local label=$1; shift
	for j in 1 2; do
		build/bench/wall "$tmp/j$j.time" bin/campaign-analyze --json -j $j "$@" >"$tmp/j$j.json"
	done
	read -r t1 m1 <"$tmp/j1.time"; read -r t2 m2 <"$tmp/j2.time"
	cmp -s "$tmp/j1.json" "$tmp/j2.json" && same=identical || same=DIFFERENT
	python3 -c "import sys; t1,t2,m1,m2=map(float,sys.argv[2:6]); print('%s: -j 1 %.2f s, %.0f MB; -j 2 %.2f s, %.0f MB; speed-up %.2f (goal >= 1.7 on 2 cores); output %s' % (sys.argv[1], t1, m1/1024, t2, m2/1024, t1/t2, sys.argv[6]))" "$label" "$t1" "$t2" "$m1" "$m2" "$same"
}
python3 tests/tools/gen_traces.py --ranks 8 --mb 20 --out "$tmp/syn"
jbench "8 synthetic ranks x 20 MB (python3 tests/tools/gen_traces.py --ranks 8 --mb 20)" "$tmp"/syn/*.json
S=../shared/traces/kineto/param_dlrm_8rank
[ -d "$S" ] && jbench "the 8 DLRM ranks (7.4 MB)" "$S"/*.json

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

echo "== the aggregation job on 4 nodes of the SLURM test cluster: 64 generated ranks x 2 MB mapped with srun, vs one process"
echo "   (the 4 test nodes share this machine's CPUs: the figure is the map step's cost and placement, not a speed-up)"
python3 tests/tools/gen_traces.py --ranks 64 --world 64 --mb 2 --out "$tmp/gen64" >/dev/null
cat >"$tmp/map.yaml" <<Y
campaign: bench-map
workload: { command: ["/bin/true"] }
profile: { traces: ["$tmp/gen64/*.json"] }
analysis: { nodes: 4, batch_per_rank: 16 }
scenarios: [{ name: ranks64, nodes: 1, tasks_per_node: 1 }]
Y
bin/campaign submit --backend slurm --results "$tmp/map" "$tmp/map.yaml" >"$tmp/map.out" 2>&1
mrun=$(awk '/^run [0-9]/ { getline; print; exit }' "$tmp/map.out")
for i in $(seq 1 600); do [ -s "$mrun/BOTTLENECK_ANALYSIS.md" ] && break; sleep 0.5; done
sleep 1
grep -h '^campaign aggregate: \(map step\|shard\)' "$mrun"/aggregate-*.out | sed 's/^/  /'
cp "$mrun/summary.json" "$tmp/mapped.json"
build/bench/wall "$tmp/one.time" bin/campaign aggregate --jobs 1 --results "$tmp/map" "$mrun" >/dev/null 2>&1
read -r t1 m1 <"$tmp/one.time"
cmp -s "$tmp/mapped.json" "$mrun/summary.json" && same=identical || same=DIFFERENT
echo "  one process, -j 1: ${t1} s, $((m1 / 1024)) MB peak RSS; summary.json of the mapped run and of -j 1: $same"
build/bench/wall "$tmp/sh.time" bin/campaign aggregate --shards 2 --jobs 1 --results "$tmp/map" "$mrun" >/dev/null 2>&1
read -r t2 m2 <"$tmp/sh.time"
echo "  --shards 2 --jobs 1 (local processes): ${t2} s, reduce process $((m2 / 1024)) MB peak RSS"
