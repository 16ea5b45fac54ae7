# campaign-analyze on the project's own small Kineto fixture, whose numbers
# are worked out by hand (the same code paths as the shared traces):
# GPU events (stream != -1): sgemm [ceil 10.2 = 11, floor 30.7 = 30], sgemm [40, 50],
# nccl [25, 55], memcpy [60, 65], sync [66, 70]; the sgemm at 210 is in the last of two
# ProfilerSteps and is dropped; the one on stream -1 is not a GPU event.
# kernel time 70 - 11 = 59; union: [11,55] 44 + [60,65] 5 + [66,70] 4 = 53 -> idle 6;
# compute: [11,30] + [40,50] = 29; overlap with nccl [25,55]: [25,30] + [40,50] = 15 of 30.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
"$BIN/campaign-analyze" --json "$ROOT/tests/fixtures/mini.pt.trace.json" >m.json; rc=$?
check fixture_exit0 [ "$rc" -eq 0 ]
check fixture_rank [ "$(json m.json 'j["ranks"][0]["rank"]')" = 3 ]
check fixture_events [ "$(json m.json 'j["ranks"][0]["gpu_events"]')" = 5 ]
check fixture_kernel_time [ "$(json m.json 'j["ranks"][0]["kernel_time_us"]')" = 59.0 ]
check fixture_idle [ "$(json m.json '(j["ranks"][0]["idle_us"], j["ranks"][0]["idle_pct"])')" = "(6.0, 10.17)" ]
check fixture_compute [ "$(json m.json '(j["ranks"][0]["compute_us"], j["ranks"][0]["compute_pct"])')" = "(29.0, 49.15)" ]
check fixture_non_compute [ "$(json m.json 'j["ranks"][0]["non_compute_us"]')" = 24.0 ]
check fixture_overlap [ "$(json m.json 'j["ranks"][0]["comm_comp_overlap_pct"]')" = 50.0 ]
check fixture_top_kernels [ "$(json m.json '[(k["category"], k["count"], k["total_us"]) for k in j["ranks"][0]["top_kernels"]]')" = "[('COMMUNICATION', 1, 30.0), ('MEMORY', 1, 5.0), ('OTHER', 1, 4.0), ('COMPUTATION', 2, 29.0)]" ]
"$BIN/campaign-analyze" "$ROOT/tests/fixtures/mini.pt.trace.json" >m.txt
check fixture_text_report grep -q "kernel time 59 us: idle 10.17 %, compute 49.15 %, non-compute 40.68 %" m.txt
printf '{"traceEvents": [ {"ph": "X", ' >broken.json
"$BIN/campaign-analyze" broken.json 2>err.txt; rc=$?
check broken_trace_exit4 [ "$rc" -eq 4 ]
check broken_trace_says_where grep -q "broken.json: not a Chrome-trace JSON file near byte" err.txt
printf 'COMPUTATION\t(unclosed\n' >bad.rules
"$BIN/campaign-analyze" --rules bad.rules "$ROOT/tests/fixtures/mini.pt.trace.json" 2>err.txt; rc=$?
check bad_rules_exit2 [ "$rc" -eq 2 ]
check bad_rules_say_where grep -q "bad.rules:1:" err.txt
