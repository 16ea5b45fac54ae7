# NCCL Inspector dumps as an input (issue 38, point 2). profile.nccl_inspector puts the
# plugin's variables in the job script, quoted; on this machine the plugin is absent, so the
# job log says so once per node and the ranks run on. The workload of scenario `dumps` copies
# tests/fixtures/nccl_inspector (4 ranks on 2 nodes: see tests/unit/test_inspector.c for the
# numbers worked out by hand) into $NCCL_INSPECTOR_DUMP_DIR and prints 10 step lines of 20 ms
# (2 warm-up): the report's collectives table and straggler come from the dumps. Scenario
# `nodumps` leaves none: the analysis names the missing profiler and the run still completes.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
FIX=$ROOT/tests/fixtures/nccl_inspector
C=$SCRATCH/canary
cat >insp.yaml <<Y
campaign: insp
workload:
  command: ["/bin/sh", "-c", "if [ \"\$RANK\" = 0 ] && [ '{{copy}}' = yes ]; then cp '{{fixtures}}'/*.log \"\$NCCL_INSPECTOR_DUMP_DIR\"/; fi; i=0; while [ \$i -lt 10 ]; do echo \"step \$i time 20.0 ms\"; i=\$((i+1)); done"]
  params: { fixtures: "$FIX", copy: "yes" }
profile:
  warmup_steps: 2
  active_steps: 8
  nccl_inspector: { plugin: "/nonexistent/lib'; touch $C; '.so", interval_us: 1000, verbose: true }
analysis:
  step_log: { pattern: 'step (?<step>\d+) time (?<step_ms>[0-9.]+) ms' }
scenarios:
  - { name: dumps, nodes: 2, tasks_per_node: 2 }
  - { name: nodumps, nodes: 2, tasks_per_node: 2, params: { copy: "no" } }
Y
# The rendered script carries the plugin's environment, each value quoted.
"$CAMPAIGN" render insp.yaml --out "$SCRATCH/r" >/dev/null 2>&1
S=$SCRATCH/r/dumps/job.sbatch
check inspector_env_enable grep -qxF "export 'NCCL_INSPECTOR_ENABLE=1'" "$S"
check inspector_env_dump_dir grep -qxF "export 'NCCL_INSPECTOR_DUMP_DIR='\"\${CAMPAIGN_JOB_DIR-}\"'/nccl_inspector'" "$S"
check inspector_env_interval grep -qxF "export 'NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000'" "$S"
check inspector_env_verbose grep -qxF "export 'NCCL_INSPECTOR_DUMP_VERBOSE=1'" "$S"
check inspector_env_plugin_quoted grep -qxF "export 'NCCL_PROFILER_PLUGIN=/nonexistent/lib'\\''; touch $C; '\\''.so'" "$S"
check inspector_wrapper grep -q "'profile-rank' '--dir' .* '--nccl-inspector' '--'" "$S"
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" insp.yaml >out.txt 2>&1; rc=$?
run=$(rundir out.txt)
check inspector_run_completes [ "$rc" -eq 0 ]
check inspector_no_canary [ ! -e "$C" ]
for n in 1 2; do
	check inspector_missing_said_local$n grep -q "^campaign: NCCL Inspector plugin /nonexistent/lib'; touch $C; '.so not found on local$n: ranks run without it" "$run"/dumps/slurm-*.out
