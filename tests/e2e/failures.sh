# Jobs that do not complete: a rank killed mid-run (FAILED, exit 137, the
# rest analysed), a script that raises (its rank and error line said by
# status, status SCENARIO and the report), a time limit (TIMEOUT), a cancel
# (CANCELLED), and a background submit whose supervisor finishes and
# analyses on its own.
# SPDX-License-Identifier: MIT
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
# the rank killed by a signal, and the last line it wrote (the trainer says it kills itself)
killed="rank 1: killed by signal 9 (Killed); last line: campaign-trainer: rank 1: --die-at-step 8: killing myself"
check killed_rank_state grep -q "^dies-2n  *2  *FAILED  *2  *2 .* 137  $killed$" out.txt
check killed_rank_job_status [ "$(json "$run/dies-2n/job.status" 'j["exit_code"]')" = 137 ]
check killed_rank_other_completed grep -q "^ok-1n  *1  *COMPLETED" out.txt
check killed_rank_launcher_said grep -q "rank 1 exited with status 137 (killed by a signal): the job's status" "$run"/dies-2n/slurm-*.out
check killed_rank_summary [ "$(json "$run/summary.json" '(j["failed"], [s["analysed"] for s in j["scenarios"]])')" = "(['dies-2n'], [True, False])" ]
check killed_rank_named_in_analysis grep -qF "not analysed: **dies-2n** (FAILED: $killed)" "$run/BOTTLENECK_ANALYSIS.md"
check killed_rank_recorded [ "$(cat "$run/dies-2n/ranks/failed.json")" = '{"exit_code": 137, "signal": 9, "task": 1}' ]

# A script that raises (issue 45), as nanoGPT's train.py does run outside its folder: rank 2 of
# 2 nodes x 2 ranks opens a missing configurator.py; the other ranks end at once. Its REASON is
# the rank and the last line of its traceback, exactly as its log has it and as
# tests/tools/failure_recount.py finds it there; a message with terminal escapes, control
# characters and 300 letters reaches status plain, without them, and cut at 200 bytes.
cat >raise.py <<'P'
import os, sys
rank = int(os.environ["RANK"])
print(f"rank {rank} of {os.environ['WORLD_SIZE']} starting", flush=True)
if str(rank) == sys.argv[1]:
    exec(open("configurator.py").read())
if sys.argv[1] == "r0-" + str(rank):
    raise RuntimeError("bad \x1b[31mred\x1b[0m \x07bell\x1b]0;title\x07 \x08done " + "v" * 300)
