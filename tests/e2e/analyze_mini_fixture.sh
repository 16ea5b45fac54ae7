# campaign-analyze on the project's own small Kineto fixture, whose numbers
# are worked out by hand (the same code paths as the shared traces):
# GPU events (stream != -1): sgemm [ceil 10.2 = 11, floor 30.7 = 30], sgemm [40, 50],
# nccl [25, 55], memcpy [60, 65], sync [66, 70]; the sgemm at 210 is in the last of two
# ProfilerSteps and is dropped; the one on stream -1 is not a GPU event.
# kernel time 70 - 11 = 59; union: [11,55] 44 + [60,65] 5 + [66,70] 4 = 53 -> idle 6;
# compute: [11,30] + [40,50] = 29; overlap with nccl [25,55]: [25,30] + [40,50] = 15 of 30.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
"$BIN/campaign-analyze" --json "$ROOT/tests/fixtures/mini.pt.trace.json" >m.json; rc=$?
check fixture_exit0 [ "$rc" -eq 0 ]
check fixture_rank [ "$(json m.json 'j["ranks"][0]["rank"]')" = 3 ]
check fixture_events [ "$(json m.json 'j["ranks"][0]["gpu_events"]')" = 5 ]
check fixture_kernel_time [ "$(json m.json 'j["ranks"][0]["gpu_breakdown_detail"]["kernel_time_us"]')" = 59.0 ]
check fixture_idle [ "$(json m.json '(j["ranks"][0]["gpu_breakdown_detail"]["idle_us"], j["ranks"][0]["gpu_breakdown_detail"]["idle_pct"])')" = "(6.0, 10.17)" ]
check fixture_compute [ "$(json m.json '(j["ranks"][0]["gpu_breakdown_detail"]["compute_us"], j["ranks"][0]["gpu_breakdown_detail"]["compute_pct"])')" = "(29.0, 49.15)" ]
check fixture_non_compute [ "$(json m.json 'j["ranks"][0]["gpu_breakdown_detail"]["non_compute_us"]')" = 24.0 ]
check fixture_overlap [ "$(json m.json 'j["ranks"][0]["gpu_breakdown_detail"]["comm_comp_overlap_pct"]')" = 50.0 ]
check fixture_top_kernels [ "$(json m.json '[(k["category"], k["count"], k["total_us"]) for k in j["ranks"][0]["gpu_breakdown_detail"]["top_kernels"]]')" = "[('COMMUNICATION', 1, 30.0), ('MEMORY', 1, 5.0), ('OTHER', 1, 4.0), ('COMPUTATION', 2, 29.0)]" ]
"$BIN/campaign-analyze" "$ROOT/tests/fixtures/mini.pt.trace.json" >m.txt
check fixture_text_report grep -q "kernel time 59 us: idle 10.17 %, compute 49.15 %, non-compute 40.68 %" m.txt
# without its ProfilerStep ranges, the same trace is one profiled window, said as one (no
# "1 step, median 0.000 ms" from the null statistics of a window)
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")]
json.dump(d, open("nosteps.json", "w"))' "$ROOT/tests/fixtures/mini.pt.trace.json"
"$BIN/campaign-analyze" nosteps.json >nosteps.txt
check fixture_window_said grep -q "^  no ProfilerStep#N ranges (call prof.step() once per training step): the profiled window, [0-9.]* ms: " nosteps.txt
check fixture_window_no_step_line bash -c '! grep -q "step, median" nosteps.txt'
"$BIN/campaign-analyze" --json nosteps.json >nosteps.json.out
check fixture_window_json [ "$(json nosteps.json.out '(j["ranks"][0]["step_boundaries"], j["ranks"][0]["step_time_ms"], j["ranks"][0]["active_steps"])')" = "(False, None, 1)" ]
printf '{"traceEvents": [ {"ph": "X", ' >broken.json
"$BIN/campaign-analyze" broken.json 2>err.txt; rc=$?
check broken_trace_exit4 [ "$rc" -eq 4 ]
check broken_trace_says_where grep -q "broken.json: not a Chrome-trace JSON file near byte" err.txt
printf 'COMPUTATION\t(unclosed\n' >bad.rules
"$BIN/campaign-analyze" --rules bad.rules "$ROOT/tests/fixtures/mini.pt.trace.json" 2>err.txt; rc=$?
check bad_rules_exit2 [ "$rc" -eq 2 ]
check bad_rules_say_where grep -q "bad.rules:1:" err.txt
# Idle split and launches (runtime calls joined by correlation id): stream 7 gaps
# [30,40] (its launch at 35 > 30: host wait 10), [50,60] (memcpy call at 52: host wait 10),
# [65,66] (the call at 61 < 65, gap 1 < 30 us: kernel wait 1). Launches (cudaLaunchKernel/
# MemcpyAsync/MemsetAsync; the cudaEventRecord is not one; the call at 205 is in the dropped
# step): cpu 4,3,2,2 -> 2.75; gpu 19,10,5,30 -> 16; delay = start - call end 2,2,6,3 -> 3.25, median 2.5.
check fixture_idle_split [ "$(json m.json '[(s["stream"], s["host_wait_us"], s["kernel_wait_us"], s["other_us"]) for s in j["ranks"][0]["gpu_breakdown_detail"]["idle_by_stream"]]')" = "[(7, 20.0, 1.0, 0.0), (13, 0.0, 0.0, 0.0)]" ]
check fixture_idle_split_pct [ "$(json m.json '(j["ranks"][0]["gpu_breakdown_detail"]["idle_host_wait_pct"], j["ranks"][0]["gpu_breakdown_detail"]["idle_kernel_wait_pct"])')" = "(95.24, 4.76)" ]
check fixture_launches [ "$(json m.json 'tuple(j["ranks"][0]["gpu_breakdown_detail"]["launch"][k] for k in ("n", "cpu_duration_mean_us", "gpu_duration_mean_us", "launch_delay_mean_us", "launch_delay_p50_us"))')" = "(4, 2.75, 16.0, 3.25, 2.5)" ]
check fixture_text_idle_launch grep -q "idle: host wait 95.2 %, kernel wait 4.8 %, other 0.0 %" m.txt

