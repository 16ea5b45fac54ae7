# GPU runs judged from the GPU timeline (issue 22): on traces with kernels
# the verdict and the step's shares come from what the GPU did in each step
# (tests/tools/gpu_steps.py: one kind of step per scenario), GPU-side
# ProfilerStep annotations are not steps, and the shared DLRM 8-rank set is
# no longer called compute-bound.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
for k in comm data host gemm annotated copy; do python3 "$ROOT/tests/tools/gpu_steps.py" --kind $k --out "$SCRATCH/gk/$k"; done
cat >g.yaml <<Y
campaign: gpukinds
workload: { command: ["/bin/sh", "-c", "cp $SCRATCH/gk/{{kind}}/*.json ."] }
profile: { warmup_steps: 0, active_steps: 6, traces: ["*.pt.trace.json"] }
scenarios:
  - { name: comm, nodes: 1, tasks_per_node: 2, params: { kind: comm } }
  - { name: data, nodes: 1, tasks_per_node: 2, params: { kind: data } }
  - { name: host, nodes: 1, tasks_per_node: 2, params: { kind: host } }
  - { name: gemm, nodes: 1, tasks_per_node: 2, params: { kind: gemm } }
  - { name: annotated, nodes: 1, tasks_per_node: 2, params: { kind: annotated } }
  - { name: copy, nodes: 1, tasks_per_node: 2, params: { kind: copy } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" g.yaml >g.out 2>&1; rc=$?
run=$(rundir g.out)
check gpu_kinds_complete [ "$rc" -eq 0 ]
S() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]$2"; }
G() { S "$1" "['gpu_shares_pct']['$2']"; }
for want in comm:communication-bound data:data-loader-bound host:host-bound gemm:compute-bound annotated:compute-bound copy:memory-bound; do
	k=${want%%:*}
	check "gpu_${k}_is_${want#*:}" [ "$(S $k '["verdict"]')" = "${want#*:}" ]
	check "gpu_${k}_basis_gpu" [ "$(S $k '["verdict_basis"]')" = gpu ]
	check "gpu_${k}_shares_add_up" python3 -c 'import json, sys
g = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]["gpu_shares_pct"]
t = sum(v for k, v in g.items() if k not in ("window_ms", "rank_steps"))
sys.exit(0 if abs(t - 100) < 0.01 else 1)' "$run/summary.json" "$k"
done
# exact: each step's GPU window is its 10 ms host range (the last step of each rank dropped, as HTA does)
check gpu_comm_exact [ "$(G comm communication),$(G comm compute),$(G comm rank_steps)" = "60.0,30.0,10" ]
check gpu_data_exact [ "$(G data idle_data_loading),$(G data compute)" = "60.0,30.0" ]
check gpu_host_exact [ "$(G host idle_host_wait),$(G host compute)" = "66.0,34.0" ]
check gpu_copy_exact [ "$(G copy memcpy)" = "70.0" ]
check gpu_gemm_exact [ "$(G gemm compute)" = "95.0" ]
check gpu_annotations_not_steps [ "$(S annotated '["active_steps"]'),$(S gemm '["active_steps"]')" = "6,6" ]
check gpu_evidence_quotes_gpu grep -q "^\*\*communication-bound\*\*: on the GPU (its timeline over 10 rank-steps): compute 30.0 %, exposed communication 60.0 % (threshold 20 %)" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_basis_said grep -q "The verdict comes from the GPU timeline" "$run/BOTTLENECK_ANALYSIS.md"

# The shared 8-rank DLRM traces (../shared): not compute-bound any more.
D=$ROOT/../shared/traces/kineto/param_dlrm_8rank
if [ -d "$D" ]; then
	cat >d.yaml <<Y
campaign: dlrm
workload: { command: ["/bin/true"] }
profile: { warmup_steps: 0, active_steps: 1, traces: ["$D/*.json"] }
scenarios: [{ name: d8, nodes: 1, tasks_per_node: 8 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/d" d.yaml >d.out 2>&1
	drun=$(rundir d.out)
	check gpu_dlrm_not_compute_bound [ "$(json "$drun/summary.json" 'j["scenarios"][0]["verdict"] != "compute-bound" and j["scenarios"][0]["verdict_basis"] == "gpu"')" = True ]
	check gpu_dlrm_host_or_comm [ "$(json "$drun/summary.json" 'sorted([j["scenarios"][0]["verdict"], j["scenarios"][0]["runner_up"] or ""])')" = "['communication-bound', 'host-bound']" ]
else
	skip gpu_dlrm "../shared/traces is absent (the shared DLRM traces are not part of the project)"
fi
