# torchrun as the launcher (issue 24, part 1): workload.launcher: per-node
# starts one torchrun per (emulated) node with {{nnodes}}, {{nproc_per_node}},
# {{node_rank}}, {{master_addr}}, {{master_port}} filled in on each node, and
# the run is analysed as the ranks mode is: the world size launched, one rank
# per worker process, strong scaling from the campaign's global batch.
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
check torchrun_one_launcher_per_node grep -q "launch --nodes '2' --tasks-per-node '1' --  'torchrun'" "$run/torchrun-2n/job.sbatch"
check torchrun_placeholders_filled_on_the_node grep -q "'--node_rank=%{NODE_RANK}'" "$run/torchrun-2n/job.sbatch"
check torchrun_world_of_four grep -q "world 4 batch per rank 16" "$run"/torchrun-2n/slurm-*.out
check torchrun_ranks [ "$(S torchrun-1n '["ranks"]'),$(S torchrun-1n '["ranks_with_data"]'),$(S torchrun-2n '["ranks"]'),$(S torchrun-2n '["ranks_with_data"]')" = "2,2,4,4" ]
check torchrun_steps [ "$(S torchrun-2n '["active_steps"]')" = 4 ]
check torchrun_strong_scaling [ "$(S torchrun-2n '["scaling_mode"]')" = strong ]
check torchrun_node_logs [ "$(ls "$run/torchrun-2n/logs" | tr '\n' ' ')" = "rank_0.out rank_1.out " ]
