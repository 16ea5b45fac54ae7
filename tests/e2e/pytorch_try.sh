# campaign try on a user's own PyTorch DDP script (issue 47): campaigns/ddp_train.py with the
# knobs a user would turn, DataLoader workers (--workers 4, loader: {workers: 4}) and DDP's
# bucket_cap_mb (0.25), over a 2-rank job and its slow-input twin. Each variant that the
# parent's analysis recommends is run, its predictions checked against the measured steps by
# the documented rule (tests/lib.sh try_family: recounted by tests/tools/checked_consistent.py),
# the replay errors and the outcomes printed; the confirmed share is measured by the rounds of
# docs/analysis.md, not held here (a timing).
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
need_torch pytorch_try
cp "$ROOT/campaigns/ddp_train.py" train.py
cat >ddp.yaml <<'Y'
campaign: usertry
description: a plain PyTorch DDP script and the knobs a user would turn
workload:
  command: "/usr/bin/python3 {{campaign_dir}}/train.py --steps {{steps}} --warmup {{warmup_steps}} --bucket-cap-mb {{bucket_cap_mb}} --workers {{workers}} --out profiler {{extra}}"
  env: { GLOO_SOCKET_IFNAME: lo, OMP_NUM_THREADS: "1", OMP_WAIT_POLICY: PASSIVE }
  params: { extra: "", workers: "0", bucket_cap_mb: "25" }
profile:
  warmup_steps: 3
  active_steps: 16
  traces: ["profiler/*.pt.trace.json"]
  monitor: { enabled: true, interval_ms: 200 }
analysis:
  batch_per_rank: 32
knobs:
  data_loading: { params: { workers: "4" }, loader: { workers: 4 } }
  communication: { params: { bucket_cap_mb: "0.25" } }
scenarios:
  - { name: cpu-2n, nodes: 2, tasks_per_node: 1 }
  - { name: slow-input, nodes: 2, tasks_per_node: 1, params: { extra: "--slow-loader-ms 6" } }
Y
torch_submit p.out --backend local --results "$SCRATCH/res" ddp.yaml
parent=$(rundir p.out) pid=$(basename "$parent")
check pytorch_try_parent_analysed [ "$(json "$parent/summary.json" 'all(s["analysed"] for s in j["scenarios"])')" = True ]
for s in cpu-2n slow-input; do
	echo "   replay $s: error $(json "$parent/summary.json" "[(x['replay'] or {}).get('error_pct') for x in j['scenarios'] if x['name'] == '$s'][0]") %"
	check "pytorch_try_${s}_replayed" [ "$(json "$parent/summary.json" "[x['replay'] is not None for x in j['scenarios'] if x['name'] == '$s'][0]")" = True ]
done
"$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" >t.out 2>&1; rc=$?
check pytorch_try_exit0 [ "$rc" -eq 0 ]
sed -n '/ms\/step measured/p; /^checked: /p; /^campaign try: /p' t.out
tried=0
for kind in data_loading communication; do
	recommends pytorch_try "$parent" "$kind" || continue
	tried=$((tried + 1))
	child=$(awk -v k="variant for $kind:" 'index($0, k) == 1 { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)
	check "pytorch_try_${kind}_child" [ -s "$child/summary.json" ]
	sc=$(json "$child/summary.json" 'j["checked_predictions"][0]["scenario"]')
	try_family "pytorch_try_$kind" "$SCRATCH/res" "$parent" "$child" "$sc" "$kind"
	# each prediction printed as the report leads with it: by the means (the parent's mean
	# step and the predicted mean, the medians beside) where its gain is the mean step's
	check "pytorch_try_${kind}_plan_lines" python3 -c '
import json, re, statistics, sys
j = json.load(open(sys.argv[1] + "/summary.json"))
out = open("t.out").read()
plan = out[out.index("variant for " + sys.argv[2] + ":"):]
ok = True
for r in [r for r in j["recommendations"] if r["kind"] == sys.argv[2]]:
    for i, name in enumerate(r["scenarios"]):
        if r["gain_by_means"][i] and r["predicted_mean_ms"][i] is not None:
            steps = [x for x in j["scenarios"] if x["name"] == name][0]["step_times_ms"]
            form = "mean (N) ms/step measured, (N) ms predicted [(]by the means: its steps, measured or predicted, are not alike; median (N) -> (N)[)]"
            want = (statistics.mean(steps), r["predicted_mean_ms"][i], r["step_ms"][i], r["predicted_step_ms"][i])
        else:
            form, want = "(N) ms/step measured, (N) ms predicted", (r["step_ms"][i], r["predicted_step_ms"][i])
        m = re.search("^  " + re.escape(name) + ": " + form.replace("(N)", "([0-9.]+)") + "$", plan, re.M)
        ok = ok and m is not None and all(abs(float(g) - w) < 0.051 for g, w in zip(m.groups(), want))
        print("   ", m.group(0) if m else name + ": no line of the form " + form)
sys.exit(0 if ok else 1)' "$parent" "$kind"
	# the knob ran as the user's script takes it
	[ "$kind" = data_loading ] && want="'--workers' '4'" || want="'--bucket-cap-mb' '0.25'"
	check "pytorch_try_${kind}_knob_ran" grep -qF -- "$want" "$child/$sc/job.sbatch"
	# every prediction a replay of the parent's graph, not a ceiling; communication's a bound
	# (DDP already overlaps its all-reduce with backward: the most smaller buckets gain)
	check "pytorch_try_${kind}_replay_basis" [ "$(json "$parent/summary.json" "sorted(set(b for r in j['recommendations'] if r['kind'] == '$kind' for b in r['prediction_basis']))")" = "$([ $kind = communication ] && echo "['bound']" || echo "['replay']")" ]
done
if [ "$tried" -gt 1 ]; then
	check pytorch_try_share_said grep -qE "^campaign try: [0-9]+ of [0-9]+ predictions? confirmed(, [0-9]+ of them as no gain)? over $tried variants of run $pid$" t.out
fi
