# campaign bisect (issue 49) on the local executor: a scratch git repository of a small PyTorch
# DDP script (campaigns/ddp_train.py, gloo, 2 emulated nodes) with 12 commits (tests/lib.sh
# bisect_repo: steps of a 20 to 40 ms sleep, a noise of the script's own), of which c6 makes
# the script crash (c7 mends it) and c8 makes every step sleep 100 ms longer. The bisection runs without --wait (in the background), is
# killed while a commit's run is under way, and resumed: it must name c8, skip c6 (not call it
# bad), never run a commit twice, leave the user's repository as it was, and give the step
# times before and after with intervals that an independent recount of the runs' summaries
# agrees with. With a sleep below the noise (c1 -> c2: 0.5 ms a step, on steps of 20 and 60 ms
# in turn: noisy.yaml) it must stop after GOOD and BAD and say the regression is not
# resolved, with the active steps that would resolve it.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch bisect

bisect_repo repo local
c() { git -C repo rev-parse "HEAD~$((11 - $1))"; } # commit cN's hash
check bisect_fixture_commits [ "$(git -C repo rev-list --count HEAD)" = 12 ]
check bisect_fixture_regression grep -q '^            time.sleep(0.1205 + ' <(git -C repo show "$(c 8):train.py")
check bisect_fixture_noise grep -q '^            time.sleep(0.0205 + ' <(git -C repo show "$(c 7):train.py")
head_before=$(git -C repo rev-parse HEAD) branches_before=$(git -C repo branch --format '%(refname)')

# in the background; killed once a commit past GOOD and BAD is under way, then resumed
"$CAMPAIGN" bisect --backend local --threshold 50 --results "$SCRATCH/res" "$(c 0)" "$(c 11)" repo/campaign.yaml >b.out 2>&1; rc=$?
check bisect_background_exit0 [ "$rc" -eq 0 ]
bdir=$(sed -n 2p b.out) bid=$(sed -n 's/^bisection //p' b.out)
check bisect_says_range grep -qx "GOOD $(c 0 | cut -c1-12), BAD $(c 11 | cut -c1-12): 11 commits after GOOD; scenario cpu-2n, threshold 50 %" b.out
check bisect_background_said grep -q "^the bisection goes on in the background; its progress: $bdir/bisect.log$" b.out
for _ in $(seq 600); do
	[ "$(json "$bdir/bisect.json" 'len(j["tested"]) >= 2 and len(j["pending"]) == 1' 2>/dev/null)" = True ] && break
	sleep 0.2
