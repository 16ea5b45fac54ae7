# The aggregation job on several nodes (analysis.nodes: 4): `campaign
# aggregate` maps the per-file analysis of 64 generated rank traces over
# its allocation with srun, one shard per node; each shard writes one result
# per file (atomically) under RUN/.partial, and the reduce writes exactly
# what campaign-analyze -j 1 writes in one process. Also: the local form
# (--shards N), a shard that fails once (retried) and one that fails twice
# (its files named as not analysed).
# lane: slurm (starts a test cluster of its own: a SLURM lane, tests/run.sh)
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/gen_traces.py" --ranks 64 --world 64 --mb 0.25 --out gen >/dev/null
check mapped_generated_64 [ "$(ls gen | wc -l)" = 64 ]
cat >map.yaml <<Y
campaign: mapped
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/gen/*.json"] }
analysis: { nodes: 4, batch_per_rank: 16 }
scenarios: [{ name: ranks64, nodes: 1, tasks_per_node: 1 }]
Y
# the local form first: no cluster needed
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/loc" map.yaml >loc.txt 2>&1
lrun=$(rundir loc.txt)
check mapped_local_run_analysed [ "$(json "$lrun/summary.json" 'j["scenarios"][0]["analysed"]')" = True ]
"$CAMPAIGN" aggregate --jobs 1 --results "$SCRATCH/loc" "$lrun" >/dev/null 2>&1
check mapped_timeline_eight_ranks_named [ "$(json "$lrun/timeline.json" '[e["args"]["name"] for e in j["traceEvents"] if e.get("name") == "process_name"][-2:]')" = "['ranks64 rank 15', 'ranks64: 56 more ranks not shown (first 8 by file name; all are in the analysis)']" ]
mkdir one && cp "$lrun/summary.json" "$lrun/BOTTLENECK_ANALYSIS.md" "$lrun/timeline.json" one/
"$CAMPAIGN" aggregate --shards 3 --results "$SCRATCH/loc" "$lrun" >/dev/null 2>map3.err; rc=$?
check mapped_local_exit0 [ "$rc" -eq 0 ]
check mapped_local_says_map grep -q '^campaign aggregate: map step: 64 files on 3 shards (local processes)$' map3.err
check mapped_local_three_done [ "$(ls "$lrun/.partial" | grep -c '^shard-[0-2]\.done$')" = 3 ]
check mapped_local_64_results [ "$(ls "$lrun/.partial" | grep -c '^[0-9]*\.json$')" = 64 ]
for f in summary.json BOTTLENECK_ANALYSIS.md timeline.json; do
	check "mapped_local_identical_$f" cmp -s one/$f "$lrun/$f"
done
CAMPAIGN_FAULT=analyze-shard-first:1 "$CAMPAIGN" aggregate --shards 3 --results "$SCRATCH/loc" "$lrun" >/dev/null 2>retry.err
check mapped_retry_said grep -q '^campaign aggregate: shard-1 of 3 failed; running it once more$' retry.err
check mapped_retry_second_attempt grep -q '^campaign aggregate: shard-1 of 3 on .*: 21 files, .* (second attempt)$' retry.err
check mapped_retry_identical cmp -s one/summary.json "$lrun/summary.json"
CAMPAIGN_FAULT=analyze-shard:2 "$CAMPAIGN" aggregate --shards 3 --results "$SCRATCH/loc" "$lrun" >/dev/null 2>lost.err; rc=$?
check mapped_lost_exit0 [ "$rc" -eq 0 ]
check mapped_lost_said grep -q '^campaign aggregate: shard-2 of 3 failed twice: its 21 files are reported as not analysed$' lost.err
# the plan lists the files in name order; shard-2 of 3 has the 3rd, 6th, ...
lost=$(python3 -c 'print(", ".join(sorted("rank%d.pt.trace.json" % r for r in range(64))[2::3]))')
check mapped_lost_named_in_summary [ "$(json "$lrun/summary.json" 'j["scenarios"][0]["trace_files_not_analysed"]')" = "$lost" ]
check mapped_lost_named_in_report grep -qF "**21 trace files were not analysed**: the map step's shard failed twice on them: $lost." "$lrun/BOTTLENECK_ANALYSIS.md"
check mapped_lost_ranks_left_out [ "$(json "$lrun/summary.json" 'len(j["scenarios"][0]["median_step"]["ranks"])')" = 43 ]
"$CAMPAIGN" aggregate --shards 2 --results "$SCRATCH/loc" "$lrun" >/dev/null 2>&1
check mapped_rerun_restores cmp -s one/summary.json "$lrun/summary.json"
"$CAMPAIGN" aggregate --shards 0x --results "$SCRATCH/loc" "$lrun" >/dev/null 2>bad.err; rc=$?
check mapped_bad_shards_exit2 [ "$rc" -eq 2 ]

# on the SLURM test cluster: the aggregation job on 4 nodes
slurm_cluster mapped /tmp/campaign-slurm-mapped 16977 17700
"$CAMPAIGN" submit --backend slurm --results "$SCRATCH/res" map.yaml >sub.txt 2>&1; rc=$?
run=$(rundir sub.txt)
check mapped_submit_exit0 [ "$rc" -eq 0 ]
check mapped_sbatch_four_nodes grep -qx '#SBATCH --nodes=4' "$run/aggregate.sbatch"
check mapped_analysed_by_aggregation_job wait_for 300 test -s "$run/BOTTLENECK_ANALYSIS.md"
sleep 1
out=$(ls "$run"/aggregate-*.out | head -n 1)
check mapped_srun_map_step grep -q '^campaign aggregate: map step: 64 files on 4 shards (srun, one task per node)$' "$out"
hosts=$(python3 -c '
import glob, json, sys
print(" ".join(sorted(json.load(open(f))["host"] for f in glob.glob(sys.argv[1] + "/.partial/shard-*.done"))))' "$run")
check "mapped_shards_on_four_hosts ($hosts)" [ "$hosts" = "n1 n2 n3 n4" ]
by_host=$(python3 -c '
import collections, glob, json, sys
c = collections.Counter(json.load(open(f))["host"] for f in glob.glob(sys.argv[1] + "/.partial/[0-9]*.json"))
print(" ".join("%s:%d" % kv for kv in sorted(c.items())))' "$run")
check "mapped_results_written_from_four_hosts ($by_host)" [ "$by_host" = "n1:16 n2:16 n3:16 n4:16" ]
grep '^campaign aggregate: \(shard\|map step took\)' "$out" | sed 's/^/    /'
mkdir slurm && cp "$run/summary.json" "$run/BOTTLENECK_ANALYSIS.md" "$run/timeline.json" slurm/
"$BIN/campaign-analyze" -j 1 "$run" >/dev/null 2>&1
for f in summary.json BOTTLENECK_ANALYSIS.md timeline.json; do
	check "mapped_slurm_identical_to_analyze_j1_$f" cmp -s slurm/$f "$run/$f"
done
