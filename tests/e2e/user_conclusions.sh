# What the report concludes on a user's own scripts (issue 21), with
# Debian's PyTorch on the local executor: tensorboard_trace_handler's
# <host>_<pid>.<time> files (several per rank with repeat=2 and repeat=0)
# are one rank each, matched through the launcher's records; a script that
# keeps its global batch fixed is strong scaling and a slowdown is reported
# as a speedup below 1; without a batch the throughput is steps/s and no
# speedup is claimed; a step-log-only scenario has n/a shares; a scenario
# with its own batch uses it.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch user_conclusions
cp "$ROOT/campaigns/tb_train.py" train.py
S() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]$2"; }
cat >strong.yaml <<'Y'
campaign: strong
workload:
  command: "/usr/bin/python3 {{campaign_dir}}/train.py --steps 10 --global-batch 64 {{extra}}"
  env: { GLOO_SOCKET_IFNAME: lo, OMP_NUM_THREADS: "1" }
  params: { extra: "" }
profile: { warmup_steps: 0, active_steps: 10, traces: ["tb/*.pt.trace.json"] }
analysis:
  global_batch: 64
  step_log: { pattern: 'step (?<step>\d+) time (?<step_ms>[0-9.]+) ms' }
scenarios:
  - { name: s1, nodes: 1 }
  - { name: s2, nodes: 2 }
  - { name: s4, nodes: 4 }
  - { name: r0, nodes: 2, params: { extra: "--repeat 0" } }
Y
torch_submit out.txt --backend local --results "$SCRATCH/res" strong.yaml; rc=$?
run=$(rundir out.txt)
[ "$rc" -eq 0 ] || failed_run_said "$run"
check conclusions_strong_completes [ "$rc" -eq 0 ]
check conclusions_rank_records [ "$(ls "$run/s2/ranks" | tr '\n' ' ')" = "rank_0.json rank_1.json " ]
check conclusions_two_files_per_rank [ "$(ls "$run/s2/traces" | wc -l)" -eq 4 ]
check conclusions_repeat2_ranks_are_processes [ "$(S s2 '["ranks_with_data"]')" = 2 ]
check conclusions_repeat2_ranks_4n [ "$(S s4 '["ranks_with_data"]')" = 4 ]
check conclusions_repeat2_steps_joined [ "$(S s2 '["active_steps"]')" = 4 ]
# four steps give no interval, nor a verdict to cite: its section says so, ten say nothing
check conclusions_few_steps_said bash -c 'sed -n "/^### s2\$/,/^### /p" "$1" | grep -q "^\*\*Few steps\*\*: its verdict, shares and median rest on 4 active steps, too few for an interval (5 or more give one)" && [ "$(grep -c "^\*\*Few steps\*\*" "$1")" -lt "$(grep -c "^### " "$1")" ]' _ "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_repeat0_many_files [ "$(ls "$run/r0/traces" | wc -l)" -ge 4 ]
check conclusions_repeat0_ranks [ "$(S r0 '["ranks_with_data"]')" = 2 ]
check conclusions_no_ranks_note [ "$(S s4 '["ranks_note"]')" = None ]
# rank 0 of the traces is the process the launcher started as rank 0
pid0=$(json "$run/s2/ranks/rank_0.json" 'j["pid"]')
check conclusions_rank0_is_launchers [ -n "$(ls "$run/s2/traces" | grep "_${pid0}\.")" ]
check conclusions_strong_mode [ "$(S s2 '["scaling_mode"]'),$(S s4 '["scaling_mode"]')" = "strong,strong" ]
check conclusions_batch_from_campaign [ "$(S s4 '["global_batch"]'),$(S s4 '["batch_from"]')" = "64,analysis.global_batch" ]
check conclusions_speedup_is_samples_ratio python3 -c 'import json, sys
sc = {x["name"]: x for x in json.load(open(sys.argv[1]))["scenarios"]}
import statistics
for n in ("s2", "s4"):
    # by the mean steps where the analysis took them (the steps of either not alike)
    mid = (lambda x: statistics.mean(x["step_times_ms"])) if sc[n]["speedup_by_means"] else (lambda x: x["step_time_ms"]["median"])
    want = mid(sc["s1"]) / mid(sc[n])
    # summary.json rounds every number to 3 decimals: the ratio of rounded medians against a rounded speedup
    assert abs(sc[n]["speedup"] - want) < 2e-3 + 2e-3 * want, (n, sc[n]["speedup"], want)
    assert abs(sc[n]["efficiency"] - want * sc["s1"]["ranks"] / sc[n]["ranks"]) < 2e-3 + 2e-3 * want
