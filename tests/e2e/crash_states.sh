# True states after faults (issue 20, points 5, 10 and 11): submit --wait
# SIGKILLed while its job runs leaves the job RUNNING (its processes are
# alive), then COMPLETED from its job.status, and resume exits 0; a job
# taken for LOST is corrected when its job.status appears; SIGHUP (the
# terminal closed) does not stop the run; a setsid daemon the workload
# leaves is killed and said. (A job that completes as it is cancelled stays
# COMPLETED: tests/unit/test_slurm_decide.c, for both executors' decision.)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
st() { "$CAMPAIGN" status --results "$SCRATCH/$1" --json "$2" >st.json 2>/dev/null; json st.json "$3"; }

cat >sleep.yaml <<'Y'
campaign: crash
workload: { command: ["/bin/sh", "-c", "sleep 3; exit 0"] }
scenarios: [{ name: s, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/k" sleep.yaml >k.out 2>&1 &
pid=$!
for i in $(seq 50); do grep -q "^run " k.out 2>/dev/null && [ -n "$(ls "$SCRATCH"/k/crash/*/s/slurm-*.out 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.5
kill -9 $pid; wait $pid 2>/dev/null
id=$(basename "$(rundir k.out)")
check killed_submit_job_still_running [ "$(st k "$id" 'j["jobs"][0]["state"]')" = RUNNING ]
check killed_submit_says_alive grep -q "processes are alive" st.json
sleep 3.5
check killed_submit_job_completed [ "$(st k "$id" 'j["jobs"][0]["state"]')" = COMPLETED ]
"$CAMPAIGN" resume --results "$SCRATCH/k" "$id" >resume.out 2>&1; rc=$?
check killed_submit_resume_exit0 [ "$rc" -eq 0 ]
check killed_submit_analysed [ -s "$SCRATCH/k/crash/$id/BOTTLENECK_ANALYSIS.md" ]

# A job taken for LOST (supervisor and job both gone, no job.status) is
# corrected when its job.status appears (a shared file system catching up).
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/l" sleep.yaml >l.out 2>&1 &
pid=$!
for i in $(seq 50); do [ -n "$(ls "$SCRATCH"/l/crash/*/s/slurm-*.out 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.5
run=$(ls -d "$SCRATCH"/l/crash/*/)
pg=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select pid from jobs').fetchone()[0])" "$run/state.db")
kill -9 $pid; kill -9 -- -"$pg"; wait $pid 2>/dev/null
id=$(basename "$run")
check lost_when_gone [ "$(st l "$id" 'j["jobs"][0]["state"]')" = LOST ]
printf '{"exit_code": 0, "start": %s, "end": %s, "job_id": "1", "nodelist": "local1", "host": "x"}\n' "$(date +%s)" "$(date +%s)" >"$run/s/job.status"
check lost_corrected_by_job_status [ "$(st l "$id" 'j["jobs"][0]["state"]')" = COMPLETED ]
check lost_correction_recorded [ "$(rows "$run" "select detail from transitions where to_state='COMPLETED'")" = "job.status appeared after it was taken for lost" ]

# SIGHUP: the run goes on to its end, the output to supervisor.log.
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/h" sleep.yaml >h.out 2>&1 &
pid=$!
for i in $(seq 50); do [ -n "$(ls "$SCRATCH"/h/crash/*/s/slurm-*.out 2>/dev/null)" ] && break; sleep 0.1; done
kill -HUP $pid
wait $pid; rc=$?
run=$(ls -d "$SCRATCH"/h/crash/*/)
check sighup_run_finishes [ "$rc" -eq 0 ]
check sighup_job_completed [ "$(rows "$run" "select state from jobs")" = COMPLETED ]
check sighup_said_in_log grep -q "the terminal went away (SIGHUP); the run goes on" "$run/supervisor.log"
check sighup_analysed [ -s "$run/BOTTLENECK_ANALYSIS.md" ]

# A daemon started with setsid outlives its job's process group: killed, and said.
cat >daemon.yaml <<Y
campaign: daemon
workload: { command: ["/bin/sh", "-c", "setsid sh -c 'echo \$\$ > $SCRATCH/daemon.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 0.5; exit 0"] }
scenarios: [{ name: s, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/d" daemon.yaml >d.out 2>&1; rc=$?
run=$(rundir d.out)
check daemon_job_completed [ "$rc" -eq 0 ]
dpid=$(cat daemon.pid 2>/dev/null)
# killed: gone, or a zombie where nothing reaps orphans (a container's init); on a loaded
# machine the kill is sent before submit returns but the process may take a moment to end
check daemon_killed bash -c 'gone() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }
[ -n "$1" ] && for i in $(seq 50); do gone "$1" && exit 0; sleep 0.1; done; ps -o pid=,stat=,cmd= -p "$1"; exit 1' _ "$dpid"
check daemon_said grep -q "campaign: killed 1 process the job left running outside its process group" "$run"/s/slurm-*.out

# More local ranks than the open-files limit allows (issue 20, point 10: 1,024 ranks under
# ulimit -n 1024): with a higher hard limit the launcher raises its own and every rank's log is
# there; with the hard limit at 1024 the job fails saying why, never COMPLETED with logs lost.
# (The run that completes has 512 ranks under a soft limit of 512: their about 1,570 open files
# pass 1,024 as those of 1,024 ranks do, for half the CPU seconds.)
cat >many.yaml <<'Y'
campaign: many
workload: { command: ["/bin/sh", "-c", "echo rank $RANK"] }
scenarios: [{ name: s, nodes: 4, tasks_per_node: 256 }]
Y
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
	sed 's/tasks_per_node: 256/tasks_per_node: 128/' many.yaml >half.yaml
	(ulimit -Sn 512; "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/m1" half.yaml >m1.out 2>&1); rc=$?
	run=$(rundir m1.out)
	check fd_soft_limit_raised [ "$rc" -eq 0 ]
	check fd_every_rank_log [ "$(ls "$run/s/logs" | wc -l)" -eq 512 ]
	check fd_every_rank_logged [ "$(cat "$run"/s/logs/rank_*.out | grep -c '^rank ')" -eq 512 ]
else
	skip fd_soft_limit_raised "the hard open-files limit here is $hard"
fi
(ulimit -n 1024; "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/m2" many.yaml >m2.out 2>&1); rc=$?
run=$(rundir m2.out)
check fd_hard_limit_refused [ "$rc" -eq 1 ]
check fd_hard_limit_failed [ "$(rows "$run" "select state from jobs")" = FAILED ]
check fd_hard_limit_said grep -q "campaign launch: 1024 local ranks need about 3104 open files (a log pipe and file each); this process may have 1024" "$run"/s/slurm-*.out

# An aggregate killed between writing summary.json's temporary and renaming it leaves the
# temporary; the next complete aggregate removes it (and those of other dead writers of this
# host), and leaves a live process's and another host's alone.
agg_run=$(rundir k.out) kid=$(basename "$(rundir k.out)")
CAMPAIGN_FAULT=before-rename:summary.json killable agg1.out "$CAMPAIGN" aggregate --force --results "$SCRATCH/k" "$kid"
check killed_aggregate_said grep -q "killed at before-rename of summary.json" agg1.out
host=$(hostname -s | tr -c 'A-Za-z0-9_\n-' _)
left=$(ls "$agg_run" | grep -c "^summary\.json\.tmp\.$host\.[0-9]*\.0$")
check killed_aggregate_left_temp [ "$left" -eq 1 ]
sh -c 'exit 0' & dead=$!; wait $dead
touch "$agg_run/summary.json.tmp.$dead.3" "$agg_run/summary.json.tmp.$host.$$.0" \
	"$agg_run/summary.json.tmp.otherhost.$dead.0"
"$CAMPAIGN" aggregate --force --results "$SCRATCH/k" "$kid" >agg2.out 2>&1
check clean_aggregate_removes_dead_temps [ "$(ls "$agg_run" | grep '^summary\.json\.tmp\.' | LC_ALL=C sort | tr '\n' ' ')" = "$(printf '%s\n' "summary.json.tmp.$host.$$.0" "summary.json.tmp.otherhost.$dead.0" | LC_ALL=C sort | tr '\n' ' ')" ]
check clean_aggregate_summary_whole [ "$(json "$agg_run/summary.json" '"scenarios" in j')" = True ]
