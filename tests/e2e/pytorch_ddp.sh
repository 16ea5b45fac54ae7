# A user's own plain PyTorch DDP script (campaigns/ddp_train.py: env://
# rendezvous, gloo, a DataLoader, torch.profiler; nothing campaign-specific)
# kept beside its campaign file, run by `campaign submit` on the local
# executor at 1, 2 and 4 emulated nodes, and analysed from what it leaves:
# its profiler traces (Debian's torch 1.13 writes the legacy array form),
# the step lines it prints, or the node monitors alone.
# lane: solo (compares timings: runs alone after the main lanes, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch pytorch_ddp
cp "$ROOT/campaigns/ddp_train.py" train.py

# OMP_WAIT_POLICY: PASSIVE: the script gives each rank a thread per CPU of its node
# (os.cpu_count() // LOCAL_WORLD_SIZE), and the emulated nodes share this machine's CPUs: the
# OpenMP threads of one rank spinning while another's wait for a CPU made every step of several
# ranks 10 to 30 times longer (a 12 ms step took some 400) and cost a fifth more CPU seconds
cat >ddp.yaml <<'Y'
campaign: userddp
description: a plain PyTorch DDP script, analysed from its torch.profiler traces
workload:
  command: "/usr/bin/python3 {{campaign_dir}}/train.py --steps {{steps}} --warmup {{warmup_steps}} --workers {{workers}} --out profiler {{extra}}"
  env: { GLOO_SOCKET_IFNAME: lo, OMP_NUM_THREADS: "1", OMP_WAIT_POLICY: PASSIVE }
  params: { extra: "", workers: "0" }
profile:
  warmup_steps: 3
  active_steps: 24
  traces: ["profiler/*.pt.trace.json"]
  monitor: { enabled: true, interval_ms: 200 }
analysis:
  batch_per_rank: 32
  step_log: { pattern: 'step (?<step>\d+) loss (?<loss>[0-9.]+) time (?<step_ms>[0-9.]+) ms' }
knobs:
  data_loading: { params: { workers: "4" }, loader: { workers: 4 } }
scenarios:
  - { name: cpu-1n, nodes: 1, tasks_per_node: 1 }
  - { name: cpu-2n, nodes: 2, tasks_per_node: 1 }
  - { name: cpu-4n, nodes: 4, tasks_per_node: 1 }
  - { name: slow-input, nodes: 1, tasks_per_node: 1, params: { extra: "--slow-loader-ms 6" } }
  - { name: big-model, nodes: 2, tasks_per_node: 1, params: { extra: "--embed-rows 100000 --hidden 64 --layers 2 --batch 2" }, analysis: { batch_per_rank: 2 } }
  - { name: log-only, nodes: 2, tasks_per_node: 1, params: { extra: "--no-profiler" } }
Y
torch_submit out.txt --backend local --results "$SCRATCH/res" ddp.yaml; rc=$?
run=$(rundir out.txt)
check ddp_submit_wait_exit0 [ "$rc" -eq 0 ]
check ddp_all_completed [ "$(json "$run/summary.json" '[s["state"] for s in j["scenarios"]]')" = "['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']" ]
check ddp_all_analysed [ "$(json "$run/summary.json" 'all(s["analysed"] for s in j["scenarios"])')" = True ]
for s in cpu-1n cpu-2n cpu-4n slow-input big-model; do
	check "ddp_${s}_source_traces" [ "$(json "$run/summary.json" "[x['source'] for x in j['scenarios'] if x['name'] == '$s'][0]")" = "PyTorch profiler traces" ]
	# the step time two ways, recounted from the raw traces beside the script's own timer
	# (issue 45, point 10; tests/tools/step_estimators.py): per step the slowest rank, and the
	# period between consecutive steps' last all-reduces, which the analysis takes with two
	# ranks or more. Its median is the recount's. Beside the script's timer the means are
	# compared, not the medians: a rank's periods and its timer's intervals over the same steps
	# add up to the same span but for one step's tail, so their means agree (2 % in a quiet run),
	# while the medians of 8 steps of ranks sharing 2 loaded CPUs differ by chance (a quiet run:
	# the ranks' own medians 32.6 to 44.3 ms, their means 35.4 to 36.6; CI under load: 15.5 %)
	python3 "$ROOT/tests/tools/step_estimators.py" "$run/$s/traces" "$run/$s/logs" 3 >"est-$s.json"
	ours=$(json "$run/summary.json" "[x['step_time_ms']['median'] for x in j['scenarios'] if x['name'] == '$s'][0]")
	echo "$s: the script's own timer, median per rank $(json "est-$s.json" '[v["median_ms"] for r, v in j["own"].items()]') ms (mean $(json "est-$s.json" 'j["own_mean_ms"]')); per step the slowest rank: median $(json "est-$s.json" 'j["rank_step"]["median_ms"]') ms; the collective period: median $(json "est-$s.json" 'j["collective_period"]["median_ms"]') ms ($(json "est-$s.json" 'j["collective_period"]["periods"]') of $(json "est-$s.json" 'j["steps"]') steps); campaign: $ours ms"
	check "ddp_${s}_estimator_as_recounted" [ "$(json "$run/summary.json" "[x['step_estimator'] for x in j['scenarios'] if x['name'] == '$s'][0]")" = "$(json "est-$s.json" 'j["chosen"]')" ]
	check "ddp_${s}_step_times_as_recounted" python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]
