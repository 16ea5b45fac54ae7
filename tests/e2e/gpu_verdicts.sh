# GPU runs judged from the GPU timeline (issues 22, 33): on traces with
# kernels the verdict and the step's shares come from what the GPU did over
# partitioned windows (a step's window begins where the previous step's GPU
# work ended; tests/tools/gpu_steps.py: one kind of step per scenario), the
# verdict is the largest share, GPU-side ProfilerStep annotations are not
# steps; a deep launch queue is timed by the GPU's period.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/gpu_steps.py" --kind comm,commwait,data,host,gemm,annotated,copy,elementwise,deepqueue,hostgap --out "$SCRATCH/gk"
cat >g.yaml <<Y
campaign: gpukinds
workload: { command: ["/bin/sh", "-c", "if [ \"\$RANK\" = 0 ]; then cp $SCRATCH/gk/{{kind}}/*.json .; fi"] }
profile: { warmup_steps: 0, active_steps: 6, traces: ["*.pt.trace.json"] }
scenarios:
  - { name: comm, nodes: 1, tasks_per_node: 2, params: { kind: comm } }
  - { name: commwait, nodes: 1, tasks_per_node: 2, params: { kind: commwait } }
  - { name: data, nodes: 1, tasks_per_node: 2, params: { kind: data } }
  - { name: host, nodes: 1, tasks_per_node: 2, params: { kind: host } }
  - { name: gemm, nodes: 1, tasks_per_node: 2, params: { kind: gemm } }
  - { name: annotated, nodes: 1, tasks_per_node: 2, params: { kind: annotated } }
  - { name: copy, nodes: 1, tasks_per_node: 2, params: { kind: copy } }
  - { name: elementwise, nodes: 1, tasks_per_node: 2, params: { kind: elementwise } }
  - { name: deepqueue, nodes: 1, tasks_per_node: 2, params: { kind: deepqueue } }
  - { name: hostgap, nodes: 1, tasks_per_node: 2, params: { kind: hostgap } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" g.yaml >g.out 2>&1; rc=$?
run=$(rundir g.out)
check gpu_kinds_complete [ "$rc" -eq 0 ]
# a copy-bound GPU row's copies are in its Other column: the table's note says so
check gpu_table_note_names_copies grep -q "other: the rest: exposed host-device copies, other kernels and the GPU waiting for the host)" "$run/BOTTLENECK_ANALYSIS.md"
# HTA's kernel time is a span with the idle in it, not the kernels' sum (the table below it):
# comm's two ranks span 98.10 ms from first kernel start to last end, of which 90 ms are kernels
check gpu_kernel_time_is_a_span grep -q "non-compute 61.2 % of 98.10 ms of GPU time (HTA's \"kernel time\": from each rank's first kernel start to its last kernel end, idle included, summed over ranks; not the kernels' own time)" "$run/BOTTLENECK_ANALYSIS.md"
S() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]$2"; }
G() { S "$1" "['gpu_shares_pct']['$2']"; }
for want in comm:communication-bound commwait:communication-bound data:data-loader-bound host:host-bound gemm:compute-bound annotated:compute-bound copy:copy-bound elementwise:memory-bound deepqueue:communication-bound hostgap:host-bound; do
	k=${want%%:*}
	check "gpu_${k}_is_${want#*:}" [ "$(S $k '["verdict"]')" = "${want#*:}" ]
	check "gpu_${k}_basis_gpu" [ "$(S $k '["verdict_basis"]')" = gpu ]
	check "gpu_${k}_shares_add_up" [ "$(json "$run/summary.json" "(lambda g: abs(sum(v for n, v in g.items() if n not in ('window_ms', 'rank_steps', 'peer_wait')) - 100) < 0.01)([x for x in j['scenarios'] if x['name'] == '$k'][0]['gpu_shares_pct'])")" = True ]
