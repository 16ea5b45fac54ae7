# Against a real SLURM cluster (slurmctld + 4 slurmd on this host, started by
# tests/slurm/start-cluster.sh): the demo campaign on 1, 2 and 4 distinct
# nodes with the aggregation job running by itself; SBATCH_* overrides; a missing profiler
# plugin; the straggler named with its node; jobs purged by the controller; a controller
# outage (the end states: slurm_ends.sh). Skips, saying why, when not root; as root a cluster
# that cannot start is a failure.
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
if [ "$(id -u)" != 0 ]; then
	skip slurm_cluster "needs root to start the test cluster (munged, slurmd)"
	exit 0
fi
# tests/e2e/store_shared.sh runs this script again on its own ports (SLURM_TEST_PORTS)
read -r ctld node0 <<<"${SLURM_TEST_PORTS:-16917 17100}"
if ! slurm_ports "$ctld" "$node0"; then
	fail slurm_cluster "every port the test cluster may take is held by another running test"
	exit 1
fi
export CAMPAIGN_SLURM_DIR=/tmp/campaign-slurm-test-$ctld SLURM_CTLD_PORT=$ctld SLURM_NODE_PORT0=$node0
cluster() { # start with MinJobAge $1
	MIN_JOB_AGE=$1 "$ROOT/tests/slurm/start-cluster.sh" >cluster.out 2>cluster.err 6>&-
}
if ! cluster 300; then
	fail slurm_cluster "cannot start the test cluster: $(tail -n 2 cluster.err | tr '\n' ' ')"
	exit 1
fi
trap '"$ROOT/tests/slurm/stop-cluster.sh" 2>/dev/null; rm -rf "$SCRATCH" "$SCRATCH.lock"' EXIT
eval "$(tail -n 1 cluster.out)"
export GLOO_SOCKET_IFNAME=lo   # n1..n4 do not resolve; gloo uses the loopback interface
pass slurm_cluster_started
jobs_named() { squeue -h -o %j 2>/dev/null | grep -c "^campaign-$1-" ; }