done
check inspector_missing_said_once_per_node [ "$(grep -c 'NCCL Inspector plugin' "$run"/dumps/slurm-*.out)" -eq 2 ]
A=$run/dumps/analysis.json
# By hand (tests/unit/test_inspector.c): all_reduce 6 instances over 10 steps, latency 2.0 ms,
# waits 2.95 / 3.1 ms, algbw 4194304 B / 2 ms = 2.097 GB/s, busbw x 3/2 = 3.146; all_gather
# 4 instances, latency 1.6 ms, waits 0.9 / 1.2 ms, 2.621 and 1.966 GB/s.
check inspector_table [ "$(json "$A" '[(c["op"], c["bytes"], c["instances"], c["count_per_step"], c["ms_per_step"], c["latency_ms"]["median"], c["wait_ms"]["median"], c["wait_ms"]["p95"], c["algbw_gbps"], c["busbw_gbps"]) for c in j["collectives"]]')" = "[('all_reduce', 4194304.0, 6, 0.6, 2.55, 2.0, 2.95, 3.1, 2.097, 3.146), ('all_gather', 4194304.0, 4, 0.4, 0.94, 1.6, 0.9, 1.2, 2.621, 1.966)]" ]
# rank 3 last at all 10 instances: p = 0.25^10 x 4; 22 ms imposed over 10 steps of 20 ms: 11 %
check inspector_straggler [ "$(json "$A" '[(g["rank"], g["node"], g["cause"], g["impact_pct"], g["arrived_last_pct"], g["chance_p"]) for g in j["stragglers"]]')" = "[(3, 'n2', 'unknown', 11.0, 100.0, 3.8e-06)]" ]
check inspector_counts [ "$(json "$A" '[j["nccl_inspector"][k] for k in ("files", "records", "malformed_objects", "partial_instances", "instances", "bandwidth_checked", "bandwidth_mismatches", "verbose_records", "collectives_from_inspector", "stragglers_from_inspector")]')" = "[4, 46, 1, 2, 10, 40, 1, 23, True, True]" ]
check inspector_mismatch_named [ "$(json "$A" '[(m["op"], m["coll_sn"], m["rank"], m["file_busbw_gbps"], m["busbw_gbps"]) for m in j["nccl_inspector"]["mismatches"]]')" = "[('all_gather', 12, 2, 1.529, 1.311)]" ]
R=$run/BOTTLENECK_ANALYSIS.md
check inspector_report_table grep -qF "| all_reduce | 4 MiB - 16 MiB (median 4194304 B) | 0.60 | 2.550 | 2.000 / 2.000 (rough) | 2.950 / 3.100 (rough) | 2.097 | 3.146 |" "$R"
check inspector_report_straggler grep -qF "**Straggler: rank 3 on n2**: it arrived last at 100 % of the collectives and keeps the others waiting 11.0 % of the median step (its straggler impact, per rank that waited); cause: unknown" "$R"
# the table's Wait % is n/a (step logs): the sentence says whose waiting it is and that it decides nothing
check inspector_report_straggler_source grep -qF "p = 3.8e-06. (The waiting is the NCCL Inspector's, per step; the step data does not split the step, so it feeds no verdict.)" "$R"
check inspector_report_read grep -qF "NCCL Inspector: 46 records from 4 dump files (4 processes, 2 communicators); 10 collective instances recorded by every rank of their communicator, 2 recorded by only some" "$R"
check inspector_report_malformed grep -qF "1 malformed or truncated object skipped" "$R"
check inspector_report_mismatch grep -qF "all_gather coll_sn 12, rank 2: algbw 1.747627 against 1.747627, busbw 1.529173 against 1.310720" "$R"
B=$run/nodumps/analysis.json
check inspector_missing_in_analysis [ "$(json "$B" 'j["profile_missing"]')" = "['nccl_inspector']" ]
check inspector_missing_no_section [ "$(json "$B" '"nccl_inspector" in j')" = False ]
check inspector_missing_in_report grep -q "Profile missing: nccl_inspector was asked for but left no output" "$R"
# The verbose dumps' kernel stop times give n2's clock offset (+7.3 ms in the fixture)
check inspector_clock_offset [ "$(json "$run/summary.json" '[(c["node"], c["basis"], c["offset_ms"]) for c in j["scenarios"][0]["clock_offsets"]]')" = "[('n1', 'reference', 0.0), ('n2', 'nccl-inspector', 7.3)]" ]
check inspector_clock_said grep -q "^Clocks: n2's clock is 7.30 ms ahead of n1's (the median of 10 collectives, which scatter by under 1 µs); the step data has no times for \`timeline.json\` to put on them.$" "$run/BOTTLENECK_ANALYSIS.md"
check inspector_clock_no_timeline [ "$(json "$run/summary.json" 'j["scenarios"][0]["timeline_clocks"]')" = "no timeline" ]
check inspector_missing_completed [ "$(json "$run/summary.json" '[s["state"] for s in j["scenarios"]]')" = "['COMPLETED', 'COMPLETED']" ]
# Where the plugin is there, each rank gets its path: found by name in LD_LIBRARY_PATH (or
# $NCCL_HOME/ext-profiler/inspector), and the dump folder is made before the ranks race for it.
mkdir -p lib job && : >lib/libnccl-profiler-inspector.so
out=$(cd job && env -u NCCL_PROFILER_PLUGIN NCCL_INSPECTOR_ENABLE=1 LD_LIBRARY_PATH="$SCRATCH/lib" \
	"$CAMPAIGN" profile-rank --dir "$SCRATCH/job" --nccl-inspector -- /bin/sh -c 'echo "$NCCL_PROFILER_PLUGIN $NCCL_INSPECTOR_ENABLE"' 2>&1)
check inspector_found_exported [ "$out" = "$SCRATCH/lib/libnccl-profiler-inspector.so 1" ]
check inspector_dump_dir_made [ -d job/nccl_inspector ]
out=$(env NCCL_HOME="$SCRATCH/nccl" NCCL_PROFILER_PLUGIN=libnccl-profiler-inspector.so LD_LIBRARY_PATH= \
	"$CAMPAIGN" profile-rank --dir "$SCRATCH/job" --nccl-inspector --required -- /bin/true 2>&1); rc=$?