' "$run/summary.json"
sp4=$(S s4 '["speedup"]')
# what the speedup's interval lets the sentence say: a direction only when it excludes 1
case "$(S s4 '["speedup_interval"]' | python3 -c 'import ast, sys; c = ast.literal_eval(sys.stdin.read()); print("none" if c is None else "spans" if c[0] <= 1 <= c[1] else "below" if c[1] < 1 else "above")')" in
none) said="speedup [0-9.]*x\( by the means\)\{0,1\} (no interval: fewer than 5 steps on a side)" ;;
spans) said="speedup [0-9.]*x\( by the means\)\{0,1\} (95 % CI [0-9.]*-[0-9.]*; no measurable speedup over the baseline, where the ideal is [0-9.]*x)" ;;
below) said="speedup 0\.[0-9]*x\( by the means\)\{0,1\} (95 % CI [0-9.]*-[0-9.]*; slower than the baseline)" ;;
*) said="speedup [0-9.]*x\( by the means\)\{0,1\} (95 % CI [0-9.]*-[0-9.]*) and efficiency" ;;
esac
if python3 -c "import sys; sys.exit(0 if float('$sp4') < 1 else 1)"; then
	check conclusions_slowdown_said grep -q "s4\*\* .*strong scaling: $said" "$run/BOTTLENECK_ANALYSIS.md"
else
	check conclusions_speedup_said grep -q "s4\*\* .*strong scaling: $said" "$run/BOTTLENECK_ANALYSIS.md"
fi
check conclusions_unit_samples [ "$(S s1 '["throughput_unit"]')" = samples/s ]

# The same script with no batch given anywhere: steps/s, no speedup, the
# reason said; a scenario with a batch of its own against one without: no
# speedup; a step-log-only scenario: shares n/a and no verdict drawn from them.
# (s4 and r0 are not run again: nothing below reads them)
sed -e 's/  global_batch: 64//' -e 's/campaign: strong/campaign: nobatch/' -e '/name: s4,/d' -e '/name: r0,/d' \
	strong.yaml >nobatch.yaml
cat >>nobatch.yaml <<'Y'
  - { name: logonly, nodes: 2, params: { extra: "--out elsewhere" } }
  - { name: own-batch, nodes: 2, analysis: { global_batch: 64 } }
Y
torch_submit nb.txt --backend local --results "$SCRATCH/nb" nobatch.yaml; rc=$?
run=$(rundir nb.txt)
[ "$rc" -eq 0 ] || failed_run_said "$run"
check conclusions_nobatch_completes [ "$rc" -eq 0 ]
check conclusions_nobatch_unit [ "$(S s2 '["throughput_unit"]'),$(S s2 '["throughput_samples_per_s"]'),$(S s2 '["global_batch"]')" = "steps/s,None,None" ]
check conclusions_nobatch_no_speedup [ "$(S s2 '["speedup"]'),$(S s2 '["scaling_mode"]')" = "None,None" ]
check conclusions_nobatch_reason grep -q "no speedup: the samples per step are not known" "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_nobatch_never_samples bash -c '! grep -q "samples/s" "$1/s2/report.txt"' _ "$run"
check conclusions_nobatch_table_unit grep -q "| s2 | 2 | 2 | COMPLETED | [0-9.]* | [0-9.]*\( (rough)\)\{0,1\} | [0-9.]* steps/s\( (mean step)\)\{0,1\} |" "$run/BOTTLENECK_ANALYSIS.md"
# the series table's header gives the baseline's unit; a row in another unit says its own
check conclusions_series_unit_in_header grep -q "^| Scenario | Nodes | Ranks | Global batch | Throughput (steps/s) |" "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_series_row_no_unit grep -q "^| s2 | 2 | 2 | unknown | [0-9.]*\( (mean step)\)\{0,1\} | " "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_series_row_own_unit grep -q "^| own-batch | 2 | 2 | 64 | [0-9.]* samples/s\( (mean step)\)\{0,1\} | " "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_own_batch [ "$(S own-batch '["global_batch"]'),$(S own-batch '["batch_from"]')" = "64,the scenario's analysis.global_batch" ]
check conclusions_own_batch_mixed_refused grep -q "own-batch\*\*: no speedup: the batch of own-batch is known and that of s1 is not" "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_logonly_source [ "$(S logonly '["source"]')" = "step lines in rank logs" ]
check conclusions_logonly_shares_null [ "$(S logonly '["shares_pct"]')" = None ]
check conclusions_logonly_na grep -q "| logonly | 2 | 2 | COMPLETED | [0-9.]* | [0-9.]*\( (rough)\)\{0,1\} | [0-9.]* steps/s\( (mean step)\)\{0,1\} | n/a | n/a | n/a | n/a | n/a |" "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_logonly_no_verdict_from_shares [ "$(S logonly '["verdict_from"]')" = nothing ]
# A glob that matched nothing, with the traces written elsewhere: named with
# the files found and a glob that would match them.
check conclusions_glob_missed_named grep -q 'Traces: profile.traces \["tb/\*.pt.trace.json"\] matched no file; [0-9]* trace-like files are in the job directory: `elsewhere/.*\.pt\.trace\.json`.* (a glob that matches them: "elsewhere/\*.pt.trace.json")' "$run/BOTTLENECK_ANALYSIS.md"
check conclusions_glob_missed_json [ "$(S logonly '["traces_missed"] is not None')" = True ]
