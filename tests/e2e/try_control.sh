# campaign try --control on the local executor with the reference trainer: a control run (the
# parent's campaign re-run unchanged, variant kind control) goes first, its report lists each
# scenario's drift from the parent; the variant then records it, and its check sets the
# variant's steps against the control's, in ms of the parent's: measured = variant / control x
# parent, recounted here from the three runs' step times. A control with a change is refused.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >try.yaml <<'Y'
campaign: try-control
workload:
  command: >
    {{trainer}} --backend gloo --ddp {{ddp}} --steps 15 --warmup-steps 3
    --batch 2 --hidden 256 --depth 12 --input 256 --output 32 --workers 1
    --metrics-dir {{metrics_dir}}
  env: { OPENBLAS_NUM_THREADS: "1" }
  params: { ddp: per-param }
profile: { warmup_steps: 3, active_steps: 12 }
scenarios: [{ name: comm-1n, nodes: 1, tasks_per_node: 2 }]
knobs:
  communication: { params: { ddp: bucketed } }
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" try.yaml >p.out 2>&1
parent=$(rundir p.out) pid=$(basename "$(rundir p.out)")
recommends try_control "$parent" communication || exit 0
"$CAMPAIGN" try --control --wait --results "$SCRATCH/res" "$pid" communication >t.out 2>&1
rc=$?
check try_control_exit0 [ "$rc" -eq 0 ]
runs=$(ls -d "$SCRATCH"/res/try-control/2* | grep -v "$pid")
ctl='' var=''
for r in $runs; do
	case $(json "$r/summary.json" 'j["variant"]["kind"]') in
	control) ctl=$r ;;
	communication) var=$r ;;
	esac
done
check try_control_two_children [ -n "$ctl" -a -n "$var" -a "$(echo "$runs" | wc -l)" -eq 2 ]
cid=$(basename "$ctl")
check try_control_recorded [ "$(json "$var/variant.json" 'j["control"]["run"] + " " + j["control"]["dir"]')" = "$cid $ctl" ]
check try_control_in_summary [ "$(json "$var/summary.json" 'j["variant"]["control"]')" = "$cid" ]
check try_control_is_unchanged [ "$(json "$ctl/variant.json" 'str(j["knob"]) + " " + str(j["predictions"])')" = "{} []" ]
# the control's drift, said by try and in its report, is its own median against the parent's
# (or mean, where it was decided by the means: the steps not alike), as its summary.json's
# side_effects keep them (0.001 ms; recounted from the step times)
drift=$(python3 - "$parent" "$ctl" <<'PY'
import json, statistics, sys
p, c = (json.load(open(d + "/summary.json")) for d in sys.argv[1:3])
row = [r for r in c["side_effects"] if r["scenario"] == "comm-1n"][0]
f = statistics.mean if row["by_means"] else statistics.median
steps = lambda s: [x for x in s["scenarios"] if x["name"] == "comm-1n"][0]["step_times_ms"]
ok = abs(f(steps(p)) - row["parent_step_ms"]) < 0.0015 and abs(f(steps(c)) - row["measured_step_ms"]) < 0.0015
print("%.2f -> %.2f" % (row["parent_step_ms"], row["measured_step_ms"]) if ok else "recount differs")
PY
)
check try_control_said_by_try grep -q "^  comm-1n: $drift ms: " t.out
check try_control_said_in_report grep -q "^This run is a control of run \`$pid\` made by \`campaign try --control\`.*: \`comm-1n\` $drift ms (" "$ctl/BOTTLENECK_ANALYSIS.md"
check try_control_named_in_variant grep -q "^Set against control run \`$cid\` (the parent's campaign re-run unchanged before this variant)" "$var/BOTTLENECK_ANALYSIS.md"
# the check, recounted: set against the control only where the control's drift from the
# parent is measurable (its 95 % bootstrap interval excludes no change): then the variant's
# median (or mean, as it was decided) over the control's, times the parent's; else the
# variant's own, against the parent as it ran. The drift's interval is recounted by a bootstrap
# of our own here (not the analysis's resamples): where it is clearly on one side, the row's
# against_control must agree.
check try_control_recounted python3 - "$parent" "$ctl" "$var" <<'PY'
import json, random, statistics, sys
p, c, v = (json.load(open(d + "/summary.json")) for d in sys.argv[1:4])
steps = lambda s: [x for x in s["scenarios"] if x["name"] == "comm-1n"][0]["step_times_ms"]
row = [r for r in v["checked_predictions"] if r["scenario"] == "comm-1n"][0]
f = statistics.mean if row["by_means"] else statistics.median
ctl, par, var = f(steps(c)), f(steps(p)), f(steps(v))
rng = random.Random(7)
rs = sorted(f(rng.choices(steps(c), k=len(steps(c)))) / f(rng.choices(steps(p), k=len(steps(p))))
            for _ in range(2000))