e = json.load(open(sys.argv[3]))
want = sorted(e[e["chosen"]]["times"])
ok = len(want) == len(s["step_times_ms"]) and all(abs(a - b) <= 0.002 for a, b in zip(sorted(s["step_times_ms"]), want))
ok = ok and abs(s["step_time_ms"]["median"] - e[e["chosen"]]["median_ms"]) <= 0.002
ok = ok and s["period_steps"] == e["collective_period"]["periods"]
sys.exit(0 if ok else 1)' "$run/summary.json" "$s" "est-$s.json"
	read -r ours theirs <<<"$(ddp_mean_pair "$run/summary.json" "$s" "est-$s.json")"
	check "ddp_${s}_mean_within_10pct_of_script ($ours vs $theirs ms)" within_pct 10 "$ours" "$theirs"
	check "ddp_${s}_shares_add_up" python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]["shares_pct"]
t = s["data_loading"] + s["compute"] + s["communication"] + s["peer_wait"] + s["io"] + s["other"]
c = s["forward"] + s["backward"] + s["optimizer"] + s["compute_outside_phases"]
sys.exit(0 if abs(t - 100) < 0.5 and abs(c - s["compute"]) < 0.05 else 1)' "$run/summary.json" "$s"
done
# one rank: its own steps; two and four: the period of the all-reduces, every step but the first
check ddp_estimators [ "$(for s in cpu-1n cpu-2n cpu-4n; do json "$run/summary.json" "[(x['step_estimator'], x['period_steps']) for x in j['scenarios'] if x['name'] == '$s'][0]"; done | tr '\n' ' ')" = "('rank_step', 0) ('collective_period', 23) ('collective_period', 23) " ]
check ddp_estimator_said grep -q "for 23 of the 24 steps; the other is the slowest rank's own step, with no collective before it\." "$run/BOTTLENECK_ANALYSIS.md"
check ddp_legacy_trace_format bash -c 'head -c 1 "$1"/cpu-2n/traces/rank0.pt.trace.json | grep -q "\["' _ "$run"
check ddp_traces_of_every_rank [ "$(ls "$run"/cpu-4n/traces/ | tr '\n' ' ')" = "rank0.pt.trace.json rank1.pt.trace.json rank2.pt.trace.json rank3.pt.trace.json " ]
check ddp_rank_logs [ "$(ls "$run"/cpu-4n/logs/ | tr '\n' ' ')" = "rank_0.out rank_1.out rank_2.out rank_3.out " ]
check ddp_rank_log_has_steps grep -q "^step 26 loss" "$run/cpu-4n/logs/rank_3.out"
check ddp_job_log_has_ranks_output grep -q "^rank 3 median step" "$run"/cpu-4n/slurm-*.out
check ddp_slow_input_data_loader_bound [ "$(json "$run/summary.json" "[x['verdict'] for x in j['scenarios'] if x['name'] == 'slow-input'][0]")" = data-loader-bound ]
# a 100000 x 64 embedding with dense gradients (25 MB a step; 400000 rows took 20 CPU seconds
# more to show the same): all-reducing them and zeroing, accumulating and updating them on the
# CPU both take a large share; which is larger depends on the machine's speed, not on the code.
# What the code guarantees (tests/tools/largest_share.py): the verdict is the largest candidate
# share, and the communication flag is there exactly when communication (with the waiting it
# causes) passes its 20 % threshold.
check ddp_big_model_largest_share python3 "$ROOT/tests/tools/largest_share.py" "$run/summary.json" big-model
check ddp_big_model_communicates [ "$(json "$run/summary.json" "[x['shares_pct']['communication'] > 0 for x in j['scenarios'] if x['name'] == 'big-model'][0]")" = True ]
# what the straggler test could tell with each scenario's steps and ranks, recounted, and said
# so where it could name no one (tests/tools/straggler_test.py)
check ddp_straggler_test_recounted python3 "$ROOT/tests/tools/straggler_test.py" "$run"
# the scaling figure plots each series of two scenarios or more, never a series of one (its own
# baseline, efficiency 1.00 by definition: slow-input here)
check ddp_scaling_figure_series python3 - "$run/figures/data/scaling.dat" "$run/summary.json" <<'PY'
import json, sys
blocks, name = {}, None
for line in open(sys.argv[1]):
    if line.startswith("# ") and not line.startswith("# per series"):
        name = line[2:].strip()
        blocks[name] = []
    elif line.strip() and not line.startswith("#"):
        blocks[name].append(line.split())
