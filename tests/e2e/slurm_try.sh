#!/bin/bash
# campaign try (issue 35) on the SLURM test cluster at 2 nodes, the closed loop of try.sh:
# a per-parameter all-reduce run of the reference trainer (1 rank on each of 2 nodes) is
# submitted with --backend slurm; `try --wait` submits the knob (bucketed DDP) as a child run
# through the same backend: ordinary SLURM jobs on 2 nodes, with the campaign's slurm options,
# and an aggregation job as for any SLURM run, whose analysis sets the prediction against what
# the child measured. Outcomes depend on the machine: the test asserts that the numbers are
# the ones of both runs and the outcome follows from them, not which it is.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
export GLOO_SOCKET_IFNAME=lo
slurm_cluster slurm_try /tmp/campaign-slurm-try 17037 18300
R=$SCRATCH/res
cat >try.yaml <<'Y'
campaign: slurm-try
workload:
  command: >
    {{trainer}} --backend gloo --ddp {{ddp}} --steps 30 --warmup-steps 5
    --batch 2 --hidden 256 --depth 12 --input 256 --output 32 --workers 1
    --metrics-dir {{metrics_dir}}
  env: { OPENBLAS_NUM_THREADS: "1" }
  params: { ddp: per-param }
profile: { warmup_steps: 5, active_steps: 25 }
slurm: { partition: debug, time: "10:00", exclusive: true, extra: ["--mem=0"] }
scenarios: [{ name: comm-2n, nodes: 2, tasks_per_node: 1 }]
knobs:
  communication: { params: { ddp: bucketed } }
Y
"$CAMPAIGN" submit --wait --backend slurm --results "$R" try.yaml >p.out 2>&1; rc=$?
parent=$(rundir p.out) pid=$(basename "$(rundir p.out)")
check slurm_try_parent_exit0 [ "$rc" -eq 0 ] || { failed_run_said "$parent"; exit 1; }
recommends slurm_try "$parent" communication || exit 0
pred=$(first_prediction "$parent" communication)
check slurm_try_parent_predicts python3 -c "import sys; assert float(sys.argv[1]) > 0" "$pred"

"$CAMPAIGN" try --wait --results "$R" "$pid" >t.out 2>&1; rc=$?
child=$(rundir t.out) cid=$(basename "$(rundir t.out)")
check slurm_try_exit0 [ "$rc" -eq 0 ] || failed_run_said "$child"
check slurm_try_says_prediction grep -q "^  comm-2n: \(mean \)\?[0-9.]* ms/step measured, [0-9.]* ms predicted\( (by the means: its steps, measured or predicted, are not alike; median [0-9.]* -> [0-9.]*)\)\?$" t.out
check slurm_try_child_is_new bash -c '[ -n "$1" ] && [ "$1" != "$2" ]' _ "$cid" "$pid"
check slurm_try_variant_json [ "$(json "$child/variant.json" 'j["parent_run"]+" "+j["kind"]+" "+j["knob"]["params"]["ddp"]')" = "$pid communication bucketed" ]
# the child is a SLURM run like its parent: its backend, a job id in its store, 2 nodes
check slurm_try_child_backend [ "$(rows "$child" "select backend from runs")" = slurm ]
check slurm_try_child_job_id [ "$(rows "$child" "select job_id glob '[0-9]*' and job_id != '$(rows "$parent" "select job_id from jobs")' from jobs where scenario = 'comm-2n'")" = 1 ]
check slurm_try_child_completed [ "$(rows "$child" "select group_concat(state) from jobs")" = COMPLETED ]
check slurm_try_child_two_nodes bash -c '[[ "$1" =~ ^n\[[1-4][-,][1-4]\]$ ]]' _ "$(rows "$child" "select nodelist from jobs")"
check slurm_try_child_two_ranks [ "$(json "$child/summary.json" '[(s["ranks"], s["ranks_with_data"]) for s in j["scenarios"]]')" = "[(2, 2)]" ]
check slurm_try_child_ran_knob grep -q -- "'--ddp' 'bucketed'" "$child/comm-2n/job.sbatch"
check slurm_try_parent_untouched grep -q -- "'--ddp' 'per-param'" "$parent/comm-2n/job.sbatch"
# the campaign's slurm options carry over: the same #SBATCH lines but for the run's own names,
# and the same job script but for those and the knob (its CAMPAIGN_DIR the campaign file's
# folder, not where try wrote the variant's text)
sb() { grep "${3:-}" "$1/comm-2n/job.sbatch" | sed "s/$2/RUN/g; s/'--ddp' '[a-z-]*'/DDP/"; }
check slurm_try_sbatch_lines_same [ "$(sb "$parent" "$pid" '^#SBATCH')" = "$(sb "$child" "$cid" '^#SBATCH')" ]
same_script() { diff <(sb "$parent" "$pid") <(sb "$child" "$cid") >script.diff; }
check slurm_try_job_script_same same_script || sed 's/^/  diff: /' script.diff
check slurm_try_child_campaign_dir grep -qx "export CAMPAIGN_DIR='$SCRATCH'" "$child/comm-2n/job.sbatch"
check slurm_try_sbatch_exclusive grep -qx "#SBATCH --exclusive" "$child/comm-2n/job.sbatch"
check slurm_try_sbatch_mem grep -qx "#SBATCH --mem=0" "$child/comm-2n/job.sbatch"
check slurm_try_sbatch_partition grep -qx "#SBATCH --partition=debug" "$child/comm-2n/job.sbatch"
# the child's analysis came as the parent's did: an aggregation job of its own, submitted with
# its jobs (try never aggregated by hand); it ends with the analysis written
for r in "$parent" "$child"; do
	agg=$(rows "$r" "select aggregate_job_id from runs")
	[ "$r" = "$parent" ] && who=parent || who=child
	check "slurm_try_aggregation_job_$who" bash -c '[[ "$1" =~ ^[0-9]+$ ]]' _ "$agg"
	check "slurm_try_aggregation_job_wrote_$who" wait_for 60 grep -qx "$r/summary.json" "$r/aggregate-$agg.out"
