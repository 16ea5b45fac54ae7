# HTA's selection of GPU events (issue 26, part 1), on traces of our own whose
# numbers are worked out by hand, with both readers (simdjson and yajl):
# with two or more ProfilerStep#N (GPU-side annotations count), the host
# events before the last step start are kept, and a GPU event only when a
# kept runtime call carries its correlation id, once per such call.
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
python3 - <<'P'
import json
def step(n, ts, cat="user_annotation"):
    return {"ph": "X", "cat": cat, "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1, "ts": ts, "dur": 100 if cat == "user_annotation" else 50}
def kern(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"stream": 7, "correlation": corr, "device": 0}}
def launch(ts, corr, cat="cuda_runtime", name="cudaLaunchKernel"):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 2, "args": {"correlation": corr}}
# orphans: the kernel of correlation 99 has no runtime call in the trace: HTA drops it
orphans = [step(1, 0), step(2, 200), launch(5, 1), kern("volta_sgemm_a", 10, 10, 1), kern("volta_sgemm_b", 30, 10, 99)]
# GPU-side steps: one host ProfilerStep and a GPU-side ProfilerStep#2 at 150: the cut applies
# there, so the kernel launched at 155 goes
gpusteps = [step(1, 0), step(2, 150, "gpu_user_annotation"), launch(5, 1), kern("volta_sgemm_a", 10, 10, 1),
            launch(155, 2), kern("volta_sgemm_b", 160, 10, 2)]
# duplicates: two runtime calls carry correlation 1 (runtime and driver): its kernel counts twice
dupes = [step(1, 0), step(2, 200), launch(5, 1), launch(6, 1, "cuda_driver", "cuLaunchKernel"),
         kern("volta_sgemm_a", 10, 10, 1), launch(25, 2), kern("volta_sgemm_b", 30, 10, 2)]
for name, ev in (("orphans", orphans), ("gpusteps", gpusteps), ("dupes", dupes)):
    json.dump({"traceEvents": ev}, open(name + ".json", "w"))
P
for reader in simdjson yajl; do
	[ "$reader" = yajl ] && export CAMPAIGN_SIMDJSON_MAX_MB=0
	for f in orphans gpusteps dupes; do "$BIN/campaign-analyze" --json "$f.json" >"$f.$reader.json"; done
	K() { json "$1.$reader.json" "(j['ranks'][0]['gpu_events'], j['ranks'][0]['kernel_time_us'], j['ranks'][0]['idle_us'], sorted((k['count'], k['total_us']) for k in j['ranks'][0]['top_kernels']))"; }
	# one kernel [10, 20]: kernel time 10, no idle
	check "hta_orphan_kernel_dropped_$reader" [ "$(K orphans)" = "(1, 10.0, 0.0, [(1, 10.0)])" ]
	check "hta_gpu_side_step_cuts_$reader" [ "$(K gpusteps)" = "(1, 10.0, 0.0, [(1, 10.0)])" ]
	# [10, 20] twice and [30, 40]: kernel time 30, idle 10, the first kernel's time counted twice
	check "hta_duplicate_launch_counts_twice_$reader" [ "$(K dupes)" = "(3, 30.0, 10.0, [(1, 10.0), (2, 20.0)])" ]
done