sc = [s for s in json.load(open(sys.argv[2]))["scenarios"] if s.get("analysed")]
want = sorted(b for b in {s["baseline"] for s in sc} if sum(s["baseline"] == b for s in sc) >= 2)
ok = sorted(blocks) == want and all(len(rows) >= 2 for rows in blocks.values())
print("   series plotted %s, of two or more %s" % (sorted(blocks), want))
sys.exit(0 if ok and want else 1)
PY
check ddp_top_operators [ "$(json "$run/summary.json" "len([x for x in j['scenarios'] if x['name'] == 'cpu-2n'][0]['top_operators'])")" = 10 ]
check ddp_scenario_batch_wins [ "$(json "$run/summary.json" "[x['global_batch'] for x in j['scenarios'] if x['name'] == 'big-model'][0]")" = 4 ]
check ddp_throughput_from_batch [ "$(json "$run/summary.json" "[x['throughput_unit'] for x in j['scenarios'] if x['name'] == 'cpu-2n'][0]")" = samples/s ]
check ddp_series_scaled [ "$(json "$run/summary.json" "[x['baseline'] for x in j['scenarios'] if x['name'] == 'cpu-4n'][0]")" = cpu-1n ]
check ddp_model_states_fit grep -q "The model \(fits\|does not fit\) the measured points" "$run/BOTTLENECK_ANALYSIS.md"
check ddp_report_names_source grep -q "(from PyTorch profiler traces)" "$run/BOTTLENECK_ANALYSIS.md"
check ddp_report_no_fix_the_cause bash -c '! grep -q "fix the cause" "$1/BOTTLENECK_ANALYSIS.md"' _ "$run"
# the unchanged execution graph replayed (issue 47): its error against the measured median
# and mean, which tests/tools/replay_measured.py recounts from the raw traces; printed, and held
# within 10 % per scenario (the issue's target). 24 active steps, not 12: cpu-2n's steps are
# 10-20 ms, and with a CPU hog on each core the replay's median of 12 of them was 10.4 % off
# once (ranks +1 and +7 %); of 24, 0.3 and 1.5 % in two runs beside the same hogs
for s in cpu-1n cpu-2n cpu-4n slow-input big-model; do
	rep=$(json "$run/summary.json" "[x['replay'] for x in j['scenarios'] if x['name'] == '$s'][0]")
	echo "   replay $s: $rep"
	theirs=$(python3 "$ROOT/tests/tools/replay_measured.py" "$run/$s/traces" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["measured_ms"], d["measured_mean_ms"])')
	ours=$(json "$run/summary.json" "(lambda r: '%s %s' % (r['measured_ms'], r['measured_mean_ms']))([x['replay'] for x in j['scenarios'] if x['name'] == '$s'][0])")
	check "ddp_${s}_replay_measured_recounted ($ours vs $theirs ms)" python3 -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); sys.exit(0 if all(abs(float(x) - float(y)) < 1e-3 for x, y in zip(a, b)) else 1)' "$ours" "$theirs"
	# where the measured steps are not alike (mean over 25 % from median: steps in modes, a
	# median one or two steps move far; 3 and 5-9 ms once, where a replay within 2 % of most
	# steps and +2.6 % by the means was +23 % by the medians), or their median is fragile (the
	# steps ranked one either side of it over 20 % apart: 4.6 and 5.6 ms astride a median of
	# 5.1, -10.2 % by the medians and +0.4 % by the means once), or else the replayed steps'
	# are (two ranks on two cores: the replay moved time between adjacent steps, its median
	# 4.68 ms at the top of its lower mode against 5.37 measured, -12.8 %; by the means +4.1 %),
	# the error judged is the means': recounted from the steps summary.json lists
	theirs_med=${theirs%% *}
	check "ddp_${s}_replay_judged_recounted" python3 "$ROOT/tests/tools/replay_judged.py" "$run/summary.json" "$s" "$theirs_med"
	err=$(json "$run/summary.json" "(lambda r: r['mean_error_pct'] if r['by_means'] else r['error_pct'])([x for x in j['scenarios'] if x['name'] == '$s'][0]['replay'])")
	by=$(json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$s'][0]['replay']['by_means']")
	check "ddp_${s}_replay_error_recounted" python3 -c 'import json, sys
r = [x for x in json.load(open(sys.argv[1]))["scenarios"] if x["name"] == sys.argv[2]][0]["replay"]
e = 100 * (r["step_ms"] - r["measured_ms"]) / r["measured_ms"]
tol = 100 * 0.0011 / r["measured_ms"] + 0.0011  # both times are rounded to 0.001 ms
sys.exit(0 if abs(e - r["error_pct"]) <= tol and r["hosts"] == 1 else 1)' "$run/summary.json" "$s"
	# within 10 %, unless the median is not defined to 10 %: steps in two modes (this
	# machine's load changing mid-run: 8 ms steps, then 4) put it between its two middle
	# steps, 24 % apart once, where a replay a step off landed 12 % away; then said, not judged.
	# Measured beside other load (the report's **contaminated**, over 10 % of a core: the
	# suite's other scripts), which the replay does not see, within 25 %: 20 runs of this
	# script beside bursts of CPU hogs stayed within 7.9 %, the suite beside it missed by 19.3 %
	# once in about six fresh clones; the report says the load beside the replay's fidelity
	mid=$(json "$run/summary.json" "(lambda t: round(100 * (t[len(t) // 2] - t[(len(t) - 1) // 2]) / t[len(t) // 2], 1))(sorted([x for x in j['scenarios'] if x['name'] == '$s'][0]['step_times_ms']))")
	load=$(json "$run/summary.json" "(([x for x in j['scenarios'] if x['name'] == '$s'][0].get('contaminated_by') or {}).get('cpu_pct') or 0)")
	bound=10
	if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 10 else 1)' "$load"; then
		bound=25
		check "ddp_${s}_replay_load_said" grep -q "\`$s\` [0-9.]* ms against [0-9.]* ms\( by the means\)\? ([^)]*)\(, \*\*over 10 %: a rough replay\*\*, so its predictions are rough too\)\?\(, \*\*its replayed median over 10 % off\*\*: predictions of a median (ratios of replayed medians) are rough, those by the means are not\)\?, measured beside other load ([0-9]* % of a core), which the replay does not see" "$run/BOTTLENECK_ANALYSIS.md"
	fi
	if [ "$by" = False ] && python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1])) > float(sys.argv[3]) and float(sys.argv[2]) > 10 else 1)' "$err" "$mid" "$bound"; then
		skip "ddp_${s}_replay_within_bound" "replay error $err %, but its two middle steps are $mid % apart: its median is not defined to $bound %"
	else
		check "ddp_${s}_replay_within_bound ($err % of $bound %; by the means: $by; beside $load % of a core)" python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1])) <= float(sys.argv[2]) else 1)' "$err" "$bound"
	fi
	# judged by the means for its replayed steps, a replayed median over 10 % off: flagged too
	if [ "$(json "$run/summary.json" "(lambda r: r['by_means_of'] == 'replayed' and abs(r['error_pct']) > 10)([x for x in j['scenarios'] if x['name'] == '$s'][0]['replay'])")" = True ]; then
		check "ddp_${s}_replay_median_rough_said" grep -q "\*\*its replayed median over 10 % off\*\*: predictions of a median" "$run/BOTTLENECK_ANALYSIS.md"
	fi
	# over 10 %, flagged in the report's fidelity line
	if python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1])) > 10 else 1)' "$err"; then
		check "ddp_${s}_replay_rough_said" grep -q "\`$s\` [0-9.]* ms against [0-9.]* ms\( by the means\)\? ([^)]*), \*\*over 10 %: a rough replay\*\*, so its predictions are rough too" "$run/BOTTLENECK_ANALYSIS.md"
	fi
