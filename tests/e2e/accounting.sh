# One accounting of step time (issue 33), on CPU traces of our own making
# (tests/tools/cpu_steps.py): operators under no phase range are compute, so a
# rank that runs 60 ms of aten::mm / aten::tanh before its forward is named
# the straggler with cause compute (not "host/other"); the waiting it imposes
# counts with its cause (removing the cause removes the wait), so the verdict,
# the largest share, is compute; thresholds are flags beside it; the
# straggler's recommendation carries its predicted step.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/cpu_steps.py" --out "$SCRATCH/t"
cat >c.yaml <<Y
campaign: ops
workload: { command: ["/bin/sh", "-c", "if [ \"\$RANK\" = 0 ]; then cp $SCRATCH/t/*.json .; fi"] }
profile: { warmup_steps: 0, active_steps: 8, traces: ["*.pt.trace.json"] }
scenarios: [{ name: ops, nodes: 2, tasks_per_node: 2 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" c.yaml >c.out 2>&1; rc=$?
run=$(rundir c.out)
S() { json "$run/summary.json" "j['scenarios'][0]$1"; }
check ops_completes [ "$rc" -eq 0 ]
# by hand, per step of 85 ms over 4 ranks (340 ms): compute 3 x 18 + 78 = 132 ms (38.8 %), of
# it rank 3's 60 ms of operators (17.6 %); the all-reduce's transfer 4 x 5 ms (5.9 %); the
# three others wait 60 ms each (52.9 %); 8 ms under no operator (2.4 %)
check ops_shares [ "$(S '["shares_pct"]["compute"]'),$(S '["shares_pct"]["compute_outside_phases"]'),$(S '["shares_pct"]["communication"]'),$(S '["shares_pct"]["peer_wait"]'),$(S '["shares_pct"]["other"]')" = "38.824,17.647,5.882,52.941,2.353" ]
check ops_straggler_rank3_compute [ "$(S '["stragglers"][0]["rank"]'),$(S '["stragglers"][0]["node"]'),$(S '["stragglers"][0]["cause"]'),$(S '["stragglers"][0]["cause_ms_per_step"]')" = "3,local2,compute,60.0" ]
check ops_compute_with_its_wait [ "$(S '["verdict"]'),$(S '["borderline"]'),$(S '["verdict_share"]')" = "compute-bound,False,{'kind': 'compute', 'pct': 91.765}" ]
check ops_wait_said grep -q "^\*\*compute-bound\*\*: compute takes 91.8 % of step time, the largest share; of it, 52.9 % of step time is the other ranks waiting for rank 3 on local2, whose extra compute (60.00 ms a step more than the others' median) they wait for (compute 38.8 %" "$run/BOTTLENECK_ANALYSIS.md"
check ops_flag_beside [ "$(S '["flags"]')" = "[{'kind': 'communication', 'share_pct': 58.824, 'threshold_pct': 20.0}]" ]
check ops_predicted [ "$(json "$run/summary.json" '[(r["kind"], r["scenarios"], r["predicted_step_ms"], r["predicted_gain_pct"], r["basis"]) for r in j["recommendations"]]')" = "[('straggler', ['ops'], [25.0], [70.588], 'straggler impact'), ('kernels', ['ops'], [None], [None], 'none')]" ]
check ops_advice_said grep -q "^1\. \*\*ops\*\*: rank 3 on local2 keeps the others waiting (its cause: compute); .* Median step with it removed (a ceiling, from the straggler impact): 85.00 -> 25.00 ms (-71 %)\.$" "$run/BOTTLENECK_ANALYSIS.md"
check ops_no_host_other [ "$(grep -c "host/other" "$run/BOTTLENECK_ANALYSIS.md")" = 0 ]