P
cat >raise.yaml <<Y
campaign: raises
workload: { command: "python3 {{campaign_dir}}/raise.py {{fail}}" }
scenarios:
  - { name: plain-2n, nodes: 2, tasks_per_node: 2, params: { fail: "2" } }
  - { name: fine-1n, nodes: 1, tasks_per_node: 3, params: { fail: none } }
  - { name: hostile-1n, nodes: 1, tasks_per_node: 1, params: { fail: r0-0 } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/rr" raise.yaml >raise.out 2>&1; rc=$?
rrun=$(rundir raise.out)
rid=$(basename "$rrun")
line="rank 2: FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'"
check raise_submit_exit1 [ "$rc" -eq 1 ]
check raise_log_has_it grep -qxF "FileNotFoundError: [Errno 2] No such file or directory: 'configurator.py'" "$rrun/plain-2n/logs/rank_2.out"
check raise_recount [ "$(python3 "$ROOT/tests/tools/failure_recount.py" "$rrun/plain-2n")" = "$line" ]
"$CAMPAIGN" status --results "$SCRATCH/rr" >st.txt 2>&1
check raise_status_header grep -q "^SCENARIO  *JOBID  *STATE  *NODES  *RANKS  *ELAPSED  *EXIT  *REASON$" st.txt
# NODES and RANKS: 2 4, 1 3, 1 1
check raise_status_reason [ "$(sed -En 's/^plain-2n +1 +FAILED +2 +4 +[0-9]+:[0-9]{2}:[0-9]{2} +1  //p' st.txt)" = "$line" ]
check raise_status_ranks_fine grep -q "^fine-1n  *2  *COMPLETED  *1  *3  *[0-9]*:[0-9][0-9]:[0-9][0-9]  *0 *$" st.txt
check raise_status_ranks_hostile grep -q "^hostile-1n  *3  *FAILED  *1  *1 " st.txt
"$CAMPAIGN" status --results "$SCRATCH/rr" --json >st.json 2>&1
check raise_status_json [ "$(json st.json '[(x["scenario"], x["ranks"], x["reason"]) for x in j["jobs"]][:2]')" = "[('plain-2n', 4, \"$line\"), ('fine-1n', 3, '')]" ]
# status SCENARIO (of the newest run, and of a run named): that scenario in full
"$CAMPAIGN" status --results "$SCRATCH/rr" plain-2n >one.txt 2>&1; rc=$?
check raise_status_scenario_exit0 [ "$rc" -eq 0 ]
check raise_status_scenario_reason grep -qxF "reason:    $line" one.txt
check raise_status_scenario_fields [ "$(grep -E "^(scenario|state|ranks|nodes|rank log):" one.txt | tr -s ' ' | tr '\n' '|')" = "scenario: plain-2n|state: FAILED (exit code 1)|nodes: 2 (local[1-2])|ranks: 4|rank log: campaign logs --rank 2 $rid plain-2n|" ]
check raise_status_scenario_only_it [ "$(grep -c "fine-1n\|hostile-1n" one.txt)" = 0 ]
"$CAMPAIGN" status --results "$SCRATCH/rr" "$rid" plain-2n >one2.txt 2>&1
check raise_status_run_scenario cmp -s one.txt one2.txt
"$CAMPAIGN" status --results "$SCRATCH/rr" --json plain-2n >one.json 2>&1
check raise_status_scenario_json [ "$(json one.json '[(x["scenario"], x["ranks"], x["reason"]) for x in j["jobs"]]')" = "[('plain-2n', 4, \"$line\")]" ]
"$CAMPAIGN" status --results "$SCRATCH/rr" "$rid" nosuch >no.txt 2>&1; rc=$?
check raise_status_no_scenario [ "$rc" -eq 3 ] && check raise_status_no_scenario_said grep -qx "campaign status: run $rid has no scenario 'nosuch'" no.txt
# the report and summary.json say the same
hostile=$(json st.json '[x["reason"] for x in j["jobs"] if x["scenario"] == "hostile-1n"][0]')
check raise_report_summary grep -qF "not analysed: **plain-2n** (FAILED: $line), **fine-1n** (COMPLETED: no step data), **hostile-1n** (FAILED: $hostile)." "$rrun/BOTTLENECK_ANALYSIS.md"
check raise_report_scenario grep -qxF "State **FAILED**, exit code 1 ($line). Not analysed: the job did not complete. Its job log is in \`plain-2n/\`." "$rrun/BOTTLENECK_ANALYSIS.md"
check raise_summary_reason [ "$(json "$rrun/summary.json" '[s["reason"] for s in j["scenarios"] if s["name"] == "plain-2n"][0]')" = "$line" ]
check raise_recorded [ "$(cat "$rrun/plain-2n/ranks/failed.json")" = '{"exit_code": 1, "signal": 0, "task": 2}' ]
# the hostile message: no escape or control byte anywhere status and the report show it,
# its words kept, cut at 200 bytes of the line ("rank 0: " before them)
check raise_hostile_recount [ "$hostile" = "$(python3 "$ROOT/tests/tools/failure_recount.py" "$rrun/hostile-1n")" ]
check raise_hostile_plain [ "${hostile:0:48}" = "rank 0: RuntimeError: bad red bell done vvvvvvvv" ]
check raise_hostile_bounded [ "$(printf %s "$hostile" | wc -c)" = $((8 + 200)) ] && check raise_hostile_cut_said [ "${hostile: -6}" = "vvv..." ]
check raise_hostile_summary [ "$(json "$rrun/summary.json" '[s["reason"] for s in j["scenarios"] if s["name"] == "hostile-1n"][0]')" = "$hostile" ]
check raise_hostile_no_controls python3 -c 'import re, sys; t = open(sys.argv[1], "rb").read() + open(sys.argv[2], "rb").read() + open(sys.argv[3], "rb").read(); sys.exit(1 if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", t) else 0)' st.txt "$rrun/BOTTLENECK_ANALYSIS.md" "$rrun/summary.json"

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
# (a killed process ends, and is reaped, when the kernel next runs it: on a loaded machine
# that took over 0.3 s once, and status rightly said RUNNING while it was not yet gone)
lost_yet() {
	"$CAMPAIGN" status --results "$SCRATCH/res3" --json >st.json
	[ "$(json st.json 'j["jobs"][0]["state"]')" = LOST ]
}
wait_for 10 lost_yet
check lost_when_supervisor_and_job_die [ "$(json st.json 'j["jobs"][0]["state"]')" = LOST ]
check lost_reason_explains grep -q "the local supervisor ended while the job ran" st.json
