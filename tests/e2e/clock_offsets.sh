# Clock offsets between nodes from the ends of matched collectives (issue 38,
# point 1), on Kineto traces of our own (tests/tools/clock_traces.py): 2 nodes
# x 2 ranks, node 2's clock 7.3 ms ahead, each all-reduce left by every rank
# at one true instant give or take 20 µs. The offset is recovered within that
# jitter, timeline.json is corrected (the ranks' all-reduce ends line up),
# and what rests on durations (collectives, waits, stragglers) is the same
# whatever the shift; traces without a collective say the timeline is
# uncorrected and name no offset.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
run_with() { # kind shift results -> prints the run directory
	rm -rf traces && python3 "$ROOT/tests/tools/clock_traces.py" "$1" traces "$2"
	cat >c.yaml <<'Y'
campaign: clk
workload: { command: ["sh", "-c", "[ \"$RANK\" != 0 ] || cp -R \"$CAMPAIGN_DIR/traces\" prof"] }
profile: { traces: ["prof/*.json"] }
scenarios: [{ name: two, nodes: 2, tasks_per_node: 2 }]
Y
	"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/$3" c.yaml >"$3.out" 2>&1
	rundir "$3.out"
}
S() { json "$run/summary.json" "j['scenarios'][0]$1"; }

run=$(run_with shifted 7300 shifted)
check clock_run_ok [ "$(S "['state']")" = COMPLETED ]
check clock_nodes [ "$(S "['clock_offsets'][1]['node']"),$(S "['clock_offsets'][1]['basis']"),$(S "['clock_offsets'][1]['shared']"),$(S "['clock_offsets'][1]['instances']")" = "local2,collectives,True,20" ]
check clock_offset_within_jitter python3 -c 'import sys; o = float(sys.argv[1]); sys.exit(abs(o - 7.3) > 0.02)' "$(S "['clock_offsets'][1]['offset_ms']")"
check clock_uncertainty_under_jitter python3 -c 'import sys; u = float(sys.argv[1]); sys.exit(not 0 < u < 0.02)' "$(S "['clock_offsets'][1]['uncertainty_ms']")"
check clock_reference_node [ "$(S "['clock_offsets'][0]['basis']"),$(S "['clock_offsets'][0]['offset_ms']")" = "reference,0.0" ]
check clock_no_odd_rank [ "$(json "$run/summary.json" '[r["odd"] for r in j["scenarios"][0]["clock_ranks"]]')" = "[False, False, False, False]" ]
check clock_timeline_corrected [ "$(S "['timeline_clocks']")" = corrected ]
check clock_report_sentence grep -Eq "^Clocks: local2's clock is 7\.(29|30|31) ms ahead of local1's \(the median of 20 collectives, which scatter ± 0\.0[01][0-9] ms, half their interquartile range\)\. \`timeline.json\` is corrected: every rank's events are on local1's clock\.$" "$run/BOTTLENECK_ANALYSIS.md"
# in timeline.json every step's all-reduce ends at one instant on every rank (within the jitter)
check clock_timeline_ends_line_up python3 "$ROOT/tests/tools/clock_timeline.py" "$run/timeline.json" 0.05
cp "$run/summary.json" shifted.json

# The same traces with no shift: the durations, and all that rests on them, are the same
run=$(run_with shifted 0 unshifted)
check clock_zero_shift [ "$(S "['clock_offsets'][1]['offset_ms']" | python3 -c 'import sys; print(abs(float(sys.stdin.read())) <= 0.02)')" = True ]
check clock_zero_said grep -Eq "^Clocks: local2's clock agrees with local1's \(the median of 20 collectives, which scatter ± 0\.0[01][0-9] ms, half their interquartile range\)\. " "$run/BOTTLENECK_ANALYSIS.md"
check clock_durations_unchanged python3 -c '
import json, sys
a, b = (json.load(open(f))["scenarios"][0] for f in sys.argv[1:])
keys = ("collectives", "stragglers", "step_time_ms", "shares_pct", "verdict")
sys.exit(any(a[k] != b[k] for k in keys))' shifted.json "$run/summary.json"

# No collective to match: said, and no offset named
run=$(run_with unmatched 7300 unmatched)
check clock_unmatched_uncorrected [ "$(S "['timeline_clocks']"),$(S "['clock_offsets'][1]['offset_ms']")" = "uncorrected,None" ]
check clock_unmatched_said grep -q "^Clocks: the ranks' clocks could not be compared (fewer than 5 blocking collectives matched across them): \`timeline.json\` shows each on its own clock, uncorrected, and nothing here rests on when ranks started something" "$run/BOTTLENECK_ANALYSIS.md"
check clock_unmatched_no_offset bash -c '! grep -q "clock is .* ms" "$1"' _ "$run/BOTTLENECK_ANALYSIS.md"

# Legacy (array-form) traces of 3 ranks on one node, each timed from its own profiler's start
# (rank 1's 20 ms later, rank 2's 15 ms earlier): per-rank offsets, said as start times
rm -rf traces && python3 "$ROOT/tests/tools/clock_traces.py" legacy traces
sed -i 's/nodes: 2, tasks_per_node: 2/nodes: 1, tasks_per_node: 3/' c.yaml
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/legacy" c.yaml >legacy.out 2>&1
run=$(rundir legacy.out)
check clock_legacy_per_rank [ "$(json "$run/summary.json" '(j["scenarios"][0]["timeline_clocks"], j["scenarios"][0]["clock_offsets"], [(r["rank"], round(r["offset_ms"])) for r in j["scenarios"][0]["clock_ranks"]])')" = "('corrected', [], [(0, 0), (1, -20), (2, 15)])" ]
check clock_legacy_within_jitter python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["scenarios"][0]["clock_ranks"]
sys.exit(abs(r[1]["offset_ms"] + 20) > 0.02 or abs(r[2]["offset_ms"] - 15) > 0.02)' "$run/summary.json"
check clock_legacy_said grep -q "^Clocks: the ranks' traces count time from each profiler's own start (the legacy profiler's array form), so these offsets are differences of start times, not of clocks: the ranks' offsets to rank 0 run from -20.00 to 15.00 ms" "$run/BOTTLENECK_ANALYSIS.md"
check clock_legacy_timeline_lines_up python3 "$ROOT/tests/tools/clock_timeline.py" "$run/timeline.json" 0.05
check clock_legacy_negative_said grep -q "^Clocks: .* run from -20.00 to 15.00 ms (each [^)]*; negative: the profiler started later), and each rank" "$run/BOTTLENECK_ANALYSIS.md"
# the same traces with rank 1's as rank 0's: every offset positive (20 and 35 ms), no sign said
mv traces/rank0.pt.trace.json r0 && mv traces/rank1.pt.trace.json traces/rank0.pt.trace.json && mv r0 traces/rank1.pt.trace.json
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/legacy2" c.yaml >legacy2.out 2>&1
md="$(rundir legacy2.out)/BOTTLENECK_ANALYSIS.md"
check clock_legacy_positive_no_sign bash -c 'grep -q "^Clocks: .* run from 0.00 to 35.00 ms (each [^;)]*), and each rank" "$1" && ! grep -q "negative: the profiler" "$1"' _ "$md"

# campaign-analyze RUN gives the same clocks (from analysis_input.json and the traces)
run=$(rundir shifted.out)
cp "$run/summary.json" before.json
"$BIN/campaign-analyze" "$run" >/dev/null 2>&1
check clock_analyze_same cmp -s before.json "$run/summary.json"