# --- the demo campaign, with nothing but the submit command --------------------------
"$CAMPAIGN" submit --backend slurm --results "$SCRATCH/demo" "$ROOT/campaigns/local-demo.yaml" >submit.out 2>&1; rc=$?
run=$(rundir submit.out)
check slurm_submit_returns_at_once [ "$rc" -eq 0 ]
check slurm_submit_names_backend grep -q "submitted 3 jobs to slurm" submit.out
check slurm_analysis_without_any_command wait_for 240 test -s "$run/BOTTLENECK_ANALYSIS.md"
check slurm_aggregation_job_ran wait_for 180 bash -c 'ls "$1"/aggregate-*.out >/dev/null && grep -q BOTTLENECK_ANALYSIS "$1"/aggregate-*.out' _ "$run"
for s in gloo-1n:1 gloo-2n:2 gloo-4n:4; do
	n=${s#*:}; s=${s%:*}
	check "slurm_${s}_distinct_rank_hosts" [ "$(json "$run/$s/job_metadata.json" 'len(set(h["host"] for h in j["rank_hosts"]))')" = "$n" ]
	check "slurm_${s}_ranks_recorded" [ "$(json "$run/$s/job_metadata.json" 'len(j["rank_hosts"])')" = $((2 * n)) ]
	check "slurm_${s}_completed" [ "$(json "$run/$s/job_metadata.json" 'j["state"]')" = COMPLETED ]
done
check slurm_4n_nodelist [ "$(json "$run/gloo-4n/job_metadata.json" 'j["nodelist"]')" = "n[1-4]" ]
check slurm_monitors_on_every_node [ "$(ls "$run"/gloo-4n/monitor/*/cpu_monitor.csv | xargs -n1 dirname | xargs -n1 basename | sort | tr '\n' ' ')" = "n1 n2 n3 n4 " ]
check slurm_summary_three_analysed [ "$(json "$run/summary.json" 'sum(s["analysed"] for s in j["scenarios"])')" = 3 ]
"$CAMPAIGN" status --results "$SCRATCH/demo" --json >st.json
check slurm_status_json [ "$(json st.json '[x["state"] for x in j["jobs"]]')" = "['COMPLETED', 'COMPLETED', 'COMPLETED']" ]
check slurm_store_journal [ "$(json st.json 'j["store"]["journal"]')/$(rows "$run" 'pragma journal_mode')" = "${EXPECT_STORE_JOURNAL:-wal}/${EXPECT_STORE_JOURNAL:-wal}" ]
# store_shared.sh runs this section again with the store as on NFS (a rollback journal, POSIX
# locks): the aggregation job, status and submit write one store from several processes; the
# rest below does not depend on the store's journal
[ -n "${STORE_SECTION_ONLY:-}" ] && exit 0

# --- backend auto, and SBATCH_* overriding the campaign's slurm block ---------------------
cat >tiny.yaml <<'Y'
campaign: tiny
slurm: { partition: debug }
workload: { command: ["/bin/true"] }
scenarios: [{ name: t, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --results "$SCRATCH/tiny" tiny.yaml >tiny.out 2>&1; rc=$?
check slurm_auto_picks_slurm grep -q "campaign submit: using SLURM" tiny.out
check slurm_auto_wait_exit0 [ "$rc" -eq 0 ]
check slurm_auto_wait_completed grep -q "^t  *[0-9]*  *COMPLETED" tiny.out
SBATCH_PARTITION=nosuch "$CAMPAIGN" submit --backend slurm --results "$SCRATCH/tiny" tiny.yaml >bad.out 2>&1; rc=$?
check slurm_env_partition_overrides [ "$rc" -eq 5 ]
check slurm_refusal_explained grep -q "t: .*Invalid partition name specified" bad.out
"$CAMPAIGN" status --results "$SCRATCH/tiny" --json >st.json
check slurm_refused_job_failed [ "$(json st.json 'j["jobs"][0]["state"]')" = FAILED ]
# one job spec (issue 25, part 3): with SBATCH_PARTITION set, the kept script and what the
# controller recorded name the same partition, nodes, tasks and time
SBATCH_PARTITION=other "$CAMPAIGN" submit --wait --no-aggregation-job --backend slurm --results "$SCRATCH/part" tiny.yaml >part.out 2>&1
run=$(rundir part.out)
jid=$("$CAMPAIGN" status --json --results "$SCRATCH/part" >pst.json; json pst.json 'j["jobs"][0]["job_id"]')
scontrol show job "$jid" >scontrol.txt 2>&1
sb() { sed -n "s/^#SBATCH --$1=//p" "$run/t/job.sbatch"; }
sc() { tr ' ' '\n' <scontrol.txt | sed -n "s/^$1=//p" | head -n 1; }
check slurm_spec_partition [ "$(sb partition)/$(sc Partition)" = "other/other" ]
check slurm_spec_nodes_tasks [ "$(sb nodes)/$(sb ntasks-per-node)/$(sb time)" = "$(sc NumNodes)/$(sc NumTasks)/$(sc TimeLimit | sed 's/^\(..:..:..\)$/\1/')" ]

# --- profile.nccl_inspector where the plugin is absent (issue 38): every node's job log names
# it, the ranks run with the plugin's other variables and the run goes on; the analysis names
# the missing profiler
cat >insp.yaml <<'Y'
campaign: insp
workload: { command: ["/bin/sh", "-c", "echo \"dump dir $NCCL_INSPECTOR_DUMP_DIR enable ${NCCL_INSPECTOR_ENABLE-unset}\"; echo step 0 time 5.0 ms"] }
profile: { warmup_steps: 0, active_steps: 1, nccl_inspector: true }
analysis: { step_log: { pattern: 'step (?<step>\d+) time (?<step_ms>[0-9.]+) ms' } }
scenarios: [{ name: i, nodes: 2 }]
Y
"$CAMPAIGN" submit --backend slurm --results "$SCRATCH/insp" insp.yaml >insp.out 2>&1; rc=$?
run=$(rundir insp.out)
check slurm_inspector_submitted [ "$rc" -eq 0 ]
check slurm_inspector_analysed wait_for 120 test -s "$run/BOTTLENECK_ANALYSIS.md"
for n in n1 n2; do
	check "slurm_inspector_absent_$n" grep -q "^campaign: NCCL Inspector plugin libnccl-profiler-inspector.so not found on $n: ranks run without it" "$run"/i/slurm-*.out
done
check slurm_inspector_ranks_ran [ "$(grep -c "^dump dir $run/i/nccl_inspector enable unset$" "$run"/i/slurm-*.out)" -eq 2 ]
check slurm_inspector_completed [ "$(json "$run/summary.json" '(j["scenarios"][0]["state"], j["scenarios"][0]["profile_missing"])')" = "('COMPLETED', ['nccl_inspector'])" ]
check slurm_inspector_report grep -q "Profile missing: nccl_inspector was asked for but left no output" "$run/BOTTLENECK_ANALYSIS.md"

# --- the straggler named with its node, and the fabric probes (issue 23) --------------------
# 2 nodes x 2 ranks, rank 3 (on n2) computing 40 ms more per step; analysis.fabric_probe
# adds a gloo probe on 1 and on 2 nodes.
cat >strag.yaml <<'Y'
campaign: strag
workload:
  command: "{{trainer}} --backend gloo --steps 20 --warmup-steps 4 --batch-per-rank 32 --hidden 256 --metrics-dir {{metrics_dir}} {{extra}}"
  env: { OPENBLAS_NUM_THREADS: "1" }
  params: { extra: "" }
profile: { warmup_steps: 4, active_steps: 16 }
analysis: { fabric_probe: true }
scenarios:
  - { name: one, nodes: 1, tasks_per_node: 2 }
  - { name: slow, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 3 --slow-ms 40" } }
Y
"$CAMPAIGN" submit --wait --backend slurm --results "$SCRATCH/strag" strag.yaml >strag.out 2>&1; rc=$?
run=$(rundir strag.out)
check slurm_strag_ok [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || tail -n 5 "$run"/*/slurm-*.out "$run"/*/logs/rank_*.out 2>/dev/null | sed 's/^/   | /'
# rank 3 runs on the second node of the allocation (block distribution)
nl=$(json "$run/slow/job_metadata.json" 'j["nodelist"]')
second=$(scontrol show hostnames "$nl" 2>/dev/null | sed -n 2p)
# (scontrol can time out beside a loaded suite: the list's second name by hand, "n[2-3]" or "n2,n3")
[ -n "$second" ] || second=$(python3 -c 'import re, sys
s = sys.argv[1]
m = re.fullmatch(r"(.*)\[(\d+)-(\d+)\]", s)
print(m.group(1) + str(int(m.group(2)) + 1) if m else s.split(",")[1])' "$nl")
check slurm_straggler_node_named [ "$(json "$run/summary.json" '[(g["rank"], g["node"], g["cause"]) for g in j["scenarios"][1]["stragglers"]]')" = "[(3, '$second', 'compute')]" ]
check slurm_straggler_node_is_rank3s [ "$(json "$run/slow/ranks/rank_3.json" 'j["host"]')" = "$second" ]
check slurm_straggler_in_report grep -q "\*\*Straggler: rank 3 on $second\*\*" "$run/BOTTLENECK_ANALYSIS.md"
check slurm_fabric_probes_ran [ "$(json "$run/summary.json" '[(p["name"], p["nodes"], p["ranks"], p["state"], len(p["sizes"])) for p in j["fabric_probes"]]')" = "[('fabric-probe-gloo-1n', 1, 2, 'COMPLETED', 8), ('fabric-probe-gloo-2n', 2, 4, 'COMPLETED', 8)]" ]
check slurm_fabric_probe_two_nodes [ "$(scontrol show hostnames "$(json "$run/fabric-probe-gloo-2n/job_metadata.json" 'j.get("nodelist")')" | wc -l)" -eq 2 ]
check slurm_fabric_used [ "$(json "$run/summary.json" 'all(c["fabric_pct"] is not None for s in j["scenarios"] for c in s["collectives"])')" = True ]

# --- a MASTER_ADDR the nodes cannot resolve is said in the job log at once (issue 24) -------
cat >addr.yaml <<'Y'
campaign: addr
workload: { command: ["/bin/true"], env: { MASTER_ADDR: "no-such-node.invalid" } }
scenarios: [{ name: two, nodes: 2 }]
Y
"$CAMPAIGN" submit --wait --no-aggregation-job --backend slurm --results "$SCRATCH/addr" addr.yaml >addr.out 2>&1
run=$(rundir addr.out)
check slurm_master_addr_unresolved grep -q "^campaign launch: node n[1-4]: MASTER_ADDR no-such-node.invalid does not resolve here (.*): an env:// rendezvous" "$run"/two/slurm-*.out
check slurm_rendezvous_said grep -q "^campaign launch: 2 ranks on 2 nodes; rendezvous (env://) at no-such-node.invalid:[0-9]*$" "$run"/two/slurm-*.out

# --- two scenarios on one node at the same time: contaminated, unless exclusive ----------
# (issue 21, finding 6) Both pinned to n1; without --exclusive they share it.
shared_yaml() { # NAME EXCLUSIVE
	cat >"$1.yaml" <<Y
campaign: $1
slurm: { exclusive: $2, extra: ["--nodelist=n1"] }
workload: { command: ["/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo \"step \$i time 400 ms\"; sleep 0.4; done"] }
profile: { warmup_steps: 0, active_steps: 8 }
analysis: { step_log: { pattern: 'step (?<step>\\d+) time (?<step_ms>[0-9.]+) ms' } }
scenarios: [{ name: a, nodes: 1 }, { name: b, nodes: 1 }]
Y
}
shared_yaml shared false
shared_yaml alone true
"$CAMPAIGN" submit --wait --backend slurm --results "$SCRATCH/shared" shared.yaml >shared.out 2>&1
run=$(rundir shared.out)
check slurm_shared_no_exclusive_line bash -c '! grep -q "^#SBATCH --exclusive" "$1/a/job.sbatch"' _ "$run"
check slurm_shared_contaminated grep -q "a\*\* .*\*\*contaminated\*\*: it shared nodes with b (on n1, for [0-9]* s)" "$run/BOTTLENECK_ANALYSIS.md"
check slurm_shared_contaminated_json [ "$(json "$run/summary.json" '[s["contaminated_by"] is not None for s in j["scenarios"]]')" = "[True, True]" ]
"$CAMPAIGN" submit --wait --backend slurm --results "$SCRATCH/alone" alone.yaml >alone.out 2>&1
run=$(rundir alone.out)
check slurm_exclusive_by_default grep -q "^#SBATCH --exclusive" "$run/a/job.sbatch"
check slurm_exclusive_not_contaminated [ "$(json "$run/summary.json" '[s["contaminated_by"] for s in j["scenarios"]]')" = "[None, None]" ]

# --- the controller is down for a while ------------------------------------------------
# a's ranks run through the outage; b's setup holds its step back until the controller is
# down, so that its srun fails and the launcher waits for the controller to start it again.
# The ranks run until the test has seen what it looks for and creates "end" (at most 5 minutes),
# not for a fixed time: with a hog on each core, a's 25 s sleep once ended before the test saw
# both jobs RUNNING.
cat >outage.yaml <<Y
campaign: outage
workload:
  command: ["/bin/sh", "-c", "for i in \$(seq 1500); do [ -e $SCRATCH/end ] && exit 0; sleep 0.2; done"]
  setup: ["sh -c 'until [ -e {{go}} ]; do sleep 0.2; done'"]
scenarios:
  - { name: a, nodes: 1, params: { go: / } }
  - { name: b, nodes: 2, params: { go: $SCRATCH/go } }
Y
"$CAMPAIGN" submit --backend slurm --results "$SCRATCH/out" outage.yaml >submit.out 2>&1
run=$(rundir submit.out)
id=$(basename "$run")
states() { "$CAMPAIGN" status --results "$SCRATCH/out" --json "$id" >st.json 2>/dev/null; json st.json '" ".join(x["state"] for x in j["jobs"])'; }
a_ranks_run() { [ "$(states)" = "RUNNING RUNNING" ] && [ -e "$run/a/logs/rank_0.out" ]; }
check slurm_outage_jobs_running wait_for 180 a_ranks_run
"$ROOT/tests/slurm/ctld.sh" stop
touch go
"$CAMPAIGN" status --results "$SCRATCH/out" "$id" >st.txt 2>st.err; rc=$?
check slurm_outage_exit5 [ "$rc" -eq 5 ]
check slurm_outage_says_where grep -q "cannot reach slurmctld at 127.0.0.1:$ctld" st.err
check slurm_outage_still_shows_state grep -q "^a  *[0-9]*  *RUNNING" st.txt
check slurm_outage_step_waits wait_for 180 grep -q "slurmctld does not answer; waiting for it" "$run"/b/slurm-*.out
"$ROOT/tests/slurm/ctld.sh" start
# b's ranks started again (its node logs), then every rank told to end
wait_for 180 bash -c '[ -e "$1"/b/logs/rank_1.out ]' _ "$run"
touch end
done_ok() { [ "$(states)" = "COMPLETED COMPLETED" ]; }
if wait_for 180 done_ok; then
	pass slurm_outage_recovers
else
	fail slurm_outage_recovers "states after 180 s: $(states)"
	tail -n 5 "$run"/*/slurm-*.out | sed 's/^/   /'
fi
check slurm_outage_step_started_again [ -e "$run/b/logs/rank_1.out" ]
check slurm_outage_nothing_submitted_twice [ "$(grep -c "Name=campaign-$id-[ab] " "$CAMPAIGN_SLURM_DIR/jobcomp/jobcomp.txt")" = 2 ]

# --- jobs the controller has already forgotten (MinJobAge) -------------------------------
"$ROOT/tests/slurm/stop-cluster.sh" 2>/dev/null
if ! cluster 2; then
	fail slurm_purge_cluster "cannot restart the cluster with MinJobAge=2"
	exit 0
fi
eval "$(tail -n 1 cluster.out)"
cat >purge.yaml <<'Y'
campaign: purge
workload: { command: "/bin/sh -c '{{what}}'", params: { what: "exit 0" } }
scenarios: [{ name: fine, nodes: 1 }, { name: exits5, nodes: 2, params: { what: "exit 5" } }]
Y
"$CAMPAIGN" submit --backend slurm --no-aggregation-job --results "$SCRATCH/purge" purge.yaml >submit.out 2>&1
run=$(rundir submit.out)
id=$(basename "$run")
forgotten() { [ -f "$run/exits5/job.status" ] && [ -f "$run/fine/job.status" ] && ! squeue -h -t all -o %j | grep -q "campaign-$id-"; }
check slurm_purge_jobs_forgotten wait_for 180 forgotten
"$CAMPAIGN" status --results "$SCRATCH/purge" --json "$id" >st.json
check slurm_purged_states [ "$(json st.json '[(x["state"], x["exit_code"]) for x in j["jobs"]]')" = "[('COMPLETED', 0), ('FAILED', 5)]" ]
check slurm_purged_reason grep -q "decided from job.status" st.json
check slurm_purged_analysis_by_status [ -s "$run/BOTTLENECK_ANALYSIS.md" ]