done
# cpu-2n's two nodes are this machine (2 ranks on its 2 CPUs, not oversubscribed): said in its
# summary line beside its speedup, and in its communication line, which has no bytes to rate
check ddp_cpu2n_emulated_said grep -q "^- \*\*cpu-2n\*\* (2 nodes, 2 ranks, gloo): .* against cpu-1n (\*\*emulated\*\*: its 2 nodes are this one machine, any collectives over loopback, not a network, so this speedup and efficiency are not those of real nodes)" "$run/BOTTLENECK_ANALYSIS.md"
check ddp_cpu2n_loopback_said bash -c 'sed -n "/^### cpu-2n\$/,/^### /p" "$1" | grep -qx "Communication: .* waiting for slower ranks; over this machine.s loopback: the local executor.s nodes are this machine, no fabric\."' _ "$run/BOTTLENECK_ANALYSIS.md"
# the report as a reader checks it (tests/tools/bottlenecks_report.py: its sums, straggler
# groups, speedups by the means beside throughputs at the mean step ...)
check ddp_report_consistent python3 "$ROOT/tests/tools/bottlenecks_report.py" "$run"
check ddp_replay_in_report grep -q "^- Replay fidelity .*\`cpu-2n\` [0-9.]* ms against [0-9.]* ms" "$run/BOTTLENECK_ANALYSIS.md"
check ddp_log_only_no_replay [ "$(json "$run/summary.json" "[(x['replay'], x['replay_why']) for x in j['scenarios'] if x['name'] == 'log-only'][0]")" = "(None, 'step lines only: no execution graph')" ]
check ddp_log_only_no_replay_in_report grep -q "\`log-only\` none (step lines only: no execution graph)" "$run/BOTTLENECK_ANALYSIS.md"

