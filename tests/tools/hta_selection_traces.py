#!/usr/bin/env python3
# hta_selection_traces.py DIR: Kineto traces whose GPU-event selection by HTA is worked out by
# hand, for tests/e2e/hta_selection.sh: orphans.json (a kernel without its runtime call),
# gpusteps.json (a GPU-side ProfilerStep where the cut applies) and dupes.json (two runtime
# calls carrying one correlation id).
# SPDX-License-Identifier: MIT
import json
import os
import sys


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
    json.dump({"traceEvents": ev}, open(os.path.join(sys.argv[1], name + ".json"), "w"))
