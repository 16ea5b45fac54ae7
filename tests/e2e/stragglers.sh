# The straggler named with its node and cause (issue 23, part 2): the
# reference trainer on 2 emulated nodes x 2 ranks, once even and once with
# rank 3 computing 80 ms more per step (--slow-rank 3 --slow-ms 80). The slow
# run names rank 3, its node local2 and "compute", with an impact of at least
# 20 % of the step; the waiting it imposes, with its own excess compute, is a
# candidate of its own: the verdict is straggler-bound, and the straggler gets a recommendation of its own predicting the
# step without that wait; the even run names none.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
cat >s.yaml <<'Y'
campaign: straggler
workload:
  command: "{{trainer}} --backend gloo --steps 25 --warmup-steps 5 --batch-per-rank 32 --hidden 256 --depth 3 --metrics-dir {{metrics_dir}} {{extra}}"
  env: { OPENBLAS_NUM_THREADS: "1" }
  params: { extra: "" }
profile: { warmup_steps: 5, active_steps: 20, monitor: { enabled: true, interval_ms: 200 } }
scenarios:
  - { name: even, nodes: 2, tasks_per_node: 2 }
  - { name: slow, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 3 --slow-ms 80" } }
  - { name: slownode, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 2,3 --slow-ms 80" } }
Y
# (80 ms a step, not 40: slownode's pair must arrive last together in most steps, and beside
# the suite's other lanes 40 ms left one of the two out of the last group at times, in two
# fresh clones of 2026-11-27; slow's wait must outweigh exposed communication, and beside them
# 40 ms tied it, 51.6 % each, in two more)
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" s.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
S() { json "$run/summary.json" "[x for x in j['scenarios'] if x['name'] == '$1'][0]$2"; }
check stragglers_runs_complete [ "$rc" -eq 0 ]
check stragglers_even_names_none [ "$(S even '["stragglers"]')" = "[]" ]
# last in (nearly) every step: on a loaded machine another rank is at times held off the CPU
# for long, and arrives last in a step or two of the 20
check stragglers_slow_is_rank3_local2_compute [ "$(S slow '["stragglers"][0]["rank"]'),$(S slow '["stragglers"][0]["node"]'),$(S slow '["stragglers"][0]["cause"]'),$(S slow '["stragglers"][0]["arrived_last_pct"] >= 85')" = "3,local2,compute,True" ]
check stragglers_slow_impact_at_least_20 [ "$(json "$run/summary.json" 'j["scenarios"][1]["stragglers"][0]["impact_pct"] >= 20 and len(j["scenarios"][1]["stragglers"]) == 1')" = True ]
# (--slow-ms is 80 ms of wall clock spinning; on a loaded machine the slow rank is also
# descheduled more in its other work, so its excess can pass 80 ms, never fall far below)
cause=$(json "$run/summary.json" 'j["scenarios"][1]["stragglers"][0]["cause_ms_per_step"]')
check "stragglers_slow_cause_about_80ms ($cause ms)" python3 -c 'import sys; sys.exit(0 if 60 <= float(sys.argv[1]) <= 140 else 1)' "$cause"
# the waiting for a compute straggler, with the straggler's own excess compute, is a candidate
# of its own, not compute's (faster kernels on every rank would not remove it): the scenario is
# straggler-bound, its share the waiting (peer_wait) and that excess, 80 ms of about 4 x 85
check stragglers_slow_verdict [ "$(json "$run/summary.json" '(lambda s: (s["verdict"], s["verdict_share"]["kind"], 5 <= s["verdict_share"]["pct"] - s["shares_pct"]["peer_wait"] <= 40))(j["scenarios"][1])')" = "('straggler-bound', 'peer_wait', True)" ]
# (its prediction is a replay, below; its ceiling, "at most", the straggler's impact)
check stragglers_slow_recommended [ "$(json "$run/summary.json" '(lambda s: [(r["kind"], abs(100 * (1 - r["ceiling_step_ms"][0] / r["step_ms"][0]) - s["stragglers"][0]["impact_pct"]) < 0.05, r["basis"], r["ceiling_from"]) for r in j["recommendations"] if r["scenarios"] == ["slow"] and r["kind"] == "straggler"])(j["scenarios"][1])')" = "[('straggler', True, 'replay', 'straggler impact')]" ]
# last in 20 of 20 steps, one of four ranks last per step: 4 x 0.25^20 = 3.6e-12 by chance
# (in at least 18 of 20: about 7e-9)
check stragglers_slow_chance_p [ "$(S slow '["stragglers"][0]["chance_p"] <= 1e-6')" = True ]
check stragglers_report_says_chance grep -q "; so many last arrivals by chance alone: p = [0-9.]*e-[0-9]*\." "$run/BOTTLENECK_ANALYSIS.md"
# ... and the Methodology says how that p is drawn
check stragglers_chance_defined grep -q "the p of \"by chance alone\" is the binomial tail of so many last arrivals, each step's chance the steps' mean share of last arrivers (at least 1 / ranks), times the ranks tested" "$run/BOTTLENECK_ANALYSIS.md"
check stragglers_report_names_it grep -q "\*\*Straggler: rank 3 on local2\*\*: it arrived last at [0-9.]* % of the collectives and keeps the others waiting [0-9.]* % of the median step (its straggler impact, per rank that waited; the table's Wait %, [0-9.]* %, is every rank's waiting over every rank's step time); cause: compute" "$run/BOTTLENECK_ANALYSIS.md"
# the summary line names the straggler, the waiting's share and its own extra compute's, then
# their sum (marked borderline when, under load, the runner-up comes close)
summary_share() { # the summary line's number against summary.json (rounding: 0.05)
	python3 - "$run" <<'PY'
import json, os, re, sys
run = sys.argv[1]
s = [x for x in json.load(open(run + "/summary.json"))["scenarios"] if x["name"] == "slow"][0]
md = open(run + "/BOTTLENECK_ANALYSIS.md").read()
head = r"^- \*\*slow\*\* \(2 nodes, 4 ranks, gloo\): "
# the shared-CPU note where the 4 ranks outnumber this machine's CPUs (the report counts them
# as sysconf does: os.cpu_count), else the median next
n = os.cpu_count()
tail = r" \(its 4 ranks shared this machine's %d CPU%s" % (n, "" if n == 1 else "s") if n < 4 else r"\. Median step"
m = re.search(head + r"\*\*straggler-bound\*\*(?: \(borderline\))?: the other ranks waiting for rank 3 on local2 ([0-9.]+) % of all ranks' time, and its own extra compute ([0-9.]+) % \(([0-9.]+) % in all\)" + tail, md, re.M)
w, t = s["shares_pct"]["peer_wait"], s["verdict_share"]["pct"]
# (the total is the sum of the two parts as printed: within 0.1 of the verdict's share)
ok = m and all(abs(float(g) - x) <= tol for g, x, tol in zip(m.groups(), (w, t - w, t), (0.052, 0.052, 0.101)))
want = t
if not ok:
    line = ([l for l in md.splitlines() if l.startswith("- **slow**")] or ["(no line)"])[0]
    print("   want about %.1f in: %s" % (want, line))
sys.exit(0 if ok else 1)
PY
}
check stragglers_summary_share summary_share
# the straggler's prediction set beside the even run, of the same shape, where the even run
# names no straggler (the scheduler can make one of its ranks last on these 2 CPUs: then none)
check stragglers_counterpart_said python3 -c 'import json, re, sys
j = json.load(open(sys.argv[1] + "/summary.json"))
even = [x for x in j["scenarios"] if x["name"] == "even"][0]
md = open(sys.argv[1] + "/BOTTLENECK_ANALYSIS.md").read()
said = re.search(r"^[0-9]\. \*\*slow\*\*: .*; beside it, `even`, of the same nodes and ranks with no straggler named \(set apart by its \x60extra\x60 parameter\), measured ([0-9.]+) ms \(p95 [0-9.]+ ms\): a counterpart to set it against, not a check of it", md, re.M)
want = not even["stragglers"]
sys.exit(0 if bool(said) == want and (not said or abs(float(said.group(1)) - even["step_time_ms"]["median"]) < 0.006) else 1)' "$run"
# the compute split (GEMM, elementwise) of slow leaves rank 3's busy loop out: how much of
# compute it times, recounted from the telemetry (active steps, every rank), and said
check stragglers_split_cover python3 -c 'import json, glob, sys
run = sys.argv[1]
s = [x for x in json.load(open(run + "/summary.json"))["scenarios"] if x["name"] == "slow"][0]
L = [json.loads(l) for f in glob.glob(run + "/slow/metrics/rank_*.jsonl") for l in open(f)]
L = [x for x in L if x.get("type") == "step" and x.get("phase") == "active"]
split = sum(x["gemm_ms"] + x["elementwise_ms"] for x in L)
comp = sum(x["forward_ms"] + x["backward_ms"] + x["optimizer_ms"] for x in L)
want = round(100 * split / comp, 1)
md = open(run + "/BOTTLENECK_ANALYSIS.md").read()
ok = abs(s["compute_split_pct"]["of_compute"] - 100 * split / comp) < 0.01 and want < 50
ok = ok and ("of the %.1f %% of compute timed as one or the other" % want) in md
sys.exit(0 if ok else 1)' "$run"
# each scenario's median step with its 95 % interval, and the throughputs it gives (global
# batch 128: 4 ranks x 32), as summary.json has them
check stragglers_median_interval python3 -c 'import json, re, sys
run = sys.argv[1]
md = open(run + "/BOTTLENECK_ANALYSIS.md").read()
ok = True
for s in json.load(open(run + "/summary.json"))["scenarios"]:
    t = s["step_time_ms"]
    if t["median_interval"] is None: # steps not alike (mean 25 % off the median): none, said so
        st = s["step_times_ms"]
        mean = sum(st) / len(st)
        m = re.search(r"### %s\n.*?the step time was [0-9.]+ ms median \(no interval: its steps are not alike, [^)]*; mean ([0-9.]+) ms\)" % s["name"], md, re.S)
        ok &= abs(mean - t["median"]) > 0.25 * t["median"] and bool(m) and abs(float(m.group(1)) - mean) < 0.006
        continue
    lo, hi = t["median_interval"]
    # (the report rounds the unrounded values, summary.json keeps 3 decimals: within 0.006
    # ms, and the rates within one unit of their last digit, plus what the rounding of the bound
    # to 0.0005 ms moves them: 2.4 samples/s at 5.189 ms)
    m = re.search(r"### %s\n.*?the step time was ([0-9.]+) ms median \(95 %% interval ([0-9.]+)-([0-9.]+) ms, ([0-9.]+)-([0-9.]+) samples/s\)" % s["name"], md, re.S)
    ok &= bool(m) and lo <= t["median"] <= hi and s["global_batch"] == 128
    ok &= bool(m) and all(abs(float(a) - b) < 0.006 for a, b in zip(m.groups()[:3], (t["median"], lo, hi)))
    ok &= bool(m) and all(abs(float(a) - 128000 / x) <= 1.01 + 128000 * 0.0006 / x ** 2 for a, x in zip(m.groups()[3:], (hi, lo)))
sys.exit(0 if ok else 1)' "$run"
# neighbours of the ranked recommendations whose gains lie within a point, or whose gains' 95 %
# intervals overlap, are said to tie (slow and slownode predict about the same), recounted
# from summary.json's gains and intervals
check stragglers_rec_ties python3 -c 'import json, re, sys
run = sys.argv[1]
# a recommendation ranks by its largest gain among its scenarios whose prediction ranks: a
# ceiling, or a replay with an interval (advice.c); that scenario leads, and its gain has an
# interval where it is a replay: of its median, or of its mean where it leads with the means
def lead(r):
    c = [(x, k) for k, (x, b, iv) in enumerate(zip(r["predicted_gain_pct"], r["prediction_basis"], r["predicted_interval_ms"]))
         if x is not None and (b == "ceiling" or iv is not None)]
    if not c:
        return 0, None
    x, k = max(c)
    if r["prediction_basis"][k] != "replay":
        return x, None
    if r["gain_by_means"][k]:  # led by the means: the interval of the predicted mean
        m, iv = r["predicted_mean_ms"][k], r["predicted_mean_interval_ms"][k]
        if iv is None or m is None or x >= 100:
            return x, None
        mm = m / (1 - x / 100)  # the measured mean the gain is of
        return x, (100 * (1 - iv[1] / mm), 100 * (1 - iv[0] / mm))
    iv = r["predicted_interval_ms"][k]
    if iv is None:
        return x, None
    return x, (100 * (1 - iv[1] / r["step_ms"][k]), 100 * (1 - iv[0] / r["step_ms"][k]))
L = [lead(r) for r in json.load(open(run + "/summary.json"))["recommendations"]]
g = [x for x, _ in L]
def tie(i, lim, slack):
    (a, u), (b, v) = L[i], L[i + 1]
    return a > 0 and b > 0 and (a - b < lim or (u is not None and v is not None and u[0] <= v[1] + slack and v[0] <= u[1] + slack))
pairs = lambda lim, slack: {(i + 1, i + 2) for i in range(len(L) - 1) if tie(i, lim, slack)}
m = re.search(r"^Predicted gains within a point of each other, or whose 95 % intervals overlap, recommendations (.*): their order says nothing\.$", open(run + "/BOTTLENECK_ANALYSIS.md").read(), re.M)
said = re.findall(r"([0-9]+) and ([0-9]+) \(([0-9.]+) % and ([0-9.]+) %(?:; intervals [-0-9.]+ to [-0-9.]+ % and [-0-9.]+ to [-0-9.]+ %)?\)", m.group(1)) if m else []
named = {(int(a), int(b)) for a, b, _, _ in said}
# (summary.json keeps 3 decimals of the unrounded gains and intervals the report compares: a
# pair within 0.002 of the one point, or of touching, may go either way; the gains printed
# within 0.051)
ok = pairs(0.998, -0.05) <= named <= pairs(1.002, 0.05) and all(abs(float(x) - g[int(a) - 1]) < 0.051 and abs(float(y) - g[int(b) - 1]) < 0.051 for a, b, x, y in said)
if not ok:
    print("   gains and intervals %s, said %s" % (L, said))
sys.exit(0 if ok else 1)' "$run"
# the all-reduce's bandwidth under the local executor is this machine's loopback, said so
check stragglers_loopback_said grep -q "Communication: .* GB/s all-reduced (bytes over the collectives' whole time, waiting included; over this machine's loopback: the local executor's nodes are this machine, no fabric)\.$" "$run/BOTTLENECK_ANALYSIS.md"
# two ranks of one node last in the same steps: said once, with one impact; whether both
# slow ranks were last in exactly the same steps depends on the run's timing, so the report
# is checked against what summary.json says: grouped (said once) or each on its own line
# (scenario slow names rank 3 on local2 too)
node_said() {
	local g
	g=$(S slownode '["stragglers"]' | python3 -c 'import ast,sys; print(sorted((g["rank"], g["together_with"]) for g in ast.literal_eval(sys.stdin.read())))')
	case $g in
	"[(2, [3]), (3, [2])]") grep -q "\*\*Stragglers: ranks 2 and 3 on local2\*\*: they arrived last together (in the very same steps) at [0-9]* % of the collectives and together keep the others waiting [0-9.]* % of the median step (their straggler impact" "$run/BOTTLENECK_ANALYSIS.md" &&
		! grep -q "\*\*Straggler: rank 2 on local2\*\*" "$run/BOTTLENECK_ANALYSIS.md" ;;
	"[(2, []), (3, [])]") grep -q "\*\*Straggler: rank 2 on local2\*\*" "$run/BOTTLENECK_ANALYSIS.md" &&
		[ "$(grep -c "\*\*Straggler: rank 3 on local2\*\*" "$run/BOTTLENECK_ANALYSIS.md")" -ge 2 ] &&
		! grep -q "\*\*Stragglers: ranks 2 and 3" "$run/BOTTLENECK_ANALYSIS.md" ;;
	*) false ;;
	esac || { echo "   together_with: $g"; grep -o "\*\*Straggler[^*]*\*\*" "$run/BOTTLENECK_ANALYSIS.md" | sed 's/^/   /'; return 1; }
}
check stragglers_slow_node_grouping_said node_said
check stragglers_even_says_none grep -q "No rank keeps the others waiting" "$run/BOTTLENECK_ANALYSIS.md"
check stragglers_test_recounted python3 "$ROOT/tests/tools/straggler_test.py" "$run"
# both ranks of local2 slow: the node is named, with its monitors beside the other node's
check stragglers_slow_node [ "$(S slownode '["slow_node"]'),$(S slownode '["stragglers"]' | python3 -c 'import ast,sys; print(sorted((g["rank"], g["node"], g["cause"]) for g in ast.literal_eval(sys.stdin.read())))')" = "local2,[(2, 'local2', 'compute'), (3, 'local2', 'compute')]" ]
# each of its pair's p is the smaller of the node's (the two last together) and the rank's own:
# said as the node's where it is (the rank's own beside it), else as the rank's; which one it
# is depends on how often the pair was last together in this run
chance_of=$(S slownode '["stragglers"]' | python3 -c 'import ast,sys
g = ast.literal_eval(sys.stdin.read())
ok = all((x["chance_of"] == "node" and x["chance_p"] < x["rank_chance_p"]) or (x["chance_of"] == "rank" and x["chance_p"] == x["rank_chance_p"]) for x in g)
print(",".join(sorted(set(x["chance_of"] for x in g))) if ok and g else "inconsistent")')
check "stragglers_slow_node_chance_of ($chance_of)" bash -c 'case $1 in node|rank|node,rank) exit 0 ;; esac; exit 1' _ "$chance_of"
sed -n '/^### slownode$/,/^### /p' "$run/BOTTLENECK_ANALYSIS.md" >slownode.md
node_p="for the ranks of (its|their) node arriving last together \\(rank [23] alone: [0-9.]+e[-+][0-9]+|\\(rank [23].s node, its ranks last together; rank [23] alone: [0-9.]+e[-+][0-9]+\\)"
case $chance_of in
*node*) check stragglers_slow_node_chance_said grep -Eq "; so many last arrivals by chance alone: p = .*($node_p)" slownode.md ;;
*) check stragglers_slow_node_chance_said bash -c 'grep -q "; so many last arrivals by chance alone: p = " "$1" && ! grep -Eq "$2" "$1"' _ slownode.md "$node_p" ;;
esac
check stragglers_slow_node_monitors [ "$(S slownode '["slow_node_monitors"]["node"]["nodes"]'),$(S slownode '["slow_node_monitors"]["other_nodes"]["nodes"]')" = "1,1" ]
# The straggler recommendation predicted by replay (issue 47): the slow ranks' step-thread work
# brought down to the others' median in each step, on the run's own graph. Its prediction is
# below the measured step, a replay (not the ceiling) in summary.json and the report; printed
# beside the even scenario's measured median, the same job without a slow rank (what the
# change would make, measured).
for sc in slow slownode; do
	echo "   straggler replay $sc: $(S $sc '["replay"]["straggler"]'); measured $(S $sc '["step_time_ms"]["median"]') ms; even measured $(S even '["step_time_ms"]["median"]') ms"
	check "stragglers_${sc}_replayed" python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s = [x for x in j["scenarios"] if x["name"] == sys.argv[2]][0]
