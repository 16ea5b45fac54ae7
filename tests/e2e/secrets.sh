# Secrets never leave the submitting user (issue 34): a literal secret in
# workload.env is refused with its advice; { from_env: true } reaches the job on the
# local executor (also through a supervisor `resume` restarts) and on SLURM, with no
# file of the run or of the paper holding the value; files holding env values are
# private whatever the umask; an untracked .env, id_rsa, key.pem and a file whose contents
# look secret are listed by name, size, time and a keyed hash only (issue 46: no plain
# SHA-256 of them under the run or the paper), and paper refuses a campaign file that still
# holds a secret.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
umask 022
# the per-user key of keyed hashes: this test's own
export XDG_CONFIG_HOME=$SCRATCH/config
# the values, made here: no file of the tree holds them
TOKEN="tok-$RANDOM$RANDOM-e2e-pass-through"
DOTENV="dotenv-$RANDOM$RANDOM-value"
PEMBODY="pem$RANDOM$RANDOM"
SUM=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)
# holds VALUE? every file under DIR (names of the matches on stdout)
holds() { grep -rlF -- "$2" "$1"; }

# --- a literal secret is refused, naming the variable, not the value ------------------
cat >literal.yaml <<Y
campaign: lit
workload: { command: [/bin/true], env: { WANDB_API_KEY: "$TOKEN" } }
scenarios: [{ name: t, nodes: 1 }]
Y
"$CAMPAIGN" validate literal.yaml >lit.out 2>lit.err; rc=$?
check secrets_literal_refused_exit2 [ "$rc" -eq 2 ]
check secrets_literal_message [ "$(cat lit.err)" = "literal.yaml:2:57: workload.env.WANDB_API_KEY: WANDB_API_KEY looks secret (its name holds KEY): a literal value would be copied into the run's campaign.yaml, job scripts and metadata; pass it from the submitting environment instead with WANDB_API_KEY: { from_env: true } and export WANDB_API_KEY before submitting (or set allow_literal_secrets: true)
literal.yaml: 1 problem; nothing was done" ]
check secrets_literal_message_has_no_value bash -c '! grep -qF -- "$1" lit.err lit.out' _ "$TOKEN"
"$CAMPAIGN" submit --backend local --results "$SCRATCH/lit-res" literal.yaml >/dev/null 2>&1; rc=$?
check secrets_literal_submit_creates_nothing [ "$rc" -eq 2 -a ! -e "$SCRATCH/lit-res" ]

# --- from_env: refused when not set, nothing created ------------------------------------
git init -q -b main proj && cd proj
git config user.email t@example.org && git config user.name Tester
cat >campaign.yaml <<Y
campaign: pass
workload:
  command: ["/bin/sh", "-c", "[ \"\$(printf %s \"\$API_TOKEN\" | sha256sum)\" = '$SUM  -' ] && echo token-reached || echo token-missing"]
  env: { API_TOKEN: { from_env: true }, PLAIN: "plain-value" }
scenarios: [{ name: t, nodes: 1 }]
Y
git add campaign.yaml && git commit -qm "campaign"
printf 'SECRET_KEY=%s\n' "$DOTENV" >.env
printf -- '-----BEGIN %s-----\n%s\n-----END %s-----\n' "PRIVATE KEY" "$PEMBODY" "PRIVATE KEY" >key.pem
printf 'kept notes\n' >notes.txt
printf 'SECRETDOTENV_abc123\n' >id_rsa
printf 'backup of\n-----BEGIN %s-----\n%s\n' "OPENSSH PRIVATE KEY" "$PEMBODY" >backup.txt
env -u API_TOKEN "$CAMPAIGN" submit --backend local --results "$SCRATCH/unset" campaign.yaml >"$SCRATCH/unset.out" 2>&1; rc=$?
check secrets_from_env_unset_exit2 [ "$rc" -eq 2 ]
check secrets_from_env_unset_message [ "$(tail -n 1 "$SCRATCH/unset.out")" = "campaign submit: API_TOKEN is not set in this environment, and campaign.yaml passes it through to the jobs (from_env: true): export it and run the command again; nothing was submitted" ]
check secrets_from_env_unset_creates_nothing [ ! -e "$SCRATCH/unset" ]

# --- from_env on the local executor -------------------------------------------------------
API_TOKEN=$TOKEN "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" campaign.yaml >"$SCRATCH/local.out" 2>&1; rc=$?
run=$(rundir "$SCRATCH/local.out")
check secrets_local_run_ok [ "$rc" -eq 0 ]
check secrets_local_token_reached grep -qx token-reached "$run/t/logs/rank_0.out"
check secrets_local_no_file_holds_token bash -c '! grep -rqF -- "$1" "$2"' _ "$TOKEN" "$run"
check secrets_local_literal_kept grep -q "^export 'PLAIN=plain-value'" "$run/t/job.sbatch"
check secrets_local_script_checks_it grep -qx "campaign_need_env 'API_TOKEN'" "$run/t/job.sbatch"
check secrets_local_metadata_says_from_env [ "$(json "$run/t/job_metadata.json" 'j["env"]')" = "{'API_TOKEN': {'from_env': True}, 'PLAIN': 'plain-value'}" ]
modes() { (cd "$1" && stat -c '%a %n' campaign.yaml t/job.sbatch t/job_metadata.json t/job_metadata.txt provenance/proj.patch | tr '\n' ';'); }
check secrets_local_private_modes [ "$(modes "$run")" = "600 campaign.yaml;700 t/job.sbatch;600 t/job_metadata.json;600 t/job_metadata.txt;600 provenance/proj.patch;" ]

# --- untracked .env, id_rsa, key.pem, backup.txt: by name, size, time, keyed hash ---------
P=$run/provenance.json
check secrets_untracked_listed [ "$(json "$P" '[(f["path"], f["in_patch"], f["left_out"]) for f in j["repositories"][0]["untracked_files"]]')" = "[('.env', False, 'its name looks secret (.env*)'), ('backup.txt', False, 'its contents look secret (a private key)'), ('id_rsa', False, 'its name looks secret (id_*)'), ('key.pem', False, 'its name looks secret (*.pem)'), ('notes.txt', True, None)]" ]
check secrets_untracked_hash_kinds [ "$(json "$P" '[(f["path"], f["sha256"] is None, f.get("hmac_key")) for f in j["repositories"][0]["untracked_files"]]')" = "[('.env', True, 'per-user'), ('backup.txt', True, 'per-user'), ('id_rsa', True, 'per-user'), ('key.pem', True, 'per-user'), ('notes.txt', False, None)]" ]
check secrets_key_private [ "$(stat -c %a "$XDG_CONFIG_HOME/campaign/provenance.key")" = 600 ]
check secrets_patch_keeps_plain_files grep -qx "+kept notes" "$run/provenance/proj.patch"
check secrets_no_file_holds_dotenv bash -c '! grep -rqF -e "$1" -e "$2" "$3"' _ "$DOTENV" "$PEMBODY" "$run"

# --- the paper: clean, and says what was left out -------------------------------------------
"$CAMPAIGN" paper --results "$SCRATCH/res" "$(basename "$run")" >"$SCRATCH/paper.out" 2>&1; rc=$?
check secrets_paper_ok [ "$rc" -eq 0 ]
check secrets_paper_holds_no_secret bash -c '! grep -rqF -e "$1" -e "$2" -e "$3" "$4"' _ "$TOKEN" "$DOTENV" "$PEMBODY" "$run/paper"
hmac_of() { python3 -c 'import hashlib,hmac,sys; print(hmac.new(bytes.fromhex(open(sys.argv[1]).read().strip()), open(sys.argv[2], "rb").read(), hashlib.sha256).hexdigest())' "$XDG_CONFIG_HOME/campaign/provenance.key" "$1"; }
check secrets_paper_lists_left_out grep -qxF -- "- untracked, not in the patch (its name looks secret (.env*)): \`.env\`, $(stat -c %s .env) bytes, modified $(date -u -d "@$(stat -c %Y .env)" +%Y-%m-%dT%H:%M:%SZ), HMAC-SHA256 (per-user key) \`$(hmac_of .env)\`" "$run/paper/provenance.md"
# the independent recount: sizes, times, hashes, and no plain SHA-256 of a secret-looking file
# anywhere under the results (the run, its paper) or in what submit and paper printed
python3 "$ROOT/tests/tools/untracked_hashes.py" "$P" . "$XDG_CONFIG_HOME/campaign/provenance.key" "$SCRATCH/res" "$SCRATCH/local.out" "$SCRATCH/paper.out" >"$SCRATCH/recount.out" 2>&1
check secrets_untracked_recount [ $? -eq 0 ] || sed 's/^/  why: /' "$SCRATCH/recount.out"
for f in .env id_rsa key.pem backup.txt; do
	n=${f#.} && check "secrets_no_plain_sha256_of_${n//./_}" bash -c '! grep -rqF -- "$(sha256sum "$1" | cut -d" " -f1)" "$2"' _ "$f" "$SCRATCH/res"
done
check secrets_plain_file_keeps_sha256 grep -qF -- "$(sha256sum notes.txt | cut -d' ' -f1)" "$P"

# --- resume restarts the local supervisor: the variable must be there, and reaches the job --
killable "$SCRATCH/kill.out" env API_TOKEN="$TOKEN" CAMPAIGN_FAULT=after-record "$CAMPAIGN" submit --backend local --results "$SCRATCH/res2" campaign.yaml; rc=$?
run2=$(rundir "$SCRATCH/kill.out")
check secrets_resume_setup_killed [ "$rc" -eq 137 ]
env -u API_TOKEN "$CAMPAIGN" resume --wait --results "$SCRATCH/res2" "$(basename "$run2")" >"$SCRATCH/res-unset.out" 2>&1; rc=$?
check secrets_resume_unset_exit2 [ "$rc" -eq 2 ]
check secrets_resume_unset_message [ "$(cat "$SCRATCH/res-unset.out")" = "campaign resume: API_TOKEN is not set in this environment, and $run2/campaign.yaml passes it through to the jobs (from_env: true): export it and run the command again; nothing was submitted" ]
check secrets_resume_unset_ran_nothing [ ! -e "$run2/t/logs/rank_0.out" ]
API_TOKEN=$TOKEN "$CAMPAIGN" resume --wait --results "$SCRATCH/res2" "$(basename "$run2")" >"$SCRATCH/res.out" 2>&1; rc=$?
check secrets_resume_ok [ "$rc" -eq 0 ]
check secrets_resume_token_reached grep -qx token-reached "$run2/t/logs/rank_0.out"
check secrets_resume_no_file_holds_token bash -c '! grep -rqF -- "$1" "$2"' _ "$TOKEN" "$run2"

# --- allow_literal_secrets: written, privately; the paper refuses it ------------------------
cd "$SCRATCH"
mkdir allowed && cd allowed
cat >c.yaml <<Y
campaign: allowed
allow_literal_secrets: true
workload: { command: [/bin/true], env: { HF_TOKEN: "$TOKEN" } }
scenarios: [{ name: t, nodes: 1 }]
Y
(umask 000 && "$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res3" c.yaml >sub.out 2>&1); rc=$?
run3=$(rundir sub.out)
check secrets_allowed_run_ok [ "$rc" -eq 0 ]
check secrets_allowed_files_private_under_umask_000 [ "$(cd "$run3" && holds . "$TOKEN" | sort | xargs stat -c '%a %n' | tr '\n' ';')" = "600 ./campaign.yaml;700 ./t/job.sbatch;600 ./t/job_metadata.json;" ]
"$CAMPAIGN" paper --results "$SCRATCH/res3" "$(basename "$run3")" >paper3.out 2>&1; rc=$?
check secrets_paper_refuses_exit2 [ "$rc" -eq 2 ]
check secrets_paper_refuses_message [ "$(cat paper3.out)" = "campaign paper: $run3/campaign.yaml holds a secret-looking value (env HF_TOKEN: its name holds TOKEN): the paper is meant for publication, so it is not copied and no paper was written; remove the secret from the run's campaign.yaml (and rotate it), then run campaign paper again (pass it with { from_env: true } next time)" ]
check secrets_paper_refused_wrote_nothing [ ! -e "$run3/paper" ]

# --- scenarios differing only by their env are not one scaling series; the series key holds
# the env's sameness, never a value ---------------------------------------------------------
cd "$SCRATCH"
mkdir series && cd series
MODE="mode-$RANDOM$RANDOM"
cat >c.yaml <<Y
campaign: series
workload:
  command: ["/bin/sh", "-c", "[ \$RANK = 0 ] || exit 0; for i in 0 1 2 3 4 5; do echo \"step \$i \$((40 / SLURM_NNODES)).00 ms\"; done"]
analysis: { step_log: { pattern: 'step (?<step>\\d+) (?<step_ms>[0-9.]+) ms' }, global_batch: 64 }
profile: { warmup_steps: 0, active_steps: 6 }
scenarios:
  - { name: e1, nodes: 1, env: { MODE: plain } }
  - { name: e2, nodes: 2, env: { MODE: plain } }
  - { name: f2, nodes: 2, env: { MODE: "$MODE" } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res4" c.yaml >sub.out 2>&1; rc=$?
run4=$(rundir sub.out)
check secrets_series_run_ok [ "$rc" -eq 0 ]
check secrets_series_by_env [ "$(json "$run4/summary.json" '",".join(s["name"] + ":" + str(s["baseline"]) for s in j["scenarios"])')" = "e1:e1,e2:e1,f2:f2" ]
check secrets_series_key_holds_no_env_value bash -c '! grep -qF -- "$1" "$2/analysis_input.json" && ! grep -qF -- "$1" "$2/summary.json"' _ "$MODE" "$run4"

# --- from_env on SLURM: libslurm's job environment carries it ---------------------------------
cd "$SCRATCH/proj"
slurm_cluster secrets_slurm /tmp/campaign-slurm-secrets 17007 18000
API_TOKEN=$TOKEN "$CAMPAIGN" submit --wait --backend slurm --results "$SCRATCH/sres" campaign.yaml >"$SCRATCH/slurm.out" 2>&1; rc=$?
srun_dir=$(rundir "$SCRATCH/slurm.out")
check secrets_slurm_run_ok [ "$rc" -eq 0 ]
check secrets_slurm_token_reached grep -qx token-reached "$srun_dir/t/logs/rank_0.out"
check secrets_slurm_no_file_holds_token bash -c '! grep -rqF -- "$1" "$2"' _ "$TOKEN" "$srun_dir"
check secrets_slurm_private_modes [ "$(modes "$srun_dir")" = "600 campaign.yaml;700 t/job.sbatch;600 t/job_metadata.json;600 t/job_metadata.txt;600 provenance/proj.patch;" ]
"$CAMPAIGN" paper --results "$SCRATCH/sres" "$(basename "$srun_dir")" >"$SCRATCH/spaper.out" 2>&1; rc=$?
check secrets_slurm_paper_clean bash -c '[ "$1" -eq 0 ] && ! grep -rqF -- "$2" "$3/paper"' _ "$rc" "$TOKEN" "$srun_dir"
