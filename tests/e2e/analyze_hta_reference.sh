# campaign-analyze on real profiler traces (../shared/traces, when present):
# on every rank, idle, compute, non-compute and overlap percentages within
# 0.1 percentage point of the HTA reference, and the top kernel of each type
# by name and total; the CPU-only and ROCm traces give a clear result.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
S=$ROOT/../shared/traces
if [ ! -d "$S/kineto" ]; then
	skip shared_traces "../shared/traces is absent (only the project's workspace has it)"
	exit 0
fi
cd "$SCRATCH"
compare() { # name, reference set, trace files...
	local name=$1 ref=$2
	shift 2
	"$BIN/campaign-analyze" --json --top 1000 "$@" >"$name.json" 2>"$name.err"
	python3 "$ROOT/tests/tools/hta_compare.py" "$name.json" "$S/reference/$ref/indep_metrics.json" "$name"
}
compare dlrm param_dlrm_8rank "$S"/kineto/param_dlrm_8rank/worker*.json
compare nccl hta_nccl_data "$S"/kineto/hta_nccl_data/nccl_data.json
compare nsys_before nsys_mfu_2gpu_before "$S"/nsys/mfu_2gpu_before.sqlite
compare nsys_after nsys_mfu_2gpu_after "$S"/nsys/mfu_2gpu_after.sqlite
# NVTX ranges summed per name, as nsys's nvtx_sum report (top 10, whole file)
for f in before after; do
	check "nsys_${f}_nvtx_top10" python3 -c '
import json, sys
mine = list(json.load(open(sys.argv[1]))["nvtx_top"].values())[0]
ref = json.load(open(sys.argv[2]))["_nsys_stats"]["nvtx_sum_top10"]
sys.exit(0 if [(m["range"], m["total_ns"], m["instances"]) for m in mine] == [(r["range"], r["total_ns"], r["instances"]) for r in ref] else 1)' \
		"nsys_$f.json" "$S/reference/nsys_mfu_2gpu_$f/indep_metrics.json"
done
# kernel launches on DLRM rank 0 (HTA's cuda_kernel_launch_stats joined as its summary)
check dlrm_rank0_launch_stats python3 -c '
import csv, json, sys
r = json.load(open("dlrm.json"))["ranks"][0]["gpu_breakdown_detail"]["launch"]
ref = next(csv.DictReader(open(sys.argv[1])))
ok = r["n"] == int(ref["n"]) and abs(r["cpu_duration_mean_us"] - float(ref["cpu_duration_mean_us"])) < 1e-6 \
    and abs(r["gpu_duration_mean_us"] - float(ref["gpu_duration_mean_us"])) < 1e-6 \
    and r["launch_delay_p50_us"] == float(ref["launch_delay_p50_us"]) and r["gpu_shorter_than_cpu"] == int(ref["n_gpu_shorter_than_cpu"]) \
    and r["runtime_outliers_gt50us"] == int(ref["n_runtime_outliers_gt50us"]) and r["launch_delay_outliers_gt100us"] == int(ref["n_launch_delay_outliers_gt100us"])
sys.exit(0 if ok else 1)' "$S/reference/param_dlrm_8rank/cuda_kernel_launch_stats_summary.csv"
compare rocm hta_edge_amd_mi250 "$S"/kineto/hta_edge_cases/mi250_minitoy_train_ROCm6_2_kineto.json
"$BIN/campaign-analyze" "$S"/kineto/hta_edge_cases/rank-34.cpu_only.pt.trace.json >cpu.txt 2>&1; rc=$?
check cpu_only_trace_clear_result [ "$rc" -eq 0 ]
check cpu_only_trace_says_no_gpu grep -q "no GPU activity in this trace (CPU-only)" cpu.txt
check cpu_only_rank_from_trace grep -q "(rank 34)" cpu.txt
