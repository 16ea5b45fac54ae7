# Crash-safe submission on a real SLURM cluster (slurmctld + 4 slurmd on this
# host): the orchestrator is killed with SIGKILL (CAMPAIGN_FAULT) at every
# step of a 4-scenario submit, then `campaign resume`: the controller holds
# exactly one job per scenario and one aggregation job, every time. Then
# `campaign resubmit --failed`, itself interrupted after its submit call:
# the new attempt is adopted, not submitted twice, and the run ends analysed.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
slurm_cluster slurm_resume /tmp/campaign-slurm-resume 16937 17300
# known NAME: how many jobs of that name the controller knows, in any state
known() { squeue -h -t all -n "$1" -o %i | wc -l; }
cat >four.yaml <<'Y'
campaign: four
workload: { command: ["/bin/sleep", "600"] }
scenarios:
  - { name: s1, nodes: 1 }
  - { name: s2, nodes: 2 }
  - { name: s3, nodes: 1 }
  - { name: s4, nodes: 4 }
Y
points="after-create after-plan"
for s in s1 s2 s3 s4; do points="$points before-submit:$s after-submit:$s after-record:$s"; done
points="$points before-aggregate-submit after-aggregate-submit"
ok_all=1
for point in $points; do
	t=${point//[:-]/_}
	killable sub.out env CAMPAIGN_FAULT=$point "$CAMPAIGN" submit --backend slurm --results "$SCRATCH/r" four.yaml; rc=$?
	run=$(rundir sub.out)
	id=$(basename "$run")
	check "slurm_fault_${t}_killed" [ "$rc" -eq 137 ]
	"$CAMPAIGN" resume --results "$SCRATCH/r" "$id" >res.out 2>&1; rc=$?
	check "slurm_fault_${t}_resume_ok" [ "$rc" -eq 0 ]
	counts=""
	for s in s1 s2 s3 s4; do counts="$counts$(known "campaign-$id-$s")"; done
	check "slurm_fault_${t}_one_job_per_scenario" [ "$counts" = 1111 ]
	check "slurm_fault_${t}_one_aggregation_job" [ "$(known "campaign-$id-aggregate")" = 1 ]
	check "slurm_fault_${t}_store_has_them" [ "$(rows "$run" "select count(distinct job_id) from jobs where job_id is not null and state in ('PENDING', 'RUNNING')")" = 4 ]
	case $point in after-submit:*|after-aggregate-submit)
		check "slurm_fault_${t}_adopted" grep -q "was submitted before the interruption: adopted, not submitted again" res.out ;;
	esac
	"$CAMPAIGN" resume --results "$SCRATCH/r" "$id" >again.out 2>&1
	counts=""
	for s in s1 s2 s3 s4 aggregate; do counts="$counts$(known "campaign-$id-$s")"; done
	check "slurm_fault_${t}_second_resume_adds_nothing" [ "$counts" = 11111 ]
	"$CAMPAIGN" cancel --results "$SCRATCH/r" "$id" >/dev/null 2>&1
	scancel -n "campaign-$id-aggregate" 2>/dev/null
done
check slurm_resume_reports grep -q "^run .*: 0 of 4 scenarios had no recorded job; every scenario has one now" again.out

# --- resubmit --failed, interrupted after its submit call, then resumed -------------------
cat >flaky.yaml <<Y
campaign: flaky
workload: { command: "/bin/sh -c '{{gate}}exit 0'", params: { gate: "" } }
scenarios:
  - { name: ok, nodes: 1 }
  - { name: flaky, nodes: 2, params: { gate: "test -e $SCRATCH/fixed || exit 7; " } }
Y
"$CAMPAIGN" submit --wait --backend slurm --results "$SCRATCH/fl" flaky.yaml >sub.out 2>&1; rc=$?
run=$(rundir sub.out)
id=$(basename "$run")
check slurm_resubmit_first_failed [ "$rc" -eq 1 ]
touch fixed
killable rs.out env CAMPAIGN_FAULT=after-submit:flaky "$CAMPAIGN" resubmit --failed --results "$SCRATCH/fl" "$id"; rc=$?
if [ "$rc" -eq 137 ]; then pass slurm_resubmit_killed; else fail slurm_resubmit_killed "exit $rc: $(tail -n 3 rs.out | tr '\n' ' ')"; fi
"$CAMPAIGN" resume --wait --results "$SCRATCH/fl" "$id" >res.out 2>&1; rc=$?
check slurm_resubmit_resumed_ok [ "$rc" -eq 0 ]
check slurm_resubmit_adopted grep -q "^campaign: flaky: job [0-9]* was submitted before the interruption" res.out
check slurm_resubmit_two_jobs_two_attempts [ "$(known "campaign-$id-flaky")/$(known "campaign-$id-ok")" = 2/1 ]
check slurm_resubmit_two_aggregation_jobs [ "$(known "campaign-$id-aggregate")" = 2 ]
"$CAMPAIGN" status --json --results "$SCRATCH/fl" "$id" >st.json
check slurm_resubmit_history [ "$(json st.json '[(x["scenario"], x["attempt"], x["state"], [(e["state"], e["exit_code"]) for e in x["earlier_attempts"]]) for x in j["jobs"]]')" = "[('ok', 1, 'COMPLETED', []), ('flaky', 2, 'COMPLETED', [('FAILED', 7)])]" ]
check slurm_resubmit_old_attempt_kept [ "$(json "$run/flaky/attempts/1/job.status" 'j["exit_code"]')" = 7 ]
check slurm_resubmit_summary [ "$(json "$run/summary.json" '[(s["name"], s["state"], s["attempt"], s["attempts"]) for s in j["scenarios"]]')" = "[('ok', 'COMPLETED', 1, 1), ('flaky', 'COMPLETED', 2, 2)]" ]