done
# exact, by hand from gpu_steps.py (the last step of each rank dropped, as HTA does): windows
# are cut one after another from the first kernel, so comm's first window is 9.05 ms (its
# first kernel at +50 us, its last end at +9.1 ms) and the next four 10 ms: 49.05 ms a rank;
# communication 5 x 6 ms = 61.2 %, compute 5 x 3 ms = 30.6 %, the 950 us before each later
# GEMM waiting for the host 7.7 %, the 50 us between GEMM and all-reduce other 0.5 %
check gpu_comm_exact [ "$(G comm communication),$(G comm compute),$(G comm idle_host_wait),$(G comm idle_other),$(G comm window_ms),$(G comm rank_steps)" = "61.162,30.581,7.747,0.51,98.1,10" ]
# commwait, by hand: the windows as comm's (98.10 ms); a step's all-reduce is rank 0's 6 ms
# and rank 1's 4 ms (it arrived 2 ms later; they end together): 5 x 10 ms of communication =
# 50.968 %, of which rank 0's 2 ms a step beyond rank 1's, 10 ms, is waiting (10.194 %) and
# the rest the transfer (40.775 %, the Comm column); compute 5 x (3 + 5) ms = 40.775 %
check gpu_commwait_exact [ "$(G commwait communication),$(G commwait peer_wait),$(G commwait compute)" = "50.968,10.194,40.775" ]
check gpu_comm_no_wait [ "$(G comm peer_wait)" = 0.0 ]
check gpu_commwait_row grep -q "^| commwait | 1 | 2 | COMPLETED | 10.00 | 10.00 (rough) | 100 steps/s | 0.0 | 40.8 | 40.8 | 10.2 | – | 8.3 | communication-bound (GPU) |$" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_commwait_split_said grep -q "^\*\*communication-bound\*\*: exposed communication takes 51.0 % of the GPU's time, the largest share: 40.8 % its transfer at most (the Comm column: each collective instance's least time over its ranks, as if all of it were exposed) and 10.2 % the ranks waiting inside it for the last to arrive" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_commwait_summary_line grep -q "^- \*\*commwait\*\* (1 node, 2 ranks, [a-z]*): \*\*communication-bound\*\*: exposed communication's transfer 40.8 % of the GPU's time, and 10.2 % waiting for peers (51.0 % in all)" "$run/BOTTLENECK_ANALYSIS.md"
# data: 3 ms, then 4 x 10 ms a rank; in each later window 7 ms idle, 6 of them loading data
check gpu_data_exact [ "$(G data idle_data_loading),$(G data idle_host_wait),$(G data compute)" = "55.814,9.302,34.884" ]
check gpu_host_exact [ "$(G host idle_host_wait),$(G host compute)" = "65.432,34.568" ]
# doubling the batch of a host-bound step leaves it as long, and the advice says why
check gpu_host_batch_as_long grep -q "^[0-9]*\. \*\*host\*\*: memory permitting, double the batch per rank: .*: 10\.00 ms a step -> 10\.00 ms a step for twice the samples (as long: the host's launches, as many for twice the samples, bound the step" "$run/BOTTLENECK_ANALYSIS.md"
# every bar of this run is a share of GPU time: the breakdown figure says so
check gpu_breakdown_ylabel grep -qx "set ylabel 'percent of GPU time (all ranks)'" "$run/figures/breakdown.gp"
# the ranks' collectives here are all transfer (both ranks alike): no waiting inside them said
check gpu_comm_no_waits_said [ "$(sed -n '/^### comm$/,/^### commwait$/p' "$run/BOTTLENECK_ANALYSIS.md" | grep -c "of the ranks' time in collectives")" = 0 ]
# commwait's collectives: 4 of the ranks' 5 ms a step is the transfer (rank 1's, the last)
check gpu_commwait_waits_said grep -q "of the ranks' time in collectives, 4.00 of 5.00 ms a step (80 %) is the transfers themselves" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_copy_exact [ "$(G copy memcpy)" = "71.356" ]
check gpu_gemm_exact [ "$(G gemm compute)" = "95.96" ]
check gpu_compute_split [ "$(S gemm '["gpu_compute_split_pct"]["matrix"]'),$(S elementwise '["gpu_compute_split_pct"]["elementwise"]')" = "95.96,95.96" ]
check gpu_elementwise_said grep -q "elementwise-like kernels (96.0 % of the step) outweigh matrix kernels (0.0 %): the GPU is bound by memory bandwidth" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_annotations_not_steps [ "$(S annotated '["active_steps"]'),$(S gemm '["active_steps"]')" = "6,6" ]
check gpu_evidence_quotes_gpu grep -q "^\*\*communication-bound\*\*: exposed communication takes 61.2 % of the GPU's time, the largest share (on the GPU (its timeline over 10 rank-steps, 98.10 ms): compute 30.6 %, exposed communication 61.2 %" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_basis_said grep -q "The verdict comes from the GPU timeline" "$run/BOTTLENECK_ANALYSIS.md"
# the paper's scenarios table gives a GPU row's shares as the report's table does (not the
# host's), its verdict marked (GPU), and n/a for samples/s where no batch is known
"$CAMPAIGN" paper --results "$SCRATCH/res" "$(basename "$run")" >paper.out 2>&1
# (a series of one, as deepqueue's, has no row in the paper's scaling table either)
check gpu_paper_no_lone_baseline [ "$(grep -c '^| deepqueue |' "$run/paper/tables/scaling.md")" = 0 ]
check gpu_paper_row_as_report grep -qxF "| comm | 1 | 2 | COMPLETED | 10.00 | 10.00 (rough) | n/a | 0.0 | 30.6 | 61.2 | 0.0 | - | 8.3 | communication-bound (GPU) |" "$run/paper/tables/scenarios.md"
# (the report's "none" is an en dash, the paper's a hyphen: LaTeX and CSV readers take it)
check gpu_paper_report_rows_agree bash -c 'diff <(grep "^| comm |" "$1/BOTTLENECK_ANALYSIS.md" | head -n 1 | cut -d"|" -f 9-14 | sed "s/–/-/g") <(grep "^| comm |" "$1/paper/tables/scenarios.md" | cut -d"|" -f 9-14)' _ "$run"
# A deep launch queue (the host 16 ms a step, the GPU 23 ms): busy throughout, the windows
# add up to the region (2 ranks x 5 x 23 ms from the first kernel), exposed communication
# 15 of 23 ms; the step time is the GPU's period, the host 35.05 ms ahead at the end; hiding
# the all-reduce is predicted down to the host's own 16 ms step (-30.4 %), not to 8 ms.
check gpu_deepqueue_region [ "$(G deepqueue window_ms),$(G deepqueue communication),$(G deepqueue compute),$(G deepqueue idle_host_wait)" = "230.0,65.217,34.783,0.0" ]
check gpu_deepqueue_gpu_period [ "$(S deepqueue '["step_time_ms"]["median"]'),$(S deepqueue '["gpu_limits"]["gpu_is_the_limit"]'),$(S deepqueue '["gpu_limits"]["host_step_ms"]'),$(S deepqueue '["gpu_limits"]["host_ahead_ms"]')" = "23.0,True,16.0,35.05" ]
check gpu_deepqueue_said grep -q "the host runs ahead of the GPU by 35.0 ms at the end of the profiled steps and the GPU is the limit, so the step time is the GPU's period" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_deepqueue_predicted [ "$(json "$run/summary.json" '[(r["kind"], r["predicted_step_ms"], r["predicted_gain_pct"], r["basis"], r["ceiling_from"]) for r in j["recommendations"] if r["scenarios"] == ["deepqueue"]]')" = "[('communication', [16.0], [30.435], 'ceiling', 'GPU windows')]" ]
# The GPU idle between steps while the host works (30 ms steps, 10 ms of GPU work): host-bound
check gpu_hostgap_exact [ "$(G hostgap idle_host_wait),$(G hostgap compute),$(G hostgap communication),$(S hostgap '["step_time_ms"]["median"]'),$(S hostgap '["gpu_limits"]["gpu_is_the_limit"]')" = "61.538,23.077,15.385,30.0,False" ]
check gpu_flags_beside [ "$(json "$run/summary.json" '[[f["kind"] for f in x["flags"]] for x in j["scenarios"] if x["name"] in ("hostgap", "data")]')" = "[['data_loading', 'gpu_idle'], ['gpu_idle']]" ]
# the table's row of a GPU-basis scenario gives the GPU's shares, adding up to 100 %
check gpu_table_row grep -q "^| deepqueue | 1 | 2 | COMPLETED | 23.00 | 23.00 (rough) | 43.5 steps/s | 0.0 | 34.8 | 65.2 | 0.0 | – | 0.0 | communication-bound (GPU) |$" "$run/BOTTLENECK_ANALYSIS.md"
# ... and report.txt the same shares, named for their basis, every one the table has
check gpu_report_txt_shares [ "$(tail -n 2 "$run/deepqueue/report.txt")" = "median step 23.00 ms, p95 23.00 ms (rough: fewer than 20 steps), 43.5 steps/s
shares of the GPU's time: data 0.0 %, compute 34.8 %, communication 65.2 %, waiting for peers 0.0 %, other 0.0 % (data: the GPU idle while the host loaded data; other: exposed copies, other kernels and the GPU waiting for the host)" ]
# a series of one scenario has no scaling table (a row of 1.00x says nothing): named once
check gpu_series_alone grep -q "^\(A series\|Series\) of one scenario.*, with nothing to scale against: .*\*\*deepqueue\*\* (1 node, 2 ranks)" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_series_no_row [ "$(grep -c '^| deepqueue | 1 | 2 | unknown |' "$run/BOTTLENECK_ANALYSIS.md")" = 0 ]

# Series on the GPU timeline: the sentence under the table moves the GPU's shares; a series
# whose widest scenario is judged on the host's step (CPU traces) does not compare them.
python3 "$ROOT/tests/tools/cpu_steps.py" --out "$SCRATCH/cpu"
cat >s.yaml <<Y
campaign: gpuseries
workload: { command: ["/bin/sh", "-c", "if [ \"\$RANK\" = 0 ]; then if [ {{set}} = mixed ] && [ \"\$SLURM_NNODES\" = 2 ]; then cp $SCRATCH/cpu/*.json .; else cp $SCRATCH/gk/comm/*.json .; fi; fi"] }
profile: { warmup_steps: 0, active_steps: 6, traces: ["*.pt.trace.json"] }
analysis: { scaling: weak }
scenarios:
  - { name: g1, nodes: 1, tasks_per_node: 2, params: { set: gpu } }
  - { name: g2, nodes: 2, tasks_per_node: 2, params: { set: gpu } }
  - { name: m1, nodes: 1, tasks_per_node: 2, params: { set: mixed } }
  - { name: m2, nodes: 2, tasks_per_node: 2, params: { set: mixed } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/s" s.yaml >s.out 2>&1
srun=$(rundir s.out)
check gpu_series_moves_gpu_shares grep -q "^From 2 to 4 ranks, exposed communication moves from 61.2 % to 61.2 % of the GPU's time, waiting for peers from 0.0 % to 0.0 %, compute from 30.6 % to 30.6 % and the GPU idle while the host loaded data from 0.0 % to 0.0 %; parallel efficiency at 4 ranks is [0-9]* % ([^)]*).$" "$srun/BOTTLENECK_ANALYSIS.md"
check gpu_series_mixed_not_compared grep -q "^From 2 to 4 ranks parallel efficiency is [0-9]* % ([^)]*); the shares are not compared: m1's are of the GPU's time, m2's of the host's step (the table's last column).$" "$srun/BOTTLENECK_ANALYSIS.md"
# its paper: samples/s n/a without a batch (not 0), the speedup the step rates' ratio x 2
"$CAMPAIGN" paper --results "$SCRATCH/s" "$(basename "$srun")" >spaper.out 2>&1
check gpu_paper_scaling_no_batch grep -qxF "| g2 | 2 | 4 | n/a | 2.00 | 2.00-2.00 | 100 | 100-100 | g1 |" "$srun/paper/tables/scaling.md"
check gpu_series_mixed_rows [ "$(grep -c "^| m[12] | .* | \(the GPU's time\|the host's step\) |$" "$srun/BOTTLENECK_ANALYSIS.md")" = 2 ]
# the GPU's communication flag holds no waiting for peers, and says so
check gpu_flag_words grep -q "over their thresholds: exposed communication 61.2 % (threshold 20 %)" "$run/BOTTLENECK_ANALYSIS.md"
check gpu_never_no_share_passes [ "$(grep -c "no share passes its threshold" "$run/BOTTLENECK_ANALYSIS.md")" = 0 ]

# The shared 8-rank DLRM traces (../shared): the GPU waits for the host 50.0 % of its time,
# exposed communication 40.0 % (over its threshold, a flag): host-bound.
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
	check gpu_dlrm_host_bound [ "$(json "$drun/summary.json" 'j["scenarios"][0]["verdict"] + "," + j["scenarios"][0]["verdict_basis"]')" = "host-bound,gpu" ]
	# its exposed communication (39.968 % of 117.319 ms over 8 rank-steps) is mostly waiting:
	# the 8 collectives' transfers (each instance's least time over the ranks, 0.217 ms a
	# rank-step, recounted by a helper from the traces' NCCL kernels) are 1.48 % of it at most
	check gpu_dlrm_transfer python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["scenarios"][0]
t = sum(c["transfer_ms_per_step"] for c in s["collectives"]); g = s["gpu_shares_pct"]
sys.exit(0 if abs(t - 0.217) < 0.0015 and g["peer_wait"] == 38.488 and abs(g["communication"] - 100 * 8 * t / g["window_ms"] - g["peer_wait"]) < 0.01 else 1)' "$drun/summary.json"
	check gpu_dlrm_shares [ "$(json "$drun/summary.json" '(j["scenarios"][0]["gpu_shares_pct"]["idle_host_wait"], j["scenarios"][0]["gpu_shares_pct"]["communication"], [f["kind"] for f in j["scenarios"][0]["flags"]])')" = "(50.048, 39.968, ['communication', 'gpu_idle'])" ]
	# report.txt gives the GPU's shares the verdict rests on, not the host's (compute 88.7 %,
	# communication 2.0 %), and says whose they are
	check gpu_dlrm_report_txt [ "$(tail -n 2 "$drun/d8/report.txt")" = "median step 19.90 ms, p95 19.90 ms (rough: fewer than 20 steps), 50.2 steps/s
shares of the GPU's time: data 1.6 %, compute 7.6 %, communication 1.5 %, waiting for peers 38.5 %, other 50.9 % (data: the GPU idle while the host loaded data; other: exposed copies, other kernels and the GPU waiting for the host)" ]
	check gpu_dlrm_series_alone grep -q "^A series of one scenario, with nothing to scale against: \*\*d8\*\* (1 node, 8 ranks)" "$drun/BOTTLENECK_ANALYSIS.md"
else
	skip gpu_dlrm "../shared/traces is absent (the shared DLRM traces are not part of the project)"
fi

# An Nsight Systems export with no NVTX step range whose GPU mostly copies
# host to device: judged from the GPU timeline over the profiled window
# (no step statistics), copy-bound, not "undetermined".
python3 "$ROOT/tests/tools/nsys_copies_export.py" "$SCRATCH/copies.sqlite"
cat >n.yaml <<Y
campaign: nsyscopies
workload: { command: ["/bin/sh", "-c", "mkdir -p nsys && cp $SCRATCH/copies.sqlite nsys/rank_0.sqlite"] }
profile: { warmup_steps: 0, active_steps: 1 }
scenarios: [{ name: copies, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/n" n.yaml >n.out 2>&1
nrun=$(rundir n.out)
N() { json "$nrun/summary.json" "j['scenarios'][0]$1"; }
check gpu_nsys_no_steps_analysed [ "$(N '["analysed"]'),$(N '["step_boundaries"]'),$(N '["verdict_basis"]')" = "True,False,gpu" ]
check gpu_nsys_no_steps_copy_bound [ "$(N '["verdict"]')" = copy-bound ]
check gpu_nsys_no_steps_copies_share [ "$(N '["gpu_shares_pct"]["memcpy"]'),$(N '["gpu_shares_pct"]["compute"]')" = "90.0,10.0" ]
check gpu_nsys_copies_plural grep -q "^\*\*copy-bound\*\*: exposed host-device copies take 90.0 % of the GPU's time, the largest share" "$nrun/BOTTLENECK_ANALYSIS.md"
check gpu_nsys_no_step_statistics [ "$(N '["step_time_ms"]'),$(N '["throughput"]')" = "None,None" ]
check gpu_nsys_no_steps_said grep -q "No step boundaries (no ProfilerStep#N range, no NVTX step range): the shares and the verdict come from the GPU timeline over the profiled window (10.00 ms per rank)" "$nrun/BOTTLENECK_ANALYSIS.md"
# no steps: report.txt gives no step time or throughput (n/a), nor does the report say their unit
check gpu_nsys_no_steps_report_txt [ "$(tail -n 2 "$nrun/copies/report.txt")" = "no step boundaries: shares from the GPU timeline over a 10.00 ms profiled window; median step, p95 and throughput: n/a
shares of the GPU's time: data 0.0 %, compute 10.0 %, communication 0.0 %, other 90.0 % (data: the GPU idle while the host loaded data; other: exposed copies, other kernels and the GPU waiting for the host)" ]
# the paper: no step time, p95 nor rate (n/a, not 0.0 nor a rough p95), one rank's no Wait
"$CAMPAIGN" paper --results "$SCRATCH/n" "$(basename "$nrun")" >npaper.out 2>&1
check gpu_nsys_no_steps_paper_row grep -qxF "| copies | 1 | 1 | COMPLETED | n/a | n/a | n/a | 0.0 | 10.0 | 0.0 | - | - | 90.0 | copy-bound (GPU) |" "$nrun/paper/tables/scenarios.md"
check gpu_nsys_no_steps_no_unit [ "$(grep -c "Throughput is in steps per second" "$nrun/BOTTLENECK_ANALYSIS.md")" = 0 ]

# The shared 2-GPU FSDP exports (NVTX ranges of NCCL, no step range) through the same path.
NS=$ROOT/../shared/traces/nsys
if [ -d "$NS" ]; then
	cat >ns.yaml <<Y
campaign: sharednsys
workload: { command: ["/bin/sh", "-c", "mkdir -p nsys && cp $NS/mfu_2gpu_before.sqlite nsys/rank_0.sqlite"] }
profile: { warmup_steps: 0, active_steps: 1 }
scenarios: [{ name: fsdp, nodes: 1 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/ns" ns.yaml >ns.out 2>&1
	nrun=$(rundir ns.out)
	# (a 2-GPU FSDP run: the GPU computes 85.7 % of the profiled window)
	check gpu_shared_nsys_judged_from_gpu [ "$(N '["verdict_basis"]'),$(N '["verdict"]'),$(N '["gpu_shares_pct"]["compute"]')" = "gpu,compute-bound,85.748" ]
	# flash attention and cuBLAS's nvjet GEMMs are matrix kernels (53.2 % when nvjet was not)
	check gpu_shared_nsys_matrix_share grep -q "of compute, 64.6 % in matrix kernels (GEMM, convolution, attention)" "$nrun/BOTTLENECK_ANALYSIS.md"
	check gpu_shared_nsys_report_txt [ "$(tail -n 2 "$nrun/fsdp/report.txt")" = "no step boundaries: shares from the GPU timeline over a 298.72 ms profiled window; median step, p95 and throughput: n/a
shares of the GPU's time: data 0.0 %, compute 85.7 %, communication 2.8 %, other 11.5 % (data: the GPU idle while the host loaded data; other: exposed copies, other kernels and the GPU waiting for the host)" ]
else
	skip gpu_shared_nsys "../shared/traces is absent"
fi