done
check bisect_third_under_way [ "$(json "$bdir/bisect.json" 'len(j["tested"]), len(j["pending"])')" = "(2, 1)" ]
pkill -KILL -f -- "--resume $bdir" && sleep 0.5
check bisect_killed bash -c '! pgrep -f -- "--resume $1" >/dev/null' _ "$bdir"
"$CAMPAIGN" bisect --results "$SCRATCH/res" --resume "$bid" >r.out 2>&1; rc=$?
check bisect_resume_exit0 [ "$rc" -eq 0 ]
check bisect_resume_said grep -qx "bisection $bid: 2 tested, 1 under way" r.out
check bisect_first_bad_c8 [ "$(json "$bdir/bisect.json" 'j["first_bad"]["commit"]')" = "$(c 8)" ]
check bisect_last_good_c7 [ "$(json "$bdir/bisect.json" 'j["last_good"]["commit"]')" = "$(c 7)" ]
check bisect_done [ "$(json "$bdir/bisect.json" 'j["state"], j["reason"], j["pending"]')" = "('done', None, [])" ]
check bisect_said_answer grep -q "^first bad commit: $(c 8 | cut -c1-12) c8: change 8 (" r.out
# the crashing commit is skipped, with its reason, never called bad
check bisect_crash_skipped [ "$(json "$bdir/bisect.json" '[t["outcome"] for t in j["tested"] if t["commit"] == "'"$(c 6)"'"]')" = "['skip']" ]
crun=$(json "$bdir/bisect.json" '[t["run"] for t in j["tested"] if t["commit"] == "'"$(c 6)"'"][0]')
check bisect_crash_why grep -qF "| c6: change 6 | skip (its job ended FAILED: \`campaign status $crun cpu-2n\` says why) | - | - | 30 |" "$bdir/BISECT.md"
# the order a K=1 split gives (GOOD, BAD (GOOD's second run between them is not a test of a
# commit: the state's repeat), then c6 skipped, c5, c9, c8, c7), each commit once,
# or twice where its first run was unclear (the second with twice the active steps)
check bisect_order [ "$(json "$bdir/bisect.json" '" ".join(t["commit"][:7] + ":" + t["outcome"] for t in j["tested"] if t["outcome"] != "unclear")')" = "$(for i in 0:good 11:bad 6:skip 5:good 9:bad 8:bad 7:good; do echo -n "$(c "${i%:*}" | cut -c1-7):${i#*:} "; done | sed 's/ $//')" ]
check bisect_reruns_doubled python3 -c '
import json, sys
t = json.load(open(sys.argv[1] + "/bisect.json"))["tested"]
seen = {}
for e in t:
    seen.setdefault(e["commit"], []).append(e)
ok = all(len(v) == 1 and v[0]["active_steps"] == 30 or len(v) == 2 and v[0]["outcome"] == "unclear"
         and v[1]["active_steps"] == 60 for v in seen.values())
sys.exit(0 if ok else 1)' "$bdir"
runs=$(ls -d res/bisectddp/*/state.db | wc -l)
check bisect_no_commit_run_twice [ "$runs" = "$(json "$bdir/bisect.json" 'len(j["tested"]) + 1')" ]
# GOOD ran twice: how far two runs of one commit are apart, against its first run (how far is
# this machine's load, not the tool's: CI's lanes once put them 25 % apart; recounted below)
check bisect_good_again [ "$(json "$bdir/bisect.json" 'j["repeat"]["commit"] == j["good"]["commit"] and j["repeat"]["ratio"] > 0 and j["repeat"]["run"] != j["tested"][0]["run"]')" = True ]
check bisect_md_good_again grep -q "^GOOD ran a second time (run \`[0-9a-f-]*\`): median step [0-9.]* ms, [0-9.]*x (95 % interval [0-9.]* to [0-9.]*) its first run's. Two runs of one commit were thus [0-9.]* % apart" "$bdir/BISECT.md"
check bisect_runs_counted [ "$(json "$bdir/bisect.json" 'j["runs"]')" = "$runs" ]
# an independent recount: the ratio of the medians of the runs' own step times; c8's interval
# clears the threshold (how far above it, 4x on a quiet machine, depends on GOOD's run)
check bisect_ratio_recounted python3 -c '
import json, statistics, sys
b = json.load(open(sys.argv[1] + "/bisect.json"))
steps = lambda run: json.load(open(sys.argv[2] + "/" + run + "/summary.json"))["scenarios"][0]["step_times_ms"]
good = statistics.median(steps(b["tested"][0]["run"]))
fb = b["first_bad"]
r = statistics.median(steps(fb["run"])) / good
lo, hi = fb["ratio_interval"]
rep = b["repeat"]
g2 = statistics.median(steps(rep["run"])) / good
sys.exit(0 if abs(r - fb["ratio"]) < 0.0011 and lo > 1.5 and lo <= r <= hi
         and abs(g2 - rep["ratio"]) < 0.0011 else 1)' "$bdir" res/bisectddp
# each run ran its commit in its own tree: CAMPAIGN_DIR, the provenance, the one scenario
fb_run=$(json "$bdir/bisect.json" 'j["first_bad"]["run"]')
check bisect_child_tree grep -qx "export CAMPAIGN_DIR='$bdir/trees/$(c 8 | cut -c1-12)'" "res/bisectddp/$fb_run/cpu-2n/job.sbatch"
check bisect_child_provenance [ "$(json "res/bisectddp/$fb_run/provenance.json" 'j["bisect"]["of"], j["bisect"]["commit"], j["repositories"][0]["commit"], j["repositories"][0]["dirty"]')" = "('$bid', '$(c 8)', '$(c 8)', False)" ]
check bisect_child_one_scenario [ "$(ls -d "res/bisectddp/$fb_run"/cpu-*)" = "res/bisectddp/$fb_run/cpu-2n" ]
# the user's repository as it was: HEAD, branches, no worktree, nothing untracked; trees gone
check bisect_repo_untouched [ "$(git -C repo rev-parse HEAD) $(git -C repo branch --format '%(refname)')" = "$head_before $branches_before" ]
check bisect_no_worktree_left [ "$(git -C repo worktree list | wc -l)" = 1 ]
check bisect_repo_clean [ -z "$(git -C repo status --porcelain)" ]
check bisect_trees_removed [ ! -e "$bdir/trees" ]
# BISECT.md and ls
check bisect_md_answer grep -q "^\*\*The first bad commit is\*\* \`$(c 8 | cut -c1-12)\` c8: change 8 (Bisect Test <bisect@test>, .*: the first commit whose median step is more than 50 % above GOOD's" "$bdir/BISECT.md"
check bisect_md_good_reference grep -q "^| \`$(c 0 | cut -c1-12)\` | c0: the DDP script | good | [0-9.]* | 1 (GOOD: the reference) | 30 |" "$bdir/BISECT.md"
check bisect_md_changed grep -q "^## What changed in the analysis (last good → first bad)$" "$bdir/BISECT.md"
check bisect_md_median_worse grep -q "^| median step (ms) | [0-9.]* | [0-9.]* | [0-9.]*x ([0-9.]* to [0-9.]*) | worse |$" "$bdir/BISECT.md"
check bisect_md_compare_labelled grep -qF "| metric | last good | first bad | first bad / last good (95 % interval) | |" "$bdir/BISECT.md"
check bisect_md_totals grep -q "^$runs runs, [0-9.]* node-hours" "$bdir/BISECT.md"
"$CAMPAIGN" ls --results "$SCRATCH/res" >ls.out 2>&1
check bisect_ls_row grep -q "^$bid *bisectddp *local *bisect $(c 0 | cut -c1-12)..$(c 11 | cut -c1-12) (cpu-2n): first bad $(c 8 | cut -c1-12)$" ls.out
check bisect_ls_child grep -qx " *bisect $bid: commit $(c 8 | cut -c1-12)" ls.out
"$CAMPAIGN" status --results "$SCRATCH/res" "$bid" >st.out 2>&1; rc=$?
check bisect_status_says_bisection bash -c '[ "$1" = 3 ] && grep -qF "$2 is a bisection (campaign bisect), not a run: \`campaign ls\` lists it with its runs" "$3"' _ "$rc" "$bid" st.out
"$CAMPAIGN" bisect --results "$SCRATCH/res" --resume "$bid" >again.out 2>&1
check bisect_resume_done_runs_nothing [ "$(ls -d res/bisectddp/*/state.db | wc -l)" = "$runs" ]

# a sleep below the noise: stopped after GOOD and BAD, not resolved, with the steps it needs
"$CAMPAIGN" bisect --wait --backend local --results "$SCRATCH/res2" "$(c 1)" "$(c 2)" repo/noisy.yaml >n.out 2>&1; rc=$?
check bisect_noise_exit0 [ "$rc" -eq 0 ]
ndir=$(sed -n 2p n.out)
check bisect_noise_stopped [ "$(json "$ndir/bisect.json" 'j["first_bad"], j["runs"], len(j["tested"])')" = "(None, 3, 2)" ]
check bisect_noise_not_resolved grep -q "^\*\*No first bad commit was found.\*\* BAD measured [0-9.]* % \(slower\|faster\) than GOOD (median step [0-9.]*x (95 % interval [0-9.]* to [0-9.]*) GOOD's): the interval holds 1.050 (a slowdown of 5 %), so these runs can neither confirm nor rule out a slowdown of more than 5 %: the regression is not resolved" "$ndir/BISECT.md"
# what would resolve it: more steps, or none when BAD's ratio lies within the spread of two runs
# of GOOD of the threshold (both happen with these steps: their medians move by up to some 10 %)
check bisect_noise_steps_needed grep -qE "(Some [0-9]* active steps per run \(profile.active_steps; these runs had 30\) would narrow the interval enough to tell|No number of steps would resolve it: BAD's ratio [0-9.]* lies within the [0-9.]* % that two runs of GOOD itself were apart of 1.050 \(the threshold\))" "$ndir/BISECT.md"
check bisect_noise_how_stopped grep -q "Here it did not, so it stopped after them.$" "$ndir/BISECT.md"

# what a user gets wrong is said: GOOD not an ancestor, an unknown scenario, a bad threshold
"$CAMPAIGN" bisect --wait --results "$SCRATCH/res3" "$(c 11)" "$(c 0)" repo/campaign.yaml >e1.out 2>&1; rc=$?
check bisect_refuses_reversed bash -c '[ "$1" = 2 ] && grep -q "GOOD is not on BAD'"'"'s first-parent line" "$2"' _ "$rc" e1.out
"$CAMPAIGN" bisect --wait --scenario nope --results "$SCRATCH/res3" "$(c 0)" "$(c 11)" repo/campaign.yaml >e2.out 2>&1; rc=$?
check bisect_refuses_scenario bash -c '[ "$1" = 2 ] && grep -q "has no scenario named \"nope\"" "$2"' _ "$rc" e2.out
"$CAMPAIGN" bisect --wait --threshold -3 --results "$SCRATCH/res3" "$(c 0)" "$(c 11)" repo/campaign.yaml >e3.out 2>&1; rc=$?
check bisect_refuses_threshold bash -c '[ "$1" = 2 ] && grep -q -- "--threshold -3: give a percentage above 0" "$2"' _ "$rc" e3.out
check bisect_refusals_make_nothing [ ! -e "$SCRATCH/res3" ] || [ -z "$(find "$SCRATCH/res3" -name bisect.json)" ]