# busy_monitors PCT FILE...: every sample of these node monitors rewritten to PCT % of the
# node's CPUs busy, none of it foreign (the job's own processes: all of the cores, or none)
busy_monitors() {
	python3 -c 'import csv, sys
for p in sys.argv[2:]:
    rows = list(csv.DictReader(open(p)))
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            r["cpu_util_pct"], r["foreign_cpu_pct"] = sys.argv[1], "0.0"
            if "job_cpu_pct" in r:
                r["job_cpu_pct"] = "10000.0" if sys.argv[1] == "100" else "0.0"
            w.writerow(r)' "$@"
}
# The DataLoader given 4 worker processes, replayed (issue 47): slow-input loads in the training
# process (num_workers 0), 6 ms of sleep a sample. Its traces are on the profiler's own clock
# (Debian's torch), so where its steps fell in the job is not known: the node monitors' samples
# taken are those of the part of the job its active steps must have covered wherever they fell
# (their span twice over longer than the job's monitored one, less a sample); where there is no
# such part (a slow start-up), none is measured and the prediction takes all of the loading as
# CPU work. Either way its interval reaches the replays with all of it waiting and all of it
# CPU work, and the prediction is below the measured step.
D() { json "$1/summary.json" "[x for x in j['scenarios'] if x['name'] == 'slow-input'][0]['replay']['data_loading']$2"; }
# busy_checks DIR NAME: DIR (a copy of the run) analysed again with every monitor sample of
# slow-input all cores busy, then none: all of its loading CPU work (the all-CPU replay of
# the run, exactly), then none of it (the all-waiting one)
busy_checks() {
	local busy want
	for busy in 100 0; do
		busy_monitors "$busy" "$1"/slow-input/monitor/*/cpu_monitor.csv
		"$BIN/campaign-analyze" "$1" >/dev/null 2>>"$1.err"
		want=$([ "$busy" = 100 ] && echo "100.0,$(D "$run" '["all_cpu_step_ms"]')" || echo "0.0,$(D "$run" '["all_waiting_step_ms"]')")
		check "$2_${busy}pct_busy" [ "$(D "$1" '["loader_cpu_pct"]'),$(D "$1" '["step_ms"]')" = "$want" ]
	done
}
echo "   slow-input's DataLoader replayed: $(D "$run" '')"
own_cpu=$(D "$run" '["loader_cpu_pct"]')
check ddp_dataloader_replayed [ "$(D "$run" '["user_loader"]'),$(D "$run" '["loader_workers"]'),$(D "$run" '["loader_prefetch"]'),$(D "$run" '["loaders_measured"]')" = "True,4,8,0" ]
check ddp_dataloader_bounds python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s = [x for x in j["scenarios"] if x["name"] == "slow-input"][0]
d = s["replay"]["data_loading"]
lo, hi = d["interval_ms"]
r = [r for r in j["recommendations"] if r["kind"] == "data_loading"][0]
i = r["scenarios"].index("slow-input")
cpu = d["loader_cpu_pct"]
sys.exit(0 if all(lo <= x <= hi for x in (d["all_waiting_step_ms"], d["step_ms"], d["all_cpu_step_ms"])) and (cpu is not None or d["step_ms"] == d["all_cpu_step_ms"]) and d["step_ms"] < s["step_time_ms"]["median"] and r["prediction_basis"][i] == "replay" and r["predicted_step_ms"][i] == d["step_ms"] else 1)' "$run/summary.json"
# where the mean leads, the bounds are said by the means (the medians beside): all of it CPU
# work may gain nothing by the means where its median says much
check ddp_dataloader_bounds_by_means python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
d = [x for x in j["scenarios"] if x["name"] == "slow-input"][0]["replay"]["data_loading"]
r = [r for r in j["recommendations"] if r["kind"] == "data_loading"][0]
i = r["scenarios"].index("slow-input")
md = open(sys.argv[2]).read()
w, c = d["all_waiting_mean_ms"], d["all_cpu_mean_ms"]
lo, hi = d["mean_interval_ms"]
said = ("all of its loading waiting: %.2f ms by the means (" % w in md and "all of it CPU work: %.2f ms by the means (" % c in md)
sys.exit(0 if lo <= w <= c <= hi and said == r["gain_by_means"][i] else 1)' "$run/summary.json" "$run/BOTTLENECK_ANALYSIS.md"
if [ "$own_cpu" = None ]; then
	# its least gain an assumption (all of the loading CPU work): never headlined as no gain
	check ddp_dataloader_unmeasured_not_no_gain python3 -c 'import json, sys
r = [r for r in json.load(open(sys.argv[1]))["recommendations"] if r["kind"] == "data_loading"][0]
sys.exit(0 if "no gain predicted" not in r["text"] else 1)' "$run/summary.json"
	check ddp_dataloader_said grep -q "; from all of its loading waiting to all of it CPU work, with the 95 % intervals of their replayed medians: [0-9.]*-[0-9.]* ms), the DataLoader with 4 worker processes a rank and 8 batches in flight (it loaded in the training process.*its loading taken as CPU work (the node monitors ran, but none of their samples lies surely within its steps: its traces keep a clock of their own, and its [0-9.]* s of active steps are too short a part of the [0-9.]* s the monitors sampled\( before its traces were written\)\{0,1\} to place one); all of its loading waiting: [0-9.]* ms\( by the means\)\{0,1\} (-[0-9]* %[^)]*); all of it CPU work: [0-9.]* ms\( by the means\)\{0,1\} ([-+][0-9]* %[^)]*)" "$run/BOTTLENECK_ANALYSIS.md"
else
	check ddp_dataloader_said grep -q "; from all of its loading waiting to all of it CPU work, with the 95 % intervals of their replayed medians: [0-9.]*-[0-9.]* ms), the DataLoader with 4 worker processes a rank and 8 batches in flight (it loaded in the training process[^)]*), about [0-9]* % of its loading CPU work (estimated: the job's busy cores by the node monitors[^)]*) (its traces keep a clock of their own: the samples counted are those of the middle [0-9.]* s of the span from the monitors' first sample to \(the monitors' last\|its traces' writing\), which its [0-9.]* s of active steps covered wherever in it they lay); all of its loading waiting: [0-9.]* ms\( by the means\)\{0,1\} (-[0-9]* %[^)]*); all of it CPU work: [0-9.]* ms\( by the means\)\{0,1\} ([-+][0-9]* %[^)]*)" "$run/BOTTLENECK_ANALYSIS.md"
	# every sample rewritten to all cores busy: all of the loading is CPU work (the all-CPU
	# replay, exactly); to none: none of it (the all-waiting one)
	cp -a "$run" own
	busy_checks own ddp_dataloader_own_clock
fi
# A trace is written after its steps (campaign collect keeps when): its time, set a quarter
# of a second before the monitors' last sample ends, is where the part taken ends; set after
# it (now), it bounds nothing
ends_by() {
	python3 -c 'import csv, glob, os, sys, time
ts = [float(r["timestamp"]) for f in glob.glob(sys.argv[1] + "/slow-input/monitor/*/cpu_monitor.csv") for r in csv.DictReader(open(f))]
t = max(ts) - 0.25 if sys.argv[2] == "inside" else time.time()
for f in glob.glob(sys.argv[1] + "/slow-input/traces/*.json"):
    os.utime(f, (t, t))' "$@"
	"$BIN/campaign-analyze" "$1" >/dev/null 2>>"$1.err"
}
cp -a "$run" bound
ends_by bound inside
check ddp_dataloader_ends_by_write grep -q -e "before its traces were written" -e "from the monitors' first sample to its traces' writing, which its" bound/BOTTLENECK_ANALYSIS.md
ends_by bound after
check ddp_dataloader_written_after_no_bound [ "$(grep -c -e "before its traces were written" -e "its traces' writing" bound/BOTTLENECK_ANALYSIS.md)" = 0 ]
# The same traces as newer PyTorch writes them, their times counted from a baseTimeNanoseconds
# (tests/tools/unix_traces.py: set so that they end where the file was written): on Unix
# time, the monitors' busy cores over the steps now give the
# loading's CPU share, an estimate (its arithmetic: test_replay_build's user_loader_change), and
# the interval holds the prediction with it and both bounds above (a median of bursty steps
# need not lie between the bounds' medians: 83 % of it CPU work gave 12.2 ms where all of it
# gave 11.6, the steps coming in bursts as the workers finish together). With every sample
# rewritten to all cores busy, all of the loading is CPU work: the prediction is the all-CPU one above, exactly; with
# none busy, none of it: the all-waiting one.
cp -a "$run" unix
python3 "$ROOT/tests/tools/unix_traces.py" unix/slow-input/traces >/dev/null
"$BIN/campaign-analyze" unix >/dev/null 2>unix.err
echo "   on Unix time: $(D unix '')"
check ddp_dataloader_cpu_measured python3 -c 'import json, sys
def d(p):
    return [x for x in json.load(open(p))["scenarios"] if x["name"] == "slow-input"][0]["replay"]["data_loading"]
a, u = d(sys.argv[1]), d(sys.argv[2])
lo, hi = u["interval_ms"]
sys.exit(0 if u["loader_cpu_pct"] is not None and 0 <= u["loader_cpu_pct"] <= 100 and (u["all_waiting_step_ms"], u["all_cpu_step_ms"]) == (a["all_waiting_step_ms"], a["all_cpu_step_ms"]) and all(lo <= x <= hi for x in (u["step_ms"], a["step_ms"], a["all_waiting_step_ms"])) else 1)' "$run/summary.json" unix/summary.json
check ddp_dataloader_cpu_said grep -q "batches in flight (it loaded in the training process[^)]*), about [0-9]* % of its loading CPU work (estimated: the job's busy cores by the node monitors.*; all of its loading waiting: [0-9.]* ms\( by the means\)\{0,1\} (-[0-9]* %[^)]*); all of it CPU work: [0-9.]* ms\( by the means\)\{0,1\} ([-+][0-9]* %[^)]*)" unix/BOTTLENECK_ANALYSIS.md
busy_checks unix ddp_dataloader_cpu

# the step lines alone, when the script writes no trace
check ddp_log_only_source [ "$(json "$run/summary.json" "[x['source'] for x in j['scenarios'] if x['name'] == 'log-only'][0]")" = "step lines in rank logs" ]
ours=$(json "$run/summary.json" "[x['step_time_ms']['median'] for x in j['scenarios'] if x['name'] == 'log-only'][0]")
theirs=$(script_median "$run/log-only" 3)
check "ddp_log_only_median_is_the_scripts ($ours vs $theirs ms)" within10 "$ours" "$theirs"
# a real script's step lines fit in its job's time: nothing said against them
check ddp_log_only_lines_fit [ "$(json "$run/summary.json" "[x['step_lines_exceed_job'] for x in j['scenarios'] if x['name'] == 'log-only'][0]")" = None ]
check ddp_log_only_loss_kept [ "$(json "$run/summary.json" "[x['loss']['last'] > 0 for x in j['scenarios'] if x['name'] == 'log-only'][0]")" = True ]

# monitors alone: a workload that leaves nothing else
cat >mon.yaml <<'Y'
campaign: silent
workload: { command: ["/bin/sleep", "1.5"] }
profile: { monitor: { enabled: true, interval_ms: 100 } }
scenarios: [{ name: quiet, nodes: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/mon" mon.yaml >mon.txt 2>&1; rc=$?
mrun=$(rundir mon.txt)
check monitors_only_exit0 [ "$rc" -eq 0 ]
check monitors_only_flagged [ "$(json "$mrun/summary.json" 'j["scenarios"][0]["source"]')" = "node monitors" ]
check monitors_only_verdict [ "$(json "$mrun/summary.json" 'j["scenarios"][0]["verdict"] is not None')" = True ]
check monitors_only_says_what_is_missing grep -q "no PyTorch-profiler traces in traces/ (profile.traces" "$mrun/BOTTLENECK_ANALYSIS.md"
check monitors_only_says_completed grep -q "completed but cannot be analysed" "$mrun/BOTTLENECK_ANALYSIS.md"
check monitors_only_no_replay [ "$(json "$mrun/summary.json" '(j["scenarios"][0]["replay"], j["scenarios"][0]["replay_why"])')" = "(None, 'monitors only: no execution graph')" ]
check monitors_only_no_figures grep -q "No figures: no scenario has step data" "$mrun/BOTTLENECK_ANALYSIS.md"

# a program that is not there: the job log says which, and where it was looked for
cat >missing.yaml <<'Y'
campaign: missing
workload: { command: ["train_ddp.py", "--steps", "3"] }
scenarios: [{ name: nope, nodes: 2 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/miss" missing.yaml >miss.txt 2>&1; rc=$?
xrun=$(rundir miss.txt)
check missing_program_job_failed [ "$rc" -eq 1 ]
check missing_program_named_with_directory grep -q "cannot run 'train_ddp.py' (working directory $xrun/nope): No such file or directory (not on PATH)" "$xrun"/nope/slurm-*.out
# (the rank that fails first has the others stopped: which of them got to say it is a race)
check missing_program_rank_log bash -c 'grep -q "cannot run '"'train_ddp.py'"'" "$1"/nope/logs/rank_*.out' _ "$xrun"
check missing_program_report_says_failed grep -q "\*\*nope\*\* ended FAILED" "$xrun/BOTTLENECK_ANALYSIS.md"

# --cuda without a GPU (CI, this machine): status 69 and one line saying so, as campaign-trainer-gpu
# (TORCH_CUDA: whether torch sees a GPU, from need_torch)
if [ "$TORCH_CUDA" != False ]; then
	skip ddp_cuda_no_gpu "a GPU is present here; the no-GPU path cannot be exercised"
else
	MASTER_ADDR=127.0.0.1 MASTER_PORT=1 RANK=0 WORLD_SIZE=1 /usr/bin/python3 train.py --cuda --steps 2 >cuda.txt 2>&1; rc=$?
	check ddp_cuda_no_gpu [ "$rc,$(cat cuda.txt)" = "69,ddp_train.py: no GPU: torch.cuda.is_available() is False" ]
fi