p = s["replay"]["straggler"]
r = [r for r in j["recommendations"] if r["kind"] == "straggler" and sys.argv[2] in r["scenarios"]][0]
i = r["scenarios"].index(sys.argv[2])
lo, hi = p["interval_ms"]
sys.exit(0 if lo <= p["step_ms"] <= hi < s["step_time_ms"]["median"] and r["prediction_basis"][i] == "replay" and r["predicted_step_ms"][i] == p["step_ms"] else 1)' "$run/summary.json" "$sc"
done
check stragglers_even_no_straggler_replay [ "$(S even '["replay"]["straggler"]')" = "{'step_ms': None, 'why': 'the analysis named no straggler'}" ]
check stragglers_replay_said grep -q "\(Median s\|S\)tep replayed with each straggler's step-thread work in each step brought down to the other ranks' median (the run's own graph, on its cores): \(mean .*, median \)\?[0-9.]* -> [0-9.]* ms" "$run/BOTTLENECK_ANALYSIS.md"
# (the local executor's nodes are this one machine: not a slower node, its ranks' work)
check stragglers_slow_node_report grep -q "Every rank of node \*\*local2\*\* is a straggler; its node is emulated (the local executor's nodes are all this machine), so it is not a slower node but its ranks' share of this machine's cores and what they run\. [^I]" "$run/BOTTLENECK_ANALYSIS.md"
# ... and its monitors, this machine's as the other node's are, are not set against theirs
check stragglers_emulated_node_monitors_not_compared [ "$(grep -c "Its monitors against the" "$run/BOTTLENECK_ANALYSIS.md")" = 0 ]
check stragglers_no_slowest_rank_sentence bash -c '! grep -q "The slowest rank was" "$1"' _ "$run/BOTTLENECK_ANALYSIS.md"
# 4 ranks on this machine's CPUs (2 here, under CI): a straggler on shared CPUs is said to be
# possibly the scheduler's, in its section and its recommendation (the slow node has its own)
if [ "$(nproc)" -lt 4 ]; then
	cpus="$(nproc) CPU$([ "$(nproc)" = 1 ] || echo s)"
	check stragglers_shared_cpus_said grep -q "\*\*Straggler: rank 3 on local2\*\*.* Its 4 ranks shared this machine's $cpus (the local executor runs every rank here): a rank can arrive last because the scheduler gave it less of them" "$run/BOTTLENECK_ANALYSIS.md"
	check stragglers_shared_cpus_advice grep -q "before tuning the collectives; where ranks shared this machine's $cpus (slow), a rank can arrive last by the scheduler's doing: confirm it with a core per rank first" "$run/BOTTLENECK_ANALYSIS.md"
	check stragglers_shared_cpus_summary grep -q "^- \*\*slow\*\* (2 nodes, 4 ranks, gloo): .*(its 4 ranks shared this machine's $cpus: a straggler there may be the scheduler's doing, not its own)\. " "$run/BOTTLENECK_ANALYSIS.md"