# Nsight Systems SQLite export (tests/fixtures/mini_nsys.sql), in ns. pid 100 dev 0: gemm
# [1000,5000] s7, nccl [4000,9000] s20, memcpy HtoD [10000,11000] s7, memset [11500,12000] s7:
# kernel time 11000, busy 8000+1000+500 -> idle 1500 (13.64 %), compute 4000 (36.36 %),
# non-compute 5500 (50 %), overlap 1000 of 5000 (20 %). Stream 7 gaps: 5000 (memcpy call at
# 9500 > 5000: host wait), 500 (memset call at 10500 < 11000: kernel wait). pid 101 dev 1: its
# own call for correlation id 1 at [100,200] -> delay 1.8 us (pid 100's would give 1.2).
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[2]); c.executescript(open(sys.argv[1]).read()); c.commit()' \
	"$ROOT/tests/fixtures/mini_nsys.sql" mini.sqlite
"$BIN/campaign-analyze" --json mini.sqlite >n.json; rc=$?
check nsys_fixture_exit0 [ "$rc" -eq 0 ]
check nsys_fixture_entries [ "$(json n.json '[(r["process"], r["rank"], r["gpu_events"]) for r in j["ranks"]]')" = "[('pid100_dev0', 0, 4), ('pid101_dev1', 1, 1)]" ]
check nsys_fixture_breakdown [ "$(json n.json 'tuple(j["ranks"][0]["gpu_breakdown_detail"][k] for k in ("kernel_time_us", "idle_pct", "compute_pct", "non_compute_pct", "comm_comp_overlap_pct"))')" = "(11.0, 13.64, 36.36, 50.0, 20.0)" ]
check nsys_fixture_memory_names [ "$(json n.json '[k["name"] for k in j["ranks"][0]["gpu_breakdown_detail"]["top_kernels"] if k["category"] == "MEMORY"]')" = "['Memcpy HtoD', 'Memset (Device)']" ]
check nsys_fixture_idle_split [ "$(json n.json '[(s["stream"], s["host_wait_us"], s["kernel_wait_us"]) for s in j["ranks"][0]["gpu_breakdown_detail"]["idle_by_stream"]]')" = "[(7, 5.0, 0.5), (20, 0.0, 0.0)]" ]
check nsys_fixture_launches [ "$(json n.json 'tuple(j["ranks"][0]["gpu_breakdown_detail"]["launch"][k] for k in ("n", "cpu_duration_mean_us", "gpu_duration_mean_us", "launch_delay_mean_us"))')" = "(4, 0.2, 2.625, 0.55)" ]
check nsys_fixture_correlation_per_process [ "$(json n.json 'j["ranks"][1]["gpu_breakdown_detail"]["launch"]["launch_delay_mean_us"]')" = 1.8 ]
check nsys_fixture_nvtx [ "$(json n.json 'j["nvtx_top"]["mini.sqlite"]')" = "[{'range': 'step', 'total_ns': 12500, 'instances': 2}, {'range': 'fwd', 'total_ns': 800, 'instances': 1}]" ]
printf 'SQLite format 3\0junk' >notnsys.sqlite
"$BIN/campaign-analyze" notnsys.sqlite 2>err.txt; rc=$?
check nsys_not_sqlite_exit4 [ "$rc" -eq 4 ]
python3 -c 'import sqlite3; sqlite3.connect("other.sqlite").execute("create table t(x)")'
"$BIN/campaign-analyze" other.sqlite 2>err.txt; rc=$?
check nsys_other_db_exit4 [ "$rc" -eq 4 ]
check nsys_other_db_says_why grep -q "other.sqlite: not an Nsight Systems export" err.txt
# Kernel-type sweep (HTA's kernel_type_breakdown): [11,25] computation 14, [25,30] + [40,50] both 15,
# [30,40] + [50,55] communication 15, memcpy 5, the sync (OTHER) 4: 53 = the busy union.
check fixture_kernel_types [ "$(json m.json 'sorted((k, v["us"]) for k, v in j["ranks"][0]["gpu_breakdown_detail"]["kernel_types"].items())')" = "[('COMMUNICATION', 15.0), ('COMPUTATION', 14.0), ('COMPUTATION overlapping COMMUNICATION', 15.0), ('MEMORY', 5.0), ('OTHER', 4.0)]" ]
