# The forced bottlenecks (campaigns/bottlenecks.yaml): at 1, 2 and 4 emulated
# nodes the analysis names each forced bottleneck; at 1 and 2
# nodes the trainer's own telemetry already shows the forced phase dominating.
# lane: solo (compares timings: runs alone after the main lanes, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
# (on 2 warm-up and 10 active steps, not its 3 and 12: the same verdicts and margins, the loss
# halved by step 11 too, for a sixth less CPU)
sed -e 's/^  warmup_steps: 3$/  warmup_steps: 2/' -e 's/^  active_steps: 12$/  active_steps: 10/' "$ROOT/campaigns/bottlenecks.yaml" >bottlenecks.yaml
check bottlenecks_shortened [ "$(grep -c -e '^  warmup_steps: 2$' -e '^  active_steps: 10$' bottlenecks.yaml)" = 2 ]
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" bottlenecks.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check bottlenecks_all_completed [ "$rc" -eq 0 ]
python3 "$ROOT/tests/tools/bottlenecks_verdicts.py" "$run" >verdicts.txt
while read -r name verdict_ok dominates loss_ok verdict; do
	check "verdict_${name}_is_${verdict}" [ "$verdict_ok" = True ]
	check "loss_halves_${name}" [ "$loss_ok" = True ]
	if [ -n "${CAMPAIGN_SANITIZED:-}" ]; then # sanitizers slow compute, not communication: shares shift
		skip "telemetry_${name}_forced_phase_dominates" "timing-dependent; not judged with sanitizer-built binaries"
	else
		case "$name" in *-4n) ;; *) check "telemetry_${name}_forced_phase_dominates" [ "$dominates" = True ] ;; esac
	fi
done <verdicts.txt
check bottleneck_scenarios_15 [ "$(wc -l <verdicts.txt)" -eq 15 ]
# The report as a reader checks it (tests/tools/bottlenecks_report.py): summary shares in
# table columns, each scenario's own straggler named, one group said once, compute ranges.
check bottlenecks_report_consistent python3 "$ROOT/tests/tools/bottlenecks_report.py" "$run"
check bottlenecks_ranking_rule_said grep -qF "ranked by the largest share of a median step each is predicted to recover in any of its scenarios" "$run/BOTTLENECK_ANALYSIS.md"
# a replay that gains more than the ceiling: the ceiling's smaller gain said as one (its ms
# are more than the replay's), never "less than the replay"
check bottlenecks_ceiling_below_replay_said python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["recommendations"]:
    for p, c in zip(r.get("predicted_step_ms") or [], r.get("ceiling_step_ms") or []):
        if r.get("basis") == "replay" and p is not None and c is not None and p < c and "a smaller gain than the replay" not in r["text"]:
            sys.exit(1)
sys.exit(0 if "less than the replay" not in open(sys.argv[2]).read() else 1)' "$run/summary.json" "$run/BOTTLENECK_ANALYSIS.md"
check bottlenecks_impact_defined grep -qF -- "- Straggler impact (\`impact_pct\`): per step, the waiting of the ranks that arrived before the straggler" "$run/BOTTLENECK_ANALYSIS.md"
# Every scenario replayed from the trainer's traces (issue 47): the measured median recounted
# from the raw traces (tests/tools/replay_measured.py), each error printed, each within 10 %
# and their median within 5 % (the issue's targets).
for s in $(json "$run/summary.json" '" ".join(x["name"] for x in j["scenarios"])'); do
	echo "   replay $s: $(json "$run/summary.json" "[(x['replay'] or {}).get('error_pct') for x in j['scenarios'] if x['name'] == '$s'][0]") %"
	theirs=$(python3 "$ROOT/tests/tools/replay_measured.py" "$run/$s/metrics" | python3 -c 'import json, sys; print(json.load(sys.stdin)["measured_ms"])')
	check "replay_${s}_measured_recounted" python3 -c 'import json, sys
r = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]["replay"]
sys.exit(0 if r and abs(r["measured_ms"] - float(sys.argv[3])) < 1e-3 and r["steps"] == 10 else 1)' "$run/summary.json" "$s" "$theirs"
done
# memory-2n and memory-4n (4 and 8 ranks of elementwise passes on 2 cores) share memory
# bandwidth, which processor sharing does not model: the replay is short there, -3 to -7 %
# in most runs and -11 % once in six; they are held to 15 % (docs/analysis.md says so).
check replay_errors_within_bounds python3 -c 'import json, statistics, sys
s = json.load(open(sys.argv[1]))["scenarios"]
e = [abs(x["replay"]["error_pct"]) for x in s]
bound = lambda x: 15 if x["name"] in ("memory-2n", "memory-4n") else 10
sys.exit(0 if len(e) == 15 and all(abs(x["replay"]["error_pct"]) <= bound(x) for x in s) and statistics.median(e) <= 5 else 1)' "$run/summary.json"
# The communication change's transfer model (docs/analysis.md, "Transformations"): fitted where
# the all-reduces are per parameter (communication-*: weights and biases, a per-call cost and
# a per-byte one), on every rank's all-reduce of every step, and predicting the gain bucketing
# makes there (1.2x to 1.9x measured by campaign try on 2 cores); in proportion to bytes where
# each step has one all-reduce (--ddp sync).
check replay_transfer_model_per_param python3 -c 'import json, sys
for x in json.load(open(sys.argv[1]))["scenarios"]:
    c, n = x["replay"]["communication"], x["ranks"]
    m = c.get("transfer_model")
    if x["name"].startswith("communication-"):
        ok = m and m["per_call_ms"] > 0 and m["collectives"] % (n * 12) == 0 and c["step_ms"] < 0.9 * x["replay"]["measured_ms"]
    else:
        ok = c.get("step_ms") is None or m is None
    # the I/O change: replayed exactly where checkpoints are (io-*), well below the step
    io = x["replay"]["io"]
    if x["name"].startswith("io-"):
        ok = ok and io["checkpoint_every"] == 4 and io["step_ms"] < 0.5 * x["replay"]["measured_ms"] and io["interval_ms"][0] <= io["step_ms"] <= io["interval_ms"][1]
    else:
        ok = ok and io["step_ms"] is None and "no checkpoint range" in io["why"]
    if not ok:
        print("   ", x["name"], c)
        sys.exit(1)' "$run/summary.json"
# The DDP variants campaign: the three modes train the same replicas (checked on 1 warm-up and 5
# active steps, not its 3 and 15: each step shows it).
sed -e 's/^  warmup_steps: 3$/  warmup_steps: 1/' -e 's/^  active_steps: 15$/  active_steps: 5/' "$ROOT/campaigns/ddp-variants.yaml" >ddp.yaml
check ddp_variants_shortened [ "$(grep -c -e '^  warmup_steps: 1$' -e '^  active_steps: 5$' ddp.yaml)" = 2 ]
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/ddp" ddp.yaml >ddp.txt 2>&1; rc=$?
run=$(rundir ddp.txt)
check ddp_variants_completed [ "$rc" -eq 0 ]
# (the modes sum in different orders, so parameters agree to rounding, not bit for bit)
check ddp_variants_same_loss_curve python3 -c '
import json, sys
curves = [[json.loads(l)["loss"] for l in open("%s/ddp-%s/metrics/rank_0.jsonl" % (sys.argv[1], m)) if "\"step\"" in l]
          for m in ("sync", "bucketed", "per-param")]
sys.exit(0 if all(abs(a - b) <= 1e-4 * max(1, abs(a)) for c in curves[1:] for a, b in zip(curves[0], c)) else 1)' "$run"
for m in sync bucketed per-param; do
	check "ddp_${m}_replicas_identical" python3 -c '
import json, sys, glob
files = sorted(glob.glob(sys.argv[1] + "/metrics/rank_*.jsonl"))
sums = [[json.loads(l)["param_checksum"] for l in open(f) if "\"step\"" in l] for f in files]
sys.exit(0 if len(files) == 4 and all(len(set(s)) == 1 for s in zip(*sums)) else 1)' "$run/ddp-$m"
done
check ddp_bucketed_overlaps [ "$(json "$run/summary.json" '[s for s in j["scenarios"] if s["name"] == "ddp-bucketed"][0]["overlap_pct"] > 0')" = True ]
check ddp_sync_no_overlap [ "$(json "$run/summary.json" '[s for s in j["scenarios"] if s["name"] == "ddp-sync"][0]["overlap_pct"]')" = 0.0 ]
# A file-backed dataset gives the same training as generated data.
T=$BIN/campaign-trainer
"$T" --make-dataset ds.bin --samples 2000 --input 64 --output 8 >/dev/null
"$T" --steps 20 --batch 16 --input 64 --output 8 --hidden 32 --metrics-dir gen >/dev/null
"$T" --steps 20 --batch 16 --input 64 --output 8 --hidden 32 --dataset ds.bin --metrics-dir file >/dev/null
# (the same bytes and parameter checksum, fields 17-18; 19 is the start time of the step)
check dataset_file_same_training [ "$(tail -n 1 gen/rank_0.jsonl | cut -d, -f17-18)" = "$(tail -n 1 file/rank_0.jsonl | cut -d, -f17-18)" ]
"$T" --steps 2 --input 65 --dataset ds.bin --metrics-dir x 2>err.txt; rc=$?
check dataset_shape_mismatch_exit4 [ "$rc" -eq 4 ]
check dataset_shape_mismatch_says_why grep -q "not a dataset of this --input/--output shape" err.txt