fi
# the summary's "X % ... and Y % ... (Z % in all)": Z is the sum of the printed X and Y
check stragglers_summary_sums_printed python3 -c '
import re, sys
rows = re.findall(r"([0-9.]+) % of (?:step|all ranks\x27) time, and ([0-9.]+) % [^(]*\(([0-9.]+) % in all\)", open(sys.argv[1]).read())
print(rows)
sys.exit(0 if rows and all(abs(float(a) + float(b) - float(c)) < 1e-6 for a, b, c in rows) else 1)' "$run/BOTTLENECK_ANALYSIS.md"
# node monitors with few samples a node are said to be rough (a glimpse, not an average)
check stragglers_few_monitor_samples_rough python3 -c '
import re, sys
rows = re.findall(r"Node monitors \(([0-9]+) nodes?, ([0-9]+) samples?\): [^\n]*", open(sys.argv[1]).read())
ok = rows and all(("**rough**" in line) == (int(s) / int(n) < 10) for n, s, line in
                  [(m.group(1), m.group(2), m.group(0)) for m in re.finditer(r"Node monitors \(([0-9]+) nodes?, ([0-9]+) samples?\): [^\n]*", open(sys.argv[1]).read())])
print([r[:2] for r in rows])
sys.exit(0 if ok else 1)' "$run/BOTTLENECK_ANALYSIS.md"
# Every scenario has its collectives (issue 23, part 1, from the trainer's
# telemetry): bytes all-reduced per step exactly (params + loss, float32),
# bus bandwidth = algorithm bandwidth x 2(n-1)/n, and the straggler's 80 ms
# shows as the others' wait, not as transfer latency.
params=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["params"])' "$run/slow/metrics/rank_0.jsonl")
check collectives_bytes_exact [ "$(S slow '["collectives"][0]["bytes"]')" = "$(((params + 1) * 4)).0" ]
check collectives_op [ "$(S even '["collectives"][0]["op"]'),$(S even '["collectives"][0]["steps"]')" = "all_reduce,20" ]
# the trainer's telemetry has one all-reduce record a step (its calls together): marked so in
# summary.json, the table and the figure, which a per-call size would misread
check collectives_step_total [ "$(S even '["collectives"][0]["step_total"]')" = True ]
check collectives_step_total_said bash -c 'grep -q "^| all_reduce (a step.s, together) | " "$1" && grep -q " A row marked (a step.s, together) is from telemetry without collective records" "$1"' _ "$run/BOTTLENECK_ANALYSIS.md"
check collectives_step_total_figure grep -q "title 'even (per-step totals)'" "$run/figures/collectives.gp"
check collectives_busbw_factor [ "$(json "$run/summary.json" 'abs(j["scenarios"][1]["collectives"][0]["busbw_gbps"] - 1.5 * j["scenarios"][1]["collectives"][0]["algbw_gbps"]) <= 0.002')" = True ]
# (the wait against the straggler's own measured excess, not a fixed 30 ms: on a loaded machine
# both the spin's effect and the transfer stretch; the excess counted as latency would make the
# latency more than the excess itself, where the transfer alone stays under it: beside the
# suite's other lanes the transfer of 4 ranks on 2 cores took 22 to 46 ms, the excess 48-64,
# and once the transfer outgrew the wait, 42.6 against 40.8 ms, in a fresh clone of 2026-11-27)
wl=$(json "$run/summary.json" '(lambda s: "%.2f %.2f %.2f" % (s["collectives"][0]["wait_ms"]["median"], s["collectives"][0]["latency_ms"]["median"], s["stragglers"][0]["cause_ms_per_step"]))(j["scenarios"][1])')
check "collectives_straggler_is_wait (wait, latency, excess ms: $wl)" python3 -c 'import sys; w, l, c = map(float, sys.argv[1].split()); sys.exit(0 if w >= 0.6 * c and l < c else 1)' "$wl"
check collectives_table grep -q "^| all_reduce (a step.s, together) | [^|]* (median $(((params + 1) * 4)) B) | 1.00 | " "$run/BOTTLENECK_ANALYSIS.md"
# timeline.json shows each rank's waiting for peers (issue 23, part 4): the
# others wait for rank 3 about 80 ms per step, rank 3 hardly at all.
waits() { json "$run/timeline.json" "round(sum(e['dur'] for e in j['traceEvents'] if e.get('cat') == 'wait' and e['tid'] == $1 and e['pid'] == [p['pid'] for p in j['traceEvents'] if p.get('name') == 'process_name' and p['args']['name'] == 'slow'][0]) / 1000)"; }
w0=$(waits 0); w3=$(waits 3)
check stragglers_timeline_waits [ "$w0" -ge 400 ] && [ "$w3" -le $((w0 / 10)) ]
# campaign compare names the straggler on each side: the same campaign with
# the knob moved to the other scenario (without slownode, which the comparison passes over)
sed -e 's/name: even, nodes: 2, tasks_per_node: 2 }/name: even, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 3 --slow-ms 80" } }/' \
    -e 's/name: slow, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 3 --slow-ms 80" } }/name: slow, nodes: 2, tasks_per_node: 2 }/' \
    -e '/name: slownode,/d' s.yaml >s2.yaml
