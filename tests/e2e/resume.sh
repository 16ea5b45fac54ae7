# Crash-safe submission on the local executor: the orchestrator is killed
# (SIGKILL, through CAMPAIGN_FAULT) at every step of a 4-scenario submit,
# then `campaign resume` finishes it: every scenario runs exactly once.
# Then `campaign resubmit`: new attempts in the same run, every attempt
# kept, the analysis on each scenario's latest successful attempt.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >four.yaml <<'Y'
campaign: four
workload: { command: "/bin/sh -c '[ $SLURM_PROCID = 0 ] || exit 0; echo ran {{tag}} >>\"$CAMPAIGN_RUN_DIR/ran.txt\"'", params: { tag: "x" } }
scenarios:
  - { name: s1, nodes: 1, params: { tag: s1 } }
  - { name: s2, nodes: 2, params: { tag: s2 } }
  - { name: s3, nodes: 1, params: { tag: s3 } }
  - { name: s4, nodes: 4, params: { tag: s4 } }
Y
for point in after-create after-plan after-record:s1 after-record:s3 after-record:s4; do
	t=${point//[:-]/_}
	killable sub.out env CAMPAIGN_FAULT=$point "$CAMPAIGN" submit --backend local --results "$SCRATCH/r_$t" four.yaml; rc=$?
	run=$(rundir sub.out)
	check "local_fault_${t}_kills" [ "$rc" -eq 137 ]
	check "local_fault_${t}_says_where" grep -q "CAMPAIGN_FAULT=$point: killed at" sub.out
	if [ "$point" = after-record:s4 ]; then # every job queued, no supervisor: status says so, loses nothing
		"$CAMPAIGN" status --results "$SCRATCH/r_$t" >st.out 2>&1
		check local_fault_status_says_resume grep -q "^s4  *4  *PENDING .*no local supervisor is running (it was interrupted): \`campaign resume $(basename "$run")\` starts one" st.out
		# nothing will start them: a watch says so and stops (it waited forever once), and
		# loses nothing
		timeout 60 "$CAMPAIGN" watch --plain --interval 1 --results "$SCRATCH/r_$t" "$(basename "$run")" >w.out 2>&1; rc=$?
		check local_watch_idle_exit5 [ "$rc" = 5 ]
		check local_watch_idle_says grep -q "^campaign watch: run $(basename "$run"): its jobs wait and no local supervisor is running to start them (it ended or never started): \`campaign resume $(basename "$run")\` starts one; nothing was lost\$" w.out
		check local_watch_idle_kept [ "$(rows "$run" "select group_concat(state, ' ') from jobs")" = "PENDING PENDING PENDING PENDING" ]
		# a `campaign status` holding the supervisor lock (shared, a moment, to see whether
		# one runs) as the resume below starts is no supervisor: once, the jobs were left
		# to none and a `submit --wait` waited for them forever
		flock -s "$run/.supervisor.lock" sleep 1.5 &
		until ! flock -n -x "$run/.supervisor.lock" true; do sleep 0.05; done
	fi
	"$CAMPAIGN" resume --wait --results "$SCRATCH/r_$t" "$(basename "$run")" >res.out 2>&1; rc=$?
	check "local_fault_${t}_resume_ok" [ "$rc" -eq 0 ]
	check "local_fault_${t}_ran_once_each" [ "$(sort "$run/ran.txt" | tr '\n' ' ')" = "ran s1 ran s2 ran s3 ran s4 " ]
	check "local_fault_${t}_one_attempt_each" [ "$(rows "$run" "select count(*) || '/' || count(distinct scenario) || '/' || count(distinct job_id) || '/' || max(attempt) from jobs where state = 'COMPLETED'")" = 4/4/4/1 ]
	check "local_fault_${t}_analysed" [ -s "$run/BOTTLENECK_ANALYSIS.md" ]
done
check local_resume_reports grep -q "^run .*: 0 of 4 scenarios had no recorded job; every scenario has one now" res.out
"$CAMPAIGN" resume --results "$SCRATCH/r_after_record_s4" "$(basename "$run")" >again.out 2>&1; rc=$?
check local_resume_again_nothing [ "$rc" -eq 0 ]
check local_resume_again_ran_nothing [ "$(wc -l <"$run/ran.txt")" -eq 4 ]
"$CAMPAIGN" resume --results "$SCRATCH/r_after_create" 20990101-000000-0000 >nf.out 2>&1; rc=$?
check local_resume_unknown_run_exit3 [ "$rc" -eq 3 ]

# --- resubmit ------------------------------------------------------------------------
T="$BIN/campaign-trainer --steps 12 --warmup-steps 2 --hidden 64"
cat >flaky.yaml <<Y
campaign: flaky
workload:
  command: "/bin/sh -c '{{gate}}exec $T --metrics-dir={{metrics_dir}}'"
  params: { gate: "" }
scenarios:
  - { name: ok, nodes: 1, tasks_per_node: 2 }
  - { name: flaky, nodes: 1, tasks_per_node: 2, params: { gate: "test -e $SCRATCH/fixed || exit 7; " } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/fl" flaky.yaml >sub.out 2>&1; rc=$?
run=$(rundir sub.out)
id=$(basename "$run")
check resubmit_first_run_failed [ "$rc" -eq 1 ]
"$CAMPAIGN" resubmit --results "$SCRATCH/fl" "$id" >rs.out 2>&1; rc=$?
check resubmit_needs_what [ "$rc" -eq 2 ]
check resubmit_needs_what_says grep -q "say what to run again: --failed, or scenario names" rs.out
"$CAMPAIGN" resubmit --results "$SCRATCH/fl" "$id" nosuch >rs.out 2>&1; rc=$?
check resubmit_unknown_scenario_exit3 [ "$rc" -eq 3 ]
check resubmit_unknown_scenario_says grep -q "the run has no scenario 'nosuch'" rs.out
touch fixed
killable rs.out env CAMPAIGN_FAULT=after-archive:flaky "$CAMPAIGN" resubmit --failed --results "$SCRATCH/fl" "$id"; rc=$?
check resubmit_fault_kills [ "$rc" -eq 137 ]
check resubmit_fault_nothing_planned [ "$(rows "$run" "select max(attempt) from jobs where scenario = 'flaky'")" = 1 ]
"$CAMPAIGN" resubmit --failed --wait --results "$SCRATCH/fl" "$id" >rs.out 2>&1; rc=$?
check resubmit_failed_exit0 [ "$rc" -eq 0 ]
# (both ranks exit 7 at once, without a word: the one the launcher saw first is named)
check resubmit_says_kept grep -q "^flaky: attempt 2 planned; attempt 1 (FAILED: rank [01]: exit status 7, no output) is kept in flaky/attempts/1/" rs.out
check resubmit_table_attempt grep -q "^flaky  *3  *COMPLETED .* attempt 2$" rs.out
check resubmit_ok_untouched [ "$(rows "$run" "select count(*) from jobs where scenario = 'ok'")" = 1 ]
check resubmit_old_status_kept [ "$(json "$run/flaky/attempts/1/job.status" 'j["exit_code"]')" = 7 ]
check resubmit_old_log_kept test -s "$run/flaky/attempts/1/slurm-2.out"
check resubmit_script_kept cmp -s "$run/flaky/attempts/1/job.sbatch" "$run/flaky/job.sbatch"
check resubmit_new_status [ "$(json "$run/flaky/job.status" 'j["exit_code"]')" = 0 ]
"$CAMPAIGN" status --json --results "$SCRATCH/fl" "$id" >st.json
check resubmit_status_history [ "$(json st.json '[(x["attempt"], x["state"], [(e["attempt"], e["state"], e["exit_code"]) for e in x["earlier_attempts"]]) for x in j["jobs"]]')" = "[(1, 'COMPLETED', []), (2, 'COMPLETED', [(1, 'FAILED', 7)])]" ]
check resubmit_analysis_uses_new [ "$(json "$run/summary.json" '[(s["name"], s["analysed"], s["attempt"], s["attempts"]) for s in j["scenarios"]]')" = "[('ok', True, 1, 1), ('flaky', True, 2, 2)]" ]
check resubmit_analysis_says_attempt grep -q "^Attempt 2 of 2 (the latest one" "$run/BOTTLENECK_ANALYSIS.md"
check resubmit_transitions [ "$(rows "$run" "select group_concat(attempt || ':' || to_state, ' ') from transitions where scenario = 'flaky'")" = "1:PLANNED 1:PENDING 1:RUNNING 1:FAILED 2:PLANNED 2:PENDING 2:RUNNING 2:COMPLETED" ]
"$CAMPAIGN" resubmit --failed --results "$SCRATCH/fl" "$id" >rs.out 2>&1; rc=$?
check resubmit_nothing_failed [ "$rc" -eq 0 ] 
check resubmit_nothing_failed_says grep -q "nothing to resubmit: no scenario has failed" rs.out
# A named rerun that fails: the analysis keeps the latest successful attempt.
rm -f fixed
"$CAMPAIGN" resubmit --wait --results "$SCRATCH/fl" "$id" flaky >rs.out 2>&1; rc=$?
check resubmit_named_failed_exit1 [ "$rc" -eq 1 ]
check resubmit_keeps_success [ "$(json "$run/summary.json" '[(s["name"], s["state"], s["analysed"], s["attempt"], s["attempts"]) for s in j["scenarios"]]')" = "[('ok', 'COMPLETED', True, 1, 1), ('flaky', 'COMPLETED', True, 2, 3)]" ]
check resubmit_success_moved test -s "$run/flaky/attempts/2/metrics/rank_0.jsonl"
check resubmit_analysis_says_which grep -q "^Attempt 2 of 3 (the latest that completed" "$run/BOTTLENECK_ANALYSIS.md"
