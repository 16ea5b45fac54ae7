# validate / render / usage: exit codes, exact messages, nothing created on errors.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"

out=$("$CAMPAIGN" validate "$ROOT/campaigns/profiling.yaml"); rc=$?
check validate_profiling_exit0 [ "$rc" -eq 0 ]
check validate_profiling_lists_scenarios bash -c 'grep -q "^gpu-4n  *4  *4  *4  *16 nccl" <<<"$1" && grep -q "^cpu-2n  *2  *2  *0  *4 gloo" <<<"$1"' _ "$out"

cat >bad.yaml <<'Y'
campaign: demo
scenarios:
  - name: a
    nodes: -1
    tasks_per_node: lots
  - name: "../escape"
    nodes: 1
  - name: b
    nodes: 1
    frobnicate: true
Y
err=$("$CAMPAIGN" submit --backend local --results "$SCRATCH/res" bad.yaml 2>&1); rc=$?
check invalid_campaign_exit2 [ "$rc" -eq 2 ]
expected='bad.yaml:4:12: scenarios[0].nodes: -1 is out of range (1..100000)
bad.yaml:5:21: scenarios[0].tasks_per_node: expected an integer, found "lots"
bad.yaml:6:11: scenarios[1].name: "../escape" is not a safe scenario name (letters, digits, . _ -; at most 64; not starting with . or -)
bad.yaml:10:5: scenarios[2].frobnicate: unknown key (expected one of: name, nodes, tasks_per_node, gpus_per_node, backend, time, env, params, analysis)
bad.yaml: 4 problems; nothing was done'
check invalid_campaign_all_errors_with_places [ "$err" = "$expected" ]
check invalid_campaign_creates_nothing [ ! -e "$SCRATCH/res" ]

"$CAMPAIGN" render --out "$SCRATCH/rendered" "$ROOT/campaigns/profiling.yaml" >render.out; rc=$?
check render_exit0 [ "$rc" -eq 0 ]
check render_writes_each_script [ "$(grep -c '/job\.sbatch$' render.out)" -eq 4 ]
# each script's path, then the words its ranks' command gets, each quoted
check render_argv_each_job [ "$(sed -n '2~2p' render.out | grep -c "^  argv: '$ROOT/bin/campaign-trainer")" -eq 4 ]
check render_argv_words grep -qxF "  argv: '$ROOT/bin/campaign-trainer' '--backend' 'gloo' '--ddp' 'sync' '--bucket-mb' '4' '--workers' '2' '--steps' '120' '--warmup-steps' '20' '--batch-per-rank' '64' '--hidden' '1024' '--depth' '4' '--metrics-dir' '$SCRATCH/rendered/cpu-2n/metrics'" render.out
check render_scripts_parse bash -c 'for f in "$1"/*/job.sbatch; do bash -n "$f" || exit 1; done' _ "$SCRATCH/rendered"
# The kept script states what is submitted: SBATCH_* from the environment win
# over the campaign in the #SBATCH lines as in libslurm's job description.
SBATCH_PARTITION=gpu-short SBATCH_ACCOUNT=proj42 "$CAMPAIGN" render --out "$SCRATCH/rendered-env" "$ROOT/tests/fixtures/tiny.yaml" >/dev/null
check render_sbatch_env_partition grep -qx "#SBATCH --partition=gpu-short" "$SCRATCH/rendered-env/t/job.sbatch"
check render_sbatch_env_account grep -qx "#SBATCH --account=proj42" "$SCRATCH/rendered-env/t/job.sbatch"
check render_gpu_sbatch_lines grep -qx -- '#SBATCH --gpus-per-node=4' "$SCRATCH/rendered/gpu-2n/job.sbatch"
check render_cpu_has_no_gpu_line bash -c '! grep -q -- "--gpus-per-node" "$1"' _ "$SCRATCH/rendered/cpu-2n/job.sbatch"
check render_extra_and_partition bash -c 'grep -qx -- "#SBATCH --exclusive" "$1" && grep -qx -- "#SBATCH --partition=gpu" "$1"' _ "$SCRATCH/rendered/gpu-1n/job.sbatch"
check render_metadata [ "$(json "$SCRATCH/rendered/gpu-4n/job_metadata.json" 'j["ranks"]')" = 16 ]

"$CAMPAIGN" frobnicate >/dev/null 2>&1; check unknown_command_exit2 [ $? -eq 2 ]
"$CAMPAIGN" submit --bogus x.yaml >/dev/null 2>&1; check unknown_option_exit2 [ $? -eq 2 ]
"$CAMPAIGN" status --results "$SCRATCH/none" >/dev/null 2>err.txt; rc=$?
check status_without_runs_exit3 [ "$rc" -eq 3 ]
check status_without_runs_says_why grep -q "no runs under $SCRATCH/none" err.txt
"$CAMPAIGN" validate missing.yaml 2>err.txt; rc=$?
check validate_missing_file [ "$rc" -eq 2 ] 
check validate_missing_file_message grep -q "cannot open missing.yaml" err.txt
check help_lists_exit_codes bash -c '"$1" --help | grep -q "^  2   bad command line or invalid campaign file"' _ "$CAMPAIGN"
check help_of_command bash -c '"$1" submit --help | grep -q -- "--wait"' _ "$CAMPAIGN"
"$CAMPAIGN" --help >help.txt; "$CAMPAIGN" help --all >help_all.txt
node_re="^  (launch +start N x T|supervise +run a local|profile-rank run one rank|collect +copy a workload)"
check help_hides_node_commands bash -c '! grep -qE "$1" help.txt' _ "$node_re"
check help_all_lists_node_commands bash -c '[ "$(grep -cE "$1" help_all.txt)" -eq 4 ]' _ "$node_re"
check help_all_lists_user_commands grep -qE "^  submit +validate, render and submit" help_all.txt
# docs/campaign-format.md's key tables are the loader's (campaign help --keys; make docs-keys)
check docs_key_tables_current python3 "$ROOT/tests/tools/doc_keys.py" "$CAMPAIGN" "$ROOT/docs/campaign-format.md" --check
check help_of_node_command bash -c '"$1" launch --help | grep -q -- "--tasks-per-node T"' _ "$CAMPAIGN"
check help_shared_results_option bash -c '"$1" cancel --help | grep -q -- "--results DIR"' _ "$CAMPAIGN"
"$CAMPAIGN" help frobnicate >/dev/null 2>&1; check help_unknown_command_exit2 [ $? -eq 2 ]
# libslurm would end the process (fatal) without a configuration: campaign checks first.
SLURM_CONF=/nonexistent/slurm.conf timeout 20 "$CAMPAIGN" submit --backend slurm --results "$SCRATCH/s" "$ROOT/campaigns/local-demo.yaml" >out.txt 2>err.txt; rc=$?
check slurm_without_conf_exit5 [ "$rc" -eq 5 ]
check slurm_without_conf_says_what grep -q "no SLURM configuration: set SLURM_CONF" err.txt
SLURM_CONF=/nonexistent/slurm.conf "$CAMPAIGN" validate "$ROOT/campaigns/local-demo.yaml" >/dev/null
check auto_without_conf_is_local bash -c 'SLURM_CONF=/nonexistent/slurm.conf "$1" submit --wait --results "$2/auto" "$3" 2>&1 | grep -q "no SLURM configuration (\$SLURM_CONF, /etc/slurm/slurm.conf): using the local executor"' _ "$CAMPAIGN" "$SCRATCH" "$ROOT/tests/fixtures/tiny.yaml"
