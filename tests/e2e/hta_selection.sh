# HTA's selection of GPU events (issue 26, part 1), on traces of our own whose
# numbers are worked out by hand, with both readers (simdjson and yajl):
# with two or more ProfilerStep#N (GPU-side annotations count), the host
# events before the last step start are kept, and a GPU event only when a
# kept runtime call carries its correlation id, once per such call.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 "$ROOT/tests/tools/hta_selection_traces.py" .
for reader in simdjson yajl; do
	[ "$reader" = yajl ] && export CAMPAIGN_SIMDJSON_MAX_MB=0
	for f in orphans gpusteps dupes; do "$BIN/campaign-analyze" --json "$f.json" >"$f.$reader.json"; done
	K() { json "$1.$reader.json" "(j['ranks'][0]['gpu_events'], j['ranks'][0]['gpu_breakdown_detail']['kernel_time_us'], j['ranks'][0]['gpu_breakdown_detail']['idle_us'], sorted((k['count'], k['total_us']) for k in j['ranks'][0]['gpu_breakdown_detail']['top_kernels']))"; }
	# one kernel [10, 20]: kernel time 10, no idle
	check "hta_orphan_kernel_dropped_$reader" [ "$(K orphans)" = "(1, 10.0, 0.0, [(1, 10.0)])" ]
	check "hta_gpu_side_step_cuts_$reader" [ "$(K gpusteps)" = "(1, 10.0, 0.0, [(1, 10.0)])" ]
	# [10, 20] twice and [30, 40]: kernel time 30, idle 10, the first kernel's time counted twice
	check "hta_duplicate_launch_counts_twice_$reader" [ "$(K dupes)" = "(3, 30.0, 10.0, [(1, 10.0), (2, 20.0)])" ]
done

# The same rule in an Nsight Systems export whose process has NVTX ranges named
# ProfilerStep#N (ns): steps at 0 and 20000, so the cut is at 20000. Kernels:
# correlation 1 [1000,3000] launched at 500 (kept), 2 [4000,5000] launched by
# two calls before the cut (counted twice), 3 [6000,7000] with no call (dropped),
# 4 [21000,22000] launched at 20500 (after the cut: dropped). Kept: [1000,3000],
# [4000,5000] twice: kernel time 4000 ns, idle 1000 ns.
sed -e '/^INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL/,/;$/d' -e '/^INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY/d' \
    -e '/^INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET/d' -e '/^INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME/,/;$/d' \
    -e '/^INSERT INTO NVTX_EVENTS/,/;$/d' "$ROOT/tests/fixtures/mini_nsys.sql" >steps.sql
cat >>steps.sql <<'SQL'
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 3000, 0, 1, 7, 1, 1677721600, 1, 1),
  (4000, 5000, 0, 1, 7, 2, 1677721600, 1, 1), (6000, 7000, 0, 1, 7, 3, 1677721600, 1, 1),
  (21000, 22000, 0, 1, 7, 4, 1677721600, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 800, 0, 1677721605, 1, 3, 0), (3500, 3600, 0, 1677721605, 2, 3, 0),
  (3700, 3800, 0, 1677721605, 2, 3, 0), (20500, 20600, 0, 1677721605, 4, 3, 0);
INSERT INTO NVTX_EVENTS VALUES (0, 19000, 59, NULL, NULL, NULL, 'ProfilerStep#1', 1677721605, NULL, NULL, 0),
  (20000, 39000, 59, NULL, NULL, NULL, 'ProfilerStep#2', 1677721605, NULL, NULL, 0);
SQL
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[2]); c.executescript(open(sys.argv[1]).read()); c.commit()' steps.sql steps.sqlite
"$BIN/campaign-analyze" --json steps.sqlite >steps.json
check hta_nsys_profiler_steps_cut [ "$(json steps.json "(j['ranks'][0]['gpu_events'], j['ranks'][0]['gpu_breakdown_detail']['kernel_time_us'], j['ranks'][0]['gpu_breakdown_detail']['idle_us'])")" = "(3, 4.0, 1.0)" ]
# without the step ranges every kernel counts: [1000,3000], [4000,5000], [6000,7000], [21000,22000]
sed -i '/ProfilerStep/d; /^INSERT INTO NVTX_EVENTS/d' steps.sql
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[2]); c.executescript(open(sys.argv[1]).read()); c.commit()' steps.sql nosteps.sqlite
"$BIN/campaign-analyze" --json nosteps.sqlite >nosteps.json
check hta_nsys_without_steps_all_kernels [ "$(json nosteps.json "(j['ranks'][0]['gpu_events'], j['ranks'][0]['gpu_breakdown_detail']['kernel_time_us'])")" = "(4, 21.0)" ]