done
check slurm_try_child_aggregated [ "$(rows "$child" "select aggregated_at > 0 from runs")" = 1 ]
check slurm_try_child_report test -s "$child/BOTTLENECK_ANALYSIS.md"
# the checked prediction, the report and the family in ls (tests/lib.sh try_family)
check slurm_try_variant_knob [ "$(json "$child/summary.json" 'j["variant"]["knob"]')" = "{'params': {'ddp': 'bucketed'}}" ]
try_family slurm_try "$R" "$parent" "$child" comm-2n communication
# with --control through SLURM: the control (kind control, the parent's sbatch but for its
# names) runs first, then the variant, which is set against it once both are analysed
"$CAMPAIGN" try --control --wait --results "$R" "$pid" communication >tc.out 2>&1; rc=$?
check slurm_try_control_exit0 [ "$rc" -eq 0 ]
ctl=$(sed -n 's/^control \([0-9a-f-]*\): each scenario now against the parent as it ran$/\1/p' tc.out)
check slurm_try_control_said [ -n "$ctl" ] && check slurm_try_control_kind [ "$(json "$R/slurm-try/$ctl/summary.json" 'j["variant"]["kind"]')" = control ]
var=$(ls -d "$R"/slurm-try/2* | while read -r d; do [ "$(json "$d/variant.json" 'j.get("control", {}).get("run", "")' 2>/dev/null)" = "$ctl" ] && echo "$d"; done)
check slurm_try_control_variant [ -n "$ctl" -a -n "$var" ] && check slurm_try_control_set_against [ "$(json "$var/summary.json" 'j["variant"]["control"] + " " + str(all("control_step_ms" in r and "against_control" in r for r in j["checked_predictions"]))')" = "$ctl True" ]
check slurm_try_control_sbatch_same [ "$(sb "$parent" "$pid" '^#SBATCH')" = "$(sb "$R/slurm-try/$ctl" "$ctl" '^#SBATCH')" ]
# without --wait the control and the variant run beside each other: the variant's aggregation
# job waits for the control's too (its dependency names it), so its checks find the control
# analysed and are set against it
"$CAMPAIGN" try --control --results "$R" "$pid" communication >tn.out 2>&1; rc=$?
check slurm_try_control_nowait_exit0 [ "$rc" -eq 0 ]
ctl2=$(sed -n 's/^run \([0-9a-f-]*\)$/\1/p' tn.out | sed -n 1p) var2=$(sed -n 's/^run \([0-9a-f-]*\)$/\1/p' tn.out | sed -n 2p)
cagg=$(rows "$R/slurm-try/$ctl2" "select aggregate_job_id from runs")
check slurm_try_control_nowait_dependency grep -q "^#SBATCH --dependency=afterany:.*:$cagg$" "$R/slurm-try/$var2/aggregate.sbatch"
check slurm_try_control_nowait_analysed wait_for 120 test -s "$R/slurm-try/$var2/summary.json"
check slurm_try_control_nowait_set_against [ "$(json "$R/slurm-try/$var2/summary.json" 'j["variant"].get("control")')" = "$ctl2" ]
