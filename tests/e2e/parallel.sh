# The per-rank work on a pool of threads: the analysis of a run, and
# campaign-analyze on trace files, give the same bytes whatever the number of
# threads and whatever order the files finish in (the first files are the
# largest, so they finish last). Traces come from tests/tools/gen_traces.py.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
gen="$ROOT/tests/tools/gen_traces.py"
python3 "$gen" --ranks 2 --mb 1.5 --world 8 --out big && python3 "$gen" --ranks 6 --first-rank 2 --world 8 --mb 0.2 --out big
python3 "$gen" --ranks 2 --mb 0.2 --gzip --out gz
check generator_wrote_ranks [ "$(ls big | wc -l)" = 8 ]
for j in 1 2 5; do
	"$BIN/campaign-analyze" --json -j $j big/*.json gz/*.json.gz >an.$j.json
done
check analyze_j1_j2_identical cmp -s an.1.json an.2.json
check analyze_j1_j5_identical cmp -s an.1.json an.5.json
check analyze_reads_all [ "$(json an.1.json 'len(j["ranks"])')" = 10 ]
check analyze_in_input_order [ "$(json an.1.json '[r["rank"] for r in j["ranks"]]')" = "[0, 1, 2, 3, 4, 5, 6, 7, 0, 1]" ]
cat >syn.yaml <<Y
campaign: syn
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/big/*.json"] }
analysis: { batch_per_rank: 16 }
scenarios: [{ name: gpu-2n, nodes: 2, tasks_per_node: 4, gpus_per_node: 4, backend: nccl }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" syn.yaml >sub.txt 2>&1
run=$(rundir sub.txt)
check synthetic_run_analysed [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], len(j["scenarios"][0]["median_step"]["ranks"]))')" = "(True, 8)" ]
for j in 1 3; do
	"$CAMPAIGN" aggregate --jobs $j --results "$SCRATCH/res" "$run" >/dev/null 2>&1
	mkdir -p out.$j && cp "$run/summary.json" "$run/BOTTLENECK_ANALYSIS.md" "$run/timeline.json" out.$j/
done
for f in summary.json BOTTLENECK_ANALYSIS.md timeline.json; do
	check "aggregate_j1_j3_identical_$f" cmp -s out.1/$f out.3/$f
done
"$BIN/campaign-analyze" -j x big/rank0.pt.trace.json >/dev/null 2>err.txt; rc=$?
check analyze_bad_jobs_exit2 [ "$rc" -eq 2 ]

# the trainer's telemetry files are read on the pool too
cat >tele.yaml <<Y
campaign: tele
workload: { command: "$BIN/campaign-trainer --backend gloo --steps {{steps}} --warmup-steps {{warmup_steps}} --hidden 64 --metrics-dir {{metrics_dir}}" }
profile: { warmup_steps: 2, active_steps: 8 }
scenarios: [{ name: four, nodes: 2, tasks_per_node: 2 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/tele" tele.yaml >tele.txt 2>&1
trun=$(rundir tele.txt)
for j in 1 4; do
	"$CAMPAIGN" aggregate --jobs $j --results "$SCRATCH/tele" "$trun" >/dev/null 2>&1
	mkdir -p tele.$j && cp "$trun/summary.json" "$trun/BOTTLENECK_ANALYSIS.md" tele.$j/
done
check telemetry_analysed [ "$(json tele.1/summary.json '(j["scenarios"][0]["analysed"], len(j["scenarios"][0]["median_step"]["ranks"]))')" = "(True, 4)" ]
check telemetry_j1_j4_identical_summary cmp -s tele.1/summary.json tele.4/summary.json
check telemetry_j1_j4_identical_report cmp -s tele.1/BOTTLENECK_ANALYSIS.md tele.4/BOTTLENECK_ANALYSIS.md
