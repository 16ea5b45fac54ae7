# Traces and exports that are not what they claim to be, each with what the
# analyzer does: read it (gzip under a .json name), skip and count the bad
# events (ts as strings, negative durations, rows with text times), read
# through what simdjson refuses (10,000-deep args: the streaming reader has
# no depth limit), stay fast on 10^6 events at one instant, and refuse, naming
# the file, what is not a trace at all; in a run, the usable files are
# analysed and the others named.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
A=$BIN/campaign-analyze
export CAMPAIGN_RULES="$ROOT/analyzers/kernel_rules.txt"
fx=$ROOT/tests/fixtures/kineto_steps.pt.trace.json
gzip -c "$fx" >gzip-named.pt.trace.json
printf '{"traceEvents":[{"name":"a","ph":"X","ts":"10","dur":5},{"name":"b","ph":"X","ts":1,"dur":-5},{"name":"c","ph":"X","ts":1,"dur":2,"args":{"stream":7}}]}' >strings.json
python3 -c "
d = '{\"a\":' * 10000 + '1' + '}' * 10000
print('{\"traceEvents\":[{\"name\":\"k\",\"ph\":\"X\",\"ts\":10,\"dur\":5,\"args\":{\"stream\":7,\"deep\":' + d + '}}]}')" >deep-args.json
python3 -c "
import sys
w = sys.stdout.write
w('{\"traceEvents\":[')
w(','.join('{\"name\":\"k%d\",\"ph\":\"X\",\"ts\":1000,\"dur\":5,\"tid\":1,\"args\":{\"stream\":7}}' % (i % 10) for i in range(500000)))
w(',' + ','.join('{\"name\":\"cpu%d\",\"ph\":\"X\",\"ts\":1000,\"dur\":5,\"tid\":1}' % (i % 10) for i in range(500000)))
w(',{\"name\":\"ProfilerStep#1\",\"ph\":\"X\",\"ts\":1000,\"dur\":5,\"tid\":1}]}')" >instant.json
printf '{}' >empty-object.json
printf '{"traceEvents": 5}' >events-not-list.json
head -c 500 "$fx" >truncated.json
: >zero.json
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["ranks"][0]; print(eval(sys.argv[2]))' "$@"; }
"$A" --json gzip-named.pt.trace.json >gz.json; rc=$?
check traces_gzip_named_json_read [ "$rc" -eq 0 ] && check traces_gzip_named_json_steps [ "$(field gz.json 'r["active_steps"]')" = 3 ]
"$A" --json strings.json >s.json
check traces_string_ts_and_negative_dur_counted [ "$(field s.json '(r["gpu_events"], r["malformed_events"])')" = "(1, 2)" ]
# ts or dur as null, true, an object or a list: counted as malformed like a string (both readers)
printf '{"traceEvents":[{"name":"ProfilerStep#1","ph":"X","ts":null,"dur":5},{"name":"ProfilerStep#2","ph":"X","ts":{"v":1},"dur":5},{"name":"ProfilerStep#3","ph":"X","ts":[1],"dur":5},{"name":"d","ph":"X","ts":1,"dur":true,"args":{"stream":7}},{"name":"c","ph":"X","ts":1,"dur":2,"args":{"stream":7}}]}' >nonnum.json
"$A" --json nonnum.json >nn.json
check traces_non_number_ts_counted [ "$(field nn.json '(r["gpu_events"], r["malformed_events"])')" = "(1, 4)" ]
CAMPAIGN_SIMDJSON_MAX_MB=0 "$A" --json nonnum.json >nn2.json
check traces_non_number_ts_counted_yajl [ "$(field nn2.json '(r["gpu_events"], r["malformed_events"])')" = "(1, 4)" ]
"$A" strings.json >s.txt
check traces_malformed_said grep -q "skipped 2 malformed events (non-finite or negative time)" s.txt
"$A" --json deep-args.json >d.json; rc=$?
check traces_deep_args_read [ "$rc" -eq 0 ] && check traces_deep_args_event [ "$(field d.json 'r["gpu_events"]')" = 1 ]
start=$SECONDS
"$A" --json instant.json >i.json; rc=$?
check "traces_million_at_one_instant ($((SECONDS - start)) s)" [ "$rc" -eq 0 ]
check traces_million_counts [ "$(field i.json '(r["gpu_events"], r["active_steps"], sum(o["count"] for o in r["top_operators"]))')" = "(500000, 1, 500000)" ]
for f in empty-object events-not-list; do
	"$A" $f.json >$f.out 2>&1; rc=$?
	check "traces_${f}_exit0" [ "$rc" -eq 0 ]
	check "traces_${f}_nothing_there" grep -q "^$f.json (rank ?): 0 GPU events" $f.out
	check "traces_${f}_no_steps" grep -q "no ProfilerStep#N ranges" $f.out
