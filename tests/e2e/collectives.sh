# Every collective's latency, wait and bandwidth from traces (issue 23,
# part 1): Kineto traces of our own (tests/tools/coll_traces.py) whose
# collectives are known exactly. NCCL: 4 ranks, kernels carrying PyTorch
# 2.x's args (all-reduce of 4 MiB in process group 0, all-gather of 2 MiB in
# group 1); gloo: 2 ranks, gloo:all_reduce ranges sized by the
# record_param_comms beside them. The DLRM set (../shared) names its
# SendRecv kernels all_to_all from PyTorch's nccl:all_to_all ranges.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/coll_traces.py" nccl "$SCRATCH/nccl"
python3 "$ROOT/tests/tools/coll_traces.py" gloo "$SCRATCH/gloo"
cat >c.yaml <<Y
campaign: coll
workload: { command: ["cp", "-R", "{{campaign_dir}}/{{scenario}}", "prof"] }
profile: { traces: ["prof/*.json"] }
scenarios: [{ name: nccl, nodes: 1 }, { name: gloo, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" c.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
C() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]['collectives']$2"; }
check coll_run_ok [ "$rc" -eq 0 ]
check coll_nccl_rows [ "$(C nccl '[0]["op"]'),$(C nccl '[1]["op"]'),$(C nccl '.__len__()')" = "all_reduce,all_gather,2" ]
check coll_nccl_allreduce_exact [ "$(C nccl '[0]' | python3 -c 'import ast,sys; d=ast.literal_eval(sys.stdin.read()); print(d["bytes"], d["size_class"], d["count_per_step"], d["latency_ms"], d["wait_ms"]["median"], d["algbw_gbps"], d["busbw_gbps"], d["instances"], d["steps"])')" = "4194304.0 4 MiB - 16 MiB 1.0 {'median': 1.0, 'p95': 1.0} 0.75 4.194 6.291 3 3" ]
check coll_nccl_allgather_exact [ "$(C nccl '[1]' | python3 -c 'import ast,sys; d=ast.literal_eval(sys.stdin.read()); print(d["bytes"], d["size_class"], d["latency_ms"]["median"], d["wait_ms"]["p95"], d["algbw_gbps"], d["busbw_gbps"])')" = "2097152.0 1 MiB - 4 MiB 0.5 0.2 4.194 3.146" ]
check coll_gloo_sizes_borrowed [ "$(C gloo '[0]' | python3 -c 'import ast,sys; d=ast.literal_eval(sys.stdin.read()); print(d["op"], d["bytes"], d["latency_ms"]["median"], d["wait_ms"]["median"], d["algbw_gbps"], d["busbw_gbps"])')" = "all_reduce 1048576.0 4.0 1.0 0.262 0.262" ]
check coll_report_table grep -q "^| all_reduce | 4 MiB - 16 MiB (median 4194304 B) | 1.00 | 1.750 | 1.000 / 1.000 | 0.750 / 1.500 | 4.194 | 6.291 |$" "$run/BOTTLENECK_ANALYSIS.md"
check coll_figure_data [ "$(grep -v '^#' "$run/figures/data/collectives.dat" | grep -c .)" -eq 3 ]
check coll_figure_linked grep -q "figures/collectives.svg" "$run/BOTTLENECK_ANALYSIS.md"
if [ -x "$(command -v gnuplot)" ]; then
	check coll_figure_drawn [ -s "$run/figures/collectives.svg" ]
fi

SHARED=$ROOT/../shared/traces/kineto/param_dlrm_8rank
if [ -d "$SHARED" ]; then
	cat >d.yaml <<Y
campaign: dlrm
workload: { command: ["/bin/true"] }
profile: { traces: ["$SHARED/*.json"] }
scenarios: [{ name: eight, nodes: 1 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/dl" d.yaml >d.txt 2>&1
	run=$(rundir d.txt)
	check coll_dlrm_ops [ "$(json "$run/summary.json" '[(c["op"], c["instances"], c["bytes"]) for c in j["scenarios"][0]["collectives"]]')" = "[('all_to_all', 5, None), ('all_reduce', 3, None)]" ]
else
	skip coll_dlrm_ops "../shared/traces is absent (the DLRM trace set)"
fi
