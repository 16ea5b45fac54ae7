# timeline.json from the map step's results (issue 36): the pass that reads
# a trace for the analysis also leaves that rank's timeline fragment, and
# the timeline concatenates them, reading no trace a second time; the same
# bytes in one process and with --shards; a rank whose shard failed twice is
# left out of the timeline and said so; the fragments are gone afterwards.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/gen_traces.py" --ranks 10 --world 10 --mb 0.1 --out gen >/dev/null
cat >tl.yaml <<Y
campaign: tl
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/gen/*.json"] }
analysis: { batch_per_rank: 16 }
scenarios: [{ name: ranks10, nodes: 1, tasks_per_node: 1 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" tl.yaml >sub.txt 2>&1
run=$(rundir sub.txt)
check tl_run_analysed [ "$(json "$run/summary.json" 'j["scenarios"][0]["analysed"]')" = True ]
names() { json "$run/timeline.json" '[e["args"]["name"] for e in j["traceEvents"] if e.get("name") == "process_name"]'; }
check tl_eight_ranks_shown [ "$(names)" = "['ranks10 rank 0', 'ranks10 rank 1', 'ranks10 rank 2', 'ranks10 rank 3', 'ranks10 rank 4', 'ranks10 rank 5', 'ranks10 rank 6', 'ranks10 rank 7', 'ranks10: 2 more ranks not shown (first 8 by file name; all are in the analysis)']" ]
check tl_no_partial_left [ ! -e "$run/.partial" ]
cp "$run/timeline.json" one.json
# each trace is opened by the analysis and again by the replay (its host ranges: the execution
# graph, issue 47), not again by the timeline
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	strace -f -e trace=open,openat -o opens.txt "$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$run" >/dev/null 2>&1
	check tl_each_trace_read_once [ "$(grep -c 'rank0\.pt\.trace\.json"' opens.txt),$(json "$run/summary.json" 'j["scenarios"][0]["replay"] is not None')" = 2,True ]
	check tl_fragments_made [ "$(grep -c '/\.partial/timeline/[0-9a-f]*\.tlf\.[A-Za-z0-9]*",.*O_CREAT' opens.txt)" = 8 ]
	check tl_same_again cmp -s one.json "$run/timeline.json"
else
	skip tl_each_trace_read_once "strace is not available here"
fi
"$CAMPAIGN" aggregate --force --shards 3 --results "$SCRATCH/res" "$run" >/dev/null 2>map.err
check tl_shards_identical cmp -s one.json "$run/timeline.json"
check tl_shards_fragments_removed [ ! -e "$run/.partial/timeline" ]
check tl_shards_results_kept [ -s "$run/.partial/plan.json" ]
# shard 2 of 3 fails twice: it has the plan's files 2, 5 and 8 (rank2, rank5, rank8 by
# name), two of them among the 8 the timeline shows: those two are left out, unread
CAMPAIGN_FAULT=analyze-shard:2 "$CAMPAIGN" aggregate --force --shards 3 --results "$SCRATCH/res" "$run" >/dev/null 2>lost.err
check tl_lost_in_summary [ "$(json "$run/summary.json" 'j["scenarios"][0]["trace_files_not_analysed"]')" = "rank2.pt.trace.json, rank5.pt.trace.json, rank8.pt.trace.json" ]
check tl_lost_ranks_left_out_and_said [ "$(names)" = "['ranks10 rank 0', 'ranks10 rank 1', 'ranks10 rank 3', 'ranks10 rank 4', 'ranks10 rank 6', 'ranks10 rank 7', 'ranks10: 2 more ranks not shown (first 8 by file name; all are in the analysis)', 'ranks10: 2 ranks not shown: the map step could not analyse their files (trace_files_not_analysed in summary.json)']" ]
"$CAMPAIGN" aggregate --force --results "$SCRATCH/res" "$run" >/dev/null 2>&1
check tl_rerun_restores cmp -s one.json "$run/timeline.json"
