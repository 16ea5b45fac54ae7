# Jobs that do not complete: a rank killed mid-run (FAILED, exit 137, the
# rest analysed), a time limit (TIMEOUT), a cancel (CANCELLED), and a
# background submit whose supervisor finishes and analyses on its own.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
T="$BIN/campaign-trainer"
cat >kill.yaml <<Y
campaign: killrank
workload:
  command: "$T --steps {{steps}} --warmup-steps {{warmup_steps}} --hidden 64 --metrics-dir {{metrics_dir}} {{extra}}"
  params: { extra: "" }
profile: { warmup_steps: 2, active_steps: 20 }
scenarios:
  - { name: ok-1n, nodes: 1, tasks_per_node: 2 }
  - { name: dies-2n, nodes: 2, tasks_per_node: 1, params: { extra: "--die-at-step 8 --die-rank 1" } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" kill.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check killed_rank_submit_exit1 [ "$rc" -eq 1 ]
check killed_rank_state grep -q "^dies-2n  *2  *FAILED  *2 .* 137  exit status 137" out.txt
check killed_rank_job_status [ "$(json "$run/dies-2n/job.status" 'j["exit_code"]')" = 137 ]
check killed_rank_other_completed grep -q "^ok-1n  *1  *COMPLETED" out.txt
check killed_rank_launcher_said grep -q "rank 1 exited with status 137 (killed by a signal): the job's status" "$run"/dies-2n/slurm-*.out
check killed_rank_summary [ "$(json "$run/summary.json" '(j["failed"], [s["analysed"] for s in j["scenarios"]])')" = "(['dies-2n'], [True, False])" ]
check killed_rank_named_in_analysis grep -q "not analysed: \*\*dies-2n\*\* (FAILED: exit status 137)" "$run/BOTTLENECK_ANALYSIS.md"

cat >slow.yaml <<'Y'
campaign: slow
workload: { command: ["/bin/sleep", "{{secs}}"], params: { secs: "60" } }
scenarios:
  - { name: limited, nodes: 1, time: "0:02" }
  - { name: later, nodes: 1 }
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/res2" slow.yaml >bg.txt 2>&1; rc=$?
run2=$(rundir bg.txt)
check background_submit_returns [ "$rc" -eq 0 ]
check background_submit_says_how_to_follow grep -q "follow it with: campaign watch --results $SCRATCH/res2 " bg.txt
for i in $(seq 1 100); do
	"$CAMPAIGN" status --results "$SCRATCH/res2" --json >st.json 2>/dev/null
	[ "$(json st.json '[x["state"] for x in j["jobs"]]')" = "['TIMEOUT', 'RUNNING']" ] && break
	sleep 0.2
done
check timeout_state [ "$(json st.json 'j["jobs"][0]["state"], j["jobs"][0]["reason"]')" = "('TIMEOUT', 'time limit reached')" ]
check timeout_job_status_written [ "$(json "$run2/limited/job.status" 'j["exit_code"]')" = 143 ]
"$CAMPAIGN" aggregate --results "$SCRATCH/res2" "$(basename "$run2")" >agg.txt 2>&1; rc=$?
check aggregate_waits_for_final_jobs [ "$rc" -eq 1 ]
check aggregate_says_unfinished grep -q "still has unfinished jobs; use --force" agg.txt
"$CAMPAIGN" aggregate --force --results "$SCRATCH/res2" "$(basename "$run2")" >agg.txt 2>&1; rc=$?
check aggregate_force_writes [ "$rc" -eq 0 ]
check aggregate_force_analysis [ -s "$run2/summary.json" ]
"$CAMPAIGN" cancel --results "$SCRATCH/res2" "$(basename "$run2")" later >/dev/null; rc=$?
check cancel_exit0 [ "$rc" -eq 0 ]
for i in $(seq 1 100); do   # until the supervisor has finished (and analysed)
	pgrep -f "campaign supervise $run2" >/dev/null || break
	sleep 0.2
done
"$CAMPAIGN" status --results "$SCRATCH/res2" --json >st.json
check cancel_state [ "$(json st.json 'j["jobs"][1]["state"]')" = CANCELLED ]
check supervisor_analysed_by_itself [ -s "$run2/BOTTLENECK_ANALYSIS.md" ]
check analysis_names_both_failures [ "$(json "$run2/summary.json" 'j["failed"]')" = "['limited', 'later']" ]

# A supervisor that dies leaves no job running unnoticed: status says LOST.
cat >lost.yaml <<'Y'
campaign: lost
workload: { command: ["/bin/sleep", "30"] }
scenarios: [{ name: orphan, nodes: 1 }]
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/res3" lost.yaml >l.txt 2>&1
run3=$(rundir l.txt)
for i in $(seq 1 300); do # up to 30 s on a loaded machine
	"$CAMPAIGN" status --results "$SCRATCH/res3" --json >st.json
	[ "$(json st.json 'j["jobs"][0]["state"]')" = RUNNING ] && break
	sleep 0.1
done
# kill the supervisor, then the whole job (its script first, so it cannot
# record an end): exactly what a reboot of this machine would do
# (the job's own process group only: nothing else on this machine is touched)
pkill -KILL -f "campaign supervise $run3"
kill -KILL -- -"$(rows "$run3" 'select pid from jobs')" 2>/dev/null
sleep 0.3
"$CAMPAIGN" status --results "$SCRATCH/res3" --json >st.json
check lost_when_supervisor_and_job_die [ "$(json st.json 'j["jobs"][0]["state"]')" = LOST ]
check lost_reason_explains grep -q "the local supervisor ended while the job ran" st.json