check inspector_required_stops [ "$rc" -eq 127 ]
check inspector_required_said grep -q "NCCL Inspector plugin libnccl-profiler-inspector.so not found on .*: the campaign requires it, so the rank does not run" <<<"$out"
# campaign-analyze takes the dumps (files, or their folder) as it takes traces.
check inspector_analyze_text bash -c '"$1" "$2" | grep -qx "all_reduce      4 MiB - 16 MiB            6     2.000/    2.000     2.950/    3.100      2.097      3.146     25.500"' _ "$BIN/campaign-analyze" "$FIX"
"$BIN/campaign-analyze" --json "$FIX"/*.log >an.json
check inspector_analyze_json [ "$(json an.json '(j["nccl_inspector"]["instances"], j["nccl_inspector"]["malformed_objects"], [(g["rank"], g["node"]) for g in j["stragglers"]], [c["op"] for c in j["collectives"]])')" = "(10, 1, [(3, 'n2')], ['all_reduce', 'all_gather'])" ]
# ... and prints summary.json's objects, by its writers (issue 48, point 1): the same keys at
# every level as the run's scenario of the same dumps, the same counts, and the same rows
# but for what depends on the run's steps (the command line takes every instance as one step)
check inspector_analyze_json_is_summary python3 - an.json "$run/summary.json" "$ROOT/tests/tools" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from key_paths import key_paths as keys  # noqa: E402
a = json.load(open(sys.argv[1]))
s = [x for x in json.load(open(sys.argv[2]))["scenarios"] if x["name"] == "dumps"][0]
per_step = ("count_per_step", "ms_per_step", "ms_per_step_summed", "transfer_ms_per_step", "steps", "samples", "cause_ms_per_step", "impact_pct", "cause")
strip = lambda rows: [{k: v for k, v in r.items() if k not in per_step} for r in rows]
ok = all(keys(a[k]) == keys(s[k]) for k in ("nccl_inspector", "collectives", "stragglers"))
ok = ok and a["nccl_inspector"] == s["nccl_inspector"]
ok = ok and strip(a["collectives"]) == strip(s["collectives"])
ok = ok and strip(a["stragglers"]) == strip(s["stragglers"])
if not ok:
    for k in ("nccl_inspector", "collectives", "stragglers"):
        print("  ", k, sorted(keys(a[k]) ^ keys(s[k])), a[k] == s[k])
sys.exit(0 if ok else 1)
PY
"$BIN/campaign-analyze" "$FIX" "$ROOT/tests/fixtures/mini.pt.trace.json" >/dev/null 2>mixed.err; rc=$?
check inspector_analyze_not_mixed bash -c '[ "$1" -eq 2 ] && grep -q "give traces or dumps, not both" mixed.err' _ "$rc"
# Each rank is named by the launcher's record of its host and pid (ranks/rank_<r>.json): with
# the Inspector alone, profile-rank becomes the rank's command, so the pid the dumps carry is
# the recorded one. Here rank r writes its own dump as communicator rank 3 - r, rank 1 arriving
# last at 6 all-reduces (p = 0.25^6 x 4 = 0.001; 18 ms imposed over 10 steps of 20 ms: 9 %):
# the straggler is rank 1 on local1, not the communicator's rank 2.
cat >own.sh <<'EOF2'
d=$NCCL_INSPECTOR_DUMP_DIR h=$(hostname) ex=5000
[ "$RANK" = 1 ] && ex=2000
for sn in 1 2 3 4 5 6; do
	printf '{"header":{"id":"0x5","rank":%d,"n_ranks":4},"metadata":{"hostname":"%s","pid":%d,"dump_timestamp_us":%d},"coll_perf":{"coll":"AllReduce","coll_sn":%d,"coll_msg_size_bytes":1024,"coll_exec_time_us":%d}}\n' \
		$((3 - RANK)) "$h" $$ $((1000 + sn)) $sn $ex >>"$d/$h-pid$$.log"
done
i=0; while [ $i -lt 10 ]; do echo "step $i time 20.0 ms"; i=$((i + 1)); done
EOF2
sed -e "s|command: .*|command: [\"/bin/sh\", \"$SCRATCH/own.sh\"]|" -e '/nodumps/d' -e 's/plugin: [^,]*, //' insp.yaml >own.yaml
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/own" own.yaml >own.txt 2>&1
check inspector_ranks_from_records [ "$(json "$(rundir own.txt)/dumps/analysis.json" '[(g["rank"], g["node"]) for g in j["stragglers"]]')" = "[(1, 'local1')]" ]
# The key's own mistakes are named where they are, and nothing is done.
printf 'campaign: v\nprofile:\n  nccl_inspector: { plugin: "", verbos: true, interval_us: 0 }\nscenarios: [{ name: a, nodes: 1 }]\n' >v.yaml
"$CAMPAIGN" validate v.yaml >v.out 2>&1; rc=$?
check inspector_key_refused [ "$rc" -eq 2 ]
check inspector_key_plugin_empty grep -q "^v.yaml:3:29: profile.nccl_inspector.plugin: must name the plugin's library" v.out
check inspector_key_unknown grep -q "^v.yaml:3:33: profile.nccl_inspector.verbos: unknown key (expected one of: enabled, plugin, verbose, interval_us, required)" v.out
check inspector_key_interval grep -q "^v.yaml:3:60: profile.nccl_inspector.interval_us: 0 is out of range" v.out
