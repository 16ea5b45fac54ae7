# Scheduler load on a real SLURM cluster: `watch` over a 100-job run makes at
# most one job-info RPC per poll, and one node-info RPC more while a job runs (its
# nodes' health), counted by the controller itself (sdiag's REQUEST_JOB_USER_INFO
# and REQUEST_NODE_INFO, reset before), and backs off while nothing changes.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
slurm_cluster slurm_load /tmp/campaign-slurm-load 16947 17400
# job_info_rpcs: REQUEST_JOB_USER_INFO and REQUEST_JOB_INFO the controller served since the
# reset; all_rpcs: those and REQUEST_NODE_INFO
job_info_rpcs() {
	sdiag | awk '/REQUEST_JOB_USER_INFO|REQUEST_JOB_INFO / { sub("count:", "", $4); n += $4 } END { print n + 0 }'
}
all_rpcs() {
	sdiag | awk '/REQUEST_JOB_USER_INFO|REQUEST_JOB_INFO |REQUEST_NODE_INFO / { sub("count:", "", $4); n += $4 } END { print n + 0 }'
}
cat >hundred.yaml <<'Y'
campaign: hundred
workload: { command: ["/bin/sleep", "1"] }
matrix: { a: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"], b: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"] }
scenarios: [{ name: "j{{a}}{{b}}", nodes: 1 }]
Y
"$CAMPAIGN" submit --backend slurm --no-aggregation-job --results "$SCRATCH/h" hundred.yaml >sub.out 2>&1; rc=$?
run=$(rundir sub.out)
check slurm_load_submitted_100 grep -q "submitted 100 jobs to slurm" sub.out
sdiag --reset >/dev/null
"$CAMPAIGN" watch --plain --interval 1 --max-interval 4 --results "$SCRATCH/h" "$(basename "$run")" >watch.out 2>&1; rc=$?
ctld=$(all_rpcs) jobinfo=$(job_info_rpcs)
read -r rpcs polls <<<"$(sed -n 's/^watch: \([0-9]*\) controller RPCs\{0,1\} in \([0-9]*\) polls\{0,1\}.*/\1 \2/p' watch.out)"
check slurm_load_watch_done [ "$rc" -eq 0 ]
check slurm_load_all_completed [ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*) from jobs where state = 'COMPLETED'\").fetchone()[0])" "$run/state.db")" = 100 ]
check slurm_load_rpc_per_poll [ "$jobinfo" -le "${polls:-0}" -a "${rpcs:-x}" -le "$((2 * ${polls:-0}))" ]
check slurm_load_controller_agrees [ "$ctld" = "$rpcs" ]
echo "watch over 100 jobs: $polls polls, $rpcs RPCs by its own count, $ctld job- and node-info RPCs ($jobinfo job-info) served by slurmctld"

# Backoff: one job that sleeps 24 s; without backoff a 1 s interval polls ~24 times.
cat >quiet.yaml <<'Y'
campaign: quiet
workload: { command: ["/bin/sleep", "24"] }
scenarios: [{ name: q, nodes: 1 }]
Y
"$CAMPAIGN" submit --backend slurm --no-aggregation-job --results "$SCRATCH/q" quiet.yaml >sub.out 2>&1
run=$(rundir sub.out)
sdiag --reset >/dev/null
"$CAMPAIGN" watch --plain --interval 1 --max-interval 6 --results "$SCRATCH/q" "$(basename "$run")" >watch.out 2>&1
ctld=$(all_rpcs)
read -r rpcs polls <<<"$(sed -n 's/^watch: \([0-9]*\) controller RPCs\{0,1\} in \([0-9]*\) polls\{0,1\}.*/\1 \2/p' watch.out)"
check slurm_load_backoff [ "${polls:-99}" -le 12 ]
check slurm_load_backoff_controller_agrees [ "$ctld" = "$rpcs" ]
echo "watch over one quiet 24 s job: $polls polls, $ctld job- and node-info RPCs served by slurmctld"
