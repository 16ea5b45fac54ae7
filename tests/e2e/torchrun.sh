# torchrun as the launcher (issue 24, part 1): workload.launcher: per-node
# starts one torchrun per (emulated) node with {{nnodes}}, {{nproc_per_node}},
# {{node_rank}}, {{master_addr}}, {{master_port}} filled in on each node, and
# the run is analysed as the ranks mode is: the world size launched, one rank
# per worker process, strong scaling from the campaign's global batch.
# Workers are ranks (issue 24, part 2): each worker torchrun starts is
# recorded as ranks/rank_<RANK>.json (its global rank, node and pid), the
# launchers apart, so a slow worker is named by its rank and node.
# (Debian's torch 1.13 torchrun needs --redirects 1 --tee 1 under Python 3.11.)
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch torchrun
command -v torchrun >/dev/null || { skip torchrun "no torchrun on PATH (python3-torch installs it)"; exit 0; }
cp "$ROOT/campaigns/tb_train.py" tb_train.py
cp "$ROOT/campaigns/pytorch-torchrun.yaml" t.yaml
torch_submit out.txt --backend local --results "$SCRATCH/res" t.yaml; rc=$?
run=$(rundir out.txt)
S() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]$2"; }
check torchrun_completes [ "$rc" -eq 0 ]
# (when it did not: what the jobs said, for the next reader of this log)
[ "$rc" -eq 0 ] || failed_run_said "$run"
check torchrun_one_launcher_per_node grep -q "launch --nodes '2' --tasks-per-node '1' '--workers-per-node' '2' --  'torchrun'" "$run/torchrun-2n/job.sbatch"
check torchrun_placeholders_filled_on_the_node grep -q "'--node_rank=%{NODE_RANK}'" "$run/torchrun-2n/job.sbatch"
check torchrun_world_of_four grep -q "world 4 batch per rank 16" "$run"/torchrun-2n/slurm-*.out
check torchrun_ranks [ "$(S torchrun-1n '["ranks"]'),$(S torchrun-1n '["ranks_with_data"]'),$(S torchrun-2n '["ranks"]'),$(S torchrun-2n '["ranks_with_data"]')" = "2,2,4,4" ]
check torchrun_steps [ "$(S torchrun-2n '["active_steps"]')" = 4 ]
check torchrun_strong_scaling [ "$(S torchrun-2n '["scaling_mode"]')" = strong ]
check torchrun_node_logs [ "$(ls "$run/torchrun-2n/logs" | tr '\n' ' ')" = "rank_0.out rank_1.out " ]
check torchrun_records_workers_and_launchers [ "$(ls "$run/torchrun-2n/ranks" | tr '\n' ' ')" = "launcher_0.json launcher_1.json rank_0.json rank_1.json rank_2.json rank_3.json " ]
check torchrun_no_ranks_note [ "$(S torchrun-1n '["ranks_note"]'),$(S torchrun-2n '["ranks_note"]')" = "None,None" ]

# A slow worker: 2 nodes x 2 workers, RANK 3 (the second worker of local2) sleeping 100 ms in
# its Dataset's __getitem__ each step; 2 profiling cycles of 6 steps: 12 steps, 2 files a worker.
sed -e 's/"--steps", "10", "--global-batch", "64"\]/"--steps", "16", "--active", "6", "--global-batch", "64", "--slow-rank", "3", "--slow-ms", "100"]/' \
    -e 's/active_steps: 10/active_steps: 12/' -e 's/^campaign: torchrun/campaign: torchslow/' \
    -e '/torchrun-1n/d' -e 's/torchrun-2n/slow-2n/' t.yaml >slow.yaml
check torchrun_slow_campaign_made [ "$(grep -c -e '"--slow-rank", "3", "--slow-ms", "100"\]' -e 'active_steps: 12' -e 'name: slow-2n' slow.yaml)" = 3 ]
torch_submit slow.txt --backend local --results "$SCRATCH/res" slow.yaml; rc=$?
run=$(rundir slow.txt)
job=$run/slow-2n
check torchrun_slow_completes [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || failed_run_said "$run"
Z() { json "$run/summary.json" "j['scenarios'][0]$1"; }
check torchrun_slow_ranks [ "$(Z '["ranks"]'),$(Z '["ranks_with_data"]'),$(Z '["ranks_note"]'),$(Z '["active_steps"]')" = "4,4,None,12" ]
check torchrun_slow_two_files_per_worker [ "$(ls "$job/traces" | wc -l)" -eq 8 ]
check torchrun_slow_straggler_rank3_local2 [ "$(json "$run/summary.json" '[(g["rank"], g["node"]) for g in j["scenarios"][0]["stragglers"]][:1]')" = "[(3, 'local2')]" ]
check torchrun_slow_report_names_it grep -q "\*\*Straggler: rank 3 on local2\*\*" "$run/BOTTLENECK_ANALYSIS.md"
check torchrun_slow_records [ "$(ls "$job/ranks" | tr '\n' ' ')" = "launcher_0.json launcher_1.json rank_0.json rank_1.json rank_2.json rank_3.json " ]
# each worker's record against what the worker itself printed ("rank R of 4: pid P", in its
# node's log), the node its launcher ran on, and the process its trace files are named after
check torchrun_slow_worker_records python3 "$ROOT/tests/tools/torchrun_records.py" "$job"
