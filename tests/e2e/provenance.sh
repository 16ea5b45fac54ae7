# Git provenance: a repository with a committed, a modified and an untracked
# file (and results inside the work tree); after a run, a fresh clone at the
# recorded commit plus the recorded patch reproduces the working tree
# exactly. --require-clean refuses a dirty tree; outside git the run goes on.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
git init -q -b main proj && cd proj
git config user.email t@example.org && git config user.name Tester
cp "$ROOT/tests/fixtures/tiny.yaml" campaign.yaml
printf 'one\ntwo\n' >kept.txt
printf 'first\n' >changed.txt
mkdir -p src && printf '#!/bin/sh\necho hi\n' >src/run.sh && chmod +x src/run.sh
git add . && git commit -qm "initial" && git tag v1.0
printf 'second\n' >>changed.txt
printf 'new\n' >untracked.txt
printf '\000\001\002binary' >src/blob.bin
"$CAMPAIGN" submit --wait campaign.yaml >"$SCRATCH/out.txt" 2>"$SCRATCH/err.txt"; rc=$?   # results go to ./results, inside the tree
run=$(rundir "$SCRATCH/out.txt")
check provenance_run_ok [ "$rc" -eq 0 ]
P=$run/provenance.json
check provenance_commit_recorded [ "$(json "$P" 'j["repositories"][0]["commit"]')" = "$(git rev-parse HEAD)" ]
check provenance_branch_describe [ "$(json "$P" '(j["repositories"][0]["branch"], j["repositories"][0]["describe"])')" = "('main', 'v1.0-dirty')" ]
check provenance_dirty_files [ "$(json "$P" '(j["repositories"][0]["modified"], j["repositories"][0]["untracked"])')" = "(['changed.txt'], ['src/blob.bin', 'untracked.txt'])" ]
check provenance_results_not_in_patch bash -c '! grep -q "results/" "$1/provenance/proj.patch"' _ "$run"
check provenance_campaign_sha256 [ "$(json "$P" 'j["campaign_sha256"]')" = "$(sha256sum campaign.yaml | cut -d' ' -f1)" ]
check provenance_script_sha256 [ "$(json "$run/t/job_metadata.json" 'j["job_script_sha256"]')" = "$(sha256sum "$run/t/job.sbatch" | cut -d' ' -f1)" ]
check provenance_in_job_metadata [ "$(json "$run/t/job_metadata.json" 'j["provenance"]["repositories"][0]["commit"]')" = "$(git rev-parse HEAD)" ]
check provenance_text_metadata grep -q "commit $(git rev-parse HEAD) on main (v1.0-dirty)" "$run/t/job_metadata.txt"
check provenance_host_versions [ "$(json "$P" 'sorted(j["host"]["versions"])')" = "['cuda', 'gloo', 'libgit2', 'nccl', 'openblas', 'slurm', 'sqlite']" ]
# rebuild the tree from the record alone
cd "$SCRATCH"
git clone -q proj rebuilt && cd rebuilt
git checkout -q "$(json "$P" 'j["repositories"][0]["commit"]')"
git apply "$run/provenance/proj.patch"
cd "$SCRATCH"
check provenance_patch_rebuilds_tree diff -r --exclude=.git --exclude=results proj rebuilt
check provenance_mode_kept [ -x rebuilt/src/run.sh ]
# --require-clean
cd proj
"$CAMPAIGN" submit --require-clean --results "$SCRATCH/clean" campaign.yaml >"$SCRATCH/rc.out" 2>&1; rc=$?
check require_clean_refuses [ "$rc" -eq 2 ]
check require_clean_lists_files grep -q "changed.txt (modified).*untracked.txt (untracked)" "$SCRATCH/rc.out"
check require_clean_submits_nothing [ ! -e "$SCRATCH/clean" ]
# outside a git repository: said, and the run goes on
mkdir -p "$SCRATCH/plain" && cp "$ROOT/tests/fixtures/tiny.yaml" "$SCRATCH/plain/c.yaml"
cd "$SCRATCH/plain"
"$CAMPAIGN" submit --wait --results "$SCRATCH/plainres" c.yaml >p.out 2>p.err; rc=$?
run=$(rundir p.out)
check not_git_run_goes_on [ "$rc" -eq 0 ]
check not_git_said grep -q "the campaign file is not in a git repository" p.err
check not_git_recorded [ "$(json "$run/provenance.json" 'j["not_git"] is not None')" = True ]
