# The replay of traces with GPU work (issue 47): campaign-analyze --json replays the files'
# execution graph unchanged (kernels on their streams after their launches, the host's
# synchronisations as waits) and sets its median step against the measured one, per rank and
# for all. The measured medians are recounted from the raw files (tests/tools/step_ranges.py:
# each file's ProfilerStep#N durations); the replay error is held to issue 47's 10 % on the
# shared GPU traces (../shared/traces, when present) and printed.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
S=$ROOT/../shared/traces
# replay_checks NAME FILE...: campaign-analyze --json FILE... into NAME.json, and its checks
replay_checks() {
	local name=$1
	shift
	"$BIN/campaign-analyze" --json "$@" >"$name.json" 2>"$name.err"
	check "gpu_replay_${name}_exit0" [ $? -eq 0 ]
	python3 "$ROOT/tests/tools/step_ranges.py" "$@" >"$name.recount.json"
	python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["ranks"]:
    x = r["replay"]
    print("      %s rank %d: replayed %.3f ms, measured %.3f ms, error %+.2f %%" % (sys.argv[2], x["rank"], x["step_ms"], x["measured_ms"], x["error_pct"]))' "$name.json" "$name"
	# per rank, in the files' order: its steps and measured median as the recount has them
	check "gpu_replay_${name}_measured_recounted" [ "$(json "$name.json" '[(r["replay"]["steps"], round(r["replay"]["measured_ms"], 3)) for r in j["ranks"]]')" = "$(json "$name.recount.json" '[(f["steps"], round(f["median_ms"], 3)) for f in j]')" ]
	check "gpu_replay_${name}_within_10pct" [ "$(json "$name.json" 'all(abs(r["replay"]["error_pct"]) <= 10 for r in j["ranks"]) and abs(j["replay"]["error_pct"]) <= 10 and j["replay_why"] is None')" = True ]
}
# the committed fixture (two steps of 100 µs, kernels and their launches): replayed exactly
replay_checks mini "$ROOT/tests/fixtures/mini.pt.trace.json"
check gpu_replay_mini_exact [ "$(json mini.json '(j["replay"]["steps"], round(j["replay"]["error_pct"], 6))')" = "(2, 0.0)" ]
# ranks: each file's own (distributedInfo) where every file has one and they differ, else the
# files' positions: one file without its rank beside one of rank 0 gives ranks 0 and 1, not 0 twice
sed 's/"distributedInfo": {[^}]*}, *//' "$ROOT/tests/fixtures/mini.pt.trace.json" >norank.json
sed 's/"rank": 3,/"rank": 0,/' "$ROOT/tests/fixtures/mini.pt.trace.json" >rank0.json
"$BIN/campaign-analyze" --json norank.json rank0.json >ranks.json 2>&1
check gpu_replay_ranks_by_position [ "$(json ranks.json '[r["replay"]["rank"] for r in j["ranks"]]')" = "[0, 1]" ]
"$BIN/campaign-analyze" "$ROOT/tests/fixtures/mini.pt.trace.json" >mini.txt 2>&1
check gpu_replay_text_line grep -qx "replay (the execution graph of every file, unchanged): median step 0.100 ms, measured 0.100 ms (+0.0 %) over 2 steps" mini.txt
# an Nsight Systems export of two ranks (tests/fixtures/nsys_steps.sql: three steps of 100 µs,
# NVTX ranges ProfilerStep#N, launches and a synchronisation among the runtime calls of each
# process's thread, an NCCL all-reduce that rank 0 waits for): replayed exactly, per process
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[2]); c.executescript(open(sys.argv[1]).read()); c.commit()' \
	"$ROOT/tests/fixtures/nsys_steps.sql" steps.sqlite
replay_checks nsys_steps steps.sqlite
check gpu_replay_nsys_steps_exact [ "$(json nsys_steps.json '[(r["process"], r["replay"]["rank"], r["replay"]["steps"], round(r["replay"]["step_ms"], 6), round(r["replay"]["error_pct"], 6)) for r in j["ranks"]]')" = "[('pid100_dev0', 0, 3, 0.1, -0.0), ('pid101_dev1', 1, 3, 0.1, -0.0)]" ]
# a real 2-rank DDP run whose traces end in the profiler's partial step (tests/fixtures/ddp_gloo:
# 0.008 ms tails): each file's steps and the replay's leave it out alike
"$BIN/campaign-analyze" --json "$ROOT"/tests/fixtures/ddp_gloo/rank*.pt.trace.json.gz >ddp.json 2>ddp.err
check gpu_replay_partial_step_left_out [ "$(json ddp.json '[(r["partial_steps_left_out"], r["active_steps"], r["replay"]["steps"]) for r in j["ranks"]]')" = "[(1, 4, 4), (1, 4, 4)]" ]
if [ ! -d "$S" ]; then
	skip gpu_replay_shared "../shared/traces is absent (the shared GPU traces are not part of the project)"
	exit 0
fi
# the 8-rank DLRM step (8x V100, NCCL all-to-all and all-reduce on streams of their own)
replay_checks dlrm "$S"/kineto/param_dlrm_8rank/*.json
check gpu_replay_dlrm_eight [ "$(json dlrm.json '(len(j["ranks"]), sorted(r["replay"]["rank"] for r in j["ranks"]))')" = "(8, [0, 1, 2, 3, 4, 5, 6, 7])" ]
# HTA's 2-GPU NCCL trace (rank 0, float ns timestamps, 3 steps)
replay_checks nccl "$S"/kineto/hta_nccl_data/nccl_data.json
# a ROCm trace (MI250: hipLaunchKernel, hipExtModuleLaunchKernel, hipMemcpyWithStream)
replay_checks mi250 "$S"/kineto/hta_edge_cases/mi250_minitoy_train_ROCm6_2_kineto.json
# an Nsight Systems export among the files: no replay, and why
"$BIN/campaign-analyze" --json "$S"/nsys/mfu_2gpu_before.sqlite >nsys.json 2>&1
# (its NVTX ranges mark no step: no replay, and what to do)
check gpu_replay_nsys_why [ "$(json nsys.json '(j["replay"], j["replay_why"])')" = "(None, \"no graph could be built (replay: rank 0's trace has no step range: mark each step with a range named ProfilerStep#N (torch.profiler's schedule writes them; under Nsight Systems, an NVTX range of that name))\")" ]
