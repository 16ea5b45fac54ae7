# campaign try with the knobs the shipped campaigns carry (issue 35): campaigns/bottlenecks.yaml
# at 1 node, its slow-loader and checkpoint-every-step scenarios; `try --wait` runs its
# data_loading knob (4 loader threads) and its io knob (a checkpoint every 4th step) as two
# variant runs, each checked against its prediction by the documented rule
# (tests/lib.sh try_family), and prints the numbers. The variants keep the parent's
# campaign folder ({{campaign_dir}}), not the temporary file try loads them from. `try | head -1`
# and a SIGHUP to `try --wait` stop its printing, not its work: every variant runs, and a kind
# named twice is one variant (issue 46).
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
mkdir camp
python3 "$ROOT/tests/tools/bottlenecks_subset.py" "$ROOT/campaigns/bottlenecks.yaml" camp/b.yaml
check try_kinds_shipped_knobs python3 -c "import sys, yaml; k = yaml.safe_load(open(sys.argv[1]))['knobs']; assert sorted(k) == ['communication', 'data_loading', 'io'], k" camp/b.yaml
export TRY_PASSED=1
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" camp/b.yaml >p.out 2>&1
parent=$(rundir p.out) pid=$(basename "$parent")
check try_kinds_parent_ran [ -s "$parent/summary.json" ]
# a variable the campaign passes through from the environment: checked first, as submit does
env -u TRY_PASSED "$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" >u.out 2>&1; rc=$?
check try_kinds_from_env_unset_exit2 [ "$rc" -eq 2 ]
check try_kinds_from_env_unset_said [ "$(tail -n 1 u.out)" = "campaign try: TRY_PASSED is not set in this environment, and $parent/campaign.yaml passes it through to the jobs (from_env: true): export it and run the command again; nothing was submitted" ]
check try_kinds_from_env_unset_nothing [ "$(ls "$SCRATCH/res/bottlenecks" | wc -l)" = 1 ]
"$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" >t.out 2>&1; rc=$?
check try_kinds_exit0 [ "$rc" -eq 0 ]
check try_kinds_communication_not_tried grep -qx "communication: a knob, but run $pid recommends nothing of this kind; not tried" t.out
for kind in data_loading io; do
	recommends try_kinds "$parent" "$kind" || continue
	child=$(awk -v k="variant for $kind:" 'index($0, k) == 1 { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)
	check "try_kinds_${kind}_child" [ -s "$child/summary.json" ]
	[ "$kind" = io ] && sc=io-1n || sc=dataloader-1n
	try_family "try_kinds_$kind" "$SCRATCH/res" "$parent" "$child" "$sc" "$kind"
	check "try_kinds_${kind}_campaign_dir" grep -qx "export CAMPAIGN_DIR='$SCRATCH/camp'" "$child/io-1n/job.sbatch"
	# a scenario whose steps are not alike (mean over 25 % from the median, recounted from
	# summary.json's step times) says its mean beside the median, and only such a one
	check "try_kinds_${kind}_unalike_said" python3 -c 'import json, re, statistics, sys
j = json.load(open(sys.argv[1] + "/summary.json"))
md = open(sys.argv[1] + "/BOTTLENECK_ANALYSIS.md").read()
for s in j["scenarios"]:
    t = s["step_times_ms"]
    if not t:
        continue
    line = [l for l in md.splitlines() if l.startswith("- **%s** (" % s["name"])][0]
    m = re.search(r"\(its steps are not alike: .* by the mean, ([0-9.]+) ms,", line)
    far = abs(statistics.mean(t) / statistics.median(t) - 1) > 0.25
    assert bool(m) == far, (s["name"], far, line)
    assert not m or abs(float(m.group(1)) - statistics.mean(t)) <= 0.006, (m.group(1), statistics.mean(t))' "$child"
done
check try_kinds_data_knob_ran grep -q -- "'--workers' '4' '--prefetch' '8'" "$(awk '/^variant for data_loading:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)/dataloader-1n/job.sbatch"
# the data_loading knob's loader, as the parent's analysis read it from the scenario's command
# (4 threads, a prefetch depth of 8: the words the variant's job ran), replayed on the parent's
# graph: a replay, not a ceiling, said with the loader it replays
check try_kinds_loader_input [ "$(json "$parent/analysis_input.json" '[(s["name"], s["loader_workers"], s["loader_prefetch"]) for s in j["scenarios"]]')" = "[('dataloader-1n', 4, 8), ('io-1n', 4, 8)]" ]
if recommends try_kinds_loader "$parent" data_loading; then
	D() { json "$parent/summary.json" "[s for s in j['scenarios'] if s['name'] == 'dataloader-1n'][0]['replay']['data_loading']$1"; }
	check try_kinds_loader_replayed [ "$(D '["loader_workers"]'),$(D '["loader_prefetch"]'),$(D '["loaders_measured"]'),$(D '["step_ms"] > 0')" = "4,8,1,True" ]
	check try_kinds_loader_basis [ "$(json "$parent/summary.json" '[r["prediction_basis"][r["scenarios"].index("dataloader-1n")] for r in j["recommendations"] if r["kind"] == "data_loading"]')" = "['replay']" ]
	check try_kinds_loader_said grep -q "\(Median s\|S\)tep replayed with the loader the data_loading knob makes .*: \(mean .*, median \)\?[0-9.]* -> [0-9.]* ms .*, 4 loader threads a rank (1 measured) with a prefetch depth of 8.*; replay error [-+][0-9.]* % (the unchanged graph against the measured median)" "$parent/BOTTLENECK_ANALYSIS.md"
fi
check try_kinds_io_knob_ran grep -q -- "'--checkpoint-every' '4'" "$(awk '/^variant for io:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)/io-1n/job.sbatch"
# ... and one every 4th step (24 MB more with fsync) makes io-1n's steps not alike
check try_kinds_io_unalike_io1n grep -q "^- \*\*io-1n\*\* (.*(its steps are not alike: " "$(awk '/^variant for io:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' t.out)/BOTTLENECK_ANALYSIS.md"

# --- the reader of try's output goes away (issue 46): `try ... | head -1` makes and runs every
# variant, and a kind named twice is one variant, said once on stderr ------------------------
# new_runs FILE: the runs under res/bottlenecks that FILE (an earlier listing) does not name
new_runs() { ls "$SCRATCH/res/bottlenecks" | grep -vxF -f "$1"; }
# ended RUN_ID...: each run's jobs as job.status (the job script's own record) and state.db
# say: "<kind> <scenario> <exit_code> <state>" a line
ended() {
	local r sc
	for r in "$@"; do
		for sc in dataloader-1n io-1n; do
			echo "$(json "$SCRATCH/res/bottlenecks/$r/variant.json" 'j["kind"]') $sc" \
				"$(json "$SCRATCH/res/bottlenecks/$r/$sc/job.status" 'j["exit_code"]')" \
				"$(rows "$SCRATCH/res/bottlenecks/$r" "select state from jobs where scenario = '$sc'")"
		done
	done | sort
}
want_ended="data_loading dataloader-1n 0 COMPLETED
data_loading io-1n 0 COMPLETED
io dataloader-1n 0 COMPLETED
io io-1n 0 COMPLETED"
if recommends try_kinds_pipe "$parent" data_loading && recommends try_kinds_pipe "$parent" io; then
	ls "$SCRATCH/res/bottlenecks" >before.txt
	"$CAMPAIGN" try --results "$SCRATCH/res" "$pid" data_loading io data_loading 2>pipe.err | head -1 >pipe.out
	rc=${PIPESTATUS[0]}
	check try_kinds_pipe_exit0 [ "$rc" -eq 0 ]
	check try_kinds_pipe_read_one_line [ "$(cat pipe.out)" = "the local executor runs the 2 variants one after another (each measured alone): waiting for each" ]
	check try_kinds_duplicate_said_once [ "$(cat pipe.err)" = "campaign try: data_loading is named more than once: one variant for it" ]
	check try_kinds_pipe_every_variant_ran [ "$(ended $(new_runs before.txt))" = "$want_ended" ]
	check try_kinds_pipe_analysed bash -c 'for r in $(ls "$1" | grep -vxF -f "$2"); do [ -s "$1/$r/summary.json" ] || exit 1; done' _ "$SCRATCH/res/bottlenecks" before.txt

	# --- its terminal goes away (SIGHUP) while the first variant runs: both variants run to
	# their end, each one's output from then on in its supervisor.log --------------------------
	ls "$SCRATCH/res/bottlenecks" >before2.txt
	"$CAMPAIGN" try --wait --results "$SCRATCH/res" "$pid" data_loading io >hup.out 2>&1 &
	tpid=$!
	for i in $(seq 300); do
		first=$(new_runs before2.txt | head -1)
		[ -n "$first" ] && ls "$SCRATCH/res/bottlenecks/$first"/*/slurm-*.out >/dev/null 2>&1 && break
		sleep 0.1
	done
	kill -HUP $tpid
	wait $tpid; rc=$?
	check try_kinds_sighup_exit0 [ "$rc" -eq 0 ]
	check try_kinds_sighup_every_variant_ran [ "$(ended $(new_runs before2.txt))" = "$want_ended" ]
	second=$(new_runs before2.txt | grep -vx "$first")
	check try_kinds_sighup_said_first grep -qx "campaign: the terminal went away (SIGHUP); the run goes on, its output here" "$SCRATCH/res/bottlenecks/$first/supervisor.log"
	check try_kinds_sighup_said_second grep -qx "campaign: the terminal went away (SIGHUP) earlier; the run goes on, its output here" "$SCRATCH/res/bottlenecks/$second/supervisor.log"
	check try_kinds_sighup_second_said_there grep -qx "run $second" "$SCRATCH/res/bottlenecks/$second/supervisor.log"
	check try_kinds_sighup_terminal_quiet bash -c '! grep -q "^run $2\$" "$1"' _ hup.out "$second"
fi

# --- each checkpoint written asynchronously (the trainer's --checkpoint-async 1, issue 47): the
# io knob's change replayed as such on the parent's graph, no lower than the storage was busy
# with each checkpoint (recounted here from the traces), said so, and run by try -------------
python3 - camp/b.yaml camp/async.yaml <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
c["scenarios"] = [s for s in c["scenarios"] if s["name"].startswith("io")]
c["knobs"] = {"io": {"params": {"checkpoint_async": "1"}}}
yaml.safe_dump(c, open(sys.argv[2], "w"), sort_keys=False)
PY
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/resa" camp/async.yaml >a.out 2>&1
ap=$(rundir a.out)
check try_async_input [ "$(json "$ap/analysis_input.json" '[(s["name"], s["checkpoint_every"], s["checkpoint_async"]) for s in j["scenarios"]]')" = "[('io-1n', 1, True)]" ]
check try_async_replayed python3 -c 'import glob, json, statistics, sys
io = json.load(open(sys.argv[1] + "/summary.json"))["scenarios"][0]["replay"]["io"]
assert io["async"] is True and io["checkpoint_every"] == 1, io
uses = {}  # per step, each rank using the storage: from its write to the end of its fsync,
# on rank 0 clock: less the rank offset (median of its all-reduce ends less rank 0 ones)
ev = {int(f.split("rank_")[1].split(".")[0]): json.load(open(f))["traceEvents"]
      for f in glob.glob(sys.argv[1] + "/io-1n/metrics/rank_*.trace.json")}
ends = {r: [e["ts"] + e["dur"] for e in t if e["name"] == "gloo:all_reduce"] for r, t in ev.items()}
for r, t in ev.items():
    off = statistics.median(a - b for a, b in zip(ends[r], ends[0]))
    w = {}
    for e in t:
        k = e.get("args", {}).get("step")
        if e["name"] == "checkpoint:write":
            w[k] = e["ts"]
        if e["name"] == "checkpoint:fsync":
            uses.setdefault(k, []).append((w[k] - off, e["ts"] + e["dur"] - off))
busy = []
for k, iv in uses.items():
    iv.sort()
    total, (s, t) = 0, iv[0]
    for a, b in iv[1:]:
        if a > t:
            total, s = total + t - s, a
        t = max(t, b)
    busy.append((total + t - s) / 1000)
floor = statistics.median(busy)
assert abs(io["storage_busy_ms"] - floor) <= 0.01 * floor, (io["storage_busy_ms"], floor)
assert io["step_ms"] >= io["storage_busy_ms"] - 0.001 and io["interval_ms"][1] >= io["step_ms"], io
assert io["interval_ms"][0] <= io["step_ms"], io' "$ap"
check try_async_said grep -q "\(Median s\|S\)tep replayed with each checkpoint written asynchronously (its snapshot on the step thread, its write and fsync on a thread of their own, one write in flight: the next snapshot waits for it) instead (the run's own graph, on its cores): \(mean .*, median \)\?[0-9.]* -> [0-9.]* ms ([-+][0-9.]* %; no lower than the [0-9.]* ms its storage was busy with each checkpoint" "$ap/BOTTLENECK_ANALYSIS.md"
"$CAMPAIGN" try --wait --results "$SCRATCH/resa" "$(basename "$ap")" io >at.out 2>&1
ac=$(awk '/^variant for io:/ { f = 1 } f && /^run [0-9]/ { getline; print; exit }' at.out)
check try_async_knob_ran grep -q -- "'--checkpoint-async' '1'" "$ac/io-1n/job.sbatch"
# the variant's trainer wrote behind: the step thread waits and snapshots, a thread of its own
# named for it writes and syncs
check try_async_written_behind python3 -c 'import json, sys
ev = json.load(open(sys.argv[1] + "/io-1n/metrics/rank_0.trace.json"))["traceEvents"]
tid = {e["name"]: e["tid"] for e in ev if e["ph"] == "X"}
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M"}
assert names[tid["checkpoint:wait"]] == "step" and names[tid["checkpoint:snapshot"]] == "step", names
assert names[tid["checkpoint:write"]] == "checkpoint writer" == names[tid["checkpoint:fsync"]], names' "$ac"
# (a check decided by the means gives the means' numbers, its medians beside them)
check try_async_checked [ "$(json "$ac/summary.json" '[(k["scenario"], (k["medians"] or k)["predicted_step_ms"]) for k in j["checked_predictions"]]')" = "[('io-1n', $(json "$ap/summary.json" 'j["scenarios"][0]["replay"]["io"]["step_ms"]'))]" ]
check try_async_not_again [ "$(json "$ac/summary.json" 'j["scenarios"][0]["replay"]["io"]["why"]')" = "rank 0 writes its checkpoints asynchronously already" ]
echo "async checkpoints: $(json "$ac/summary.json" '"parent {parent_step_ms} ms, predicted {predicted_step_ms} ms, measured {measured_step_ms} ms: {outcome}".format(**j["checked_predictions"][0])')"