check compare_campaign_made [ "$(grep -c -e 'name: even, .*--slow-rank 3' -e 'name: slow, nodes: 2, tasks_per_node: 2 }' -e slownode s2.yaml)" = 2 ]
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" s2.yaml >out2.txt 2>&1
run2=$(rundir out2.txt)
"$CAMPAIGN" compare --results "$SCRATCH/res" "$(basename "$run")" "$(basename "$run2")" >cmp.txt 2>&1
# (the side without the knob names rank 3 nowhere; under a loaded machine it may name a rank
# the load slowed, with cause unknown)
check compare_names_stragglers grep -Eq "^  stragglers: rank 3 on local2 \(compute, [0-9.]+ %\) -> (none|rank [0-2] on local[12] \\([a-z/ ]+, [0-9.]+ %\\))$" cmp.txt
check compare_names_new_straggler grep -Eq "^  stragglers: (none|rank [0-2] on local[12] \\([a-z/ ]+, [0-9.]+ %\\)) -> rank 3 on local2 \(compute, [0-9.]+ %\)$" cmp.txt
check compare_top_collective_wait grep -q "^  top collective wait (ms) " cmp.txt
"$CAMPAIGN" compare --json --results "$SCRATCH/res" "$(basename "$run")" "$(basename "$run2")" >cmp.json 2>&1
check compare_json_stragglers [ "$(json cmp.json '("rank 3" in j["scenarios"]["slow"]["stragglers_candidate"], j["scenarios"]["even"]["stragglers_candidate"].startswith("rank 3 on local2 (compute, "))')" = "(False, True)" ]

# The user's own PyTorch DDP script (campaigns/ddp_train.py, Debian's torch,
# analysed from its traces) with the same knob: rank 3 named, on local2
# (the launcher's record of where each rank ran), cause compute. 100 ms, not
# 40: four torch ranks on 2 shared CPUs compute for tens of ms a step, and the
# impact must stay over 20 % of it.
need_torch stragglers_pytorch
cp "$ROOT/campaigns/ddp_train.py" "$SCRATCH/train.py"
cat >t.yaml <<'Y'
campaign: tstrag
workload:
  command: "/usr/bin/python3 {{campaign_dir}}/train.py --steps {{steps}} --warmup {{warmup_steps}} --out profiler {{extra}}"
  env: { GLOO_SOCKET_IFNAME: lo, OMP_NUM_THREADS: "1" }
  params: { extra: "" }
profile: { warmup_steps: 3, active_steps: 12, traces: ["profiler/*.pt.trace.json"] }
analysis: { batch_per_rank: 32 }
scenarios:
  - { name: even, nodes: 2, tasks_per_node: 2 }
  - { name: slow, nodes: 2, tasks_per_node: 2, params: { extra: "--slow-rank 3 --slow-ms 100" } }
Y
torch_submit t.txt --backend local --results "$SCRATCH/tres" t.yaml; rc=$?
run=$(rundir t.txt)
check stragglers_pytorch_ok [ "$rc" -eq 0 ]
check stragglers_pytorch_named [ "$(json "$run/summary.json" '[(g["rank"], g["node"], g["cause"]) for g in j["scenarios"][1]["stragglers"]]')" = "[(3, 'local2', 'compute')]" ]
check stragglers_pytorch_impact [ "$(json "$run/summary.json" 'j["scenarios"][1]["stragglers"][0]["impact_pct"] >= 20 and j["scenarios"][1]["verdict"] == "straggler-bound" and "straggler" in [r["kind"] for r in j["recommendations"] if r["scenarios"] == ["slow"]]')" = True ]
# the even run plants no straggler: its 4 ranks on these 2 CPUs may still find the
# scheduler keeping one last (rank 2, 9 ms of compute a step more, 11 steps of 12, once in a
# quiet fresh clone), but none that waits anything like the planted 100 ms
check stragglers_pytorch_even_none [ "$(json "$run/summary.json" 'all(g["cause_ms_per_step"] < 25 for g in j["scenarios"][0]["stragglers"])')" = True ]
# One all-reduce per step, matched across the ranks: as many instances as steps in
# which every rank's trace holds its gloo:all_reduce. Debian's torch now and then
# leaves out the last step's range of one rank's gloo worker thread (the step's
# c10d::allreduce_ is there; likely ended after the profiler stopped): 11 of 12 then.
want=$(python3 "$ROOT/tests/tools/trace_collective_steps.py" "$run"/slow/traces/*.json)
check stragglers_pytorch_collectives [ "$(json "$run/summary.json" '[(c["op"], c["instances"]) for c in j["scenarios"][1]["collectives"]]'),$want" = "[('all_reduce', $want)],$want" ]
check stragglers_pytorch_collectives_most_steps [ "$want" -ge 11 ]
