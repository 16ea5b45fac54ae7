# Malformed and hostile inputs to the analyzers: telemetry, traces and
# monitor CSVs holding shell, escape sequences, implausible numbers, binary
# junk. Expected: nothing executed (no canary), nothing written outside the
# results directory, implausible values skipped and counted, no escape
# sequence reaching a terminal or a report, and a clear error for a file
# that cannot be read at all; a corrupt summary.json said corrupt, naming the file (issue 46).
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
C=$SCRATCH/canary
no_canary() { ! ls "$C".* >/dev/null 2>&1; }
FX=$ROOT/tests/fixtures/hostile

# --- a run whose job leaves hostile telemetry and monitor files -------------------------
cat >h.yaml <<Y
campaign: hostileinputs
workload: { command: ["/bin/sh", "$FX/job.sh", "{{metrics_dir}}", "$C", "$BIN/campaign-trainer"] }
scenarios: [{ name: s1, nodes: 1 }]
Y
touch marker
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/R" h.yaml >sub.out 2>&1; rc=$?
run=$(rundir sub.out)
check hostile_telemetry_job_completes [ "$rc" -eq 0 ]
check hostile_telemetry_analysed [ "$(json "$run/summary.json" '[(s["analysed"], s["active_steps"], s["malformed_lines"]) for s in j["scenarios"]]')" = "[(True, 10, 9)]" ]
check hostile_telemetry_sane_numbers python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["scenarios"][0]; t=s["step_time_ms"]; sys.exit(not (0 < t["min"] <= t["median"] <= t["p95"] <= t["max"] < 1000))' "$run/summary.json"
check hostile_telemetry_reported grep -q "^9 telemetry lines were malformed or held implausible numbers" "$run/BOTTLENECK_ANALYSIS.md"
"$CAMPAIGN" paper --results "$SCRATCH/R" "$(basename "$run")" >paper.out 2>&1; rc=$?
check hostile_telemetry_paper_ok [ "$rc" -eq 0 ]
check hostile_telemetry_reproduce_parses bash -n "$run/paper/reproduce.sh"
check hostile_telemetry_no_canary no_canary
check hostile_telemetry_no_escape_in_text bash -c '! grep -rl --include="*.md" --include="*.json" --include="*.txt" --include="*.csv" --include="*.tex" --include="*.gp" $'"'"'\e'"'"' "$1"' _ "$run"
check hostile_telemetry_nothing_outside [ "$(find "$SCRATCH" -mindepth 1 -newer marker -not -path "$SCRATCH/R" -not -path "$SCRATCH/R/*" -printf '%P\n' | sort | tr '\n' ' ')" = "paper.out sub.out " ]

# --- campaign-analyze on a hostile Kineto trace and on junk ----------------------------
python3 "$ROOT/tests/tools/evil_kineto_trace.py" "$C" evil.pt.trace.json
"$BIN/campaign-analyze" evil.pt.trace.json >an.out 2>&1; rc=$?
check hostile_trace_analysed [ "$rc" -eq 0 ]
check hostile_trace_counts grep -q "^evil.pt.trace.json (rank ?): 5 GPU events" an.out
check hostile_trace_skipped grep -q "skipped 3 malformed events (non-finite or negative time)" an.out
check hostile_trace_names_literal grep -qF '`touch '"$C"'.k2`' an.out
check hostile_trace_no_escape bash -c '! grep -q $'"'"'\e'"'"' an.out'
check hostile_trace_escape_shown grep -qF 'evil?[2J?]0;title?kernel' an.out
"$BIN/campaign-analyze" --json evil.pt.trace.json >an.json 2>&1
check hostile_trace_json_count [ "$(json an.json 'j["ranks"][0]["malformed_events"]')" = 3 ]
head -c 4096 /dev/urandom >junk.pt.trace.json
"$BIN/campaign-analyze" junk.pt.trace.json >junk.out 2>&1; rc=$?
check hostile_junk_trace_refused [ "$rc" -eq 4 ]
check hostile_junk_trace_says_where grep -q "^campaign-analyze: junk.pt.trace.json" junk.out
check hostile_trace_no_canary no_canary

# --- a corrupt summary.json (issue 46): said corrupt, naming the file, not "no analysis yet" --
id=$(basename "$run")
cp -r "$run" "$SCRATCH/R/hostileinputs/copy" 2>/dev/null
printf '{"scenarios": [' >"$run/summary.json"
"$CAMPAIGN" try --results "$SCRATCH/R" "$id" >try.out 2>&1; rc=$?
check corrupt_summary_try_exit4 [ "$rc" -eq 4 ]
check corrupt_summary_try_said [ "$(cat try.out)" = "campaign try: run $id: $run/summary.json is corrupt (line 1: ']' expected near end of file): \`campaign aggregate --force $id\` writes it again" ]
"$CAMPAIGN" compare --results "$SCRATCH/R" "$id" "$SCRATCH/R/hostileinputs/copy" >cmp.out 2>&1; rc=$?
check corrupt_summary_compare_exit4 [ "$rc" -eq 4 ]
check corrupt_summary_compare_said [ "$(cat cmp.out)" = "campaign compare: $run/summary.json is corrupt (line 1: ']' expected near end of file): \`campaign aggregate --force $id\` writes it again" ]
rm "$run/summary.json"
"$CAMPAIGN" try --results "$SCRATCH/R" "$id" >try2.out 2>&1; rc=$?
check absent_summary_try_exit3 [ "$rc" -eq 3 ]
check absent_summary_try_said grep -qF "campaign try: run $id has no analysis yet ($run/summary.json)" try2.out