done
"$A" truncated.json >t.out 2>&1; rc=$?
check traces_truncated_exit4 [ "$rc" -eq 4 ] && check traces_truncated_named grep -q "^campaign-analyze: truncated.json: not a Chrome-trace JSON file near byte [0-9]*: parse error: premature EOF" t.out
"$A" zero.json >z.out 2>&1; rc=$?
check traces_zero_bytes_exit4 [ "$rc" -eq 4 ] && check traces_zero_bytes_named grep -qx "campaign-analyze: zero.json: the file is empty (0 bytes): not a trace" z.out

# SQLite files that are not Nsight Systems exports
python3 "$ROOT/tests/tools/bad_nsys_exports.py" .
: >zero.sqlite
"$A" other.sqlite >o.out 2>&1; rc=$?
check nsys_other_sqlite_exit4 [ "$rc" -eq 4 ] && check nsys_other_sqlite_said grep -q "^campaign-analyze: other.sqlite: not an Nsight Systems export (no StringIds or CUPTI_ACTIVITY_KIND_KERNEL table)" o.out
"$A" layout.sqlite >l.out 2>&1; rc=$?
check nsys_wrong_layout_exit4 [ "$rc" -eq 4 ] && check nsys_wrong_layout_said grep -q "^campaign-analyze: layout.sqlite: CUPTI_ACTIVITY_KIND_KERNEL: unexpected layout: no such column" l.out
"$A" types.sqlite >ty.out 2>&1; rc=$?
check nsys_wrong_types_exit0 [ "$rc" -eq 0 ]
check nsys_wrong_types_one_kernel grep -q "COMPUTATION          1 us      1 x  gemm_kernel" ty.out
check nsys_wrong_types_skipped grep -q "skipped 3 malformed events" ty.out
"$A" extreme.sqlite >ex.out 2>&1; rc=$?
check nsys_extreme_rows_exit0 [ "$rc" -eq 0 ]
check nsys_extreme_rows_one_kernel grep -q "COMPUTATION          2 us      1 x  gemm_kernel" ex.out
check nsys_extreme_rows_malformed grep -q "skipped 3 malformed events" ex.out
"$A" norows.sqlite >nr.out 2>&1; rc=$?
check nsys_no_rows_exit4 [ "$rc" -eq 4 ] && check nsys_no_rows_said grep -q "norows.sqlite: the export holds no kernel, memory copy, memset or NVTX range: nothing to analyse" nr.out
"$A" scrambled.sqlite >sc.out 2>&1; rc=$?
check nsys_scrambled_exit4 [ "$rc" -eq 4 ] && check nsys_scrambled_said grep -q "scrambled.sqlite: not a readable SQLite database (" sc.out
printf '' | gzip -c >empty-gzip.json
"$A" empty-gzip.json >eg.out 2>&1; rc=$?
check traces_empty_gzip_exit4 [ "$rc" -eq 4 ] && check traces_empty_gzip_said grep -q "empty-gzip.json: a gzip file of 20 bytes that holds nothing: not a trace" eg.out
"$A" zero.sqlite >zs.out 2>&1; rc=$?
check nsys_zero_bytes_exit4 [ "$rc" -eq 4 ] && check nsys_zero_bytes_named grep -qx "campaign-analyze: zero.sqlite: the file is empty (0 bytes): not a trace" zs.out

# In a run: the usable traces are analysed, the others named
mkdir mix && cp "$fx" mix/rank0.pt.trace.json && cp gzip-named.pt.trace.json mix/rank1.pt.trace.json
cp truncated.json mix/rank2.pt.trace.json && cp empty-object.json mix/rank3.pt.trace.json
cat >mix.yaml <<Y
campaign: mix
workload: { command: ["/bin/true"] }
profile: { traces: ["$SCRATCH/mix/*.json"] }
scenarios: [{ name: m, nodes: 1, tasks_per_node: 4 }]
Y
"$CAMPAIGN" submit --wait --backend local --results "$SCRATCH/res" mix.yaml >mix.out 2>&1
run=$(rundir mix.out)
# rank0 and rank1 hold the same trace (distributedInfo rank 1): one rank
check traces_mix_analysed [ "$(json "$run/summary.json" '(j["scenarios"][0]["analysed"], j["scenarios"][0]["trace_files"], len(j["scenarios"][0]["median_step"]["ranks"]))')" = "(True, 4, 1)" ]
check traces_mix_unused_counted [ "$(json "$run/summary.json" 'j["scenarios"][0]["trace_files_unused"]')" = 2 ]
check traces_mix_unused_named grep -q "^2 of 4 trace files could not be used, the first because: .*/m/traces/rank2.pt.trace.json: not a Chrome-trace JSON file near byte" "$run/BOTTLENECK_ANALYSIS.md"
check traces_mix_problem_one_line [ "$(json "$run/summary.json" '"\n" not in j["scenarios"][0]["trace_problem"] and j["scenarios"][0]["trace_problem"].endswith("premature EOF")')" = True ]
