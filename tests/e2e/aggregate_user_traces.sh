# Traces a user's job leaves, analysed through the whole pipeline: Kineto
# objects with GPU kernels (the shared 8-rank DLRM set, when ../shared is
# there), gzip-compressed traces, traces without ProfilerStep ranges; the
# timeline and `campaign compare` on trace-based runs.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
SHARED=$ROOT/../shared/traces/kineto/param_dlrm_8rank
gzip -c "$ROOT/tests/fixtures/kineto_steps.pt.trace.json" >rank1.pt.trace.json.gz
python3 - <<'P'
import json
ev = [{"ph": "X", "name": "aten::mm", "ts": 10, "dur": 5, "tid": 1, "pid": 1}]
json.dump({"traceEvents": ev}, open("nosteps.json", "w"))
P
# campaign-analyze on one trace: its steps and where they go, not only the GPU
"$BIN/campaign-analyze" "$ROOT/tests/fixtures/legacy_steps.pt.trace.json" >legacy.txt 2>&1
check analyze_legacy_trace_steps grep -q "^  2 steps, median 2.000 ms: data loading 25.0 %, forward 0.0 %, backward 0.0 %, optimizer 20.0 %, operators outside them 0.0 %, communication 15.0 % exposed (15.0 % in all), I/O 0.0 %, other 40.0 %" legacy.txt
"$BIN/campaign-analyze" --json "$ROOT/tests/fixtures/kineto_steps.pt.trace.json" >k.json
check analyze_kineto_steps_json [ "$(json k.json '(j["ranks"][0]["format"], j["ranks"][0]["active_steps"], j["ranks"][0]["top_operators"][0]["name"])')" = "('kineto', 3, 'aten::mm')" ]
cat >gz.yaml <<Y
campaign: gz
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/rank1.pt.trace.json.gz"] }
scenarios: [{ name: one, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/gz" gz.yaml >gz.txt 2>&1; rc=$?
run=$(rundir gz.txt)
check gz_trace_exit0 [ "$rc" -eq 0 ]
check gz_trace_analysed [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], j["scenarios"][0]["source"], j["scenarios"][0]["active_steps"])')" = "(True, 'PyTorch profiler traces', 3)" ]
check gz_trace_step_time [ "$(json "$run/summary.json" 'j["scenarios"][0]["step_time_ms"]["median"]')" = 1.0 ]
check gz_trace_flops [ "$(json "$run/summary.json" 'j["scenarios"][0]["flops_per_step_per_rank"]')" = 2000000000.0 ]
check gz_trace_gpu_breakdown [ "$(json "$run/summary.json" 'j["scenarios"][0]["gpu_breakdown"]["kernel_time_ms"]')" = 2.3 ]
# one writer for both programs (issue 48): campaign-analyze --json's object of the same trace
# has summary.json's scenario keys, values, rounding and nulls (its replay is the rank's)
"$BIN/campaign-analyze" --json rank1.pt.trace.json.gz >gz.json
check analyze_json_as_summary_json python3 - "$run/summary.json" gz.json <<'P'
import json, sys
s = json.load(open(sys.argv[1]))["scenarios"][0]
a = json.load(open(sys.argv[2]))["ranks"][0]
shared = sorted(k for k in a if k in s and k != "replay")
want = ["active_steps", "allreduce_gbps", "analysed", "batch_from", "compute_split_pct",
        "global_batch", "gpu_breakdown", "overlap_pct", "partial_steps_left_out", "period_steps",
        "shares_pct", "spread_pct", "step_boundaries", "step_estimator", "step_time_ms",
        "step_times_ms", "throughput", "throughput_at_mean_step", "throughput_samples_per_s",
        "throughput_unit", "top_operators"]
differ = [k for k in shared if s[k] != a[k]]
print("keys %s, differ %s" % (shared == want, differ))
sys.exit(0 if shared == want and not differ and a["gpu_breakdown"] and a["shares_pct"] else 1)
P
check gz_timeline_has_kernels [ "$(json "$run/timeline.json" 'sum(e.get("cat") == "kernel" for e in j["traceEvents"])')" = 2 ]
check gz_timeline_has_phases [ "$(json "$run/timeline.json" 'sorted(set(e["name"] for e in j["traceEvents"] if e.get("cat") == "phase"))')" = "['backward', 'communication', 'data_loading', 'forward', 'optimizer']" ]

cat >nosteps.yaml <<Y
campaign: nosteps
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/nosteps.json"] }
scenarios: [{ name: flat, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/ns" nosteps.yaml >ns.txt 2>&1
run=$(rundir ns.txt)
# (issue 33: a CPU trace without steps gives the shares of its whole window, here one 5 us
# operator: all compute, no step statistics, and the report says how to get steps)
check trace_without_steps_window [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], j["scenarios"][0]["step_boundaries"], j["scenarios"][0]["profiled_window_ms"], j["scenarios"][0]["shares_pct"]["compute"], j["scenarios"][0]["step_time_ms"])')" = "(True, False, 0.005, 100.0, None)" ]
check trace_without_steps_says_how grep -q "call prof.step() once per training step inside the torch.profiler context" "$run/BOTTLENECK_ANALYSIS.md"

# Nsight Systems exports (what profile.nsys leaves in nsys/): NVTX ranges named
# step are the steps, the user's phase rule names 'fwd' forward.
python3 "$ROOT/tests/tools/nsys_nvtx_steps.py" rank_0.sqlite
cat >nsys.yaml <<Y
campaign: nsysrun
workload: { command: ["/bin/true"] }
profile: { traces: [] }
analysis: { phase_rules: [{ phase: forward, pattern: '^fwd\$' }] }
scenarios: [{ name: nv, nodes: 1 }]
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/nv" nsys.yaml >nv.txt 2>&1
run=$(rundir nv.txt)
"$CAMPAIGN" watch --plain --results "$SCRATCH/nv" >/dev/null 2>&1
mkdir -p "$run/nv/nsys" && cp rank_0.sqlite "$run/nv/nsys/"
"$CAMPAIGN" aggregate --results "$SCRATCH/nv" "$run" >/dev/null 2>&1
check nsys_source [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], j["scenarios"][0]["source"], j["scenarios"][0]["telemetry_format"])')" = "(True, 'Nsight Systems exports', 'nsys')" ]
check nsys_steps_from_nvtx [ "$(json "$run/summary.json" '(j["scenarios"][0]["active_steps"], j["scenarios"][0]["step_time_ms"]["median"])')" = "(2, 6.25)" ]
check nsys_nvtx_phases_with_user_rule [ "$(json "$run/summary.json" '(j["scenarios"][0]["shares_pct"]["forward"], j["scenarios"][0]["shares_pct"]["backward"])')" = "(32.0, 32.0)" ]
check nsys_timeline [ "$(json "$run/timeline.json" '(sum(e.get("cat") == "kernel" for e in j["traceEvents"]), sorted(set(e["name"] for e in j["traceEvents"] if e.get("cat") == "phase")))')" = "(1, ['backward', 'forward'])" ]
check nsys_gpu_breakdown [ "$(json "$run/summary.json" 'j["scenarios"][0]["gpu_breakdown"]["kernel_time_ms"]')" = 1.0 ]
# ... replayed from the export (its NVTX ranges the host's operations): both steps as measured
check nsys_replayed [ "$(json "$run/summary.json" '[(r["steps"], r["step_ms"], r["measured_ms"], r["error_pct"], x["replay_why"]) for x in j["scenarios"] for r in [x["replay"]]]')" = "[(2, 6.25, 6.25, 0.0, None)]" ]
# ... as `campaign-analyze --json` replays the same export: summary.json's replay object, by its
# writer (issue 48, point 1): the same keys at every level and the same numbers; the changes,
# which only a run's analysis replays, null with why
"$BIN/campaign-analyze" --json rank_0.sqlite >nv.json 2>/dev/null
check nsys_analyze_replay_is_summary python3 - nv.json "$run/summary.json" "$ROOT/tests/tools" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from key_paths import key_paths as keys  # noqa: E402
a = json.load(open(sys.argv[1]))["replay"]
s = json.load(open(sys.argv[2]))["scenarios"][0]["replay"]
changes = ("communication", "io", "data_loading", "straggler", "host", "batch")
# (the cores a host has, and the compute's waiting for them, are a run's: on trace files each
# host has a core per thread, and no phases; null there)
same = lambda o: {k: v for k, v in o.items() if k not in changes + ("cores", "hosts", "compute_core_wait_pct")}
ok = {k for k in keys(a) if k.split("/")[0] not in changes} == {k for k in keys(s) if k.split("/")[0] not in changes}
ok = ok and set(a) == set(s) and same(a) == same(s)
ok = ok and all(a[c]["step_ms"] is None and a[c]["why"].startswith("not predicted: campaign-analyze on trace files") for c in changes)
ok = ok and a["compute_core_wait_pct"] is None
if not ok:
    print("  ", sorted(keys(a) ^ keys(s)), same(a), same(s))
sys.exit(0 if ok else 1)
PY

if [ ! -d "$SHARED" ]; then
	skip user_traces_dlrm "../shared/traces is absent (the shared DLRM traces are not part of the project)"
	exit 0
fi
cat >dlrm.yaml <<Y
campaign: dlrm
workload: { command: ["/bin/true"] }
profile: { traces: ["$SHARED/*.json"] }
analysis: { batch_per_rank: 64 }
scenarios: [{ name: gpu-2n, nodes: 2, tasks_per_node: 4, gpus_per_node: 4, backend: nccl }]
Y
for r in a b; do
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/dl$r" dlrm.yaml >dl$r.txt 2>&1
done
run=$(rundir dla.txt); runb=$(rundir dlb.txt)
check dlrm_analysed [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], j["scenarios"][0]["source"])')" = "(True, 'PyTorch profiler traces')" ]
check dlrm_eight_ranks [ "$(json "$run/summary.json" 'len(j["scenarios"][0]["median_step"]["ranks"])')" = 8 ]
check dlrm_phases_from_kineto_operators [ "$(json "$run/summary.json" 'all(j["scenarios"][0]["shares_pct"][k] > 0 for k in ("data_loading", "forward", "backward", "optimizer", "communication_total"))')" = True ]
check dlrm_gpu_breakdown [ "$(json "$run/summary.json" 'round(j["scenarios"][0]["gpu_breakdown"]["idle_pct"]) > 0 and j["scenarios"][0]["gpu_breakdown"]["top_kernels"][0]["name"].startswith("ncclKernel_SendRecv")')" = True ]
check dlrm_no_profiler_envelope_in_operators [ "$(json "$run/summary.json" 'any(o["name"].startswith("PyTorch Profiler") for o in j["scenarios"][0]["top_operators"])')" = False ]
"$CAMPAIGN" compare --json --results "$SCRATCH" "$run" "$runb" >cmp.json; rc=$?
check dlrm_compare_trace_runs [ "$rc" -eq 0 ]
check dlrm_compare_same_median [ "$(json cmp.json 'j["scenarios"]["gpu-2n"]["metrics"]["median step (ms)"]["ratio"]')" = 1.0 ]
# replayed with their GPU work (issue 47; every rank on this machine, the local executor's one
# host, its cores shared: not where the traces were made, so the error is printed, not bounded
# here: tests/e2e/gpu_replay.sh bounds the traces' own), and the host-bound step's
# recommendation a replay of the launch overhead halved: below the measured step, above the
# ceiling (the GPU's idle time taken off: the kernels' own time stays)
echo "      dlrm run replay: $(json "$run/summary.json" '(j["scenarios"][0]["replay"]["step_ms"], j["scenarios"][0]["replay"]["error_pct"])'); launch overhead halved: $(json "$run/summary.json" '[(r["step_ms"][0], r["predicted_step_ms"][0], r["ceiling_step_ms"][0]) for r in j["recommendations"]]')"
check dlrm_replayed [ "$(json "$run/summary.json" '(j["scenarios"][0]["replay"] is not None, j["scenarios"][0]["replay_why"], j["scenarios"][0]["verdict"])')" = "(True, None, 'host-bound')" ]
# the batch doubled, a recommendation of its own beside it, from one replayed step: the step,
# and no rate claimed
check dlrm_batch_no_rate_claimed bash -c 'grep -q "Median step replayed with the batch per rank doubled (per-sample work twice as long, the rest as measured; larger matrix products often do better per sample, which the run cannot tell: where it timed its GEMMs, the interval reaches the replay with them as long as they were, else this may understate the gain; the run.s own graph, on its cores): 19.90 ms a step -> [0-9.]* ms a step for twice the samples (as long: the host.s launches, as many for twice the samples, bound the step, and the kernels of twice the samples still run within them: the GPU idles less) (1 step replayed: too few for an interval, a rate to claim or a rank among the recommendations)" "$1" && ! grep -q "x the samples/s" "$1"' _ "$run/BOTTLENECK_ANALYSIS.md"
# (beside a host recommendation, the overlap it says is the host's, not the all-reduce's)
check dlrm_batch_overlaps_host bash -c 'grep -q "^[0-9]*\. \*\*gpu-2n\*\*: memory permitting, double the batch per rank: .*\. With the host change too, the two gains overlap (the same per-step host work) and do not add\. Median step replayed" "$1" && ! grep -q "With a communication change too" "$1"' _ "$run/BOTTLENECK_ANALYSIS.md"
# the GPU's exposed communication is mostly ranks waiting inside the collectives: the transfers
# (each instance's shortest duration added up, summary.json's rows' transfer_ms_per_step: 0.217
# ms a rank-step, as a helper recounted from the traces' NCCL kernels) against the ranks' time
# in them, said beside the shares
tw=$(json "$run/summary.json" '"%.2f of %.2f ms a step (%.0f %%)" % (lambda r: (sum(x["transfer_ms_per_step"] for x in r), sum(x["ms_per_step_summed"] for x in r), 100 * sum(x["transfer_ms_per_step"] for x in r) / sum(x["ms_per_step_summed"] for x in r)))(j["scenarios"][0]["collectives"])')
check dlrm_transfer_recounted [ "$(json "$run/summary.json" '"%.3f" % sum(x["transfer_ms_per_step"] for x in j["scenarios"][0]["collectives"])')" = 0.217 ]
check dlrm_comm_mostly_waiting grep -qF "of the ranks' time in collectives, $tw is the transfers themselves" "$run/BOTTLENECK_ANALYSIS.md"
# one profiled step: said as one, not as a median with a spread; two predictions of one
# replayed step each: their order is not a ranking; the kernels' share is of the kernel time
check dlrm_one_step_said grep -q "^One active step: its time was 19.90 ms; one step has no spread, p95 or interval to give" "$run/BOTTLENECK_ANALYSIS.md"
check dlrm_one_step_summary grep -q "^- \*\*gpu-2n\*\* (2 nodes, 8 ranks, nccl): .*\. One active step, 19.90 ms, " "$run/BOTTLENECK_ANALYSIS.md"
check dlrm_not_ranked grep -q "^None of these predictions has an interval to rank by" "$run/BOTTLENECK_ANALYSIS.md"
check dlrm_kernel_share_of grep -q "Top kernels (Share: of the 57.58 ms of kernel, copy and memset time summed over ranks):" "$run/BOTTLENECK_ANALYSIS.md"
check dlrm_batch_json_no_rate [ "$(json "$run/summary.json" '("throughput_x" in j["scenarios"][0]["replay"]["batch"], j["scenarios"][0]["replay"]["batch"]["step_ms"] is not None)')" = "(False, True)" ]
check dlrm_host_replayed [ "$(json "$run/summary.json" 'sorted((r["kind"], r["basis"], r["kind"] == "batch" or r["ceiling_step_ms"][0] < r["predicted_step_ms"][0] < r["step_ms"][0]) for r in j["recommendations"])')" = "[('batch', 'replay', True), ('host', 'replay', True)]" ]
check dlrm_host_replay_said grep -q "Median step replayed with the launch overhead halved (the run's own graph, its kernels on their streams, on its cores): 19.90 -> [0-9.]* ms ([-+][0-9.]* %; 1 step replayed: too few for an interval or a rank among the recommendations), the host's work up to each kernel's launch" "$run/BOTTLENECK_ANALYSIS.md"
