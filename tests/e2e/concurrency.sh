# Several campaign processes on one run at once: a running local run, four
# `watch`, four `status --json` loops and two `aggregate --force` loops. The
# store must stay intact (integrity_check, one transition per state change),
# no process may fail or see "database is locked", and the run must end
# analysed with every job COMPLETED.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
T=$BIN/campaign-trainer
cat >c.yaml <<Y
campaign: conc
workload: { command: "$T --steps 60 --warmup-steps 5 --hidden 128 --metrics-dir={{metrics_dir}}" }
scenarios:
  - { name: a, nodes: 1, tasks_per_node: 2 }
  - { name: b, nodes: 2, tasks_per_node: 1 }
  - { name: c, nodes: 1, tasks_per_node: 1 }
Y
"$CAMPAIGN" submit --backend local --results "$SCRATCH/R" c.yaml >sub.out 2>&1
run=$(rundir sub.out)
id=$(basename "$run")
pids=()
for i in 1 2 3 4; do
	"$CAMPAIGN" watch --plain --interval 1 --max-interval 2 --results "$SCRATCH/R" "$id" >watch$i.out 2>&1 &
	pids+=($!)
done
status_loop() { # until the analysis exists (at most 600 polls)
	local k rc=0
	for k in $(seq 1 600); do
		"$CAMPAIGN" status --json --results "$SCRATCH/R" "$id" >"st$1.json" 2>>"st$1.err" || rc=1
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "st$1.json" 2>>"st$1.err" || rc=1
		[ "$(json "st$1.json" 'j["analysis"] is not None and all(x["final"] for x in j["jobs"])')" = True ] && break
	done
	return $rc
}
aggregate_loop() {
	local k rc=0
	for k in $(seq 1 15); do
		"$CAMPAIGN" aggregate --force --results "$SCRATCH/R" "$id" >/dev/null 2>>"ag$1.err" || rc=1
	done
	return $rc
}
for i in 1 2 3 4; do status_loop $i & pids+=($!); done
for i in 1 2; do aggregate_loop $i & pids+=($!); done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
check concurrent_all_processes_ok [ "$bad" -eq 0 ]
check concurrent_never_locked bash -c '! grep -l "database is locked\|busy" "$@"' _ watch*.out st*.err ag*.err
check concurrent_no_errors bash -c '! grep -q . "$@"' _ st*.err ag*.err
check concurrent_watchers_saw_the_end bash -c 'for f; do grep -q "^analysis: " "$f" || exit 1; done' _ watch*.out
"$CAMPAIGN" status --json --results "$SCRATCH/R" "$id" >st.json
check concurrent_all_completed [ "$(json st.json '[x["state"] for x in j["jobs"]]')" = "['COMPLETED', 'COMPLETED', 'COMPLETED']" ]
check concurrent_store_journal [ "$(json st.json 'j["store"]["journal"]')/$(rows "$run" 'pragma journal_mode')" = "${EXPECT_STORE_JOURNAL:-wal}/${EXPECT_STORE_JOURNAL:-wal}" ]
check concurrent_store_intact [ "$(rows "$run" 'pragma integrity_check')" = ok ]
check concurrent_one_transition_each [ "$(rows "$run" "select group_concat(n, ' ') from (select count(*) n from transitions group by scenario, to_state)")" = "1 1 1 1 1 1 1 1 1 1 1 1" ]
check concurrent_summary_final [ "$(json "$run/summary.json" '[(s["state"], s["analysed"]) for s in j["scenarios"]]')" = "[('COMPLETED', True), ('COMPLETED', True), ('COMPLETED', True)]" ]
check concurrent_no_temp_files_left bash -c '! find "$1" -name "*.tmp.*" | grep -q .' _ "$run"
