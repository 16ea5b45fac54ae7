# Profilers from the campaign's profile block: perf stat counters reach the
# scenario's analysis; a profiler missing on the node (nsys here) is said in
# the job log, the run completes, and the analysis says the profile is
# missing; with required: true the rank does not run and the job fails.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
T=$BIN/campaign-trainer
cat >prof.yaml <<Y
campaign: prof
workload: { command: "$T --steps {{steps}} --warmup-steps {{warmup_steps}} --hidden 64 --metrics-dir {{metrics_dir}}" }
profile: { warmup_steps: 2, active_steps: 8, perf: true, nsys: { trace: "cuda,nvtx", capture_range: nvtx } }
scenarios: [{ name: p, nodes: 1, tasks_per_node: 2 }]
Y
PATH=/usr/bin:/bin "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" prof.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check profilers_run_completes [ "$rc" -eq 0 ]
check profilers_wrapper_rendered grep -q "'profile-rank' '--dir' .* '--nsys' '--trace' 'cuda,nvtx' '--capture-range' 'nvtx' '--perf' '--'" "$run/p/job.sbatch"
check nsys_missing_said grep -q "campaign: nsys not found on local1: ranks run without it" "$run"/p/slurm-*.out
check nsys_missing_in_analysis [ "$(json "$run/p/analysis.json" 'j["profile_missing"]')" = "['nsys']" ]
check nsys_missing_in_report grep -q "Profile missing: nsys was asked for" "$run/BOTTLENECK_ANALYSIS.md"
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
	check perf_files [ "$(ls "$run"/p/perf/rank_*.txt | wc -l)" -eq 2 ]
	check perf_counters_in_analysis [ "$(json "$run/p/analysis.json" 'j["perf"]["task-clock"] > 0')" = True ]
	check perf_in_report grep -q "perf stat (summed over 2 ranks): task-clock" "$run/BOTTLENECK_ANALYSIS.md"
else
	skip perf_counters_in_analysis "perf is not installed or cannot count here"
fi
sed -i 's/nsys: { trace: "cuda,nvtx", capture_range: nvtx }/nsys: { required: true }/' prof.yaml
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res2" prof.yaml >out2.txt 2>&1; rc=$?
run=$(rundir out2.txt)
check nsys_required_fails_job [ "$rc" -eq 1 ]
check nsys_required_said grep -q "the campaign requires it, so the rank does not run" "$run"/p/slurm-*.out
check nsys_required_state [ "$(json "$run/summary.json" 'j["scenarios"][0]["state"]')" = FAILED ]
# A workload's own traces: matched by glob (never by a shell), collected into traces/.
cat >traces.yaml <<'Y'
campaign: traces
workload: { command: ["/bin/sh", "-c", "mkdir -p out && echo '{}' > out/rank0.pt.trace.json && echo x > out/other.txt"] }
profile: { traces: ["out/*.pt.trace.json", "$(touch /tmp/never)*"] }
scenarios: [{ name: t, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res3" traces.yaml >out3.txt 2>&1
run=$(rundir out3.txt)
check traces_collected [ -s "$run/t/traces/rank0.pt.trace.json" ]
check traces_only_matches [ ! -e "$run/t/traces/other.txt" ]
check traces_said grep -q "campaign: collected 1 trace file into traces/" "$run"/t/slurm-*.out
check traces_glob_inert [ ! -e /tmp/never ]
