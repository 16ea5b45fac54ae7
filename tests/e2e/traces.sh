# campaign-analyze on real profiler traces (../shared/traces, when present):
# on every rank, idle, compute, non-compute and overlap percentages within
# 0.1 percentage point of the HTA reference, and the top kernel of each type
# by name and total; the CPU-only and ROCm traces give a clear result.
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
	python3 - "$name.json" "$S/reference/$ref/indep_metrics.json" "$name" <<'PY'
import json, sys
mine = json.load(open(sys.argv[1]))["ranks"]
ref = json.load(open(sys.argv[2]))
name = sys.argv[3]
keys = {"idle_pct": "idle_pct", "compute_pct": "compute_pct", "non_compute_pct": "non_compute_pct",
        "comm_comp_overlap_pct": "comp_comm_overlap_pct"}
for i, r in enumerate(mine):
    rk = str(r["rank"]) if r["rank"] is not None else str(i)
    want = ref.get(rk) or ref[list(ref)[i]]
    for k, rkey in keys.items():
        ok = (r[k] is None and want.get(rkey) is None) or (r[k] is not None and want.get(rkey) is not None and abs(r[k] - want[rkey]) <= 0.1)
        print("%s %s_rank%s_%s %s=%s ref=%s" % ("PASS" if ok else "FAIL", name, rk, k, k, r[k], want.get(rkey)))
    for cat, tops in (want.get("top_kernels") or {}).items():
        if not tops:
            continue
        best = max(tops, key=lambda t: t["sum"])
        mk = [t for t in r["top_kernels"] if t["category"] == cat]
        ok = bool(mk) and mk[0]["name"] == best["name"] and abs(mk[0]["total_us"] - best["sum"]) < 1e-6
        print("%s %s_rank%s_top_%s %s" % ("PASS" if ok else "FAIL", name, rk, cat, (mk[0]["name"][:40], mk[0]["total_us"], best["sum"]) if mk else "none"))
PY
}
compare dlrm param_dlrm_8rank "$S"/kineto/param_dlrm_8rank/worker*.json
compare nccl hta_nccl_data "$S"/kineto/hta_nccl_data/nccl_data.json
compare rocm hta_edge_amd_mi250 "$S"/kineto/hta_edge_cases/mi250_minitoy_train_ROCm6_2_kineto.json
"$BIN/campaign-analyze" "$S"/kineto/hta_edge_cases/rank-34.cpu_only.pt.trace.json >cpu.txt 2>&1; rc=$?
check cpu_only_trace_clear_result [ "$rc" -eq 0 ]
check cpu_only_trace_says_no_gpu grep -q "no GPU activity in this trace (CPU-only)" cpu.txt
check cpu_only_rank_from_trace grep -q "(rank 34)" cpu.txt