lo, hi = rs[50], rs[1949]
clear = "measurable" if lo > 1.03 or hi < 0.97 else "none" if lo < 0.97 and hi > 1.03 else "unclear"
want = var / ctl * par if row["against_control"] else var
ok = abs(row["control_step_ms"] - ctl) < 0.0015 and abs(row["measured_step_ms"] - want) < 0.0015
ok = ok and (clear == "unclear" or row["against_control"] == (clear == "measurable"))
print("   control %.3f (row %s), drift CI %.3f-%.3f (%s), against_control %s, measured %.3f (row %s)"
      % (ctl, row["control_step_ms"], lo, hi, clear, row["against_control"], want, row["measured_step_ms"]))
sys.exit(0 if ok else 1)
PY
# a control changes nothing: a variant of kind control with a change is refused, where
python3 - "$parent/campaign.yaml" >bad.yaml <<'PY'
import sys
print(open(sys.argv[1]).read().rstrip("\n") + "\nvariant: { of: x, kind: control, params: { ddp: sync } }")
PY
"$CAMPAIGN" validate bad.yaml >bad.out 2>&1
check try_control_with_change_refused grep -q "bad.yaml:[0-9]*:[0-9]*: variant: a control run (kind control) changes nothing" bad.out
# the paper's table of the variant says what its measured steps are over
"$CAMPAIGN" paper --results "$SCRATCH/res" "$(basename "$var")" >paper.out 2>&1
check try_control_paper_caption grep -q "to every scenario, with control run $cid (its parent re-run unchanged first): in the rows whose outcome says against the control, where the control's drift from the parent is measurable, each measured step is the variant's over the control's, times the parent's" "$var/paper/tables/checked_predictions.tex"
# campaign compare of the parent and the variant says it too
"$CAMPAIGN" compare --results "$SCRATCH/res" "$pid" "$(basename "$var")" >cmp.out 2>&1
check try_control_compare_says grep -q "^  with control run $cid (the parent re-run unchanged first): in the rows whose outcome says against the control, where its drift is measurable, each measured step is the variant's over the control's, times the parent's; in the others, against the parent as it ran$" cmp.out
# the run's analysis input keeps the control's steps: campaign-analyze RUN, on its own, gives
# the same summary.json again
cp "$var/summary.json" summary.before.json
"$BIN/campaign-analyze" "$var" >/dev/null 2>&1
check try_control_reanalysed_same cmp -s summary.before.json "$var/summary.json"
# nothing to try (a kind without a knob here): no control run is made for nothing, exit 2
before=$(ls -d "$SCRATCH"/res/try-control/2* | wc -l)
"$CAMPAIGN" try --control --results "$SCRATCH/res" "$pid" io >none.out 2>&1
rc=$?
check try_control_none_for_nothing [ "$rc" -eq 2 -a "$(ls -d "$SCRATCH"/res/try-control/2* | wc -l)" -eq "$before" ]
# ls shows the control as the parent's control, not as advice tried
"$CAMPAIGN" ls --results "$SCRATCH/res" >ls.out 2>&1
check try_control_ls grep -q "^ *control: $cid$" ls.out
check try_control_ls_child grep -q "^ *control of $pid (its campaign re-run unchanged)$" ls.out
